"""`repodigest report --source github` end to end against the GitHub emulator (real recorded
responses): the report's counts equal what the recorded JSON holds; a bad token exits 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from repodigest.pipeline import ReportJob, run_report
from shared.windows import parse_window
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator
from tests.integration.ingest_github.test_github_sync import (  # one derivation, shared
    FILES,
    REPO,
    expected_first_sync,
)

pytestmark = [pytest.mark.shared_data, pytest.mark.timeout(300)]


@pytest.fixture
def emulator():
    files = [require_shared_data("github-rest-replay", f) for f in FILES]
    with GithubEmulator(files) as gh:
        gh.add(f"/repos/{REPO}/pulls/comments", gh.body(f"/repos/{REPO}/pulls/31/comments"))
        yield gh


async def test_report_from_github_counts_what_github_holds(
    emulator, nats_server, tmp_path, monkeypatch
):
    monkeypatch.setenv("REPODIGEST_GITHUB_API_URL", emulator.base_url)
    window = parse_window("custom:2008-01-01/2026-01-01", "UTC")
    outcome = await run_report(
        ReportJob(
            repo=REPO,
            window=window,
            source="github",
            github_token=emulator.token,
            languages=("en",),
            formats=("json", "md"),
            out_dir=tmp_path / "out",
            nats_url=nats_server.url,
            data_dir=tmp_path / "data",
            progress=False,
            run_services=True,
        )
    )
    expected = expected_first_sync()
    path = next(p for _, p, _ in outcome.files if p.name == "report.json")
    counts = json.loads(path.read_text())["counts"]
    assert counts["new_issues"] == expected["issue.opened"]
    assert counts["closed_issues"] == expected["issue.closed"]
    assert counts["new_prs"] == expected["pull_request.opened"]
    assert counts["merged_prs"] == expected["pull_request.merged"]
    assert emulator.count() > 0
    # the token is in no event of any stream (facts, enriched facts, summaries, report-ready)
    import nats

    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    for stream in ("RD_GITHUB", "RD_ENRICHED", "RD_REPORTS", "RD_DEAD"):
        sub = await js.pull_subscribe(">", stream=stream)
        left = (await js.stream_info(stream)).state.messages
        while left > 0:
            msgs = await sub.fetch(min(left, 500), timeout=10)
            left -= len(msgs)
            for msg in msgs:
                assert emulator.token.encode() not in msg.data + repr(msg.headers).encode()
    await nc.close()


def test_rejected_token_exits_1_with_the_fix(emulator, tmp_path):
    env = {
        **os.environ,
        "REPODIGEST_GITHUB_API_URL": emulator.base_url,
        "GITHUB_TOKEN": "not-the-token",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "repodigest",
            "report",
            REPO,
            "--window",
            "week:2026-W24",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert "rejected" in result.stderr and "Traceback" not in result.stderr
    assert "not-the-token" not in result.stderr + result.stdout  # never echo a secret
