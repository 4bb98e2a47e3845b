"""Merged PRs per ISO week in Asia/Shanghai over the real vllm-ascend history (4,734 merges) equal
a plain count over the file, for every week (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.report import build_summary
from services.summarizer.domain.windows import previous_window
from services.summarizer.handlers import Deps, fold_events
from shared.events import (
    Actor,
    EnrichedFact,
    FactData,
    FileChange,
    ItemSnapshot,
    RuleSetRef,
    Tags,
    WindowSummarized,
    make_fact,
)
from shared.windows import week_window
from tests.conftest import require_shared_data

REPO = "vllm-project/vllm-ascend"
TZ = ZoneInfo("Asia/Shanghai")
NO_RULES = RuleSetRef(profile="none", version="none")


def login(row: dict) -> str:
    email = row.get("author_email") or ""
    if email.endswith("@users.noreply.github.com"):
        return email.split("@", 1)[0].split("+")[-1]
    return row["author_name"]


def enriched(row: dict) -> EnrichedFact:
    """One line of merged_prs.jsonl as the merged fact the classifier would pass on."""
    merged = datetime.fromisoformat(row["merged_at"])
    authored = datetime.fromisoformat(row["authored_at"])
    files = tuple(
        FileChange(path=f["path"], additions=f["additions"] or 0, deletions=f["deletions"] or 0)
        for f in row["files"]
    )
    item = ItemSnapshot(
        repo=REPO,
        number=row["pr_number"],
        kind="pull_request",
        title=row["title"],
        author=Actor(login=login(row)),
        state="closed",
        created_at=min(authored, merged),
        updated_at=merged,
        closed_at=merged,
        merged_at=merged,
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
        changed_files=len(files),
        files=files[:300],
        files_truncated=len(files) > 300,
    )
    data = FactData(
        repo=REPO, kind="pull_request", action="merged", item=item, actor=login(row), origin="git"
    )
    return EnrichedFact.create(make_fact(data), Tags(), NO_RULES)


def plain_weekly_counts(lines: list[dict]) -> Counter:
    """Independent of repodigest: the ISO (year, week) of each merge in Shanghai local time."""
    weeks: Counter = Counter()
    for row in lines:
        if row["pr_number"] is None:  # a commit without "(#N)" is not a pull request
            continue
        local = datetime.fromisoformat(row["merged_at"]).astimezone(TZ)
        year, week, _ = local.isocalendar()
        weeks[(year, week)] += 1
    return weeks


def every_week(first: tuple[int, int], last: tuple[int, int]):
    day = date.fromisocalendar(*first, 1)
    end = date.fromisocalendar(*last, 1)
    while day <= end:
        yield day.isocalendar()[:2]
        day += timedelta(days=7)


async def test_merged_prs_per_shanghai_week_equal_a_plain_count(database_url):
    path = require_shared_data("vllm-ascend-history", "merged_prs.jsonl")
    lines = [
        json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()
    ]
    expected = plain_weekly_counts(lines)
    assert sum(expected.values()) == sum(1 for r in lines if r["pr_number"] is not None) > 4000

    store = SqlProjections(database_url)

    async def publish(event: WindowSummarized) -> None:  # nothing is due: no requests, no schedules
        raise AssertionError("no summary should be published")

    deps = Deps(store=store, publish=publish, clock=lambda: datetime(2027, 1, 1, tzinfo=UTC))
    try:
        events = [enriched(r) for r in lines if r["pr_number"] is not None]
        # the file is newest first: fold it in that order, in service-sized batches
        for i in range(0, len(events), 256):
            await fold_events(deps, events[i : i + 256])
        got: dict[tuple[int, int], int] = {}
        for year, week in every_week(min(expected), max(expected)):
            window = week_window(year, week, "Asia/Shanghai")
            inp = store.load_window(REPO, window, previous_window(window))
            summary = build_summary(inp, now=window.end)
            got[(year, week)] = summary.counts.merged_prs
            assert summary.counts.merged_prs == len(summary.appendix.merged_prs)
        assert got == {w: expected.get(w, 0) for w in got}
        assert len(got) > 70 and sum(got.values()) == sum(expected.values())
    finally:
        store.close()
