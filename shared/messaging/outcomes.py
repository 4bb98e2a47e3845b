"""What happens to a consumed message: acknowledged, retried with backoff, or dead-lettered.

The rules, shared by the durable consumer on a real server (`consumer.Consumer`) and the
in-memory bus of the unit tests (`testing.MemoryBroker`):

- a message that cannot be decoded, or whose handler raises `Poison`, is parked in RD_DEAD with
  the reason and its bytes intact, then terminated (never redelivered);
- any other exception is transient: the message is nak'ed with exponential backoff
  (`backoff_seconds`) until JetStream's `max_deliver`, then dead-lettered;
- a batch handler that raises `Poison` is split in halves, in stream order, until each poison
  message is alone; a transient failure sends the part and everything after it back, so no later
  event (a watermark above all) is handled before the ones it follows.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import ValidationError

from shared.events import DeadLetter

from .collector import collector_paused
from .subjects import Subjects
from .tracing import MessageSpans, short

if TYPE_CHECKING:
    from nats.aio.msg import Msg

    from .topology import ConsumerSpec

log = logging.getLogger("repodigest.bus")


class Poison(Exception):
    """The message can never be processed (it violates its contract): dead-letter it."""


class Transient(Exception):
    """A dependency failed (GitHub 5xx, S3 timeout, a locked database): retry with backoff."""


class Held(Exception):
    """Not handled: an event before it in the batch failed transiently and comes back first."""

    def __str__(self) -> str:
        return "held back behind an earlier event that is being retried"


E = TypeVar("E")


def backoff_seconds(deliveries: int, base: float = 0.5, cap: float = 60.0) -> float:
    return min(cap, base * (2 ** max(0, deliveries - 1)))


def deliveries(msg: Msg) -> int:
    try:
        return int(msg.metadata.num_delivered)
    except Exception:  # noqa: BLE001 - core (non-JetStream) messages have no metadata
        return 1


def meta(msg: Msg) -> tuple[str | None, int | None]:
    try:
        return msg.metadata.stream, int(msg.metadata.sequence.stream)
    except Exception:  # noqa: BLE001
        return None, None


def dead_letter_message(service: str, letter: DeadLetter) -> tuple[str, dict[str, str]]:
    """The subject and headers a dead letter is published with (the body: the original bytes)."""
    headers = letter.to_headers()
    headers["content-type"] = "application/octet-stream"  # the original bytes, whatever they are
    if letter.stream and letter.sequence is not None:
        # one dead letter per stream message, even if parking it had to be retried
        headers["Nats-Msg-Id"] = f"dead:{letter.stream}:{letter.sequence}"
    return Subjects.dead(service), headers


@dataclass
class ConsumerStats:
    processed: int = 0
    dead: int = 0
    retried: int = 0
    last_error: str | None = None
    # each is called after every change: whoever needs a count (a test, an exporter) is told
    observers: list[Callable[[], None]] = field(default_factory=list, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        for observer in list(self.__dict__.get("observers", ())):
            observer()


class Outcomes(Generic[E]):
    """Decode, handle in order, ack / nak with backoff / dead-letter a batch of messages.

    Messages of a batch are handled one after another in stream order (the summarizer relies on
    a watermark following the facts before it); `handle_batch`, when given, receives every
    decodable message of the batch at once so it can commit them in one transaction.

    `bus` needs `service` and `dead_letter(raw, letter)`; a message needs nats-py's `Msg`
    surface: data, subject, headers, metadata, ack(), nak(delay=), term().
    """

    def __init__(
        self,
        bus: Any,
        spec: ConsumerSpec,
        decode: Callable[[bytes], E],
        handle: Callable[[E], Awaitable[None]] | None = None,
        handle_batch: Callable[[list[E]], Awaitable[None]] | None = None,
    ) -> None:
        if handle is None and handle_batch is None:
            raise ValueError("a consumer needs handle or handle_batch")
        self.bus, self.spec, self.decode = bus, spec, decode
        self.handle, self.handle_batch = handle, handle_batch
        self.stats = ConsumerStats()
        self.idle = asyncio.Event()

    async def process(self, msgs: list[Msg]) -> None:
        self.idle.clear()
        spans = MessageSpans(self, msgs)
        try:
            with collector_paused():
                await self._process(msgs, spans)
        finally:
            spans.end()

    async def _process(self, msgs: list[Msg], spans: MessageSpans) -> None:
        decoded: list[tuple[Msg, E]] = []
        for msg in msgs:
            try:
                decoded.append((msg, self.decode(msg.data)))
            except (ValidationError, ValueError, UnicodeDecodeError) as exc:
                await self._dead(msg, f"invalid event: {short(exc)}")
        spans.identify(decoded)
        if self.handle_batch is not None and decoded:
            await self._split(decoded, spans)
            self._maybe_idle(msgs[-1])
            return
        for msg, event in decoded:
            try:
                with spans.single(msg):
                    if self.handle is not None:
                        await self.handle(event)
                    else:
                        await self.handle_batch([event])  # type: ignore[misc]
            except Poison as exc:
                await self._dead(msg, str(exc))
            except Exception as exc:  # noqa: BLE001 - transient until max_deliver says otherwise
                await self._retry(msg, exc)
            else:
                await msg.ack()
                spans.outcome(msg, "ok")
                self.stats.processed += 1
        if msgs:
            self._maybe_idle(msgs[-1])

    async def _split(self, part: list[tuple[Msg, E]], spans: MessageSpans) -> bool:
        """Handle `part` as one batch; when the handler says it holds poison, handle its halves,
        in stream order, until each poison message is alone: it alone is dead-lettered, every
        good message around it is handled and acknowledged. A transient failure sends the part
        and everything after it back (nak with backoff), so no later event, a watermark above
        all, is handled before the ones it follows. False when the rest must not be handled."""
        try:
            # a batch span even for one event (as before the split): it links to each event's
            # trace rather than joining one, so a watermark's fold is not part of a report's trace
            with spans.batch(len(part)):
                await self.handle_batch([e for _, e in part])  # type: ignore[misc]
        except Poison as exc:
            if len(part) == 1:
                await self._dead(part[0][0], str(exc))
                return True
            log.info("a batch of %d holds poison (%s); handling its halves", len(part), exc)
            mid = len(part) // 2
            if not await self._split(part[:mid], spans):
                for msg, _ in part[mid:]:
                    await self._retry(msg, Held())
                return False
            return await self._split(part[mid:], spans)
        except Exception as exc:  # noqa: BLE001 - transient until max_deliver says otherwise
            for msg, _ in part:
                await self._retry(msg, exc)
            return False
        for msg, _ in part:
            await msg.ack()
            spans.outcome(msg, "ok")
        self.stats.processed += len(part)
        return True

    def _maybe_idle(self, last: Msg) -> None:
        try:
            if last.metadata.num_pending == 0:
                self.idle.set()
        except Exception:  # noqa: BLE001 - metadata is informational
            pass

    async def _retry(self, msg: Msg, exc: BaseException) -> None:
        with MessageSpans.attached(msg):  # the warning carries the message's trace id
            await self._retry_in_trace(msg, exc)

    async def _retry_in_trace(self, msg: Msg, exc: BaseException) -> None:
        delivered = deliveries(msg)
        self.stats.last_error = short(exc)
        if delivered >= self.spec.max_deliver:
            await self._dead(msg, f"gave up after {delivered} deliveries: {short(exc)}")
            return
        delay = backoff_seconds(delivered)
        log.warning(
            "%s: delivery %d failed (%s); retrying in %.1fs",
            self.spec.durable,
            delivered,
            short(exc),
            delay,
        )
        self.stats.retried += 1
        await msg.nak(delay=delay)
        MessageSpans.mark(msg, "retried", exc)

    async def _dead(self, msg: Msg, reason: str) -> None:
        with MessageSpans.attached(msg):
            await self._dead_in_trace(msg, reason)

    async def _dead_in_trace(self, msg: Msg, reason: str) -> None:
        stream, sequence = meta(msg)
        await self.bus.dead_letter(
            msg.data,
            DeadLetter(
                service=self.bus.service,
                reason=reason,
                subject=msg.subject,
                stream=stream,
                sequence=sequence,
                deliveries=deliveries(msg),
                event_id=(msg.headers or {}).get("Nats-Msg-Id"),
                failed_at=datetime.now(UTC),
            ),
        )
        self.stats.dead += 1
        await msg.term()
        MessageSpans.mark(msg, "dead", reason)
