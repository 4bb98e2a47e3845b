"""A scheduled run costs only the new facts (issue #19 item 3): the GitHub Actions workflow in
deploy/github-actions/ keeps `--data-dir` in the Actions cache, so each run starts from the event
log and the ingest state (cursors, ETags, item states in the JetStream KV bucket) the last one left.

Here the real CLI runs three times against the GitHub emulator (real recorded responses), each
time over a copy of the directory the run before left — as a cache restore on a fresh runner
gives it: an unchanged repository costs four conditional requests answered 304 (no quota) and
the revision already reported; one issue closed upstream costs the one listing that changed and
publishes only its new facts, and the report's next revision counts it."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.conftest import require_shared_data
from tests.e2e.test_cli import run_cli
from tests.github_emulator import GithubEmulator
from tests.integration.ingest_github.test_github_sync import FILES, REPO, recorded_body

pytestmark = [pytest.mark.shared_data, pytest.mark.timeout(900)]

# the month of the recorded history (2012) holding the three merged pull requests and the issue
# closed below; a small window, so that the revision the summarizer makes by itself when late
# facts re-open the (closed) window renders its PDF in seconds
WINDOW = "month:2012-05"
LISTINGS = ("/pulls", "/issues", "/issues/comments", "/pulls/comments")


@pytest.fixture
def emulator():
    files = [require_shared_data("github-rest-replay", f) for f in FILES]
    with GithubEmulator(files) as gh:
        gh.add(f"/repos/{REPO}/pulls/comments", gh.body(f"/repos/{REPO}/pulls/31/comments"))
        yield gh


def scheduled_run(emulator: GithubEmulator, data_dir, out_dir):
    """One run as the workflow makes it; what it printed, its report.json and the requests it
    made (each with its status), read at the emulator."""
    seen_before = len(emulator.seen)
    result = run_cli(
        "report",
        REPO,
        "--window",
        WINDOW,
        "--source",
        "github",
        "--formats",
        "json,md",
        "--data-dir",
        str(data_dir),
        "--out",
        str(out_dir),
        "--quiet",
        timeout=600,
        env={"GITHUB_TOKEN": emulator.token, "REPODIGEST_GITHUB_API_URL": emulator.base_url},
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert emulator.token not in result.stdout + result.stderr
    (path,) = out_dir.rglob("report.json")
    requests = [
        (s.path.removeprefix(f"/repos/{REPO}"), s.status) for s in emulator.seen[seen_before:]
    ]
    facts = int(re.search(r"(\d+) facts\s+ingested", result.stdout).group(1))
    return json.loads(path.read_text()), requests, facts


def restored(previous, tmp_path, name: str):
    """The directory a cache restore gives the next run: a copy, at another path."""
    copy = tmp_path / name
    shutil.copytree(previous, copy)
    return copy


def test_each_run_over_the_cached_data_dir_fetches_only_what_changed(emulator, tmp_path):
    pulls = recorded_body("Repository.testGetPullsWithArguments.txt", f"/repos/{REPO}/pulls")
    merged_in_may = sum(1 for pr in pulls if (pr.get("merged_at") or "").startswith("2012-05"))
    assert merged_in_may == 3

    # 1. the first run: the listings since the month before (for the trends), every changed pull
    # request's details, files and reviews
    data1 = tmp_path / "cache-1"
    first, requests1, facts1 = scheduled_run(emulator, data1, tmp_path / "out-1")
    quota1 = emulator.quota_used
    assert first["counts"]["merged_prs"] == merged_in_may
    assert first["counts"]["closed_issues"] == 0  # none closed in the recording
    assert first["revision"] == 1 and facts1 > 0
    assert all(status == 200 for _, status in requests1)
    assert ("/pulls/31/files", 200) in requests1  # item details and sub-listings too

    # 2. nothing changed upstream: four conditional listings, all 304, no quota, no new fact
    data2 = restored(data1, tmp_path, "cache-2")
    again, requests2, facts2 = scheduled_run(emulator, data2, tmp_path / "out-2")
    assert sorted(requests2) == sorted((path, 304) for path in LISTINGS)
    assert emulator.quota_used == quota1
    assert facts2 <= 1  # at most the sync's watermark
    assert again["revision"] == 1 and again["counts"] == first["counts"]

    # 3. one issue closed (and labelled) upstream: the issue listing alone is read again
    def close_issue_30(issues: list) -> None:
        issue = next(i for i in issues if i["number"] == 30)
        assert issue["state"] == "open"
        issue.update(
            state="closed", closed_at="2012-05-28T08:00:00Z", updated_at="2012-05-28T08:00:00Z"
        )
        issue["labels"].append({"name": "Bug", "url": "x", "color": "ff0000"})

    emulator.mutate(f"/repos/{REPO}/issues", close_issue_30)
    data3 = restored(data2, tmp_path, "cache-3")
    third, requests3, facts3 = scheduled_run(emulator, data3, tmp_path / "out-3")
    assert sorted(requests3) == sorted(
        [("/issues", 200)] + [(path, 304) for path in LISTINGS if path != "/issues"]
    )
    assert emulator.quota_used == quota1 + 1
    assert facts3 - facts2 == 2  # issue.closed and issue.labeled
    # a new revision that counts it (the summarizer may also have re-opened the closed window on
    # the late facts by itself before this run's request: then this is revision 3)
    assert third["revision"] >= 2
    assert third["counts"]["closed_issues"] == first["counts"]["closed_issues"] + 1
    assert third["counts"]["new_issues"] == first["counts"]["new_issues"]
