"""Running services: one or several on one FastStream NATS broker, with topology, health and drain.

A service is an object with a `name`, the durable consumers it declares (`consumers`, each a
`ConsumerSpec`), optionally its `contract` (what it consumes and publishes, for FastStream and
the AsyncAPI document), `register(router)` for its subscribers and pull consumers, and
`start()`/`stop()` for background work (pollers, an HTTP server). Each service's
`bootstrap.build(settings, runtime, ...)` builds it; `services.registry` lists them for
`python -m services.X`, `repodigest serve` and the CLI's in-process run.

The runtime owns the NATS connection: `runtime.nc` and `runtime.js` once started (what a `Bus`
publishes and pulls through); nothing reaches into FastStream's connection state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import ssl
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import nats.errors
from faststream.nats import NatsBroker
from opentelemetry.metrics import CallbackOptions, Observation

from shared import telemetry
from shared.config import CommonSettings
from shared.messaging import (
    Bus,
    Consumer,
    ConsumerSpec,
    ServiceRouter,
    Topology,
    ensure_topology,
    telemetry_middleware,
)
from shared.tasks import cancel_and_wait
from shared.telemetry import meter, service_context, setup_logging, setup_telemetry

log = logging.getLogger("repodigest.service")

# durable consumer -> (stream, pending, ack pending), refreshed by each runtime's lag poller
_LAG: dict[str, tuple[str, int, int]] = {}


def _observe_lag(_options: CallbackOptions):
    for durable, (stream, pending, ack_pending) in list(_LAG.items()):
        attrs = {"consumer": durable, "stream": stream}
        yield Observation(pending, {**attrs, "state": "pending"})
        yield Observation(ack_pending, {**attrs, "state": "ack_pending"})


meter("service").create_observable_gauge(
    "repodigest.consumer.lag",
    callbacks=[_observe_lag],
    unit="{message}",
    description="messages a durable consumer has not yet been delivered (pending) or not yet "
    "acknowledged (ack_pending), from JetStream consumer info",
)


class Service(Protocol):
    name: str
    consumers: Sequence[ConsumerSpec]

    def register(self, router: ServiceRouter) -> None: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class NatsUnreachable(RuntimeError):
    pass


class NatsConnectionLost(NatsUnreachable):
    """The connection to NATS was closed for good (nats-py gives up after a protocol error the
    server answered with -ERR and a close): the process exits so that it is restarted."""


def redact_url(urls: str) -> str:
    """NATS URLs (comma-separated) with any password or token in them replaced by `***`."""
    from urllib.parse import urlsplit, urlunsplit

    out = []
    for url in urls.split(","):
        parts = urlsplit(url.strip())
        if parts.username is not None or parts.password is not None:
            user = parts.username or ""
            secret = "***" if parts.password is not None else ""
            # nats://TOKEN@host has the token where a user name would be
            userinfo = f"{user}:{secret}" if secret else "***"
            host = parts.hostname or ""
            netloc = f"{userinfo}@{host}" + (f":{parts.port}" if parts.port else "")
            parts = parts._replace(netloc=netloc)
        out.append(urlunsplit(parts))
    return ",".join(out)


def connect_options(settings: CommonSettings) -> dict:
    """nats-py `connect` keywords for the NATS settings: TLS (REPODIGEST_NATS_TLS_CA/_CERT/_KEY or
    a tls:// URL), then one way of logging in — a .creds file, an NKey seed, a user and password,
    or a token, in that order; {} for a plain, anonymous connection. A file that cannot be used
    raises NatsUnreachable naming its variable. The CLI connects with these, the services'
    broker gets the same as FastStream security (`nats_security`)."""
    from shared.config import NatsSettingsError

    try:
        ctx = settings.nats_ssl_context()
        settings.nats_auth_files()
    except NatsSettingsError as exc:
        raise NatsUnreachable(str(exc)) from None
    kwargs: dict = {"tls": ctx} if ctx is not None else {}
    if settings.nats_creds:
        kwargs["user_credentials"] = settings.nats_creds
    elif settings.nats_nkey:
        kwargs["nkeys_seed"] = settings.nats_nkey
    elif settings.nats_user:
        kwargs["user"] = settings.nats_user
        kwargs["password"] = (
            settings.nats_password.get_secret_value() if settings.nats_password else ""
        )
    elif settings.nats_token:
        kwargs["token"] = settings.nats_token.get_secret_value()
    return kwargs


def nats_security(settings: CommonSettings):
    """FastStream's security for what `connect_options` chose (None: plain and anonymous)."""
    from faststream.nats.security import (
        NatsCredentials,
        NatsNKey,
        NatsSecurity,
        NatsToken,
        NatsUserPassword,
    )

    opts = connect_options(settings)
    tls = {"ssl_context": opts["tls"]} if "tls" in opts else {}
    if "user_credentials" in opts:
        return NatsCredentials.from_file(opts["user_credentials"], **tls)
    if "nkeys_seed" in opts:
        return NatsNKey.from_file(opts["nkeys_seed"], **tls)
    if "user" in opts:
        return NatsUserPassword(opts["user"], opts["password"], **tls)
    if "token" in opts:
        return NatsToken(opts["token"], **tls)
    return NatsSecurity(**tls) if tls else None


def service_middleware(owners: dict[int, str]) -> Any:
    """FastStream middleware, before its telemetry middleware: a message consumed by a service's
    subscriber is handled in that service's `service_context`, so the consume span, the reply
    and what the handler publishes carry the service's `service.name`. `owners`: the runtime's
    subscribers (by id) and the service that registered each."""
    from faststream import BaseMiddleware

    class ServiceContext(BaseMiddleware):
        _token: Any = None

        async def on_receive(self) -> None:
            subscriber = self.context.get_local("handler_")  # FastStream's: the subscriber
            service = owners.get(id(subscriber)) if subscriber is not None else None
            if service is not None:
                self._token = telemetry.enter_service(service)

        async def after_processed(self, exc_type=None, exc_val=None, exc_tb=None) -> bool | None:
            if self._token is not None:
                telemetry.leave_service(self._token)
                self._token = None
            return False

    return ServiceContext


LOGIN_HELP = (
    "set REPODIGEST_NATS_CREDS (a .creds file), REPODIGEST_NATS_NKEY (an NKey seed "
    "file), REPODIGEST_NATS_USER and REPODIGEST_NATS_PASSWORD, or REPODIGEST_NATS_TOKEN, "
    "to credentials the server accepts"
)


UNREACHABLE_HINT = (
    "Start a nats-server with JetStream (-js) or fix REPODIGEST_NATS_URL / --nats-url"
)


def connect_failure(exc: BaseException) -> tuple[str, str] | None:
    """(cause, what to do) for an error that ends a connection attempt for good — a refused
    connection, a TLS failure — or None for one that may pass (a time-out, a reset)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (
            f"its TLS certificate is not trusted ({exc.verify_message or exc.reason})",
            "Set REPODIGEST_NATS_TLS_CA to the PEM file of the CA that signed the server's "
            "certificate",
        )
    if isinstance(exc, ssl.SSLError):
        return (
            f"the TLS handshake failed ({exc.reason or type(exc).__name__})",
            "Check REPODIGEST_NATS_TLS_CA, _CERT and _KEY against the server's TLS settings",
        )
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (no server listens there)", UNREACHABLE_HINT
    return None


def login_tried(settings: CommonSettings) -> str:
    """Which login `connect_options` used, for a refused-login message (file names, never what
    they hold; never a password or token)."""
    if settings.nats_creds:
        return f"with the credentials file REPODIGEST_NATS_CREDS={settings.nats_creds}"
    if settings.nats_nkey:
        return f"with the NKey seed file REPODIGEST_NATS_NKEY={settings.nats_nkey}"
    if settings.nats_user:
        return f"as user {settings.nats_user!r} (REPODIGEST_NATS_USER/_PASSWORD)"
    if settings.nats_token:
        return "with the token REPODIGEST_NATS_TOKEN"
    from urllib.parse import urlsplit

    if any("@" in urlsplit(url).netloc for url in settings.servers()):
        return "with the user or token in the URL"
    return "without credentials"


def make_broker(
    settings: CommonSettings,
    name: str,
    owners: dict[int, str] | None = None,
    closed_cb: Callable[[], Awaitable[None]] | None = None,
    error_cb: Callable[[Exception], Awaitable[None]] | None = None,
    disconnected_cb: Callable[[], Awaitable[None]] | None = None,
    reconnected_cb: Callable[[], Awaitable[None]] | None = None,
) -> NatsBroker:
    """A broker that fails fast on start-up but reconnects for ever once it has connected;
    `closed_cb` is called when the connection is closed for good, `error_cb` with each error of
    the client (a refused connection among them)."""
    kwargs: dict = {}
    if error_cb is not None:
        kwargs["error_cb"] = error_cb
    if disconnected_cb is not None:
        kwargs["disconnected_cb"] = disconnected_cb
    if reconnected_cb is not None:
        kwargs["reconnected_cb"] = reconnected_cb
    security = nats_security(settings)
    if security is not None:
        kwargs["security"] = security
    broker = NatsBroker(
        settings.servers(),
        name=f"repodigest-{name}",
        connect_timeout=int(max(1, settings.nats_connect_timeout)),
        max_reconnect_attempts=-1,
        reconnect_time_wait=1,
        # the service context first: FastStream's spans of a service's subscriber are its own
        middlewares=(service_middleware({} if owners is None else owners), telemetry_middleware()),
        # FastStream logs through our logger, so its per-message and shutdown chatter follows
        # REPODIGEST_LOG_LEVEL and our structured format instead of its own colored handler
        logger=logging.getLogger("repodigest.faststream"),
        log_level=logging.DEBUG,
        graceful_timeout=30.0,
        closed_cb=closed_cb,
        **kwargs,
    )
    return broker


class Runtime:
    """One broker, the topology, and a set of services on it; start and drain them together."""

    lag_interval = 15.0  # seconds between consumer-info reads for the lag gauge

    def __init__(self, settings: CommonSettings, name: str) -> None:
        self.settings = settings
        self.name = name
        # set when the connection is closed for good while the runtime runs: reconnecting is
        # over, so /healthz fails and `serve` exits (Kubernetes or compose restarts the process)
        self.connection_lost = asyncio.Event()
        self.lost_reason: str | None = None
        self._stopping = False
        # refused connections while start() connects: when every server refused, nothing listens
        # there and waiting for the connect time-out (~12 s) only hides that
        self._connecting = False
        self._refusals = 0
        self._all_refused = asyncio.Event()
        self._refusal: BaseException | None = None  # the last refusal or TLS failure
        # FastStream subscribers (a service's control subjects, by id) -> the service that
        # registered them; the subscribers live as long as the broker that holds them
        self._owners: dict[int, str] = {}
        self.broker = make_broker(
            settings,
            name,
            self._owners,
            closed_cb=self._closed,
            error_cb=self._error,
            disconnected_cb=self._disconnected,
            reconnected_cb=self._reconnected,
        )
        self.services: list[Service] = []
        # the durable pull consumers the services registered, with the service each works for
        self._pull: list[tuple[Consumer[Any], str]] = []
        self._nc: Any = None
        self._js: Any = None
        self._lag_task: asyncio.Task | None = None
        self._lag_stop = asyncio.Event()

    async def _error(self, exc: Exception) -> None:
        # a refused connection or a failed TLS handshake will not pass by waiting: once every
        # server gave one, start() says so at once instead of after the connect time-out
        if self._connecting and connect_failure(exc) is not None:
            self._refusals += 1
            self._refusal = exc
            if self._refusals >= len(self.settings.servers()):
                self._all_refused.set()

    async def _disconnected(self) -> None:
        if not self._stopping and not self._connecting:
            # FastStream logs only some of the causes (an EOF, not a reset): say it once here
            log.warning(
                "disconnected from NATS at %s; reconnecting", redact_url(self.settings.nats_url)
            )

    async def _reconnected(self) -> None:
        # the other half of the warning above: the outage is over
        log.info("reconnected to NATS at %s", redact_url(self.settings.nats_url))

    async def _connect(self) -> None:
        """broker.connect(), ended at once when every server refused the connection."""
        self._connecting, self._refusals, self._refusal = True, 0, None
        self._all_refused.clear()
        connect = asyncio.ensure_future(self.broker.connect())
        refused = asyncio.ensure_future(self._all_refused.wait())
        try:
            done, _ = await asyncio.wait(
                {connect, refused},
                timeout=self.settings.nats_connect_timeout + 5,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            self._connecting = False
            await cancel_and_wait(refused)
        if connect in done:
            self._nc = connect.result()
            self._js = self._nc.jetstream()
            return
        await cancel_and_wait(connect)
        if refused in done and self._refusal is not None:
            raise self._refusal
        raise TimeoutError()

    async def _closed(self) -> None:
        if self._stopping:
            return
        error = getattr(self._nc, "last_error", None)
        self.lost_reason = (
            (str(error) or type(error).__name__)[:200]
            if error is not None
            else "closed by the client library"
        )
        log.error(
            "the connection to NATS at %s was closed for good (%s); the service cannot "
            "work without it and stops so that it is restarted",
            redact_url(self.settings.nats_url),
            self.lost_reason,
        )
        self.connection_lost.set()

    async def poll_lag(self) -> dict[str, int]:
        """Read each durable consumer's pending count from JetStream; return {durable: pending}."""
        js = self.js
        out: dict[str, int] = {}
        for spec in self.consumer_specs():
            durable = spec.durable
            try:
                info = await asyncio.wait_for(js.consumer_info(spec.stream, durable), 5)
            except Exception as exc:  # noqa: BLE001 - a gauge goes stale, the service goes on
                log.debug("consumer info of %s unavailable: %s", durable, type(exc).__name__)
                continue
            _LAG[durable] = (
                spec.stream,
                int(info.num_pending or 0),
                int(info.num_ack_pending or 0),
            )
            out[durable] = int(info.num_pending or 0)
        return out

    async def _lag_loop(self) -> None:
        while not self._lag_stop.is_set():
            try:
                await self.poll_lag()
            except Exception as exc:  # noqa: BLE001 - the gauge goes stale; the next poll retries
                log.debug("consumer lag poll failed: %s", type(exc).__name__)
            try:  # a polling period, ended early by stop()
                await asyncio.wait_for(self._lag_stop.wait(), self.lag_interval)
            except TimeoutError:
                pass

    @property
    def nc(self) -> Any:
        """The NATS connection (nats-py `Client`), once `start()` connected."""
        if self._nc is None:
            raise RuntimeError(f"{self.name}: not connected to NATS yet (start() first)")
        return self._nc

    @property
    def js(self) -> Any:
        """The JetStream context of the connection, once `start()` connected."""
        if self._js is None:
            raise RuntimeError(f"{self.name}: not connected to NATS yet (start() first)")
        return self._js

    @property
    def connected(self) -> bool:
        return self._nc is not None and self._nc.is_connected

    @property
    def closed(self) -> bool:
        return self._nc is not None and self._nc.is_closed

    @property
    def pull_consumers(self) -> list[Consumer[Any]]:
        """The durable consumers the services registered (started and stopped here)."""
        return [c for c, _ in self._pull]

    def consumer_specs(self) -> list[ConsumerSpec]:
        return [spec for s in self.services for spec in s.consumers]

    def bus(self, service: str) -> Bus:
        return Bus(self, service)

    def add(self, service: Service) -> Service:
        router = ServiceRouter()
        contract = getattr(service, "contract", None)
        if contract is not None:
            router.declare(contract)
        service.register(router)
        for subscriber in router.subscribers:
            self._owners[id(subscriber)] = service.name
        self._pull.extend((c, service.name) for c in router.pull_consumers)
        self.broker.include_router(router)
        self.services.append(service)
        return service

    async def start(self) -> None:
        try:
            await self._connect()
        except (TimeoutError, OSError, nats.errors.NoServersError) as exc:
            cause, hint = connect_failure(exc) or (
                (
                    f"no answer within {self.settings.nats_connect_timeout + 5:.0f} s "
                    "(a firewall, or not a NATS server?)",
                    UNREACHABLE_HINT,
                )
                if isinstance(exc, asyncio.TimeoutError)
                else (str(exc) or type(exc).__name__, UNREACHABLE_HINT)
            )
            raise NatsUnreachable(
                f"cannot reach NATS at {redact_url(self.settings.nats_url)}: {cause}. {hint}"
            ) from None
        except nats.errors.Error as exc:
            if "authorization" not in str(exc).lower():
                raise
            raise NatsUnreachable(
                f"NATS at {redact_url(self.settings.nats_url)} refused the login "
                f"{login_tried(self.settings)} ({exc}): " + LOGIN_HELP
            ) from None
        await ensure_topology(
            self.js,
            Topology(
                replicas=self.settings.jetstream_replicas,
                partitions=self.settings.summarizer_partitions,
            ),
            self.consumer_specs(),
        )
        await self.broker.start()
        for service in self.services:
            # what it starts (pollers, an HTTP server, tasks) works as the service: the spans
            # carry its service.name
            with service_context(service.name):
                await service.start()
        for consumer, service_name in self._pull:
            # the consumer's loop (a task made in start) is its service's: each message's span,
            # the handler's, and what it publishes
            with service_context(service_name):
                await consumer.start()
        if any(s.consumers for s in self.services):
            self._lag_task = asyncio.create_task(self._lag_loop(), name=f"{self.name}-lag")
        log.info("started %s", ", ".join(s.name for s in self.services) or self.name)

    async def stop(self) -> None:
        self._stopping = True  # the connection closing from here on is ours
        if self._lag_task is not None:
            # a flag as well as a cancel: on Python 3.11 `asyncio.wait_for` (the consumer-info
            # read) can swallow a cancellation that lands as its inner call completes, and
            # awaiting the task then hung shutdown (seen when SIGTERM came right after start)
            self._lag_stop.set()
            await cancel_and_wait(self._lag_task)
            for spec in self.consumer_specs():
                _LAG.pop(spec.durable, None)  # no stale gauge once this runtime stopped consuming
        # the batches in hand finish and are acknowledged before the services and the
        # connection go away
        for consumer, _ in self._pull:
            await consumer.stop()
        for service in reversed(self.services):
            with contextlib.suppress(Exception):
                await service.stop()
        try:
            await (
                self.broker.stop()
            )  # drains: in-flight handlers finish, then the connection closes
        except nats.errors.ConnectionClosedError:
            pass  # closed for good already (connection_lost): nothing left to drain
        except nats.errors.ConnectionReconnectingError:
            # NATS is away (a restart, a network cut): nothing can be drained or acknowledged,
            # so close without it; unacknowledged messages are redelivered to the next process
            log.warning(
                "NATS at %s is unreachable while stopping: closed without draining",
                redact_url(self.settings.nats_url),
            )
            if self._nc is not None:
                with contextlib.suppress(Exception):
                    await self._nc.close()
        log.info("stopped %s", self.name)


async def serve(runtime: Runtime) -> None:
    """Run until SIGTERM or SIGINT, then drain and return (the process exits 0)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await runtime.start()
    health = None
    if runtime.settings.health_port is not None:
        from shared.health import HealthServer

        health = HealthServer(
            runtime, runtime.settings.health_port, host=runtime.settings.health_host
        )
        await health.start()
        # the port it got (REPODIGEST_HEALTH_PORT=0: one the system picked), for whoever started it
        log.info(
            "health endpoints on http://%s:%d (/healthz, /readyz, /metrics)",
            runtime.settings.health_host,
            health.port,
        )
    waits = [asyncio.create_task(stop.wait()), asyncio.create_task(runtime.connection_lost.wait())]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            await cancel_and_wait(task)
        lost = runtime.connection_lost.is_set()
        log.info("%s: draining", "NATS connection lost" if lost else "signal received")
        if health is not None:
            await health.stop()
        if lost:  # what needs the connection fails; the process exits all the same
            with contextlib.suppress(Exception):
                await asyncio.wait_for(runtime.stop(), 30)
        else:
            await runtime.stop()
    if runtime.connection_lost.is_set():
        raise NatsConnectionLost(
            f"the connection to NATS at {redact_url(runtime.settings.nats_url)} was closed for "
            f"good ({runtime.lost_reason}); exiting so that the service is restarted"
        )


def run_service(
    name: str, settings: CommonSettings, build: Callable[[Runtime], Service | Awaitable[Service]]
) -> int:
    """Entry point for `python -m services.<name>`."""
    setup_logging(settings.log_level, settings.log_json)
    setup_telemetry(f"repodigest-{name}")  # OTEL_SERVICE_NAME, when set, names it

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
