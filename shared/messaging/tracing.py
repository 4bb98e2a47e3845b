"""Tracing and metrics of the bus: FastStream's telemetry middleware with subject templates, one
consumer span per message continuing its publisher's trace, producer spans, and the counters."""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from shared import telemetry

from .subjects import subject_template

if TYPE_CHECKING:
    from nats.aio.msg import Msg

_tracer = telemetry.tracer("bus")
_meter = telemetry.meter("bus")
consumed = _meter.create_counter(
    "repodigest.events.consumed",
    unit="{event}",
    description="messages a durable consumer finished with, by outcome (ok, retried, dead)",
)
published = _meter.create_counter(
    "repodigest.events.published", unit="{event}", description="events published, by stream"
)
dead_lettered = _meter.create_counter(
    "repodigest.events.dead_lettered",
    unit="{event}",
    description="messages parked in RD_DEAD by the service that gave up on them",
)
handler_duration = _meter.create_histogram(
    "repodigest.handler.duration",
    unit="s",
    description="time a consumer spent handling one fetched batch (or one message)",
)


def short(exc: BaseException) -> str:
    """An error in one line, bounded: for logs, span status and dead letters."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:600]}"


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


def trace_headers(
    headers: dict[str, str],
    subject: str,
    message_id: str | None,
    ctx: otel_context.Context | None,
    tracing: bool,
) -> Any:
    """Put the trace in a message's headers: the context `ctx` (a consumed message's; None for
    the current one), under a new PRODUCER span when spans are recorded (returned, to be ended
    once the publish is acknowledged or given up)."""
    if not tracing:
        if ctx is not None:
            telemetry.inject_context(headers, ctx)
        elif "traceparent" not in headers:
            telemetry.inject(headers)
        return None
    template = subject_template(subject)
    span = _tracer.start_span(
        f"{template} publish",
        context=ctx,
        kind=SpanKind.PRODUCER,
        attributes={
            "messaging.system": "nats",
            "messaging.operation.type": "publish",
            "messaging.operation.name": "publish",
            "messaging.destination.name": subject,
            "messaging.destination.template": template,
            "messaging.message.id": message_id or "",
        },
    )
    telemetry.inject_context(headers, trace.set_span_in_context(span, ctx))
    return span


def end_spans(spans: list[Any], error: BaseException | None = None) -> None:
    for span in spans:
        if span is None:
            continue
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, short(error)))
        span.end()


class MessageSpans:
    """One consumer span per message, each continuing the trace its publisher put in the headers.

    FastStream's telemetry middleware gives a fetched batch one span in a new trace; a batch holds
    events of many traces, so each message gets its own span here, parented by its traceparent.
    Batch handlers find each event's context by event id (`shared.telemetry.continuing`) and run
    under a batch span linked to the messages' spans (bounded).
    """

    MAX_BATCH_LINKS = 64
    _current: contextvars.ContextVar[MessageSpans | None]

    def __init__(self, consumer: Any, msgs: list[Msg]) -> None:
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
        for msg in msgs if self.tracing else ():
            span = _tracer.start_span(
                name,
                context=telemetry.extract(msg.headers),
                kind=SpanKind.CONSUMER,
                attributes={
                    "messaging.system": "nats",
                    "messaging.operation.type": "process",
                    "messaging.operation.name": "process",
                    "messaging.destination.name": msg.subject,
                    "messaging.destination.template": subject_template(msg.subject),
                    "messaging.consumer.group.name": consumer.spec.durable,
                    "messaging.message.id": (msg.headers or {}).get("Nats-Msg-Id", ""),
                    "messaging.message.body.size": len(msg.data or b""),
                },
            )
            self.spans[id(msg)] = span
        self._token = MessageSpans._current.set(self)

    def identify(self, decoded: list[tuple[Msg, Any]]) -> None:
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
    def batch(self, size: int) -> Iterator[None]:
        start = time.perf_counter()
        if not self.tracing:
            try:
                with telemetry.consuming(self.contexts):
                    yield
            finally:
                handler_duration.record(
                    time.perf_counter() - start, {**self.attrs, "mode": "batch"}
                )
            return
        links = [
            trace.Link(s.get_span_context())
            for s in list(self.spans.values())[: self.MAX_BATCH_LINKS]
        ]
        try:
            with (
                telemetry.consuming(self.contexts),
                _tracer.start_as_current_span(
                    f"{self.consumer.spec.durable} handle batch",
                    links=links,
                    attributes={"messaging.batch.message_count": size, **self.attrs},
                ),
            ):
                yield
        finally:
            handler_duration.record(time.perf_counter() - start, {**self.attrs, "mode": "batch"})

    @contextlib.contextmanager
    def single(self, msg: Msg) -> Iterator[None]:
        start = time.perf_counter()
        span = self.spans.get(id(msg))
        token = otel_context.attach(trace.set_span_in_context(span)) if span is not None else None
        try:
            with telemetry.consuming(self.contexts):
                yield
        finally:
            if token is not None:
                otel_context.detach(token)
            handler_duration.record(time.perf_counter() - start, {**self.attrs, "mode": "single"})

    def outcome(self, msg: Msg, outcome: str, error: BaseException | str | None = None) -> None:
        self.outcomes[id(msg)] = outcome
        span = self.spans.get(id(msg))
        if span is None:
            return
        span.set_attribute("repodigest.outcome", outcome)
        if error is not None:
            if isinstance(error, BaseException):
                span.record_exception(error)
            span.set_status(
                Status(
                    StatusCode.ERROR,
                    short(error) if isinstance(error, BaseException) else str(error)[:300],
                )
            )

    @staticmethod
    @contextlib.contextmanager
    def attached(msg: Msg) -> Iterator[None]:
        current = MessageSpans._current.get()
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
    def mark(msg: Msg, outcome: str, error: BaseException | str | None = None) -> None:
        current = MessageSpans._current.get()
        if current is not None:
            current.outcome(msg, outcome, error)

    def end(self) -> None:
        MessageSpans._current.reset(self._token)
        counts: dict[str, int] = {}
        for key in self.keys:
            outcome = self.outcomes.get(key, "unfinished")
            counts[outcome] = counts.get(outcome, 0) + 1
        for span in self.spans.values():
            span.end()
        for outcome, n in counts.items():
            consumed.add(n, {**self.attrs, "outcome": outcome})


MessageSpans._current = contextvars.ContextVar("repodigest_message_spans", default=None)
