"""What the tests wait on instead of polling: a signal for every change a test waits for.

- `signalled(awaitable, timeout, what)`: a bounded wait that fails saying what was awaited.
- `Signal`: an observer: whoever changes some state calls `notify()`; `until(check)` re-checks a
  condition on each change (never on a clock).
- `AckWatch`: every ack, nak, term and in-progress the consumers of one durable send (each is a
  publish to the message's reply subject `$JS.ACK.<stream>.<durable>.…`, which a core
  subscription sees as it happens), with the stream sequences settled (acked or terminated).
- `DeliveryWatch`: the messages the server delivers to a durable's pullers.
- `StreamWatch`: the messages a stream stores, from an ordered consumer that starts after the
  last one stored when it subscribed (those before are counted from stream_info, read once).
- `Reconnects`: a NATS client's reconnections (its `reconnected_cb`).
- `ObservedSet`: a set that tells when it changes.
- `LineWatch`: the lines a child process writes to a pipe, read as they come.
- `LogWatch`: the records a logger of this process emits, as they are emitted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def signalled(awaitable: Awaitable[T], timeout: float, what: str) -> T:
    """`await awaitable`, failing with an AssertionError naming `what` after `timeout`."""
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}") from None


class Signal:
    """State that tells its waiters when it changed: `notify()` after each change;
    `until(check, …)` returns once `check()` is true (checked now and at each notify)."""

    def __init__(self) -> None:
        self._waiters: list[tuple[Callable[[], object], asyncio.Future]] = []

    def notify(self) -> None:
        for check, fut in list(self._waiters):
            if fut.done():
                continue
            try:
                if check():
                    fut.set_result(None)
            except Exception as exc:  # noqa: BLE001 - handed to the waiter
                fut.set_exception(exc)

    async def until(self, check: Callable[[], object], timeout: float, what: str) -> None:
        if check():
            return
        fut = asyncio.get_running_loop().create_future()
        entry = (check, fut)
        self._waiters.append(entry)
        try:
            await signalled(fut, timeout, what)
        finally:
            self._waiters.remove(entry)

    async def next(self, timeout: float, what: str) -> None:
        """The next notify, whatever changed."""
        fired = False

        def once() -> bool:
            nonlocal fired
            if fired:
                return True
            fired = True  # the first call is `until`'s own check, before any notify
            return False

        await self.until(once, timeout, what)


def _ack_kind(data: bytes) -> str:
    if data in (b"", b"+ACK") or data.startswith(b"+ACK"):
        return "ack"
    if data.startswith(b"-NAK"):
        return "nak"
    if data.startswith(b"+TERM"):
        return "term"
    if data.startswith(b"+WPI"):
        return "progress"
    return data.decode(errors="replace")


class _Subscribed:
    """A watch that holds one subscription until `stop()`."""

    _sub: Any = None

    async def stop(self) -> None:
        if self._sub is not None:
            sub, self._sub = self._sub, None
            try:
                await sub.unsubscribe()
            except Exception:  # noqa: BLE001 - a closed connection has no subscription left
                pass


class AckWatch(_Subscribed):
    """The acks, naks, terms and in-progress notes sent for one durable's messages.

    `counts` by kind ("ack", "nak", "term", "progress"); `settled`: the stream sequences acked or
    terminated (a message settled twice, e.g. redelivered after a crash, counts once);
    `sequences[kind]`: the stream sequences, in the order seen (repeats included)."""

    APPLY_LAG = 0.25  # seconds after the last ack seen before the consumer's state is asked again

    def __init__(self, stream: str, durable: str, changed: Signal | None = None) -> None:
        self.stream, self.durable = stream, durable
        self.subject = f"$JS.ACK.{stream}.{durable}.>"
        self.counts: Counter[str] = Counter()
        self.settled: set[int] = set()
        self.sequences: dict[str, list[int]] = {}
        self.highest = 0  # the highest stream sequence settled
        self.changed = changed if changed is not None else Signal()
        self._sub: Any = None

    @classmethod
    async def start(
        cls, nc: Any, stream: str, durable: str, changed: Signal | None = None
    ) -> AckWatch:
        """Watch from now on; `changed` (optional) is a signal shared with other watches."""
        watch = cls(stream, durable, changed)
        watch._sub = await nc.subscribe(watch.subject, cb=watch._on_ack)
        await nc.flush()  # the server has the subscription: no ack from now on is missed
        return watch

    async def _on_ack(self, msg: Any) -> None:
        kind = _ack_kind(msg.data)
        # $JS.ACK.<stream>.<durable>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>
        seq = int(msg.subject.split(".")[5])
        self.counts[kind] += 1
        self.sequences.setdefault(kind, []).append(seq)
        if kind in ("ack", "term"):
            self.settled.add(seq)
            self.highest = max(self.highest, seq)
        self.changed.notify()

    def seen(self) -> int:
        """How many acks, naks, terms and in-progress notes were seen so far."""
        return sum(self.counts.values())

    async def resync(self, js: Any) -> None:
        """Count as settled what the consumer's ack floor covers (read once): the acks sent
        while this watch's own connection was away (a broker restart) were not seen."""
        info = await js.consumer_info(self.stream, self.durable)
        floor = int(info.ack_floor.stream_seq or 0)
        self.settled.update(range(1, floor + 1))
        self.highest = max(self.highest, floor)
        self.changed.notify()

    async def until(self, check: Callable[[AckWatch], object], timeout: float, what: str) -> None:
        await self.changed.until(lambda: check(self), timeout, what)

    async def settled_at_least(self, n: int, timeout: float, what: str) -> None:
        await self.until(lambda w: len(w.settled) >= n, timeout, what)

    async def drained(self, js: Any, n: int, timeout: float, what: str) -> Any:
        """Wait until `n` distinct messages were settled, then confirm with the consumer's
        state that nothing is pending or unacknowledged. The server applies an ack just after
        routing it (its consumer queues them), and nothing tells when it has: the state is asked
        again after a further ack, term or nak, or after APPLY_LAG without one (the last acks
        of a run have no further ack behind them). Returns the last ConsumerInfo."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self.settled_at_least(n, timeout, what)
        while True:
            info = await js.consumer_info(self.stream, self.durable)
            if not info.num_pending and not info.num_ack_pending:
                return info
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(
                    f"timed out after {timeout:.0f}s waiting for {what}: {len(self.settled)} "
                    f"settled, {info.num_pending} pending, {info.num_ack_pending} unacknowledged"
                )
            with contextlib.suppress(AssertionError):  # no further ack: ask the server again
                await self.changed.next(
                    min(left, self.APPLY_LAG),
                    f"{what}: {info.num_pending} pending, {info.num_ack_pending} unacknowledged",
                )


class DeliveryWatch:
    """The messages the server delivers to one durable pull consumer, whoever pulls: each pull
    request (a publish to `$JS.API.CONSUMER.MSG.NEXT.<stream>.<durable>`) names the inbox it
    is answered on, and a second subscription to that inbox sees the deliveries. Start it before
    the consumers do: a delivery on a new inbox's first request can arrive before the watch
    subscribed to it. `delivered`: the stream sequences delivered (redeliveries once)."""

    def __init__(self, nc: Any, stream: str, durable: str, changed: Signal | None = None) -> None:
        self.nc, self.stream, self.durable = nc, stream, durable
        self.delivered: set[int] = set()
        self.inboxes: set[str] = set()
        self.changed = changed if changed is not None else Signal()
        self._ack_prefix = f"$JS.ACK.{stream}.{durable}."

    @classmethod
    async def start(
        cls, nc: Any, stream: str, durable: str, changed: Signal | None = None
    ) -> DeliveryWatch:
        watch = cls(nc, stream, durable, changed)
        await nc.subscribe(f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{durable}", cb=watch._on_request)
        await nc.flush()
        return watch

    async def _on_request(self, msg: Any) -> None:
        if msg.reply and msg.reply not in self.inboxes:
            self.inboxes.add(msg.reply)
            await self.nc.subscribe(msg.reply, cb=self._on_delivery)

    async def _on_delivery(self, msg: Any) -> None:
        if msg.reply and msg.reply.startswith(self._ack_prefix):  # not a status message
            self.delivered.add(int(msg.reply.split(".")[5]))
            self.changed.notify()


class StreamWatch(_Subscribed):
    """How many messages a stream holds, told as each new one is stored: `messages` (those at
    subscription time from stream_info, then +1 per new one, deduplicated repeats never arrive)
    and `subjects`, the subjects of the new ones in order."""

    def __init__(self, stream: str, changed: Signal | None = None) -> None:
        self.stream = stream
        self.messages = 0
        self.last_seq = 0
        self.subjects: list[str] = []
        self.changed = changed if changed is not None else Signal()
        self._sub: Any = None

    @classmethod
    async def start(cls, js: Any, stream: str, changed: Signal | None = None) -> StreamWatch:
        from nats.js.api import ConsumerConfig, DeliverPolicy

        watch = cls(stream, changed)
        info = await js.stream_info(stream)
        watch.messages, watch.last_seq = int(info.state.messages), int(info.state.last_seq)
        subjects = list(info.config.subjects or [])
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=watch.last_seq + 1,
            headers_only=True,
        )
        if len(subjects) > 1:
            config.filter_subjects = subjects
        watch._sub = await js.subscribe(
            subjects[0] if len(subjects) == 1 else "",
            stream=stream,
            ordered_consumer=True,
            config=config,
            cb=watch._on_message,
        )
        return watch

    async def _on_message(self, msg: Any) -> None:
        seq = int(msg.metadata.sequence.stream)
        if seq <= self.last_seq:
            return  # an ordered consumer's restart may repeat what it already delivered
        self.last_seq = seq
        self.messages += 1
        self.subjects.append(msg.subject)
        self.changed.notify()

    async def until(
        self, check: Callable[[StreamWatch], object], timeout: float, what: str
    ) -> None:
        await self.changed.until(lambda: check(self), timeout, what)

    async def at_least(self, n: int, timeout: float, what: str) -> None:
        await self.until(lambda w: w.messages >= n, timeout, what)


class Reconnects:
    """A client's reconnections: pass `on_reconnected` as nats.connect's reconnected_cb."""

    def __init__(self) -> None:
        self.count = 0
        self.changed = Signal()

    async def on_reconnected(self) -> None:
        self.count += 1
        self.changed.notify()

    async def beyond(self, count: int, timeout: float, what: str) -> None:
        """Wait until there were more than `count` reconnections."""
        await self.changed.until(lambda: self.count > count, timeout, what)


class ObservedSet(set):
    """A set that tells `changed` when something is added or removed (to stand in for a
    library's plain set of open things, e.g. uvicorn's connections and tasks)."""

    def __init__(self, *args: Any, changed: Signal | None = None) -> None:
        super().__init__(*args)
        self.changed = changed if changed is not None else Signal()

    def add(self, item: Any) -> None:
        super().add(item)
        self.changed.notify()

    def discard(self, item: Any) -> None:
        super().discard(item)
        self.changed.notify()

    def remove(self, item: Any) -> None:
        super().remove(item)
        self.changed.notify()


class LineWatch:
    """The lines a child process writes to an asyncio StreamReader (its stdout or stderr),
    read as they come; `line(pattern)` waits for the first (new or past) line matching."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.lines: list[str] = []
        self.closed = False
        self.changed = Signal()
        self._task = asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        # chunks, not readline(): a line past the reader's limit must not stop the reading (a
        # child blocks once the pipe it writes to is full)
        rest = b""
        try:
            while chunk := await reader.read(65536):
                *complete, rest = (rest + chunk).split(b"\n")
                for raw in complete:
                    self._add(raw)
            if rest:
                self._add(rest)
        finally:
            self.closed = True
            self.changed.notify()

    def _add(self, raw: bytes) -> None:
        line = raw.decode(errors="replace")
        self.lines.append(line)
        self.changed.notify()

    def find(self, pattern: str) -> str | None:
        rx = re.compile(pattern)
        return next((line for line in self.lines if rx.search(line)), None)

    async def line(self, pattern: str, timeout: float, what: str) -> str:
        """The first line matching `pattern`; fails at once if the stream ends without one."""
        await self.changed.until(lambda: self.find(pattern) or self.closed, timeout, what)
        found = self.find(pattern)
        if found is None:
            raise AssertionError(
                f"{what}: the process closed its output without it:\n" + "\n".join(self.lines[-40:])
            )
        return found

    async def close(self) -> None:
        await asyncio.gather(self._task, return_exceptions=True)

    def text(self) -> str:
        return "\n".join(self.lines)


