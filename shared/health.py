"""/healthz, /readyz and /metrics for a running service (Starlette on uvicorn).

Live means the process answers; ready means connected to NATS with the streams present, and
every service's own `ready()` check (a database ping, for example) passing.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from shared.bus import STREAM_DEAD, STREAM_ENRICHED, STREAM_GITHUB, STREAM_REPORTS, pull_consumers

if TYPE_CHECKING:
    from shared.service import Runtime


async def readiness(runtime: "Runtime") -> dict[str, str]:
    checks: dict[str, str] = {}
    conn = runtime.broker.config.connection_state.connection if runtime.broker.config.connection_state else None
    checks["nats"] = "ok" if conn is not None and conn.is_connected else "disconnected"
    if checks["nats"] == "ok":
        js = runtime.broker.config.connection_state.stream
        for stream in (STREAM_GITHUB, STREAM_ENRICHED, STREAM_REPORTS, STREAM_DEAD):
            try:
                await asyncio.wait_for(js.stream_info(stream), 2)
                checks[f"stream:{stream}"] = "ok"
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                checks[f"stream:{stream}"] = type(exc).__name__
    for consumer in pull_consumers(runtime.broker):
        # a consuming loop that died, or pull requests the server refuses (consumer deleted)
        checks[f"consumer:{consumer.spec.durable}"] = consumer.pull_state()
    for service in runtime.services:
        check = getattr(service, "ready", None)
        if check is not None:
            try:
                await asyncio.wait_for(check(), 3)
                checks[service.name] = "ok"
            except Exception as exc:  # noqa: BLE001
                checks[service.name] = f"{type(exc).__name__}: {exc}"[:200]
    return checks


def build_health_app(runtime: "Runtime") -> Starlette:
    async def healthz(_request) -> JSONResponse:
        return JSONResponse({"status": "ok", "service": runtime.name})

    async def readyz(_request) -> JSONResponse:
        checks = await readiness(runtime)
        ok = all(v == "ok" for v in checks.values())
        return JSONResponse({"ready": ok, "checks": checks}, status_code=200 if ok else 503)

    async def metrics(_request) -> Response:
        from shared.telemetry import prometheus_text

        if any(s.consumers for s in runtime.services):
            # the lag gauge as of this scrape, not of the last poll
            with contextlib.suppress(Exception):
                await asyncio.wait_for(runtime.poll_lag(), 3)
        exposition = prometheus_text()
        if exposition is None:
            return PlainTextResponse(
                "no Prometheus metrics: install opentelemetry-exporter-prometheus and start the "
                "service through run_service (or call shared.telemetry.setup_telemetry)",
                status_code=501)
        body, content_type = exposition
        return Response(body, media_type=content_type)

    return Starlette(routes=[Route("/healthz", healthz), Route("/readyz", readyz),
                             Route("/metrics", metrics)])


class HealthServer:
    def __init__(self, runtime: "Runtime", port: int, host: str = "0.0.0.0") -> None:
        import uvicorn

        config = uvicorn.Config(build_health_app(runtime), host=host, port=port,
                                log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.task: asyncio.Task | None = None

    async def start(self) -> None:
        self.task = asyncio.create_task(self.server.serve())
        while not self.server.started:
            if self.task.done():
                self.task.result()
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self.server.should_exit = True
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task
