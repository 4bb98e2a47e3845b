"""`repodigest report --data-dir DIR` keeps the event log and the projections between runs (README).

Two runs of the real CLI over one directory, each ingesting a different part of a week's merged
PRs: the second report counts both parts, and the directory's own event log holds every fact.
With a fresh store per run the second report would hold the second part alone."""

from __future__ import annotations

import asyncio
import json

import nats

from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark
from shared.messaging import STREAM_GITHUB
from shared.natsserver import EmbeddedNats
from tests.e2e.test_cli import run_cli
from tests.e2e.test_cli_hostile_input import merged_pr, write_lines

REPO = "acme/widgets"
WINDOW = "week:2026-W23"


def report(tmp_path, source, out: str):
    result = run_cli(
        "report",
        REPO,
        "--window",
        WINDOW,
        "--quiet",
        "--formats",
        "json",
        "--source",
        f"replay:{source}",
        "--data-dir",
        str(tmp_path / "data"),
        "--out",
        str(tmp_path / out),
        timeout=300,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    (path,) = (tmp_path / out).rglob("report.json")
    return sorted(row["number"] for row in json.loads(path.read_text())["appendix"]["merged_prs"])


async def merged_numbers_in_the_log(data_dir) -> set[int]:
    async with EmbeddedNats(store_dir=data_dir / "jetstream") as server:
        nc = await nats.connect(server.url)
        try:
            js = nc.jetstream()
            info = await js.stream_info(STREAM_GITHUB)
            numbers = set()
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                event = GITHUB_EVENT_ADAPTER.validate_json(
                    (await js.get_msg(STREAM_GITHUB, seq)).data
                )
                if not isinstance(event, SyncWatermark) and event.data.action == "merged":
                    numbers.add(event.data.item.number)
            return numbers
        finally:
            await nc.close()


def test_a_second_run_over_the_same_data_dir_builds_on_the_first(tmp_path):
    first = write_lines(tmp_path / "first.jsonl", [merged_pr(n) for n in (1, 2, 3)])
    second = write_lines(tmp_path / "second.jsonl", [merged_pr(n) for n in (4, 5)])
    assert report(tmp_path, first, "out1") == [1, 2, 3]
    assert report(tmp_path, second, "out2") == [1, 2, 3, 4, 5]
    assert asyncio.run(merged_numbers_in_the_log(tmp_path / "data")) == {1, 2, 3, 4, 5}
