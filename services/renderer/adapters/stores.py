"""Object store adapters for report artifacts: NATS object store, S3-compatible, local directory.

`open_store(url, js)` picks one from a URL and `fetch_uri(uri, js)` reads back any artifact URI a
ReportReady event carries (`nats://RD_ARTIFACTS/<key>`, `s3://bucket/key`, `file:///abs/path`).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from services.renderer.domain.keys import check_key
from services.renderer.ports import ObjectNotFound, ObjectStore, StoredObject
from shared.messaging import OBJECT_BUCKET
from shared.telemetry import tracer

if TYPE_CHECKING:
    from nats.js.client import JetStreamContext


class StoreConfigError(ValueError):
    """An artifacts URL or store setting a person typed is wrong; the message says how to fix it."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_tracer = tracer("renderer.store")


def _traced_put(put):
    """A span per object-store write: which store, which key, how many bytes."""

    @functools.wraps(put)
    async def traced(self, key: str, data: bytes, content_type: str) -> StoredObject:
        with _tracer.start_as_current_span(
            "object-store put",
            attributes={
                "repodigest.store": type(self).__name__,
                "repodigest.key": key,
                "repodigest.size": len(data),
                "repodigest.content_type": content_type,
            },
        ):
            return await put(self, key, data, content_type)

    return traced


# ---------------------------------------------------------------- NATS object store


class NatsObjectStore:
    """Artifacts in a JetStream object store bucket (the default; no extra infrastructure)."""

    def __init__(self, js: JetStreamContext, bucket: str = OBJECT_BUCKET) -> None:
        self.js, self.bucket = js, bucket
        self._obs: Any = None

    async def _store(self) -> Any:
        if self._obs is None:
            from nats.js.errors import BucketNotFoundError, NotFoundError

            try:
                self._obs = await self.js.object_store(self.bucket)
            except (BucketNotFoundError, NotFoundError):
                from nats.js.api import ObjectStoreConfig, StorageType

                self._obs = await self.js.create_object_store(
                    self.bucket, ObjectStoreConfig(bucket=self.bucket, storage=StorageType.FILE)
                )
        return self._obs

    def uri(self, key: str) -> str:
        return f"nats://{self.bucket}/{key}"

    @_traced_put
    async def put(self, key: str, data: bytes, content_type: str) -> StoredObject:
        from nats.js.api import ObjectMeta

        check_key(key)
        obs = await self._store()
        await obs.put(
            key,
            data,
            meta=ObjectMeta(
                name=key, description=content_type, headers={"Content-Type": [content_type]}
            ),
        )
        return StoredObject(self.uri(key), key, len(data), _digest(data), content_type)

    async def get(self, key: str) -> bytes:
        from nats.js.errors import NotFoundError

        obs = await self._store()
        try:
            result = await obs.get(key)
        except NotFoundError:
            raise ObjectNotFound(f"no object {key!r} in NATS object store {self.bucket}") from None
        return bytes(result.data)

    async def list(self, prefix: str = "") -> list[str]:
        from nats.js.errors import NotFoundError

        obs = await self._store()
        try:
            infos = await obs.list(ignore_deletes=True)
        except NotFoundError:  # nats-py raises for an empty bucket
            return []
        return sorted(i.name for i in infos if i.name.startswith(prefix) and not i.deleted)


# ---------------------------------------------------------------- S3


@dataclass(frozen=True)
class S3Options:
    endpoint_url: str | None = None
    region: str | None = None
    access_key_id: str | None = None
    secret_access_key: str | None = None
    session_token: str | None = None
    addressing_style: str | None = None  # "path" for MinIO and most S3-compatible servers
    # boto3's own attempts per call; beyond them the message is nacked and redelivered later
    max_attempts: int = 5


