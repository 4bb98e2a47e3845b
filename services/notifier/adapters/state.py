"""The delivery record in a NATS KV bucket: one key per route and report revision.

A key goes `sending` before a post and `sent` (or `dead`) after it, and the report-ready is
acknowledged only after that: a redelivery, a restart or another replica finds `sent` and posts
nothing. Claims are compare-and-set on the key's revision, so two replicas never post at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import (
    BadRequestError,
    KeyDeletedError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NotFoundError,
)

from shared.messaging import KV_NOTIFIER_STATE

if TYPE_CHECKING:
    from nats.js.client import JetStreamContext
    from nats.js.kv import KeyValue

_ALLOWED = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def _part(text: str) -> str:
    # KV keys are subject tokens: '.' separates, so it is encoded like any other odd character
    return "".join(ch if ch in _ALLOWED else "=" + ch.encode().hex().upper() for ch in text) or "="


def delivery_key(route: str, repo: str, window: str, revision: int) -> str:
    """`route/owner/name/window/r<revision>`, each part made KV-safe."""
    owner, name = repo.split("/", 1)
    return "/".join((_part(route), _part(owner), _part(name), _part(window), f"r{revision}"))


@dataclass(frozen=True)
class Record:
    state: str  # sending | sent | dead | failed
    at: str
    attempts: int = 0
    reason: str = ""
    owner: str = ""  # the notifier instance that wrote it (a `sending` claim's holder)
    revision: int = 0  # the KV entry's revision (for compare-and-set), not stored

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "state": self.state,
                "at": self.at,
                "attempts": self.attempts,
                "reason": self.reason,
                "owner": self.owner,
            }
        ).encode()

    def age(self) -> float:
        """Seconds since it was written (a record without a readable time is old)."""
        try:
            return (datetime.now(UTC) - datetime.fromisoformat(self.at)).total_seconds()
        except (TypeError, ValueError):
            return float("inf")


class AlreadyClaimed(Exception):
    """Another attempt changed the key between our read and our write."""


class KvDeliveryLog:
    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv

    @classmethod
    async def open(
        cls, js: JetStreamContext, replicas: int = 1, bucket: str = KV_NOTIFIER_STATE
    ) -> KvDeliveryLog:
        try:
            kv = await js.key_value(bucket)
        except (NotFoundError, BadRequestError):
            kv = await js.create_key_value(
                KeyValueConfig(
                    bucket=bucket,
                    history=1,
                    storage=StorageType.FILE,
                    replicas=replicas,
                    description="repodigest notifier: what was posted where (route/repo/window/rev)",
                )
            )
        return cls(kv)

    async def get(self, key: str) -> Record | None:
        try:
            entry = await self.kv.get(key)
        except (KeyNotFoundError, KeyDeletedError):
            return None
        data = json.loads(entry.value or b"{}")
        return Record(
            state=data.get("state", "failed"),
            at=data.get("at", ""),
            attempts=int(data.get("attempts", 0)),
            reason=data.get("reason", ""),
            owner=data.get("owner", ""),
            revision=int(entry.revision or 0),
        )

    async def claim(self, key: str, current: Record | None, record: Record) -> int:
        """Write `record` if the key is still as read (`current`); its new revision."""
        try:
            if current is None:
                return await self.kv.create(key, record.to_json())
            return await self.kv.update(key, record.to_json(), last=current.revision)
        except (KeyWrongLastSequenceError, BadRequestError) as exc:
            raise AlreadyClaimed(key) from exc

    async def put(self, key: str, record: Record) -> None:
        await self.kv.put(key, record.to_json())


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
