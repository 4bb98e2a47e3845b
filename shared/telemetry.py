"""OpenTelemetry for every service: providers from the standard OTEL_* variables, the trace context
of consumed messages, span links from a report to the facts it counts, and the Prometheus text.

Traces: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT, or OTEL_TRACES_EXPORTER=
otlp) is set, the console when REPODIGEST_OTEL_CONSOLE is set, nothing otherwise. Metrics: always
kept in process for the Prometheus scrape endpoint (`/metrics` on the health port, nothing leaves
the process unless scraped), and pushed over OTLP on the same conditions as traces (or
OTEL_METRICS_EXPORTER=otlp; `none` or `prometheus` keeps them in process, e.g. beside a Jaeger
all-in-one that takes no metrics). OTEL_SDK_DISABLED=true turns everything off.

Signals (Prometheus names in brackets):
- spans: `<durable> process` (CONSUMER, one per message, child of its traceparent; NATS headers
  carry the context, never bodies), `<durable> handle batch` (linked to its messages),
  `GitHub GET` / `GitHub GraphQL` (CLIENT, `github.ratelimit.*`), `GitHub sync`, `GitHub fact
  <kind>.<action>` (a new trace per fact, linked to the sync or delivery), `classifier.classify`,
  `summarizer.fold`, `summarizer.summarize` (links to the traces of the counted facts),
  `renderer.render <format>`, `object-store put`; `<subject template> publish` (PRODUCER; ours and
  FastStream's, which adds `create`): span names and metric labels carry the subject with
  `{owner}.{repo}` for the repository, the subject itself is the attribute
  `messaging.destination.name`; messaging spans carry `messaging.operation.name`.
- `service.name`: a process running several services (`repodigest serve all`, `report` with its
  services in process) gives each its own, `repodigest-<service>`: spans started while a service
  works (`service_context`: its consumers, its background tasks, its FastStream subscribers) come
  from a tracer provider with that service's Resource, sharing the process's span processors and
  exporter (ServiceTracerProvider). A process of one service keeps OTEL_SERVICE_NAME for it.
- histograms in seconds get second-scale buckets (SECONDS_BUCKETS, a View); the span queue holds
  a large run's spans (SPAN_QUEUE_SIZE; OTEL_BSP_* override).
- metrics: repodigest.events.consumed {service, consumer, outcome} [repodigest_events_consumed_total],
  repodigest.events.published {service, stream}, repodigest.events.dead_lettered {service},
  repodigest.handler.duration {service, consumer, mode} [repodigest_handler_duration_seconds],
  repodigest.consumer.lag {consumer, stream, state=pending|ack_pending},
  repodigest.github.ratelimit.remaining {resource}, repodigest.summarizer.windows
  {change=closed|reopened}, repodigest.summarizer.events, repodigest.summarizer.summaries,
  repodigest.renderer.render.duration {format}; FastStream adds messaging.process.duration etc.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.trace import TracerProvider

_configured = False
_prometheus_reader: Any = None
T = TypeVar("T")

# Bucket boundaries (seconds) for every histogram whose unit is "s": the SDK's default ones are
# meant for milliseconds (0, 5, 10, 25, … 10000), so every handler run and every render, a 2.96 s
# PDF included, fell in le=5 and the histograms said nothing.
SECONDS_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
    120.0,
    300.0,
)
# The span queue: a 2,350-fact run makes tens of thousands of spans within seconds (a fact's
# ingest, classify, fold and publish spans), more than the SDK's 2,048, and the processor dropped
# ~10% of them ("Queue full, dropping Span"). OTEL_BSP_* variables still override these.
SPAN_QUEUE_SIZE = 65_536
SPAN_EXPORT_BATCH = 4_096
SPAN_SCHEDULE_DELAY_MS = 1_000


def metric_views() -> list[Any]:
    """Views every meter provider of repodigest gets: second-scale buckets for seconds."""
    from opentelemetry.sdk.metrics import Histogram
    from opentelemetry.sdk.metrics.view import ExplicitBucketHistogramAggregation, View

    return [
        View(
            instrument_type=Histogram,
            instrument_unit="s",
            aggregation=ExplicitBucketHistogramAggregation(SECONDS_BUCKETS),
        )
    ]


def span_processor(exporter: Any) -> Any:
    """A batch span processor sized so that a large run drops no span."""
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    def env(name: str, default: int) -> int | None:
        return None if os.environ.get(name) else default  # None: the SDK reads the variable

    return BatchSpanProcessor(
        exporter,
        max_queue_size=env("OTEL_BSP_MAX_QUEUE_SIZE", SPAN_QUEUE_SIZE),
        max_export_batch_size=env("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", SPAN_EXPORT_BATCH),
        schedule_delay_millis=env("OTEL_BSP_SCHEDULE_DELAY", SPAN_SCHEDULE_DELAY_MS),
    )


# ---------------------------------------------------------------- one service.name per service

_service: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "repodigest_service", default=None
)


def service_name(service: str) -> str:
    """The `service.name` of a repodigest service (ingest -> repodigest-ingest)."""
    return service if service.startswith("repodigest") else f"repodigest-{service}"


@contextlib.contextmanager
def service_context(service: str | None) -> Iterator[None]:
    """Spans started in this block, and in the tasks created in it, are `service`'s: they carry
    its `service.name` (see ServiceTracerProvider). None: the process's own."""
    token = _service.set(service)
    try:
        yield
    finally:
        _service.reset(token)


