"""Secrets out of text and logs: webhook URLs (their token is in the path), passwords, tokens."""

from __future__ import annotations

import logging
from collections.abc import Iterable

# loggers of the libraries the notifier sends through: httpx logs each request's URL at INFO
LIBRARY_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "github.Requester",
    "urllib3.connectionpool",
)


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets: list[str] = []
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        for secret in secrets:
            if secret and len(secret) >= 4 and secret not in self.secrets:
                self.secrets.append(secret)
        # longest first: a URL is replaced whole before a token inside it
        self.secrets.sort(key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, "***")
        return text


class RedactingFilter(logging.Filter):
    """Rewrites a record's message with every known secret replaced by `***`."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__("repodigest-notifier-redact")
        self.redact = redact

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken record is left to logging's own handling
            return True
        clean = self.redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            text = self.redact(str(record.exc_info[1]))
            if text != str(record.exc_info[1]):
                record.exc_info = None  # a traceback that names a secret is not logged
                record.msg = f"{record.msg} ({text})"
        return True


def install(redact: Redactor, names: Iterable[str]) -> list[tuple[logging.Logger, logging.Filter]]:
    """The filter on each named logger (records logged there pass it before any handler)."""
    out: list[tuple[logging.Logger, logging.Filter]] = []
    for name in names:
        logger = logging.getLogger(name)
        flt = RedactingFilter(redact)
        logger.addFilter(flt)
        out.append((logger, flt))
    return out


def uninstall(installed: list[tuple[logging.Logger, logging.Filter]]) -> None:
    for logger, flt in installed:
        logger.removeFilter(flt)
