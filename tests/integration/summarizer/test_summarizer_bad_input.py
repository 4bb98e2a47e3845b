"""Bad input, handled and recorded (SQLite and PostgreSQL): unknown repositories, events out of
order, event times in the future."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.adapters.tables import items
from services.summarizer.domain.admission import FUTURE, UNKNOWN_REPO, Admission
from services.summarizer.domain.report import build_summary
from services.summarizer.domain.windows import previous_window
from services.summarizer.handlers import Deps, accept_request, fold_events
from shared.events import (
    Actor,
    CommentInfo,
    ReportRequestData,
    ReportRequested,
    WindowRef,
    WindowSummarized,
)
from shared.messaging import Poison
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import (
    REPO,
    ItemSpec,
    enrich,
    random_scenario,
    utc,
    watermark,
)

DAY = day_window(utc(2026, 3, 26).date(), "Asia/Shanghai", "11:45")
OTHER = "elsewhere/unknown"


class Clock:
    def __init__(self, at) -> None:
        self.at = at

    def __call__(self):
        return self.at


def deps_for(store: SqlProjections, clock: Clock, admission: Admission) -> tuple[Deps, list]:
    published: list[WindowSummarized] = []

    async def publish(event: WindowSummarized) -> None:
        published.append(event)

    return Deps(store=store, publish=publish, clock=clock, admission=admission), published


def counts(store: SqlProjections, window=DAY, repo: str = REPO):
    inp = store.load_window(repo, window, previous_window(window))
    return build_summary(inp, now=window.end).counts


async def test_events_of_unknown_repositories_are_recorded_not_counted(database_url, capsys):
    store = SqlProjections(database_url)
    deps, _ = deps_for(store, Clock(DAY.end + timedelta(days=1)), Admission(repos=("acme/*",)))
    try:
        ours = random_scenario(5, DAY.start, 1.0, n_items=30).events()
        theirs = random_scenario(6, DAY.start, 1.0, n_items=20, repo=OTHER).events()
        marks = [watermark(DAY.end, REPO), watermark(DAY.end, OTHER)]
        result = await fold_events(deps, [*ours, *theirs, *marks])
        assert result.rejected == {UNKNOWN_REPO: len(theirs) + 1}
        assert result.facts == len(ours) and result.watermarks == 1
        assert store.watermarks() == {REPO: DAY.end}
        assert store.counts()["activity"] == len({e.data.fact_id for e in ours})
        rejected = store.rejected_events(reason=UNKNOWN_REPO)
        assert {r.event_id for r in rejected} == {e.id for e in [*theirs, marks[1]]}
        assert {r.repo for r in rejected} == {OTHER}
        assert "REPODIGEST_ACCEPT_REPOS" in rejected[0].detail
        # nothing of the other repository reaches a report of it
        assert counts(store, repo=OTHER).new_prs == 0
        # a redelivery is a duplicate, not a second rejection
        again = await fold_events(deps, theirs[:3])
        assert again.duplicates == 3 and again.rejected == {}
        assert len(store.rejected_events()) == len(rejected)
        # a report request for it is refused at once (dead-lettered with this reason), not left
        # waiting for a watermark that will never be folded
        with pytest.raises(Poison, match="REPODIGEST_ACCEPT_REPOS"):
            await accept_request(
                deps,
                ReportRequested.create(
                    ReportRequestData(repo=OTHER, window=WindowRef.of(DAY), as_of=DAY.end),
                    nonce="n1",
                    at=DAY.end,
                ),
            )
        assert store.pending_requests() == []
        from services.summarizer.audit import rejected_command

        capsys.readouterr()
        assert rejected_command(database_url, OTHER) == 0
        assert f"{len(rejected)} event(s)" in capsys.readouterr().out
    finally:
        store.close()


async def test_an_older_snapshot_never_overwrites_a_newer_one(database_url):
    store = SqlProjections(database_url)
    deps, _ = deps_for(store, Clock(DAY.end + timedelta(days=1)), Admission())
    t0 = DAY.start + timedelta(hours=1)
    spec = ItemSpec(7, "pull_request", t0, merged=t0 + timedelta(hours=5), comments=0)
    opened = enrich(spec, "opened", t0)
    merged = enrich(spec, "merged", t0 + timedelta(hours=5))
    comment = enrich(
        spec,
        "created",
        t0 + timedelta(hours=2),
        kind="comment",
        comment=CommentInfo(id=1, author=Actor(login="bob"), created_at=t0 + timedelta(hours=2)),
    )
    try:
        # newest first, one batch each: the merged snapshot must stay
        for event in (merged, comment, opened):
            await fold_events(deps, [event])

        def row():
            with store.engine.connect() as conn:
                return conn.execute(
                    sa.select(items).where(items.c.repo == REPO, items.c.number == 7)
                ).one()

        r = row()
        assert r.state == "closed" and r.merged_at == spec.merged and r.snapshot_time == spec.merged
        # every fact still counts in the window of its own time
        c = counts(store)
        assert (c.new_prs, c.merged_prs, c.comments) == (1, 1, 1)

        # a poll saw the merge late (snapshot updated at +9 h with 9 comments); a webhook comment
        # at +7 h carries an older snapshot: folded after the poll's, it must not win
        late = t0 + timedelta(hours=9)
        polled = enrich(spec, "labeled", t0 + timedelta(hours=6))
        polled = polled.model_copy(
            update={
                "data": polled.data.model_copy(
                    update={
                        "fact": polled.data.fact.model_copy(
                            update={
                                "label": "ready",
                                "item": spec.snapshot(late).model_copy(update={"comments": 9}),
                            }
                        )
                    }
                )
            }
        )
        hook = enrich(
            spec,
            "created",
            t0 + timedelta(hours=7),
            kind="comment",
            comment=CommentInfo(
                id=2, author=Actor(login="carol"), created_at=t0 + timedelta(hours=7)
            ),
        )
        hook = hook.model_copy(
            update={
                "data": hook.data.model_copy(
                    update={
                        "fact": hook.data.fact.model_copy(
                            update={
                                "item": spec.snapshot(t0 + timedelta(hours=7)).model_copy(
                                    update={"comments": 3}
                                )
                            }
                        )
                    }
                )
            }
        )
        await fold_events(deps, [polled])
        await fold_events(deps, [hook])
        assert '"comments":9' in row().snapshot.replace(" ", "")
        # within one batch, in either order, the same
        store.reset()
        await fold_events(deps, [hook, polled, opened, comment, merged])
        assert '"comments":9' in row().snapshot.replace(" ", "") and row().state == "closed"
    finally:
        store.close()


async def test_future_events_are_held_until_their_time_then_counted(database_url):
    store = SqlProjections(database_url)
    now = DAY.start + timedelta(hours=6)
    clock = Clock(now)
    deps, _ = deps_for(store, clock, Admission(future_tolerance=timedelta(minutes=10)))
    spec_now = ItemSpec(1, "pull_request", now - timedelta(hours=1))
    spec_later = ItemSpec(2, "pull_request", now + timedelta(hours=2))
    spec_edge = ItemSpec(3, "pull_request", now + timedelta(minutes=10))
    try:
        ahead = enrich(spec_later, "opened", spec_later.opened)
        result = await fold_events(
            deps,
            [
                enrich(spec_now, "opened", spec_now.opened),
                ahead,
                enrich(spec_edge, "opened", spec_edge.opened),
                watermark(now + timedelta(hours=3)),
            ],
        )
        assert result.rejected == {FUTURE: 2} and result.facts == 2
        assert counts(store).new_prs == 2  # 1 and 3 (at the tolerance's edge); 2 is held
        assert store.watermark(REPO) is None  # a watermark from the future closes nothing yet
        held = {r.event_id: r for r in store.rejected_events(reason=FUTURE)}
        assert set(held) == {ahead.id, watermark(now + timedelta(hours=3)).id}
        assert (
            all(r.released_at is None for r in held.values()) and "ahead" in held[ahead.id].detail
        )
        # the service's periodic check asks this: nothing is due now, the fact is in two hours
        assert not store.held_due(now + timedelta(minutes=10))
        assert store.held_due(now + timedelta(hours=2))

        # time passes: the next fold (even an empty one) folds the fact whose time has come
        clock.at = now + timedelta(hours=2)
        released = await fold_events(deps, [])
        assert released.released == 1 and released.facts == 1
        assert counts(store).new_prs == 3
        assert store.watermark(REPO) is None
        assert {r.event_id for r in store.rejected_events(reason=FUTURE) if r.released_at} == {
            ahead.id
        }
        # a redelivery of the released event is a duplicate: counted once
        again = await fold_events(deps, [ahead])
        assert again.duplicates == 1 and counts(store).new_prs == 3
        clock.at = now + timedelta(hours=3)
        await fold_events(deps, [])
        assert store.watermark(REPO) == now + timedelta(hours=3)
    finally:
        store.close()