class S3ObjectStore:
    """Artifacts in an S3-compatible bucket (AWS S3, MinIO); boto3 runs in a thread."""

    def __init__(
        self, bucket: str, prefix: str = "", options: S3Options | None = None, client: Any = None
    ) -> None:
        if not bucket:
            raise StoreConfigError("an S3 artifacts URL needs a bucket: s3://<bucket>/<prefix>")
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.options = options or S3Options()
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = make_s3_client(self.options)
        return self._client

    def _full(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def uri(self, key: str) -> str:
        return f"s3://{self.bucket}/{self._full(key)}"

    @_traced_put
    async def put(self, key: str, data: bytes, content_type: str) -> StoredObject:
        check_key(key)
        digest = _digest(data)
        await asyncio.to_thread(
            _s3_put, self.client, self.bucket, self._full(key), data, content_type, digest
        )
        return StoredObject(self.uri(key), key, len(data), digest, content_type)

    async def get(self, key: str) -> bytes:
        return await asyncio.to_thread(_s3_get, self.client, self.bucket, self._full(key))

    async def list(self, prefix: str = "") -> list[str]:
        full = self._full(prefix) if prefix else (f"{self.prefix}/" if self.prefix else "")

        def run() -> list[str]:
            keys: list[str] = []
            for page in self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=full
            ):
                keys.extend(o["Key"] for o in page.get("Contents", ()))
            return keys

        cut = len(self.prefix) + 1 if self.prefix else 0
        return sorted(k[cut:] for k in await asyncio.to_thread(run))


def make_s3_client(options: S3Options) -> Any:
    try:
        import boto3
        from botocore.config import Config
    except ImportError:
        raise StoreConfigError(
            "S3 artifacts need boto3: install the s3 extra (pip install 'repodigest[s3]')"
        ) from None
    config = Config(
        retries={"max_attempts": max(1, options.max_attempts), "mode": "standard"},
        s3={"addressing_style": options.addressing_style} if options.addressing_style else None,
    )
    return boto3.client(
        "s3",
        endpoint_url=options.endpoint_url,
        region_name=options.region,
        aws_access_key_id=options.access_key_id,
        aws_secret_access_key=options.secret_access_key,
        aws_session_token=options.session_token,
        config=config,
    )


def _s3_put(
    client: Any, bucket: str, key: str, data: bytes, content_type: str, digest: str
) -> None:
    from botocore.exceptions import ClientError

    try:
        client.put_object(
            Bucket=bucket, Key=key, Body=data, ContentType=content_type, Metadata={"sha256": digest}
        )
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        if code == "NoSuchBucket":
            # retried like any store failure (the bucket may be created meanwhile), but say so
            raise S3StoreError(
                f"S3 bucket {bucket!r} does not exist: create it, or point "
                "REPODIGEST_ARTIFACTS_URL at an existing bucket"
            ) from None
        if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
            raise S3StoreError(
                f"S3 refused to write s3://{bucket}/{key} ({code}): check the credentials "
                "(REPODIGEST_S3_ACCESS_KEY_ID / REPODIGEST_S3_SECRET_ACCESS_KEY or boto3's chain) "
                "and that they may s3:PutObject on the bucket"
            ) from None
        raise


class S3StoreError(RuntimeError):
    """Writing to S3 failed for a reason a person can fix; the report is retried meanwhile."""


def _s3_get(client: Any, bucket: str, key: str) -> bytes:
    from botocore.exceptions import ClientError

    try:
        return client.get_object(Bucket=bucket, Key=key)["Body"].read()
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
            raise ObjectNotFound(f"no object s3://{bucket}/{key}") from None
        raise


# ---------------------------------------------------------------- directory


