"""`repodigest rebuild`: drop the summarizer's projections and replay RD_ENRICHED from the start.

What it does, in order:

1. Refuses while a summarizer is running. A running summarizer keeps pull requests waiting on
   its durable consumer `summarizer-fold` (each partition's, `summarizer-fold-<i>-of-<n>`, when
   the summarizer is partitioned) (or holds delivered, unacknowledged messages); folding
   the same tables from two places while one of them is being emptied would leave a mix of old
   and new state. Stop every summarizer replica (and `repodigest run` / one-shot reports that run
   one in-process) first; a crashed one releases its messages after the consumer's ack wait.
2. Drops what folding produced (`SqlProjections.reset_projections`: items, activity, processed
   ids, watermarks, rejected events; for one repository with `--repo`). Windows with their
   revisions and revision history and pending report requests are kept: revision numbers go on
   (a second "revision 1" with other figures would overwrite rendered artifacts).
3. Replays every message of RD_ENRICHED (filtered to the repository's subjects with `--repo`,
   partitioned or not)
   through an ephemeral pull consumer, in stream order, in batches, through the same fold as the
   service (`handlers.fold_batch`: same accept list, future-time hold, window closing), so the
   result equals the incremental one. Invalid messages are counted and skipped (the service
   dead-lettered them when they arrived).
4. Recomputes every summarized window: a window whose figures changed (new rules, a wider accept
   list, a fixed bug) is published as a new revision, with the changed figures, for the renderer;
   the others stay as they are. Pending requests are answered by the service when it starts.

The durable consumer itself is left alone: when the summarizer starts again it resumes where it
stopped; messages it has not yet acknowledged were already folded by the rebuild and are skipped
as duplicates by their processed ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shared.events import ENRICHED_EVENT_ADAPTER, WindowSummarized
from shared.messaging import STREAM_ENRICHED, Subjects, collector_paused, repo_tokens
from shared.messaging.partitions import is_summarizer_durable

from .handlers import Deps, fold_batch, publish_due

log = logging.getLogger("repodigest.summarizer.rebuild")

# (messages done, messages known so far) after every batch
Progress = Callable[[int, int], None]


class RebuildRefused(RuntimeError):
    """The rebuild cannot run now; the message says why and what to do."""


@dataclass
class RebuildResult:
    repo: str | None = None
    messages: int = 0
    facts: int = 0
    watermarks: int = 0
    duplicates: int = 0
    invalid: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    released: int = 0
    deleted: dict[str, int] = field(default_factory=dict)
    windows_checked: int = 0
    revisions: list[tuple[str, str, int]] = field(default_factory=list)  # (repo, window, revision)
    seconds: float = 0.0


def replay_subjects(repo: str | None) -> list[str]:
    """RD_ENRICHED subjects of one repository: `rd.enriched.<kind>.<action>.<owner>.<name>`, and
    as a partitioned stream stores them, `rd.enriched.<partition>.<kind>.<action>.<owner>.<name>`
    (a log may hold both: partitioned since some day)."""
    if repo is None:
        return ["rd.enriched.>"]
    return [f"rd.enriched.*.*.{repo_tokens(repo)}", f"rd.enriched.*.*.*.{repo_tokens(repo)}"]


async def summarizer_durables(js, stream: str) -> list:
    """The summarizers' durable consumers on `stream`, of every partition (consumer infos)."""
    return [c for c in await js.consumers_info(stream) if is_summarizer_durable(c.name)]


