"""The report model's counts by hand, from the survivors of mutation testing report.py (issue #20
item 4): reopened issues and pull requests, facts after a close that are not a reopen, bots in
contributors, reviewers and the key-PR quota, unknown line counts, first-time contributors (by
GitHub's association, by history, never a bot), the end of the window, who a fact is by, the
per-contributor figures, status at the window's end and the module trend's thresholds. Every
expected figure is counted by hand from the events written here."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta

import pytest

from services.summarizer.domain.report import (
    _open_at,
    _status_at,
    _trend,
    build_summary,
    fact_actor,
)
from shared.events import (
    Actor,
    CommentInfo,
    EnrichedFact,
    FactData,
    ItemSnapshot,
    ReviewInfo,
    RuleSetRef,
    make_fact,
)
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import (
    REPO,
    ItemSpec,
    enrich,
    rows,
    tags,
    window_input,
)

DAY = day_window(date(2026, 6, 8), "UTC")  # 2026-06-08 00:00Z .. 2026-06-09 00:00Z
NOW = datetime(2026, 6, 10, tzinfo=UTC)


def at(day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(2026, 6, day, hour, minute, tzinfo=UTC)


def summarize(events, **extra):
    return build_summary(
        window_input(sorted(events, key=lambda e: (e.time, e.id)), DAY, **extra), now=NOW
    )


def comment(spec: ItemSpec, when: datetime, login: str, n: int):
    info = CommentInfo(id=n, author=Actor(login=login), created_at=when, body_excerpt="+1")
    return enrich(spec, "created", when, kind="comment", comment=info)


def review(spec: ItemSpec, when: datetime, login: str, n: int):
    info = ReviewInfo(id=n, author=Actor(login=login), state="APPROVED", submitted_at=when)
    return enrich(spec, "submitted", when, kind="review", review=info)


# --------------------------------------------------------------------------- reopen, close


def test_a_reopen_in_the_window_takes_back_a_close():
    issue_reopened = ItemSpec(1, "issue", at(7, 9), closed=at(8, 10))
    issue_closed = ItemSpec(2, "issue", at(7, 9), closed=at(8, 11))
    issue_closed_before = ItemSpec(3, "issue", at(7, 9), closed=at(7, 10))
    pr_reopened = ItemSpec(4, "pull_request", at(7, 9), closed=at(8, 10))
    pr_closed = ItemSpec(5, "pull_request", at(7, 9), closed=at(8, 11))
    pr_closed_before = ItemSpec(6, "pull_request", at(7, 9), closed=at(7, 10))
    events = [
        enrich(issue_reopened, "closed", at(8, 10)),
        enrich(issue_reopened, "reopened", at(8, 12)),
        enrich(issue_closed, "closed", at(8, 11)),
        enrich(issue_closed_before, "reopened", at(8, 14)),  # its close was yesterday
        enrich(pr_reopened, "closed", at(8, 10)),
        enrich(pr_reopened, "reopened", at(8, 12)),
        enrich(pr_closed, "closed", at(8, 11)),
        enrich(pr_closed_before, "reopened", at(8, 14)),
    ]
    s = summarize(events)
    # closed and still closed at the end of the day: issue 2 and pull request 5
    assert (s.counts.closed_issues, s.counts.closed_unmerged_prs) == (1, 1)
    assert [r.number for r in s.appendix.closed_issues] == [2]
    assert [r.number for r in s.appendix.closed_unmerged_prs] == [5]


def test_a_label_or_an_edit_after_a_close_leaves_it_closed():
    issue = ItemSpec(1, "issue", at(7, 9), closed=at(8, 10))
    pr = ItemSpec(2, "pull_request", at(7, 9), closed=at(8, 10))
    events = [
        enrich(issue, "closed", at(8, 10)),
        enrich(issue, "labeled", at(8, 11)),
        enrich(issue, "edited", at(8, 12)),
        enrich(pr, "closed", at(8, 10)),
        enrich(pr, "labeled", at(8, 11)),
        enrich(pr, "edited", at(8, 12)),
    ]
    counts = summarize(events).counts
    assert (counts.closed_issues, counts.closed_unmerged_prs) == (1, 1)


def test_facts_at_the_windows_end_are_the_next_windows():
    inside = ItemSpec(1, "issue", at(8, 23, 59))
    at_end = ItemSpec(2, "issue", at(9, 0))  # 06-09 00:00: the next day's first instant
    events = [enrich(inside, "opened", at(8, 23, 59)), enrich(at_end, "opened", at(9, 0))]
    # the model is handed the fact at the end too (the store would not): it keeps [start, end)
    inp = dataclasses.replace(window_input(events, DAY), facts=rows(events))
    assert build_summary(inp, now=NOW).counts.new_issues == 1


# --------------------------------------------------------------------------- bots, people


def test_bots_are_not_contributors_reviewers_or_key_pr_candidates():
    alice = ItemSpec(1, "pull_request", at(8, 9), author="alice", merged=at(8, 10))
    bot = ItemSpec(2, "pull_request", at(8, 9), author="dependabot[bot]", merged=at(8, 11))
    events = [
        enrich(alice, "opened", at(8, 9)),
        enrich(alice, "merged", at(8, 10)),
        enrich(bot, "opened", at(8, 9, 30)),
        enrich(bot, "merged", at(8, 11)),
        review(alice, at(8, 9, 45), "bob", 1),
        review(alice, at(8, 9, 50), "renovate[bot]", 2),
    ]
    s = summarize(events)
    # acting humans: alice (opened, merged) and bob (review); the two bots are not counted
    assert (s.counts.active_contributors, s.counts.reviewers, s.counts.reviews) == (2, 1, 2)
    by_login = {c.login: c for c in s.contributors}
    assert (
        by_login["dependabot[bot]"].bot,
        by_login["renovate[bot]"].bot,
        by_login["alice"].bot,
    ) == (True, True, False)


def test_the_previous_windows_key_pr_quota_counts_human_merges_only():
    # the day before: three merged pull requests by people, one by a bot -> quota 3 (at most
    # the merged count while under key_pr_min = 5)
    specs = [
        ItemSpec(n, "pull_request", at(7, 8), author=f"dev{n}", merged=at(7, 9 + n))
        for n in (1, 2, 3)
    ]
    specs.append(
        ItemSpec(4, "pull_request", at(7, 8), author="github-actions[bot]", merged=at(7, 14))
    )
    events = [
        e for s in specs for e in (enrich(s, "opened", s.opened), enrich(s, "merged", s.merged))
    ]
    s = summarize(events)
    assert (s.previous_counts.merged_prs, s.previous_counts.key_prs) == (4, 3)


def test_unknown_line_counts_add_nothing():
    known = ItemSpec(1, "pull_request", at(8, 8), merged=at(8, 9), additions=10, deletions=2)
    unknown = ItemSpec(
        2, "pull_request", at(8, 8), merged=at(8, 10), additions=None, deletions=None
    )
    events = [enrich(known, "merged", at(8, 9)), enrich(unknown, "merged", at(8, 10))]
    counts = summarize(events).counts
    assert (counts.lines_added, counts.lines_removed) == (10, 2)


def test_per_contributor_figures():
    alice_pr = ItemSpec(1, "pull_request", at(8, 8), author="alice", merged=at(8, 12))
    alice_issue = ItemSpec(2, "issue", at(8, 9), author="alice")
    bob_pr = ItemSpec(3, "pull_request", at(8, 10), author="bob")
    events = [
        enrich(alice_pr, "opened", at(8, 8)),
        enrich(alice_pr, "merged", at(8, 12)),
        enrich(alice_issue, "opened", at(8, 9)),
        enrich(bob_pr, "opened", at(8, 10)),
        comment(alice_pr, at(8, 11), "bob", 1),
        review(alice_pr, at(8, 11, 30), "bob", 2),
    ]
    figures = {
        c.login: (c.prs_opened, c.prs_merged, c.issues_opened, c.comments, c.reviews)
        for c in summarize(events).contributors
    }
    assert figures == {"alice": (1, 1, 1, 0, 0), "bob": (1, 0, 0, 1, 1)}


# --------------------------------------------------------------------------- first-timers


def test_first_time_contributors_by_association_never_a_bot():
    first = ItemSpec(
        1, "pull_request", at(8, 8), author="newcomer", association="FIRST_TIME_CONTRIBUTOR"
    )
    timer = ItemSpec(2, "issue", at(8, 8), author="fresh", association="FIRST_TIMER")
    regular = ItemSpec(3, "pull_request", at(8, 8), author="regular", association="CONTRIBUTOR")
    bot = ItemSpec(
        4, "pull_request", at(8, 8), author="helper[bot]", association="FIRST_TIME_CONTRIBUTOR"
    )
    s = summarize([enrich(x, "opened", at(8, 8)) for x in (first, timer, regular, bot)])
    assert s.counts.first_time_contributors == 2
    assert sorted(c.login for c in s.contributors if c.first_time) == ["fresh", "newcomer"]


@pytest.mark.parametrize(
    "history_days,first_timers",
    [
        (90, ["carol"]),  # the history reaches exactly 90 days before the window: enough
        (89, []),  # a day short: first seen means nothing
    ],
)
def test_first_seen_in_the_window_counts_when_the_history_reaches_90_days_back(
    history_days, first_timers
):
    pr = ItemSpec(1, "pull_request", at(8, 8), author="carol")
    bot = ItemSpec(2, "pull_request", at(8, 9), author="ci[bot]")
    events = [enrich(pr, "opened", at(8, 8)), enrich(bot, "opened", at(8, 9))]
    s = summarize(
        events,
        history_start=DAY.start - timedelta(days=history_days),
        actor_first_seen={"carol": at(8, 8), "ci[bot]": at(8, 9)},
    )
    assert sorted(c.login for c in s.contributors if c.first_time) == first_timers
    assert s.counts.first_time_contributors == len(first_timers)


# --------------------------------------------------------------------------- who, status, trend


def snapshot(**kw) -> ItemSnapshot:
    base = dict(
        repo=REPO,
        number=1,
        kind="pull_request",
        title="t",
        author=Actor(login="alice"),
        state="open",
        created_at=at(8, 8),
    )
    return ItemSnapshot(**{**base, **kw})


@pytest.mark.parametrize(
    "fact,login",
    [
        (
            FactData(
                repo=REPO, kind="pull_request", action="opened", item=snapshot(), actor="importer"
            ),
            "alice",
        ),
        (
            FactData(
                repo=REPO,
                kind="pull_request",
                action="merged",
                item=snapshot(
                    state="closed", merged_at=at(8, 9), closed_at=at(8, 9), merged_by="lead"
                ),
                actor="someone",
            ),
            "lead",
        ),
        (
            FactData(
                repo=REPO,
                kind="pull_request",
                action="labeled",
                item=snapshot(
                    state="closed", merged_at=at(8, 9), closed_at=at(8, 9), merged_by="lead"
                ),
                actor="triager",
            ),
            "triager",
        ),
        # a comment or review fact without its comment or review: who the event names
        (
            FactData(repo=REPO, kind="comment", action="created", item=snapshot(), actor="eve"),
            "eve",
        ),
        (
            FactData(repo=REPO, kind="review", action="submitted", item=snapshot(), actor="frank"),
            "frank",
        ),
        (
            FactData(repo=REPO, kind="pull_request", action="closed", item=snapshot(), actor=None),
            None,
        ),
    ],
)
def test_who_a_fact_is_by(fact, login):
    actor = fact_actor(fact)
    assert (actor.login if actor else None) == login


END = at(9, 0)


@pytest.mark.parametrize(
    "merged_at,closed_at,status",
    [
        (at(8, 23, 59), at(8, 23, 59), "merged"),
        (END, END, "open"),  # merged at the end: not yet, at the end
        (None, at(8, 23, 59), "closed"),
        (None, END, "open"),
    ],
)
def test_status_at_the_end_of_the_window(merged_at, closed_at, status):
    assert _status_at(snapshot(merged_at=merged_at, closed_at=closed_at), END) == status


@pytest.mark.parametrize("created_at,is_open", [(at(8, 23, 59), True), (END, False)])
def test_open_at_the_end_needs_to_have_been_created_before_it(created_at, is_open):
    assert _open_at(snapshot(created_at=created_at), END) is is_open


@pytest.mark.parametrize(
    "total,previous,trend",
    [
        (0, 0, "flat"),
        (3, 0, "new"),
        (0, 4, "gone"),
        # 10 before: a change of more than 1 (10 %) is a trend
        (10, 10, "flat"),
        (11, 10, "flat"),
        (12, 10, "up"),
        (9, 10, "flat"),
        (8, 10, "down"),
        # 20 before: more than 2
        (22, 20, "flat"),
        (23, 20, "up"),
        (18, 20, "flat"),
        (17, 20, "down"),
        # 5 before: 10 % rounds to 0, and a trend needs more than 1 all the same
        (6, 5, "flat"),
        (7, 5, "up"),
        (4, 5, "flat"),
        (3, 5, "down"),
    ],
)
def test_module_trend_thresholds(total, previous, trend):
    assert _trend(total, previous) == trend


# --------------------------------------------------------------------------- contributors, activity


def test_contributors_are_ordered_by_everything_they_did():
    # ddd: 3 pull requests opened, 2 of them merged (5); ccc: 4 reviews; bbb: 3 comments;
    # aaa: 2 issues opened; eee: 1 comment (each kind, counted the other way, would move its
    # contributor below one that did less)
    prs = [
        ItemSpec(n, "pull_request", at(8, 8), author="ddd", merged=at(8, 12) if n < 3 else None)
        for n in (1, 2, 3)
    ]
    issues = [ItemSpec(n, "issue", at(8, 9), author="aaa") for n in (4, 5)]
    events = (
        [enrich(p, "opened", at(8, 8)) for p in prs]
        + [enrich(p, "merged", at(8, 12)) for p in prs[:2]]
        + [enrich(i, "opened", at(8, 9)) for i in issues]
        + [comment(prs[2], at(8, 13, n), "bbb", 100 + n) for n in range(3)]
        + [review(prs[2], at(8, 14, n), "ccc", 200 + n) for n in range(4)]
        + [comment(prs[2], at(8, 15), "eee", 300)]
    )
    contributors = summarize(events).contributors
    assert [
        (c.login, c.prs_opened, c.prs_merged, c.issues_opened, c.comments, c.reviews)
        for c in contributors
    ] == [
        ("ddd", 3, 2, 0, 0, 0),
        ("ccc", 0, 0, 0, 0, 4),
        ("bbb", 0, 0, 0, 3, 0),
        ("aaa", 0, 0, 2, 0, 0),
        ("eee", 0, 0, 0, 1, 0),
    ]


def test_a_login_marked_a_bot_once_stays_a_bot():
    """The classifier marked the first pull request of 'release-helper' as a bot's (a rule, not
    the [bot] suffix); its second pull request and its comment do not make it a person again."""
    first = ItemSpec(1, "pull_request", at(8, 8), author="release-helper")
    second = ItemSpec(2, "pull_request", at(8, 9), author="release-helper")
    marked = EnrichedFact.create(
        make_fact(
            FactData(
                repo=REPO,
                kind="pull_request",
                action="opened",
                item=first.snapshot(at(8, 8)),
                actor="release-helper",
            )
        ),
        tags(bot=True),
        RuleSetRef(profile="p", version="v1"),
    )
    events = [
        marked,
        enrich(second, "opened", at(8, 9)),
        comment(second, at(8, 10), "release-helper", 1),
        comment(second, at(8, 11), "bob", 2),
    ]
    bots = {c.login: c.bot for c in summarize(events).contributors}
    assert bots == {"release-helper": True, "bob": False}


def test_daily_activity_counts_each_kind_on_its_day():
    merged = ItemSpec(1, "pull_request", at(7, 8), merged=at(8, 10))
    closed = ItemSpec(2, "pull_request", at(7, 8), closed=at(8, 11))
    issue = ItemSpec(3, "issue", at(7, 8), closed=at(8, 12))
    opened = ItemSpec(4, "issue", at(8, 13))
    events = [
        enrich(merged, "merged", at(8, 10)),
        enrich(closed, "closed", at(8, 11)),
        enrich(issue, "closed", at(8, 12)),
        enrich(opened, "opened", at(8, 13)),
        comment(opened, at(8, 14), "bob", 1),
    ]
    (day,) = summarize(events).activity
    assert (
        day.day,
        day.prs_opened,
        day.prs_merged,
        day.prs_closed_unmerged,
        day.issues_opened,
        day.issues_closed,
        day.comments,
    ) == (date(2026, 6, 8), 0, 1, 1, 1, 1, 1)


def test_hourly_activity_counts_each_kind_in_its_hour():
    pr = ItemSpec(1, "pull_request", at(8, 9, 15), merged=at(8, 10, 59))
    issue = ItemSpec(2, "issue", at(8, 23, 30))
    events = [
        enrich(pr, "opened", at(8, 9, 15)),
        enrich(pr, "merged", at(8, 10, 59)),
        enrich(issue, "opened", at(8, 23, 30)),
        comment(issue, at(8, 23, 59), "bob", 1),
    ]
    hours = {
        h.start.hour: (h.prs_opened, h.prs_merged, h.issues_opened, h.comments)
        for h in summarize(events).hourly
        if (h.prs_opened, h.prs_merged, h.issues_opened, h.comments) != (0, 0, 0, 0)
    }
    assert hours == {9: (1, 0, 0, 0), 10: (0, 1, 0, 0), 23: (0, 0, 1, 1)}
    assert len(summarize(events).hourly) == 24
