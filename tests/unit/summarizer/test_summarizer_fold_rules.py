"""The fold's rules without a database (services/summarizer/domain/projection.py): once per id,
admission, last writer wins, late windows, watermark advance, window closing. The SQL store runs
these same functions inside its transaction (tests/integration/summarizer/ checks the tables)."""

from __future__ import annotations

from datetime import timedelta

from services.summarizer.domain.admission import FUTURE, UNKNOWN_REPO, Admission
from services.summarizer.domain.projection import (
    admit,
    advances,
    closing_windows,
    fact_times_by_repo,
    first_of_each_id,
    highest_watermarks,
    late_labels,
    latest_facts,
    latest_items,
    order_of,
    repo_of,
    time_of,
)
from shared.events import EnrichedFact, RuleSetRef, make_fact
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import REPO, ItemSpec, enrich, utc, watermark

OTHER = "acme/gadgets"
T0 = utc(2026, 6, 8, 9)
PR = ItemSpec(number=7, kind="pull_request", opened=T0, merged=T0 + timedelta(hours=5))


def reclassified(event: EnrichedFact, version: str, *modules: str) -> EnrichedFact:
    """The same fact under another rule set (a new event id, new tags)."""
    spec = ItemSpec(
        number=event.data.fact.item.number,
        kind=event.data.fact.item.kind,
        opened=T0,
        modules=modules,
    )
    return EnrichedFact.create(
        make_fact(event.data.fact), spec.tags(), RuleSetRef(profile="test", version=version)
    )


def test_a_copy_delivered_twice_is_folded_once_and_order_is_kept():
    opened, merged = enrich(PR, "opened", T0), enrich(PR, "merged", T0 + timedelta(hours=5))
    mark = watermark(T0 + timedelta(hours=6))
    first = first_of_each_id([opened, merged, opened.model_copy(), mark, merged])
    assert list(first) == [opened.id, merged.id, mark.id]
    assert first[opened.id] is opened  # the first copy, not the later one


def test_admission_splits_a_batch_keeping_its_order_and_the_reasons():
    adm = Admission(repos=(REPO,), future_tolerance=timedelta(minutes=10))
    now = T0 + timedelta(days=1)
    ok = enrich(PR, "opened", T0)
    stranger = enrich(PR, "opened", T0, repo=OTHER)
    early = ItemSpec(number=9, kind="issue", opened=now + timedelta(minutes=11))  # a skewed clock
    ahead = enrich(early, "opened", early.opened)
    mark = watermark(now)
    admitted, refused = admit([stranger, ok, ahead, mark], now, adm)
    assert admitted == [ok, mark]
    assert [(e, v.reason) for e, v in refused] == [(stranger, UNKNOWN_REPO), (ahead, FUTURE)]
    assert (repo_of(stranger), repo_of(mark)) == (OTHER, REPO)
    assert (time_of(ahead), time_of(mark)) == (now + timedelta(minutes=11), now)


def test_a_reclassification_replaces_the_tags_the_last_one_of_the_batch_wins():
    fact = enrich(PR, "opened", T0)
    v2, v3 = reclassified(fact, "t2", "moe"), reclassified(fact, "t3", "rocm")
    other = enrich(PR, "merged", T0 + timedelta(hours=5))
    by_fact = latest_facts([fact, other, v3, v2])
    assert list(by_fact) == [fact.data.fact_id, other.data.fact_id]  # first sighting's place
    assert by_fact[fact.data.fact_id] is v2
    assert [t.name for t in by_fact[fact.data.fact_id].data.tags.modules] == ["moe"]


def test_an_older_snapshot_arriving_later_never_overwrites_a_newer_one():
    opened, merged = enrich(PR, "opened", T0), enrich(PR, "merged", T0 + timedelta(hours=5))
    assert order_of(merged) > order_of(opened)
    for batch in ([opened, merged], [merged, opened]):
        latest = latest_items(batch)[(REPO, 7)]
        assert latest.event is merged and latest.first_seen == T0