class DirectoryObjectStore:
    """Artifacts as files under a directory (local runs, shared volumes, static web hosting)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).expanduser().resolve()

    def path(self, key: str) -> Path:
        check_key(key)
        path = (self.root / key).resolve()
        if self.root not in path.parents:
            raise ValueError(f"object key {key!r} escapes the artifacts directory")
        return path

    @_traced_put
    async def put(self, key: str, data: bytes, content_type: str) -> StoredObject:
        path = self.path(key)

        def write() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # write then rename: a reader never sees half a report
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise

        await asyncio.to_thread(write)
        return StoredObject(path.as_uri(), key, len(data), _digest(data), content_type)

    async def get(self, key: str) -> bytes:
        path = self.path(key)
        try:
            return await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            raise ObjectNotFound(f"no file {path}") from None

    async def list(self, prefix: str = "") -> list[str]:
        # walk only the directory the prefix names (a repository's reports, not every repository)
        folder = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
        base = self.path(folder) if folder else self.root

        def run() -> list[str]:
            if not base.is_dir():
                return []
            keys = (
                p.relative_to(self.root).as_posix()
                for p in base.rglob("*")
                if p.is_file() and not p.name.startswith(".tmp-")
            )
            return sorted(k for k in keys if k.startswith(prefix))

        return await asyncio.to_thread(run)


# ---------------------------------------------------------------- factories


def open_store(
    url: str, js: JetStreamContext | None = None, *, s3: S3Options | None = None
) -> ObjectStore:
    """An object store from an artifacts URL.

    `nats` or `nats://<bucket>` (default bucket RD_ARTIFACTS) | `s3://bucket/prefix?endpoint_url=
    http://minio:9000&region=us-east-1&addressing_style=path` | `file:///abs/path` | a directory.
    Options in the URL override `s3`; credentials come from `s3` or boto3's usual chain.
    """
    text = (url or "nats").strip()
    if text in ("nats", "nats:", "nats://"):
        return NatsObjectStore(_need_js(js, text))
    parts = urlsplit(text)
    if parts.scheme == "nats":
        bucket = parts.netloc or OBJECT_BUCKET
        return NatsObjectStore(_need_js(js, text), bucket)
    if parts.scheme == "s3":
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        unknown = set(query) - {"endpoint_url", "region", "addressing_style"}
        if unknown:
            raise StoreConfigError(
                f"unknown S3 option(s) {', '.join(sorted(unknown))} in {text!r}; "
                "use endpoint_url, region, addressing_style"
            )
        base = s3 or S3Options()
        options = S3Options(
            endpoint_url=query.get("endpoint_url", base.endpoint_url),
            region=query.get("region", base.region),
            access_key_id=base.access_key_id,
            secret_access_key=base.secret_access_key,
            session_token=base.session_token,
            addressing_style=query.get("addressing_style", base.addressing_style),
            max_attempts=base.max_attempts,
        )
        return S3ObjectStore(parts.netloc, unquote(parts.path), options)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise StoreConfigError(f"{text!r}: file URLs must be local (file:///abs/path)")
        return DirectoryObjectStore(unquote(parts.path))
    if parts.scheme in ("",) or (len(parts.scheme) == 1 and os.name == "nt"):
        return DirectoryObjectStore(text)
    raise StoreConfigError(
        f"artifacts URL {text!r} is not understood; use nats, s3://bucket/prefix, "
        "file:///path or a directory path"
    )


def _need_js(js: Any, url: str) -> Any:
    if js is None:
        raise StoreConfigError(f"artifacts URL {url!r} needs a NATS JetStream connection")
    return js


async def fetch_uri(
    uri: str, js: JetStreamContext | None = None, *, s3: S3Options | None = None
) -> bytes:
    """The bytes of an artifact URI from a ReportReady event.

    For `s3://` URIs the endpoint comes from `s3` or boto3's own configuration (for MinIO set
    AWS_ENDPOINT_URL, which boto3 reads).
    """
    parts = urlsplit(uri)
    if parts.scheme == "nats":
        key = unquote(parts.path.lstrip("/"))
        return await NatsObjectStore(_need_js(js, uri), parts.netloc or OBJECT_BUCKET).get(key)
    if parts.scheme == "s3":
        store = S3ObjectStore(parts.netloc, "", s3)
        return await store.get(unquote(parts.path.lstrip("/")))
    if parts.scheme == "file":
        path = Path(unquote(parts.path))
        try:
            return await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            raise ObjectNotFound(f"no file {path}") from None
    raise StoreConfigError(f"cannot fetch {uri!r}: expected a nats://, s3:// or file:// URI")
