"""The CloudEvents 1.0 envelope every repodigest message travels in, and deterministic ids."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
)

SPECVERSION = "1.0"
# The NATS binding's structured content mode: the message is the whole event as JSON
CONTENT_TYPE = "application/cloudevents+json"
# where each type's committed JSON Schema (shared/events/schemas/<type>.json) is published: its `$id`
SCHEMA_BASE = "https://repodigest.dev/schemas/"


def schema_uri(event_type: str) -> str:
    """The `$id` of the committed JSON Schema of `event_type` (the event's `dataschema`)."""
    return f"{SCHEMA_BASE}{event_type}.json"


def _dataschema(data: dict[str, Any]) -> str | None:
    event_type = data.get("type")
    return schema_uri(event_type) if isinstance(event_type, str) and event_type else None


# What the projections (SQLite, PostgreSQL) can hold, checked where a fact enters: one fact that
# storage refuses must be refused at the edge, not fail a whole fold batch downstream.
# Text: no NUL (PostgreSQL text cannot hold it) and no lone surrogate (not encodable as UTF-8).
Text = Annotated[str, StringConstraints(pattern=r"^[^\x00]*$")]
INT64_MAX = 2**63 - 1
Int64 = Annotated[int, Field(ge=-INT64_MAX - 1, le=INT64_MAX)]
# counts (lines, files, comments, reviews, reactions): GitHub never gives a negative one, and the
# report's arithmetic (sizes, logarithmic scores) must not meet one downstream
Count = Annotated[int, Field(ge=0, le=INT64_MAX)]
# pull request and issue numbers: GitHub's GraphQL `Int` (signed 32 bits), the projections' column
ITEM_NUMBER_MAX = 2**31 - 1
# the years a GitHub time can have (with room ahead); outside them a time is a mistake or an attack
YEAR_MIN, YEAR_MAX = 1970, 2200
TIME_MIN = datetime(YEAR_MIN, 1, 1, tzinfo=UTC)
TIME_END = datetime(YEAR_MAX + 1, 1, 1, tzinfo=UTC)


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
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def bounded_utc(value: datetime) -> datetime:
    """`utc(value)`, refused (ValueError) outside the years YEAR_MIN..YEAR_MAX.

    The year is checked before converting: year 1 or 9999 with an offset would overflow."""
    if not YEAR_MIN - 1 <= value.year <= YEAR_MAX + 1:
        raise ValueError(f"time {value.isoformat()} is outside {YEAR_MIN}..{YEAR_MAX}")
    value = utc(value)
    if not TIME_MIN <= value < TIME_END:
        raise ValueError(f"time {value.isoformat()} is outside {YEAR_MIN}..{YEAR_MAX}")
    return value


# an aware UTC time within YEAR_MIN..YEAR_MAX (naive input is taken to be UTC)
Time = Annotated[datetime, AfterValidator(bounded_utc)]


class CloudEvent(Frozen):
    """A CloudEvents 1.0 event in structured JSON mode.

    Subclasses pin `type` to a Literal carrying the version and give `data` a concrete model.
    `time` is when the fact happened on GitHub, never when it was observed.
    """

    specversion: str = SPECVERSION
    id: Text = Field(min_length=8, max_length=128)
    source: Text = Field(min_length=1)
    type: str
    subject: Text | None = None
    time: datetime
    datacontenttype: Text = "application/json"
    # the committed schema of the type (events logged before it was set get it on reading);
    # that schema describes the whole event, its `data` property the data
    dataschema: Text | None = Field(default_factory=_dataschema)
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
        return bounded_utc(v)

    def to_bytes(self) -> bytes:
        return self.model_dump_json(exclude_none=False).encode("utf-8")
