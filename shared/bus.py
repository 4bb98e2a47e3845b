"""The bus: stream, subject, consumer and bucket names, topology set-up, publishing, consuming.

All names live here. Subjects carry the repository as two tokens (`<owner>.<name>`, with `.`,
`*`, `>` and white space percent-encoded) so that consumers can filter and partition by repository.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import functools
import json
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import unquote
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from nats.js.api import (
    AckPolicy as JsAckPolicy, ConsumerConfig, DeliverPolicy, DiscardPolicy, PubAck,
    RetentionPolicy, StorageType, StreamConfig,
)
from nats.errors import NoRespondersError
from nats.js.errors import APIError, BadRequestError, NotFoundError
from opentelemetry import context as otel_context, trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from pydantic import ValidationError

from shared.events import DeadLetter
from shared.events.envelope import CONTENT_TYPE, CloudEvent
from shared import telemetry
from shared.tasks import cancel_and_wait

if TYPE_CHECKING:
    from faststream.nats import NatsBroker, NatsRouter

    from shared.pull import StreamingPull
    from nats.aio.msg import Msg
    from nats.js.client import JetStreamContext

log = logging.getLogger("repodigest.bus")

_tracer = telemetry.tracer("bus")
_meter = telemetry.meter("bus")
_consumed = _meter.create_counter(
    "repodigest.events.consumed", unit="{event}",
    description="messages a durable consumer finished with, by outcome (ok, retried, dead)")
_published = _meter.create_counter(
    "repodigest.events.published", unit="{event}", description="events published, by stream")
_dead_lettered = _meter.create_counter(
    "repodigest.events.dead_lettered", unit="{event}",
    description="messages parked in RD_DEAD by the service that gave up on them")
_handler_duration = _meter.create_histogram(
    "repodigest.handler.duration", unit="s",
    description="time a consumer spent handling one fetched batch (or one message)")

# ---------------------------------------------------------------- names

STREAM_GITHUB = "RD_GITHUB"
STREAM_ENRICHED = "RD_ENRICHED"
STREAM_REPORTS = "RD_REPORTS"
STREAM_DEAD = "RD_DEAD"
KV_INGEST_STATE = "RD_INGEST_STATE"
# the notifier's delivery record: one key per route x report revision (sending / sent / dead)
KV_NOTIFIER_STATE = "RD_NOTIFIER"
OBJECT_BUCKET = "RD_ARTIFACTS"

DURABLE_CLASSIFIER = "classifier-enrich"
DURABLE_SUMMARIZER = "summarizer-fold"
DURABLE_SUMMARIZER_REQUESTS = "summarizer-requests"
DURABLE_RENDERER = "renderer-render"
DURABLE_NOTIFIER = "notifier-deliver"

_ENCODE = {".": "%2E", "*": "%2A", ">": "%3E", " ": "%20", "%": "%25", "\t": "%09"}


def token(text: str) -> str:
    """One NATS subject token for arbitrary text (a repository owner or name)."""
    return "".join(_ENCODE.get(ch, ch) for ch in text) or "_"


def untoken(text: str) -> str:
    return unquote(text)


@functools.lru_cache(maxsize=4096)
def repo_tokens(repo: str) -> str:
    owner, name = repo.split("/", 1)
    return f"{token(owner)}.{token(name)}"


def repo_from_subject(subject: str) -> str:
    """The repository named by the last two tokens of any repodigest subject."""
    parts = subject.split(".")
    return f"{untoken(parts[-2])}/{untoken(parts[-1])}"


class Subjects:
    @staticmethod
    def fact(kind: str, action: str, repo: str) -> str:
        return f"rd.github.{kind}.{action}.{repo_tokens(repo)}"

    @staticmethod
    def watermark(repo: str) -> str:
        return f"rd.github.sync.watermark.{repo_tokens(repo)}"

    @staticmethod
    def enriched(kind: str, action: str, repo: str) -> str:
        return f"rd.enriched.{kind}.{action}.{repo_tokens(repo)}"

    @staticmethod
    def enriched_watermark(repo: str) -> str:
        return f"rd.enriched.sync.watermark.{repo_tokens(repo)}"

    @staticmethod
    def report_requested(repo: str) -> str:
        return f"rd.summary.requested.{repo_tokens(repo)}"

    @staticmethod
    def summary_ready(repo: str) -> str:
        return f"rd.summary.ready.{repo_tokens(repo)}"

    @staticmethod
    def report_ready(repo: str | None = None) -> str:
        return f"rd.report.ready.{repo_tokens(repo)}" if repo else "rd.report.ready.>"

    @staticmethod
    def report_answer(request_id: str) -> str:
        """Core NATS (no stream keeps it): the existing revision that answers a request for an
        unchanged window, sent to the requester instead of a second report-ready."""
        return f"rd.answer.report.{token(request_id)}"

    @staticmethod
    def dead(service: str) -> str:
        return f"rd.dead.{token(service)}"


# ---------------------------------------------------------------- topology


@dataclass(frozen=True)
class ConsumerSpec:
    durable: str
    stream: str
    filter_subject: str
    max_deliver: int = 8
    ack_wait: float = 120.0
    # at most this many messages handled (and, in the summarizer, committed) together; twice as
    # many are requested ahead, so a busy stream hands over full batches while a lone message is
    # handled as soon as it arrives (no waiting for a batch to fill). 1024 rather than 256: the
    # summarizer's per-batch costs (commit, due-summary check, thread hand-off) and the
    # classifier's ack wait are shared by 4x more events, ~15% less CPU per event (bench.pipeline)
    batch_size: int = 1024
    # batches requested ahead of the one in hand; 1 where handling one message takes seconds
    # (a replica that is busy rendering should not hold the next report while another idles)
    ahead: int = 2

    def config(self) -> ConsumerConfig:
        return ConsumerConfig(
            durable_name=self.durable,
            filter_subject=self.filter_subject,
            ack_policy=JsAckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL,
            max_deliver=self.max_deliver,
            ack_wait=self.ack_wait,
            max_ack_pending=20_000,
        )


CONSUMERS: dict[str, ConsumerSpec] = {
    DURABLE_CLASSIFIER: ConsumerSpec(DURABLE_CLASSIFIER, STREAM_GITHUB, "rd.github.>"),
    DURABLE_SUMMARIZER: ConsumerSpec(DURABLE_SUMMARIZER, STREAM_ENRICHED, "rd.enriched.>"),
    DURABLE_SUMMARIZER_REQUESTS: ConsumerSpec(
        DURABLE_SUMMARIZER_REQUESTS, STREAM_REPORTS, "rd.summary.requested.>", batch_size=16),
    DURABLE_RENDERER: ConsumerSpec(
        DURABLE_RENDERER, STREAM_REPORTS, "rd.summary.ready.>", batch_size=1, ahead=1,
        ack_wait=600.0),
    # one report at a time: its routes are posted (with retries bounded by the notifier's
    # deadline, well inside ack_wait) before the next report is taken
    DURABLE_NOTIFIER: ConsumerSpec(
        DURABLE_NOTIFIER, STREAM_REPORTS, "rd.report.ready.>", batch_size=1, ahead=1,
        ack_wait=600.0),
}


@dataclass(frozen=True)
class Topology:
    """Stream settings an operator may change (replicas 3 in production, file storage always)."""

    replicas: int = 1
    duplicate_window: float = 600.0  # seconds JetStream de-duplicates by Nats-Msg-Id
    dead_max_age: float = 30 * 86400.0

    def stream_configs(self) -> list[StreamConfig]:
        common = dict(storage=StorageType.FILE, num_replicas=self.replicas,
                      duplicate_window=self.duplicate_window, discard=DiscardPolicy.OLD,
                      retention=RetentionPolicy.LIMITS)
        return [
            # the event log is the source of truth: kept without age limit
            StreamConfig(name=STREAM_GITHUB, subjects=["rd.github.>"],
                         description="GitHub facts from ingest", **common),
            StreamConfig(name=STREAM_ENRICHED, subjects=["rd.enriched.>"],
                         description="facts with classifier tags", **common),
            StreamConfig(name=STREAM_REPORTS, subjects=["rd.summary.>", "rd.report.>"],
                         description="report requests, window summaries, report-ready", **common),
            StreamConfig(name=STREAM_DEAD, subjects=["rd.dead.>"], max_age=self.dead_max_age,
                         description="messages a service could not process, with the reason",
                         **common),
        ]


async def ensure_topology(js: "JetStreamContext", topology: Topology | None = None,
                          consumers: Sequence[str] = tuple(CONSUMERS)) -> None:
    """Create streams, durable consumers, the KV bucket and the object store; idempotent."""
    topology = topology or Topology()
    for cfg in topology.stream_configs():
        try:
            await js.add_stream(config=cfg)
        except BadRequestError:
            await js.update_stream(config=cfg)
    for name in consumers:
        spec = CONSUMERS[name]
        try:
            existing = await js.consumer_info(spec.stream, name)
        except NotFoundError:
            await js.add_consumer(spec.stream, config=spec.config())
            continue
        # an existing durable keeps its position and whatever an operator tuned (adding it again
        # would silently reset ack_wait / max_deliver); differences are reported, not undone
        wanted = spec.config()
        drift = [f"{field}={getattr(existing.config, field)} (code: {getattr(wanted, field)})"
                 for field in ("filter_subject", "max_deliver", "ack_wait", "max_ack_pending")
                 if getattr(existing.config, field) != getattr(wanted, field)]
        if drift:
            log.info("consumer %s keeps its own settings: %s", name, ", ".join(drift))
    try:
        await js.key_value(KV_INGEST_STATE)
    except (NotFoundError, BadRequestError):
        from nats.js.api import KeyValueConfig
        await js.create_key_value(KeyValueConfig(bucket=KV_INGEST_STATE, history=1,
                                                 storage=StorageType.FILE,
                                                 replicas=topology.replicas))
    try:
        await js.object_store(OBJECT_BUCKET)
    except (NotFoundError, BadRequestError):
        from nats.js.api import ObjectStoreConfig
        await js.create_object_store(OBJECT_BUCKET, ObjectStoreConfig(
            bucket=OBJECT_BUCKET, storage=StorageType.FILE, replicas=topology.replicas))


# ---------------------------------------------------------------- publishing


PUBLISH_TIMEOUT = 15.0
PUBLISH_ATTEMPTS = 4


def stream_of(subject: str) -> str:
    prefix = subject.split(".", 2)[1]
    return {"github": STREAM_GITHUB, "enriched": STREAM_ENRICHED, "summary": STREAM_REPORTS,
            "report": STREAM_REPORTS, "dead": STREAM_DEAD}[prefix]


def subject_template(subject: str) -> str:
    """The subject with its repository tokens as `{owner}.{repo}`: what span names and metric
    labels carry, so that their number does not grow with the repositories followed (the
    subject itself is the span attribute `messaging.destination.name`)."""
    tokens = subject.split(".")
    keep = {"github": 4, "enriched": 4, "summary": 3, "report": 3}.get(
        tokens[1] if len(tokens) > 1 else "")
    if keep is None or len(tokens) != keep + 2:
        return subject
    return ".".join(tokens[:keep] + ["{owner}", "{repo}"])


def telemetry_middleware() -> Any:
    """FastStream's NATS telemetry, its span names and metric labels by subject template."""
    from faststream.nats.opentelemetry.provider import telemetry_attributes_provider_factory
    from faststream.opentelemetry.middleware import TelemetryMiddleware

    class Templated:
        def __init__(self, provider: Any) -> None:
            self._provider = provider

        def __getattr__(self, name: str) -> Any:
            return getattr(self._provider, name)

        def get_publish_destination_name(self, cmd: Any) -> str:
            return subject_template(self._provider.get_publish_destination_name(cmd))

        def get_consume_destination_name(self, msg: Any) -> str:
            return subject_template(self._provider.get_consume_destination_name(msg))

    def factory(msg: Any) -> Any:
        provider = telemetry_attributes_provider_factory(msg)
        return None if provider is None else Templated(provider)

    # what NatsTelemetryMiddleware() is, with the factory wrapped
    return TelemetryMiddleware(settings_provider_factory=factory, include_messages_counters=True)


