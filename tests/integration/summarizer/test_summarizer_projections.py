"""Folding into real SQLite and PostgreSQL: idempotency, request answering, late-event revisions."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.windows import Schedule
from services.summarizer.handlers import Deps, accept_request, fold_events
from shared.events import ReportRequestData, ReportRequested, WindowRef, WindowSummarized
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import (
    REPO,
    ItemSpec,
    RuleSetRef,
    Scenario,
    enrich,
    random_scenario,
    watermark,
)

WINDOW = day_window(datetime(2026, 3, 26).date(), "Asia/Shanghai", "11:45")
# by hand: 11:45 in Shanghai (UTC+8) is 03:45 UTC; the window is [start, end)
START, END = datetime(2026, 3, 26, 3, 45, tzinfo=UTC), datetime(2026, 3, 27, 3, 45, tzinfo=UTC)


def inside(t: datetime | None) -> bool:
    return t is not None and START <= t < END


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def request(as_of: datetime | None, window=WINDOW) -> ReportRequested:
    return ReportRequested.create(
        ReportRequestData(
            repo=REPO, window=WindowRef.of(window), as_of=as_of, languages=("en", "zh-CN")
        ),
        nonce=uuid.uuid4().hex,
        at=datetime.now(UTC),
    )


def in_window(sc: Scenario, attr: str) -> set[int]:
    return {i.number for i in sc.items if inside(getattr(i, attr))}


async def test_folding_is_idempotent_and_late_events_make_revisions(database_url):
    store = SqlProjections(database_url)
    published: list[WindowSummarized] = []

    async def publish(event: WindowSummarized) -> None:
        published.append(event)

    deps = Deps(store=store, publish=publish, clock=Clock(WINDOW.end + timedelta(hours=2)))
    try:
        sc = random_scenario(11, WINDOW.start, 1.0, n_items=80)
        events = sc.events()
        first = await fold_events(deps, events)
        assert first.facts == len(events) and first.duplicates == 0
        before = store.counts()
        # the same batch again, then a redelivery of one event: nothing changes
        again = await fold_events(deps, events)
        assert again.facts == 0 and again.duplicates == len(events)
        redelivered = await fold_events(deps, [events[len(events) // 2]])
        assert redelivered.duplicates == 1
        assert store.counts() == before
        assert before["activity"] == len(events) and before["items"] == len(sc.items)

        # a request waits until the folded watermark reaches as_of
        mark = WINDOW.end + timedelta(minutes=30)
        req = request(as_of=mark)
        await accept_request(deps, req)
        assert published == []
        await accept_request(deps, req)  # a redelivered request is stored once
        await fold_events(deps, [watermark(mark)])
        assert len(published) == 1
        first_summary = published[0].data
        assert first_summary.request_id == req.id and first_summary.revision == 1
        assert first_summary.languages == ("en", "zh-CN")
        assert first_summary.counts.new_prs == len(
            {i.number for i in sc.items if i.kind == "pull_request" and inside(i.opened)}
        )
        assert first_summary.counts.merged_prs == len(in_window(sc, "merged"))
        assert first_summary.watermark == mark

        # a late merged PR inside the closed window: revision 2 listing what changed
        late = ItemSpec(
            number=999,
            kind="pull_request",
            opened=WINDOW.start + timedelta(hours=1),
            merged=WINDOW.start + timedelta(hours=3),
            modules=("moe",),
            additions=120,
            deletions=30,
        )
        await fold_events(
            deps, [enrich(late, "opened", late.opened), enrich(late, "merged", late.merged)]
        )
        assert len(published) == 2
        second = published[1].data
        assert second.revision == 2 and second.request_id is None
        changed = {c.name: (c.before, c.after) for c in second.changed_figures}
        assert changed["counts.merged_prs"] == (
            first_summary.counts.merged_prs,
            first_summary.counts.merged_prs + 1,
        )
        assert changed["counts.lines_added"] == (
            first_summary.counts.lines_added,
            first_summary.counts.lines_added + 120,
        )
        assert "counts.new_issues" not in changed

        # a re-classification of an already-counted fact under another rule set updates tags
        # without counting the fact twice; unchanged figures keep the revision
        reclassified = enrich(
            late, "merged", late.merged, ruleset=RuleSetRef(profile="test", version="t2")
        )
        await fold_events(deps, [reclassified])
        assert store.counts()["activity"] == before["activity"] + 2
        third_req = request(as_of=None)
        await accept_request(deps, third_req)
        third = published[-1].data
        assert third.request_id == third_req.id
        assert third.revision == 2 and third.counts == second.counts
        assert "t2" in third.ruleset_versions
    finally:
        store.close()


async def test_watermark_closes_scheduled_windows(database_url):
    store = SqlProjections(database_url)
    published: list[WindowSummarized] = []

    async def publish(event: WindowSummarized) -> None:
        published.append(event)

    schedule = Schedule("day", "Asia/Shanghai", "11:45")
    deps = Deps(
        store=store,
        publish=publish,
        clock=Clock(WINDOW.end + timedelta(days=1)),
        schedules={REPO: [schedule]},
        grace=timedelta(minutes=15),
    )
    try:
        sc = random_scenario(5, WINDOW.start, 1.0, n_items=30)
        # the watermark stops just short of end + grace: nothing closes yet
        await fold_events(deps, [*sc.events(), watermark(WINDOW.end + timedelta(minutes=14))])
        assert [p.data.window.label for p in published] == ["2026-03-25"]
        # then passes it: exactly our window closes, with revision 1 and no request
        await fold_events(deps, [watermark(WINDOW.end + timedelta(minutes=16))])
        assert [p.data.window.label for p in published] == ["2026-03-25", "2026-03-26"]
        summary = published[-1].data
        assert summary.request_id is None and summary.revision == 1
        assert (summary.window.start, summary.window.end) == (WINDOW.start, WINDOW.end)
        assert summary.counts.merged_prs == len(in_window(sc, "merged"))
    finally:
        store.close()


@pytest.mark.parametrize("bad", ["Mars/Olympus"])
async def test_request_with_unknown_zone_is_poison(tmp_path, bad):
    from shared.events import WindowRef
    from shared.messaging import Poison

    store = SqlProjections(f"sqlite:///{tmp_path / 'p.db'}")

    async def publish(event):  # pragma: no cover - must not be called
        raise AssertionError("published for a poison request")

    deps = Deps(store=store, publish=publish)
    ref = WindowRef(kind="day", label="2026-03-26", start=WINDOW.start, end=WINDOW.end, tz=bad)
    req = ReportRequested.create(ReportRequestData(repo=REPO, window=ref), nonce="n", at=WINDOW.end)
    with pytest.raises(Poison, match="Mars/Olympus"):
        await accept_request(deps, req)
    store.close()


async def test_a_replay_of_late_facts_makes_one_revision_once_quiet(tmp_path):
    store = SqlProjections(f"sqlite:///{tmp_path / 'p.db'}")
    published: list[WindowSummarized] = []
    arrived = asyncio.Event()

    async def publish(event: WindowSummarized) -> None:
        published.append(event)
        arrived.set()

    deps = Deps(
        store=store,
        publish=publish,
        clock=Clock(WINDOW.end + timedelta(days=1)),
        window_debounce=1.0,
    )
    try:
        sc = random_scenario(3, WINDOW.start, 1.0, n_items=20)
        await fold_events(deps, [*sc.events(), watermark(WINDOW.end + timedelta(hours=1))])
        await accept_request(deps, request(as_of=None))
        assert [p.data.revision for p in published] == [1]
        arrived.clear()
        # five batches of late merged PRs in quick succession
        late = [
            ItemSpec(
                900 + n,
                "pull_request",
                WINDOW.start + timedelta(hours=n),
                merged=WINDOW.start + timedelta(hours=n + 1),
            )
            for n in range(5)
        ]
        for spec in late:
            await fold_events(
                deps, [enrich(spec, "opened", spec.opened), enrich(spec, "merged", spec.merged)]
            )
        await asyncio.wait_for(arrived.wait(), 10)
        await asyncio.wait_for(deps._flusher, 10)
        assert [p.data.revision for p in published] == [1, 2]
        counted = {c.name: c for c in published[-1].data.changed_figures}["counts.merged_prs"]
        assert counted.after - counted.before == len(late)
    finally:
        await deps.close()
        store.close()


async def test_a_request_that_keeps_failing_is_given_up_and_reported(tmp_path):
    store = SqlProjections(f"sqlite:///{tmp_path / 'p.db'}")
    given_up: list[tuple[str, str]] = []
    attempts = 0

    async def publish(event: WindowSummarized) -> None:
        nonlocal attempts
        attempts += 1
        raise ConnectionError("bus unavailable")

    async def give_up(req: ReportRequested, reason: str) -> None:
        given_up.append((req.id, reason))

    deps = Deps(store=store, publish=publish, give_up=give_up, max_request_failures=3)
    try:
        await fold_events(deps, random_scenario(4, WINDOW.start, 1.0, n_items=5).events())
        req = request(as_of=None)
        for _ in range(2):  # the request consumer retries: the error reaches it each time
            with pytest.raises(ConnectionError):
                await accept_request(deps, req)
        await accept_request(deps, req)  # third failure: given up, reported, no longer pending
        assert attempts == 3 and [g[0] for g in given_up] == [req.id]
        assert (
            "ConnectionError: bus unavailable" in given_up[0][1] and "2026-03-26" in given_up[0][1]
        )
        assert store.pending_requests() == []
        # a fold afterwards does not try it again
        await fold_events(deps, [watermark(WINDOW.end)])
        assert attempts == 3
    finally:
        store.close()


async def test_projections_rebuild_from_the_log_to_the_same_figures(database_url):
    store = SqlProjections(database_url)
    published: list[WindowSummarized] = []

    async def publish(event: WindowSummarized) -> None:
        published.append(event)

    deps = Deps(store=store, publish=publish, clock=Clock(WINDOW.end + timedelta(days=1)))
    try:
        log = [*random_scenario(21, WINDOW.start, 1.0, n_items=50).events(), watermark(WINDOW.end)]
        await fold_events(deps, log)
        await accept_request(deps, request(as_of=WINDOW.end))
        store.reset()
        assert set(store.counts().values()) == {0}
        # replay in other batch sizes: the same figures (and revision 1 again: history was reset)
        for i in range(0, len(log), 7):
            await fold_events(deps, log[i : i + 7])
        await accept_request(deps, request(as_of=WINDOW.end))
        first, rebuilt = published[0].data, published[1].data
        assert rebuilt.revision == 1 and rebuilt.counts == first.counts
        assert rebuilt.modules == first.modules and rebuilt.key_prs == first.key_prs
        assert (
            rebuilt.appendix == first.appendix and rebuilt.fact_ids_sample == first.fact_ids_sample
        )
    finally:
        store.close()


async def test_concurrent_migrations_are_safe_and_idempotent(database_url):
    stores = [SqlProjections(database_url) for _ in range(3)]
    try:
        await asyncio.gather(*(asyncio.to_thread(s.migrate) for s in stores))
        stores[0].migrate()
        assert stores[1].counts() == dict.fromkeys(
            (
                "items",
                "activity",
                "processed",
                "watermarks",
                "windows",
                "requests",
                "rejected",
                "window_revisions",
            ),
            0,
        )
    finally:
        for s in stores:
            s.close()


def test_unreachable_database_error_says_what_to_fix():
    from services.summarizer.adapters.store import StoreError

    store = SqlProjections("postgresql+psycopg://nobody:secret@127.0.0.1:1/none?connect_timeout=2")
    with pytest.raises(StoreError) as err:
        store.migrate()
    assert "REPODIGEST_DATABASE_URL" in str(err.value) and "secret" not in str(err.value)
    with pytest.raises(StoreError, match="not a database URL"):
        SqlProjections("not a url")


async def test_the_database_path_reports_what_the_pure_model_reports(database_url):
    from services.summarizer.domain.report import build_summary
    from tests.unit.summarizer.summarizer_builders import window_input

    store = SqlProjections(database_url)
    published: list[WindowSummarized] = []

    async def publish(event: WindowSummarized) -> None:
        published.append(event)

    now = WINDOW.end + timedelta(hours=5)
    deps = Deps(store=store, publish=publish, clock=Clock(now))
    try:
        sc = random_scenario(31, WINDOW.start, 1.0, n_items=120)
        sc.items.append(
            ItemSpec(5000, "pull_request", WINDOW.end - timedelta(days=6), author="waiting")
        )
        sc.items.append(
            ItemSpec(
                5001, "issue", WINDOW.start - timedelta(days=40), title="[RFC] plan", author="r"
            )
        )
        events = sc.events()
        await fold_events(deps, [*events, watermark(WINDOW.end)])
        await accept_request(deps, request(as_of=WINDOW.end))
        got = published[-1].data
        expected = build_summary(window_input(events, WINDOW), now=now)
        for name in (
            "counts",
            "previous_counts",
            "modules",
            "key_prs",
            "themes",
            "discussions",
            "risks",
            "ecosystems",
            "follow_ups",
            "contributors",
            "activity",
            "median_hours_to_merge",
            "median_hours_to_first_response",
            "appendix",
            "fact_ids_sample",
            "facts_counted",
        ):
            assert getattr(got, name) == getattr(expected, name), name
        kinds = {(f.kind, f.item.number) for f in got.follow_ups}
        assert ("awaiting_review", 5000) in kinds and ("open_rfc", 5001) in kinds
    finally:
        store.close()


async def test_load_window_gives_title_history_and_referenced_items(database_url):
    from services.summarizer.domain.storylines import term_counts_of
    from services.summarizer.domain.windows import previous_window
    from shared.events import Digest, Reference

    store = SqlProjections(database_url)
    deps = Deps(store=store, publish=_ignore, clock=Clock(WINDOW.end + timedelta(hours=2)))
    old = WINDOW.start - timedelta(days=30)

    def pr(n, title, at, **kw):
        return ItemSpec(
            number=n,
            kind="pull_request",
            opened=at - timedelta(hours=2),
            merged=at,
            title=title,
            **kw,
        )

    history = [
        pr(n, f"[BugFix] fix worker crash {n}", old + timedelta(hours=n)) for n in range(1, 40)
    ] + [
        pr(40, "[Feature] Add incremental build cache", old),
        pr(41, "[Feature] DeepSeek-V4 loader", old + timedelta(days=1)),
        pr(42, "[Misc] unrelated and never referred to", old + timedelta(days=2)),
    ]
    in_window = WINDOW.start + timedelta(hours=2)
    window_items = [
        pr(50, '[CI] Revert "Add incremental build cache"', in_window),
        pr(
            51,
            "[BugFix] DeepSeek-V4 rope",
            in_window + timedelta(hours=1),
            digest=Digest(
                refs=(
                    Reference(kind="fix_up", number=41),
                    Reference(kind="related", number=42),
                    Reference(kind="follow_up", number=9999),
                    Reference(kind="fixes", number=43, repo="other/repo"),
                )
            ),
        ),
        pr(
            52,
            "[Doc] DeepSeek-V4 guide",
            in_window + timedelta(hours=2),
            digest=Digest(refs=(Reference(kind="reverts", title="[BugFix] fix worker crash 7"),)),
        ),
    ]
    sc = Scenario(items=history + window_items)
    try:
        await fold_events(deps, sc.events())
        inp = store.load_window(REPO, WINDOW, previous_window(WINDOW))
        titles = [i.title for i in sc.items]
        assert inp.history_items == len(titles)
        assert dict(inp.term_counts) == term_counts_of(titles)
        # the reverted change (by its quoted title), the fixed-up one (by number), a revert by title
        # in the digest; not a "related" one, not an unknown number, not another repository's
        assert sorted(inp.referenced) == [7, 40, 41]
        assert inp.referenced[40].snapshot.title == "[Feature] Add incremental build cache"

        # a new item and a retitled one are seen by the next report (the history is cached)
        before = dict(inp.term_counts)
        renamed = pr(42, "[Misc] DeepSeek-V4 docs", old + timedelta(days=2))
        late = pr(60, "[Feature] DeepSeek-V4 MTP", in_window + timedelta(hours=3))
        await fold_events(
            deps,
            [
                enrich(renamed, "edited", WINDOW.start + timedelta(hours=1)),
                enrich(late, "opened", late.opened),
                enrich(late, "merged", late.merged),
            ],
        )
        again = store.load_window(REPO, WINDOW, previous_window(WINDOW))
        titles = [i.title for i in sc.items if i.number != 42] + [renamed.title, late.title]
        assert again.history_items == len(titles)
        assert dict(again.term_counts) == term_counts_of(titles)
        assert again.term_counts["deepseekv4"] == before["deepseekv4"] + 2
        assert dict(inp.term_counts) == before  # what an earlier report was given stays as it was

        # a profile's topic counts as a term of its items; a re-classification (the same facts,
        # new tags) that gives or takes a topic is seen by the next report
        from services.summarizer.domain.storylines import topic_term

        a5 = topic_term("Ascend 950 (A5)")
        assert a5 not in again.term_counts
        tagged = [
            replace(pr(70, "[Feature] Support DeepSeek for A5", old), topics=("Ascend 950 (A5)",)),
            replace(late, topics=("Ascend 950 (A5)",)),
        ]
        # (a re-classification: a new rule-set version, so new event ids for the same facts)
        t2, t3, t4 = (RuleSetRef(profile="test", version=v) for v in ("t2", "t3", "t4"))
        await fold_events(deps, [enrich(s, "merged", s.merged, ruleset=t2) for s in tagged])
        third = store.load_window(REPO, WINDOW, previous_window(WINDOW))
        assert third.term_counts[a5] == 2 and third.history_items == len(titles) + 1
        assert dict(third.term_counts) == term_counts_of(
            [*titles, tagged[0].title],
            [("Ascend 950 (A5)",) if t in (late.title, tagged[0].title) else () for t in titles]
            + [("Ascend 950 (A5)",)],
        )
        await fold_events(deps, [enrich(tagged[1], "merged", late.merged, ruleset=t3)])
        fourth = store.load_window(REPO, WINDOW, previous_window(WINDOW))
        assert fourth.term_counts[a5] == 2  # the same tags again
        await fold_events(deps, [enrich(late, "merged", late.merged, ruleset=t4)])
        fifth = store.load_window(REPO, WINDOW, previous_window(WINDOW))
        assert fifth.term_counts[a5] == 1 and fifth.history_items == third.history_items
        assert third.term_counts[a5] == 2  # what an earlier report was given stays as it was
    finally:
        store.close()


async def _ignore(event) -> None:
    return None
