"""An object store that fails mid-report: the summary is nacked and redelivered, no ReportReady is
published while artifacts are missing, and once the store is back the retry overwrites the torn
objects of the failed attempt and the ReportReady lists every artifact with matching digests."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import uuid
from dataclasses import dataclass
from typing import Any

import boto3
import nats
import pytest
from botocore.exceptions import BotoCoreError

from services.renderer.adapters.stores import (
    DirectoryObjectStore,
    S3ObjectStore,
    S3Options,
    fetch_uri,
)
from services.renderer.app import build_service
from services.renderer.config import RendererSettings
from services.renderer.domain.archive import is_page_key, window_page_key
from services.renderer.domain.keys import index_key
from services.renderer.ports import ObjectNotFound
from shared.config import CommonSettings
from shared.events import ReportReady, WindowSummarized
from shared.messaging import STREAM_REPORTS, Subjects
from shared.service import Runtime
from tests.unit.renderer.samples import daily_summary

pytestmark = pytest.mark.timeout(240)


class MotoServer:
    """moto's S3 over HTTP on a port of its own, kept when it is stopped and started again (state
    kept: moto's backends live in this process)."""

    def __init__(self) -> None:
        self.port = 0  # the first start takes a port of its own; restarts take the same one
        self._server = None

    @property
    def url(self) -> str:
        assert self.port, "started first"
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        from moto.server import ThreadedMotoServer

        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()
        self.port = self._server.get_host_and_port()[1]

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None


