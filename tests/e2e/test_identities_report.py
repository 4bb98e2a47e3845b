"""`repodigest report --identities FILE` end to end (the real CLI, its embedded nats-server and the
four services): the report's contributors hold one row per person, and the ecosystem section
takes the affiliation of each change's date."""

from __future__ import annotations

import json

from tests.e2e.test_cli import run_cli
from tests.e2e.test_identities_cli import write_history

REPO = "vllm-project/vllm-ascend"
IDENTITIES = """
people:
  - login: xuchi-0808
    names: [XuChi, Xu Chi]
    affiliations:
      - {org: huawei, until: 2026-03-02}
      - {org: amd, from: 2026-03-03}
"""


def report(tmp_path, history, out: str, *extra: str) -> dict:
    result = run_cli(
        "report",
        REPO,
        "--window",
        "custom:2026-03-01/2026-03-10",
        "--tz",
        "Asia/Shanghai",
        "--quiet",
        "--formats",
        "json",
        "--source",
        f"replay:{history}",
        "--out",
        str(tmp_path / out),
        *extra,
        timeout=300,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    (path,) = (tmp_path / out).rglob("report.json")
    return json.loads(path.read_text())


def test_a_report_with_an_identities_file_counts_a_person_once(tmp_path):
    history = write_history(tmp_path)  # rows 1..9 merged on 2026-03-01 .. 03-09 (Shanghai)
    ids = tmp_path / "identities.yaml"
    ids.write_text(IDENTITIES, encoding="utf-8")
    plain = report(tmp_path, history, "plain")
    merged = report(tmp_path, history, "merged", "--identities", str(ids))
    logins = {c["login"] for c in plain["contributors"]}
    assert {"XuChi", "Xu Chi", "xuchi-0808"} <= logins
    rows = {c["login"]: c for c in merged["contributors"]}
    assert not {"XuChi", "Xu Chi"} & set(rows) and rows["xuchi-0808"]["prs_merged"] == 3
    assert merged["counts"]["active_contributors"] == plain["counts"]["active_contributors"] - 2
    assert merged["counts"]["merged_prs"] == plain["counts"]["merged_prs"]
    # PRs 1 and 2 (2026-03-01, 03-02: until is inclusive) were huawei's work, PR 3 (03-03) AMD's
    by_number = {i["number"]: i for i in merged["appendix"]["merged_prs"]}
    assert by_number[1]["affiliations"] == ["huawei"] and by_number[2]["affiliations"] == ["huawei"]
    assert by_number[3]["affiliations"] == ["amd"] and by_number[3]["author"] == "xuchi-0808"
    amd = next(s for s in merged["ecosystems"] if s["name"] == "AMD/ROCm")
    assert amd["contributors"] == ["xuchi-0808"]
    assert sorted(i["number"] for g in amd["pr_groups"] for i in g["items"]) == [3]
    assert not any(s["name"] == "AMD/ROCm" for s in plain["ecosystems"])


def test_identities_reads_the_log_a_report_kept(tmp_path):
    history = write_history(tmp_path)
    data = tmp_path / "data"
    report(tmp_path, history, "out", "--data-dir", str(data))
    done = run_cli("identities", REPO, "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert "  XuChi -> xuchi-0808:" in done.stdout and "9 people keys" in done.stdout
    # the log is the report's own: the next report over the same directory still works
    again = report(tmp_path, history, "again", "--data-dir", str(data))
    assert again["counts"]["merged_prs"] == 9


def test_a_changed_identities_file_reclassifies_the_log_a_report_kept(tmp_path):
    history = write_history(tmp_path)
    data = tmp_path / "data"
    ids = tmp_path / "identities.yaml"
    ids.write_text(IDENTITIES, encoding="utf-8")
    first = report(tmp_path, history, "first", "--data-dir", str(data))
    assert {"XuChi", "Xu Chi", "xuchi-0808"} <= {c["login"] for c in first["contributors"]}
    # the same directory, now with the file: its facts are in the log already (not ingested
    # again), so the run re-classifies them before asking
    second = report(tmp_path, history, "second", "--data-dir", str(data), "--identities", str(ids))
    rows = {c["login"]: c for c in second["contributors"]}
    assert not {"XuChi", "Xu Chi"} & set(rows) and rows["xuchi-0808"]["prs_merged"] == 3
    assert second["revision"] == first["revision"] + 1
    assert second["counts"]["merged_prs"] == first["counts"]["merged_prs"] == 9
    # unchanged rules: nothing is re-classified, the revision already reported is the answer
    third = report(tmp_path, history, "third", "--data-dir", str(data), "--identities", str(ids))
    assert (
        third["revision"] == second["revision"] and third["contributors"] == second["contributors"]
    )
