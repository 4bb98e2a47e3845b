"""`shared.messaging.pull.StreamingPull` on a real nats-server: stream order across many batches, a lone
message handed over without waiting for a batch to fill, requests renewed after they expire,
consumption resuming after a server restart, unhandled messages handed back at stop, and a
deleted consumer reported instead of asked for in a tight loop."""

from __future__ import annotations

import nats
import pytest
from nats.js.api import AckPolicy, ConsumerConfig

from shared.messaging.pull import StreamingPull
from tests.signals import AckWatch, Reconnects, Signal

STREAM = "PULLTEST"


@pytest.fixture
async def connections():
    """Closes what a test opened even when it fails (a client left reconnecting to a stopped
    server would outlive the test)."""
    opened: list = []
    yield opened
    for nc in opened:
        await nc.close()


@pytest.fixture
def reconnects() -> Reconnects:
    """The reconnections of the connection `setup` opens."""
    return Reconnects()


@pytest.fixture
def setup(connections, reconnects):
    async def make(url: str, durable: str = "d", ack_wait: float = 60.0):
        nc = await nats.connect(
            url,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.2,
            reconnected_cb=reconnects.on_reconnected,
        )
        connections.append(nc)
        js = nc.jetstream()
        await js.add_stream(name=STREAM, subjects=["pt.>"])
        await js.add_consumer(
            STREAM,
            ConsumerConfig(
                durable_name=durable,
                ack_policy=AckPolicy.EXPLICIT,
                ack_wait=ack_wait,
                max_ack_pending=10_000,
            ),
        )
        return nc, js

    return make


async def drain(pull: StreamingPull, n: int, timeout: float = 10.0) -> list:
    got: list = []
    while len(got) < n:
        msgs = await pull.next(timeout=timeout)
        assert msgs, f"stalled after {len(got)} of {n} messages"
        assert len(msgs) <= pull.batch
        for m in msgs:
            await m.ack()
        got += msgs
    return got


async def test_stream_order_across_batches(nats_server, setup):
    nc, js = await setup(nats_server.url)
    pull = StreamingPull(nc, STREAM, "d", batch=50)
    await pull.start()
    acks = await AckWatch.start(nc, STREAM, "d")
    for i in range(1_000):
        await js.publish("pt.x", str(i).encode())
    got = await drain(pull, 1_000)
    assert [int(m.data) for m in got] == list(range(1_000))
    # every ack seen on its way to the server, then the consumer's state says the same
    info = await acks.drained(js, 1_000, 10, "every message to be acknowledged")
    assert info.delivered.consumer_seq == 1_000  # each delivered once
    await pull.stop()


async def test_a_lone_message_is_handed_over_at_once(nats_server, setup):
    nc, js = await setup(nats_server.url)
    # a batch of 256 that the server could only fill by waiting for its 30 s expiry
    pull = StreamingPull(nc, STREAM, "d", batch=256, expires=30.0)
    await pull.start()
    assert await pull.next(timeout=0.2) == []  # nothing yet: the requests are outstanding
    await js.publish("pt.x", b"alone")
    msgs = await pull.next(timeout=5)  # well before the requests' 30 s expiry
    assert [m.data for m in msgs] == [b"alone"]
    await msgs[0].ack()
    await pull.stop()


async def test_requests_are_renewed_after_they_expire(nats_server, setup):
    nc, js = await setup(nats_server.url)
    pull = StreamingPull(nc, STREAM, "d", batch=10, expires=0.3, grace=0.5)
    await pull.start()
    assert await pull.next(timeout=0.1) == []
    # the server expires those requests (408); the next calls ask again
    for _ in range(4):
        assert await pull.next(timeout=0.4) == []
    await js.publish("pt.x", b"late")
    msgs = await pull.next(timeout=5)
    assert [m.data for m in msgs] == [b"late"]
    await msgs[0].ack()
    await pull.stop()


async def test_consumption_resumes_after_a_server_restart(nats_server, setup, reconnects):
    nc, js = await setup(nats_server.url)
    pull = StreamingPull(nc, STREAM, "d", batch=20, expires=30.0)
    await pull.start()
    for i in range(30):
        await js.publish("pt.x", str(i).encode())
    first = await drain(pull, 30)
    before = reconnects.count
    await nats_server.restart()
    await reconnects.beyond(before, 30, "the client to reconnect")
    assert nc.is_connected
    # the old requests (30 s expiry) died with the server: new ones must be asked for now
    for i in range(30, 40):
        await js.publish("pt.x", str(i).encode())
    second = await drain(pull, 10)
    assert [int(m.data) for m in first + second] == list(range(40))
    await pull.stop()


async def test_stop_hands_back_what_was_not_taken(nats_server, setup):
    nc, js = await setup(nats_server.url, ack_wait=120.0)
    pull = StreamingPull(nc, STREAM, "d", batch=5)
    await pull.start()
    # the deliveries, seen by a second subscription to the puller's inbox (same connection)
    delivered: list[bytes] = []
    arrived = Signal()

    async def on_delivery(msg) -> None:
        if not (msg.headers or {}).get("Status"):
            delivered.append(msg.data)
            arrived.notify()

    await nc.subscribe(pull._inbox, cb=on_delivery)
    await nc.flush()
    for i in range(10):
        await js.publish("pt.x", str(i).encode())
    taken = await pull.next(timeout=5)
    for m in taken:
        await m.ack()
    # the rest was requested ahead and delivered into the buffer
    await arrived.until(lambda: len(delivered) >= 10, 10, "the rest to be delivered")
    # this connection read them: stop() drains the puller's subscription through its buffer
    left = await pull.stop()
    assert [int(m.data) for m in taken + left] == list(range(10))
    for m in left:
        await m.nak()
    # handed back: a new puller gets them at once, not after the 120 s ack_wait
    again = StreamingPull(nc, STREAM, "d", batch=20)
    await again.start()
    redelivered = await drain(again, len(left), timeout=10)
    assert sorted(int(m.data) for m in redelivered) == [int(m.data) for m in left]
    await again.stop()


async def test_a_deleted_consumer_is_reported_not_hammered(nats_server, setup):
    nc, js = await setup(nats_server.url)
    pull = StreamingPull(nc, STREAM, "d", batch=10, expires=30.0)
    await pull.start()
    assert await pull.next(timeout=0.1) == []
    await js.delete_consumer(STREAM, "d")
    for _ in range(20):
        if pull.refused:
            break
        await pull.next(timeout=0.25)
    assert pull.refused and "deleted" in pull.refused.lower()
    await pull.stop()
