"""The README's consumer promises, each on a real nats-server and counted by what handlers saw:

- a transient failure is retried up to the consumer's `max_deliver`, then dead-lettered with
  "gave up after N deliveries", the original bytes and the Rd-Dead-Subject/-Stream/-Sequence
  headers: exactly `max_deliver` deliveries, not one more, not one fewer;
- on shutdown what was delivered but not handled is handed back at once (nak), so another replica
  gets it well before `ack_wait` (60 s here; the test waits 20 s at most);
- N replicas share one durable consumer: each gets part of the work, together exactly all of it.

Every wait ends on a positive signal: a dead letter or the server's max-deliveries advisory, a
later marker message handled, the consumer's own counters."""

from __future__ import annotations

import asyncio

import nats
import pytest

import shared.events as ev
from shared.config import CommonSettings
from shared.messaging import (
    STREAM_DEAD,
    STREAM_GITHUB,
    Consumer,
    ConsumerSpec,
    Subjects,
    ensure_topology,
)
from shared.service import Runtime
from tests.integration.bus.test_topology_and_consumer import REPO, fact
from tests.signals import AckWatch, Signal, signalled

SUBJECT = Subjects.fact("pull_request", "opened", REPO)


class Replica:
    """One service process's worth: a Runtime with one durable consumer on `spec`."""

    def __init__(self, url: str, spec: ConsumerSpec, handle, name: str) -> None:
        self.runtime = Runtime(CommonSettings(nats_url=url), name)
        self.consumer = Consumer(
            self.runtime.bus("test"), spec, ev.GITHUB_EVENT_ADAPTER.validate_json, handle
        )
        consumer = self.consumer

        class _Svc:
            name = "test"
            consumers = ()  # the durable is the test's, created before the replicas start
            register = consumer.register

            async def start(self) -> None: ...

            async def stop(self) -> None: ...

        self.runtime.add(_Svc())


@pytest.fixture
async def plain():
    """A plain client for the test's own publishing and inspection, with the topology and the
    test's durable (`await plain(url, spec)`)."""
    opened: list = []

    async def connect(url: str, spec: ConsumerSpec):
        nc = await nats.connect(url)
        opened.append(nc)
        js = nc.jetstream()
        await ensure_topology(js, consumers=())
        await js.add_consumer(spec.stream, config=spec.config())
        return nc, js

    yield connect
    for nc in opened:
        await nc.close()


@pytest.fixture
async def replicas():
    started: list[Replica] = []

    async def start(replica: Replica) -> Replica:
        await replica.runtime.start()
        started.append(replica)
        return replica

    yield start
    for replica in started:
        await replica.runtime.stop()


async def publish(js, n: int) -> tuple[ev.GithubFact, int]:
    f = fact(n)
    ack = await js.publish(SUBJECT, f.to_bytes(), headers={"Nats-Msg-Id": f.id})
    return f, ack.seq


