"""The CloudEvents 1.0 envelope every repodigest message travels in, and deterministic ids."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

SPECVERSION = "1.0"


class Frozen(BaseModel):
    """Base for every payload model: immutable, tolerant of fields a newer producer added."""

    model_config = ConfigDict(frozen=True, extra="ignore")


def deterministic_id(*parts: object) -> str:
    """An id that is the same every time the same fact is seen (webhook, poll or replay).

    Parts are joined with a separator that cannot appear in logins, repository names or ISO times,
    so ("a|b", "c") and ("a", "b|c") never collide by accident.
    """
    text = "\x1f".join(_canonical(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _canonical(part: object) -> str:
    if isinstance(part, datetime):
        return utc(part).isoformat()
    return "" if part is None else str(part)


def utc(value: datetime) -> datetime:
    """Normalise to an aware UTC datetime (naive values are taken to be UTC, as GitHub sends them)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


class CloudEvent(Frozen):
    """A CloudEvents 1.0 event in structured JSON mode.

    Subclasses pin `type` to a Literal carrying the version and give `data` a concrete model.
    `time` is when the fact happened on GitHub, never when it was observed.
    """

    specversion: str = SPECVERSION
    id: str = Field(min_length=8, max_length=128)
    source: str = Field(min_length=1)
    type: str
    subject: str | None = None
    time: datetime
    datacontenttype: str = "application/json"
    data: Any

    TYPE: ClassVar[str] = ""

    @field_validator("specversion")
    @classmethod
    def _spec(cls, v: str) -> str:
        if v != SPECVERSION:
            raise ValueError(f"unsupported CloudEvents specversion {v!r}; expected {SPECVERSION}")
        return v

    @field_validator("time")
    @classmethod
    def _aware(cls, v: datetime) -> datetime:
        return utc(v)

    def to_bytes(self) -> bytes:
        return self.model_dump_json(exclude_none=False).encode("utf-8")