def current_service() -> str | None:
    return _service.get()


def enter_service(service: str) -> contextvars.Token:
    """`service_context` for hooks that enter and leave in two calls (a middleware)."""
    return _service.set(service)


def leave_service(token: contextvars.Token) -> None:
    _service.reset(token)


class ServiceTracerProvider(TracerProvider):
    """The process's tracer provider, with one SDK provider per service behind it.

    A span's Resource (and so its `service.name`) is its provider's: OpenTelemetry has no
    per-span resource. So each service gets a TracerProvider of its own whose Resource is the
    process's with `service.name` = repodigest-<service>, all sharing this provider's span
    processors (one queue, one exporter; OTLP groups spans by resource). Tracers handed out pick
    the provider of the service whose work is running (`service_context`) at each span start,
    so module-level tracers (`tracer("bus")`, FastStream's) serve every service in the process.
    Processors added later (`add_span_processor`) serve every service too.
    """

    def __init__(
        self, resource: Resource, process_service: str | None = None, **kwargs: Any
    ) -> None:
        from opentelemetry.sdk.trace import SynchronousMultiSpanProcessor

        self._shared = SynchronousMultiSpanProcessor()
        super().__init__(resource=resource, active_span_processor=self._shared, **kwargs)
        self._process_service = process_service
        self._providers: dict[str, TracerProvider] = {}
        self._providers_lock = threading.Lock()

    def provider_for(self, service: str | None) -> TracerProvider:
        """The provider whose spans carry `service`'s name (this one for the process's own)."""
        if service is None or service_name(service) == self._process_service:
            return self
        provider = self._providers.get(service)
        if provider is None:
            with self._providers_lock:
                provider = self._providers.get(service)
                if provider is None:
                    resource = self.resource.merge(
                        Resource({"service.name": service_name(service)})
                    )
                    provider = TracerProvider(
                        sampler=self.sampler,
                        resource=resource,
                        shutdown_on_exit=False,
                        active_span_processor=self._shared,
                        id_generator=self.id_generator,
                    )
                    self._providers[service] = provider
        return provider

    def get_tracer(
        self,
        instrumenting_module_name: str,
        instrumenting_library_version: str | None = None,
        schema_url: str | None = None,
        attributes: Any = None,
    ) -> trace.Tracer:
        scope = (instrumenting_module_name, instrumenting_library_version, schema_url, attributes)
        tracer = super().get_tracer(*scope)
        if not isinstance(tracer, SdkTracer):  # OTEL_SDK_DISABLED: a no-op tracer
            return tracer
        return _ServiceTracer(self, scope, tracer)


class _ServiceTracer(trace.Tracer):
    """A tracer that starts each span on the provider of the service at work."""

    def __init__(self, provider: ServiceTracerProvider, scope: tuple, own: trace.Tracer) -> None:
        self._provider, self._scope = provider, scope
        self._tracers: dict[str | None, trace.Tracer] = {None: own}

    def _current(self) -> trace.Tracer:
        service = _service.get()
        tracer = self._tracers.get(service)
        if tracer is None:
            provider = self._provider.provider_for(service)
            tracer = (
                provider.get_tracer(*self._scope)
                if provider is not self._provider
                else self._tracers[None]
            )
            self._tracers[service] = tracer
        return tracer

    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        return self._current().start_span(*args, **kwargs)

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        return self._current().start_as_current_span(*args, **kwargs)


def new_tracer_provider(service: str) -> ServiceTracerProvider:
    """The process's provider: `service.name` from OTEL_SERVICE_NAME, else `service`."""
    resource = Resource.create(
        {
            "service.name": os.environ.get("OTEL_SERVICE_NAME", service),
            "service.namespace": "repodigest",
        }
    )
    return ServiceTracerProvider(resource, process_service=service)


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").lower() in {"1", "true", "yes", "on"}


