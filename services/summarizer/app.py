"""The summarizer service: two durable consumers (enriched events, report requests) on one store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from shared import answers
from shared.events import ENRICHED_EVENT_ADAPTER, DeadLetter, ReportRequested, WindowSummarized
from shared.messaging import Consumer, ConsumerSpec, Subjects
from shared.tasks import cancel_and_wait

from .adapters.store import SqlProjections, redacted
from .config import SummarizerSettings
from .handlers import (
    Deps,
    GiveUp,
    Publish,
    Warmer,
    accept_request,
    fold_events,
    publish_due,
)
from .messaging import CONTRACT, FOLD, REQUESTS, fold_spec, requests_spec

if TYPE_CHECKING:
    from shared.messaging import ServiceRouter
    from shared.service import Runtime

log = logging.getLogger("repodigest.summarizer")

NAME = "summarizer"


class SummarizerService:
    """Folds RD_ENRICHED into SQL projections and answers report requests from RD_REPORTS."""

    name = NAME
    consumers: Sequence[ConsumerSpec] = (FOLD, REQUESTS)
    contract = CONTRACT

    def __init__(
        self, settings: SummarizerSettings, runtime: Runtime, store: SqlProjections | None = None
    ) -> None:
        self.settings = settings
        # this replica's share of the repositories (all of them unpartitioned, or with no
        # partition index set): a fold and a requests durable per partition it serves, and the
        # pending requests, closed windows and held events it answers for
        self.partitions = settings.partitions_served()
        self.consumers = tuple(
            spec for p in self.partitions for spec in (fold_spec(p), requests_spec(p))
        )
        self.bus = runtime.bus(NAME)
        self.store = (
            store
            if store is not None
            else SqlProjections(settings.database_url, echo=settings.database_echo)
        )
        self.deps = build_deps(settings, self.store, self._publish, give_up=self._give_up)
        self.deps.answer_unchanged = self._answer_unchanged
        if len(self.partitions) < settings.summarizer_partitions:
            self.deps.owns = self.owns
            self.deps.admission = replace(self.deps.admission, partition_owns=self.owns)
        self._releaser: asyncio.Task | None = None
        # what a report asks of each merged change, worked out while the fold rests
        self.warmer = self.deps.warmer = Warmer(self.deps.policy)
        self.fold_consumers = [
            Consumer(
                self.bus,
                fold_spec(p),
                ENRICHED_EVENT_ADAPTER.validate_json,
                handle_batch=self.on_enriched_batch,
                idle_work=self.warmer,
            )
            for p in self.partitions
        ]
        self.request_consumers = [
            Consumer(
                self.bus,
                requests_spec(p),
                ReportRequested.model_validate_json,
                handle=self.on_report_requested,
            )
            for p in self.partitions
        ]
        # the first partition's (the only one, unpartitioned or with an index set)
        self.fold_consumer, self.request_consumer = (
            self.fold_consumers[0],
            self.request_consumers[0],
        )

    def owns(self, repo: str) -> bool:
        """Whether this replica folds and reports `repo`."""
        return any(p.owns(repo) for p in self.partitions)

    async def _publish(self, event: WindowSummarized) -> None:
        await self.bus.publish(event, Subjects.summary_ready(event.data.repo))

    async def _answer_unchanged(self, ask: answers.UnchangedRequest) -> bool:
        """A renderer answers the requester with the announced revision (core NATS request, no
        event); False when none does (no renderer, not everything announced, no reply in time)."""
        import nats.errors

        conn = self.bus.nc
        try:
            reply = await conn.request(
                answers.SUBJECT,
                ask.model_dump_json().encode(),
                timeout=self.settings.answer_timeout_seconds,
            )
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError) as exc:
            log.debug(
                "no renderer answered request %s from r%d (%s): publishing the summary",
                ask.request_id,
                ask.revision,
                type(exc).__name__,
            )
            return False
        return reply.data == answers.ANSWERED

    async def _give_up(self, request: ReportRequested, reason: str) -> None:
        await self.bus.dead_letter(
            request.to_bytes(),
            DeadLetter(
                service=NAME,
                reason=reason,
                subject=Subjects.report_requested(request.data.repo),
                event_id=request.id,
                failed_at=datetime.now(UTC),
            ),
        )

    async def on_enriched_batch(self, events: list) -> None:
        await fold_events(self.deps, events)

    async def on_report_requested(self, request: ReportRequested) -> None:
        await accept_request(self.deps, request)

    def register(self, router: ServiceRouter) -> None:
        for consumer in (*self.fold_consumers, *self.request_consumers):
            consumer.register(router)

    async def start(self) -> None:
        await self.deps.ensure_schema()
        log.info("summarizer projections at %s", redacted(self.settings.database_url))
        if self.settings.summarizer_partitions > 1:
            log.info(
                "summarizer partition(s) %s of %d: durables %s",
                ", ".join(str(p.index) for p in self.partitions),
                self.settings.summarizer_partitions,
                ", ".join(spec.durable for spec in self.consumers),
            )
        # requests and closed windows left pending by a previous run
        await publish_due(self.deps)
        if self.deps.admission.future_tolerance is not None:
            self._releaser = asyncio.create_task(self._release_held(), name="summarizer-held")

    async def _release_held(self) -> None:
        """Fold held future events once their time comes, even when no new event arrives."""
        while True:
            await asyncio.sleep(self.settings.held_release_seconds)
            try:
                horizon = self.deps.admission.horizon(self.deps.clock())
                if await asyncio.to_thread(self.store.held_due, horizon):
                    await fold_events(self.deps, [])
            except Exception as exc:  # noqa: BLE001 - the next pass or the next fold retries
                log.warning(
                    "releasing held future events failed (%s: %s); will retry",
                    type(exc).__name__,
                    exc,
                )

    async def stop(self) -> None:
        await cancel_and_wait(self._releaser)
        await self.deps.close()
        await asyncio.to_thread(self.store.close)

    async def ready(self) -> None:
        await asyncio.to_thread(self.store.ping)


def build_deps(
    settings: SummarizerSettings,
    store: SqlProjections,
    publish: Publish,
    *,
    give_up: GiveUp | None = None,
) -> Deps:
    """The use cases' dependencies from settings (the service and `rebuild` fold alike)."""
    return Deps(
        store=store,
        publish=publish,
        policy=settings.policy(),
        schedules=settings.schedule_map(),
        grace=settings.grace(),
        max_windows_per_watermark=settings.max_windows_per_watermark,
        max_summary_bytes=settings.max_summary_bytes,
        window_debounce=settings.window_debounce_seconds,
        give_up=give_up,
        scheduled=settings.scheduled_meta(),
        admission=settings.admission(),
        migrate=settings.database_migrate,
    )


def build_service(
    settings: SummarizerSettings, runtime: Runtime, store: SqlProjections | None = None
) -> SummarizerService:
    """The summarizer on `runtime` (its bus), its projections `store` (by default the database
    of `settings.database_url`)."""
    return SummarizerService(settings, runtime, store)
