"""The item and activity rows a batch folds into (SQLite and PostgreSQL), from the survivors of
mutation testing the summarizer's fold (issue #20 item 4): within one batch the newest snapshot
of an item wins whatever the delivery order and its first-seen time is the earliest fact's; a
re-classification later in the batch replaces the tags; the snapshot's own updated_at is kept;
a fact nobody is named for is stored without an actor; late facts flag exactly the summarized
windows they land in (end exclusive, per repository), and nothing when none was summarized. Every expected value is written out by hand."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.adapters.tables import activity, items
from shared.events import Actor, EnrichedFact, FactData, ItemSnapshot, RuleSetRef, make_fact
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import REPO, ItemSpec, enrich, tags

NOW = datetime(2026, 6, 9, 5, 0, tzinfo=UTC)


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 6, 8, hour, minute, tzinfo=UTC)


def store_for(url: str) -> SqlProjections:
    store = SqlProjections(url)
    store.migrate()
    return store


def item_row(store: SqlProjections, number: int):
    with store.engine.connect() as conn:
        return conn.execute(
            sa.select(items).where(items.c.repo == REPO, items.c.number == number)
        ).one()


@pytest.mark.parametrize("newest_first", [True, False])
def test_the_newest_snapshot_wins_whatever_the_order_and_first_seen_is_the_earliest(
    database_url, newest_first
):
    store = store_for(database_url)
    spec = ItemSpec(7, "pull_request", at(9), merged=at(12))
    opened, merged = enrich(spec, "opened", at(9)), enrich(spec, "merged", at(12))
    result = store.fold([merged, opened] if newest_first else [opened, merged], now=NOW)
    assert (result.facts, result.late_windows) == (2, 0)
    row = item_row(store, 7)
    assert (row.state, row.merged_at, row.snapshot_time, row.first_seen) == (
        "closed",
        at(12),
        at(12),
        at(9),
    )
    store.close()


def test_a_reclassification_later_in_the_batch_replaces_the_tags(database_url):
    store = store_for(database_url)
    spec = ItemSpec(8, "pull_request", at(9))
    fact = make_fact(
        FactData(
            repo=REPO,
            kind="pull_request",
            action="opened",
            item=spec.snapshot(at(9)),
            actor=spec.author,
        )
    )
    first = EnrichedFact.create(
        fact, tags(modules=("engine",)), RuleSetRef(profile="p", version="v1")
    )
    again = EnrichedFact.create(
        fact, tags(modules=("frontend",)), RuleSetRef(profile="p", version="v2")
    )
    assert first.id != again.id and first.data.fact_id == again.data.fact_id
    store.fold([first, again], now=NOW)
    assert [m["name"] for m in json.loads(item_row(store, 8).tags)["modules"]] == ["frontend"]
    store.close()


def test_the_snapshots_own_updated_at_is_kept(database_url):
    # a poll at 15:00 saw the item as of 15:00; the fact it reports happened at 10:00
    store = store_for(database_url)
    snap = ItemSnapshot(
        repo=REPO,
        number=9,
        kind="issue",
        title="crash",
        author=Actor(login="dan"),
        state="open",
        created_at=at(10),
        updated_at=at(15),
    )
    fact = make_fact(
        FactData(repo=REPO, kind="issue", action="opened", item=snap, actor="dan"), time=at(10)
    )
    store.fold([EnrichedFact.create(fact, tags(), RuleSetRef(profile="p", version="v1"))], now=NOW)
    row = item_row(store, 9)
    assert (row.snapshot_time, row.snapshot_updated_at, row.first_seen) == (at(10), at(15), at(10))
    store.close()


def test_a_fact_nobody_is_named_for_is_stored_without_an_actor(database_url):
    store = store_for(database_url)
    spec = ItemSpec(10, "issue", at(9), closed=at(11))
    fact = make_fact(
        FactData(repo=REPO, kind="issue", action="closed", item=spec.snapshot(at(11)), actor=None)
    )
    store.fold([EnrichedFact.create(fact, tags(), RuleSetRef(profile="p", version="v1"))], now=NOW)
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(activity.c.number, activity.c.action, activity.c.actor)).all()
    assert [tuple(r) for r in rows] == [(10, "closed", None)]
    store.close()


def test_late_facts_flag_exactly_the_summarized_windows_they_land_in(database_url):
    """Summarized days: acme/widgets 06-08, 06-09, 06-10; acme/other 06-08, 06-10. A batch of
    acme/widgets 06-08 10:00 and 06-10 00:00 (the first instant of 06-10, not of 06-09) and
    acme/other 06-08 12:00 flags three windows, each in its own repository."""
    store = store_for(database_url)
    other = "acme/other"
    days = {d: day_window(date(2026, 6, d), "UTC") for d in (8, 9, 10)}
    for repo, ds in ((REPO, (8, 9, 10)), (other, (8, 10))):
        for d in ds:
            store.record_summary(
                repo,
                days[d],
                revision=1,
                figures={},
                figures_hash="h",
                summary_id=f"s-{repo}-{d}",
                now=NOW,
            )
    late = [
        enrich(ItemSpec(20, "issue", at(10)), "opened", at(10)),
        enrich(
            ItemSpec(21, "issue", at(0) + timedelta(days=2)), "opened", at(0) + timedelta(days=2)
        ),
        enrich(ItemSpec(22, "issue", at(12)), "opened", at(12), repo=other),
    ]
    result = store.fold(late, now=NOW)
    assert result.late_windows == 3
    dirty = {
        (r, d): store.window_state(r, days[d].label).dirty
        for r, ds in ((REPO, (8, 9, 10)), (other, (8, 10)))
        for d in ds
    }
    assert dirty == {
        (REPO, 8): True,
        (REPO, 9): False,
        (REPO, 10): True,
        (other, 8): True,
        (other, 10): False,
    }
    store.close()
