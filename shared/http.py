"""HTTP details more than one service reads the same way."""

from __future__ import annotations

import socket
import time
from email.utils import parsedate_to_datetime


def listening_socket(host: str, port: int, backlog: int = 128) -> socket.socket:
    """A non-blocking TCP socket bound and listening on host:port (port 0: one the system picks,
    `getsockname()[1]` says which) for `uvicorn.Server.serve(sockets=[…])`: the port is known and
    connections queue in the backlog from this moment, so nobody polls for the server to start.
    OSError (the port taken, the address unknown) is raised here, to the caller."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header in seconds from `now` (epoch seconds, default the clock): delta-
    seconds or an HTTP date, never negative; None when absent or unreadable. GitHub sends
    seconds; chat webhooks and mail gateways may send a date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT; a naive one would compare as local time
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
