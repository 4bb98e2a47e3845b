"""OpenTelemetry set-up from the standard OTEL_* variables: OTLP when configured, console on request.

Nothing is exported when neither OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) nor
REPODIGEST_OTEL_CONSOLE is set, so local runs cost nothing.
"""

from __future__ import annotations

import logging
import os
import sys

from opentelemetry import metrics, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

_configured = False


def setup_telemetry(service: str) -> TracerProvider | None:
    """Install a tracer provider for `service` once per process; return it (None if disabled)."""
    global _configured
    if _configured:
        provider = trace.get_tracer_provider()
        return provider if isinstance(provider, TracerProvider) else None
    _configured = True
    endpoint = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    exporter_name = os.environ.get("OTEL_TRACES_EXPORTER", "otlp" if endpoint else "none")
    console = os.environ.get("REPODIGEST_OTEL_CONSOLE", "").lower() in {"1", "true", "yes"}
    if exporter_name == "none" and not console:
        return None
    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", service),
                                "service.namespace": "repodigest"})
    provider = TracerProvider(resource=resource)
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    if exporter_name == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    if console or exporter_name == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    trace.set_tracer_provider(provider)
    return provider


def tracer(name: str) -> trace.Tracer:
    return trace.get_tracer(f"repodigest.{name}")


def meter(name: str) -> metrics.Meter:
    return metrics.get_meter(f"repodigest.{name}")


def setup_logging(level: str = "INFO", json_lines: bool = False) -> None:
    """Structured logs: `key=value` (or JSON lines) with the trace id when a span is active."""
    root = logging.getLogger()
    if getattr(root, "_repodigest", False):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter(json_lines))
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root._repodigest = True  # type: ignore[attr-defined]


class _Formatter(logging.Formatter):
    def __init__(self, json_lines: bool) -> None:
        super().__init__()
        self.json_lines = json_lines

    def format(self, record: logging.LogRecord) -> str:
        span = trace.get_current_span().get_span_context()
        fields = {"level": record.levelname.lower(), "logger": record.name,
                  "msg": record.getMessage()}
        if span.is_valid:
            fields["trace_id"] = format(span.trace_id, "032x")
        if record.exc_info:
            fields["exc"] = self.formatException(record.exc_info)
        if self.json_lines:
            import json

            return json.dumps(fields, ensure_ascii=False)
        stamp = self.formatTime(record, "%H:%M:%S")
        extra = " ".join(f"{k}={v}" for k, v in fields.items() if k not in {"level", "logger", "msg"})
        return f"{stamp} {record.levelname:<7} {record.name}: {fields['msg']}" + (f" {extra}" if extra else "")
