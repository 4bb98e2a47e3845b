"""`repodigest partitions`: how the summarizer's repositories are partitioned, and changing the count.

A partition count is a property of the streams (RD_ENRICHED's and RD_REPORTS's subject
transforms, shared/messaging/partitions.py), so changing it is a step of its own rather than a
side effect of a restart (a process set to another count is refused: topology.py). What
`--set N` does, in order:

1. Refuses while anything is left to fold under the current count: every summarizer durable of
   RD_ENRICHED and RD_REPORTS (of any count) must have nothing pending or unacknowledged and no
   waiting pull request (no summarizer running), and each partition of the current count must
   have its durables when its stream holds messages (a partition never consumed has facts nobody
   folded). Drain first: stop ingest and the classifier (and report requests), let the
   summarizers fold what is in the log, stop them.
2. Sets the transforms for N (the stored messages keep the subjects they were stored under).
3. Deletes the summarizer durables of the old count and creates the N partitions' durables from
   the first message after the drain: nothing is folded twice, nothing is skipped.
4. Reports messages that arrived during the change (a publisher that was not stopped): they were
   stored under the old count's subjects, which no new durable reads; `repodigest rebuild` after
   the summarizers are started again folds them (it replays every subject shape).

Then start N summarizer replicas with REPODIGEST_SUMMARIZER_PARTITIONS=N (every service and the
CLI too) and indexes 0..N-1.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import IO

from shared.messaging import STREAM_ENRICHED, STREAM_REPORTS, Topology, ensure_topology
from shared.messaging.partitions import (
    MAX_PARTITIONS,
    Partition,
    all_partitions,
    count_of,
    is_summarizer_durable,
    partition_of,
)

from .messaging import fold_spec, requests_spec

STREAMS = (STREAM_ENRICHED, STREAM_REPORTS)


class RepartitionRefused(RuntimeError):
    """The count cannot change now; the message says why and what to do first."""


@dataclass(frozen=True)
class DurableState:
    stream: str
    name: str
    pending: int
    ack_pending: int
    waiting: int


@dataclass
class PartitionStatus:
    count: int  # RD_ENRICHED's
    counts: dict[str, int] = field(default_factory=dict)  # stream -> the count it deals by
    durables: list[DurableState] = field(default_factory=list)
    last_seq: dict[str, int] = field(default_factory=dict)  # stream -> its last sequence
    messages: dict[str, int] = field(default_factory=dict)


@dataclass
class RepartitionResult:
    before: int
    after: int
    deleted: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    arrived_during: int = 0  # messages stored between the drain check and the new transforms


async def status(js) -> PartitionStatus:
    """The streams' partition count and every summarizer durable's state."""
    info = await js.stream_info(STREAM_ENRICHED)
    out = PartitionStatus(count=count_of(info.config.subject_transform))
    for stream in STREAMS:
        stream_info = await js.stream_info(stream)
        out.counts[stream] = count_of(stream_info.config.subject_transform)
        state = stream_info.state
        out.last_seq[stream] = int(state.last_seq or 0)
        out.messages[stream] = int(state.messages or 0)
        for c in await js.consumers_info(stream):
            if is_summarizer_durable(c.name):
                out.durables.append(
                    DurableState(
                        stream,
                        c.name,
                        int(c.num_pending or 0),
                        int(c.num_ack_pending or 0),
                        int(c.num_waiting or 0),
                    )
                )
    return out


async def fold_backlog(js, count: int) -> int:
    """Messages the summarizer's `count` partitions have yet to fold (pending + unacknowledged),
    summed: what the CLI waits for and counts down (NotFoundError while a partition's durable
    does not exist yet)."""
    total = 0
    for p in all_partitions(count):
        info = await js.consumer_info(STREAM_ENRICHED, fold_spec(p).durable)
        total += int(info.num_pending or 0) + int(info.num_ack_pending or 0)
    return total


def drain_problems(current: PartitionStatus) -> list[str]:
    """Why the count cannot change now (empty: it can)."""
    problems = []
    for d in current.durables:
        if d.waiting:
            problems.append(
                f"{d.name} has {d.waiting} waiting pull request(s): a summarizer is running; "
                "stop every summarizer replica"
            )
        if d.pending or d.ack_pending:
            problems.append(
                f"{d.name} has {d.pending} message(s) to fold and {d.ack_pending} unacknowledged: "
                "start the summarizers with the current count and let them fold the log (stop "
                "ingest and the classifier first so that it stops growing)"
            )
    names = {d.name for d in current.durables}
    for p in all_partitions(current.count):
        for spec in (fold_spec(p), requests_spec(p)):
            if current.messages.get(spec.stream) and spec.durable not in names:
                problems.append(
                    f"{spec.durable} does not exist but {spec.stream} holds messages: partition "
                    f"{p.index} of {current.count} was never folded; run its summarizer until "
                    "it is drained"
                )
    return problems


async def repartition(js, count: int, *, replicas: int = 1) -> RepartitionResult:
    """Change the summarizer partition count to `count` (module docstring); RepartitionRefused
    while anything is left to fold under the current one."""
    if not 1 <= count <= MAX_PARTITIONS:
        raise RepartitionRefused(f"a partition count is 1..{MAX_PARTITIONS}, not {count}")
    from nats.js.errors import NotFoundError

    try:
        current = await status(js)
    except NotFoundError:  # a new server: the streams are made partitioned from the start
        await ensure_topology(js, Topology(replicas=replicas, partitions=count))
        return RepartitionResult(before=count, after=count)
    result = RepartitionResult(before=current.count, after=count)
    if all(n == count for n in current.counts.values()):
        return result  # (a change cut short between the two streams is finished below)
    problems = drain_problems(current)
    if problems:
        raise RepartitionRefused("; ".join(problems))
    await ensure_topology(js, Topology(replicas=replicas, partitions=count), repartition=True)
    moved = await status(js)
    result.arrived_during = sum(moved.last_seq[s] - current.last_seq[s] for s in STREAMS)
    for d in current.durables:
        await js.delete_consumer(d.stream, d.name)
        result.deleted.append(d.name)
    for p in all_partitions(count):
        for spec in (fold_spec(p), requests_spec(p)):
            # from the first message after the drain: the new transform's first, unless a
            # publisher was not stopped (arrived_during, reported)
            start = current.last_seq[spec.stream] + 1
            await js.add_consumer(spec.stream, config=spec.config(start_sequence=start))
            result.created.append(spec.durable)
    return result


def partitions_command(
    nats_url: str,
    set_count: int | None,
    repos: list[str],
    *,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """`repodigest partitions`: 0 shown or changed; 2 bad arguments or NATS unreachable; 3 the
    change is refused (what to do first is said); 4 changed, but messages arrived meanwhile
    (run `repodigest rebuild` once the summarizers run)."""
    import sys

    from shared.config import CommonSettings
    from shared.events import check_repo
    from shared.natsclient import connect
    from shared.service import NatsUnreachable

    out, err = out or sys.stdout, err or sys.stderr
    try:
        checked = [check_repo(r) for r in repos]
    except ValueError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if set_count is not None and not 1 <= set_count <= MAX_PARTITIONS:
        print(
            f"error: --set takes a partition count 1..{MAX_PARTITIONS}, not {set_count}", file=err
        )
        return 2
    settings = CommonSettings(nats_url=nats_url)

    async def run() -> int:
        nc = await connect(settings, name="repodigest-partitions", reconnects=2)
        try:
            js = nc.jetstream()
            if set_count is not None:
                result = await repartition(js, set_count, replicas=settings.jetstream_replicas)
                if result.before == result.after:
                    print(f"the summarizer is already partitioned {result.after} way(s)", file=out)
                else:
                    print(
                        f"summarizer partitions: {result.before} -> {result.after}; durables "
                        f"deleted: {', '.join(result.deleted) or 'none'}; created: "
                        f"{', '.join(result.created)}. Start {result.after} summarizer(s) with "
                        f"REPODIGEST_SUMMARIZER_PARTITIONS={result.after} (every service and the "
                        f"CLI too) and REPODIGEST_SUMMARIZER_PARTITION_INDEX 0..{result.after - 1}",
                        file=out,
                    )
                if result.arrived_during:
                    print(
                        f"warning: {result.arrived_during} message(s) arrived during the change "
                        "(a publisher was running) under the old partitioning, which no "
                        "summarizer reads now: once the summarizers run, `repodigest rebuild` "
                        "folds them",
                        file=err,
                    )
                    return 4
                return 0
            from nats.js.errors import NotFoundError

            try:
                current = await status(js)
            except NotFoundError:
                print(
                    f"no {STREAM_ENRICHED} stream yet: the first service to start makes it, "
                    "partitioned by its REPODIGEST_SUMMARIZER_PARTITIONS",
                    file=out,
                )
                return 0
            print(f"summarizer partitions: {current.count}", file=out)
            for d in current.durables:
                print(
                    f"  {d.stream} {d.name}: {d.pending} to fold, {d.ack_pending} unacknowledged, "
                    f"{'running' if d.waiting else 'no summarizer consuming'}",
                    file=out,
                )
            for repo in checked:
                p = Partition(partition_of(repo, current.count), current.count)
                print(f"  {repo}: partition {p.index} ({p.fold_durable})", file=out)
            return 0
        finally:
            await nc.close()

    try:
        return asyncio.run(run())
    except NatsUnreachable as exc:
        print(f"error: {exc}", file=err)
        return 2
    except RepartitionRefused as exc:
        print(f"error: the partition count cannot change now: {exc}", file=err)
        return 3
