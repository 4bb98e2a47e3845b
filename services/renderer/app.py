"""The renderer service: one durable consumer of window summaries; reports go to object storage."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from shared import answers
from shared.events import ReportReady, WindowSummarized
from shared.messaging import Consumer, ConsumerSpec, Subjects
from shared.tasks import cancel_and_wait

from .adapters.documents import stylesheet
from .adapters.llm import (
    ChatOptions,
    OpenAIChatNarrator,
    StoreNarrationCache,
    TemplateNarrator,
    load_prompt,
)
from .adapters.pdf import PdfRenderer
from .adapters.site import SiteBuilder
from .adapters.stores import S3Options, open_store
from .config import RendererSettings
from .domain.narrator import Narrator
from .handlers import answer_unchanged, render_report
from .messaging import CONSUMER, CONTRACT
from .ports import ObjectNotFound, ObjectStore

if TYPE_CHECKING:
    from nats.aio.subscription import Subscription

    from shared.messaging import ServiceRouter
    from shared.service import Runtime

log = logging.getLogger("repodigest.renderer")

NAME = "renderer"


def s3_options(settings: RendererSettings) -> S3Options:
    return S3Options(
        endpoint_url=settings.s3_endpoint_url,
        region=settings.s3_region,
        access_key_id=settings.s3_access_key_id,
        secret_access_key=(
            settings.s3_secret_access_key.get_secret_value()
            if settings.s3_secret_access_key
            else None
        ),
        session_token=(
            settings.s3_session_token.get_secret_value() if settings.s3_session_token else None
        ),
        addressing_style=settings.s3_addressing_style,
        max_attempts=settings.s3_max_attempts,
    )


class RendererService:
    """Consumes WindowSummarized from RD_REPORTS; renders, stores, and publishes ReportReady."""

    name = NAME
    consumers: Sequence[ConsumerSpec] = (CONSUMER,)
    contract = CONTRACT

    def __init__(
        self, settings: RendererSettings, runtime: Runtime, store: ObjectStore | None = None
    ) -> None:
        self.settings = settings
        self.bus = runtime.bus(NAME)
        self._store = store
        self._site: SiteBuilder | None = None  # the archive's pages (adapters/site.py)
        self.pdf = PdfRenderer(
            settings.pdf_workers, settings.pdf_timeout, settings.pdf_max_tasks_per_child
        )
        self._warming: asyncio.Task | None = None
        self._unchanged_sub: Subscription | None = None  # core subscription to answers.SUBJECT
        self.narrator = build_narrator(settings, lambda: self.store)
        self.consumer = Consumer(
            self.bus, CONSUMER, WindowSummarized.model_validate_json, handle=self.on_summary
        )

    @property
    def store(self) -> ObjectStore:
        # built on first use: the NATS store needs the connection, which exists only after connect
        if self._store is None:
            self._store = open_store(
                self.settings.artifacts_url, self.bus.js, s3=s3_options(self.settings)
            )
        return self._store

    async def _publish(self, event: ReportReady) -> None:
        await self.bus.publish(event, Subjects.report_ready(event.data.repo))

    async def _pages(self, ready: ReportReady) -> None:
        """The archive's pages, after the report-ready: no reader of a report waits for them
        (notifications link to the artifacts, which are stored before it). Still before the
        summary is acknowledged: a store failure here retries the summary, whose artifacts are
        then found announced (nothing rendered or published twice) and the pages written."""
        if self.settings.site_enabled:
            self._site = self._site or SiteBuilder(self.store)
            await self._site.publish(ready.data.repo, ready.data.window.label)

    async def on_summary(self, event: WindowSummarized) -> None:
        # the summary's own request is answered, not the earlier report-ready's
        request_id = event.data.request_id

        async def reply(ready: ReportReady, raw: bytes) -> None:
            if request_id is not None:
                conn = self.bus.nc
                await conn.publish(Subjects.report_answer(request_id), raw)
                await conn.flush()

        ready = await render_report(
            event,
            self.store,
            self._publish,
            self.pdf,
            lambda: datetime.now(UTC),
            self.narrator,
            reply=reply,
        )
        await self._pages(ready)

    async def on_unchanged(self, msg) -> None:
        """A repeated request for an unchanged revision (shared/answers.py): send the requester
        the report-ready that announced it and say so, or say `render`."""
        raw = None
        try:
            ask = answers.UnchangedRequest.model_validate_json(msg.data)
            raw = await answer_unchanged(self.store, ask)
            if raw is not None:
                conn = self.bus.nc
                await conn.publish(Subjects.report_answer(ask.request_id), raw)
                await conn.flush()
                log.info(
                    "%s %s r%d was already reported: request %s answered with it",
                    ask.repo,
                    ask.window_label,
                    ask.revision,
                    ask.request_id,
                    extra={"repo": ask.repo, "window": ask.window_label, "revision": ask.revision},
                )
        except Exception as exc:  # noqa: BLE001 - the summarizer publishes the summary instead
            log.warning(
                "could not answer an unchanged-window request (%s); the summary will be "
                "rendered instead",
                type(exc).__name__,
            )
            raw = None
        if msg.reply:
            await msg.respond(answers.ANSWERED if raw is not None else answers.RENDER)

    def register(self, router: ServiceRouter) -> None:
        self.consumer.register(router)

    async def start(self) -> None:
        conn = self.bus.nc
        self._unchanged_sub = await conn.subscribe(
            answers.SUBJECT, queue=answers.QUEUE, cb=self.on_unchanged
        )
        self.pdf.start()
        # warm the PDF workers in the background: the first report does not pay for spawning,
        # imports and font loading, and start-up is not delayed by it
        self._warming = asyncio.create_task(self._warm_pdf())
        log.info("renderer storing artifacts at %s", _redact(self.settings.artifacts_url))
        if self.settings.narrator_url:
            log.info(
                "narrator: model %s at %s, prompt %s",
                self.settings.narrator_model,
                _redact(self.settings.narrator_url),
                self.settings.narrator_prompt_version,
            )

    async def _warm_pdf(self) -> None:
        try:
            await self.pdf.warm(stylesheet())
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a report will retry and say what is wrong
            log.warning("warming the PDF worker failed (%s); PDFs will be tried per report", exc)

    async def stop(self) -> None:
        sub, self._unchanged_sub = self._unchanged_sub, None
        if sub is not None:
            with contextlib.suppress(Exception):  # the connection may be gone already
                await sub.unsubscribe()
        warming, self._warming = self._warming, None
        await cancel_and_wait(warming)
        self.pdf.close()
        await self.narrator.close()

    async def ready(self) -> None:
        # a cheap round trip to the store: a missing object is the expected answer
        try:
            await self.store.get("reports/_probe_/ready")
        except ObjectNotFound:
            pass


def build_narrator(settings: RendererSettings, store: Callable[[], ObjectStore]) -> Narrator:
    """The templates' prose, or an OpenAI-compatible model when REPODIGEST_NARRATOR_URL is set."""
    if not settings.narrator_url:
        return TemplateNarrator()
    if not settings.narrator_model:
        raise ValueError(
            "REPODIGEST_NARRATOR_URL is set but REPODIGEST_NARRATOR_MODEL is not: "
            "name the model the server serves (e.g. Qwen/Qwen2.5-7B-Instruct)"
        )
    options = ChatOptions(
        url=settings.narrator_url,
        model=settings.narrator_model,
        api_key=settings.narrator_api_key,
        prompt_version=settings.narrator_prompt_version,
        timeout=settings.narrator_timeout,
        deadline=settings.narrator_deadline,
        attempts=settings.narrator_attempts,
        backoff=settings.narrator_backoff,
        max_tokens=settings.narrator_max_tokens,
        token_budget=settings.narrator_token_budget,
        temperature=settings.narrator_temperature,
        json_mode=settings.narrator_json_mode,
    )
    load_prompt(settings.narrator_prompt_version, "en")  # a misnamed version fails at start
    cache = StoreNarrationCache(store) if settings.narrator_cache else None
    return OpenAIChatNarrator(options, cache)


def _redact(url: str) -> str:
    # artifacts URLs carry no secrets by design, but strip any query just in case
    return url.split("?", 1)[0]


def build_service(
    settings: RendererSettings, runtime: Runtime, store: ObjectStore | None = None
) -> RendererService:
    return RendererService(settings, runtime, store)
