"""Asking again for an unchanged window adds no event (issue #17 item 2): the summarizer and the
renderer, each in a runtime of its own on a real nats-server. The repeated request is answered
with the report-ready that announced r1, byte for byte, over core NATS; RD_REPORTS gains the
request and nothing else. A request for a language r1 was not rendered in, or one made while no
renderer runs, publishes the summary as before (the renderer renders what is missing, or answers
when it is back)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from services.renderer.app import build_service as build_renderer
from services.renderer.config import RendererSettings
from services.summarizer.app import build_service as build_summarizer
from services.summarizer.config import SummarizerSettings
from shared.config import CommonSettings
from shared.events import ReportReady, ReportRequestData, ReportRequested, WindowRef
from shared.messaging import STREAM_REPORTS, Subjects
from shared.service import Runtime
from shared.windows import week_window
from tests.signals import StreamWatch
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario, watermark

pytestmark = pytest.mark.timeout(300)

WEEK = week_window(2026, 24, "UTC")
MARK = WEEK.end + timedelta(hours=1)


class Requester:
    """What the CLI does: publish a request, take the report-ready of it or the core answer."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.nc = runtime.nc
        self.ready: asyncio.Queue = asyncio.Queue()

    async def start(self) -> Requester:
        async def on_ready(msg) -> None:
            await self.ready.put(("event", msg.data))

        await self.nc.subscribe(Subjects.report_ready(REPO), cb=on_ready)
        return self

    async def ask(self, languages=("en",), timeout: float = 120) -> tuple[str, bytes]:
        request = ReportRequested.create(
            ReportRequestData(
                repo=REPO,
                window=WindowRef.of(WEEK),
                as_of=MARK,
                synthetic=True,
                languages=languages,
                formats=("md", "json"),
                data_note="generated test data",
            ),
            nonce=uuid.uuid4().hex,
            at=datetime.now(UTC),
        )
        answers: asyncio.Queue = asyncio.Queue()

        async def on_answer(msg) -> None:
            await answers.put(("answer", msg.data))

        sub = await self.nc.subscribe(Subjects.report_answer(request.id), cb=on_answer)
        await self.runtime.bus("cli").publish(request, Subjects.report_requested(REPO))
        try:
            async with asyncio.timeout(timeout):
                while True:
                    get_event = asyncio.ensure_future(self.ready.get())
                    get_answer = asyncio.ensure_future(answers.get())
                    done, pending = await asyncio.wait(
                        {get_event, get_answer}, return_when=asyncio.FIRST_COMPLETED
                    )
                    for task in pending:
                        task.cancel()
                    for task in done:
                        how, raw = task.result()
                        if (
                            how == "answer"
                            or ReportReady.model_validate_json(raw).data.request_id == request.id
                        ):
                            return how, raw
        finally:
            await sub.unsubscribe()


async def subjects_in_reports(runtime: Runtime) -> list[str]:
    js = runtime.js
    info = await js.stream_info(STREAM_REPORTS)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        out.append((await js.get_msg(STREAM_REPORTS, seq)).subject)
    return out


async def test_a_repeated_request_adds_only_itself_to_the_log(nats_server, tmp_path):
    url = nats_server.url
    summarizer = Runtime(CommonSettings(nats_url=url), "summarizer-test")
    summarizer.add(
        build_summarizer(
            SummarizerSettings(nats_url=url, database_url=f"sqlite:///{tmp_path / 'p.db'}"),
            summarizer,
        )
    )

    def renderer_runtime() -> Runtime:
        runtime = Runtime(CommonSettings(nats_url=url), "renderer-test")
        runtime.add(build_renderer(RendererSettings(nats_url=url), runtime))
        return runtime

    renderer = renderer_runtime()
    client = Runtime(CommonSettings(nats_url=url), "cli-test")
    await summarizer.start()
    await renderer.start()
    await client.start()
    try:
        bus = client.bus("test")
        for event in random_scenario(24, WEEK.start, 7.0, n_items=40).events():
            await bus.publish(
                event, Subjects.enriched(event.data.fact.kind, event.data.fact.action, REPO)
            )
        await bus.publish(watermark(MARK), Subjects.enriched_watermark(REPO))
        requester = await Requester(client).start()

        how, first = await requester.ask()
        assert how == "event" and ReportReady.model_validate_json(first).data.revision == 1
        log_before = await subjects_in_reports(client)

        # asked again, unchanged: r1's report-ready, as published, and only the request is new
        how, again = await requester.ask()
        assert (how, again) == ("answer", first)
        assert await subjects_in_reports(client) == log_before + [Subjects.report_requested(REPO)]

        # a language r1 was not rendered in: the summary is published, zh-CN is rendered into r1
        stored = await StreamWatch.start(client.js, STREAM_REPORTS)
        log_before = await subjects_in_reports(client)
        how, both = await requester.ask(("en", "zh-CN"))
        ready = ReportReady.model_validate_json(both)
        assert how == "event" and ready.data.revision == 1
        assert {a.language for a in ready.data.artifacts} == {"en", "zh-CN"}
        # the stream stores what subscribers got: told as it stores each
        await stored.until(lambda w: len(w.subjects) >= 3, 30, "the report-ready in RD_REPORTS")
        await stored.stop()
        assert (await subjects_in_reports(client))[len(log_before) :] == [
            Subjects.report_requested(REPO),
            Subjects.summary_ready(REPO),
            Subjects.report_ready(REPO),
        ]
        # ... and now both languages are announced: answered again without an event
        log_before = await subjects_in_reports(client)
        how, again = await requester.ask(("en", "zh-CN"))
        assert (how, again) == ("answer", both)
        assert await subjects_in_reports(client) == log_before + [Subjects.report_requested(REPO)]

        # no renderer running: the summarizer publishes the summary (nothing is lost); the
        # renderer answers it from r1 when it is back
        await renderer.stop()
        stored = await StreamWatch.start(client.js, STREAM_REPORTS)
        log_before = await subjects_in_reports(client)
        waiting = asyncio.ensure_future(requester.ask())
        await stored.until(
            lambda w: Subjects.summary_ready(REPO) in w.subjects,
            60,
            "the summary of a request no renderer answered",
        )
        await stored.stop()
        renderer = renderer_runtime()
        await renderer.start()
        how, late = await waiting
        assert how == "answer" and ReportReady.model_validate_json(late).data.revision == 1
        assert (
            Subjects.report_ready(REPO)
            not in (await subjects_in_reports(client))[len(log_before) :]
        )
    finally:
        await client.stop()
        await renderer.stop()
        await summarizer.stop()