def event_headers(event: CloudEvent) -> dict[str, str]:
    """The NATS headers of a published event: its id for JetStream de-duplication, its type and
    id for filtering without parsing, and the content type of CloudEvents' structured mode (the
    body is the whole event; without it FastStream sends an empty `content-type`)."""
    return {"Nats-Msg-Id": event.id, "Ce-Type": event.type, "Ce-Id": event.id,
            "content-type": CONTENT_TYPE}


class Bus:
    """Publishing and dead-lettering for one service, over a FastStream NATS broker."""

    def __init__(self, broker: "NatsBroker", service: str) -> None:
        self.broker = broker
        self.service = service
        self._acks: _AckInbox | None = None

    @property
    def js(self) -> "JetStreamContext":
        return self.broker.config.connection_state.stream

    async def publish(self, event: CloudEvent, subject: str) -> Any:
        """Publish a typed event and wait for JetStream's ack.

        A missing ack (a busy server, a reconnect) is retried: the deterministic id travels as
        Nats-Msg-Id, so a retry of a publish that did land is de-duplicated, never doubled.
        """
        return await self.publish_raw(event.to_bytes(), subject, event_headers(event))

    async def publish_raw(self, data: bytes, subject: str, headers: dict[str, str]) -> Any:
        import nats.errors

        stream = stream_of(subject)
        # the trace travels in headers (FastStream's middleware replaces it with its own producer
        # span, a child of the current one; this keeps it when the middleware is absent)
        if "traceparent" not in headers:
            telemetry.inject(headers)
        for attempt in range(1, PUBLISH_ATTEMPTS + 1):
            try:
                ack = await self.broker.publish(data, subject, headers=headers,
                                                stream=stream, timeout=PUBLISH_TIMEOUT)
                _published.add(1, {"service": self.service, "stream": stream})
                return ack
            except (nats.errors.TimeoutError, nats.errors.NoRespondersError) as exc:
                if attempt == PUBLISH_ATTEMPTS:
                    raise
                log.warning("no ack for %s (%s); retrying", subject, type(exc).__name__)
                await asyncio.sleep(backoff_seconds(attempt))

    async def publish_many(
            self, batch: "Sequence[tuple[CloudEvent, str, otel_context.Context | None]]") -> list[Any]:
        """Publish typed events concurrently and wait for all their acks; return them in order.

        (event, subject, trace context) each: the trace context (a consumed message's, or None
        for the current one) goes into that message's headers, under a PRODUCER span when spans
        are recorded. nats-py `publish_async` sends without waiting and the acks are gathered,
        instead of one request/response per event. Nats-Msg-Id carries the deterministic id, so
        events whose ack did not come (a busy server, a reconnect) are simply published again.
        """
        if not batch:
            return []
        tracing = telemetry.tracing_enabled()
        out: list[tuple[bytes, str, str, dict[str, str], Any]] = []
        for event, subject, ctx in batch:
            headers = event_headers(event)
            span = None
            if tracing:
                template = subject_template(subject)
                span = _tracer.start_span(
                    f"{template} publish", context=ctx, kind=SpanKind.PRODUCER,
                    attributes={"messaging.system": "nats", "messaging.operation.type": "publish",
                                "messaging.operation.name": "publish",
                                "messaging.destination.name": subject,
                                "messaging.destination.template": template,
                                "messaging.message.id": event.id})
                telemetry.inject_context(headers, trace.set_span_in_context(span, ctx))
            elif ctx is not None:
                telemetry.inject_context(headers, ctx)
            else:
                telemetry.inject(headers)
            out.append((event.to_bytes(), subject, stream_of(subject), headers, span))
        acks: list[Any] = [None] * len(out)
        todo = list(range(len(out)))
        error: BaseException | None = None
        try:
            for attempt in range(1, PUBLISH_ATTEMPTS + 1):
                todo, error = await self._publish_async(out, todo, acks)
                if not todo:
                    break
                if attempt == PUBLISH_ATTEMPTS:
                    raise error or asyncio.TimeoutError()
                log.warning("no ack for %d of %d events (%s); retrying", len(todo), len(out),
                            type(error).__name__)
                await asyncio.sleep(backoff_seconds(attempt))
        except BaseException as exc:
            for _, _, _, _, span in out:
                if span is not None:
                    span.set_status(Status(StatusCode.ERROR, _short(exc)))
            raise
        finally:
            for _, _, _, _, span in out:
                if span is not None:
                    span.end()
        counts: dict[str, int] = {}
        for _, _, stream, _, _ in out:
            counts[stream] = counts.get(stream, 0) + 1
        for stream, n in counts.items():
            _published.add(n, {"service": self.service, "stream": stream})
        return acks

    async def _publish_async(self, out: list, todo: list[int],
                             acks: list[Any]) -> tuple[list[int], BaseException | None]:
        """One round: publish `todo`, wait up to PUBLISH_TIMEOUT; return what has no ack yet.

        The acks come back on one wildcard inbox of this bus (`_AckInbox`), so a publish costs
        the message and one dict entry instead of nats-py's future, timer, semaphore and random
        token per message (17 µs instead of 33 µs of CPU per event, bench/README.md).
        """
        import nats.errors
        import nats.js.errors

        inbox = await self._ack_inbox()
        round_ = _AckRound(len(todo))
        nc = self.broker.config.connection_state.connection
        try:
            for i in todo:
                data, subject, stream, headers, _ = out[i]
                headers["Nats-Expected-Stream"] = stream
                await nc.publish(subject, data, reply=inbox.reply(round_, i), headers=headers)
            try:
                await asyncio.wait_for(round_.done.wait(), PUBLISH_TIMEOUT)
            except asyncio.TimeoutError:
                pass
        finally:
            inbox.forget(round_)
        retry: list[int] = []
        error: BaseException | None = None
        for i in todo:
            result = round_.results.get(i)
            if result is None:
                retry.append(i)
                error = error or asyncio.TimeoutError()
            elif isinstance(result, BaseException):
                if isinstance(result, (nats.errors.TimeoutError, nats.errors.NoRespondersError,
                                       nats.js.errors.NoStreamResponseError)):
                    retry.append(i)
                    error = result
                else:
                    raise result
            else:
                acks[i] = result
        return retry, error

    async def _ack_inbox(self) -> "_AckInbox":
        nc = self.broker.config.connection_state.connection
        if self._acks is None or self._acks.nc is not nc:
            inbox = _AckInbox(nc)
            await inbox.start()
            self._acks = inbox
        return self._acks

    async def dead_letter(self, raw: bytes, letter: DeadLetter) -> None:
        """Park a message in RD_DEAD with the reason in headers and the original bytes intact."""
        headers = letter.to_headers()
        headers["content-type"] = "application/octet-stream"  # the original bytes, whatever they are
        if letter.stream and letter.sequence is not None:
            # one dead letter per stream message, even if parking it had to be retried
            headers["Nats-Msg-Id"] = f"dead:{letter.stream}:{letter.sequence}"
        await self.publish_raw(raw, Subjects.dead(self.service), headers)
        _dead_lettered.add(1, {"service": self.service})
        log.warning("dead-lettered message from %s: %s", letter.subject, letter.reason,
                    extra={"service": self.service, "subject": letter.subject})