async def test_gives_up_after_exactly_max_deliver_deliveries(nats_server, plain, replicas):
    spec = ConsumerSpec("test-give-up", STREAM_GITHUB, "rd.github.>", max_deliver=3)
    nc, js = await plain(nats_server.url, spec)
    deliveries: dict[int, int] = {}
    marker_done = asyncio.Event()

    async def handle(event) -> None:
        number = event.data.item.number
        deliveries[number] = deliveries.get(number, 0) + 1
        if number == 1:
            raise ConnectionError("the database is restarting")
        marker_done.set()

    # what ends the wait: the code parks it (a dead letter), or the server stops redelivering
    # because the code never gave up (JetStream's max-deliveries advisory)
    outcome: asyncio.Queue = asyncio.Queue()

    async def on_letter(msg) -> None:
        await outcome.put(("dead letter", msg))

    async def on_advisory(msg) -> None:
        await outcome.put(("server gave up", msg))

    # the letter as RD_DEAD stored it (not as published: the stream stores after it routes)
    await js.subscribe(Subjects.dead("test"), cb=on_letter, ordered_consumer=True)
    await nc.subscribe(
        f"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.{spec.stream}.{spec.durable}", cb=on_advisory
    )
    await nc.flush()
    acks = await AckWatch.start(nc, spec.stream, spec.durable)
    failing, seq = await publish(js, 1)
    await replicas(Replica(nats_server.url, spec, handle, "give-up"))

    what, letter = await asyncio.wait_for(outcome.get(), 60)
    assert what == "dead letter", f"the consumer never gave up ({deliveries.get(1)} deliveries)"
    assert deliveries[1] == spec.max_deliver  # not one fewer
    assert letter.data == failing.to_bytes()  # the original bytes
    h = letter.headers
    assert h["Rd-Dead-Reason"].startswith(f"gave up after {spec.max_deliver} deliveries: "), h
    assert "the database is restarting" in h["Rd-Dead-Reason"]
    assert (h["Rd-Dead-Subject"], h["Rd-Dead-Stream"], h["Rd-Dead-Sequence"]) == (
        SUBJECT,
        STREAM_GITHUB,
        str(seq),
    )
    assert h["Rd-Dead-Deliveries"] == str(spec.max_deliver)
    assert h["Rd-Dead-Event-Id"] == failing.id  # the message's own Nats-Msg-Id
    # the bytes as they came, and one letter per stream message (JetStream's de-duplication id)
    assert h["content-type"] == "application/octet-stream"
    assert h["Nats-Msg-Id"] == f"dead:{STREAM_GITHUB}:{seq}"
    assert letter.metadata.stream == STREAM_DEAD

    # not one more: a marker published after it is handled, and then nothing is outstanding
    await publish(js, 2)
    await asyncio.wait_for(marker_done.wait(), 30)
    await acks.drained(js, 2, 30, "the marker acknowledged and the failing message terminated")
    assert acks.sequences.get("term") == [seq]  # terminated once, never acknowledged
    assert deliveries == {1: spec.max_deliver, 2: 1}


async def test_stop_hands_back_what_was_delivered_but_not_handled(nats_server, plain, replicas):
    # one message a batch, three requested ahead: while the first is in hand the next two wait
    # in the stopping replica's buffer; ack_wait is long, so only a nak brings them back soon
    spec = ConsumerSpec(
        "test-hand-back", STREAM_GITHUB, "rd.github.>", batch_size=1, ahead=3, ack_wait=60.0
    )
    nc, js = await plain(nats_server.url, spec)
    # the replica's pull requests, seen on their way to the server: which inbox it asks for
    inboxes: asyncio.Queue[str] = asyncio.Queue()

    async def on_request(msg) -> None:
        await inboxes.put(msg.reply)

    await nc.subscribe(f"$JS.API.CONSUMER.MSG.NEXT.{spec.stream}.{spec.durable}", cb=on_request)
    await nc.flush()
    acks = await AckWatch.start(nc, spec.stream, spec.durable)
    await publish(js, 1)

    first: list[int] = []
    holding, release = asyncio.Event(), asyncio.Event()

    async def slow(event) -> None:
        first.append(event.data.item.number)
        holding.set()
        await release.wait()

    a = await replicas(Replica(nats_server.url, spec, slow, "hand-back-a"))
    await asyncio.wait_for(holding.wait(), 30)
    # 1 in hand, two requests outstanding: what the server sends on them is seen here too
    inbox = await signalled(inboxes.get(), 30, "the first replica's pull request")
    delivered: list[bytes] = []
    arrived = Signal()

    async def on_delivery(msg) -> None:
        if not (msg.headers or {}).get("Status"):
            delivered.append(msg.data)
            arrived.notify()

    await nc.subscribe(inbox, cb=on_delivery)
    await nc.flush()
    for n in (2, 3, 4):
        await publish(js, n)
    await arrived.until(
        lambda: len(delivered) >= 2, 30, "messages 2 and 3 to be delivered to the first replica"
    )
    await a.runtime.nc.flush()  # ... and to have reached it

    stopping = asyncio.create_task(a.consumer.stop())
    release.set()  # the batch in hand finishes (and is acknowledged) during the stop
    await stopping
    assert first == [1]

    second: list[int] = []
    all_three = asyncio.Event()

    async def quick(event) -> None:
        second.append(event.data.item.number)
        if {2, 3, 4} <= set(second):
            all_three.set()

    await replicas(Replica(nats_server.url, spec, quick, "hand-back-b"))
    # handed back at once: well within the 60 s ack_wait (without the nak they come after it)
    await asyncio.wait_for(all_three.wait(), 20)
    assert sorted(second) == [2, 3, 4]  # 1 was acknowledged by the first replica
    await acks.drained(js, 4, 30, "every message acknowledged")
    assert acks.counts["nak"] >= 2  # 2 and 3 were handed back, not left to ack_wait
    # deliveries in all: 1, 2, 3 to the first replica, 2, 3 (again) and 4 to the second
    assert (await js.consumer_info(spec.stream, spec.durable)).delivered.consumer_seq == 6


