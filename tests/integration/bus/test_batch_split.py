"""A batch that holds poison is split in stream order (real nats-server): the poison alone is
dead-lettered, every good event is handled once and in order, and a transient failure of a part
sends everything after it back too, so nothing is handled ahead of what it follows."""

from __future__ import annotations

import asyncio

import nats

import shared.events as ev
from services.classifier.messaging import CONSUMER as CLASSIFIER
from services.registry import consumers as all_consumers
from shared.config import CommonSettings
from shared.messaging import (
    STREAM_DEAD,
    STREAM_GITHUB,
    Consumer,
    ConsumerSpec,
    Poison,
    Subjects,
    ensure_topology,
)
from shared.service import Runtime
from tests.integration.bus.test_topology_and_consumer import REPO, fact


async def test_poison_is_isolated_and_a_transient_failure_holds_back_what_follows(nats_server):
    handled: list[int] = []  # numbers of batches that were handled, in order
    calls: list[list[int]] = []
    failed_once: set[int] = set()
    done = asyncio.Event()

    async def handle_batch(events) -> None:
        numbers = [e.data.item.number for e in events]
        calls.append(numbers)
        if 7 in numbers:
            raise Poison("number 7 cannot be stored")
        if 3 in numbers and 3 not in failed_once:
            failed_once.add(3)
            raise ConnectionError("the database went away")
        handled.extend(numbers)
        if 10 in handled and dead_lettered.is_set():
            done.set()

    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    await ensure_topology(js, consumers=all_consumers())
    # the run is over when the last event is handled and the poison is dead-lettered, in either
    # order (a loaded machine may deliver 8-10 by a second pull before 7 is isolated)
    dead_lettered = asyncio.Event()

    async def on_dead(_msg) -> None:
        dead_lettered.set()
        if 10 in handled:
            done.set()

    await nc.subscribe(Subjects.dead("test"), cb=on_dead)
    for n in range(1, 11):  # all in the stream before consuming starts: one batch
        f = fact(n)
        await js.publish(
            Subjects.fact("pull_request", "opened", REPO),
            f.to_bytes(),
            headers={"Nats-Msg-Id": f.id},
        )
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "test")
    consumer = Consumer(
        runtime.bus("test"),
        CLASSIFIER,
        ev.GITHUB_EVENT_ADAPTER.validate_json,
        handle_batch=handle_batch,
    )

    class _Svc:
        name = "test"
        consumers = (CLASSIFIER,)
        register = consumer.register

        async def start(self) -> None: ...

        async def stop(self) -> None: ...

    runtime.add(_Svc())
    await runtime.start()
    try:
        await asyncio.wait_for(done.wait(), 30)
        # the batches are what had reached the consumer when it asked (usually all ten at
        # once, sometimes fewer): the checks hold for any split the server's delivery made
        assert sorted({n for call in calls for n in call}) == list(range(1, 11))
        # a batch refused as poison is handled in halves at once, the first half first, until
        # the poison is alone
        for refused, after in zip(calls, calls[1:]):
            if 7 in refused and len(refused) > 1:
                assert after == refused[: len(refused) // 2], calls
        assert [7] in calls
        # 3 failed transiently: each good event handled once; nothing after it in its delivery
        # was handled before it came back, so when all ten came at once (as usual) they were
        # handled in stream order (a loaded machine may deliver 8-10 by the next pull, which
        # is not held back: done waits for both the last event and the isolated poison)
        assert sorted(handled) == [1, 2, 3, 4, 5, 6, 8, 9, 10] and len(set(handled)) == len(handled)
        if calls[0] == list(range(1, 11)):
            assert handled == [1, 2, 3, 4, 5, 6, 8, 9, 10]
        else:
            first = calls[0]
            assert [n for n in handled if n in first] == [n for n in first if n != 7]
        assert consumer.stats.dead == 1
        info = await js.stream_info(STREAM_DEAD)
        letter = await js.get_msg(STREAM_DEAD, info.state.last_seq)
        assert letter.headers["Rd-Dead-Reason"] == "number 7 cannot be stored"
        assert ev.GITHUB_EVENT_ADAPTER.validate_json(letter.data).data.item.number == 7
    finally:
        await runtime.stop()
        await nc.close()


async def _consume(url: str, spec, handle_batch, n: int):
    """Publish facts 1..n, then start a runtime whose one consumer on `spec` handles batches."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    await ensure_topology(js, consumers=all_consumers())
    if spec.durable not in {c.durable for c in all_consumers()}:
        await js.add_consumer(spec.stream, config=spec.config())
    for number in range(1, n + 1):
        f = fact(number)
        await js.publish(
            Subjects.fact("pull_request", "opened", REPO),
            f.to_bytes(),
            headers={"Nats-Msg-Id": f.id},
        )
    runtime = Runtime(CommonSettings(nats_url=url), "test")
    consumer = Consumer(
        runtime.bus("test"), spec, ev.GITHUB_EVENT_ADAPTER.validate_json, handle_batch=handle_batch
    )

    class _Svc:
        name = "test"
        consumers = (spec,) if spec.durable in {c.durable for c in all_consumers()} else ()
        register = consumer.register

        async def start(self) -> None: ...

        async def stop(self) -> None: ...

    runtime.add(_Svc())
    await runtime.start()
    return nc, js, runtime, consumer


async def test_poison_alone_costs_the_good_events_no_redelivery(nats_server):
    """Isolating two poison messages handles every good event on its first delivery: none is
    sent back (held or retried), each is counted processed once, each poison dead once."""
    handled: list[int] = []
    done = asyncio.Event()

    async def handle_batch(events) -> None:
        numbers = [e.data.item.number for e in events]
        if 5 in numbers or 7 in numbers:
            raise Poison("numbers 5 and 7 cannot be stored")
        handled.extend(numbers)
        if 8 in numbers:
            done.set()

    nc, js, runtime, consumer = await _consume(nats_server.url, CLASSIFIER, handle_batch, 8)
    try:
        await asyncio.wait_for(done.wait(), 30)
        assert handled == [1, 2, 3, 4, 6, 8]
        assert (consumer.stats.processed, consumer.stats.dead, consumer.stats.retried) == (6, 2, 0)
    finally:
        await runtime.stop()
        await nc.close()


async def test_a_transient_failure_beside_poison_holds_back_everything_after_it(nats_server):
    """1 fails once (transiently) in the same half as the poison 2: 1 and everything after it
    comes back, so 3 and 4 (which the split reaches next) are not handled ahead of 1; the events
    held back say why."""
    handled: list[int] = []
    failed = asyncio.Event()
    done = asyncio.Event()
    last_error: list[str | None] = []

    async def handle_batch(events) -> None:
        numbers = [e.data.item.number for e in events]
        if 2 in numbers:
            raise Poison("number 2 cannot be stored")
        if numbers == [1] and not failed.is_set():
            failed.set()
            raise ConnectionError("the database went away")
        if numbers[0] == 1 and failed.is_set() and not last_error:
            last_error.append(consumer.stats.last_error)  # what the held-back events were told
        handled.extend(numbers)
        if 8 in numbers:
            done.set()

    nc, js, runtime, consumer = await _consume(nats_server.url, CLASSIFIER, handle_batch, 8)
    try:
        await asyncio.wait_for(done.wait(), 30)
        assert handled == [1, 3, 4, 5, 6, 7, 8]  # stream order, each once
        assert len(last_error) == 1 and last_error[0].endswith(
            "held back behind an earlier event that is being retried"
        ), last_error
    finally:
        await runtime.stop()
        await nc.close()


async def test_a_batch_that_keeps_failing_is_given_up_with_its_reason(nats_server):
    spec = ConsumerSpec("test-batch-give-up", STREAM_GITHUB, "rd.github.>", max_deliver=2)
    calls = 0

    async def handle_batch(events) -> None:
        nonlocal calls
        calls += 1
        raise ConnectionError("the database went away")

    nc, js, runtime, consumer = await _consume(nats_server.url, spec, handle_batch, 1)
    try:
        letters = await js.pull_subscribe(Subjects.dead("test"), stream=STREAM_DEAD)
        letter = (await letters.fetch(1, timeout=30))[0]
        reason = letter.headers["Rd-Dead-Reason"]
        assert reason.startswith("gave up after 2 deliveries: ") and reason.endswith(
            "the database went away"
        ), reason
        assert calls == 2
    finally:
        await runtime.stop()
        await nc.close()
