"""Summarizer partitions on a real nats-server and a real database: three replicas, each folding
its partition of fifty repositories, make the reports one summarizer makes; a replica killed with
SIGKILL mid-run and replaced by one with the same index loses nothing.

The reference is one unpartitioned summarizer (REPODIGEST_SUMMARIZER_PARTITIONS=1, today's
topology) over the same facts and requests, on a server and a SQLite file of its own; the
partitioned runs share one PostgreSQL schema, as replicas of a deployment share a database.
Summaries are compared by content (`comparable`: without when and for whom they were made)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import uuid
from datetime import UTC, datetime, timedelta

import nats
import pytest

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.app import build_service
from services.summarizer.config import SummarizerSettings
from services.summarizer.messaging import fold_spec, requests_spec
from services.summarizer.partitioning import partitions_command
from shared.events import ReportRequestData, ReportRequested, WindowRef, WindowSummarized
from shared.messaging import (
    STREAM_DEAD,
    STREAM_ENRICHED,
    STREAM_REPORTS,
    Partition,
    PartitionMismatch,
    Subjects,
    Topology,
    ensure_topology,
    partition_of,
)
from shared.natsserver import EmbeddedNats
from shared.service import Runtime
from shared.windows import week_window
from tests.conftest import postgres_url_for
from tests.reliability.harness import ServiceProcess, comparable
from tests.signals import AckWatch, Signal
from tests.unit.summarizer.summarizer_builders import random_scenario, watermark

COUNT = 3
REPOS = [f"org{i % 5}/project-{i}" for i in range(50)]
WEEK = week_window(2026, 24, "UTC")
MARK = WEEK.end + timedelta(hours=1)
# a redelivery after SIGKILL waits for the ack wait: seconds here, two minutes in production
TEST_ACK_WAIT = 4.0


def facts() -> dict[str, list]:
    """Each repository's enriched facts of a fortnight around the week (a seeded scenario)."""
    return {
        repo: random_scenario(100 + i, WEEK.start, 7.0, n_items=10, repo=repo).events()
        for i, repo in enumerate(REPOS)
    }


FACTS = facts()


def requests() -> dict[str, ReportRequested]:
    return {
        repo: ReportRequested.create(
            ReportRequestData(
                repo=repo,
                window=WindowRef.of(WEEK),
                as_of=MARK,
                synthetic=True,
                data_note="partition test",
                formats=("md", "json"),
            ),
            nonce=uuid.uuid4().hex,
            at=datetime.now(UTC),
        )
        for repo in REPOS
    }


def in_partition(index: int) -> list[str]:
    return [r for r in REPOS if partition_of(r, COUNT) == index]


class SummaryLog:
    """Every window summary published (core subscription), by request id."""

    def __init__(self) -> None:
        self.by_request: dict[str, list[WindowSummarized]] = {}
        self.changed = asyncio.Event()

    async def subscribe(self, nc) -> None:
        async def on_summary(msg) -> None:
            event = WindowSummarized.model_validate_json(msg.data)
            self.by_request.setdefault(event.data.request_id or "", []).append(event)
            self.changed.set()

        await nc.subscribe("rd.summary.ready.>", cb=on_summary)

    async def all_of(self, wanted: dict[str, ReportRequested], timeout: float = 180.0) -> dict:
        """{repo: comparable summary} once every request was answered."""
        async with asyncio.timeout(timeout):
            while any(r.id not in self.by_request for r in wanted.values()):
                self.changed.clear()
                await self.changed.wait()
        return {repo: comparable(self.by_request[r.id][0]) for repo, r in wanted.items()}


async def publish(bus, events_and_subjects: list) -> None:
    for start in range(0, len(events_and_subjects), 256):
        await bus.publish_many([(e, s, None) for e, s in events_and_subjects[start : start + 256]])


def fact_messages(part: slice = slice(None)) -> list:
    return [
        (e, Subjects.enriched(e.data.fact.kind, e.data.fact.action, repo))
        for repo, events in FACTS.items()
        for e in events[part]
    ]


def closing_messages(asks: dict[str, ReportRequested]) -> list:
    """Each repository's watermark past the week, then its request (which waits for it)."""
    return [(watermark(MARK, repo), Subjects.enriched_watermark(repo)) for repo in REPOS] + [
        (asks[repo], Subjects.report_requested(repo)) for repo in REPOS
    ]


async def start_replicas(
    url: str, database_url: str, count: int, *, indexes: bool = True
) -> tuple[list, list]:
    """`count` summarizer replicas in this process (their own runtimes and connections), each
    with its partition index; or, `indexes` False, one replica without an index (every
    partition)."""
    runtimes, services = [], []
    for index in range(count) if indexes else [None]:
        settings = SummarizerSettings(
            nats_url=url,
            database_url=database_url,
            summarizer_partitions=count,
            summarizer_partition_index=index,
        )
        runtime = Runtime(settings, f"summarizer-{index}")
        services.append(runtime.add(build_service(settings, runtime)))
        # one after the other: the first migrates the schema, the others find it current
        await runtime.start()
        runtimes.append(runtime)
    return runtimes, services