async def check_no_running_summarizer(js, *, samples: int = 5, interval: float = 0.25) -> None:
    """Raise RebuildRefused while the durable fold consumer is in use.

    A running summarizer keeps pull requests outstanding (renewed as they expire, every couple of
    seconds: `shared.messaging.pull.StreamingPull`), so a waiting pull request shows up in the samples;
    while it handles a long batch its delivered messages are pending acknowledgement instead.
    """
    import nats.js.errors

    from .messaging import FOLD as spec

    for i in range(samples):
        try:
            # every partition's fold durable (one, `summarizer-fold`, unpartitioned)
            infos = await summarizer_durables(js, spec.stream)
        except nats.js.errors.NotFoundError:
            return  # the stream is new
        for info in infos:
            if info.num_waiting:
                raise RebuildRefused(
                    f"a summarizer is running: its durable consumer {info.name} has "
                    f"{info.num_waiting} waiting pull request(s). Stop every summarizer (the "
                    "service, `repodigest run`, one-shot reports using this NATS) and run "
                    "rebuild again"
                )
            if info.num_ack_pending:
                raise RebuildRefused(
                    f"the durable consumer {info.name} has {info.num_ack_pending} delivered "
                    "message(s) not yet acknowledged: a summarizer is folding them, or one "
                    f"stopped without acknowledging (they are released after "
                    f"{spec.ack_wait:.0f} s). Stop every summarizer, wait that long, and run "
                    "rebuild again"
                )
        if i + 1 < samples:
            await asyncio.sleep(interval)


async def rebuild(
    js,
    deps: Deps,
    *,
    repo: str | None = None,
    batch: int = 1024,
    progress: Progress | None = None,
    fetch_timeout: float = 5.0,
    check_running: bool = True,
) -> RebuildResult:
    """Reset the projections and fold RD_ENRICHED from its first message; re-summarize windows.

    `js` is a nats-py JetStream context (publishing of new revisions goes through `deps.publish`).
    """
    import nats.errors
    from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

    started = time.monotonic()
    result = RebuildResult(repo=repo)
    if check_running:
        await check_no_running_summarizer(js)
    await deps.ensure_schema()
    async with deps.db_lock:
        result.deleted = await asyncio.to_thread(deps.store.reset_projections, repo)
    log.info(
        "rebuild: projections dropped (%s); replaying %s",
        result.deleted,
        STREAM_ENRICHED,
        extra={"repo": repo or "*"},
    )

    subjects = replay_subjects(repo)
    config = ConsumerConfig(
        filter_subjects=subjects if len(subjects) > 1 else None,
        deliver_policy=DeliverPolicy.ALL,
        ack_policy=AckPolicy.NONE,
        inactive_threshold=max(60.0, 4 * fetch_timeout),
        mem_storage=True,
    )
    sub = await js.pull_subscribe(subjects[0], stream=STREAM_ENRICHED, config=config)
    # the fold of one batch (a worker thread, mostly in the database driver) runs while the next
    # batch is fetched and decoded; folds still happen one at a time, in stream order
    folding: asyncio.Task | None = None
    try:
        total = (await sub.consumer_info()).num_pending or 0
        if progress is not None:
            progress(0, total)
        while result.messages < total:
            try:
                msgs = await sub.fetch(batch, timeout=fetch_timeout)
            except (TimeoutError, nats.errors.TimeoutError):
                log.warning(
                    "rebuild: %s stopped delivering after %d of %d messages (purged "
                    "meanwhile?); folded what arrived",
                    STREAM_ENRICHED,
                    result.messages,
                    total,
                )
                break
            events = []
            with collector_paused():
                for msg in msgs:
                    try:
                        events.append(ENRICHED_EVENT_ADAPTER.validate_json(msg.data))
                    except ValueError as exc:  # pydantic's ValidationError is a ValueError
                        result.invalid += 1
                        log.warning(
                            "rebuild: skipped an invalid message on %s: %s",
                            msg.subject,
                            str(exc).splitlines()[0][:200],
                        )
            result.messages += len(msgs)
            if msgs:
                # messages published since the start are folded too: keep the total honest
                total = max(total, result.messages + (msgs[-1].metadata.num_pending or 0))
            if events:
                if folding is not None:
                    await folding
                folding = asyncio.create_task(_fold_into(result, deps, events))
            if progress is not None:
                progress(result.messages, total)
        if folding is not None:
            await folding
    finally:
        if folding is not None and not folding.done():
            # leaving on an error: let the fold in flight finish before anything else touches
            # the database
            with contextlib.suppress(BaseException):
                await folding
        try:
            await sub.unsubscribe()
        except Exception:  # noqa: BLE001 - the ephemeral consumer expires on its own
            pass

    async with deps.db_lock:
        result.windows_checked = await asyncio.to_thread(deps.store.mark_summarized_dirty, repo)
    published: list[WindowSummarized] = await publish_due(
        deps, None if repo is None else {repo}, requests=False
    )
    result.revisions = [(e.data.repo, e.data.window.label, e.data.revision) for e in published]
    result.seconds = time.monotonic() - started
    log.info(
        "rebuild: %d messages, %d facts, %d watermarks folded; %d windows checked, %d new "
        "revision(s) in %.1f s",
        result.messages,
        result.facts,
        result.watermarks,
        result.windows_checked,
        len(result.revisions),
        result.seconds,
        extra={"repo": repo or "*"},
    )
    return result