def test_a_snapshot_updated_later_wins_over_a_later_fact_seen_earlier():
    # a poll saw the item at 20:00 (updated_at) for the opening at 09:00; a webhook comment at
    # 12:00 carries the 12:00 snapshot: the poll's snapshot is the newer one, in either order
    polled = enrich(PR, "opened", T0)
    polled = polled.model_copy(
        update={
            "data": polled.data.model_copy(
                update={
                    "fact": polled.data.fact.model_copy(
                        update={
                            "item": polled.data.fact.item.model_copy(
                                update={"updated_at": T0 + timedelta(hours=11)}
                            )
                        }
                    )
                }
            )
        }
    )
    comment = enrich(PR, "created", T0 + timedelta(hours=3), kind="comment")
    assert time_of(comment) > time_of(polled) and order_of(polled) > order_of(comment)
    for batch in ([polled, comment], [comment, polled]):
        latest = latest_items(batch)[(REPO, 7)]
        assert latest.event is polled and latest.first_seen == T0


def test_at_equal_order_the_later_copy_of_the_batch_wins():
    fact = enrich(PR, "opened", T0)
    again = reclassified(fact, "t2", "moe")
    assert order_of(fact) == order_of(again)
    assert latest_items([fact, again])[(REPO, 7)].event is again
    assert latest_items([again, fact])[(REPO, 7)].event is fact


def test_items_are_kept_apart_by_repository_and_number():
    issue = ItemSpec(number=8, kind="issue", opened=T0 + timedelta(hours=2))
    elsewhere = ItemSpec(number=7, kind="pull_request", opened=T0 + timedelta(hours=1))
    batch = [
        enrich(PR, "opened", T0),
        enrich(issue, "opened", issue.opened),
        enrich(elsewhere, "opened", elsewhere.opened, repo=OTHER),
    ]
    latest = latest_items(batch)
    assert sorted(latest) == [(OTHER, 7), (REPO, 7), (REPO, 8)]
    assert [latest[k].first_seen for k in ((REPO, 7), (REPO, 8), (OTHER, 7))] == [
        T0,
        T0 + timedelta(hours=2),
        T0 + timedelta(hours=1),
    ]
    assert fact_times_by_repo(batch) == {
        REPO: [T0, T0 + timedelta(hours=2)],
        OTHER: [T0 + timedelta(hours=1)],
    }


def test_a_late_fact_flags_only_the_summarized_windows_it_lands_in():
    monday, tuesday = day_window(T0.date(), "UTC"), day_window(T0.date() + timedelta(days=1), "UTC")
    summarized = [(w.label, w.start, w.end) for w in (monday, tuesday)]
    assert late_labels(summarized, [tuesday.start]) == [tuesday.label]  # [start, end)
    assert late_labels(summarized, [tuesday.end]) == []
    assert late_labels(summarized, [monday.end - timedelta(microseconds=1), tuesday.end]) == [
        monday.label
    ]
    assert late_labels(summarized, [monday.start, tuesday.start + timedelta(hours=1)]) == [
        monday.label,
        tuesday.label,
    ]
    assert late_labels(summarized, []) == []


def test_a_watermark_moves_only_forward_to_the_highest_of_the_batch():
    marks = [
        watermark(T0 + timedelta(hours=2)),
        watermark(T0, OTHER),
        watermark(T0 + timedelta(hours=5)),
        watermark(T0 + timedelta(hours=1)),
    ]
    best = highest_watermarks(marks)
    assert best == {OTHER: T0, REPO: T0 + timedelta(hours=5)} and list(best) == [OTHER, REPO]
    assert advances(None, T0)
    assert advances(T0, T0 + timedelta(microseconds=1))
    assert not advances(T0, T0)
    assert not advances(T0, T0 - timedelta(hours=1))


def test_closing_records_each_due_window_unsummarized_and_due_for_a_summary():
    days = [day_window(T0.date() + timedelta(days=i), "Asia/Shanghai", "11:45") for i in range(2)]
    now = T0 + timedelta(days=3)
    rows = closing_windows(REPO, days, now)
    assert [r["label"] for r in rows] == [d.label for d in days]
    for row, day in zip(rows, days):
        assert row == {
            "repo": REPO,
            "label": day.label,
            "kind": "day",
            "start": day.start,
            "end": day.end,
            "tz": "Asia/Shanghai",
            "cutoff": "11:45",
            "revision": 0,
            "closed_at": now,
            "dirty": True,
        }
    assert closing_windows(REPO, [], now) == []
