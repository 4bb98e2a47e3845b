"""Local servers speaking each protocol the notifier posts to: an HTTP receiver for Slack, Discord
and Teams webhooks (answers scripted per path: 200, 500, 429 with Retry-After, 404), and a real
aiosmtpd SMTP server with AUTH. Both bind port 0 and report the port the system chose."""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import json
import warnings
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from shared.http import listening_socket


@dataclass
class Received:
    path: str
    status: int
    payload: Any


@dataclass
class WebhookReceiver:
    """POST /<anything>: the next scripted answer for the path's first segment, else 200."""

    script: dict[str, deque] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    server: uvicorn.Server | None = None
    task: asyncio.Task | None = None
    port: int | None = None

    def answer(self, prefix: str, *answers: tuple[int, dict[str, str]]) -> None:
        self.script.setdefault(prefix, deque()).extend(answers)

    def ok(self, prefix: str) -> list[Received]:
        return [r for r in self.received if r.path.split("/")[1] == prefix and r.status < 300]

    def tries(self, prefix: str) -> list[Received]:
        return [r for r in self.received if r.path.split("/")[1] == prefix]

    async def wait_for(self, predicate, timeout: float = 60.0) -> None:
        async def until() -> None:
            async with self.changed:
                await self.changed.wait_for(predicate)

        await asyncio.wait_for(until(), timeout)

    async def _post(self, request: Request) -> Response:
        prefix = request.url.path.split("/")[1]
        queue = self.script.get(prefix)
        status, headers = queue.popleft() if queue else (200, {})
        payload = json.loads(await request.body())
        async with self.changed:
            self.received.append(Received(request.url.path, status, payload))
            self.changed.notify_all()
        if prefix == "discord" and status == 204:
            return Response(status_code=204)
        if status == 429:
            return JSONResponse(
                {
                    "message": "You are being rate limited.",
                    "retry_after": float(headers.get("Retry-After", 1)),
                },
                status_code=429,
                headers=headers,
            )
        return Response(
            "ok" if status < 300 else "no_service",
            status_code=status,
            headers=headers,
            media_type="text/plain",
        )

    async def start(self) -> WebhookReceiver:
        app = Starlette(routes=[Route("/{path:path}", self._post, methods=["POST"])])
        self.server = uvicorn.Server(
            uvicorn.Config(
                app,
                host="127.0.0.1",
                port=0,
                log_level="warning",
                lifespan="off",
                log_config=None,
                access_log=False,
            )
        )
        sock = listening_socket("127.0.0.1", 0)  # listening now: no waiting for serve() to start
        self.port = sock.getsockname()[1]
        self.task = asyncio.create_task(self.server.serve(sockets=[sock]))
        return self

    @property
    def base_url(self) -> str:
        assert self.port is not None
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        if self.server is not None and self.task is not None:
            self.server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


class MailHandler:
    """aiosmtpd handler: keeps each message; `refuse` scripts SMTP answers to DATA."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.refuse: deque[str] = deque()
        self.arrived = asyncio.Event()

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.refuse:
            return self.refuse.popleft()
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        self.arrived.set()
        return "250 Message accepted for delivery"


async def start_smtp(handler: MailHandler, user: str, password: str):
    """A real aiosmtpd server on 127.0.0.1, port 0, requiring AUTH LOGIN/PLAIN (without TLS:
    a loopback test); returns (asyncio server, port, logins seen)."""
    from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

    logins: list[str] = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login.decode() == user
            and auth_data.password.decode() == password
        )
        logins.append("ok" if ok else "refused")
        # handled=False: aiosmtpd answers a failure with its 535 (handled=True sends nothing)
        return AuthResult(success=ok, handled=False)

    def protocol() -> SMTP:
        with warnings.catch_warnings():
            # "AUTH without TLS": deliberate here, on loopback
            warnings.simplefilter("ignore", UserWarning)
            return SMTP(
                handler,
                hostname="mail.test",
                authenticator=authenticator,
                auth_required=True,
                auth_require_tls=False,
            )

    loop = asyncio.get_running_loop()
    server = await loop.create_server(protocol, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], logins