class LogWatch(logging.Handler):
    """The records of one logger (and its children) of this process, told as they are emitted
    (from any thread); a context manager that lowers the logger's level to `level` meanwhile."""

    def __init__(self, logger: str, level: int = logging.INFO) -> None:
        super().__init__(logging.DEBUG)
        self.logger = logging.getLogger(logger)
        self.level_wanted = level
        self.records: list[logging.LogRecord] = []
        self.changed = Signal()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._old_level = logging.NOTSET

    def __enter__(self) -> LogWatch:
        self._loop = asyncio.get_running_loop()
        self._old_level = self.logger.level
        if self.logger.getEffectiveLevel() > self.level_wanted:
            self.logger.setLevel(self.level_wanted)
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self)
        self.logger.setLevel(self._old_level)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.changed.notify)

    def matching(self, pattern: str) -> list[str]:
        rx = re.compile(pattern)
        return [m for m in (r.getMessage() for r in self.records) if rx.search(m)]

    async def message(self, pattern: str, timeout: float, what: str) -> str:
        """The first message (logged before or after the call) matching `pattern`."""
        await self.changed.until(lambda: self.matching(pattern), timeout, what)
        return self.matching(pattern)[0]


async def stats_reach(
    stats: Any, check: Callable[[Any], object], timeout: float, what: str
) -> None:
    """Until `check(stats)` holds, re-checked at each change of an object with an `observers`
    list (shared.messaging.ConsumerStats, the webhook endpoint's Counts)."""
    signal = Signal()
    stats.observers.append(signal.notify)
    try:
        await signal.until(lambda: check(stats), timeout, what)
    finally:
        stats.observers.remove(signal.notify)