async def stop(runtimes: list) -> None:
    for runtime in reversed(runtimes):
        await runtime.stop()


async def in_process_run(
    url: str,
    database_url: str,
    count: int,
    facts_part: slice = slice(None),
    *,
    indexes: bool = True,
) -> tuple[dict, list]:
    """`count` replicas (or one for them all: `start_replicas`); the facts (`facts_part` of each
    repository's), watermarks and requests published; {repo: summary} and the services."""
    runtimes, services = await start_replicas(url, database_url, count, indexes=indexes)
    try:
        log = SummaryLog()
        await log.subscribe(runtimes[0].nc)
        asks = requests()
        bus = runtimes[0].bus("test")
        await publish(bus, fact_messages(facts_part))
        await publish(bus, closing_messages(asks))
        summaries = await log.all_of(asks)
        # one summary per request: no replica answered another's repository
        assert all(len(log.by_request[a.id]) == 1 for a in asks.values())
        return summaries, services
    finally:
        await stop(runtimes)


_reference: dict = {}


async def reference(tmp_path) -> dict:
    """One unpartitioned summarizer's summaries (computed once for the module's tests)."""
    if not _reference:
        server = EmbeddedNats(store_dir=tmp_path / "reference-nats")
        await server.start()
        try:
            summaries, (service,) = await in_process_run(
                server.url, f"sqlite:///{tmp_path / 'reference.db'}", 1
            )
        finally:
            await server.stop()
        assert service.partitions == [Partition()] and service.deps.owns is None
        _reference.update(summaries)
    return _reference


async def test_three_partitions_make_the_reports_one_summarizer_makes(
    nats_server, postgres_schema, tmp_path
):
    assert all(in_partition(i) for i in range(COUNT))  # every replica has repositories
    expected = await reference(tmp_path)
    assert len(expected) == 50 and all(
        s["counts"]["new_prs"] is not None for s in expected.values()
    )
    assert sum(s["facts_counted"] for s in expected.values()) > 300  # not fifty empty weeks

    summaries, services = await in_process_run(
        nats_server.url, postgres_url_for(postgres_schema), COUNT
    )
    assert summaries == expected

    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        for index, service in enumerate(services):
            (partition,) = service.partitions
            assert partition == Partition(index, COUNT)
            mine = in_partition(index)
            fold = await js.consumer_info(STREAM_ENRICHED, fold_spec(partition).durable)
            asked = await js.consumer_info(STREAM_REPORTS, requests_spec(partition).durable)
            # each replica was given exactly its repositories' facts, watermarks and requests
            assert fold.delivered.consumer_seq == sum(len(FACTS[r]) + 1 for r in mine)
            assert asked.delivered.consumer_seq == len(mine)
            assert (fold.num_pending, fold.num_ack_pending) == (0, 0)
            assert service.fold_consumer.stats.dead == 0
        assert (await js.stream_info(STREAM_DEAD)).state.messages == 0
    finally:
        await nc.close()


async def test_one_process_without_a_partition_index_folds_every_partition(nats_server, tmp_path):
    """`serve all` and the CLI's in-process run: no index set, the one summarizer reads all
    three partitions' durables (SQLite, as those runs use by default)."""
    expected = await reference(tmp_path)
    summaries, (service,) = await in_process_run(
        nats_server.url, f"sqlite:///{tmp_path / 'one.db'}", COUNT, indexes=False
    )
    assert summaries == expected
    assert service.partitions == [Partition(i, COUNT) for i in range(COUNT)]
    assert service.deps.owns is None  # every repository is its own
    assert [c.durable for c in service.consumers] == [
        f"summarizer-{kind}-{i}-of-3" for i in range(COUNT) for kind in ("fold", "requests")
    ]
    assert all(c.stats.dead == 0 for c in service.fold_consumers)


