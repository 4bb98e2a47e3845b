"""Issue 17's telemetry findings, each against the real OpenTelemetry SDK: seconds histograms
with second-scale buckets, span names without repository names, `messaging.operation.name`, and a
span queue that a demo-sized run does not overflow."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

import shared.events as ev
from shared.config import CommonSettings
from shared.messaging import Subjects, subject_template
from shared.service import Runtime
from shared.telemetry import SECONDS_BUCKETS, metric_views, span_processor

REPO = "acme-owner/acme-repo"


def histogram_points(reader: InMemoryMetricReader) -> dict:
    data = reader.get_metrics_data()
    return {
        m.name: m.data.data_points[0]
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
    }


def test_seconds_histograms_get_second_scale_buckets():
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader], views=metric_views())
    meter = provider.get_meter("repodigest.test")
    meter.create_histogram("repodigest.renderer.render.duration", unit="s").record(2.96)
    meter.create_histogram("repodigest.handler.duration", unit="s").record(0.004)
    meter.create_histogram("bytes.size", unit="By").record(2.96)  # not seconds: untouched
    points = histogram_points(reader)
    render = points["repodigest.renderer.render.duration"]
    assert tuple(render.explicit_bounds) == SECONDS_BUCKETS
    # the 2.96 s PDF lands in (2.5, 5], not in the first bucket of the millisecond defaults
    assert render.bucket_counts[SECONDS_BUCKETS.index(5.0)] == 1
    handler = points["repodigest.handler.duration"]
    assert handler.bucket_counts[SECONDS_BUCKETS.index(0.005)] == 1
    assert tuple(points["bytes.size"].explicit_bounds) != SECONDS_BUCKETS
    provider.shutdown()


class SlowCollector(SpanExporter):
    """An exporter that holds its first export until released, as a busy collector does."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.exported = 0

    def export(self, spans) -> SpanExportResult:
        self.release.wait(60)
        self.exported += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.release.set()


# the offline demo (2,353 facts) makes 11,820 spans for one language; twice that, at once
DEMO_SPANS = 2 * 11_820


def test_the_span_processor_keeps_every_span_of_a_demo_sized_run(caplog):
    exporter = SlowCollector()
    provider = TracerProvider()
    provider.add_span_processor(span_processor(exporter))
    tracer = provider.get_tracer("repodigest.test")
    with caplog.at_level(logging.WARNING):
        for i in range(DEMO_SPANS):
            tracer.start_span(f"span {i % 7}").end()
        exporter.release.set()
        assert provider.force_flush(60_000)
    assert "Queue full" not in caplog.text
    assert exporter.exported == DEMO_SPANS
    provider.shutdown()


@pytest.mark.parametrize(
    "subject,template",
    [
        (
            "rd.github.pull_request.merged.acme-owner.acme-repo",
            "rd.github.pull_request.merged.{owner}.{repo}",
        ),
        ("rd.enriched.comment.created.a.b", "rd.enriched.comment.created.{owner}.{repo}"),
        ("rd.github.sync.watermark.a.b", "rd.github.sync.watermark.{owner}.{repo}"),
        ("rd.summary.ready.a.b", "rd.summary.ready.{owner}.{repo}"),
        ("rd.report.ready.a.b", "rd.report.ready.{owner}.{repo}"),
        ("rd.dead.classifier", "rd.dead.classifier"),
    ],
)
def test_subject_templates_drop_the_repository(subject, template):
    assert subject_template(subject) == template


async def test_publish_spans_name_the_subject_template_and_the_operation(
    nats_server, finished_spans
):
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "test")
    await runtime.start()
    try:
        bus = runtime.bus("test")
        item = ev.ItemSnapshot(
            repo=REPO,
            number=7,
            kind="pull_request",
            title="PR 7",
            author=ev.Actor(login="dev"),
            state="open",
            created_at=datetime(2026, 6, 8, tzinfo=UTC),
        )
        fact = ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="opened", item=item))
        subject = Subjects.fact("pull_request", "opened", REPO)
        await bus.publish_many([(fact, subject, None)])  # our PRODUCER span
        await bus.publish(fact, subject)  # the same path (a batch of one): our PRODUCER span
    finally:
        await runtime.stop()
    spans = finished_spans.get_finished_spans()
    publishes = [s for s in spans if s.name.endswith(" publish")]
    assert len(publishes) >= 2, [s.name for s in spans]
    assert not [s.name for s in spans if "acme" in s.name]
    for span in publishes:
        assert span.name == "rd.github.pull_request.opened.{owner}.{repo} publish"
        assert span.attributes["messaging.destination.name"] == subject  # the repo: an attribute
    ours = [s for s in publishes if "messaging.operation.type" in s.attributes]
    assert ours and all(s.attributes["messaging.operation.name"] == "publish" for s in ours)