class TornStore:
    """The real S3 store, except that the first put writes half its bytes and then the S3 server
    goes away (a crash in the middle of a report); every failed call is put on `failures`."""

    def __init__(self, inner: S3ObjectStore, server: MotoServer) -> None:
        self.inner, self.server = inner, server
        self.failures: asyncio.Queue = asyncio.Queue()
        self.torn: tuple[str, bytes] | None = None

    async def _watch(self, call):
        try:
            return await call
        except ObjectNotFound:
            raise  # an answer, not an outage (is this revision already announced? no)
        except Exception as exc:
            self.failures.put_nowait(exc)
            raise

    async def put(self, key: str, data: bytes, content_type: str):
        if self.torn is None:
            self.torn = (key, data[: len(data) // 2])
            await self.inner.put(key, self.torn[1], content_type)
            await asyncio.to_thread(self.server.stop)
        return await self._watch(self.inner.put(key, data, content_type))

    async def get(self, key: str) -> bytes:
        return await self._watch(self.inner.get(key))

    async def list(self, prefix: str = "") -> list[str]:
        return await self._watch(self.inner.list(prefix))


@dataclass
class Running:
    """A renderer service on its own runtime, and the report-readies of one repository."""

    runtime: Runtime
    service: Any
    nc: Any
    ready: asyncio.Queue

    async def summarize(self, summary) -> None:
        await self.runtime.bus("test").publish(
            WindowSummarized.create(summary), Subjects.summary_ready(summary.repo)
        )


@contextlib.asynccontextmanager
async def renderer(nats_server, store, artifacts_url: str, repo: str):
    settings = RendererSettings(nats_url=nats_server.url, artifacts_url=artifacts_url)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "renderer-test")
    service = build_service(settings, runtime, store=store)
    runtime.add(service)
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    ready: asyncio.Queue = asyncio.Queue()

    async def on_ready(msg) -> None:
        await ready.put(ReportReady.model_validate_json(msg.data))

    try:
        await nc.subscribe(Subjects.report_ready(repo), cb=on_ready)
        yield Running(runtime, service, nc, ready)
    finally:
        await nc.close()
        await runtime.stop()


async def test_store_outage_nacks_and_the_retry_completes_the_report(
    nats_server, monkeypatch
) -> None:
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    server = MotoServer()
    server.start()
    bucket = f"rd-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=server.url).create_bucket(Bucket=bucket)
    monkeypatch.setenv("AWS_ENDPOINT_URL", server.url)  # for fetch_uri's s3:// reads

    # one boto3 attempt per call: the outage reaches the consumer at once (nack, backoff)
    store = TornStore(
        S3ObjectStore(bucket, "rd", S3Options(endpoint_url=server.url, max_attempts=1)), server
    )
    summary = daily_summary(languages=("en", "zh-CN"), formats=("md", "html", "json"))
    try:
        async with renderer(nats_server, store, f"s3://{bucket}/rd", summary.repo) as r:
            await _outage(r, store, server, summary)
    finally:
        server.stop()


async def _outage(r: Running, store: TornStore, server: MotoServer, summary) -> None:
    service, ready = r.service, r.ready
    await r.summarize(summary)

    # the first delivery fails after a torn write, and the message comes back and fails again
    first = await asyncio.wait_for(store.failures.get(), 60)
    second = await asyncio.wait_for(store.failures.get(), 60)
    # transport failures (refused, or a pooled connection closed under it), not our bugs
    assert isinstance(first, BotoCoreError) and isinstance(second, BotoCoreError), (
        first,
        second,
    )
    assert service.consumer.stats.retried >= 2
    assert ready.empty(), "a ReportReady was published while artifacts were missing"
    assert store.torn is not None

    server.start()  # the same port, the same bucket
    report: ReportReady = await asyncio.wait_for(ready.get(), 120)
    d = report.data
    assert {(a.language, a.format) for a in d.artifacts} == {
        (lang, fmt) for lang in ("en", "zh-CN") for fmt in ("md", "html", "json")
    }
    for a in d.artifacts:
        data = await fetch_uri(a.uri)
        assert hashlib.sha256(data).hexdigest() == a.sha256 and len(data) == a.size, a.key
    # the torn object of the failed attempt was overwritten by the retry
    torn_key, torn_bytes = store.torn
    assert await store.inner.get(torn_key) != torn_bytes
    index = json.loads(await store.inner.get(index_key(summary.repo)))
    assert [(r["window"]["label"], r["languages"]) for r in index["reports"]] == [
        (summary.window.label, ["en", "zh-CN"])
    ]
    # one ReportReady for the report, not one per attempt: a later summary (the window's next
    # revision) is the marker; its ReportReady must be the next one, with nothing between
    marker = daily_summary(languages=("en",), formats=("json",), revision=summary.revision + 1)
    await r.summarize(marker)
    after: ReportReady = await asyncio.wait_for(ready.get(), 120)
    assert (after.data.window.label, after.data.revision) == (
        summary.window.label,
        summary.revision + 1,
    ), after.data


async def test_a_missing_bucket_is_an_error_a_person_can_fix(s3_bucket) -> None:
    from services.renderer.adapters.stores import S3StoreError

    endpoint, _ = s3_bucket
    store = S3ObjectStore("rd-no-such-bucket", "", S3Options(endpoint_url=endpoint, max_attempts=1))
    with pytest.raises(S3StoreError, match="'rd-no-such-bucket' does not exist.*ARTIFACTS_URL"):
        await store.put("reports/o/r/d/r1/en/report.md", b"x", "text/markdown")


class PagesFailOnce:
    """A directory store whose first page write fails (the store went away just then)."""

    def __init__(self, inner: DirectoryObjectStore) -> None:
        self.inner = inner
        self.failed: asyncio.Event = asyncio.Event()
        self.pages: asyncio.Queue = asyncio.Queue()  # page keys written, in order
        self.reports = 0  # report documents written

    async def put(self, key: str, data: bytes, content_type: str):
        if is_page_key(key) and not self.failed.is_set():
            self.failed.set()
            raise OSError("the store went away while the pages were written")
        stored = await self.inner.put(key, data, content_type)
        self.reports += key.endswith("/report.md")
        if is_page_key(key):
            self.pages.put_nowait(key)
        return stored

    async def get(self, key: str) -> bytes:
        return await self.inner.get(key)

    async def list(self, prefix: str = "") -> list[str]:
        return await self.inner.list(prefix)


async def test_pages_come_after_the_report_ready_and_a_failure_rewrites_only_them(
    nats_server, tmp_path
) -> None:
    """The pages are written after the report-ready (no reader waits for them); a store failure
    while they are written retries the summary: the report is not rendered again, its
    report-ready is published again with the same id (the stream keeps one), and the pages are
    written on the retry."""
    store = PagesFailOnce(DirectoryObjectStore(tmp_path / "artifacts"))
    summary = daily_summary(languages=("en",), formats=("md", "json"))
    async with renderer(nats_server, store, f"file://{tmp_path}/a", summary.repo) as r:
        service, ready, nc = r.service, r.ready, r.nc
        await r.summarize(summary)
        report: ReportReady = await asyncio.wait_for(ready.get(), 60)
        await asyncio.wait_for(store.failed.wait(), 60)
        # the retry writes the pages, the window's among them
        page = window_page_key(summary.repo, summary.window.label, "en")
        while await asyncio.wait_for(store.pages.get(), 60) != page:
            pass
        assert service.consumer.stats.retried >= 1
        assert store.reports == 1, "the report was rendered again"
        again: ReportReady = await asyncio.wait_for(ready.get(), 60)
        assert again.id == report.id and again.data.artifacts == report.data.artifacts
        subject = Subjects.report_ready(summary.repo)
        info = await nc.jetstream().stream_info(STREAM_REPORTS, subjects_filter=subject)
        assert info.state.subjects == {subject: 1}
