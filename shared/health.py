"""/healthz, /readyz and /metrics for a running service (Starlette on uvicorn).

Live means the process answers and its NATS connection is not closed for good (a connection that
nats-py gave up on never comes back: failing liveness gets the process restarted); ready means
connected to NATS with the streams present, and every service's own `ready()` check (a database
ping, for example) passing. /readyz says only `ok` or `failing` per check (an unauthenticated
probe learns no host, port or error text); why a check fails is logged when it changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from shared.messaging import STREAM_DEAD, STREAM_ENRICHED, STREAM_GITHUB, STREAM_REPORTS

if TYPE_CHECKING:
    from shared.service import Runtime

log = logging.getLogger("repodigest.health")


async def readiness(runtime: Runtime) -> dict[str, str]:
    checks: dict[str, str] = {}
    checks["nats"] = "ok" if runtime.connected else "disconnected"
    if checks["nats"] == "ok":
        js = runtime.js
        for stream in (STREAM_GITHUB, STREAM_ENRICHED, STREAM_REPORTS, STREAM_DEAD):
            try:
                await asyncio.wait_for(js.stream_info(stream), 2)
                checks[f"stream:{stream}"] = "ok"
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                checks[f"stream:{stream}"] = type(exc).__name__
    for consumer in runtime.pull_consumers:
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


def connection_closed(runtime: Runtime) -> bool:
    """The runtime's NATS connection is closed for good (not merely reconnecting)."""
    if runtime.connection_lost.is_set():
        return True
    return runtime.closed and not runtime._stopping


def build_health_app(runtime: Runtime) -> Starlette:
    reported: dict[str, str] = {}  # check -> the failure last logged

    async def healthz(_request) -> JSONResponse:
        if connection_closed(runtime):
            return JSONResponse(
                {
                    "status": "failing",
                    "service": runtime.name,
                    "reason": "NATS connection closed for good",
                },
                status_code=503,
            )
        return JSONResponse({"status": "ok", "service": runtime.name})

    async def readyz(_request) -> JSONResponse:
        checks = await readiness(runtime)
        for name, detail in checks.items():
            if detail == "ok":
                reported.pop(name, None)
            elif reported.get(name) != detail:
                reported[name] = detail
                log.warning("not ready: %s: %s", name, detail)
        ok = all(v == "ok" for v in checks.values())
        return JSONResponse(
            {
                "ready": ok,
                "checks": {k: "ok" if v == "ok" else "failing" for k, v in checks.items()},
            },
            status_code=200 if ok else 503,
        )

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
                status_code=501,
            )
        body, content_type = exposition
        return Response(body, media_type=content_type)

    return Starlette(
        routes=[Route("/healthz", healthz), Route("/readyz", readyz), Route("/metrics", metrics)]
    )


class HealthServer:
    def __init__(self, runtime: Runtime, port: int, host: str = "127.0.0.1") -> None:
        import uvicorn

        # log_config=None: uvicorn's records go through the service's logging, not its own
        # handlers; no access log (a probe every few seconds)
        config = uvicorn.Config(
            build_health_app(runtime),
            host=host,
            port=port,
            log_config=None,
            log_level="warning",
            lifespan="off",
            access_log=False,
        )

        class Server(uvicorn.Server):
            # the process's SIGTERM/SIGINT belong to the service (serve() drains on them):
            # uvicorn's serve() would take them over for as long as it runs, shut the health
            # server down first and only then pass the signal on (a SIGTERM during start-up
            # left a server without sockets)
            @contextlib.contextmanager
            def capture_signals(self):
                yield

        self.server = Server(config)
        self.task: asyncio.Task | None = None
        self._port: int | None = None

    async def start(self) -> None:
        from shared.http import listening_socket

        sock = listening_socket(self.server.config.host, self.server.config.port)
        self._port = sock.getsockname()[1]
        self.task = asyncio.create_task(self.server.serve(sockets=[sock]))

    @property
    def port(self) -> int:
        """The port it listens on once started (the one the system chose for port 0)."""
        if self._port is None:
            raise RuntimeError("the health server has no port before it is started")
        return self._port

    async def stop(self) -> None:
        self.server.should_exit = True
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task
