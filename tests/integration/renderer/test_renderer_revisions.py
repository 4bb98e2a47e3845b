"""A revision's announced artifacts are never rendered or written again (a directory store)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.renderer.adapters.stores import DirectoryObjectStore
from services.renderer.handlers import render_report
from shared.events import ReportReady, WindowSummarized
from tests.unit.renderer.samples import daily_summary

T0 = datetime(2026, 3, 27, 5, tzinfo=UTC)


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
    return WindowSummarized.create(
        daily_summary(
            languages=languages,
            formats=formats,
            request_id=request,
            generated_at=daily_summary().generated_at + timedelta(minutes=minutes),
        )
    )


def snapshot(root) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


async def test_an_announced_revision_is_answered_not_rendered_again(tmp_path):
    store, rec = DirectoryObjectStore(tmp_path), Recorder()
    first = await render_report(
        summary("req-1"), store, rec.publish, None, lambda: T0, reply=rec.reply
    )
    before = snapshot(tmp_path)

    again = await render_report(
        summary("req-2", minutes=5),
        store,
        rec.publish,
        None,
        lambda: T0 + timedelta(hours=1),
        reply=rec.reply,
    )
    assert snapshot(tmp_path) == before  # nothing written, index included
    assert rec.published == [first]  # no second report-ready
    assert again == first and rec.replies == [(first, first.to_bytes())]

    # asking for md only (a subset) is answered the same way
    await render_report(
        summary("req-3", formats=("md",), minutes=6),
        store,
        rec.publish,
        None,
        lambda: T0,
        reply=rec.reply,
    )
    assert snapshot(tmp_path) == before and len(rec.published) == 1


async def test_a_new_language_of_an_announced_revision_leaves_the_announced_ones(tmp_path):
    store, rec = DirectoryObjectStore(tmp_path), Recorder()
    first = await render_report(summary("req-1"), store, rec.publish, None, lambda: T0)
    en = {a.key: a.sha256 for a in first.data.artifacts}
    en_bytes = {k: v for k, v in snapshot(tmp_path).items() if "/en/" in k}

    both = await render_report(
        summary("req-2", languages=("en", "zh-CN"), minutes=5),
        store,
        rec.publish,
        None,
        lambda: T0 + timedelta(hours=1),
    )
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


def unchanged(request: str, languages=("en",), formats=("md", "json")):
    from shared.answers import UnchangedRequest

    data = daily_summary()
    return UnchangedRequest(
        request_id=request,
        repo=data.repo,
        window_label=data.window.label,
        revision=data.revision,
        languages=languages,
        formats=formats,
    )


async def test_an_unchanged_request_is_answered_from_what_was_announced(tmp_path):
    """shared/answers.py: the renderer's side of a repeated request that publishes nothing."""
    from services.renderer.handlers import answer_unchanged

    store, rec = DirectoryObjectStore(tmp_path), Recorder()
    assert await answer_unchanged(store, unchanged("req-0")) is None  # nothing announced yet
    first = await render_report(summary("req-1"), store, rec.publish, None, lambda: T0)
    before = snapshot(tmp_path)
    assert await answer_unchanged(store, unchanged("req-2")) == first.to_bytes()
    assert await answer_unchanged(store, unchanged("req-3", formats=("md",))) == first.to_bytes()
    # what was not announced is not answered: the summary is rendered instead
    assert await answer_unchanged(store, unchanged("req-4", formats=("md", "pdf"))) is None
    assert await answer_unchanged(store, unchanged("req-5", ("en", "zh-CN"))) is None
    assert snapshot(tmp_path) == before  # answering writes nothing

    # zh-CN announced by a report-ready of its own: the answer lists both, each as announced
    zh = await render_report(
        summary("req-6", languages=("zh-CN",), minutes=5), store, rec.publish, None, lambda: T0
    )
    answer = ReportReady.model_validate_json(
        await answer_unchanged(store, unchanged("req-7", ("en", "zh-CN")))
    )
    assert answer.data.request_id == "req-7" and answer.data.languages == ("en", "zh-CN")
    assert {a.key: a.sha256 for a in answer.data.artifacts} == {
        a.key: a.sha256 for a in first.data.artifacts + zh.data.artifacts
    }
