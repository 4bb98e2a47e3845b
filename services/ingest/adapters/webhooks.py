"""The GitHub webhook endpoint: a Starlette app that verifies, de-duplicates and maps deliveries
to facts, and a uvicorn server for it that starts and stops with the ingest service.

POST <path> (default /webhooks/github):
  400  `X-GitHub-Delivery` not a GUID or `X-GitHub-Event` not a short lower-case word (checked
       before the body is read: the HMAC covers the body only, and these values reach NATS)
  401  `X-Hub-Signature-256` missing or wrong (HMAC-SHA256 of the raw body, constant-time compare)
  408  the body did not arrive within `body_timeout`
  413  body larger than `max_body` (GitHub caps payloads at 25 MB), or a fact larger than the
       event log takes (the server's max_payload): permanent, redelivering cannot help
  400  malformed JSON
  422  a supported event whose payload cannot be read into facts, or whose facts break the event
       contract (a number of 1e400, a time in year 1): the reason is in the answer
  200  ping; or a delivery already handled (`X-GitHub-Delivery` seen before)
  202  accepted (facts published) or ignored (events and actions that are not facts)
  503  more than `max_bodies` bodies being received at once (Retry-After), or the facts could not
       be published: GitHub shows the delivery as failed, redeliver it

Unauthenticated clients are bounded by `WebhookLimits`: uvicorn's own settings where it has them
(`limit_concurrency`, `timeout_keep_alive`, `h11_max_incomplete_event_size`, `backlog`), and for
what it lacks a connection cap enforced at accept and a deadline for a request's headers
(`_GuardedH11`). Repeated log lines under abuse are rate-limited (`QuietRepeats`).

The facts are published before 202 is answered (a JetStream publish takes milliseconds), so an
accepted delivery is never lost; they carry the same deterministic ids as the polling path.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import logging
import re
import socket
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from services.ingest.domain.mapping import (
    SUPPORTED_EVENTS,
    facts_from_webhook,
    ignore_reason,
    webhook_repo,
)
from shared.events import FactData, make_fact
from shared.http import listening_socket
from shared.tasks import cancel_and_wait

if TYPE_CHECKING:
    from services.ingest.adapters.kv import KvIngestState

log = logging.getLogger("repodigest.ingest.webhooks")

MAX_BODY = 25 * 1024 * 1024
PublishFacts = Callable[[str, Sequence[FactData]], Awaitable[Any]]

# What GitHub sends: a GUID per delivery, an event name such as `pull_request_review_comment`.
# The delivery id becomes a KV key (a NATS subject): anything else is refused before it gets there.
DELIVERY_RE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
EVENT_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")


@dataclass(frozen=True)
class WebhookLimits:
    """What one unauthenticated client can make the endpoint hold (`REPODIGEST_WEBHOOK_*`)."""

    max_body: int = MAX_BODY  # bytes of one body (GitHub's own cap is 25 MB)
    max_bodies: int = 4  # bodies received at once: memory <= max_bodies * max_body
    max_connections: int = 64  # open connections; more are closed as they come
    header_timeout: float = 10.0  # seconds for a request's headers, however they trickle
    body_timeout: float = 30.0  # seconds for a whole body
    idle_timeout: int = 5  # seconds a kept-alive connection may idle (uvicorn)
    max_header_bytes: int = 16 * 1024  # request line and headers (uvicorn's h11 limit)
    backlog: int = 128  # connections the kernel queues before accept


class QuietRepeats(logging.Filter):
    """At most `burst` records per logger and message template every `period` seconds; the next
    record that passes says how many were dropped. Under abuse (garbage requests, clients that
    disconnect, a file-descriptor limit reached) the log stays readable and small."""

    def __init__(
        self, burst: int = 5, period: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.burst, self.period, self.clock = burst, period, clock
        self._seen: dict[tuple[str, str], list] = {}  # key -> [window start, passed, dropped]

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg)[:200])
        now = self.clock()
        entry = self._seen.get(key)
        if entry is None or now - entry[0] >= self.period:
            dropped = entry[2] if entry else 0
            entry = self._seen[key] = [now, 0, 0]
            if len(self._seen) > 1000:  # hostile messages must not grow this without bound
                self._seen = {key: entry}
            if dropped:
                record.msg = f"{record.msg} ({dropped} similar messages suppressed)"
        if entry[1] >= self.burst:
            entry[2] += 1
            return False
        entry[1] += 1
        return True


QUIET = QuietRepeats()
# uvicorn's error log (invalid requests, the concurrency limit, application errors), asyncio's
# (accept() failing when the process runs out of file descriptors) and this module's
_NOISY_LOGGERS = ("uvicorn.error", "asyncio", "repodigest.ingest.webhooks")


class WebhookConfigError(ValueError):
    pass


class DeliveryLog(Protocol):
    async def claim(self, delivery: str) -> bool: ...

    async def release(self, delivery: str) -> None: ...


class MemoryDeliveries:
    """The last `capacity` delivery ids, in memory, optionally backed by the KV bucket so that a
    restart (or another replica) still recognises a redelivery."""

    def __init__(self, capacity: int = 10_000, store: KvIngestState | None = None) -> None:
        self.capacity = capacity
        self.store = store
        self._seen: OrderedDict[str, None] = OrderedDict()

    async def claim(self, delivery: str) -> bool:
        if delivery in self._seen:
            self._seen.move_to_end(delivery)
            return False
        if self.store is not None and not await self.store.claim_delivery(delivery):
            self._remember(delivery)
            return False
        self._remember(delivery)
        return True

    async def release(self, delivery: str) -> None:
        self._seen.pop(delivery, None)
        if self.store is not None:
            await self.store.release_delivery(delivery)

    def _remember(self, delivery: str) -> None:
        self._seen[delivery] = None
        while len(self._seen) > self.capacity:
            self._seen.popitem(last=False)


def signature_of(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body`."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def signature_matches(key: bytes, body: bytes, given: str) -> bool:
    """Whether `given` (the delivery's `X-Hub-Signature-256`) is `body` signed with `key`,
    compared in constant time; an absent or empty header never matches."""
    return bool(given) and hmac.compare_digest(given.encode(), signature_of(key, body).encode())


MIN_SECRET = 16  # characters of a webhook secret, white space not counted


def secret_problem(secret: Any) -> str | None:
    """Why `secret` cannot sign webhooks (never quoting it), or None."""
    if secret is not None and hasattr(secret, "get_secret_value"):
        secret = secret.get_secret_value()
    if not secret:
        return (
            "the webhook endpoint needs a secret: set REPODIGEST_WEBHOOK_SECRET to the secret "
            "configured on the GitHub webhook (Settings > Webhooks); unsigned deliveries are "
            "never accepted"
        )
    text = secret.decode("utf-8", "replace") if isinstance(secret, bytes) else str(secret)
    length = len("".join(text.split()))
    if length < MIN_SECRET:
        return (
            f"REPODIGEST_WEBHOOK_SECRET is too short to sign webhooks ({length} characters "
            f"besides white space; at least {MIN_SECRET}): set it, and the secret on the "
            "GitHub webhook, to a long random value, e.g. the output of "
            "`python -c 'import secrets; print(secrets.token_hex(32))'`"
        )
    return None


def _secret_bytes(secret: Any) -> bytes:
    problem = secret_problem(secret)
    if problem is not None:
        raise WebhookConfigError(problem)
    if hasattr(secret, "get_secret_value"):
        secret = secret.get_secret_value()
    return secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)


class _TooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _TooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _header_problem(request: Request) -> str | None:
    """Why the delivery's GitHub headers cannot be what GitHub sends (never echoing them)."""
    delivery = request.headers.get("x-github-delivery")
    if not delivery:
        return "no X-GitHub-Delivery header (GitHub sends a GUID with every delivery)"
    if not DELIVERY_RE.fullmatch(delivery):
        return (
            f"X-GitHub-Delivery must be the delivery's GUID as GitHub sends it "
            f"(8-4-4-4-12 hex digits); got {len(delivery)} characters that are not"
        )
    event = request.headers.get("x-github-event")
    if not event:
        return "no X-GitHub-Event header"
    if not EVENT_RE.fullmatch(event):
        return (
            f"X-GitHub-Event must be a GitHub event name (lower-case letters, digits and "
            f"underscores, at most 64); got {len(event)} characters that are not"
        )
    return None


class _OutOfRange(ValueError):
    pass


def _finite(text: str) -> float:
    """A JSON float, refusing what only reads as infinity (`1e400`): no GitHub field is one."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _OutOfRange(f"the number {text[:40]} is out of range")
    return value


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Counts(dict[str, int]):
    """The endpoint's counters (`app.state.stats`); each of `observers` is called after every
    change, so that whoever needs a count (a test, an exporter) is told instead of asking."""

    def __init__(self, **counts: int) -> None:
        super().__init__(**counts)
        self.observers: list[Callable[[], None]] = []

    def __setitem__(self, key: str, value: int) -> None:
        super().__setitem__(key, value)
        for observer in list(self.observers):
            observer()


def build_webhook_app(
    secret: Any,
    publish_facts: PublishFacts,
    *,
    deliveries: DeliveryLog | None = None,
    path: str = "/webhooks/github",
    max_body: int | None = None,
    publish_timeout: float = 10.0,
    repos: Iterable[str] | None = None,
    limits: WebhookLimits | None = None,
    max_event_bytes: Callable[[], int | None] | None = None,
) -> Starlette:
    """The webhook app. `publish_facts(repo, facts)` publishes facts (`publish_facts(bus, facts)`
    of `adapters.github`; no watermark); `secret` is a str or a SecretStr. With `repos`,
    deliveries of other repositories (an organisation-wide hook) are acknowledged and ignored.
    `limits` bound bodies (`max_body` overrides its size); `max_event_bytes()` is the largest
    message the event log takes (the NATS connection's max_payload), checked before publishing."""
    key = _secret_bytes(secret)
    limits = limits or WebhookLimits()
    max_body = max_body if max_body is not None else limits.max_body
    allowed = {r.lower() for r in repos} if repos else None
    deliveries = deliveries if deliveries is not None else MemoryDeliveries()
    stats = Counts(
        accepted=0,
        ignored=0,
        duplicates=0,
        rejected=0,
        facts=0,
        reading=0,
        busy=0,
        disconnected=0,
        slow=0,
    )

    def reply(status: int, headers: dict[str, str] | None = None, **body: Any) -> JSONResponse:
        return JSONResponse(body, status_code=status, headers=headers)

    def refuse(status: int, error: str, headers: dict[str, str] | None = None) -> JSONResponse:
        stats["rejected"] += 1
        return reply(status, headers, error=error)

    async def receive(request: Request) -> Response:
        problem = _header_problem(request)
        if problem is not None:
            return refuse(400, problem)
        if stats["reading"] >= limits.max_bodies:
            stats["busy"] += 1
            log.warning(
                "webhook delivery refused: %d bodies already being received", stats["reading"]
            )
            return refuse(
                503,
                f"{limits.max_bodies} deliveries are being received at once; redeliver later",
                {"Retry-After": "10"},
            )
        stats["reading"] += 1
        try:
            async with asyncio.timeout(limits.body_timeout):
                body = await _read_body(request, max_body)
        except _TooLarge:
            return refuse(413, f"payload larger than {max_body} bytes")
        except TimeoutError:
            stats["slow"] += 1
            log.info(
                "webhook body not received within %.0f s: connection closed", limits.body_timeout
            )
            return refuse(
                408,
                f"the body did not arrive within {limits.body_timeout:g} s",
                {"Connection": "close"},
            )
        except ClientDisconnect:
            # the client went away mid-body: nobody reads an answer, one short line is enough
            stats["disconnected"] += 1
            log.info("webhook client disconnected before its body was complete")
            return Response(status_code=400)
        finally:
            stats["reading"] -= 1
        given = request.headers.get("x-hub-signature-256", "")
        if not signature_matches(key, body, given):
            log.warning(
                "webhook delivery with a missing or wrong signature refused",
                extra={"delivery": request.headers.get("x-github-delivery")},
            )
            return refuse(
                401,
                "missing or invalid X-Hub-Signature-256; check that the webhook "
                "secret on GitHub equals REPODIGEST_WEBHOOK_SECRET",
            )
        event = request.headers["x-github-event"]
        try:
            if request.headers.get("content-type", "").startswith(
                "application/x-www-form-urlencoded"
            ):
                # the webhook's other content type: the JSON in a `payload` form field
                form = parse_qs(body.decode("utf-8"), keep_blank_values=True)
                payload = json.loads(form["payload"][0], parse_float=_finite)
            else:
                payload = json.loads(body, parse_float=_finite)
        except _OutOfRange as exc:
            return refuse(422, f"{event} delivery cannot be read: {exc}")
        except (ValueError, UnicodeDecodeError, KeyError, IndexError, RecursionError):
            # RecursionError: JSON nested deeper than the parser goes (a hostile body), not a 500
            return refuse(
                400,
                "body is not JSON (nor a form with a JSON `payload`); set the "
                "webhook content type to application/json",
            )
        if not isinstance(payload, dict):
            return refuse(400, "body is not a JSON object")
        if event == "ping":
            return reply(200, ok=True, zen=payload.get("zen"), hook_id=payload.get("hook_id"))
        if event not in SUPPORTED_EVENTS:
            stats["ignored"] += 1
            return reply(202, ignored=event, reason=ignore_reason(event, ""))
        try:
            facts = facts_from_webhook(event, payload)
            # the facts as they will be published: the event contract (numbers within 64 bits,
            # times within range, ...) is checked here, so its refusal is the sender's 4xx
            sizes = [len(make_fact(f).to_bytes()) for f in facts]
            repo = (webhook_repo(payload) or facts[0].repo) if facts else ""
        except Exception as exc:  # noqa: BLE001 - anything a signed payload makes the mapping
            # or the contract raise (e.g. `"id": []`, `"number": 1e400`, year 9999) is the
            # sender's error, not ours: 422 with the reason, never a 500
            log.info("%s delivery refused: %s", event, type(exc).__name__)
            return refuse(422, f"{event} delivery cannot be read: {_short(exc)}")
        if not facts:
            stats["ignored"] += 1
            action = str(payload.get("action") or "")
            return reply(202, ignored=f"{event}.{action}", reason=ignore_reason(event, action))
        if allowed is not None and repo.lower() not in allowed:
            stats["ignored"] += 1
            return reply(
                202,
                ignored=f"repository {repo} is not configured",
                reason="an organisation-wide hook delivers every repository; this "
                "ingest reads only REPODIGEST_REPOS",
            )
        ceiling = max_event_bytes() if max_event_bytes is not None else None
        if ceiling and max(sizes) > ceiling:
            return refuse(
                413,
                f"the {event} delivery's fact is {max(sizes)} bytes, more than "
                f"the event log takes ({ceiling} bytes); redelivering cannot help",
            )
        delivery = request.headers["x-github-delivery"]
        if not await deliveries.claim(delivery):
            stats["duplicates"] += 1
            return reply(200, duplicate=delivery)
        try:
            await asyncio.wait_for(publish_facts(repo, facts), publish_timeout)
        except Exception as exc:  # noqa: BLE001 - GitHub must see the failure to redeliver
            with contextlib.suppress(Exception):
                await deliveries.release(delivery)
            if type(exc).__name__ == "MaxPayloadError":  # nats-py: permanent, not transient
                return refuse(
                    413,
                    f"the {event} delivery's facts are larger than the event log "
                    "takes; redelivering cannot help",
                )
            log.error(
                "could not publish %d facts of delivery %s: %s",
                len(facts),
                delivery,
                type(exc).__name__,
            )
            return reply(503, error="facts could not be published; redeliver later")
        stats["accepted"] += 1
        stats["facts"] += len(facts)
        return reply(202, accepted=len(facts), repo=repo)

    app = Starlette(routes=[Route(path, receive, methods=["POST"])])
    app.state.stats = stats
    return app


def _guarded_protocol(limits: WebhookLimits) -> type:
    """uvicorn's h11 protocol with what uvicorn has no setting for: connections beyond
    `max_connections` are closed at accept (an idle flood cannot hold file descriptors), and a
    request's headers must be complete within `header_timeout` of the connection (or of the
    previous response), however slowly they trickle in (uvicorn's keep-alive timer restarts
    with every byte)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    late = (
        b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\n"
        b"content-length: 38\r\nconnection: close\r\n\r\n"
        b"request headers not received in time\r\n"
    )

    class GuardedH11(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _for_headers = False  # the deadline is for the request's head (else: for unread body)

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                log.warning(
                    "webhook connection refused: %d open, the limit is %d",
                    len(self.connections) - 1,
                    limits.max_connections,
                )
                transport.abort()
                return
            self._arm()

        def _arm(self, then: Callable[[], None] | None = None) -> None:
            self._disarm()
            self._for_headers = then is None
            self._deadline = self.loop.call_later(limits.header_timeout, then or self._headers_late)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _unread_late(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def _headers_late(self) -> None:
            self._deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                log.info(
                    "webhook request headers not received within %.0f s: connection closed",
                    limits.header_timeout,
                )
                self.transport.write(late)
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if (
                self._for_headers
                and self._deadline is not None
                and self.conn.their_state is not h11.IDLE
            ):
                self._disarm()  # the request's head is complete; the app bounds the body

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                if self.conn.their_state is h11.IDLE:
                    self._arm()  # the next request on this kept-alive connection
                elif self.conn.their_state is not h11.DONE:
                    # answered before the body was read (400, 413, 503): uvicorn discards the
                    # rest as it comes (closing now would reset the connection before the
                    # client reads its answer), for header_timeout at most
                    self._arm(self._unread_late)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11


class _Server:
    """uvicorn without its own signal handlers (the service runtime owns SIGTERM/SIGINT) or its
    own log handlers (its records go through the service's logging, rate-limited)."""

    def __init__(self, app: Starlette, host: str, port: int, limits: WebhookLimits) -> None:
        import uvicorn

        class Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self):
                yield

        self.config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_config=None,
            log_level="warning",
            lifespan="off",
            access_log=False,
            http=_guarded_protocol(limits),
            # uvicorn counts connections and tasks against this and answers 503 beyond it; the
            # protocol already closes connections past max_connections, so +1 lets each of those
            # be served
            limit_concurrency=limits.max_connections + 1,
            timeout_keep_alive=limits.idle_timeout,
            h11_max_incomplete_event_size=limits.max_header_bytes,
            backlog=limits.backlog,
        )
        self.server = Server(self.config)


class WebhookServer:
    """Serves a webhook app with uvicorn; `start()` returns once the port is bound (port 0 picks
    a free one, see `.port`), `stop()` finishes in-flight requests."""

    def __init__(
        self,
        app: Starlette,
        host: str = "0.0.0.0",
        port: int = 8080,
        *,
        housekeeping: Callable[[], Awaitable[Any]] | None = None,
        housekeeping_every: float = 6 * 3600.0,
        limits: WebhookLimits | None = None,
    ) -> None:
        self.app, self.host, self.requested_port = app, host, port
        self.limits = limits or WebhookLimits()
        self.port: int | None = None
        self._sock: socket.socket | None = None
        self._server: _Server | None = None
        self._task: asyncio.Task | None = None
        self._housekeeping = housekeeping
        self._housekeeping_every = housekeeping_every
        self._chores: asyncio.Task | None = None

    async def _chores_loop(self) -> None:
        while True:
            try:
                await self._housekeeping()  # type: ignore[misc]
            except Exception as exc:  # noqa: BLE001 - housekeeping must not stop the endpoint
                log.warning("webhook housekeeping failed: %s", exc)
            await asyncio.sleep(self._housekeeping_every)

    async def start(self) -> None:
        try:
            sock = listening_socket(self.host, self.requested_port, self.limits.backlog)
        except OSError as exc:
            raise WebhookConfigError(
                f"cannot listen on {self.host}:{self.requested_port} for webhooks ({exc.strerror}); "
                "choose another REPODIGEST_WEBHOOK_PORT"
            ) from None
        self._sock = sock
        self.port = sock.getsockname()[1]
        self._server = _Server(self.app, self.host, self.port, self.limits)
        for name in _NOISY_LOGGERS:
            logging.getLogger(name).addFilter(QUIET)
        self._task = asyncio.create_task(
            self._server.server.serve(sockets=[sock]), name="github-webhooks"
        )
        if self._housekeeping is not None:
            self._chores = asyncio.create_task(self._chores_loop(), name="github-webhooks-chores")
        log.info("GitHub webhooks on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        await cancel_and_wait(self._chores)
        self._chores = None
        if self._server is not None:
            self._server.server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 10)
            self._task = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        for name in _NOISY_LOGGERS:
            logging.getLogger(name).removeFilter(QUIET)


async def remember_webhook_facts(state: KvIngestState, facts: Sequence[FactData]) -> None:
    """Record in the poller's item states which facts timed at observation a delivery published
    (see `transitions.note_webhook`), so a poll does not publish them again under another time."""
    from services.ingest.domain.transitions import note_webhook

    for fact in facts:
        await state.update_item(
            fact.repo, fact.item.number, functools.partial(note_webhook, fact=fact)
        )


def webhook_server(
    bus: Any,
    state: KvIngestState | None,
    secret: Any,
    *,
    host: str = "0.0.0.0",
    port: int = 8080,
    path: str = "/webhooks/github",
    max_body: int | None = None,
    repos: Iterable[str] | None = None,
    limits: WebhookLimits | None = None,
) -> WebhookServer:
    """The endpoint as the ingest service runs it: facts published on `bus` (no watermark: a
    delivery says nothing about what else happened), deliveries remembered in the KV bucket.
    Not started; `start()` / `stop()` fit the ingest service's poller hooks. Raises
    `WebhookConfigError` without a secret."""
    from services.ingest.sync import publish_facts

    limits = limits or WebhookLimits()

    async def publish(repo: str, facts: Sequence[FactData]) -> None:
        await publish_facts(bus, facts)
        if state is not None:
            await remember_webhook_facts(state, facts)

    def max_payload() -> int | None:
        # what the connected server accepts per message (its INFO), 1 MB unless configured
        try:
            return bus.nc.max_payload
        except Exception:  # noqa: BLE001 - not connected (yet): the default applies
            return None

    app = build_webhook_app(
        secret,
        publish,
        deliveries=MemoryDeliveries(store=state),
        path=path,
        max_body=max_body,
        repos=repos,
        limits=limits,
        max_event_bytes=max_payload,
    )

    async def forget_old_deliveries() -> None:
        # GitHub lets a delivery be redelivered for three days; a week of ids is plenty
        from datetime import datetime, timedelta

        if state is not None:
            gone = await state.prune_deliveries(datetime.now(UTC) - timedelta(days=7))
            if gone:
                log.info("forgot %d webhook deliveries older than a week", gone)

    return WebhookServer(app, host, port, housekeeping=forget_old_deliveries, limits=limits)
