"""Spans and metrics leave a service process over OTLP/HTTP, configured only by OTEL_* variables.

`python -m services.classifier` runs as a subprocess on a real nats-server with
OTEL_EXPORTER_OTLP_ENDPOINT pointing at a receiver in this test, which decodes the protobuf
export requests with opentelemetry-proto. A fact published with a traceparent header must come
back as spans of that trace; its /metrics must count it; its logs must carry the trace id and
never the NATS token.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import nats
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

import shared.events as ev
from shared.messaging import Subjects
from tests.conftest import ROOT
from tests.signals import LineWatch

pytestmark = pytest.mark.timeout(120)

REPO = "acme/otlp"
TOKEN = "nats-token-must-never-be-logged-7f3a"


class OtlpReceiver:
    """A minimal OTLP/HTTP collector: POST /v1/traces and /v1/metrics, protobuf bodies."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.spans: asyncio.Queue = asyncio.Queue()
        self.metric_names: asyncio.Queue = asyncio.Queue()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    for rs in request.resource_spans:
                        service = next(
                            (
                                a.value.string_value
                                for a in rs.resource.attributes
                                if a.key == "service.name"
                            ),
                            None,
                        )
                        for ss in rs.scope_spans:
                            for span in ss.spans:
                                loop.call_soon_threadsafe(
                                    receiver.spans.put_nowait, (service, span)
                                )
                elif self.path == "/v1/metrics":
                    request = ExportMetricsServiceRequest.FromString(body)
                    for rm in request.resource_metrics:
                        for sm in rm.scope_metrics:
                            for metric in sm.metrics:
                                loop.call_soon_threadsafe(
                                    receiver.metric_names.put_nowait, metric.name
                                )
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


async def wait_for(queue: asyncio.Queue, seen: list, match, timeout: float, what: str):
    """The first item received (now or before) that matches; `seen` keeps every item."""
    for item in seen:
        if match(item):
            return item
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(f"{what} did not arrive within {timeout}s")
        try:
            item = await asyncio.wait_for(queue.get(), remaining)
        except TimeoutError:
            raise AssertionError(f"{what} did not arrive within {timeout}s") from None
        seen.append(item)
        if match(item):
            return item


def merged_fact() -> ev.GithubFact:
    at = datetime(2026, 6, 8, 10, 0, tzinfo=UTC)
    item = ev.ItemSnapshot(
        repo=REPO,
        number=7,
        kind="pull_request",
        title="[Core] export spans",
        author=ev.Actor(login="dev"),
        state="closed",
        created_at=at,
        closed_at=at,
        merged_at=at,
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="merged", item=item))


async def test_service_exports_spans_and_metrics_over_otlp(nats_server):
    loop = asyncio.get_running_loop()
    trace_id, parent_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    with OtlpReceiver(loop) as receiver:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "REPODIGEST_"))}
        env.update(
            {
                "REPODIGEST_NATS_URL": nats_server.url,
                "REPODIGEST_NATS_TOKEN": TOKEN,
                "REPODIGEST_HEALTH_PORT": "0",
                "REPODIGEST_LOG_LEVEL": "DEBUG",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
                "OTEL_BSP_SCHEDULE_DELAY": "100",
                "OTEL_METRIC_EXPORT_INTERVAL": "500",
            }
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "services.classifier",
            cwd=str(ROOT),
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        stderr = LineWatch(proc.stderr)
        nc = await nats.connect(nats_server.url)
        try:
            # the service binds a port of its own (0) and logs it once it has started (connected,
            # its consumers consuming): no port found free beforehand, which another process
            # could take before the service bound it; an exit ends the wait at once
            announced = re.compile(r"health endpoints on http://127\.0\.0\.1:(\d+) ")
            line = await stderr.line(announced.pattern, 60, "the service to log its health port")
            health_port = int(announced.search(line).group(1))
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{health_port}", timeout=5
            ) as client:
                ready = await client.get("/readyz")
                assert ready.status_code == 200, ready.text

                bad_trace = "0af7651916cd43dd8448eb211c80319c"
                await nc.jetstream().publish(
                    Subjects.fact("pull_request", "merged", REPO),
                    b'{"not": "an event"}',
                    headers={
                        "Nats-Msg-Id": "bad-1",
                        "traceparent": f"00-{bad_trace}-b7ad6b7169203331-01",
                    },
                )
                fact = merged_fact()
                await nc.jetstream().publish(
                    Subjects.fact("pull_request", "merged", REPO),
                    fact.to_bytes(),
                    headers={
                        "Nats-Msg-Id": fact.id,
                        "traceparent": f"00-{trace_id}-{parent_span}-01",
                    },
                )

                def of_trace(name):
                    return lambda item: item[1].name == name and item[1].trace_id.hex() == trace_id

                spans: list = []
                service, process = await wait_for(
                    receiver.spans,
                    spans,
                    of_trace("classifier-enrich process"),
                    60,
                    "the consumer span of the published fact",
                )
                assert service == "repodigest-classifier"
                assert process.parent_span_id.hex() == parent_span  # continues the sender's span
                await wait_for(
                    receiver.spans,
                    spans,
                    of_trace("classifier.classify"),
                    30,
                    "the classification span",
                )
                await wait_for(
                    receiver.metric_names,
                    [],
                    lambda n: n == "repodigest.events.consumed",
                    30,
                    "the consumed-events metric over OTLP",
                )

                scrape = await client.get("/metrics")
                assert scrape.status_code == 200
                consumed = [
                    line
                    for line in scrape.text.splitlines()
                    if line.startswith("repodigest_events_consumed_total{")
                    and 'consumer="classifier-enrich"' in line
                    and 'outcome="ok"' in line
                ]
                assert consumed and float(consumed[0].rsplit(" ", 1)[1]) >= 1, scrape.text[:2000]
        finally:
            await nc.close()
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(proc.wait(), 30)
            await stderr.close()

    logs = stderr.text()
    assert code == 0, logs
    assert TOKEN not in logs
    # the dead-letter warning carries the trace of the message it parked
    dead = [line for line in logs.splitlines() if "dead-lettered message" in line]
    assert dead and f"trace_id={bad_trace}" in dead[0], logs[-3000:]
