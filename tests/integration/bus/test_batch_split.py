"""A batch that holds poison is split in stream order (real nats-server): the poison alone is
dead-lettered, every good event is handled once and in order, and a transient failure of a part
sends everything after it back too, so nothing is handled ahead of what it follows."""

from __future__ import annotations

import asyncio

import nats

import shared.events as ev
from shared.bus import (
    CONSUMERS, DURABLE_CLASSIFIER, STREAM_DEAD, Consumer, Poison, Subjects, ensure_topology,
)
from shared.config import CommonSettings
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
        if 10 in numbers:
            done.set()

    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    await ensure_topology(js)
    for n in range(1, 11):  # all in the stream before consuming starts: one batch
        f = fact(n)
        await js.publish(Subjects.fact("pull_request", "opened", REPO), f.to_bytes(),
                         headers={"Nats-Msg-Id": f.id})
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "test")
    consumer = Consumer(runtime.bus("test"), CONSUMERS[DURABLE_CLASSIFIER],
                        ev.GITHUB_EVENT_ADAPTER.validate_json, handle_batch=handle_batch)

    class _Svc:
        name = "test"
        consumers = (DURABLE_CLASSIFIER,)
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
                assert after == refused[:len(refused) // 2], calls
        assert [7] in calls
        # 3 failed transiently: nothing after it was handled before it came back, each good
        # event once, in stream order
        assert handled == [1, 2, 3, 4, 5, 6, 8, 9, 10]
        assert consumer.stats.dead == 1
        info = await js.stream_info(STREAM_DEAD)
        letter = await js.get_msg(STREAM_DEAD, info.state.last_seq)
        assert letter.headers["Rd-Dead-Reason"] == "number 7 cannot be stored"
        assert ev.GITHUB_EVENT_ADAPTER.validate_json(letter.data).data.item.number == 7
    finally:
        await runtime.stop()
        await nc.close()
