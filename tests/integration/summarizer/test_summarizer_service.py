"""The summarizer service on a real nats-server: enriched facts + watermark in, a request, a summary out."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

from services.summarizer.app import build_service
from services.summarizer.config import SummarizerSettings
from shared.config import CommonSettings
from shared.events import ReportRequestData, ReportRequested, WindowRef, WindowSummarized
from shared.messaging import Subjects
from shared.service import Runtime
from shared.windows import week_window
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario, watermark

WEEK = week_window(2026, 24, "Asia/Shanghai")
# by hand: Monday 8 June 00:00 in Shanghai (UTC+8) is 7 June 16:00 UTC; the week is [start, end)
WEEK_START, WEEK_END = datetime(2026, 6, 7, 16, tzinfo=UTC), datetime(2026, 6, 14, 16, tzinfo=UTC)
# the scheduled day 2026-03-26 with cut-off 11:45 in Shanghai: 03:45 UTC to 03:45 UTC
DAY_START, DAY_END = (
    datetime(2026, 3, 26, 3, 45, tzinfo=UTC),
    datetime(2026, 3, 27, 3, 45, tzinfo=UTC),
)


def in_week(t: datetime | None) -> bool:
    return t is not None and WEEK_START <= t < WEEK_END


def in_day(t: datetime | None) -> bool:
    return t is not None and DAY_START <= t < DAY_END


async def next_summary(
    queue: asyncio.Queue, request_id: str, timeout: float = 30.0
) -> WindowSummarized:
    async with asyncio.timeout(timeout):
        while True:
            event = WindowSummarized.model_validate_json(await queue.get())
            if event.data.request_id == request_id:
                return event


async def test_request_answered_after_watermark_on_real_broker(nats_server, tmp_path):
    settings = SummarizerSettings(
        nats_url=nats_server.url, database_url=f"sqlite:///{tmp_path / 'projections.db'}"
    )
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "summarizer-test")
    service = runtime.add(build_service(settings, runtime))
    await runtime.start()
    try:
        nc = runtime.nc
        summaries: asyncio.Queue = asyncio.Queue()

        async def on_summary(msg) -> None:
            await summaries.put(msg.data)

        sub = await nc.subscribe(Subjects.summary_ready(REPO), cb=on_summary)
        bus = runtime.bus("test")
        sc = random_scenario(24, WEEK.start, 7.0, n_items=120)
        events = sc.events()
        for event in events:
            await bus.publish(
                event, Subjects.enriched(event.data.fact.kind, event.data.fact.action, REPO)
            )
        # a second publish of the same events is de-duplicated by Nats-Msg-Id and by the fold
        for event in events[:20]:
            await bus.publish(
                event, Subjects.enriched(event.data.fact.kind, event.data.fact.action, REPO)
            )
        mark = WEEK.end + timedelta(hours=1)
        request = ReportRequested.create(
            ReportRequestData(
                repo=REPO,
                window=WindowRef.of(WEEK),
                as_of=mark,
                synthetic=True,
                data_note="generated test data",
            ),
            nonce=uuid.uuid4().hex,
            at=datetime.now(UTC),
        )
        # the request arrives before the watermark: it must wait for it
        await bus.publish(request, Subjects.report_requested(REPO))
        await bus.publish(watermark(mark), Subjects.enriched_watermark(REPO))

        summary = (await next_summary(summaries, request.id)).data
        opened_prs = {i.number for i in sc.items if i.kind == "pull_request" and in_week(i.opened)}
        merged = {i.number for i in sc.items if in_week(i.merged)}
        new_issues = {i.number for i in sc.items if i.kind == "issue" and in_week(i.opened)}
        assert summary.counts.new_prs == len(opened_prs)
        assert summary.counts.merged_prs == len(merged)
        assert summary.counts.new_issues == len(new_issues)
        assert [r.number for r in summary.appendix.merged_prs] == sorted(merged)
        assert summary.facts_counted == sum(1 for e in events if in_week(e.data.fact_time))
        assert summary.watermark == mark and summary.synthetic and summary.revision == 1
        assert summary.window.label == "2026-W24"
        assert service.fold_consumer.stats.dead == 0
        await sub.unsubscribe()
    finally:
        await runtime.stop()


async def test_watermark_closes_scheduled_day_window_on_real_broker(nats_server, tmp_path):
    settings = SummarizerSettings(
        nats_url=nats_server.url,
        database_url=f"sqlite:///{tmp_path / 'projections.db'}",
        schedules={"*": [{"kind": "day", "tz": "Asia/Shanghai", "cutoff": "11:45"}]},
        close_grace_minutes=5,
        window_debounce_seconds=0.1,
        scheduled_languages=["zh-CN", "en"],
    )
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "summarizer-test")
    service = runtime.add(build_service(settings, runtime))
    await runtime.start()
    try:
        await service.ready()  # the database answers
        summaries: asyncio.Queue = asyncio.Queue()

        async def on_summary(msg) -> None:
            await summaries.put(msg.data)

        await runtime.nc.subscribe(Subjects.summary_ready(REPO), cb=on_summary)
        day = service.deps.closer(REPO, None, datetime(2026, 3, 27, 3, 50, tzinfo=UTC))[0]
        assert (day.label, day.cutoff, day.start, day.end) == (
            "2026-03-26",
            "11:45",
            DAY_START,
            DAY_END,
        )
        sc = random_scenario(2, day.start, 1.0, n_items=40)
        bus = runtime.bus("test")
        for event in sc.events():
            await bus.publish(
                event, Subjects.enriched(event.data.fact.kind, event.data.fact.action, REPO)
            )
        await bus.publish(
            watermark(day.end + timedelta(minutes=6)), Subjects.enriched_watermark(REPO)
        )
        async with asyncio.timeout(30):
            summary = WindowSummarized.model_validate_json(await summaries.get()).data
        assert summary.window.label == "2026-03-26" and summary.request_id is None
        assert summary.languages == ("zh-CN", "en")
        assert summary.counts.merged_prs == sum(1 for i in sc.items if in_day(i.merged))
        assert summary.counts.new_issues == sum(
            1 for i in sc.items if i.kind == "issue" and in_day(i.opened)
        )
    finally:
        await runtime.stop()
