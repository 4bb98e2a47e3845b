"""The archive's pages in each object store (NATS object store, S3, directory), regenerated as the
renderer does after each report-ready: what a report changes, a redelivery writing nothing, a
store older than the site getting every page, and another replica's report landing while the
pages are written."""

from __future__ import annotations

from datetime import UTC, datetime

import nats
import pytest

from services.renderer.adapters.site import SiteBuilder
from services.renderer.adapters.stores import open_store
from services.renderer.domain.archive import is_page_key
from services.renderer.handlers import render_report
from shared.events import ChangedFigure, Counts, WindowSummarized
from tests.unit.renderer.samples import weekly_summary

pytestmark = pytest.mark.timeout(300)

A, B = "acme/engine", "acme/plugin"
T0 = datetime(2026, 6, 15, 2, tzinfo=UTC)


def summary(
    repo: str, revision: int = 1, merged: int = 41, label: str = "2026-W24", changed=()
) -> WindowSummarized:
    data = weekly_summary(
        repo=repo,
        revision=revision,
        formats=("md", "html", "json"),
        changed_figures=changed,
        request_id=f"{repo}-{label}-{revision}",
    )
    counts = data.counts.model_dump()
    counts["merged_prs"] = merged
    data = data.model_copy(update={"counts": Counts(**counts)})
    if label != data.window.label:
        week = data.window.model_copy(
            update={
                "label": label,
                "start": data.window.start.replace(day=1),
                "end": data.window.end.replace(day=8),
            }
        )
        data = data.model_copy(update={"window": week})
    return WindowSummarized.create(data)


@pytest.fixture(params=["nats", "s3", "directory"])
async def store(request, tmp_path, nats_server):
    if request.param == "nats":
        nc = await nats.connect(nats_server.url)
        try:
            yield open_store("nats", nc.jetstream())
        finally:
            await nc.close()
    elif request.param == "s3":
        endpoint, bucket = request.getfixturevalue("s3_bucket")
        yield open_store(f"s3://{bucket}/rd?endpoint_url={endpoint}")
    else:
        yield open_store(str(tmp_path / "artifacts"))


async def pages_of(store) -> dict[str, bytes]:
    return {k: await store.get(k) for k in await store.list() if is_page_key(k)}


async def report(store, event: WindowSummarized, site: SiteBuilder | None) -> None:
    """render_report as the renderer service runs it: the pages after the report-ready (or
    after the answer that an earlier one announced the revision)."""

    async def publish(ready):
        pass

    ready = await render_report(event, store, publish, None, lambda: T0)
    if site is not None:
        await site.publish(ready.data.repo, ready.data.window.label)


async def test_pages_follow_the_reports(store):
    site = SiteBuilder(store)
    # an archive older than the site: reports without pages; the next report makes them all
    await report(store, summary(A, label="2026-W23", merged=30), None)
    assert await pages_of(store) == {}
    await report(store, summary(B), site)
    pages = await pages_of(store)
    assert set(pages) == {
        f"{p}index{s}.html"
        for s in ("", ".zh-CN")
        for p in (
            "",
            f"reports/{A}/",
            f"reports/{A}/2026-W23/",
            f"reports/{B}/",
            f"reports/{B}/2026-W24/",
        )
    }

    # a new revision: its window's page and its repository's page change (the home pages show
    # nothing of it here: the same last report time, one window, no sparkline)
    moved = (ChangedFigure(name="counts.merged_prs", before=41, after=44),)
    await report(store, summary(B, revision=2, merged=44, changed=moved), site)
    after = await pages_of(store)
    changed = {k for k in after if after[k] != pages.get(k)}
    assert changed == {
        f"{p}index{s}.html"
        for s in ("", ".zh-CN")
        for p in (f"reports/{B}/", f"reports/{B}/2026-W24/")
    }
    window = after[f"reports/{B}/2026-W24/index.html"].decode()
    assert "Since r1: Merged PRs 41 → 44." in window
    assert "Figures the summarizer found changed: merged PRs 41 → 44." in window
    zh = after[f"reports/{B}/2026-W24/index.zh-CN.html"].decode()
    assert "与 r1 相比：合并 PR 41 → 44。" in zh

    # a redelivered report: the same inputs, the same bytes, nothing written
    assert await SiteBuilder(store).publish(B, "2026-W24") == 0
    # what the reports regenerated is what a full generation (the export) makes
    repos, _ = await SiteBuilder(store).load()
    assert SiteBuilder(store).pages(repos) == after


class Landing:
    """A store through which, at the first page written, another replica's report lands."""

    def __init__(self, inner, land) -> None:
        self.inner, self.land, self.landed = inner, land, False

    async def put(self, key, data, content_type):
        if not self.landed and is_page_key(key):
            self.landed = True
            await self.land()
        return await self.inner.put(key, data, content_type)

    async def get(self, key):
        return await self.inner.get(key)

    async def list(self, prefix=""):
        return await self.inner.list(prefix)


async def test_a_report_landing_meanwhile_is_on_the_pages(store):
    await report(store, summary(A), SiteBuilder(store))

    async def other_replica():  # renders and indexes B's report, its own pages not yet written
        await report(store, summary(B, label="2026-W23"), None)

    racing = Landing(store, other_replica)
    await report(racing, summary(A, revision=2, merged=50), SiteBuilder(racing))
    assert racing.landed
    home = (await store.get("index.html")).decode()
    assert A in home and B in home  # the writer saw the index change and wrote again
    repos, _ = await SiteBuilder(store).load()
    full = SiteBuilder(store).pages(repos)
    assert (await store.get("index.html")) == full["index.html"]
    assert (await store.get("index.zh-CN.html")) == full["index.zh-CN.html"]
