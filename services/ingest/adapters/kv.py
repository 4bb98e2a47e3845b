"""Ingest state in the NATS KV bucket `RD_INGEST_STATE`: cursors, last item states, HTTP
validators (ETag / Last-Modified) and webhook deliveries already handled.

Keys (valid KV keys; repository names are encoded so that `.` in a name cannot add a token):
  cursor.<owner>.<name>.<listing>        ISO time: everything updated before it was published
  item.<owner>.<name>.<number>           `ItemState` JSON
  http.<sha256(url)[:40]>                {"etag": ..., "last_modified": ...}
  delivery.<X-GitHub-Delivery>           seen webhook delivery (create() makes the check atomic)

A restart resumes where it stopped: the cursor only moves after the facts before it were
published (see `services.ingest.sync.rest.sync_repository`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from nats.js.errors import KeyDeletedError, KeyNotFoundError, KeyWrongLastSequenceError

from services.ingest.domain.transitions import ItemState
from shared.events import utc
from shared.messaging import KV_INGEST_STATE

if TYPE_CHECKING:
    from nats.js.client import JetStreamContext
    from nats.js.kv import KeyValue

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def key_token(text: str) -> str:
    """One KV key token for arbitrary text: everything outside [A-Za-z0-9_-] as `=XX` (UTF-8)."""
    out: list[str] = []
    for ch in text:
        if _UNSAFE.match(ch):
            out.extend(f"={b:02X}" for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return "".join(out) or "="


def repo_key(repo: str) -> str:
    owner, name = repo.split("/", 1)
    return f"{key_token(owner)}.{key_token(name)}"


def url_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:40]


@dataclass(frozen=True)
class Validators:
    """What a conditional request sends back: `If-None-Match` / `If-Modified-Since`."""

    etag: str | None = None
    last_modified: str | None = None

    def headers(self) -> dict[str, str]:
        out = {}
        if self.etag:
            out["If-None-Match"] = self.etag
        if self.last_modified:
            out["If-Modified-Since"] = self.last_modified
        return out

    def __bool__(self) -> bool:
        return bool(self.etag or self.last_modified)


class KvIngestState:
    """Typed access to the ingest KV bucket (nats-py `KeyValue`)."""

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv

    @classmethod
    async def open(cls, js: JetStreamContext, bucket: str = KV_INGEST_STATE) -> KvIngestState:
        """The bucket `ensure_topology` created (the runtime creates it before services start)."""
        return cls(await js.key_value(bucket))

    async def _get(self, key: str) -> bytes | None:
        try:
            entry = await self.kv.get(key)
        except (KeyNotFoundError, KeyDeletedError):
            return None
        return entry.value

    # ------------------------------------------------------------ cursors

    async def get_cursor(self, repo: str, listing: str) -> datetime | None:
        raw = await self._get(f"cursor.{repo_key(repo)}.{key_token(listing)}")
        return None if not raw else utc(datetime.fromisoformat(raw.decode()))

    async def put_cursor(self, repo: str, listing: str, when: datetime) -> None:
        await self.kv.put(
            f"cursor.{repo_key(repo)}.{key_token(listing)}", utc(when).isoformat().encode()
        )

    # ------------------------------------------------------------ items

    async def get_item(self, repo: str, number: int) -> ItemState | None:
        raw = await self._get(f"item.{repo_key(repo)}.{int(number)}")
        return None if raw is None else ItemState.from_json(raw)

    async def update_item(
        self,
        repo: str,
        number: int,
        change: Callable[[ItemState | None], ItemState | None],
        attempts: int = 16,
    ) -> ItemState | None:
        """Read-modify-write of an item's state with optimistic concurrency (the poller and the
        webhook endpoint may write the same item): `change(current)` returns the state to store,
        or None to leave it; it is called again with the fresh value after a conflict."""
        key = f"item.{repo_key(repo)}.{int(number)}"
        for _ in range(attempts):
            try:
                entry = await self.kv.get(key)
                assert entry.value is not None  # a get answers a value or raises
                current, revision = ItemState.from_json(entry.value), entry.revision
            except (KeyNotFoundError, KeyDeletedError):
                current, revision = None, None
            new = change(current)
            if new is None:
                return current
            try:
                if revision is None:
                    await self.kv.create(key, new.to_json())
                else:
                    await self.kv.update(key, new.to_json(), last=revision)
                return new
            except KeyWrongLastSequenceError:
                continue
        raise RuntimeError(f"{repo}#{number}: item state kept changing under {attempts} writes")

    # ------------------------------------------------------------ HTTP validators

    async def get_validators(self, url: str) -> Validators:
        raw = await self._get(f"http.{url_key(url)}")
        if not raw:
            return Validators()
        body = json.loads(raw)
        if body.get("url") not in (None, url):  # a hash collision is not a match
            return Validators()
        return Validators(body.get("etag"), body.get("last_modified"))

    async def put_validators(self, url: str, validators: Validators) -> None:
        if not validators:
            return
        body = {"url": url, "etag": validators.etag, "last_modified": validators.last_modified}
        await self.kv.put(f"http.{url_key(url)}", json.dumps(body).encode())

    # ------------------------------------------------------------ webhook deliveries

    async def claim_delivery(self, delivery: str) -> bool:
        """True the first time a delivery id is claimed; False for a redelivery."""
        try:
            await self.kv.create(f"delivery.{key_token(delivery)}", b"1")
        except KeyWrongLastSequenceError:
            return False
        return True

    async def prune_deliveries(self, before: datetime) -> int:
        """Forget delivery ids claimed before `before` (GitHub redelivers for a few days only);
        returns how many were forgotten."""
        cutoff_ns = int(utc(before).timestamp() * 1e9)
        watcher = await self.kv.watch("delivery.>", ignore_deletes=True, meta_only=True)
        stale = []
        try:
            async for entry in watcher:
                if entry is None:  # the end of what was stored when the watch began
                    break
                if entry.created is not None and _nanos(entry.created) < cutoff_ns:
                    stale.append(entry.key)
        finally:
            await watcher.stop()
        for key in stale:
            await self.kv.purge(key)
        return len(stale)

    async def release_delivery(self, delivery: str) -> None:
        """Forget a claim whose facts could not be published, so GitHub's redelivery is handled."""
        await self.kv.purge(f"delivery.{key_token(delivery)}")


def _nanos(created: object) -> int:
    """A KV entry's creation time in nanoseconds since the epoch (nats-py gives an int or a
    datetime depending on its version)."""
    if isinstance(created, datetime):
        return int(utc(created).timestamp() * 1e9)
    if isinstance(created, int | float | str):
        return int(created)
    raise TypeError(f"a KV entry's creation time of type {type(created).__name__}")
