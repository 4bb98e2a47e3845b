"""One report across repositories (issue #19 item 4), end to end through the real CLI, its embedded
nats-server and the four services, on real GH Archive data (the 2016-07-07 sample holds
kubernetes/kubernetes and kubernetes/kubernetes.github.io): the single reports of each repository
are run, then the combined one, `OWNER/*` and the explicit list; its counts are the sums of theirs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import require_shared_data
from tests.e2e.test_cli import run_cli

OWNER = "kubernetes"
REPOS = ("kubernetes/kubernetes", "kubernetes/kubernetes.github.io")
WINDOW = "day:2016-07-07"
FIVE = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")


@pytest.fixture(scope="module")
def archive() -> Path:
    return require_shared_data("gharchive", "2016-07-07-00.first2000.from-parquet.ndjson")


def report(repo: str, out: Path, source: str, *extra: str) -> tuple[dict, Path]:
    result = run_cli(
        "report",
        repo,
        "--window",
        WINDOW,
        "--quiet",
        "--source",
        source,
        "--out",
        str(out),
        *extra,
        env={"GITHUB_TOKEN": ""},
        timeout=600,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    # a combined report also leaves its repositories' own (JSON) reports in --out: pick its own
    key = "___.." if "," in repo or repo.endswith("/*") else repo.replace("/", "__")
    (ready,) = [p for p in out.rglob("report-ready.json") if key in str(p.relative_to(out))]
    target = ready.parent
    return json.loads((target / "en" / "report.json").read_text()), target


@pytest.fixture(scope="module")
def singles(archive, tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("singles")
    return {
        repo: report(
            repo, out / repo.replace("/", "__"), f"gharchive:{archive}", "--formats", "json"
        )[0]
        for repo in REPOS
    }


def test_the_owner_report_counts_the_sum_of_its_repositories_reports(archive, singles, tmp_path):
    combined, target = report(
        f"{OWNER}/*",
        tmp_path / "org",
        f"gharchive:{archive}",
        "--formats",
        "md,html,pdf,json",
        "--lang",
        "en,zh-CN",
    )
    assert combined["repo"] == "kubernetes/_..all"
    assert [p["repo"] for p in combined["repos"]] == list(REPOS)
    for part in combined["repos"]:  # each repository as its own report has it
        assert part["counts"] == singles[part["repo"]]["counts"]
    for name in FIVE + ("comments", "lines_added", "lines_removed"):
        assert combined["counts"][name] == sum(singles[r]["counts"][name] for r in REPOS), name
    assert sum(singles[r]["counts"]["merged_prs"] for r in REPOS) > 0  # a real window, not zeros
    # every merged PR of either repository, each under its own repository
    merged = {(i["repo"], i["url"]) for i in combined["appendix"]["merged_prs"]}
    assert merged == {(r, i["url"]) for r in REPOS for i in singles[r]["appendix"]["merged_prs"]}
    # the formats and languages of any report, the repository named on each item
    for lang in ("en", "zh-CN"):
        for fmt in ("md", "html", "pdf", "json"):
            assert (target / lang / f"report.{fmt}").stat().st_size > 0, (lang, fmt)
    md = (target / "en" / "report.md").read_text()
    assert "kubernetes: kubernetes, kubernetes.github.io" in md
    assert re.search(
        r"\[kubernetes\.github\.io#\d+\]\(https://github\.com/kubernetes/kubernetes\.github\.io/",
        md,
    )
    assert not re.search(r"#\d{8}", md)
    zh = (target / "zh-CN" / "report.md").read_text()
    assert "合计" in zh and "| 仓库 |" in zh
    assert (target / "en" / "report.pdf").read_bytes().startswith(b"%PDF")
    ready = json.loads((target / "report-ready.json").read_text())
    assert ready["data"]["repo"] == "kubernetes/_..all"
    assert ready["data"]["revision"] == 1


def test_a_list_of_repositories_is_the_same_report_under_its_own_key(archive, singles, tmp_path):
    combined, _ = report(
        ",".join(reversed(REPOS)), tmp_path / "list", f"gharchive:{archive}", "--formats", "md,json"
    )
    assert combined["repo"] == "kubernetes/_..kubernetes..kubernetes.github.io"
    for name in FIVE:
        assert combined["counts"][name] == sum(singles[r]["counts"][name] for r in REPOS), name


def test_owner_star_finds_repositories_in_the_kept_event_log(archive, singles, tmp_path):
    """A source holding one of the owner's repositories, a --data-dir whose log holds the other:
    `OWNER/*` reports both."""
    only_site = tmp_path / "site-only.ndjson"
    only_core = tmp_path / "core-only.ndjson"
    with (
        archive.open(encoding="utf-8") as lines,
        only_site.open("w") as site,
        only_core.open("w") as core,
    ):
        for line in lines:
            repo = json.loads(line)["repo"]["name"]
            if repo == REPOS[1]:
                site.write(line)
            elif repo == REPOS[0]:
                core.write(line)
    data = tmp_path / "data"
    report(
        REPOS[1],
        tmp_path / "first",
        f"gharchive:{only_site}",
        "--formats",
        "json",
        "--data-dir",
        str(data),
    )
    combined, _ = report(
        f"{OWNER}/*",
        tmp_path / "org",
        f"gharchive:{only_core}",
        "--formats",
        "json",
        "--data-dir",
        str(data),
    )
    assert [p["repo"] for p in combined["repos"]] == list(REPOS)
    for name in FIVE:
        assert combined["counts"][name] == sum(singles[r]["counts"][name] for r in REPOS), name


@pytest.mark.parametrize(
    "arg,needle",
    [
        ("kubernetes/kubernetes,", "names one repository"),
        ("kubernetes/kubernetes,other/thing", "one owner"),
        ("not an owner/*", "OWNER/NAME"),
    ],
)
def test_bad_lists_exit_2_with_a_message(arg, needle):
    result = run_cli(
        "report", arg, "--window", WINDOW, "--source", "demo", env={"GITHUB_TOKEN": ""}
    )
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr and "Traceback" not in result.stderr


def test_an_owner_the_source_does_not_hold_is_named(archive, tmp_path):
    result = run_cli(
        "report",
        "nobody-here/*",
        "--window",
        WINDOW,
        "--quiet",
        "--source",
        f"gharchive:{archive}",
        "--out",
        str(tmp_path),
        env={"GITHUB_TOKEN": ""},
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert "nobody-here/* names no repository" in result.stderr


def test_a_second_run_over_unchanged_repositories_answers_with_the_same_revision(archive, tmp_path):
    """With a kept --data-dir: the same repositories and revisions are the report already made
    (byte for byte); asked in another language, the renderer adds it to the same revision;
    --force makes new revisions of the repositories, so a new one of the combined report."""
    data = ("--data-dir", str(tmp_path / "data"))
    source = f"gharchive:{archive}"
    first, t1 = report(f"{OWNER}/*", tmp_path / "one", source, "--formats", "md,json", *data)
    again, t2 = report(f"{OWNER}/*", tmp_path / "two", source, "--formats", "md,json", *data)
    assert first["revision"] == again["revision"] == 1
    assert (t1 / "report-ready.json").read_bytes() == (t2 / "report-ready.json").read_bytes()
    _, t3 = report(
        f"{OWNER}/*",
        tmp_path / "three",
        source,
        "--formats",
        "md,json",
        "--lang",
        "en,zh-CN",
        *data,
    )
    assert t3.name == "r1" and (t3 / "zh-CN" / "report.md").stat().st_size > 0
    forced, t4 = report(
        f"{OWNER}/*", tmp_path / "four", source, "--formats", "md,json", "--force", *data
    )
    assert forced["revision"] == 2 and t4.name == "r2"
    assert [p["revision"] for p in forced["repos"]] == [2, 2]
