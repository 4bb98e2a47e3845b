"""Ports of the renderer: where artifacts are stored (and read back), and how PDFs are made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class StoredObject:
    """An object as stored: where it is (`uri`), its key, size and SHA-256 (hex)."""

    uri: str
    key: str
    size: int
    sha256: str
    content_type: str


class ObjectNotFound(KeyError):
    """The store has no object under that key."""


class ObjectStore(Protocol):
    """An artifact store: NATS object store, S3-compatible, or a directory."""

    async def put(self, key: str, data: bytes, content_type: str) -> StoredObject: ...

    async def get(self, key: str) -> bytes: ...

    async def list(self, prefix: str = "") -> list[str]: ...


class PdfEngine(Protocol):
    async def render(self, html: str, base_url: str | None = None) -> bytes: ...
