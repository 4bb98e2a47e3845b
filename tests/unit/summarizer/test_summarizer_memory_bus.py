"""The summarizer's handlers on the in-memory bus (shared/messaging/testing.py) and a real SQLite
database: enriched facts and a watermark in, a request, one summary out; a request for a
repository the deployment does not accept is dead-lettered. The same flow runs on a real
nats-server in tests/integration/summarizer/test_summarizer_service.py."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from services.registry import bootstrap
from shared.events import ReportRequestData, ReportRequested, WindowRef, WindowSummarized
from shared.messaging import Subjects
from shared.messaging.testing import MemoryBroker
from shared.windows import week_window
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario, watermark

WEEK = week_window(2026, 24, "Asia/Shanghai")
# by hand: Monday 8 June 00:00 in Shanghai (UTC+8) is 7 June 16:00 UTC; the week is [start, end)
WEEK_START = datetime(2026, 6, 7, 16, tzinfo=UTC)
WEEK_END = datetime(2026, 6, 14, 16, tzinfo=UTC)


def in_week(t: datetime | None) -> bool:
    return t is not None and WEEK_START <= t < WEEK_END


def request_for(repo: str, mark: datetime) -> ReportRequested:
    return ReportRequested.create(
        ReportRequestData(
            repo=repo,
            window=WindowRef.of(WEEK),
            as_of=mark,
            synthetic=True,
            data_note="generated test data",
        ),
        nonce=uuid.uuid4().hex,
        at=datetime.now(UTC),
    )


async def test_a_request_is_answered_with_the_weeks_figures(tmp_path):
    broker = MemoryBroker()
    boot = bootstrap("summarizer")  # as `serve` builds it, the memory broker as its runtime
    service = boot.build(
        boot.settings(database_url=f"sqlite:///{tmp_path / 'projections.db'}"), broker
    )
    await service.start()
    try:
        bus = broker.bus("test")
        sc = random_scenario(24, WEEK.start, 7.0, n_items=60)
        events = sc.events()
        for event in events + events[:10]:  # the repeats are de-duplicated
            await bus.publish(
                event, Subjects.enriched(event.data.fact.kind, event.data.fact.action, REPO)
            )
        mark = WEEK.end + timedelta(hours=1)
        request = request_for(REPO, mark)
        await bus.publish(request, Subjects.report_requested(REPO))  # before the watermark
        await bus.publish(watermark(mark), Subjects.enriched_watermark(REPO))
        await broker.run(service.fold_consumer, service.request_consumer)
    finally:
        await service.stop()

    (summary,) = [
        s.data for s in broker.events("rd.summary.ready.>", WindowSummarized.model_validate_json)
    ]
    assert summary.request_id == request.id
    opened = {i.number for i in sc.items if i.kind == "pull_request" and in_week(i.opened)}
    merged = {i.number for i in sc.items if in_week(i.merged)}
    assert summary.counts.new_prs == len(opened) and summary.counts.merged_prs == len(merged)
    assert summary.facts_counted == sum(1 for e in events if in_week(e.data.fact_time))
    assert summary.watermark == mark and summary.revision == 1
    assert service.fold_consumer.stats.dead == 0 and broker.dead_letters() == []


async def test_a_request_for_a_repository_not_accepted_is_dead(tmp_path):
    broker = MemoryBroker()
    boot = bootstrap("summarizer")
    service = boot.build(
        boot.settings(database_url=f"sqlite:///{tmp_path / 'projections.db'}", accept_repos=[REPO]),
        broker,
    )
    await service.start()
    try:
        await broker.bus("test").publish(
            request_for("other/repo", WEEK.end), Subjects.report_requested("other/repo")
        )
        await broker.run(service.fold_consumer, service.request_consumer)
    finally:
        await service.stop()
    (dead,) = broker.dead_letters("summarizer")
    assert "other/repo" in dead.headers["Rd-Dead-Reason"]
    assert broker.messages("rd.summary.ready.>") == []
    assert service.request_consumer.stats.dead == 1
