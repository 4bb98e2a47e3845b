"""The summarizer service works out its merged changes' per-item results while its fold rests
(`Warmer`, the fold consumer's idle work), on a real nats-server: once the fold is drained and
the warmer idle, the window's report finds every merged change's results already there."""

from __future__ import annotations

from services.summarizer.app import build_service
from services.summarizer.config import SummarizerSettings
from services.summarizer.domain import memo
from services.summarizer.domain.report import build_summary, item_ref, score_pr, story_item
from services.summarizer.domain.windows import previous_window
from shared.config import CommonSettings
from shared.messaging import DURABLE_SUMMARIZER, STREAM_ENRICHED, Subjects
from shared.service import Runtime
from shared.windows import week_window
from tests.signals import AckWatch, signalled
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario

WEEK = week_window(2026, 24, "UTC")


async def test_merged_changes_are_worked_out_while_the_fold_rests(nats_server, tmp_path):
    settings = SummarizerSettings(
        nats_url=nats_server.url, database_url=f"sqlite:///{tmp_path / 'projections.db'}"
    )
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "summarizer-warming")
    service = runtime.add(build_service(settings, runtime))
    await runtime.start()
    try:
        acks = await AckWatch.start(runtime.nc, STREAM_ENRICHED, DURABLE_SUMMARIZER)
        memo.ITEMS.clear()
        events = random_scenario(5, WEEK.start, 7.0, n_items=80).events()
        merged = {
            e.data.fact.item.number
            for e in events
            if e.data.fact.item.kind == "pull_request" and e.data.fact.item.merged_at is not None
        }
        assert len(merged) >= 10  # (the scenario merges some of its PRs)
        bus = runtime.bus("test")
        for event in events:
            await bus.publish(
                event, Subjects.enriched(event.data.fact.kind, event.data.fact.action, REPO)
            )
        await acks.drained(runtime.js, len(events), 60, "every fact folded")
        await signalled(service.warmer.idle.wait(), 60, "the merged changes worked out")
        assert service.warmer.done >= len(merged)
        before = memo.ITEMS.misses
        inp = service.store.load_window(REPO, WEEK, previous_window(WEEK))
        policy = service.deps.policy
        # the objects the store hands the report are those the fold parsed, and their merged
        # changes' results are there already
        rows = [r for n, r in inp.items.items() if n in merged]
        assert rows
        for row in rows:
            _ = story_item(row.snapshot, row.tags).role
            score_pr(row.snapshot, row.tags, policy)
            item_ref(row.snapshot, row.tags)
        assert memo.ITEMS.misses == before, memo.ITEMS.missed
        build_summary(inp, now=WEEK.end, policy=policy)  # (and the report is made from them)
    finally:
        await acks.stop()
        await runtime.stop()
