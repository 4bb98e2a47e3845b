"""An in-memory bus for unit tests of handlers: no server, the same settling rules.

`MemoryBroker` keeps streams (de-duplicated by Nats-Msg-Id, like JetStream's duplicate window)
and durable consumers' positions in memory. Its `bus(service)` publishes as a service's `Bus`
does (the same headers: `publisher.event_headers`, `outcomes.dead_letter_message`), and
`run(*consumers)` delivers messages to a service's real `Consumer` objects, whose settling is
`outcomes.Outcomes` — the very code that acks, naks with backoff, splits a poisoned batch and
dead-letters on a real server. Time is virtual: a nak's delay moves a message later in the
delivery order (messages not yet delivered go first until the delay has passed, then the
redelivery comes before them, as on the server), without sleeping.

What it does not model: ack_wait timers (a message neither acked, nak'ed nor terminated is
redelivered after ack_wait of virtual time), max_ack_pending, replicas, reconnects, StreamingPull
itself (tested on a real nats-server in tests/integration/bus/).

    broker = MemoryBroker()
    service = ClassifierService(registry, broker.bus("classifier"))
    await broker.bus("ingest").publish(fact, Subjects.fact(...))
    await broker.run(service.consumer)
    broker.events("rd.enriched.>")  # what it published, decoded
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from nats.aio.msg import Msg
from nats.js.api import PubAck

from shared.events import DeadLetter
from shared.events.envelope import CloudEvent

from .outcomes import dead_letter_message
from .publisher import event_headers
from .subjects import STREAM_DEAD, stream_of, subject_matches

if TYPE_CHECKING:
    from .consumer import Consumer


@dataclasses.dataclass
class Stored:
    """A message in a memory stream (or, with stream None, sent on core NATS)."""

    stream: str | None
    seq: int
    subject: str
    data: bytes
    headers: dict[str, str]


@dataclasses.dataclass
class _Pending:
    """A message a durable has delivered and not finished with."""

    stored: Stored
    deliveries: int
    due: float  # virtual time at which it is (re)delivered


class _Durable:
    def __init__(self, consumer: Consumer[Any]) -> None:
        self.consumer = consumer
        self.spec = consumer.spec
        self.next_seq = 1  # the next stream sequence never delivered
        self.pending: dict[int, _Pending] = {}  # by stream sequence: nak'ed or unfinished
        self.delivered = 0


class MemoryMsg:
    """nats-py's `Msg` surface that the consumer uses: data, subject, headers, metadata, ack,
    nak(delay=), term()."""

    def __init__(self, durable: _Durable, entry: _Pending, num_pending: int) -> None:
        self._durable, self._entry = durable, entry
        stored = entry.stored
        self.data, self.subject, self.headers = stored.data, stored.subject, dict(stored.headers)
        self.reply = ""
        self.metadata = Msg.Metadata(
            sequence=Msg.Metadata.SequencePair(consumer=durable.delivered, stream=stored.seq),
            num_pending=num_pending,
            num_delivered=entry.deliveries,
            timestamp=datetime.now(UTC),
            stream=stored.stream or "",
            consumer=durable.spec.durable,
        )
        self.outcome: str | None = None
        self.nak_delay: float | None = None

    async def ack(self) -> None:
        self._settle("ack")

    async def nak(self, delay: float | None = None) -> None:
        self._settle("nak")
        self.nak_delay = delay

    async def term(self) -> None:
        self._settle("term")

    def _settle(self, outcome: str) -> None:
        if self.outcome is not None:
            raise AssertionError(
                f"message {self.subject} #{self._entry.stored.seq} settled "
                f"twice: {self.outcome}, then {outcome}"
            )
        self.outcome = outcome


class MemoryBus:
    """A service's publisher on a `MemoryBroker`: what `publisher.Bus` offers handlers."""

    def __init__(self, broker: MemoryBroker, service: str) -> None:
        self.broker, self.service = broker, service

    @property
    def nc(self) -> Any:
        raise RuntimeError(
            "a memory bus has no NATS connection (core NATS requests need a "
            "real nats-server: tests/integration)"
        )

    @property
    def js(self) -> Any:
        raise RuntimeError(
            "a memory bus has no JetStream context (KV and object stores need a "
            "real nats-server: tests/integration)"
        )

    async def publish(self, event: CloudEvent, subject: str) -> PubAck:
        return (await self.publish_many([(event, subject, None)]))[0]

    async def publish_many(self, batch: Sequence[tuple[CloudEvent, str, Any]]) -> list[PubAck]:
        return [
            self.broker.append(subject, event.to_bytes(), event_headers(event))
            for event, subject, _ in batch
        ]

    async def publish_raw(self, data: bytes, subject: str, headers: dict[str, str]) -> PubAck:
        return self.broker.append(subject, data, headers)

    async def dead_letter(self, raw: bytes, letter: DeadLetter) -> None:
        subject, headers = dead_letter_message(self.service, letter)
        await self.publish_raw(raw, subject, headers)