class _AckRound:
    """The acknowledgements one `publish_many` round waits for."""

    __slots__ = ("expected", "results", "done")

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.results: dict[int, Any] = {}  # index -> PubAck or the exception to raise
        self.done = asyncio.Event()
        if expected == 0:
            self.done.set()


_PUBACK_FIELDS = frozenset(f.name for f in dataclasses.fields(PubAck))


class _AckInbox:
    """One wildcard subscription receiving JetStream publish acks for a connection.

    Each published message gets `<inbox>.<n>` as its reply subject (n never reused on this
    connection), so an ack arriving after its round gave up is recognised and dropped.
    """

    def __init__(self, nc: Any) -> None:
        self.nc = nc
        self.prefix = nc.new_inbox()
        self._next = 0
        self._waiting: dict[str, tuple[_AckRound, int]] = {}

    async def start(self) -> None:
        await self.nc.subscribe(f"{self.prefix}.*", cb=self._on_ack,
                                pending_msgs_limit=0, pending_bytes_limit=0)

    def reply(self, round_: _AckRound, index: int) -> str:
        self._next += 1
        token = str(self._next)
        self._waiting[token] = (round_, index)
        return f"{self.prefix}.{token}"

    def forget(self, round_: _AckRound) -> None:
        for token in [t for t, (r, _) in self._waiting.items() if r is round_]:
            del self._waiting[token]

    async def _on_ack(self, msg: Any) -> None:
        entry = self._waiting.pop(msg.subject.rpartition(".")[2], None)
        if entry is None:
            return  # the round gave up on it (timeout): it is published again, de-duplicated
        round_, index = entry
        result: Any
        if msg.headers and msg.headers.get("Status") == "503":
            result = NoRespondersError()
        else:
            try:
                resp = json.loads(msg.data)
                # PubAck.from_response looks its dataclass fields up on every call
                result = (APIError.from_error(resp["error"]) if "error" in resp
                          else PubAck(**{k: v for k, v in resp.items() if k in _PUBACK_FIELDS}))
            except Exception as exc:  # noqa: BLE001 - a garbled ack is an error for that message
                result = APIError(description=f"unreadable publish ack: {exc}")
        round_.results[index] = result
        if len(round_.results) >= round_.expected:
            round_.done.set()


