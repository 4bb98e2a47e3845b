"""`repodigest rebuild` on a real nats-server, SQLite and PostgreSQL: the replay equals the fold."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import nats
import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.adapters.tables import activity
from services.summarizer.app import build_service
from services.summarizer.config import SummarizerSettings
from services.summarizer.domain.report import build_summary, figures
from services.summarizer.domain.windows import previous_window
from services.summarizer.rebuild import rebuild_command
from shared.config import CommonSettings
from shared.events import (
    ReportRequestData,
    ReportRequested,
    RuleSetRef,
    WindowRef,
    WindowSummarized,
)
from shared.messaging import Subjects
from shared.service import Runtime
from shared.windows import week_window
from tests.unit.summarizer.summarizer_builders import (
    REPO,
    ItemSpec,
    enrich,
    random_scenario,
    watermark,
)

WEEK = week_window(2026, 24, "Asia/Shanghai")
# by hand: Monday 8 June 00:00 in Shanghai (UTC+8) is 7 June 16:00 UTC; the week is [start, end)
WEEK_START, WEEK_END = datetime(2026, 6, 7, 16, tzinfo=UTC), datetime(2026, 6, 14, 16, tzinfo=UTC)
OTHER = "acme/gadgets"


def settings_for(nats_url: str, database_url: str) -> SummarizerSettings:
    # windows on request only: a scheduled summary would race with the test's snapshots
    return SummarizerSettings(
        nats_url=nats_url, database_url=database_url, window_debounce_seconds=0.05
    )


class Running:
    """The summarizer service in this process, with a queue of the summaries it publishes."""

    def __init__(self, nats_url: str, database_url: str) -> None:
        self.runtime = Runtime(CommonSettings(nats_url=nats_url), "summarizer-test")
        self.service = self.runtime.add(
            build_service(settings_for(nats_url, database_url), self.runtime)
        )
        self.summaries: asyncio.Queue = asyncio.Queue()

    async def __aenter__(self) -> Running:
        await self.runtime.start()

        async def on_summary(msg) -> None:
            await self.summaries.put(WindowSummarized.model_validate_json(msg.data))

        await self.runtime.nc.subscribe("rd.summary.ready.>", cb=on_summary)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.runtime.stop()

    async def publish(self, events) -> None:
        bus = self.runtime.bus("test")
        for e in events:
            subject = (
                Subjects.enriched(e.data.fact.kind, e.data.fact.action, e.data.fact.repo)
                if hasattr(e.data, "fact")
                else Subjects.enriched_watermark(e.data.repo)
            )
            await bus.publish(e, subject)

    async def request(self, repo: str = REPO) -> WindowSummarized:
        request = ReportRequested.create(
            ReportRequestData(repo=repo, window=WindowRef.of(WEEK), as_of=WEEK.end),
            nonce=uuid.uuid4().hex,
            at=datetime.now(UTC),
        )
        await self.runtime.bus("test").publish(request, Subjects.report_requested(repo))
        async with asyncio.timeout(30):
            while True:
                event = await self.summaries.get()
                if event.data.request_id == request.id:
                    return event


def figures_now(store: SqlProjections, repo: str = REPO) -> dict:
    """The figures the projections give right now, computed without publishing anything."""
    inp = store.load_window(
        repo, WEEK, previous_window(WEEK), open_prs_since=WEEK.end - timedelta(days=30)
    )
    return figures(build_summary(inp, now=WEEK.end))


async def test_rebuild_replays_the_log_to_the_incremental_figures(nats_server, database_url):
    sc = random_scenario(31, WEEK.start, 7.0, n_items=150)
    events = sc.events()
    # a re-classification of some facts under a newer rule set: the later one wins, in both paths
    reclassified = random_scenario(31, WEEK.start, 7.0, n_items=150).events(
        RuleSetRef(profile="test", version="t2")
    )[:40]
    other = random_scenario(32, WEEK.start, 7.0, n_items=30, repo=OTHER).events()
    mark = WEEK.end + timedelta(hours=1)
    async with Running(nats_server.url, database_url) as run:
        await run.publish([*events, *reclassified, *other, watermark(mark), watermark(mark, OTHER)])
        first = (await run.request()).data
        other_first = (await run.request(OTHER)).data
        # while the service runs, rebuild refuses and drops nothing (everything is folded: the
        # answers came after the watermark)
        store = SqlProjections(database_url)
        folded = {
            k: v for k, v in store.counts().items() if k in ("items", "activity", "processed")
        }
        assert (
            await asyncio.to_thread(
                rebuild_command, nats_server.url, database_url, None, progress=False
            )
            == 3
        )
        assert {k: v for k, v in store.counts().items() if k in folded} == folded
    before = store.counts()  # the service has stopped: its last writes are done
    assert first.counts.merged_prs == sum(
        1 for i in sc.items if i.merged and WEEK_START <= i.merged < WEEK_END
    )
    assert figures_now(store) == figures(first)

    # damage the projections: the figures no longer match (so the comparison below can fail)
    with store.engine.begin() as conn:
        ids = (
            conn.execute(
                sa.select(activity.c.id).where(activity.c.repo == REPO).order_by(activity.c.id)
            )
            .scalars()
            .all()
        )
        conn.execute(activity.delete().where(activity.c.id.in_(ids[::3])))
    assert figures_now(store) != figures(first)

    assert (
        await asyncio.to_thread(
            rebuild_command, nats_server.url, database_url, None, progress=False
        )
        == 0
    )
    assert figures_now(store) == figures(first)
    assert figures_now(store, OTHER) == figures(other_first)
    assert store.counts() == before
    # the figures did not change, so no new revision: the history still has revision 1 only
    assert [r.revision for r in store.revisions(REPO, WEEK.label)] == [1]
    assert store.window_state(REPO, WEEK.label).revision == 1

    # the service resumes on its durable consumer and reports the same figures again
    async with Running(nats_server.url, database_url) as run:
        again = (await run.request()).data
        assert run.service.fold_consumer.stats.dead == 0
    assert figures(again) == figures(first) and again.revision == 1
    assert again.appendix == first.appendix and again.key_prs == first.key_prs
    store.close()


async def test_rebuild_of_one_repository_leaves_the_others_alone(nats_server, database_url):
    ours = random_scenario(41, WEEK.start, 7.0, n_items=40).events()
    theirs = random_scenario(42, WEEK.start, 7.0, n_items=40, repo=OTHER).events()
    mark = WEEK.end + timedelta(hours=1)
    async with Running(nats_server.url, database_url) as run:
        await run.publish([*ours, *theirs, watermark(mark), watermark(mark, OTHER)])
        first = (await run.request()).data
        await run.request(OTHER)
    store = SqlProjections(database_url)
    before = store.counts()
    with store.engine.begin() as conn:
        conn.execute(activity.delete().where(activity.c.repo == REPO))
        # a row of the other repository that a rebuild of REPO must not repair
        victim = conn.execute(
            sa.select(sa.func.min(activity.c.id)).where(activity.c.repo == OTHER)
        ).scalar()
        conn.execute(activity.delete().where(activity.c.id == victim))
    assert (
        await asyncio.to_thread(
            rebuild_command, nats_server.url, database_url, REPO, progress=False
        )
        == 0
    )
    assert figures_now(store) == figures(first)
    after = store.counts()
    assert after["activity"] == before["activity"] - 1 and after["items"] == before["items"]
    assert after["processed"] == before["processed"]

    # a merge published while the summarizer was stopped: the rebuild folds it, and the window's
    # figures changed, so it publishes revision 2 with what changed
    late = ItemSpec(
        900,
        "pull_request",
        WEEK.start + timedelta(hours=3),
        merged=WEEK.start + timedelta(hours=8),
        additions=77,
    )
    nc = await nats.connect(nats_server.url)  # no summarizer runs meanwhile
    try:
        js = nc.jetstream()
        for e in (enrich(late, "opened", late.opened), enrich(late, "merged", late.merged)):
            await js.publish(
                Subjects.enriched(e.data.fact.kind, e.data.fact.action, REPO),
                e.to_bytes(),
                headers={"Nats-Msg-Id": e.id},
            )
        assert (
            await asyncio.to_thread(
                rebuild_command, nats_server.url, database_url, REPO, progress=False
            )
            == 0
        )
        history = store.revisions(REPO, WEEK.label)
        assert [h.revision for h in history] == [1, 2]
        changed = {c.name: (c.before, c.after) for c in history[1].changed}
        assert changed["counts.merged_prs"] == (
            first.counts.merged_prs,
            first.counts.merged_prs + 1,
        )
        info = await js.stream_info("RD_REPORTS", subjects_filter=Subjects.summary_ready(REPO))
        last = await js.get_last_msg("RD_REPORTS", Subjects.summary_ready(REPO))
        summary = WindowSummarized.model_validate_json(last.data).data
        assert summary.revision == 2 and summary.counts.lines_added == first.counts.lines_added + 77
        assert info.state.messages >= 1
    finally:
        await nc.close()
    store.close()


def test_rebuild_command_reports_what_to_fix(tmp_path):
    # a bad repository name and an unreachable NATS are exit code 2, with no traceback
    db = f"sqlite:///{tmp_path / 'p.db'}"
    assert rebuild_command("nats://127.0.0.1:1", db, "not a repo", progress=False) == 2
    assert rebuild_command("nats://127.0.0.1:1", db, None, progress=False) == 2
