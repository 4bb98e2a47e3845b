"""Logs: structured fields and the active trace id; no secret in them, on the paths that handle
secrets (NATS credentials, the GitHub token on a failing poll, webhook signatures)."""

from __future__ import annotations

import io
import json
import logging
import threading
import uuid

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from shared.natsserver import free_port
from shared.service import NatsUnreachable, Runtime
from shared.telemetry import LogFormatter
from tests.github_emulator import GithubEmulator
from tests.webhook_signing import github_signature

pytestmark = pytest.mark.timeout(90)

GH_TOKEN = "ghp_secretTokenThatMustNeverBeLogged0001"
WEBHOOK_SECRET = "webhook-secret-that-must-never-be-logged"
NATS_PASSWORD = "nats-password-that-must-never-be-logged"


def record(logger: logging.Logger, formatter: logging.Formatter, *args, **kwargs) -> str:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    logger.addHandler(handler)
    try:
        logger.warning(*args, **kwargs)
    finally:
        logger.removeHandler(handler)
    return out.getvalue().strip()


def test_log_lines_carry_fields_and_the_active_trace():
    logger = logging.getLogger("repodigest.test.logs")
    logger.propagate = False
    ctx = SpanContext(
        trace_id=0x4BF92F3577B34DA6A3CE929D0E0E4736,
        span_id=0x00F067AA0BA902B7,
        is_remote=False,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )
    with trace.use_span(NonRecordingSpan(ctx)):
        line = record(
            logger,
            LogFormatter(json_lines=True),
            "folded %d events",
            3,
            extra={"repo": "acme/widgets", "window": "2026-W24"},
        )
        text = record(logger, LogFormatter(json_lines=False), "folded")
    fields = json.loads(line)
    assert fields["msg"] == "folded 3 events" and fields["level"] == "warning"
    assert fields["repo"] == "acme/widgets" and fields["window"] == "2026-W24"
    assert fields["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert fields["span_id"] == "00f067aa0ba902b7"
    assert "trace_id=4bf92f3577b34da6a3ce929d0e0e4736" in text
    outside = json.loads(record(logger, LogFormatter(json_lines=True), "no span"))
    assert "trace_id" not in outside


class Captured(logging.Handler):
    """Every record of the process, formatted as the services format them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(LogFormatter(json_lines=True))
        self.lines: list[str] = []
        self.poll_failed = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))
        if (
            record.name.startswith("repodigest.ingest")
            and record.levelno >= logging.WARNING
            and "acme/private" in record.getMessage()
        ):
            self.poll_failed.set()


@pytest.fixture
def captured():
    root = logging.getLogger()
    handler, level = Captured(), root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


async def test_no_secret_reaches_the_logs(nats_server, captured):
    import asyncio

    from services.ingest.adapters.webhooks import QUIET, WebhookServer
    from services.ingest.app import build_service
    from services.ingest.config import IngestSettings

    # refused deliveries of earlier tests in this process do not count against the log's
    # rate limit (else the forged delivery below may be one of the suppressed repeats)
    QUIET._seen.clear()
    with GithubEmulator(token=GH_TOKEN) as gh:
        settings = IngestSettings(
            nats_url=nats_server.url,
            nats_user="svc",
            nats_password=NATS_PASSWORD,
            repos=["acme/private"],
            github_token=GH_TOKEN,
            github_api_url=gh.base_url,
            poll_interval=3600,
            webhook_enabled=True,
            webhook_secret=WEBHOOK_SECRET,
            webhook_host="127.0.0.1",
            webhook_port=0,
        )  # the endpoint binds a port of its own
        runtime = Runtime(settings, "ingest")
        service = runtime.add(build_service(settings, runtime))
        await runtime.start()
        try:
            # the poll of a repository GitHub does not know fails and says so
            assert await asyncio.to_thread(captured.poll_failed.wait, 30), "\n".join(captured.lines)
            (port,) = [p.port for p in service.pollers if isinstance(p, WebhookServer)]
            url = f"http://127.0.0.1:{port}{settings.webhook_path}"
            body = json.dumps({"zen": "Keep it logically awesome.", "hook_id": 1}).encode()
            async with httpx.AsyncClient(timeout=10) as client:
                forged = await client.post(
                    url,
                    content=body,
                    headers={
                        "X-GitHub-Event": "ping",
                        "X-GitHub-Delivery": str(uuid.uuid4()),
                        "X-Hub-Signature-256": github_signature(b"not the secret", body),
                        "Content-Type": "application/json",
                    },
                )
                signed = await client.post(
                    url,
                    content=body,
                    headers={
                        "X-GitHub-Event": "ping",
                        "X-GitHub-Delivery": str(uuid.uuid4()),
                        "X-Hub-Signature-256": github_signature(WEBHOOK_SECRET.encode(), body),
                        "Content-Type": "application/json",
                    },
                )
            assert forged.status_code == 401 and signed.status_code < 300
        finally:
            await runtime.stop()

    # unreachable NATS with credentials in the URL: the error names the server, not the password
    broken = IngestSettings(
        nats_url=f"nats://svc:{NATS_PASSWORD}@127.0.0.1:{free_port()}", nats_connect_timeout=1
    )
    with pytest.raises(NatsUnreachable) as failure:
        await Runtime(broken, "ingest").start()
    assert "127.0.0.1" in str(failure.value) and NATS_PASSWORD not in str(failure.value)
    logging.getLogger("repodigest.service").error("%s", failure.value)

    logs = "\n".join(captured.lines)
    assert "signature refused" in logs  # the forged delivery was logged ...
    assert "acme/private" in logs  # ... and so was the failing poll
    for secret in (GH_TOKEN, WEBHOOK_SECRET, NATS_PASSWORD):
        assert secret not in logs