# ---------------------------------------------------------------- consuming


class Poison(Exception):
    """The message can never be processed (it violates its contract): dead-letter it."""


class Transient(Exception):
    """A dependency failed (GitHub 5xx, S3 timeout, a locked database): retry with backoff."""


class _Held(Exception):
    """Not handled: an event before it in the batch failed transiently and comes back first."""

    def __str__(self) -> str:
        return "held back behind an earlier event that is being retried"


E = TypeVar("E")


def backoff_seconds(deliveries: int, base: float = 0.5, cap: float = 60.0) -> float:
    return min(cap, base * (2 ** max(0, deliveries - 1)))


@dataclass
class ConsumerStats:
    processed: int = 0
    dead: int = 0
    retried: int = 0
    last_error: str | None = None


class Consumer(Generic[E]):
    """A durable pull consumer: decode, handle in order, ack / nak with backoff / dead-letter.

    Messages of a fetched batch are handled one after another in stream order (the summarizer
    relies on a watermark following the facts before it); `handle_batch`, when given, receives
    every decodable message of the batch at once so it can commit them in one transaction.
    """

    def __init__(self, bus: Bus, spec: ConsumerSpec, decode: Callable[[bytes], E],
                 handle: Callable[[E], Awaitable[None]] | None = None,
                 handle_batch: Callable[[list[E]], Awaitable[None]] | None = None) -> None:
        if handle is None and handle_batch is None:
            raise ValueError("a consumer needs handle or handle_batch")
        self.bus, self.spec, self.decode = bus, spec, decode
        self.handle, self.handle_batch = handle, handle_batch
        self.stats = ConsumerStats()
        self.idle = asyncio.Event()
        self._pull: "StreamingPull | None" = None
        self._task: asyncio.Task | None = None
        self._stopping = False

    # how long an idle loop waits before looking again at its pull requests (expired ones,
    # a reconnect); a delivery or a server status wakes it at once
    IDLE_POLL = 1.0

    def register(self, router: "NatsRouter") -> None:
        """Join the broker's pull consumers: `Runtime` starts them once connected and stops
        them (finishing the batch in hand) before it drains the broker. The router is not used:
        durable consumption runs on `shared.pull.StreamingPull`, not a FastStream subscriber
        (its fetch loop costs ~4x the CPU per message, see shared/pull.py)."""
        _batch_friendly_gc()
        _PULL_CONSUMERS.setdefault(self.bus.broker, []).append(self)

    async def start(self) -> None:
        from shared.pull import StreamingPull

        if self._task is not None and not self._task.done():
            return
        nc = self.bus.broker.config.connection_state.connection
        self._pull = StreamingPull(nc, self.spec.stream, self.spec.durable,
                                   batch=self.spec.batch_size, ahead=self.spec.ahead)
        await self._pull.start()
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name=f"pull {self.spec.durable}")

    async def stop(self, timeout: float = 30.0) -> None:
        """Finish the batch in hand, stop asking, and hand back what was delivered but not
        handled (nak: redelivered at once, not after ack_wait)."""
        if self._task is None or self._pull is None:
            return
        self._stopping = True
        self._pull.wake()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except asyncio.TimeoutError:
            log.warning("%s: the batch in hand did not finish within %.0f s; stopping anyway "
                        "(its messages are redelivered after ack_wait)", self.spec.durable, timeout)
            await cancel_and_wait(self._task)
        for msg in await self._pull.stop():
            with contextlib.suppress(Exception):
                await msg.nak()
        self._task = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def pull_state(self) -> str:
        """"ok" while consuming; otherwise what is wrong, for the readiness probe."""
        if not self.running:
            return "not consuming"
        if self._pull is not None and self._pull.refused:
            return f"pull requests refused: {self._pull.refused}"[:200]
        return "ok"

    async def _run(self) -> None:
        assert self._pull is not None
        while not self._stopping:
            try:
                msgs = await self._pull.next(timeout=self.IDLE_POLL)
                if msgs and not self._stopping:
                    await self.process(msgs)
                elif msgs:
                    for msg in msgs:  # stopping: not handled, handed back
                        await msg.nak()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the loop outlives a lost connection
                # unacknowledged messages come back after ack_wait; the loop carries on
                log.warning("%s: consuming failed (%s); carrying on", self.spec.durable, _short(exc))
                await asyncio.sleep(1.0)  # a pause before asking a failing server again

    async def process(self, msgs: "list[Msg]") -> None:
        self.idle.clear()
        spans = _MessageSpans(self, msgs)
        try:
            with collector_paused():
                await self._process(msgs, spans)
        finally:
            spans.end()

    async def _process(self, msgs: "list[Msg]", spans: "_MessageSpans") -> None:
        decoded: list[tuple[Msg, E]] = []
        for msg in msgs:
            try:
                decoded.append((msg, self.decode(msg.data)))
            except (ValidationError, ValueError, UnicodeDecodeError) as exc:
                await self._dead(msg, f"invalid event: {_short(exc)}")
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

    async def _split(self, part: "list[tuple[Msg, E]]", spans: "_MessageSpans") -> bool:
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
                    await self._retry(msg, _Held())
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

    def _maybe_idle(self, last: "Msg") -> None:
        try:
            if last.metadata.num_pending == 0:
                self.idle.set()
        except Exception:  # noqa: BLE001 - metadata is informational
            pass

    async def _retry(self, msg: "Msg", exc: BaseException) -> None:
        with _MessageSpans.attached(msg):  # the warning carries the message's trace id
            await self._retry_in_trace(msg, exc)

    async def _retry_in_trace(self, msg: "Msg", exc: BaseException) -> None:
        deliveries = _deliveries(msg)
        self.stats.last_error = _short(exc)
        if deliveries >= self.spec.max_deliver:
            await self._dead(msg, f"gave up after {deliveries} deliveries: {_short(exc)}")
            return
        delay = backoff_seconds(deliveries)
        log.warning("%s: delivery %d failed (%s); retrying in %.1fs", self.spec.durable,
                    deliveries, _short(exc), delay)
        self.stats.retried += 1
        await msg.nak(delay=delay)
        _MessageSpans.mark(msg, "retried", exc)

    async def _dead(self, msg: "Msg", reason: str) -> None:
        with _MessageSpans.attached(msg):
            await self._dead_in_trace(msg, reason)

    async def _dead_in_trace(self, msg: "Msg", reason: str) -> None:
        meta = _meta(msg)
        await self.bus.dead_letter(msg.data, DeadLetter(
            service=self.bus.service, reason=reason, subject=msg.subject,
            stream=meta[0], sequence=meta[1], deliveries=_deliveries(msg),
            event_id=(msg.headers or {}).get("Nats-Msg-Id"),
            failed_at=datetime.now(timezone.utc),
        ))
        self.stats.dead += 1
        await msg.term()
        _MessageSpans.mark(msg, "dead", reason)


