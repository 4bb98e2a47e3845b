"""One `service.name` per service (issue #17 item 9): under `repodigest serve all` (and `report`
with its services in process) the four services share one process, one tracer provider and one
exporter, yet each span carries the name of the service whose work made it."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from datetime import timedelta

from opentelemetry import trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from repodigest.pipeline import ReportJob, run_report
from shared.telemetry import ServiceTracerProvider, new_tracer_provider, service_context
from shared.windows import parse_window


def name_of(span) -> str:
    return span.resource.attributes["service.name"]


async def test_a_span_carries_the_service_at_work_and_its_tasks_inherit_it(monkeypatch):
    monkeypatch.setenv("OTEL_SERVICE_NAME", "ingest-eu")  # an operator's name for the process
    provider = new_tracer_provider("repodigest-ingest")  # `python -m services.ingest`
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("repodigest.bus")  # one module-level tracer for every service

    async def background() -> None:
        tracer.start_span("in a task the classifier started").end()

    with tracer.start_as_current_span("process's own"):
        with service_context("classifier"):
            with tracer.start_as_current_span("classifier work") as parent:
                task = asyncio.create_task(background())
            with service_context("renderer"):
                tracer.start_span("renderer work").end()
        with service_context("ingest"):
            tracer.start_span("ingest work").end()
    await task
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert name_of(spans["classifier work"]) == "repodigest-classifier"
    assert name_of(spans["in a task the classifier started"]) == "repodigest-classifier"
    assert name_of(spans["renderer work"]) == "repodigest-renderer"
    # the process's own spans, and its one service's, keep the operator's OTEL_SERVICE_NAME
    assert name_of(spans["process's own"]) == "ingest-eu"
    assert name_of(spans["ingest work"]) == "ingest-eu"
    # one resource otherwise (the namespace), one trace across services
    assert {s.resource.attributes["service.namespace"] for s in spans.values()} == {"repodigest"}
    assert spans["classifier work"].parent.span_id == spans["process's own"].context.span_id
    assert spans["renderer work"].parent.span_id == spans["process's own"].context.span_id
    assert (
        spans["in a task the classifier started"].parent.span_id
        == parent.get_span_context().span_id
    )
    provider.shutdown()


async def test_services_in_one_process_name_their_own_spans(nats_server, tmp_path, finished_spans):
    assert isinstance(trace.get_tracer_provider(), ServiceTracerProvider), (
        "the process's tracer provider is not repodigest's (setup_telemetry / finished_spans)"
    )
    window = parse_window("week:2026-W33", "UTC")
    history = tmp_path / "merged_prs.jsonl"
    at = (window.start + timedelta(hours=5)).isoformat()
    history.write_text(
        json.dumps(
            {
                "sha": f"{1:040x}",
                "pr_number": 901,
                "title": "[Ops] one change",
                "author_name": "dev",
                "author_email": "dev@example.com",
                "authored_at": at,
                "merged_at": at,
                "files": [{"path": "vllm_ascend/ops/a.py", "additions": 3, "deletions": 1}],
            }
        )
        + "\n"
    )
    await run_report(
        ReportJob(
            repo="vllm-project/vllm-ascend",
            window=window,
            source=f"replay:{history}",
            languages=("en",),
            formats=("md",),
            out_dir=tmp_path / "out",
            nats_url=nats_server.url,
            data_dir=tmp_path / "data",
            progress=False,
            run_services=True,
        )
    )
    spans = finished_spans.get_finished_spans()
    by_name: dict[str, set[str]] = {}
    for span in spans:
        by_name.setdefault(span.name, set()).add(name_of(span))
    expected = {
        "rd.github.pull_request.merged.{owner}.{repo} publish": "repodigest-ingest",
        "classifier-enrich process": "repodigest-classifier",
        "classifier.classify": "repodigest-classifier",
        "rd.enriched.pull_request.merged.{owner}.{repo} publish": "repodigest-classifier",
        "summarizer-fold process": "repodigest-summarizer",
        "summarizer.fold": "repodigest-summarizer",
        "summarizer.summarize": "repodigest-summarizer",
        "renderer-render process": "repodigest-renderer",
        "renderer.render md": "repodigest-renderer",
        "object-store put": "repodigest-renderer",
    }
    for span_name, service in expected.items():
        assert by_name.get(span_name) == {service}, (span_name, by_name.get(span_name))
    services = Counter(name_of(s) for s in spans)
    assert {
        "repodigest-ingest",
        "repodigest-classifier",
        "repodigest-summarizer",
        "repodigest-renderer",
    } <= set(services), services


async def test_a_faststream_subscriber_of_a_service_is_that_services(
    nats_server, tmp_path, finished_spans
):
    """The classifier's reload subject is a FastStream subscriber (not a durable consumer): its
    consume span and its reply are the classifier's too."""
    import nats

    from services.classifier.app import build_service
    from services.classifier.config import ClassifierSettings
    from services.classifier.handlers import RELOAD_SUBJECT
    from shared.service import Runtime

    runtime = Runtime(ClassifierSettings(nats_url=nats_server.url), "two-services")
    runtime.add(build_service(ClassifierSettings(nats_url=nats_server.url), runtime))
    await runtime.start()
    try:
        nc = await nats.connect(nats_server.url)
        try:
            reply = await nc.request(RELOAD_SUBJECT, b"{}", timeout=30)
        finally:
            await nc.close()
        assert json.loads(reply.data)["ok"] is True
    finally:
        await runtime.stop()
    spans = finished_spans.get_finished_spans()
    (consumed,) = [s for s in spans if s.name == f"{RELOAD_SUBJECT} process"]
    assert name_of(consumed) == "repodigest-classifier"
    # FastStream's spans of the message and of the reply the handler sent, in its trace
    in_trace = [s for s in spans if s.context.trace_id == consumed.context.trace_id]
    assert any(s.name.startswith("_INBOX.") and s.name.endswith(" publish") for s in in_trace)
    assert {name_of(s) for s in in_trace} == {"repodigest-classifier"}, [
        (s.name, name_of(s)) for s in in_trace
    ]