class MemoryBroker:
    """Streams and durable consumers in memory; see the module's documentation."""

    def __init__(self) -> None:
        self.streams: dict[str, list[Stored]] = {}
        self.core: list[Stored] = []  # subjects no stream keeps
        self._ids: dict[str, set[str]] = {}
        self._durables: dict[str, _Durable] = {}
        self.now = 0.0  # virtual seconds

    def bus(self, service: str) -> MemoryBus:
        return MemoryBus(self, service)

    # ------------------------------------------------------------------ publishing

    def append(self, subject: str, data: bytes, headers: dict[str, str] | None = None) -> PubAck:
        """Store a message as JetStream would: in the stream whose subjects it matches, once per
        Nats-Msg-Id (a repeat is acknowledged as a duplicate and not stored)."""
        headers = dict(headers or {})
        try:
            stream = stream_of(subject)
        except (KeyError, IndexError):
            self.core.append(Stored(None, len(self.core) + 1, subject, data, headers))
            return PubAck(stream="", seq=0)
        stored = self.streams.setdefault(stream, [])
        msg_id = headers.get("Nats-Msg-Id")
        ids = self._ids.setdefault(stream, set())
        if msg_id is not None and msg_id in ids:
            seq = next(m.seq for m in stored if m.headers.get("Nats-Msg-Id") == msg_id)
            return PubAck(stream=stream, seq=seq, duplicate=True)
        if msg_id is not None:
            ids.add(msg_id)
        stored.append(Stored(stream, len(stored) + 1, subject, data, headers))
        return PubAck(stream=stream, seq=len(stored))

    # ------------------------------------------------------------------ reading

    def messages(self, pattern: str = ">") -> list[Stored]:
        """Every stored message on subjects matching `pattern`, streams in order, then core."""
        out = [
            m
            for stream in self.streams.values()
            for m in stream
            if subject_matches(pattern, m.subject)
        ]
        return out + [m for m in self.core if subject_matches(pattern, m.subject)]

    def events(self, pattern: str, decode: Callable[[bytes], Any] | None = None) -> list[Any]:
        """The messages on `pattern`, decoded (by default as JSON)."""
        import json

        return [(decode or json.loads)(m.data) for m in self.messages(pattern)]

    def dead_letters(self, service: str | None = None) -> list[Stored]:
        return [
            m
            for m in self.streams.get(STREAM_DEAD, [])
            if service is None or m.subject == f"rd.dead.{service}"
        ]

    # ------------------------------------------------------------------ consuming

    def _durable(self, consumer: Consumer[Any]) -> _Durable:
        durable = self._durables.get(consumer.spec.durable)
        if durable is None or durable.consumer is not consumer:
            previous = durable
            durable = _Durable(consumer)
            if previous is not None:  # another replica (or a restart) of the same durable
                durable.next_seq, durable.pending = previous.next_seq, previous.pending
            self._durables[consumer.spec.durable] = durable
        return durable

    def _batch(self, durable: _Durable) -> list[MemoryMsg]:
        spec = durable.spec
        stream = self.streams.get(spec.stream, [])
        due = sorted(
            (e for e in durable.pending.values() if e.due <= self.now),
            key=lambda e: (e.due, e.stored.seq),
        )
        # redeliveries whose delay has passed first, then new messages (as the server does)
        picked: list[_Pending] = due[: spec.batch_size]
        while len(picked) < spec.batch_size and durable.next_seq <= len(stream):
            stored = stream[durable.next_seq - 1]
            durable.next_seq += 1
            if subject_matches(spec.filter_subject, stored.subject):
                entry = _Pending(stored, 0, self.now)
                durable.pending[stored.seq] = entry
                picked.append(entry)
        out = []
        for i, entry in enumerate(picked):
            entry.deliveries += 1
            durable.delivered += 1
            left = (
                len(picked)
                - i
                - 1
                + sum(
                    1
                    for m in stream[durable.next_seq - 1 :]
                    if subject_matches(spec.filter_subject, m.subject)
                )
            )
            out.append(MemoryMsg(durable, entry, left))
        return out

    def _settle(self, durable: _Durable, msgs: list[MemoryMsg]) -> None:
        for msg in msgs:
            entry = msg._entry
            seq = entry.stored.seq
            if msg.outcome in ("ack", "term"):
                durable.pending.pop(seq, None)
            elif entry.deliveries >= durable.spec.max_deliver:
                durable.pending.pop(seq, None)  # JetStream delivers it no more
            elif msg.outcome == "nak":
                entry.due = self.now + (msg.nak_delay or 0.0)
            else:  # neither: redelivered once ack_wait has passed
                entry.due = self.now + durable.spec.ack_wait

    async def run(self, *consumers: Consumer[Any], max_batches: int = 10_000) -> int:
        """Deliver to `consumers` until none has anything left to handle, advancing the virtual
        clock over nak delays; return the number of batches handled."""
        durables = [self._durable(c) for c in consumers]
        batches = 0
        while True:
            progressed = False
            for durable in durables:
                msgs = self._batch(durable)
                if not msgs:
                    continue
                progressed = True
                batches += 1
                if batches > max_batches:
                    raise AssertionError(
                        f"still delivering after {max_batches} batches: a "
                        "handler that never settles its messages?"
                    )
                await durable.consumer.process(msgs)  # type: ignore[arg-type]
                self._settle(durable, msgs)
            if progressed:
                continue
            waiting = [e.due for d in durables for e in d.pending.values()]
            if not waiting:
                return batches
            self.now = max(self.now, min(waiting))