async def test_a_replica_killed_mid_run_is_replaced_without_loss(
    nats_server, postgres_schema, tmp_path
):
    """Replica 1 is SIGKILLed while its share is half folded; the others go on answering; a
    replacement with index 1 resumes its durables (the unacknowledged batch comes back after the
    ack wait, what was committed is skipped as processed) and every report equals the
    reference. As in tests/reliability, the requests of the victim's repositories come once its
    facts are folded: a request answered before a redelivered fact is folded would be answered
    without it (and revised when it is), partitioned or not."""
    expected = await reference(tmp_path)
    database_url = postgres_url_for(postgres_schema)
    await asyncio.to_thread(_migrate, database_url)
    nc = await nats.connect(nats_server.url)
    partitions = [Partition(i, COUNT) for i in range(COUNT)]
    victim = partitions[1]
    replicas: dict[int, ServiceProcess] = {}
    try:
        js = nc.jetstream()
        # the topology as the replicas declare it; their durables made up front with a short ack
        # wait, the victim's fold one message at a time so that it is killed mid-run (a replica
        # finds its durables and keeps their settings)
        durables = [
            dataclasses.replace(make(p), ack_wait=TEST_ACK_WAIT)
            for p in partitions
            for make in (fold_spec, requests_spec)
        ]
        await ensure_topology(js, Topology(partitions=COUNT), durables)
        slow = fold_spec(victim).config()
        slow.ack_wait, slow.max_ack_pending = TEST_ACK_WAIT, 1
        await js.add_consumer(STREAM_ENRICHED, config=slow)  # create = update
        log = SummaryLog()
        await log.subscribe(nc)

        async def fold_state(p: Partition):
            return await js.consumer_info(STREAM_ENRICHED, fold_spec(p).durable)

        # the replicas' pull requests for their fold durables, seen as the server receives them
        asking: set[str] = set()
        asked = Signal()

        async def on_request(msg) -> None:
            asking.add(msg.subject.rsplit(".", 1)[1])
            asked.notify()

        await nc.subscribe(f"$JS.API.CONSUMER.MSG.NEXT.{STREAM_ENRICHED}.*", cb=on_request)
        victim_acks = await AckWatch.start(nc, STREAM_ENRICHED, fold_spec(victim).durable)
        for p in partitions:
            replicas[p.index] = replica(p.index, nats_server.url, database_url, tmp_path)
            replicas[p.index].start()
        for p in partitions:
            await asked.until(
                lambda p=p: fold_spec(p).durable in asking, 60, f"summarizer {p.index} to consume"
            )

        # a publisher as the classifier publishes (the same Bus path), declaring the same count
        runtime = Runtime(
            SummarizerSettings(nats_url=nats_server.url, summarizer_partitions=COUNT), "test"
        )
        await runtime.start()
        try:
            bus = runtime.bus("test")
            asks = requests()
            await publish(bus, fact_messages())
            await publish(bus, closing_messages(asks)[: len(REPOS)])  # the watermarks

            await victim_acks.until(
                lambda w: w.counts["ack"] > 0, 60, "the victim to fold some of its facts"
            )
            replicas[1].kill()
            at_kill = await fold_state(victim)
            share = sum(len(FACTS[r]) + 1 for r in in_partition(1))
            folded = int(at_kill.ack_floor.consumer_seq or 0)
            assert 0 < folded < share, (folded, share)  # killed mid-run

            # the others answer for their repositories while it is gone
            others = {r: a for r, a in asks.items() if not victim.owns(r)}
            await publish(bus, [(a, Subjects.report_requested(r)) for r, a in others.items()])
            await log.all_of(others)

            # the replacement: the same index, so the same durables, resumed where they stopped
            replicas[1] = replica(1, nats_server.url, database_url, tmp_path / "replacement")
            replicas[1].start()
            await victim_acks.drained(js, share, 120, "the replacement to fold the share")
            mine = {r: a for r, a in asks.items() if victim.owns(r)}
            await publish(bus, [(a, Subjects.report_requested(r)) for r, a in mine.items()])
            summaries = await log.all_of(asks)
        finally:
            await runtime.stop()

        assert summaries == expected
        assert all(len(log.by_request[a.id]) == 1 for a in asks.values())
        assert (await js.stream_info(STREAM_DEAD)).state.messages == 0
        # the replacement resumed: the share was delivered once, plus what the kill left
        # unacknowledged (redelivered after the ack wait), not again from the start
        after = await fold_state(victim)
        assert share <= int(after.delivered.consumer_seq or 0) <= share + 1
    finally:
        for proc in replicas.values():
            proc.stop()
        await nc.close()


def replica(index: int, url: str, database_url: str, tmp_path) -> ServiceProcess:
    log_dir = tmp_path / f"summarizer-{index}"
    log_dir.mkdir(parents=True, exist_ok=True)
    return ServiceProcess(
        "summarizer",
        {
            "REPODIGEST_NATS_URL": url,
            "REPODIGEST_DATABASE_URL": database_url,
            "REPODIGEST_DATABASE_MIGRATE": "false",
            "REPODIGEST_SUMMARIZER_PARTITIONS": str(COUNT),
            "REPODIGEST_SUMMARIZER_PARTITION_INDEX": str(index),
        },
        log_dir,
    )


def _migrate(database_url: str) -> None:
    store = SqlProjections(database_url)
    try:
        store.migrate()
    finally:
        store.close()