def setup_telemetry(service: str, *, prometheus: bool = True) -> TracerProvider | None:
    """Install tracer and meter providers for `service` once per process; return the tracer
    provider (None when no span is exported)."""
    global _configured
    if _configured:
        provider = trace.get_tracer_provider()
        return provider if isinstance(provider, TracerProvider) else None
    _configured = True
    if _truthy("OTEL_SDK_DISABLED"):
        return None
    resource = Resource.create(
        {
            "service.name": os.environ.get("OTEL_SERVICE_NAME", service),
            "service.namespace": "repodigest",
        }
    )
    endpoint = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    _setup_metrics(
        resource, endpoint or os.environ.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"), prometheus
    )
    endpoint = endpoint or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    exporter_name = os.environ.get("OTEL_TRACES_EXPORTER", "otlp" if endpoint else "none")
    console = _truthy("REPODIGEST_OTEL_CONSOLE")
    if exporter_name == "none" and not console:
        return None
    provider = ServiceTracerProvider(resource, process_service=service)
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    if exporter_name == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(span_processor(OTLPSpanExporter()))
    if console or exporter_name == "console":
        provider.add_span_processor(span_processor(ConsoleSpanExporter(out=sys.stderr)))
    trace.set_tracer_provider(provider)
    return provider


def _setup_metrics(resource: Resource, endpoint: str | None, prometheus: bool) -> None:
    from opentelemetry.sdk.metrics import MeterProvider

    readers: list[Any] = []
    if prometheus:
        try:
            from opentelemetry.exporter.prometheus import PrometheusMetricReader
        except ImportError:  # the optional exporter is absent: /metrics answers 501
            logging.getLogger("repodigest.telemetry").info(
                "opentelemetry-exporter-prometheus is not installed: no /metrics"
            )
        else:
            global _prometheus_reader
            _prometheus_reader = PrometheusMetricReader()
            readers.append(_prometheus_reader)
    exporter_name = os.environ.get("OTEL_METRICS_EXPORTER", "otlp" if endpoint else "none")
    if exporter_name == "otlp":
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        readers.append(PeriodicExportingMetricReader(OTLPMetricExporter()))
    if readers:
        metrics.set_meter_provider(
            MeterProvider(resource=resource, metric_readers=readers, views=metric_views())
        )


def shutdown_telemetry() -> None:
    """Flush what is buffered (spans and metrics) before the process exits."""
    for provider in (trace.get_tracer_provider(), metrics.get_meter_provider()):
        shutdown = getattr(provider, "shutdown", None)
        if shutdown is not None:
            with contextlib.suppress(Exception):
                shutdown()


def tracing_enabled() -> bool:
    """Whether spans are recorded in this process (an SDK tracer provider is installed).

    Hot paths skip per-message spans without one; the incoming trace context is still passed on."""
    return isinstance(trace.get_tracer_provider(), TracerProvider)


def tracer(name: str) -> trace.Tracer:
    return trace.get_tracer(f"repodigest.{name}")


def meter(name: str) -> metrics.Meter:
    return metrics.get_meter(f"repodigest.{name}")


def prometheus_text() -> tuple[bytes, str] | None:
    """The Prometheus exposition of this process's metrics, or None without the exporter."""
    if _prometheus_reader is None:
        return None
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


# ---------------------------------------------------------------- context across NATS


def extract(headers: Mapping[str, str] | None) -> otel_context.Context:
    """The W3C trace context a message carries in its headers (empty when it carries none)."""
    return propagate.extract(dict(headers or {}))


def inject(headers: dict[str, str]) -> dict[str, str]:
    """Put the current trace context into message headers (traceparent, tracestate)."""
    propagate.inject(headers)
    return headers


def inject_context(headers: dict[str, str], ctx: otel_context.Context) -> dict[str, str]:
    """Put the trace context `ctx` (not necessarily the current one) into message headers."""
    propagate.inject(headers, context=ctx)
    return headers


# Consumed messages' contexts by event id, for handlers that work on a whole batch and must
# continue each event's own trace (the classifier publishes one enriched fact per fact).
_consumed: contextvars.ContextVar[Mapping[str, otel_context.Context] | None] = (
    contextvars.ContextVar("repodigest_consumed", default=None)
)


@contextlib.contextmanager
def consuming(contexts: Mapping[str, otel_context.Context]) -> Iterator[None]:
    token = _consumed.set(contexts)
    try:
        yield
    finally:
        _consumed.reset(token)


