"""A revision's announced artifacts are never rendered or written again (a directory store)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from services.renderer.adapters.stores import DirectoryObjectStore
from services.renderer.handlers import render_report
from shared.events import ReportReady, WindowSummarized
from tests.unit.renderer.samples import daily_summary

T0 = datetime(2026, 3, 27, 5, tzinfo=timezone.utc)


class Recorder:
    def __init__(self) -> None:
        self.published: list[ReportReady] = []
        self.replies: list[tuple[ReportReady, bytes]] = []

    async def publish(self, ready: ReportReady) -> None:
        self.published.append(ready)

    async def reply(self, ready: ReportReady, raw: bytes) -> None:
        self.replies.append((ready, raw))


def summary(request: str, languages=("en",), formats=("md", "json"), minutes: int = 0):
    # each answer to a request is a new summary of the same revision (its generated_at differs)
    return WindowSummarized.create(daily_summary(
        languages=languages, formats=formats, request_id=request,
        generated_at=daily_summary().generated_at + timedelta(minutes=minutes)))


def snapshot(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


async def test_an_announced_revision_is_answered_not_rendered_again(tmp_path):
    store, rec = DirectoryObjectStore(tmp_path), Recorder()
    first = await render_report(summary("req-1"), store, rec.publish, None, lambda: T0,
                                reply=rec.reply)
    before = snapshot(tmp_path)

    again = await render_report(summary("req-2", minutes=5), store, rec.publish, None,
                                lambda: T0 + timedelta(hours=1), reply=rec.reply)
    assert snapshot(tmp_path) == before  # nothing written, index included
    assert rec.published == [first]  # no second report-ready
    assert again == first and rec.replies == [(first, first.to_bytes())]

    # asking for md only (a subset) is answered the same way
    await render_report(summary("req-3", formats=("md",), minutes=6), store, rec.publish, None,
                        lambda: T0, reply=rec.reply)
    assert snapshot(tmp_path) == before and len(rec.published) == 1


async def test_a_new_language_of_an_announced_revision_leaves_the_announced_ones(tmp_path):
    store, rec = DirectoryObjectStore(tmp_path), Recorder()
    first = await render_report(summary("req-1"), store, rec.publish, None, lambda: T0)
    en = {a.key: a.sha256 for a in first.data.artifacts}
    en_bytes = {k: v for k, v in snapshot(tmp_path).items() if "/en/" in k}

    both = await render_report(summary("req-2", languages=("en", "zh-CN"), minutes=5), store,
                               rec.publish, None, lambda: T0 + timedelta(hours=1))
    assert {k: v for k, v in snapshot(tmp_path).items() if "/en/" in k} == en_bytes
    listed = {a.key: a.sha256 for a in both.data.artifacts}
    assert {k: listed[k] for k in en} == en  # the announced digests, unchanged
    assert {a.language for a in both.data.artifacts} == {"en", "zh-CN"}
    assert len(rec.published) == 2


async def test_a_redelivered_summary_renders_again_and_publishes_the_same_event(tmp_path):
    # the renderer crashed after writing (entry included) but before publishing: the retry of
    # the very same summary is not an "earlier announcement"
    store, rec = DirectoryObjectStore(tmp_path), Recorder()
    event = summary("req-1")
    first = await render_report(event, store, rec.publish, None, lambda: T0)
    retry = await render_report(event, store, rec.publish, None, lambda: T0)
    assert retry.id == first.id and len(rec.published) == 2