async def test_changing_the_count_waits_for_a_drain_and_loses_nothing(
    nats_server, postgres_schema, tmp_path
):
    """One summarizer folds the first third; `partitions --set 3` is refused while facts wait
    and while it runs, then changes the count once it is drained and stopped; three replicas
    fold the rest, and the reports equal the reference."""
    expected = await reference(tmp_path)
    url, database_url = nats_server.url, postgres_url_for(postgres_schema)
    nc = await nats.connect(url)
    runtimes: list = []
    try:
        js = nc.jetstream()

        # every message the one summarizer settles (it reads the whole stream)
        acks = await AckWatch.start(nc, STREAM_ENRICHED, "summarizer-fold")

        async def drained(what: str) -> None:
            stored = (await js.stream_info(STREAM_ENRICHED)).state.messages
            await acks.drained(js, stored, 60, what)

        async def set_count(count: int) -> tuple[int, str, str]:
            out, err = io.StringIO(), io.StringIO()
            code = await asyncio.to_thread(partitions_command, url, count, [], out=out, err=err)
            return code, out.getvalue(), err.getvalue()

        runtimes, _ = await start_replicas(url, database_url, 1)
        bus = runtimes[0].bus("test")
        await publish(bus, fact_messages(slice(0, None, 3)))
        code, _, err = await set_count(3)  # it is running
        assert code == 3 and "waiting pull request(s): a summarizer is running" in err, err
        await drained("the first third folded")
        await stop(runtimes)

        publisher = Runtime(SummarizerSettings(nats_url=url), "test")
        await publisher.start()
        try:
            await publish(publisher.bus("test"), fact_messages(slice(1, None, 3)))
        finally:
            await publisher.stop()
        code, _, err = await set_count(3)  # stopped, but the second third waits in its durable
        waiting = sum(len(events[1::3]) for events in FACTS.values())
        assert code == 3 and f"summarizer-fold has {waiting} message(s) to fold" in err, err
        # a process still set to 1 works on; one set to 3 is refused before the change
        with pytest.raises(PartitionMismatch):
            await ensure_topology(js, Topology(partitions=3))

        runtimes, _ = await start_replicas(url, database_url, 1)
        await drained("the second third folded")
        await stop(runtimes)
        code, out, err = await set_count(3)
        assert (code, err) == (0, ""), err
        assert "summarizer partitions: 1 -> 3" in out
        assert "deleted: summarizer-fold, summarizer-requests" in out
        names = {c.name for s in (STREAM_ENRICHED, STREAM_REPORTS) for c in await consumers(js, s)}
        assert names == {
            f"summarizer-{kind}-{i}-of-3" for kind in ("fold", "requests") for i in range(3)
        }
        assert (await set_count(3))[:2] == (0, "the summarizer is already partitioned 3 way(s)\n")

        summaries, _ = await in_process_run(url, database_url, COUNT, slice(2, None, 3))
        assert summaries == expected

        out, err = io.StringIO(), io.StringIO()
        repo = REPOS[7]
        code = await asyncio.to_thread(partitions_command, url, None, [repo], out=out, err=err)
        shown = out.getvalue()
        assert code == 0 and shown.startswith("summarizer partitions: 3\n"), shown
        assert "RD_ENRICHED summarizer-fold-2-of-3: 0 to fold, 0 unacknowledged" in shown
        p = partition_of(repo, 3)
        assert f"  {repo}: partition {p} (summarizer-fold-{p}-of-3)" in shown
    finally:
        await stop([r for r in runtimes if r.connected])
        await nc.close()


async def consumers(js, stream: str) -> list:
    return await js.consumers_info(stream)


async def test_a_change_cut_short_between_the_streams_is_finished_by_the_next_set(nats_server):
    from nats.js.api import SubjectTransform

    from services.summarizer.partitioning import repartition
    from shared.messaging.partitions import transform_destinations

    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_topology(js, Topology())
        # as if `--set 3` stopped after RD_ENRICHED: its transform for 3, RD_REPORTS's none
        config = (await js.stream_info(STREAM_ENRICHED)).config
        src, dest = transform_destinations(3)[STREAM_ENRICHED]
        config.subject_transform = SubjectTransform(src=src, dest=dest)
        await js.update_stream(config)
        with pytest.raises(PartitionMismatch, match="RD_REPORTS is partitioned for 1 summar"):
            await ensure_topology(js, Topology(partitions=3))
        result = await repartition(js, 3)
        assert (result.before, result.after, result.deleted) == (3, 3, [])
        assert sorted(result.created) == sorted(
            f"summarizer-{kind}-{i}-of-3" for kind in ("fold", "requests") for i in range(3)
        )
        await ensure_topology(js, Topology(partitions=3))  # every stream agrees now
        assert (await repartition(js, 3)).created == []  # and a repeat changes nothing
    finally:
        await nc.close()