def consumed_context(event_id: str) -> otel_context.Context | None:
    """The context of the consumed message carrying `event_id` (its process span), if any."""
    contexts = _consumed.get()
    return contexts.get(event_id) if contexts else None


@contextlib.contextmanager
def continuing(event_id: str) -> Iterator[None]:
    """Make the consumed message's context current, so spans and publishes join its trace."""
    ctx = consumed_context(event_id)
    if ctx is None:
        yield
        return
    token = otel_context.attach(ctx)
    try:
        yield
    finally:
        otel_context.detach(token)


async def in_context_of(event_id: str, awaitable: Awaitable[T]) -> T:
    """Await `awaitable` (a publish) in the trace of the consumed event `event_id`."""
    with continuing(event_id):
        return await awaitable


# ---------------------------------------------------------------- links from reports to facts


class TraceIndex:
    """A bounded map from a fact id to the span context of the message that delivered it."""

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, trace.SpanContext] = OrderedDict()

    def remember(self, key: str, span_context: trace.SpanContext) -> None:
        if not span_context.is_valid:
            return
        self._items[key] = span_context
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def get(self, key: str) -> trace.SpanContext | None:
        return self._items.get(key)

    def __len__(self) -> int:
        return len(self._items)


TRACES = TraceIndex()
MAX_LINKS = 32


def remember_traces(pairs: Iterable[tuple[str, str]]) -> None:
    """Record, for each (fact id, consumed event id), the span context that event arrived in."""
    for key, event_id in pairs:
        ctx = consumed_context(event_id)
        if ctx is not None:
            TRACES.remember(key, trace.get_current_span(ctx).get_span_context())


def link_traces(span: trace.Span, keys: Iterable[str], limit: int = MAX_LINKS) -> int:
    """Link `span` to the traces of up to `limit` remembered facts; return how many it linked.

    Facts folded before this process started (a restart, a rebuild) have no remembered context:
    the link is best effort, the fact ids in the summary are the durable record."""
    linked = 0
    seen: set[int] = set()
    for key in keys:
        if linked >= limit:
            break
        ctx = TRACES.get(key)
        if ctx is None or ctx.span_id in seen:
            continue
        seen.add(ctx.span_id)
        span.add_link(ctx, {"repodigest.fact_id": key})
        linked += 1
    if linked:
        span.set_attribute("repodigest.linked_facts", linked)
    return linked


# ---------------------------------------------------------------- logs


def setup_logging(level: str = "INFO", json_lines: bool = False) -> None:
    """Structured logs: `key=value` (or JSON lines) with the trace id when a span is active."""
    root = logging.getLogger()
    if getattr(root, "_repodigest", False):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogFormatter(json_lines))
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root._repodigest = True  # type: ignore[attr-defined]
    if root.getEffectiveLevel() > logging.DEBUG:
        # Alembic announces its seven plugins and the dialect at every start; the upgrades it
        # actually runs ("Running upgrade 0001 -> 0002") are still logged
        logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
        migration = logging.getLogger("alembic.runtime.migration")
        if _alembic_chatter not in migration.filters:
            migration.addFilter(_alembic_chatter)


def _alembic_chatter(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith(("Context impl", "Will assume"))


# LogRecord attributes that are not `extra=` fields
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
}


class LogFormatter(logging.Formatter):
    """`key=value` lines (or JSON lines): level, logger, message, `extra=` fields, trace and span ids."""

    converter = staticmethod(time.gmtime)

    def __init__(self, json_lines: bool) -> None:
        super().__init__()
        self.json_lines = json_lines

    def format(self, record: logging.LogRecord) -> str:
        span = trace.get_current_span().get_span_context()
        fields: dict[str, Any] = {
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_") and key not in fields:
                fields[key] = value
        if span.is_valid:
            fields["trace_id"] = format(span.trace_id, "032x")
            fields["span_id"] = format(span.span_id, "016x")
        if record.exc_info:
            fields["exc"] = self.formatException(record.exc_info)
        if self.json_lines:
            fields["time"] = (
                self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z"
            )
            return json.dumps(fields, ensure_ascii=False, default=str)
        stamp = self.formatTime(record, "%H:%M:%S")
        extra = " ".join(
            f"{k}={v}" for k, v in fields.items() if k not in {"level", "logger", "msg"}
        )
        return f"{stamp} {record.levelname:<7} {record.name}: {fields['msg']}" + (
            f" {extra}" if extra else ""
        )
