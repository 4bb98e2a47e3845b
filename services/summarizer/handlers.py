"""Summarizer use cases: fold enriched events, accept report requests, publish due summaries."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from shared.answers import UnchangedRequest
from shared.events import (
    EnrichedFact,
    ItemSnapshot,
    ReportRequested,
    Tags,
    WatermarkForwarded,
    WindowSummarized,
)
from shared.messaging import Poison
from shared.tasks import cancel_and_wait
from shared.telemetry import link_traces, meter, remember_traces, tracer
from shared.windows import Window, WindowError, zone

from .domain.admission import Admission
from .domain.projection import FoldResult
from .domain.report import (
    ReportPolicy,
    RequestMeta,
    build_summary,
    figures,
    figures_hash,
    fit_size,
    next_revision,
    warm_items,
)
from .domain.windows import Schedule, due_windows, previous_window, schedules_for
from .ports import Projections

log = logging.getLogger("repodigest.summarizer")
_tracer = tracer("summarizer")
_meter = meter("summarizer")
_folded = _meter.create_counter(
    "repodigest.summarizer.events",
    unit="{event}",
    description="enriched events folded, by outcome (new, duplicate)",
)
_windows = _meter.create_counter(
    "repodigest.summarizer.windows",
    unit="{window}",
    description="windows closed by the watermark, and re-opened by late events",
)
_summaries = _meter.create_counter(
    "repodigest.summarizer.summaries",
    unit="{summary}",
    description="window summaries published, by trigger",
)

Publish = Callable[[WindowSummarized], Awaitable[None]]
AnswerUnchanged = Callable[[UnchangedRequest], Awaitable[bool]]
# (request, reason): tell the requester its report cannot be made (a dead letter it watches for)
GiveUp = Callable[[ReportRequested, str], Awaitable[None]]


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Warmer:
    """Merged changes whose per-item results (report.warm_items: story item and role, score,
    report lines, title terms, ...) are still to be worked out, so that a window's report at its
    close only aggregates. The fold consumer works them out as its idle work
    (`shared.messaging.Consumer(idle_work=…)`): a step of at most STEP changes, only when no
    message is in hand or delivered — the fold never waits for it beyond one step, and a fold
    that never rests leaves it for later (the oldest beyond `limit` are dropped: a report works
    those out itself, as before; 5,000 keeps at most a busy week's snapshots alive, like the
    store's parse caches). `idle` is set while nothing is left."""

    STEP = 64

    def __init__(self, policy: ReportPolicy, limit: int = 5_000) -> None:
        self.policy = policy
        self._queue: deque[tuple[ItemSnapshot, Tags]] = deque(maxlen=limit)
        self.idle = asyncio.Event()
        self.idle.set()
        self.done = 0

    @property
    def pending(self) -> bool:
        return bool(self._queue)

    def add(self, merged: Iterable[tuple[ItemSnapshot, Tags]]) -> None:
        self._queue.extend(merged)
        if self._queue:
            self.idle.clear()

    async def step(self) -> None:
        batch = [self._queue.popleft() for _ in range(min(self.STEP, len(self._queue)))]
        if batch:
            self.done += await asyncio.to_thread(warm_items, batch, self.policy)
        if not self._queue:
            self.idle.set()


@dataclass
class Deps:
    """What the use cases need: the projections, a publisher, the clock and the policy."""

    store: Projections
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
    # re-summarize closed windows only after the fold has been quiet this long (seconds), so a
    # replay or re-classification makes one revision, not one per batch; None = right away
    window_debounce: float | None = None
    window_debounce_max: float = 30.0
    # languages and formats of summaries nobody asked for (scheduled windows, late revisions)
    scheduled: RequestMeta = field(default_factory=RequestMeta)
    # accepted repositories and the future-time tolerance (what is folded, what is rejected/held)
    admission: Admission = field(default_factory=Admission)
    give_up: GiveUp | None = None
    # a request for a window whose revision exists and did not change: asks the renderer to
    # answer the requester with that revision (True: answered, nothing is published); None, or
    # False back, publishes the summary again (shared/answers.py)
    answer_unchanged: AnswerUnchanged | None = None
    max_request_failures: int = 3
    # a partitioned replica's repositories (None: all): the pending requests and closed windows
    # it answers at start and after a quiet fold are its own partition's, never another
    # replica's (two replicas summarizing one window would race for its revision)
    owns: Callable[[str], bool] | None = None
    _failures: dict[str, int] = field(default_factory=dict)
    # False: never migrate, only check that the schema is at head (REPODIGEST_DATABASE_MIGRATE
    # off, for operators who run `repodigest db upgrade` as a Job before the summarizer)
    migrate: bool = True
    _migrated: bool = False
    # the merged changes whose per-item results the fold consumer works out when it has nothing
    # else to do (None: not worked out ahead: a rebuild, a bench of the fold alone)
    warmer: Warmer | None = None
    _flusher: asyncio.Task | None = None
    _flush_wanted: asyncio.Event = field(default_factory=asyncio.Event)

    async def ensure_schema(self) -> None:
        if self._migrated:
            return
        async with self.db_lock:
            if not self._migrated:
                await asyncio.to_thread(
                    self.store.migrate if self.migrate else self.store.check_schema
                )
                self._migrated = True

    def want_window_flush(self) -> None:
        """Ask the background flusher for a pass once folding has been quiet for a moment."""
        self._flush_wanted.set()
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_windows(), name="summarizer-windows")

    async def _flush_windows(self) -> None:
        loop = asyncio.get_running_loop()
        while self._flush_wanted.is_set():
            first = loop.time()
            self._flush_wanted.clear()
            # debounce: every new request to flush restarts the quiet period, up to a maximum
            while loop.time() - first < self.window_debounce_max:
                try:
                    await asyncio.wait_for(self._flush_wanted.wait(), self.window_debounce or 0)
                except TimeoutError:
                    break
                self._flush_wanted.clear()
            try:
                await publish_due(self, requests=False)
            except Exception:
                log.exception(
                    "re-summarizing closed windows failed; will retry after the next fold"
                )

    async def close(self) -> None:
        await cancel_and_wait(self._flusher)

    def closer(self, repo: str, previous: datetime | None, watermark: datetime) -> list[Window]:
        due: list[Window] = []
        for schedule in schedules_for(repo, self.schedules):
            due += due_windows(
                schedule, previous, watermark, self.grace, self.max_windows_per_watermark
            )
        return due