_PULL_CONSUMERS: "weakref.WeakKeyDictionary[Any, list[Consumer[Any]]]" = weakref.WeakKeyDictionary()


def pull_consumers(broker: Any) -> "list[Consumer[Any]]":
    """The durable consumers registered on this broker (started and stopped by `Runtime`)."""
    return list(_PULL_CONSUMERS.get(broker, ()))


class _MessageSpans:
    """One consumer span per message, each continuing the trace its publisher put in the headers.

    FastStream's telemetry middleware gives a fetched batch one span in a new trace; a batch holds
    events of many traces, so each message gets its own span here, parented by its traceparent.
    Batch handlers find each event's context by event id (`shared.telemetry.continuing`) and run
    under a batch span linked to the messages' spans (bounded).
    """

    MAX_BATCH_LINKS = 64
    _current: "contextvars.ContextVar[_MessageSpans | None]"

    def __init__(self, consumer: "Consumer[Any]", msgs: "list[Msg]") -> None:
        self.consumer = consumer
        self.attrs = {"service": consumer.bus.service, "consumer": consumer.spec.durable}
        self.spans: dict[int, Any] = {}
        self.outcomes: dict[int, str] = {}
        self.contexts: dict[str, Any] = {}
        self.keys = [id(msg) for msg in msgs]
        # without an SDK provider nothing is recorded: no span objects, the incoming trace
        # context (if any) is still passed on to what the handlers publish (see identify)
        self.tracing = telemetry.tracing_enabled()
        name = f"{consumer.spec.durable} process"
        for msg in (msgs if self.tracing else ()):
            span = _tracer.start_span(
                name, context=telemetry.extract(msg.headers), kind=SpanKind.CONSUMER,
                attributes={"messaging.system": "nats", "messaging.operation.type": "process",
                            "messaging.operation.name": "process",
                            "messaging.destination.name": msg.subject,
                            "messaging.destination.template": subject_template(msg.subject),
                            "messaging.consumer.group.name": consumer.spec.durable,
                            "messaging.message.id": (msg.headers or {}).get("Nats-Msg-Id", ""),
                            "messaging.message.body.size": len(msg.data or b"")})
            self.spans[id(msg)] = span
        self._token = _MessageSpans._current.set(self)

    def identify(self, decoded: "list[tuple[Msg, Any]]") -> None:
        for msg, event in decoded:
            event_id = getattr(event, "id", None)
            if not isinstance(event_id, str):
                continue
            span = self.spans.get(id(msg))
            if span is not None:
                self.contexts[event_id] = trace.set_span_in_context(span)
            elif not self.tracing and msg.headers and "traceparent" in msg.headers:
                self.contexts[event_id] = telemetry.extract(msg.headers)

    @contextlib.contextmanager
    def batch(self, size: int) -> "Iterator[None]":
        start = time.perf_counter()
        if not self.tracing:
            try:
                with telemetry.consuming(self.contexts):
                    yield
            finally:
                _handler_duration.record(time.perf_counter() - start, {**self.attrs, "mode": "batch"})
            return
        links = [trace.Link(s.get_span_context()) for s in list(self.spans.values())[:self.MAX_BATCH_LINKS]]
        try:
            with telemetry.consuming(self.contexts), _tracer.start_as_current_span(
                    f"{self.consumer.spec.durable} handle batch", links=links,
                    attributes={"messaging.batch.message_count": size, **self.attrs}):
                yield
        finally:
            _handler_duration.record(time.perf_counter() - start, {**self.attrs, "mode": "batch"})

    @contextlib.contextmanager
    def single(self, msg: "Msg") -> "Iterator[None]":
        start = time.perf_counter()
        span = self.spans.get(id(msg))
        token = otel_context.attach(trace.set_span_in_context(span)) if span is not None else None
        try:
            with telemetry.consuming(self.contexts):
                yield
        finally:
            if token is not None:
                otel_context.detach(token)
            _handler_duration.record(time.perf_counter() - start, {**self.attrs, "mode": "single"})

    def outcome(self, msg: "Msg", outcome: str, error: "BaseException | str | None" = None) -> None:
        self.outcomes[id(msg)] = outcome
        span = self.spans.get(id(msg))
        if span is None:
            return
        span.set_attribute("repodigest.outcome", outcome)
        if error is not None:
            if isinstance(error, BaseException):
                span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, _short(error) if isinstance(error, BaseException)
                                   else str(error)[:300]))

    @staticmethod
    @contextlib.contextmanager
    def attached(msg: "Msg") -> "Iterator[None]":
        current = _MessageSpans._current.get()
        span = current.spans.get(id(msg)) if current is not None else None
        if span is None:
            yield
            return
        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            yield
        finally:
            otel_context.detach(token)

    @staticmethod
    def mark(msg: "Msg", outcome: str, error: "BaseException | str | None" = None) -> None:
        current = _MessageSpans._current.get()
        if current is not None:
            current.outcome(msg, outcome, error)

    def end(self) -> None:
        _MessageSpans._current.reset(self._token)
        counts: dict[str, int] = {}
        for key in self.keys:
            outcome = self.outcomes.get(key, "unfinished")
            counts[outcome] = counts.get(outcome, 0) + 1
        for span in self.spans.values():
            span.end()
        for outcome, n in counts.items():
            _consumed.add(n, {**self.attrs, "outcome": outcome})


