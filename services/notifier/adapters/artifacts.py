"""Reading a report's artifacts back by the URIs its report-ready lists (nats://, s3://, file://),
checked against the SHA-256 the event carries."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from nats.js.errors import NotFoundError, ObjectNotFoundError

from shared.events import Artifact
from shared.messaging import OBJECT_BUCKET

if TYPE_CHECKING:
    from nats.js.client import JetStreamContext


class ArtifactUnavailable(Exception):
    """The artifact cannot be read now (absent, a store outage, bytes that do not match)."""


class ArtifactReader:
    def __init__(self, js: JetStreamContext | None, s3: dict[str, Any] | None = None) -> None:
        self.js = js
        self.s3 = s3 or {}
        self._client: Any = None

    async def read(self, artifact: Artifact) -> bytes:
        data = await self._read(artifact.uri)
        if hashlib.sha256(data).hexdigest() != artifact.sha256:
            raise ArtifactUnavailable(
                f"{artifact.key}: its bytes do not match the SHA-256 the report-ready announced"
            )
        return data

    async def _read(self, uri: str) -> bytes:
        parts = urlsplit(uri)
        key = unquote(parts.path.lstrip("/"))
        if parts.scheme == "nats":
            if self.js is None:
                raise ArtifactUnavailable(f"{key}: reading nats:// needs a NATS connection")
            try:
                store = await self.js.object_store(parts.netloc or OBJECT_BUCKET)
                result = await store.get(key)
            except (ObjectNotFoundError, NotFoundError):
                raise ArtifactUnavailable(f"{key}: not in the object store") from None
            return result.data or b""
        if parts.scheme == "file":
            try:
                return await asyncio.to_thread(Path(unquote(parts.path)).read_bytes)
            except OSError as exc:
                raise ArtifactUnavailable(f"{key}: {exc.strerror or exc}") from None
        if parts.scheme == "s3":
            return await asyncio.to_thread(self._s3_get, parts.netloc, key)
        raise ArtifactUnavailable(f"cannot read {uri!r}: expected nats://, s3:// or file://")

    def _s3_get(self, bucket: str, key: str) -> bytes:
        if self._client is None:
            import boto3  # the s3 extra, as for the renderer

            self._client = boto3.client("s3", **{k: v for k, v in self.s3.items() if v})
        try:
            return self._client.get_object(Bucket=bucket, Key=key)["Body"].read()
        except Exception as exc:  # noqa: BLE001 - botocore's errors: all mean "not now"
            raise ArtifactUnavailable(f"{key}: S3 read failed ({type(exc).__name__})") from None
