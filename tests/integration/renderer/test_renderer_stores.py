"""Every object-store adapter through one test body: NATS object store, S3 (moto), directory."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

import nats
import pytest

from services.renderer.adapters.stores import (
    DirectoryObjectStore,
    NatsObjectStore,
    S3ObjectStore,
    StoreConfigError,
    fetch_uri,
    open_store,
)
from services.renderer.domain.keys import UnsafeKey
from services.renderer.ports import ObjectNotFound

BACKENDS = ["nats", "s3", "directory"]


@pytest.fixture(params=BACKENDS)
async def store_and_js(request, tmp_path, nats_server):
    """(store, js) for each backend, built through `open_store` from its URL form."""
    # (nats_server is started for every backend: async fixtures cannot be requested lazily)
    if request.param == "nats":
        nc = await nats.connect(nats_server.url)
        try:
            yield open_store("nats", nc.jetstream()), nc.jetstream()
        finally:
            await nc.close()
    elif request.param == "s3":
        endpoint, bucket = request.getfixturevalue("s3_bucket")
        yield open_store(f"s3://{bucket}/some/prefix?endpoint_url={endpoint}"), None
    else:
        yield open_store(str(tmp_path / "artifacts")), None


async def test_put_get_list_and_fetch(store_and_js, monkeypatch) -> None:
    store, js = store_and_js
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 900  # > 128 KiB: several NATS chunks
    md = "# 周报\n".encode()
    a = await store.put("reports/o/r/2026-W24/r1/en/report.pdf", pdf, "application/pdf")
    b = await store.put(
        "reports/o/r/2026-W24/r1/zh-CN/report.md", md, "text/markdown; charset=utf-8"
    )
    await store.put("reports/o/other/2026-W24/r1/en/report.md", b"x", "text/markdown")

    assert a.sha256 == hashlib.sha256(pdf).hexdigest() and a.size == len(pdf)
    assert a.content_type == "application/pdf" and a.key.endswith("en/report.pdf")
    assert await store.get(a.key) == pdf
    assert await store.get(b.key) == md
    assert await store.list("reports/o/r/") == [a.key, b.key]
    assert len(await store.list()) == 3

    # overwrite: same key, new bytes
    c = await store.put(b.key, b"v2", "text/markdown")
    assert await store.get(b.key) == b"v2" and c.uri == b.uri

    # the URI in a ReportReady event reads back the same bytes
    if isinstance(store, S3ObjectStore):
        monkeypatch.setenv("AWS_ENDPOINT_URL", store.options.endpoint_url)
        assert a.uri.startswith(f"s3://{store.bucket}/some/prefix/reports/")
    elif isinstance(store, NatsObjectStore):
        assert a.uri == "nats://RD_ARTIFACTS/reports/o/r/2026-W24/r1/en/report.pdf"
    else:
        assert urlsplit(a.uri).scheme == "file"
    assert hashlib.sha256(await fetch_uri(a.uri, js)).hexdigest() == a.sha256

    with pytest.raises(ObjectNotFound):
        await store.get("reports/o/r/absent.md")
    with pytest.raises(UnsafeKey):
        await store.put("reports/../../escape.md", b"x", "text/markdown")


async def test_empty_store_lists_nothing(store_and_js) -> None:
    store, _ = store_and_js
    assert await store.list("reports/") == []


def test_open_store_urls(tmp_path) -> None:
    assert isinstance(open_store(f"file://{tmp_path}"), DirectoryObjectStore)
    assert isinstance(open_store(str(tmp_path)), DirectoryObjectStore)
    s3 = open_store("s3://bucket/pre/fix?region=eu-west-1&addressing_style=path")
    assert isinstance(s3, S3ObjectStore)
    assert (s3.bucket, s3.prefix, s3.options.region) == ("bucket", "pre/fix", "eu-west-1")
    with pytest.raises(StoreConfigError, match="needs a NATS"):
        open_store("nats", None)
    with pytest.raises(StoreConfigError, match="unknown S3 option"):
        open_store("s3://bucket?endpoint=http://x")
    with pytest.raises(StoreConfigError, match="not understood"):
        open_store("ftp://host/path")
