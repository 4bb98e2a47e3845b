"""Summarizer use cases: fold enriched events, accept report requests, publish due summaries."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from shared.bus import Poison
from shared.events import EnrichedFact, ReportRequested, WatermarkForwarded, WindowSummarized
from shared.windows import Window, WindowError, zone

from .adapters.store import FoldResult, SqlProjections
from .domain.report import (
    ReportPolicy, RequestMeta, build_summary, figures, figures_hash, fit_size, next_revision,
)
from .domain.windows import Schedule, due_windows, previous_window, schedules_for, window_from_ref

log = logging.getLogger("repodigest.summarizer")

Publish = Callable[[WindowSummarized], Awaitable[None]]


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Deps:
    """What the use cases need: the projections, a publisher, the clock and the policy."""

    store: SqlProjections
    publish: Publish
    clock: Callable[[], datetime] = _utcnow
    policy: ReportPolicy = field(default_factory=ReportPolicy)
    schedules: dict[str, list[Schedule]] = field(default_factory=dict)
    grace: timedelta = timedelta(minutes=15)
    max_windows_per_watermark: int = 31
    # NATS refuses messages over max_payload (1 MiB by default): the appendix gives way first
    max_summary_bytes: int = 900_000
    # one writer at a time (SQLite has one anyway); one flusher at a time (no double answers)
    db_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    flush_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _migrated: bool = False

    async def ensure_schema(self) -> None:
        if self._migrated:
            return
        async with self.db_lock:
            if not self._migrated:
                await asyncio.to_thread(self.store.migrate)
                self._migrated = True

    def closer(self, repo: str, previous: datetime | None, watermark: datetime) -> list[Window]:
        due: list[Window] = []
        for schedule in schedules_for(repo, self.schedules):
            due += due_windows(schedule, previous, watermark, self.grace, self.max_windows_per_watermark)
        return due


async def fold_events(deps: Deps, events: Sequence[EnrichedFact | WatermarkForwarded]) -> FoldResult:
    """Fold a batch in one transaction (redeliveries change nothing), then publish what is due."""
    await deps.ensure_schema()
    async with deps.db_lock:
        result = await asyncio.to_thread(deps.store.fold, list(events), now=deps.clock(),
                                         closer=deps.closer)
    if result.repos:
        await publish_due(deps, result.repos)
    return result


async def accept_request(deps: Deps, request: ReportRequested) -> None:
    """Store a report request; answer it now if the folded watermark already allows."""
    window = request.data.window
    try:
        zone(window.tz)
    except WindowError as exc:
        raise Poison(f"report request {request.id}: {exc}") from None
    if window.end <= window.start:
        raise Poison(f"report request {request.id}: window {window.label} ends before it starts")
    await deps.ensure_schema()
    async with deps.db_lock:
        await asyncio.to_thread(deps.store.save_request, request, deps.clock())
    await publish_due(deps, {request.data.repo})


async def publish_due(deps: Deps, repos: Iterable[str] | None = None) -> list[WindowSummarized]:
    """Answer pending requests whose `as_of` the watermark reached; re-summarize closed windows."""
    published: list[WindowSummarized] = []
    repos = None if repos is None else set(repos)
    async with deps.flush_lock:
        pending = await asyncio.to_thread(deps.store.pending_requests, repos)
        marks = await asyncio.to_thread(deps.store.watermarks)
        for request in pending:
            as_of, mark = request.data.as_of, marks.get(request.data.repo)
            if as_of is not None and (mark is None or mark < as_of):
                continue
            meta = RequestMeta(languages=request.data.languages, formats=request.data.formats,
                               synthetic=request.data.synthetic, data_note=request.data.data_note,
                               request_id=request.id)
            published.append(await summarize_window(
                deps, request.data.repo, window_from_ref(request.data.window), meta))
        for state in await asyncio.to_thread(deps.store.dirty_windows, repos):
            mark = marks.get(state.repo)
            # a late fact re-summarizes once the watermark is past the window (no churn mid-sync)
            if mark is None or mark < state.window.end + deps.grace:
                continue
            event = await summarize_window(deps, state.repo, state.window, RequestMeta(),
                                           only_if_changed=state.revision >= 1)
            if event is not None:
                published.append(event)
    return published


async def summarize_window(deps: Deps, repo: str, window: Window, meta: RequestMeta, *,
                           only_if_changed: bool = False) -> WindowSummarized | None:
    """Compute the window's report model, decide its revision, publish it, remember it."""
    previous = previous_window(window)
    inp = await asyncio.to_thread(deps.store.load_window, repo, window, previous)
    state = await asyncio.to_thread(deps.store.window_state, repo, window.label)
    now = deps.clock()
    draft = await asyncio.to_thread(build_summary, inp, now=now, policy=deps.policy, meta=meta)
    values = figures(draft)
    current = state.revision if state else 0
    revision, changes = next_revision(current, state.figures if state else None, values)
    event: WindowSummarized | None = None
    if not (only_if_changed and revision == current):
        data = draft.model_copy(update={"revision": revision, "changed_figures": changes})
        data = await asyncio.to_thread(fit_size, data, deps.max_summary_bytes)
        event = WindowSummarized.create(data)
        await deps.publish(event)
        log.info("summarized %s %s r%d (%d facts%s)", repo, window.label, revision,
                 data.facts_counted, f", {len(changes)} figures changed" if changes else "",
                 extra={"repo": repo, "window": window.label, "revision": revision})
    async with deps.db_lock:
        await asyncio.to_thread(
            deps.store.record_summary, repo, window, revision=revision, figures=values,
            figures_hash=figures_hash(values), summary_id=event.id if event else (state and state.summary_id) or "",
            now=now, request_id=meta.request_id)
    return event
