"""The GitHub webhook endpoint: a Starlette app that verifies, de-duplicates and maps deliveries
to facts, and a uvicorn server for it that starts and stops with the ingest service.

POST <path> (default /webhooks/github):
  401  `X-Hub-Signature-256` missing or wrong (HMAC-SHA256 of the raw body, constant-time compare)
  413  body larger than `max_body` (GitHub caps payloads at 25 MB)
  400  malformed JSON or no `X-GitHub-Event`
  422  a supported event without what its fact needs (nothing published)
  200  ping; or a delivery already handled (`X-GitHub-Delivery` seen before)
  202  accepted (facts published) or ignored (events and actions that are not facts)
  503  the facts could not be published: GitHub shows the delivery as failed, redeliver it

The facts are published before 202 is answered (a JetStream publish takes milliseconds), so an
accepted delivery is never lost; they carry the same deterministic ids as the polling path.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import socket
from urllib.parse import parse_qs
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from services.ingest.domain.mapping import (
    SUPPORTED_EVENTS, MappingError, facts_from_webhook, ignore_reason, webhook_repo,
)
from shared.events import FactData
from shared.tasks import cancel_and_wait

if TYPE_CHECKING:
    from services.ingest.adapters.kv import KvIngestState

log = logging.getLogger("repodigest.ingest.webhooks")

MAX_BODY = 25 * 1024 * 1024
PublishFacts = Callable[[str, Sequence[FactData]], Awaitable[Any]]


class WebhookConfigError(ValueError):
    pass


class DeliveryLog(Protocol):
    async def claim(self, delivery: str) -> bool: ...

    async def release(self, delivery: str) -> None: ...


class MemoryDeliveries:
    """The last `capacity` delivery ids, in memory, optionally backed by the KV bucket so that a
    restart (or another replica) still recognises a redelivery."""

    def __init__(self, capacity: int = 10_000, store: "KvIngestState | None" = None) -> None:
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


def _secret_bytes(secret: Any) -> bytes:
    if secret is not None and hasattr(secret, "get_secret_value"):
        secret = secret.get_secret_value()
    if not secret:
        raise WebhookConfigError(
            "the webhook endpoint needs a secret: set REPODIGEST_WEBHOOK_SECRET to the secret "
            "configured on the GitHub webhook (Settings > Webhooks); unsigned deliveries are "
            "never accepted")
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


def build_webhook_app(secret: Any, publish_facts: PublishFacts, *,
                      deliveries: DeliveryLog | None = None, path: str = "/webhooks/github",
                      max_body: int = MAX_BODY, publish_timeout: float = 10.0,
                      repos: Iterable[str] | None = None) -> Starlette:
    """The webhook app. `publish_facts(repo, facts)` publishes facts (`publish_facts(bus, facts)`
    of `adapters.github`; no watermark); `secret` is a str or a SecretStr. With `repos`,
    deliveries of other repositories (an organisation-wide hook) are acknowledged and ignored."""
    key = _secret_bytes(secret)
    allowed = {r.lower() for r in repos} if repos else None
    deliveries = deliveries if deliveries is not None else MemoryDeliveries()
    stats = {"accepted": 0, "ignored": 0, "duplicates": 0, "rejected": 0, "facts": 0}

    def reply(status: int, **body: Any) -> JSONResponse:
        return JSONResponse(body, status_code=status)

    async def receive(request: Request) -> JSONResponse:
        try:
            body = await _read_body(request, max_body)
        except _TooLarge:
            stats["rejected"] += 1
            return reply(413, error=f"payload larger than {max_body} bytes")
        given = request.headers.get("x-hub-signature-256", "")
        if not given or not hmac.compare_digest(given.encode(), signature_of(key, body).encode()):
            stats["rejected"] += 1
            log.warning("webhook delivery with a missing or wrong signature refused",
                        extra={"delivery": request.headers.get("x-github-delivery")})
            return reply(401, error="missing or invalid X-Hub-Signature-256; check that the "
                                    "webhook secret on GitHub equals REPODIGEST_WEBHOOK_SECRET")
        event = request.headers.get("x-github-event")
        if not event:
            return reply(400, error="no X-GitHub-Event header")
        try:
            if request.headers.get("content-type", "").startswith(
                    "application/x-www-form-urlencoded"):
                # the webhook's other content type: the JSON in a `payload` form field
                form = parse_qs(body.decode("utf-8"), keep_blank_values=True)
                payload = json.loads(form["payload"][0])
            else:
                payload = json.loads(body)
        except (ValueError, UnicodeDecodeError, KeyError, IndexError, RecursionError):
            # RecursionError: JSON nested deeper than the parser goes (a hostile body), not a 500
            return reply(400, error="body is not JSON (nor a form with a JSON `payload`); set "
                                    "the webhook content type to application/json")
        if not isinstance(payload, dict):
            return reply(400, error="body is not a JSON object")
        if event == "ping":
            return reply(200, ok=True, zen=payload.get("zen"), hook_id=payload.get("hook_id"))
        if event not in SUPPORTED_EVENTS:
            stats["ignored"] += 1
            return reply(202, ignored=event, reason=ignore_reason(event, ""))
        try:
            facts = facts_from_webhook(event, payload)
        except (MappingError, ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
            # a signed payload whose fields have the wrong types (e.g. `"id": []`) is the
            # sender's error, not ours: 422, never a 500
            stats["rejected"] += 1
            return reply(422, error=f"{event} delivery cannot be read: {exc}")
        if not facts:
            stats["ignored"] += 1
            action = str(payload.get("action") or "")
            return reply(202, ignored=f"{event}.{action}", reason=ignore_reason(event, action))
        repo = webhook_repo(payload) or facts[0].repo
        if allowed is not None and repo.lower() not in allowed:
            stats["ignored"] += 1
            return reply(202, ignored=f"repository {repo} is not configured",
                         reason="an organisation-wide hook delivers every repository; this "
                                "ingest reads only REPODIGEST_REPOS")
        delivery = request.headers.get("x-github-delivery")
        if delivery and not await deliveries.claim(delivery):
            stats["duplicates"] += 1
            return reply(200, duplicate=delivery)
        try:
            await asyncio.wait_for(publish_facts(repo, facts), publish_timeout)
        except Exception as exc:  # noqa: BLE001 - GitHub must see the failure to redeliver
            if delivery:
                with contextlib.suppress(Exception):
                    await deliveries.release(delivery)
            log.error("could not publish %d facts of delivery %s: %s", len(facts), delivery,
                      type(exc).__name__)
            return reply(503, error="facts could not be published; redeliver later")
        stats["accepted"] += 1
        stats["facts"] += len(facts)
        return reply(202, accepted=len(facts), repo=repo)

    app = Starlette(routes=[Route(path, receive, methods=["POST"])])
    app.state.stats = stats
    return app


class _Server:
    """uvicorn without its own signal handlers: the service runtime owns SIGTERM/SIGINT."""

    def __init__(self, app: Starlette, host: str, port: int) -> None:
        import uvicorn

        class Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self):  # type: ignore[override]
                yield

        self.config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                                     lifespan="off", access_log=False)
        self.server = Server(self.config)


class WebhookServer:
    """Serves a webhook app with uvicorn; `start()` returns once the port is bound (port 0 picks
    a free one, see `.port`), `stop()` finishes in-flight requests."""

    def __init__(self, app: Starlette, host: str = "0.0.0.0", port: int = 8080, *,
                 housekeeping: Callable[[], Awaitable[Any]] | None = None,
                 housekeeping_every: float = 6 * 3600.0) -> None:
        self.app, self.host, self.requested_port = app, host, port
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
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.requested_port))
        except OSError as exc:
            sock.close()
            raise WebhookConfigError(
                f"cannot listen on {self.host}:{self.requested_port} for webhooks ({exc.strerror}); "
                "choose another REPODIGEST_WEBHOOK_PORT") from None
        sock.listen(128)
        sock.setblocking(False)
        self._sock = sock
        self.port = sock.getsockname()[1]
        self._server = _Server(self.app, self.host, self.port)
        self._task = asyncio.create_task(self._server.server.serve(sockets=[sock]),
                                         name="github-webhooks")
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


async def remember_webhook_facts(state: "KvIngestState", facts: Sequence[FactData]) -> None:
    """Record in the poller's item states which facts timed at observation a delivery published
    (see `transitions.note_webhook`), so a poll does not publish them again under another time."""
    from services.ingest.domain.transitions import note_webhook

    for fact in facts:
        await state.update_item(fact.repo, fact.item.number,
                                lambda prev, fact=fact: note_webhook(prev, fact))


def webhook_server(bus: Any, state: "KvIngestState | None", secret: Any, *, host: str = "0.0.0.0",
                   port: int = 8080, path: str = "/webhooks/github",
                   max_body: int = MAX_BODY, repos: Iterable[str] | None = None) -> WebhookServer:
    """The endpoint as the ingest service runs it: facts published on `bus` (no watermark: a
    delivery says nothing about what else happened), deliveries remembered in the KV bucket.
    Not started; `start()` / `stop()` fit the ingest service's poller hooks. Raises
    `WebhookConfigError` without a secret."""
    from services.ingest.adapters.github import publish_facts

    async def publish(repo: str, facts: Sequence[FactData]) -> None:
        await publish_facts(bus, facts)
        if state is not None:
            await remember_webhook_facts(state, facts)

    app = build_webhook_app(secret, publish, deliveries=MemoryDeliveries(store=state), path=path,
                            max_body=max_body, repos=repos)

    async def forget_old_deliveries() -> None:
        # GitHub lets a delivery be redelivered for three days; a week of ids is plenty
        from datetime import datetime, timedelta, timezone

        if state is not None:
            gone = await state.prune_deliveries(datetime.now(timezone.utc) - timedelta(days=7))
            if gone:
                log.info("forgot %d webhook deliveries older than a week", gone)

    return WebhookServer(app, host, port, housekeeping=forget_old_deliveries)
