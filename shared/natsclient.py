"""A plain nats-py connection for the CLI's short commands (subscribe, fetch): the services' NATS
settings (the URL, TLS, REPODIGEST_NATS_CREDS, _NKEY, _USER/_PASSWORD or _TOKEN), one-line errors, and no password or
token in any message or log record (nats-py's default error callback logs a traceback per try)."""

from __future__ import annotations

import asyncio
import logging

import nats
import nats.errors

from shared.config import CommonSettings
from shared.service import (
    LOGIN_HELP,
    UNREACHABLE_HINT,
    NatsUnreachable,
    connect_failure,
    connect_options,
    login_tried,
    redact_url,
)

log = logging.getLogger("repodigest.nats")

_AUTH_WORDS = ("authorization", "authentication", "permissions violation", "user authentication")


def _refused_login(errors: list[BaseException]) -> bool:
    return any(any(w in str(e).lower() for w in _AUTH_WORDS) for e in errors)


async def connect(settings: CommonSettings, name: str = "repodigest-cli", reconnects: int = 1):
    """A connected `nats.aio.client.Client`, or NatsUnreachable with a message a person can act on
    (the URL redacted)."""
    where = redact_url(settings.nats_url)
    errors: list[BaseException] = []

    async def on_error(exc: BaseException) -> None:
        errors.append(exc)
        # the type only: a nats-py error's text can carry what the server echoed
        log.debug("NATS client error at %s: %s", where, type(exc).__name__)

    kwargs = connect_options(settings)
    timeout = max(1.0, settings.nats_connect_timeout)
    try:
        return await asyncio.wait_for(
            nats.connect(
                settings.servers(),
                name=name,
                connect_timeout=int(timeout),
                max_reconnect_attempts=reconnects,
                reconnect_time_wait=0.5,
                error_cb=on_error,
                **kwargs,
            ),
            timeout * 3 + 5,
        )
    except (TimeoutError, OSError, nats.errors.Error) as exc:
        errors.append(exc)
        if _refused_login(errors):
            raise NatsUnreachable(
                f"NATS at {where} refused the login {login_tried(settings)}: {LOGIN_HELP}"
            ) from None
        known = next((f for f in map(connect_failure, errors) if f is not None), None)
        cause, hint = known or (
            next(
                (type(e).__name__ for e in errors if not isinstance(e, nats.errors.NoServersError)),
                type(exc).__name__,
            ),
            UNREACHABLE_HINT,
        )
        raise NatsUnreachable(f"cannot reach NATS at {where}: {cause}. {hint}") from None
