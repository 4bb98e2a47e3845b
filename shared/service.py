"""Running services: one or several on one FastStream NATS broker, with topology, health and drain.

A service is an object with a `name`, `register(router)` for its subscribers, and optional
`start()`/`stop()` for background work (pollers, an HTTP server). Each service's `app.py` has a
`build_service(settings, bus, ...)` factory; `__main__.py` and the CLI are the composition roots.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import nats.errors
from faststream.nats import NatsBroker, NatsRouter

from shared.bus import Bus, Topology, ensure_topology
from shared.config import CommonSettings
from shared.telemetry import setup_logging, setup_telemetry

log = logging.getLogger("repodigest.service")


class Service(Protocol):
    name: str
    consumers: Sequence[str]

    def register(self, router: NatsRouter) -> None: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class NatsUnreachable(RuntimeError):
    pass


def make_broker(settings: CommonSettings, name: str) -> NatsBroker:
    """A broker that fails fast on start-up but reconnects for ever once it has connected."""
    from faststream.nats.opentelemetry import NatsTelemetryMiddleware

    kwargs: dict = {}
    if settings.nats_user:
        kwargs["user"] = settings.nats_user
        kwargs["password"] = settings.nats_password.get_secret_value() if settings.nats_password else None
    if settings.nats_token:
        kwargs["token"] = settings.nats_token.get_secret_value()
    broker = NatsBroker(
        settings.servers(),
        name=f"repodigest-{name}",
        connect_timeout=int(max(1, settings.nats_connect_timeout)),
        max_reconnect_attempts=-1,
        reconnect_time_wait=1,
        middlewares=(NatsTelemetryMiddleware(),),
        log_level=logging.DEBUG,
        graceful_timeout=30.0,
        **kwargs,
    )
    return broker


class Runtime:
    """One broker, the topology, and a set of services on it; start and drain them together."""

    def __init__(self, settings: CommonSettings, name: str) -> None:
        self.settings = settings
        self.name = name
        self.broker = make_broker(settings, name)
        self.services: list[Service] = []

    def bus(self, service: str) -> Bus:
        return Bus(self.broker, service)

    def add(self, service: Service) -> Service:
        router = NatsRouter()
        service.register(router)
        self.broker.include_router(router)
        self.services.append(service)
        return service

    async def start(self) -> None:
        try:
            await asyncio.wait_for(self.broker.connect(), self.settings.nats_connect_timeout + 5)
        except (OSError, asyncio.TimeoutError, nats.errors.NoServersError) as exc:
            raise NatsUnreachable(
                f"cannot reach NATS at {self.settings.nats_url}: {type(exc).__name__}. Start a "
                "nats-server with JetStream (-js), fix REPODIGEST_NATS_URL / --nats-url, or leave "
                "it unset for the CLI to start an embedded server"
            ) from None
        consumers = [c for s in self.services for c in s.consumers]
        await ensure_topology(self.broker.config.connection_state.stream,
                              Topology(replicas=self.settings.jetstream_replicas), consumers)
        await self.broker.start()
        for service in self.services:
            await service.start()
        log.info("started %s", ", ".join(s.name for s in self.services) or self.name)

    async def stop(self) -> None:
        for service in reversed(self.services):
            with contextlib.suppress(Exception):
                await service.stop()
        await self.broker.stop()  # drains: in-flight handlers finish, then the connection closes
        log.info("stopped %s", self.name)


async def serve(runtime: Runtime) -> None:
    """Run until SIGTERM or SIGINT, then drain and return (the process exits 0)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await runtime.start()
    health = None
    if runtime.settings.health_port:
        from shared.health import HealthServer

        health = HealthServer(runtime, runtime.settings.health_port)
        await health.start()
    try:
        await stop.wait()
    finally:
        log.info("signal received: draining")
        if health is not None:
            await health.stop()
        await runtime.stop()


def run_service(name: str, settings: CommonSettings,
                build: Callable[[Runtime], Service | Awaitable[Service]]) -> int:
    """Entry point for `python -m services.<name>`."""
    setup_logging(settings.log_level, settings.log_json)
    setup_telemetry(f"repodigest-{name}")

    async def main() -> None:
        runtime = Runtime(settings, name)
        service = build(runtime)
        if asyncio.iscoroutine(service):
            service = await service
        runtime.add(service)  # type: ignore[arg-type]
        await serve(runtime)

    try:
        asyncio.run(main())
    except NatsUnreachable as exc:
        log.error("%s", exc)
        return 2
    except (ValueError, OSError, RuntimeError) as exc:
        # configuration and start-up problems (a bad rule file, a port in use, a database that
        # refuses us): say what is wrong without a traceback; DEBUG logging shows the stack
        log.error("%s could not start: %s", name, exc)
        log.debug("start-up failure", exc_info=True)
        return 1
    return 0
