"""`repodigest classify`: JSON lines in, tags out; --explain for people; bad lines reported."""

from __future__ import annotations

import io
import json

from services.classifier.cli import classify_command

ITEMS = [
    {
        "number": 1,
        "title": "[Bugfix][ROCm] Fix AITER MLA decode crash on MI300X",
        "author": "jtan-amd",
        "files": [
            "vllm/v1/attention/backends/rocm_aiter_mla.py",
            "vllm/v1/core/sched/scheduler.py",
        ],
    },
    {
        "number": 2,
        "title": "Bump torch to 2.9.0",
        "author": {"login": "dependabot[bot]"},
        "files": [{"path": "requirements/cuda.txt", "additions": 1, "deletions": 1}],
        "labels": [{"name": "ci/build"}],
    },
    {"number": 3, "title": "Tweak", "author_email": "someone@amd.com", "author": "someone"},
]


def run(tmp_path, lines: list[str], explain: bool = False, profile: str = "llm-serving"):
    src = tmp_path / "items.jsonl"
    src.write_text("\n".join(lines) + "\n")
    out, err = io.StringIO(), io.StringIO()
    code = classify_command(profile, str(src), explain, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_json_lines_out(tmp_path):
    code, out, err = run(tmp_path, [json.dumps(i) for i in ITEMS])
    assert code == 0 and err == ""
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["number"] for r in rows] == [1, 2, 3]
    first = rows[0]
    assert first["profile"] == "llm-serving" and len(first["version"]) == 64
    assert [m["name"] for m in first["modules"]][:1] == ["rocm"]
    assert "module:rocm/title-prefix" in first["rules"]
    assert first["evidence"]["module:rocm/title-prefix"] == "title prefix [ROCm]"
    assert set(first["rules"]) == set(first["evidence"])
    assert {r["name"] for r in first["risks"]} >= {"core-without-tests", "hardware-specific"}
    assert [a["name"] for a in first["affiliations"]] == ["AMD"]
    assert [e["name"] for e in first["ecosystems"]][:1] == ["ROCm"]
    assert [c["name"] for c in first["categories"]][:1] == ["bugfix"]
    assert rows[1]["bot"] is True and rows[1]["bot_rule"] == "bot:known-login"
    assert rows[1]["modules"][0]["rule"] == "module:ci/build/label"
    assert [a["name"] for a in rows[2]["affiliations"]] == ["AMD"]  # from the e-mail domain
    assert rows[2]["modules"] == [
        {"name": "other", "rule": "module:fallback/no-files", "fallback": True}
    ]


def test_explain_is_for_people(tmp_path):
    code, out, _ = run(tmp_path, [json.dumps(ITEMS[0])], explain=True)
    assert code == 0
    assert out.startswith("#1 [Bugfix][ROCm] Fix AITER MLA decode crash on MI300X")
    assert "rocm: title prefix [ROCm]  <module:rocm/title-prefix>" in out
    assert (
        "[high] core-without-tests: changed vllm/v1/core/sched/scheduler.py (core) and no file under tests/"
        in out
    )
    assert "AMD: author jtan-amd" in out
    assert "bot: no" in out


def test_bad_lines_are_reported_with_their_number_and_the_rest_is_processed(tmp_path):
    lines = [
        json.dumps(ITEMS[0]),
        "{not json",
        json.dumps({"title": "no number"}),
        "",
        json.dumps({"number": 0, "title": "zero"}),
        json.dumps(ITEMS[1]),
    ]
    code, out, err = run(tmp_path, lines)
    assert code == 1
    assert [json.loads(line)["number"] for line in out.splitlines()] == [1, 2]
    assert "items.jsonl:2: skipped: not JSON" in err
    assert "items.jsonl:3: skipped: missing number" in err
    assert "items.jsonl:5: skipped: number" in err
    assert "3 line(s) skipped" in err


def test_unknown_profile_and_missing_file(tmp_path):
    code, out, err = run(tmp_path, [json.dumps(ITEMS[0])], profile="nope")
    assert code == 2 and out == "" and "unknown profile 'nope'" in err and "llm-serving" in err
    out_io, err_io = io.StringIO(), io.StringIO()
    assert (
        classify_command("default", str(tmp_path / "missing.jsonl"), False, out=out_io, err=err_io)
        == 1
    )
    assert "cannot read" in err_io.getvalue() and "missing.jsonl" in err_io.getvalue()


def test_profile_file_by_path(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "profile: mine\nextends: default\nmodules:\n  - {name: widgets, keywords: [widget]}\n"
    )
    code, out, _ = run(
        tmp_path, [json.dumps({"number": 9, "title": "Faster widget"})], profile=str(path)
    )
    row = json.loads(out)
    assert code == 0 and row["profile"] == "mine" and row["modules"][0]["name"] == "widgets"
    assert row["categories"][0]["name"] == "performance"  # inherited from default


def test_stdin(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(ITEMS[1]) + "\n"))
    out = io.StringIO()
    assert classify_command("default", "-", False, out=out, err=io.StringIO()) == 0
    assert json.loads(out.getvalue())["number"] == 2


def test_through_the_repodigest_cli(tmp_path):
    from typer.testing import CliRunner

    from repodigest.cli import app

    src = tmp_path / "items.jsonl"
    src.write_text(json.dumps(ITEMS[0]) + "\n")
    result = CliRunner().invoke(app, ["classify", "--profile", "llm-serving", str(src)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["modules"][0]["name"] == "rocm"
