"""The in-memory bus (shared/messaging/testing.py) settles messages by the consumer's own rules
(shared/messaging/outcomes.py): ack, nak with backoff until max_deliver, poison alone
dead-lettered, later events held behind a transient failure, duplicates stored once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from faststream.nats import NatsRouter

import shared.events as ev
from shared.messaging import (
    STREAM_GITHUB,
    Consumer,
    ConsumerSpec,
    Poison,
    ServiceRouter,
    Subjects,
    backoff_seconds,
)
from shared.messaging.testing import MemoryBroker

REPO = "acme/memory"
T0 = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)
SPEC = ConsumerSpec("memory-test", STREAM_GITHUB, "rd.github.>", max_deliver=4, batch_size=16)


def fact(n: int) -> ev.GithubFact:
    item = ev.ItemSnapshot(
        repo=REPO,
        number=n,
        kind="pull_request",
        title=f"change {n}",
        author=ev.Actor(login="dev"),
        state="open",
        created_at=T0 + timedelta(minutes=n),
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="opened", item=item))


async def publish(broker: MemoryBroker, numbers) -> None:
    bus = broker.bus("ingest")
    for n in numbers:
        await bus.publish(fact(n), Subjects.fact("pull_request", "opened", REPO))


async def test_poison_alone_is_dead_and_a_transient_failure_holds_back_what_follows():
    broker = MemoryBroker()
    await publish(broker, range(1, 11))
    calls: list[list[int]] = []
    handled: list[int] = []
    failed_once: set[int] = set()

    async def handle_batch(events):
        numbers = [e.data.item.number for e in events]
        calls.append(numbers)
        if 7 in numbers:
            raise Poison("number 7 cannot be stored")
        if 3 in numbers and 3 not in failed_once:
            failed_once.add(3)
            raise ConnectionError("the database went away")
        handled.extend(numbers)

    consumer = Consumer(
        broker.bus("test"), SPEC, ev.GITHUB_EVENT_ADAPTER.validate_json, handle_batch=handle_batch
    )
    await broker.run(consumer)
    # the first half failed (3, transiently): it and everything after it came back, in stream
    # order; then the poison was halved down to 7 alone
    assert calls[:2] == [list(range(1, 11)), [1, 2, 3, 4, 5]]
    assert handled == [1, 2, 3, 4, 5, 6, 8, 9, 10]
    assert [7] in calls and consumer.stats.dead == 1
    (letter,) = broker.dead_letters("test")
    assert letter.headers["Rd-Dead-Reason"] == "number 7 cannot be stored"
    assert letter.headers["Nats-Msg-Id"] == f"dead:{STREAM_GITHUB}:7"
    assert ev.GITHUB_EVENT_ADAPTER.validate_json(letter.data).data.item.number == 7


async def test_a_failing_message_is_retried_with_backoff_then_dead_at_max_deliver():
    broker = MemoryBroker()
    await publish(broker, [1])
    attempts: list[float] = []

    async def handle(event):
        attempts.append(broker.now)
        raise TimeoutError("S3 does not answer")

    consumer = Consumer(
        broker.bus("test"), SPEC, ev.GITHUB_EVENT_ADAPTER.validate_json, handle=handle
    )
    await broker.run(consumer)
    assert len(attempts) == SPEC.max_deliver == 4
    # each retry after the backoff of its delivery: 0.5, 1, 2 s of virtual time
    gaps = [b - a for a, b in zip(attempts, attempts[1:])]
    assert gaps == [backoff_seconds(1), backoff_seconds(2), backoff_seconds(3)] == [0.5, 1.0, 2.0]
    assert consumer.stats.retried == 3 and consumer.stats.dead == 1
    (letter,) = broker.dead_letters("test")
    assert letter.headers["Rd-Dead-Reason"].startswith("gave up after 4 deliveries: TimeoutError")


async def test_an_undecodable_message_is_dead_the_others_are_handled():
    broker = MemoryBroker()
    await publish(broker, [1])
    broker.append(
        Subjects.fact("pull_request", "opened", REPO),
        b"\xff not json",
        {"Nats-Msg-Id": "garbage-1"},
    )
    await publish(broker, [2])
    seen: list[int] = []

    async def handle(event):
        seen.append(event.data.item.number)

    consumer = Consumer(
        broker.bus("test"), SPEC, ev.GITHUB_EVENT_ADAPTER.validate_json, handle=handle
    )
    await broker.run(consumer)
    assert seen == [1, 2] and consumer.stats.processed == 2
    (letter,) = broker.dead_letters("test")
    assert letter.data == b"\xff not json" and letter.headers["Rd-Dead-Reason"].startswith(
        "invalid event: "
    )


async def test_a_repeated_event_id_is_stored_once():
    broker = MemoryBroker()
    await publish(broker, [1, 1, 2])
    assert [m.seq for m in broker.messages("rd.github.>")] == [1, 2]
    # a later run of the same durable goes on from where it was
    seen: list[int] = []

    async def handle(event):
        seen.append(event.data.item.number)

    consumer = Consumer(
        broker.bus("test"), SPEC, ev.GITHUB_EVENT_ADAPTER.validate_json, handle=handle
    )
    await broker.run(consumer)
    await publish(broker, [3])
    await broker.run(consumer)
    assert seen == [1, 2, 3]


def test_a_consumer_registers_on_the_router_it_is_given():
    broker = MemoryBroker()
    consumer = Consumer(
        broker.bus("test"), SPEC, ev.GITHUB_EVENT_ADAPTER.validate_json, handle=lambda event: None
    )
    mine, other = ServiceRouter(), ServiceRouter()
    consumer.register(mine)
    assert mine.pull_consumers == [consumer] and other.pull_consumers == []
    with pytest.raises(TypeError, match="register on a shared.messaging.ServiceRouter"):
        consumer.register(NatsRouter())
