"""A consumer's idle work (`Consumer(idle_work=…)`, the summarizer's per-item results worked out
while its fold rests), on a real nats-server: a step runs only when no message is in hand or
delivered and waiting, and the work left is done once the messages are."""

from __future__ import annotations

import pytest

import shared.events as ev
from shared.config import CommonSettings
from shared.messaging import STREAM_GITHUB, Consumer, ConsumerSpec
from shared.service import Runtime
from tests.integration.bus.test_consumer_promises import plain, publish  # noqa: F401 (fixture)
from tests.signals import Signal

MESSAGES = 12
UNITS = 3  # idle work each handled message leaves


class Work:
    """Units of idle work; each step does one and records what the consumer had then."""

    def __init__(self) -> None:
        self.left = 0
        self.steps: list[tuple[int, bool]] = []  # (messages delivered and waiting, one in hand)
        self.consumer: Consumer | None = None
        self.in_hand = False
        self.changed = Signal()

    @property
    def pending(self) -> bool:
        return self.left > 0

    async def step(self) -> None:
        assert self.consumer is not None and self.consumer._pull is not None
        self.steps.append((self.consumer._pull.buffered, self.in_hand))
        self.left -= 1
        self.changed.notify()


@pytest.fixture
async def runtime_with(nats_server):
    started: list[Runtime] = []

    async def start(spec: ConsumerSpec, handle, work: Work) -> Consumer:
        runtime = Runtime(CommonSettings(nats_url=nats_server.url), "idle-work")
        consumer = Consumer(
            runtime.bus("test"),
            spec,
            ev.GITHUB_EVENT_ADAPTER.validate_json,
            handle,
            idle_work=work,
        )
        work.consumer = consumer

        class _Svc:
            name = "test"
            consumers = ()
            register = consumer.register

            async def start(self) -> None: ...

            async def stop(self) -> None: ...

        runtime.add(_Svc())
        await runtime.start()
        started.append(runtime)
        return consumer

    yield start
    for runtime in started:
        await runtime.stop()


async def test_idle_work_never_goes_before_a_delivered_message(nats_server, plain, runtime_with):  # noqa: F811
    # one message per batch, several asked ahead: messages wait in the buffer between batches
    spec = ConsumerSpec("test-idle-work", STREAM_GITHUB, "rd.github.>", batch_size=1, ahead=4)
    _nc, js = await plain(nats_server.url, spec)
    for n in range(1, MESSAGES + 1):
        await publish(js, n)
    work = Work()
    handled: list[int] = []

    async def handle(event) -> None:
        work.in_hand = True
        handled.append(event.data.item.number)
        work.left += UNITS  # what folding it leaves to work out
        work.changed.notify()
        work.in_hand = False

    await runtime_with(spec, handle, work)
    await work.changed.until(
        lambda: len(handled) == MESSAGES and not work.pending,
        60,
        "every message handled and the idle work done",
    )
    assert handled == list(range(1, MESSAGES + 1))
    assert len(work.steps) == MESSAGES * UNITS  # all of it, once
    # never while a message was in hand or delivered and waiting
    assert all(waiting == 0 and not in_hand for waiting, in_hand in work.steps), work.steps


async def test_a_message_arriving_while_work_is_left_is_handled_first(
    nats_server,
    plain,  # noqa: F811
    runtime_with,
):
    spec = ConsumerSpec("test-idle-first", STREAM_GITHUB, "rd.github.>", batch_size=8)
    _nc, js = await plain(nats_server.url, spec)
    work = Work()
    handled: list[tuple[int, int]] = []  # (number, idle steps done before it)

    async def handle(event) -> None:
        handled.append((event.data.item.number, len(work.steps)))
        work.changed.notify()

    await runtime_with(spec, handle, work)
    work.left = 10_000  # more idle work than the test will ever let it do
    await work.changed.until(lambda: len(work.steps) >= 5, 30, "the idle work under way")
    await publish(js, 1)
    await work.changed.until(lambda: len(handled) == 1, 30, "the new message handled")
    # handled between two steps: the work did not have to be finished first
    assert work.left > 0
    number, steps_before = handled[0]
    assert number == 1 and steps_before < 10_000