async def test_serve_exports_each_services_spans_under_its_name_over_otlp(nats_server, tmp_path):
    """`repodigest serve classifier summarizer` in a subprocess, OTLP/HTTP to a receiver here: one
    fact's trace reaches the receiver as the classifier's and the summarizer's spans, each in a
    ResourceSpans of its own service.name (one exporter)."""
    import os
    import signal
    import sys

    import nats

    from shared.messaging import Subjects
    from tests.conftest import ROOT
    from tests.integration.telemetry.test_telemetry_otlp import (
        REPO,
        OtlpReceiver,
        merged_fact,
        wait_for,
    )

    loop = asyncio.get_running_loop()
    trace_id = "5bf92f3577b34da6a3ce929d0e0e4736"
    with OtlpReceiver(loop) as receiver:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "REPODIGEST_"))}
        env.update(
            {
                "REPODIGEST_NATS_URL": nats_server.url,
                "REPODIGEST_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
                "OTEL_BSP_SCHEDULE_DELAY": "100",
                "OTEL_METRICS_EXPORTER": "none",
            }
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "repodigest",
            "serve",
            "classifier",
            "summarizer",
            cwd=str(ROOT),
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        from tests.signals import LineWatch

        stderr = LineWatch(proc.stderr)
        nc = await nats.connect(nats_server.url)
        try:
            js = nc.jetstream()
            # logged once both services' durables exist and are consumed (an exit ends the wait)
            await stderr.line(
                r"started (?=.*classifier)(?=.*summarizer)", 60, "serve to start both services"
            )
            await js.consumer_info("RD_ENRICHED", "summarizer-fold")
            await js.consumer_info("RD_GITHUB", "classifier-enrich")
            fact = merged_fact()
            await js.publish(
                Subjects.fact("pull_request", "merged", REPO),
                fact.to_bytes(),
                headers={
                    "Nats-Msg-Id": fact.id,
                    "traceparent": f"00-{trace_id}-00f067aa0ba902b7-01",
                },
            )

            def of_trace(name):
                return lambda item: item[1].name == name and item[1].trace_id.hex() == trace_id

            seen: list = []
            for name, service in (
                ("classifier-enrich process", "repodigest-classifier"),
                ("classifier.classify", "repodigest-classifier"),
                ("summarizer-fold process", "repodigest-summarizer"),
            ):
                got, _ = await wait_for(receiver.spans, seen, of_trace(name), 60, name)
                assert got == service, (name, got)
        finally:
            await nc.close()
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(proc.wait(), 30)
            await stderr.close()
    assert code == 0, stderr.text()[-3000:]