async def fold_events(
    deps: Deps, events: Sequence[EnrichedFact | WatermarkForwarded]
) -> FoldResult:
    """Fold a batch in one transaction (redeliveries change nothing), then publish what is due.

    Raises Poison when the database refuses the batch's data (not its connection): the consumer
    then folds the batch's halves until the event it refuses is alone and dead-letters only it.
    """
    try:
        result = await fold_batch(deps, events)
    except Exception as exc:
        if not deps.store.refused_data(exc):
            raise  # an outage: the batch comes back (nak with backoff)
        what = f"{len(events)} events" if len(events) != 1 else _describe(events[0])
        raise Poison(f"the projections refuse {what}: {_first_line(exc)}") from exc
    if result.repos:
        # the batch is folded and committed: a summary that cannot be published now must not
        # send these events back (they would be dead-lettered); it stays due and is retried
        try:
            await publish_due(deps, result.repos, windows=deps.window_debounce is None)
        except Exception as exc:  # noqa: BLE001 - logged; the request path reports it to requesters
            log.warning(
                "summaries due after a fold could not be published yet (%s: %s); "
                "they stay pending and are retried",
                type(exc).__name__,
                exc,
            )
        if deps.window_debounce is not None and (
            result.late_windows or result.closed_windows or result.watermarks
        ):
            deps.want_window_flush()
    return result


def _describe(event: EnrichedFact | WatermarkForwarded) -> str:
    if isinstance(event, EnrichedFact):
        fact = event.data.fact
        return f"{fact.kind}.{fact.action} of {fact.repo}#{fact.item.number}"
    return f"the watermark of {event.data.repo}"


