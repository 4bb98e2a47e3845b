"""HTTP details more than one service reads the same way."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime


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