async def _fold_into(result: RebuildResult, deps: Deps, events: list) -> None:
    folded = await fold_batch(deps, events)
    result.facts += folded.facts
    result.watermarks += folded.watermarks
    result.duplicates += folded.duplicates
    result.released += folded.released
    for reason, n in folded.rejected.items():
        result.rejected[reason] = result.rejected.get(reason, 0) + n


def rebuild_command(
    nats_url: str, database_url: str, repo: str | None, *, progress: bool = True
) -> int:
    """`repodigest rebuild`: 0 done, 2 bad arguments or unreachable NATS/database, 3 refused
    because a summarizer is running. Other summarizer settings (schedules, accept list, future
    tolerance, report policy) come from the same `REPODIGEST_*` variables as the service's."""
    from rich.console import Console

    from shared.events import check_repo

    err, out = Console(stderr=True), Console()

    def fail(message: str, code: int) -> int:
        err.print(f"[bold red]error:[/] {message}", highlight=False)
        return code

    if repo is not None:
        try:
            repo = check_repo(repo)
        except ValueError as exc:
            return fail(str(exc), 2)
    from pydantic import ValidationError

    from .config import SummarizerSettings

    try:
        settings = SummarizerSettings(nats_url=nats_url, database_url=database_url)
    except ValidationError as exc:
        return fail(f"summarizer settings: {exc}", 2)
    from shared.messaging import PartitionMismatch
    from shared.service import NatsUnreachable

    from .adapters.store import StoreError

    try:
        result = asyncio.run(_rebuild_with(settings, repo, progress and err.is_terminal, err))
    except RebuildRefused as exc:
        return fail(f"rebuild refused: {exc}", 3)
    except (NatsUnreachable, StoreError, PartitionMismatch) as exc:
        return fail(str(exc), 2)
    rejected = ", ".join(f"{n} {r}" for r, n in sorted(result.rejected.items())) or "none"
    out.print(
        f"rebuilt {result.repo or 'all repositories'}: {result.messages} messages, "
        f"{result.facts} facts, {result.watermarks} watermarks folded "
        f"({result.invalid} invalid skipped; not counted: {rejected}) in {result.seconds:.1f} s; "
        f"{result.windows_checked} summarized windows checked, "
        f"{len(result.revisions)} new revision(s)",
        highlight=False,
    )
    for repo_name, label, revision in result.revisions:
        out.print(f"  {repo_name} {label} r{revision}", highlight=False)
    return 0


async def _rebuild_with(settings, repo: str | None, show_progress: bool, console) -> RebuildResult:
    from shared.service import Runtime

    from .adapters.store import SqlProjections
    from .app import NAME, build_deps

    runtime = Runtime(settings, f"{NAME}-rebuild")
    store = SqlProjections(settings.database_url, echo=settings.database_echo)
    bus = runtime.bus(NAME)

    async def publish(event: WindowSummarized) -> None:
        await bus.publish(event, Subjects.summary_ready(event.data.repo))

    # re-summarize right away (no debounce: nothing else is folding)
    deps = build_deps(settings, store, publish)
    deps.window_debounce = None
    started = False
    try:
        # connects (an actionable error when NATS is unreachable) and ensures the streams exist
        await runtime.start()
        started = True
        js = runtime.js
        if not show_progress:
            return await rebuild(js, deps, repo=repo)
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        ) as bar:
            task = bar.add_task(f"replaying {STREAM_ENRICHED}", total=None)

            def advance(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            return await rebuild(js, deps, repo=repo, progress=advance)
    finally:
        await deps.close()
        if started:
            await runtime.stop()
        await asyncio.to_thread(store.close)