def _first_line(exc: BaseException) -> str:
    # SQLAlchemy appends the statement and its parameters: the reason is the first line
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return f"{type(getattr(exc, 'orig', None) or exc).__name__}: {text[0][:300] if text else ''}"


async def fold_batch(deps: Deps, events: Sequence[EnrichedFact | WatermarkForwarded]) -> FoldResult:
    """Fold a batch in one transaction and publish nothing (the service's path and rebuild's)."""
    await deps.ensure_schema()
    # the report that counts a fact links to the trace the fact arrived in
    remember_traces((e.data.fact_id, e.id) for e in events if isinstance(e, EnrichedFact))
    with _tracer.start_as_current_span("summarizer.fold") as span:
        async with deps.db_lock:
            result = await asyncio.to_thread(
                deps.store.fold,
                list(events),
                now=deps.clock(),
                closer=deps.closer,
                admission=deps.admission,
            )
        if result.merged and deps.warmer is not None:
            deps.warmer.add(result.merged)
        span.set_attributes(
            {
                "repodigest.events": len(events),
                "repodigest.duplicates": result.duplicates,
                "repodigest.late_windows": result.late_windows,
                "repodigest.closed_windows": result.closed_windows,
            }
        )
    _folded.add(result.facts + result.watermarks, {"outcome": "new"})
    _folded.add(result.duplicates, {"outcome": "duplicate"})
    for reason, n in result.rejected.items():
        _folded.add(n, {"outcome": f"rejected-{reason}"})
    _windows.add(result.closed_windows, {"change": "closed"})
    _windows.add(result.late_windows, {"change": "reopened"})
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
    if not deps.admission.accepts_repo(request.data.repo):
        # its facts are not folded, so the report could never be made: tell the requester now
        raise Poison(
            f"report request {request.id}: {request.data.repo} is not in the accepted "
            f"repositories ({', '.join(deps.admission.repos)}); add it to "
            "REPODIGEST_ACCEPT_REPOS, restart the summarizer and run `repodigest rebuild`"
        )
    await deps.ensure_schema()
    async with deps.db_lock:
        await asyncio.to_thread(deps.store.save_request, request, deps.clock())
    await publish_due(deps, {request.data.repo})


async def publish_due(
    deps: Deps, repos: Iterable[str] | None = None, *, requests: bool = True, windows: bool = True
) -> list[WindowSummarized]:
    """Answer pending requests whose `as_of` the watermark reached; re-summarize closed windows."""
    published: list[WindowSummarized] = []
    repos = None if repos is None else set(repos)
    async with deps.flush_lock:
        pending = await asyncio.to_thread(deps.store.pending_requests, repos) if requests else []
        if deps.owns is not None:
            pending = [r for r in pending if deps.owns(r.data.repo)]
        marks = await asyncio.to_thread(deps.store.watermarks)
        for request in pending:
            as_of, mark = request.data.as_of, marks.get(request.data.repo)
            if as_of is not None and (mark is None or mark < as_of):
                continue
            meta = RequestMeta(
                languages=request.data.languages,
                formats=request.data.formats,
                synthetic=request.data.synthetic,
                data_note=request.data.data_note,
                request_id=request.id,
                source=request.data.source,
                appendix=request.data.appendix,
            )
            try:
                event = await summarize_window(
                    deps,
                    request.data.repo,
                    request.data.window.to_window(),
                    meta,
                    force=request.data.force,
                )
                if event is not None:  # None: the existing revision answered it
                    published.append(event)
            except Exception as exc:
                failures = deps._failures[request.id] = deps._failures.get(request.id, 0) + 1
                if deps.give_up is None or failures < deps.max_request_failures:
                    raise
                reason = (
                    f"gave up on the report for {request.data.repo} {request.data.window.label} "
                    f"after {failures} attempts: {type(exc).__name__}: {exc}"
                )
                log.error("%s", reason)
                await deps.give_up(request, reason)
                async with deps.db_lock:
                    await asyncio.to_thread(deps.store.mark_answered, request.id, deps.clock())
        dirty = await asyncio.to_thread(deps.store.dirty_windows, repos) if windows else []
        if deps.owns is not None:
            dirty = [state for state in dirty if deps.owns(state.repo)]
        for state in dirty:
            mark = marks.get(state.repo)
            # a late fact re-summarizes once the watermark is past the window (no churn mid-sync)
            if mark is None or mark < state.window.end + deps.grace:
                continue
            event = await summarize_window(
                deps, state.repo, state.window, deps.scheduled, only_if_changed=state.revision >= 1
            )
            if event is not None:
                published.append(event)
    return published