_MessageSpans._current = contextvars.ContextVar("repodigest_message_spans", default=None)


GC_GEN0_THRESHOLD = 20_000


def _batch_friendly_gc() -> None:
    """Decoding a batch allocates many short-lived objects (pydantic models, dicts, datetimes):
    with CPython's default thresholds (700, 10, 10) the collector runs every few events and
    rescans the long-lived heap (FastStream, SQLAlchemy, compiled rules) over and over. Once per
    process, when the thresholds are still the defaults: move what exists after start-up out of
    the collector's sight (gc.freeze) and collect young objects every 20,000 allocations."""
    import gc

    if gc.get_threshold() != (700, 10, 10):
        return  # already tuned here, or by the operator: leave it
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, 20, 100)


_paused_batches = 0  # batches in progress in this process with the collector paused
_resume_collector = False


@contextlib.contextmanager
def collector_paused() -> "Iterator[None]":
    """No cyclic garbage collection while a batch is handled. A batch's decoded events (tens of
    thousands of small objects) are alive until its end, so every collection during the batch
    traverses all of them again: ~15-20 µs per event in each service (bench.pipeline). They are
    freed by reference counting when the batch ends; the collector resumes then, finding only
    what really survived (cycles included: nothing is lost, only postponed to the batch's end).
    Batches of several consumers in one process share one pause: the last to finish resumes."""
    import gc

    global _paused_batches, _resume_collector
    if _paused_batches == 0:
        _resume_collector = gc.isenabled()
        gc.disable()
    _paused_batches += 1
    try:
        yield
    finally:
        _paused_batches -= 1
        if _paused_batches == 0 and _resume_collector:
            gc.enable()


def _deliveries(msg: "Msg") -> int:
    try:
        return int(msg.metadata.num_delivered)
    except Exception:  # noqa: BLE001 - core (non-JetStream) messages have no metadata
        return 1


def _meta(msg: "Msg") -> tuple[str | None, int | None]:
    try:
        return msg.metadata.stream, int(msg.metadata.sequence.stream)
    except Exception:  # noqa: BLE001
        return None, None


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:600]}"