async def test_replicas_share_one_durable_consumer(nats_server, plain, replicas):
    spec = ConsumerSpec("test-replicas", STREAM_GITHUB, "rd.github.>", batch_size=10, ahead=1)
    nc, js = await plain(nats_server.url, spec)
    total = 90
    handled: dict[str, list[int]] = {}
    everything = asyncio.Event()

    def handler(name: str):
        handled[name] = []

        async def handle(event) -> None:
            handled[name].append(event.data.item.number)
            if sum(len(v) for v in handled.values()) >= total:
                everything.set()

        return handle

    # each replica's pull requests, seen as the server receives them (by the inbox they ask for)
    asking: set[str] = set()
    asked = Signal()

    async def on_request(msg) -> None:
        asking.add(msg.reply)
        asked.notify()

    await nc.subscribe(f"$JS.API.CONSUMER.MSG.NEXT.{spec.stream}.{spec.durable}", cb=on_request)
    await nc.flush()
    acks = await AckWatch.start(nc, spec.stream, spec.durable)
    for name in ("r1", "r2", "r3"):
        await replicas(Replica(nats_server.url, spec, handler(name), f"replica-{name}"))
    await asked.until(lambda: len(asking) >= 3, 30, "three replicas asking for messages")
    for n in range(1, total + 1):
        await publish(js, n)
    await asyncio.wait_for(everything.wait(), 60)
    await acks.drained(js, total, 30, "every message acknowledged")
    assert all(handled[name] for name in handled), {k: len(v) for k, v in handled.items()}
    together = sorted(n for numbers in handled.values() for n in numbers)
    assert together == list(range(1, total + 1))  # all of it, each once
    # and the server delivered each once (a redelivery would count here too)
    assert (await js.consumer_info(spec.stream, spec.durable)).delivered.consumer_seq == total


async def test_a_message_is_parked_once_however_often_parking_is_retried(
    nats_server, plain, replicas
):
    """Parking is retried when its publish is not acknowledged (or a crash redelivers the
    message): a message with a stream position makes one dead letter; letters without one (a
    message that never was in a stream) are each kept."""
    spec = ConsumerSpec("test-park", STREAM_GITHUB, "rd.github.>")
    nc, js = await plain(nats_server.url, spec)

    async def handle(event) -> None: ...

    replica = await replicas(Replica(nats_server.url, spec, handle, "park"))
    bus = replica.runtime.bus("test")
    at = fact(1).time
    placed = ev.DeadLetter(
        service="test",
        reason="poison",
        subject=SUBJECT,
        stream=STREAM_GITHUB,
        sequence=7,
        deliveries=1,
        failed_at=at,
    )
    unplaced = ev.DeadLetter(service="test", reason="poison", subject=SUBJECT, failed_at=at)
    for letter in (placed, placed, unplaced, unplaced):
        await bus.dead_letter(b"raw bytes", letter)
    stored = []
    for seq in range(1, (await js.stream_info(STREAM_DEAD)).state.last_seq + 1):
        msg = await js.get_msg(STREAM_DEAD, seq)
        stored.append(
            (
                msg.data,
                (msg.headers or {}).get("Rd-Dead-Sequence"),
                (msg.headers or {}).get("Nats-Msg-Id"),
            )
        )
    assert stored == [
        (b"raw bytes", "7", f"dead:{STREAM_GITHUB}:7"),
        (b"raw bytes", None, None),
        (b"raw bytes", None, None),
    ]
