"""A NATS connection closed for good makes a service restartable: /healthz fails (Kubernetes'
liveness probe restarts the pod) and `run_service` exits non-zero (compose restarts it).

nats-py closes a connection for good when the server answers a protocol error with -ERR and
closes it, as nats-server does for a control line past its limit (what a crafted webhook delivery
id caused in issue 16): the tests make that happen with a real nats-server, by publishing on a
5,000-character subject over the service's own connection."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap

import httpx

from services.ingest.app import build_service
from services.ingest.config import IngestSettings
from shared.health import HealthServer
from shared.service import Runtime
from tests.conftest import ROOT
from tests.signals import signalled

SECRET = "connection-lost-webhook-secret"


async def break_connection(runtime: Runtime) -> None:
    nc = runtime.nc
    await nc.publish("x" * 5000, b"")  # nats-server: -ERR 'Maximum Control Line Exceeded'


async def test_a_connection_closed_for_good_fails_liveness(nats_server):
    settings = IngestSettings(
        nats_url=nats_server.url,
        webhook_enabled=True,
        webhook_secret=SECRET,
        webhook_host="127.0.0.1",
        webhook_port=0,
    )
    runtime = Runtime(settings, "ingest-test")
    runtime.add(build_service(settings, runtime))
    await runtime.start()
    health = HealthServer(runtime, 0, host="127.0.0.1")  # a port of its own
    await health.start()
    try:
        base = f"http://127.0.0.1:{health.port}"
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            assert (await client.get("/healthz")).status_code == 200
            assert (await client.get("/readyz")).status_code == 200
            await break_connection(runtime)

            # the runtime's own signal that nats-py closed the connection for good
            await signalled(
                runtime.connection_lost.wait(), 30, "the runtime to see its connection closed"
            )
            r = await client.get("/healthz")
            assert r.status_code == 503 and "closed for good" in r.json()["reason"], r.text
            ready = await client.get("/readyz")
            assert ready.status_code == 503 and ready.json()["checks"]["nats"] == "failing"
        assert "maximum control line" in (runtime.lost_reason or "").lower()
    finally:
        await health.stop()
        await runtime.stop()


async def test_a_service_exits_non_zero_when_its_connection_is_closed_for_good(nats_server):
    script = textwrap.dedent("""
        import sys
        from shared.config import CommonSettings
        from shared.service import run_service

        class Breaker:
            name, consumers = "breaker", ()

            def __init__(self, runtime):
                self.runtime = runtime

            def register(self, router):
                pass

            async def start(self):
                nc = self.runtime.nc
                await nc.publish("x" * 5000, b"")

            async def stop(self):
                pass

        sys.exit(run_service("breaker", CommonSettings(nats_url=sys.argv[1]), Breaker))
    """)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        script,
        nats_server.url,
        cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError(
            "the service kept running with its connection closed for good"
        ) from None
    text = out.decode(errors="replace")
    assert proc.returncode not in (0, None), text
    assert "closed for good" in text and "Traceback" not in text, text