async def summarize_window(
    deps: Deps,
    repo: str,
    window: Window,
    meta: RequestMeta,
    *,
    only_if_changed: bool = False,
    force: bool = False,
) -> WindowSummarized | None:
    """Compute the window's report model, decide its revision, publish it, remember it."""
    with _tracer.start_as_current_span("summarizer.summarize") as span:
        span.set_attributes(
            {
                "repodigest.repo": repo,
                "repodigest.window": window.label,
                "repodigest.request_id": meta.request_id or "",
            }
        )
        event = await _summarize(deps, repo, window, meta, only_if_changed, force)
        if event is not None:
            span.set_attributes(
                {
                    "repodigest.revision": event.data.revision,
                    "repodigest.facts_counted": event.data.facts_counted,
                }
            )
            link_traces(span, event.data.fact_ids_sample)
            _summaries.add(1, {"trigger": "request" if meta.request_id else "window"})
        return event


async def _summarize(
    deps: Deps,
    repo: str,
    window: Window,
    meta: RequestMeta,
    only_if_changed: bool,
    force: bool = False,
) -> WindowSummarized | None:
    previous = previous_window(window)
    since = window.end - timedelta(days=deps.policy.awaiting_review_max_days)
    inp = await asyncio.to_thread(
        deps.store.load_window, repo, window, previous, open_prs_since=since
    )
    state = await asyncio.to_thread(deps.store.window_state, repo, window.label)
    now = deps.clock()
    draft = await asyncio.to_thread(build_summary, inp, now=now, policy=deps.policy, meta=meta)
    values = figures(draft)
    current = state.revision if state else 0
    revision, changes = next_revision(current, state.figures if state else None, values)
    if force and revision == current:
        # asked for explicitly: a new revision although no figure changed (the renderer never
        # re-renders a revision it has announced)
        revision, changes = current + 1, ()
    event: WindowSummarized | None = None
    if (
        meta.request_id is not None
        and revision == current
        and current >= 1
        and deps.answer_unchanged is not None
    ):
        # asked again, nothing changed: the announced revision answers, no event is published
        ask = UnchangedRequest(
            request_id=meta.request_id,
            repo=repo,
            window_label=window.label,
            revision=current,
            languages=tuple(draft.languages),
            formats=tuple(draft.formats),
        )
        if await deps.answer_unchanged(ask):
            log.info(
                "%s %s r%d unchanged: request %s answered with it, nothing published",
                repo,
                window.label,
                current,
                meta.request_id,
                extra={"repo": repo, "window": window.label, "revision": current},
            )
            async with deps.db_lock:
                await asyncio.to_thread(deps.store.mark_answered, meta.request_id, now)
            return None
    if not (only_if_changed and revision == current):
        if revision == current:
            # the same revision again (another request): it says what it changed, as it did first
            changes = await asyncio.to_thread(
                deps.store.revision_changes, repo, window.label, revision
            )
        data = draft.model_copy(update={"revision": revision, "changed_figures": changes})
        data = await asyncio.to_thread(fit_size, data, deps.max_summary_bytes)
        event = WindowSummarized.create(data)
        await deps.publish(event)
        log.info(
            "summarized %s %s r%d (%d facts%s)",
            repo,
            window.label,
            revision,
            data.facts_counted,
            f", {len(changes)} figures changed" if changes else "",
            extra={"repo": repo, "window": window.label, "revision": revision},
        )
    async with deps.db_lock:
        await asyncio.to_thread(
            deps.store.record_summary,
            repo,
            window,
            revision=revision,
            figures=values,
            figures_hash=figures_hash(values),
            summary_id=event.id if event else (state and state.summary_id) or "",
            now=now,
            request_id=meta.request_id,
            changed=changes,
        )
    return event
