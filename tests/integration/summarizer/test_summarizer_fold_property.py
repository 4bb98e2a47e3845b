"""Property: the summarizer's fold (SqlProjections on real SQLite, then the report model) agrees
with a plain fold written here, for event logs hypothesis draws itself.

Hypothesis draws the items (pull requests and issues, their fate and sizes), comments and
reviews, times inside, outside and exactly on the window's bounds, facts re-classified under a
second rule set (a new event for the same fact), watermarks, a delivery order (facts late behind
a watermark), duplicate deliveries, and where the delivery is cut into batches. Part way through
the window is recorded as summarized; afterwards it must be flagged for a new revision exactly
when a fact of it arrives that had not been folded before (a redelivery is not news).

The plain fold below reads the drawn records (who did what when), never the summarizer's code:
a fact counts once whatever the deliveries, in the window holding its time, [start, end).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.report import build_summary
from services.summarizer.domain.windows import previous_window
from shared.events import EnrichedFact, RuleSetRef
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import REPO, ItemSpec, Scenario, watermark

WINDOW = day_window(datetime(2026, 3, 26).date(), "Asia/Shanghai", "11:45")
# by hand: 11:45 in Shanghai (UTC+8) is 03:45 UTC; the previous window is the day before
START, END = datetime(2026, 3, 26, 3, 45, tzinfo=UTC), datetime(2026, 3, 27, 3, 45, tzinfo=UTC)
PREV_START = START - timedelta(days=1)
SECOND = timedelta(seconds=1)
EDGES = [START, END, START - SECOND, END - SECOND, PREV_START, PREV_START - SECOND]
PEOPLE = ("ann", "bo", "cy", "dee", "eve")
MAX_EXAMPLES = 30  # about 5 s on one core; each example folds into a fresh SQLite database

times = st.one_of(
    st.sampled_from(EDGES),
    # to the minute, from 1.5 days before the previous window to a day after this one
    st.integers(-3600, 2880).map(lambda m: START + timedelta(minutes=m)),
)


@dataclass
class Drawn:
    scenario: Scenario
    deliveries: list  # events in delivery order, duplicates included
    cuts: list[int]  # batch boundaries (indices into deliveries)
    summarized_after: int  # the window is recorded as summarized after this many batches


@st.composite
def logs(draw) -> Drawn:
    sc = Scenario()
    for number in range(1, draw(st.integers(1, 7)) + 1):
        kind = draw(st.sampled_from(("pull_request", "issue")))
        opened = draw(times)
        fate = draw(
            st.sampled_from(
                ("open", "merged", "closed") if kind == "pull_request" else ("open", "closed")
            )
        )
        ended = max(opened, draw(times)) if fate != "open" else None
        sc.items.append(
            ItemSpec(
                number,
                kind,
                opened,
                author=draw(st.sampled_from(PEOPLE)),
                merged=ended if fate == "merged" else None,
                closed=ended if fate == "closed" else None,
                additions=draw(st.integers(0, 500)),
                deletions=draw(st.integers(0, 500)),
            )
        )
    for _ in range(draw(st.integers(0, 6))):
        item = draw(st.sampled_from(sc.items))
        entry = (item.number, max(item.opened, draw(times)), draw(st.sampled_from(PEOPLE)))
        is_review = item.kind == "pull_request" and draw(st.booleans())
        (sc.reviews if is_review else sc.comments).append(entry)
    events = sc.events()
    # some facts classified again under another rule set: another event, the same fact
    again = draw(st.lists(st.sampled_from(range(len(events))), unique=True, max_size=3))
    events += [
        e for i, e in enumerate(sc.events(RuleSetRef(profile="test", version="t2"))) if i in again
    ]
    events += [watermark(t) for t in draw(st.lists(times, max_size=3, unique=True))]
    order = draw(st.permutations(events))
    # duplicate deliveries, each put back at a drawn place in the stream
    deliveries = list(order)
    for _ in range(draw(st.integers(0, 6))):
        copy = deliveries[draw(st.integers(0, len(deliveries) - 1))]
        deliveries.insert(draw(st.integers(0, len(deliveries))), copy)
    cuts = sorted(
        draw(st.lists(st.integers(1, len(deliveries) - 1), unique=True, max_size=6))
        if len(deliveries) > 1
        else []
    )
    return Drawn(sc, deliveries, cuts, draw(st.integers(0, len(cuts) + 1)))


def plain_fold(sc: Scenario, start: datetime, end: datetime) -> dict[str, int]:
    """The window's figures from the drawn records: each fact once, in [start, end)."""

    def inside(t: datetime | None) -> bool:
        return t is not None and start <= t < end

    prs = [i for i in sc.items if i.kind == "pull_request"]
    issues = [i for i in sc.items if i.kind == "issue"]
    merged = [i for i in prs if inside(i.merged)]
    comments = [c for c in sc.comments if inside(c[1])]
    reviews = [r for r in sc.reviews if inside(r[1])]
    actors = (
        {i.author for i in sc.items if inside(i.opened) or inside(i.merged) or inside(i.closed)}
        | {c[2] for c in comments}
        | {r[2] for r in reviews}
    )
    return {
        "new_prs": sum(inside(i.opened) for i in prs),
        "new_issues": sum(inside(i.opened) for i in issues),
        "merged_prs": len(merged),
        "closed_unmerged_prs": sum(inside(i.closed) for i in prs),
        "closed_issues": sum(inside(i.closed) for i in issues),
        "comments": len(comments),
        "reviews": len(reviews),
        "reviewers": len({r[2] for r in reviews}),
        "active_contributors": len(actors),
        "lines_added": sum(i.additions for i in merged),
        "lines_removed": sum(i.deletions for i in merged),
        "facts": (
            sum(inside(i.opened) + inside(i.merged) + inside(i.closed) for i in sc.items)
            + len(comments)
            + len(reviews)
        ),
    }


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=logs())
def test_the_fold_agrees_with_a_plain_fold_of_the_drawn_log(log: Drawn):
    bounds = [0, *log.cuts, len(log.deliveries)]
    batches = [log.deliveries[a:b] for a, b in zip(bounds, bounds[1:])]
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlProjections(f"sqlite:///{Path(tmp) / 'p.db'}")
        try:
            store.migrate()
            delivered: set[str] = set()
            folded = duplicates = 0
            news_after_summary = False
            for n, batch in enumerate(batches):
                if n == log.summarized_after:
                    store.record_summary(
                        REPO,
                        WINDOW,
                        revision=1,
                        figures={},
                        figures_hash="h",
                        summary_id="s1",
                        now=END,
                    )
                result = store.fold(batch, now=END + timedelta(days=2))
                fresh = [e for e in dict.fromkeys(e.id for e in batch) if e not in delivered]
                by_id = {e.id: e for e in batch}
                # the plain answer for this batch: each event id is new once, whatever the batch
                assert result.duplicates == len(batch) - len(fresh)
                assert result.facts == sum(isinstance(by_id[i], EnrichedFact) for i in fresh)
                if n >= log.summarized_after:
                    news_after_summary |= any(
                        isinstance(by_id[i], EnrichedFact)
                        and START <= by_id[i].data.fact_time < END
                        for i in fresh
                    )
                delivered.update(fresh)
                folded += result.facts
                duplicates += result.duplicates
            state = store.window_state(REPO, WINDOW.label)
            summary = build_summary(
                store.load_window(REPO, WINDOW, previous_window(WINDOW)), now=END
            )
            counts = store.counts()
            mark = store.watermark(REPO)
        finally:
            store.close()

    events = {e.id: e for e in log.deliveries}
    facts = [e for e in events.values() if isinstance(e, EnrichedFact)]
    marks = [e.data.watermark for e in events.values() if not isinstance(e, EnrichedFact)]
    assert folded == len(facts) and duplicates == len(log.deliveries) - len(events)
    assert counts["processed"] == len(events)
    assert counts["activity"] == len({e.data.fact_id for e in facts})
    assert counts["items"] == len(log.scenario.items)
    assert mark == (max(marks) if marks else None)

    want = plain_fold(log.scenario, START, END)
    got = summary.counts
    assert {k: getattr(got, k) for k in want if k != "facts"} == {
        k: v for k, v in want.items() if k != "facts"
    }
    assert summary.facts_counted == want["facts"]
    merged = sorted(i.number for i in log.scenario.items if i.merged and START <= i.merged < END)
    assert [r.number for r in summary.appendix.merged_prs] == merged
    before = plain_fold(log.scenario, PREV_START, START)
    assert summary.previous_counts is not None
    assert {
        k: getattr(summary.previous_counts, k)
        for k in ("new_prs", "new_issues", "merged_prs", "closed_issues", "closed_unmerged_prs")
    } == {
        k: before[k]
        for k in ("new_prs", "new_issues", "merged_prs", "closed_issues", "closed_unmerged_prs")
    }
    # late facts: a summarized window is flagged for a new revision by news, not by redelivery
    if log.summarized_after < len(batches):
        assert state is not None and state.dirty == news_after_summary
