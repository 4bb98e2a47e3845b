"""The report model, pure: every expected figure is derived here from the scenario specs."""

from __future__ import annotations

import random
import statistics
from datetime import date, timedelta

import pytest

from services.summarizer.domain.report import (
    ReportPolicy,
    RequestMeta,
    build_summary,
    changed,
    figures,
    fit_size,
    key_pr_quota,
    next_revision,
    score_pr,
)
from shared.windows import day_window, week_window
from tests.unit.summarizer.summarizer_builders import (
    REPO,
    ItemSpec,
    Scenario,
    random_scenario,
    utc,
    window_input,
)

DAY = day_window(date(2026, 3, 26), "Asia/Shanghai", "11:45")
NOW = utc(2026, 3, 28, 0, 0)
# the same windows by hand (11:45 in Shanghai is 03:45 UTC), so that expected counts do not ask
# `Window` which instants it holds: [start, end), the end belongs to the next day
DAY_START, DAY_END = utc(2026, 3, 26, 3, 45), utc(2026, 3, 27, 3, 45)
PREV_START = utc(2026, 3, 25, 3, 45)


def in_day(t) -> bool:
    return DAY_START <= t < DAY_END


def in_previous_day(t) -> bool:
    return PREV_START <= t < DAY_START


def summarize(sc: Scenario, window=DAY, policy=ReportPolicy(), **extra):
    return build_summary(window_input(sc.events(), window, **extra), now=NOW, policy=policy)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_counts_follow_fact_times_inside_the_window(seed):
    assert (DAY.start, DAY.end) == (DAY_START, DAY_END)
    sc = random_scenario(seed, DAY.start, 1.0, n_items=90)
    # facts exactly on the boundaries: at the start they count, at the end (the next day's
    # start) they do not
    sc.items += [
        ItemSpec(901, "pull_request", DAY_START, author="edge-a", merged=DAY_END, additions=7000),
        ItemSpec(
            902,
            "pull_request",
            DAY_START - timedelta(hours=1),
            author="edge-b",
            merged=DAY_START,
            additions=5000,
            deletions=300,
        ),
        ItemSpec(903, "issue", DAY_END, author="edge-c"),
        ItemSpec(
            904, "issue", DAY_END - timedelta(microseconds=1), author="edge-d", closed=DAY_END
        ),
    ]
    sc.comments += [(903, DAY_END, "edge-e"), (904, DAY_END - timedelta(seconds=1), "edge-f")]
    s = summarize(sc)
    inside = in_day
    prs = [i for i in sc.items if i.kind == "pull_request"]
    issues = [i for i in sc.items if i.kind == "issue"]
    merged = [i for i in prs if i.merged and inside(i.merged)]
    assert 902 in {i.number for i in merged} and 901 not in {i.number for i in merged}
    assert s.counts.new_prs == sum(inside(i.opened) for i in prs)
    assert s.counts.new_issues == sum(inside(i.opened) for i in issues)
    assert s.counts.merged_prs == len(merged)
    assert s.counts.closed_unmerged_prs == sum(1 for i in prs if i.closed and inside(i.closed))
    assert s.counts.closed_issues == sum(1 for i in issues if i.closed and inside(i.closed))
    assert s.counts.lines_added == sum(i.additions for i in merged)
    assert s.counts.lines_removed == sum(i.deletions for i in merged)
    comments = [c for c in sc.comments if inside(c[1])]
    reviews = [r for r in sc.reviews if inside(r[1])]
    assert s.counts.comments == len(comments)
    assert s.counts.reviews == len(reviews)
    assert s.counts.reviewers == len({r[2] for r in reviews})
    actors = (
        {i.author for i in sc.items if inside(i.opened)}
        | {c[2] for c in comments}
        | {r[2] for r in reviews}
        | {
            i.author
            for i in sc.items
            if (i.merged and inside(i.merged)) or (i.closed and inside(i.closed))
        }
    )
    assert {"edge-a", "edge-b", "edge-d", "edge-f"} <= actors and not {"edge-c", "edge-e"} & actors
    assert s.counts.active_contributors == len(actors)
    assert [r.number for r in s.appendix.merged_prs] == sorted(i.number for i in merged)
    assert [r.number for r in s.appendix.new_issues] == sorted(
        i.number for i in issues if inside(i.opened)
    )
    assert s.facts_counted == sum(1 for e in sc.events() if inside(e.time))
    assert len(s.fact_ids_sample) == min(50, s.facts_counted)
    # the previous window is the day before, with the same cut-off
    assert s.previous_counts.new_prs == sum(in_previous_day(i.opened) for i in prs)
    assert s.previous_counts.merged_prs == sum(
        1 for i in prs if i.merged and in_previous_day(i.merged)
    )
    # per-day activity adds up to the window's counts
    assert sum(a.prs_opened for a in s.activity) == s.counts.new_prs
    assert sum(a.comments for a in s.activity) == s.counts.comments
    assert [a.day for a in s.activity] == [date(2026, 3, 26), date(2026, 3, 27)]


def test_median_hours_to_merge_and_first_response():
    start = DAY.start
    sc = Scenario(
        items=[
            ItemSpec(
                1,
                "pull_request",
                start + timedelta(hours=1),
                author="a",
                merged=start + timedelta(hours=3),
            ),
            ItemSpec(
                2,
                "pull_request",
                start + timedelta(hours=2),
                author="b",
                merged=start + timedelta(hours=12),
            ),
            ItemSpec(
                3,
                "pull_request",
                start + timedelta(hours=-30),
                author="c",
                merged=start + timedelta(hours=20),
            ),
            ItemSpec(4, "issue", start + timedelta(hours=4), author="d"),
        ]
    )
    sc.comments += [
        (4, start + timedelta(hours=4, minutes=30), "d"),  # the author: not a response
        (4, start + timedelta(hours=6), "e"),
        (1, start + timedelta(hours=2), "f"),
    ]
    sc.reviews += [(2, start + timedelta(hours=5), "g"), (2, start + timedelta(hours=9), "h")]
    s = summarize(sc)
    merge_hours = [(i.merged - i.opened) / timedelta(hours=1) for i in sc.items if i.merged]
    assert s.median_hours_to_merge == round(statistics.median(merge_hours), 2)
    assert s.median_hours_to_first_response == round(statistics.median([2.0, 1.0, 3.0]), 2)


# merged PRs -> key PRs, by hand: a tenth rounded up, at least 5 (all of them when fewer), at most 25
@pytest.mark.parametrize(
    "merged,quota",
    [
        (0, 0),
        (1, 1),
        (3, 3),
        (4, 4),
        (5, 5),
        (6, 5),
        (30, 5),
        (49, 5),
        (50, 5),
        (51, 6),
        (60, 6),
        (61, 7),
        (120, 12),
        (121, 13),
        (240, 24),
        (241, 25),
        (250, 25),
        (251, 25),
        (400, 25),
    ],
)
def test_key_pr_quota_is_top_tenth_between_five_and_twentyfive(merged, quota):
    assert key_pr_quota(merged, ReportPolicy()) == quota


def test_key_prs_are_the_best_scored_with_their_signals():
    sc = random_scenario(7, DAY.start, 1.0, n_items=200)
    s = summarize(sc)
    merged = [i for i in sc.items if i.merged and in_day(i.merged)]
    assert s.counts.key_prs == len(s.key_prs) == key_pr_quota(len(merged), ReportPolicy())
    scores = [k.score for k in s.key_prs]
    assert scores == sorted(scores, reverse=True)
    for k in s.key_prs:
        assert k.score == pytest.approx(sum(sig.points for sig in k.signals), abs=1e-6)
        spec = sc.item(k.item.number)
        size = next(sig for sig in k.signals if sig.name == "size")
        assert size.value == spec.additions + spec.deletions
    # nothing left out scores higher than the last key PR
    chosen = {k.item.number for k in s.key_prs}
    lowest = min(scores)
    for spec in merged:
        if spec.number not in chosen:
            snap = spec.snapshot(spec.merged)
            assert score_pr(snap, spec.tags(), ReportPolicy())[0] <= lowest
    # themes: each key PR leads the theme of its first module; no PR shows in two themes
    shown = [n for theme in s.themes for n in theme.prs]
    assert len(shown) == len(set(shown))
    merged_numbers = {i.number for i in merged}
    for theme in s.themes:
        assert set(theme.prs) <= merged_numbers
        assert all(theme.module in sc.item(n).modules for n in theme.prs)
        assert theme.merged == sum(1 for i in merged if theme.module in i.modules)
        leads = [
            k.item.number for k in s.key_prs if k.item.modules and k.item.modules[0] == theme.module
        ]
        assert leads and list(theme.prs[: len(leads)]) == leads[:4]
        assert len(theme.prs) >= min(2, sum(1 for i in merged if theme.module in i.modules))


def test_key_pr_ties_break_by_number_and_bots_are_excluded():
    start = DAY.start
    # distinct titles: items sharing a line of work would be capped per storyline
    words = dict(
        zip(
            (9, 3, 7, 1, 5, 8, 2), ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")
        )
    )
    sc = Scenario(
        items=[
            ItemSpec(
                n,
                "pull_request",
                start,
                merged=start + timedelta(hours=1),
                author="dependabot[bot]" if n == 3 else f"u{n}",
                bot=n == 3,
                title=words[n],
            )
            for n in (9, 3, 7, 1, 5, 8, 2)
        ]
    )
    s = summarize(sc)
    humans = sorted(i.number for i in sc.items if not i.bot)
    assert [k.item.number for k in s.key_prs] == humans[:5]


def test_module_trends_compare_with_previous_window():
    start, prev = DAY.start, DAY.previous().start
    sc = Scenario(
        items=[
            ItemSpec(
                1,
                "pull_request",
                start + timedelta(hours=1),
                modules=("moe",),
                merged=start + timedelta(hours=2),
            ),
            ItemSpec(2, "pull_request", start + timedelta(hours=1), modules=("moe", "rocm")),
            ItemSpec(3, "issue", start + timedelta(hours=1), modules=("moe",)),
            ItemSpec(4, "pull_request", prev + timedelta(hours=1), modules=("rocm",)),
            ItemSpec(5, "pull_request", prev + timedelta(hours=1), modules=("rocm",)),
            ItemSpec(6, "pull_request", prev + timedelta(hours=1), modules=("rocm",)),
            ItemSpec(7, "issue", prev + timedelta(hours=1), modules=("quant",)),
        ]
    )
    s = summarize(sc)
    by = {m.module: m for m in s.modules}
    assert (by["moe"].merged, by["moe"].opened, by["moe"].issues, by["moe"].total) == (1, 2, 1, 3)
    assert (by["moe"].previous_total, by["moe"].trend) == (0, "new")
    assert (by["rocm"].total, by["rocm"].previous_total, by["rocm"].delta, by["rocm"].trend) == (
        1,
        3,
        -2,
        "down",
    )
    assert (by["quant"].total, by["quant"].trend) == (0, "gone")
    assert by["moe"].representative[0] == 1  # merged first
    assert [m.module for m in s.modules] == ["moe", "rocm", "quant"]


def test_risks_ecosystem_and_follow_ups():
    start, end = DAY.start, DAY.end
    sc = Scenario(
        items=[
            ItemSpec(
                10,
                "pull_request",
                start + timedelta(hours=1),
                author="frank-amd",
                affiliations=("amd",),
                categories=("performance",),
                merged=start + timedelta(hours=5),
                risks=(("core-path", "high"),),
                files=("vllm/core/scheduler.py",),
                additions=60,  # a small change is no high risk of core paths
            ),
            ItemSpec(
                11,
                "pull_request",
                start + timedelta(hours=2),
                author="zoe",
                ecosystems=("ROCm",),
                categories=("ci",),
                risks=("core-path",),
                files=("tests/test_x.py", "vllm/core/a.py"),
                merged=start + timedelta(hours=6),
            ),
            ItemSpec(
                12, "issue", start + timedelta(hours=2), author="frank-amd", affiliations=("amd",)
            ),
            ItemSpec(
                13, "pull_request", start + timedelta(hours=3), author="yan", risks=("cuda-graph",)
            ),
            ItemSpec(
                14,
                "pull_request",
                start - timedelta(days=2),
                author="yan",
                risks=(("cuda-graph", "low"),),
                merged=start + timedelta(hours=4),
                files=("tests/test_graph.py",),
            ),
            # open for 5 days at the window's end without a review; and a draft that does not count
            ItemSpec(20, "pull_request", end - timedelta(days=5), author="old", reviews=0),
            ItemSpec(
                21, "pull_request", end - timedelta(days=6), author="old", reviews=0, draft=True
            ),
            ItemSpec(22, "pull_request", end - timedelta(days=1), author="new", reviews=0),
            ItemSpec(30, "issue", end - timedelta(days=9), title="[RFC] new scheduler", author="r"),
            ItemSpec(
                31, "issue", end - timedelta(days=9), labels=("bug",), reactions=7, author="b"
            ),
            ItemSpec(
                32, "issue", end - timedelta(days=9), labels=("bug",), reactions=2, author="b"
            ),
            ItemSpec(
                33,
                "issue",
                end - timedelta(days=9),
                title="[RFC] done",
                author="r",
                closed=start + timedelta(hours=1),
            ),
        ]
    )
    s = summarize(sc)
    risks = {r.risk: r for r in s.risks}
    assert risks["core-path"].items == (10, 11) and risks["core-path"].severity == "high"
    # risks count the changes that landed: 13 is still open
    assert risks["cuda-graph"].items == (14,) and risks["cuda-graph"].severity == "low"
    assert [r.risk for r in s.risks] == ["core-path", "cuda-graph"]
    (amd,) = s.ecosystems
    assert amd.name == "AMD/ROCm" and amd.contributors == ("frank-amd",)
    assert [i.number for i in amd.issues] == [12]
    assert {g.category: [i.number for i in g.items] for g in amd.pr_groups} == {
        "performance": [10],
        "platform-ci": [11],
    }
    kinds = {}
    for f in s.follow_ups:
        kinds.setdefault(f.kind, []).append(f.item.number)
    assert kinds["awaiting_review"] == [20]
    assert kinds["open_rfc"] == [30]
    assert kinds["popular_bug"] == [31]
    assert kinds["core_without_tests"] == [10]  # 11 touched tests
    waiting = next(f for f in s.follow_ups if f.kind == "awaiting_review")
    assert waiting.days == 5.0


def test_first_time_contributors_by_association_and_first_seen():
    start = DAY.start
    sc = Scenario(
        items=[
            ItemSpec(
                1,
                "pull_request",
                start + timedelta(hours=1),
                author="newbie",
                association="FIRST_TIME_CONTRIBUTOR",
            ),
            ItemSpec(2, "pull_request", start - timedelta(days=100), author="veteran"),
            ItemSpec(3, "issue", start + timedelta(hours=2), author="fresh"),
        ]
    )
    sc.comments.append((2, start + timedelta(hours=3), "veteran"))
    events = sc.events()
    first_seen = {}
    for e in events:
        from services.summarizer.domain.report import fact_actor

        login = fact_actor(e.data.fact).login
        first_seen[login] = min(first_seen.get(login, e.time), e.time)
    history = min(e.time for e in events)
    s = build_summary(
        window_input(events, DAY, actor_first_seen=first_seen, history_start=history), now=NOW
    )
    assert s.counts.first_time_contributors == 2
    assert {c.login for c in s.contributors if c.first_time} == {"newbie", "fresh"}
    # without long enough history, "first seen" means nothing: only the association counts
    s2 = build_summary(
        window_input(
            events, DAY, actor_first_seen=first_seen, history_start=start - timedelta(days=89)
        ),
        now=NOW,
    )
    assert s2.counts.first_time_contributors == 1


def test_hot_discussions_rank_by_activity_with_participants():
    start = DAY.start
    sc = Scenario(
        items=[
            ItemSpec(n, "pull_request", start - timedelta(days=2), author="x") for n in (1, 2, 3)
        ]
    )
    sc.comments += [
        (2, start + timedelta(hours=h), who) for h, who in ((1, "a"), (2, "b"), (3, "a"))
    ]
    sc.comments += [(1, start + timedelta(hours=1), "a")]
    sc.reviews += [(3, start + timedelta(hours=1), "c"), (3, start + timedelta(hours=2), "d")]
    sc.comments += [(3, start - timedelta(hours=1), "z")]  # before the window
    s = summarize(sc)
    assert [d.item.number for d in s.discussions] == [2, 3, 1]
    assert s.discussions[0].participants == ("a", "b") and s.discussions[0].comments_in_window == 3
    assert s.discussions[1].reviews_in_window == 2 and s.discussions[1].participants == ("c", "d")


def test_same_facts_in_any_order_give_the_same_report():
    sc = random_scenario(3, DAY.start, 1.0, n_items=80)
    events = sc.events()
    shuffled = list(events)
    random.Random(9).shuffle(shuffled)
    a = build_summary(window_input(events, DAY), now=NOW)
    b = build_summary(window_input(shuffled, DAY), now=NOW)
    assert a == b and figures(a) == figures(b)


def test_cutoff_boundaries_in_shanghai():
    # 11:44 local on the 26th belongs to the day before; 11:45 to the 26th (UTC+8 -> 03:45Z)
    sc = Scenario(
        items=[
            ItemSpec(1, "issue", utc(2026, 3, 26, 3, 44, 59)),
            ItemSpec(2, "issue", utc(2026, 3, 26, 3, 45)),
            ItemSpec(3, "issue", utc(2026, 3, 27, 3, 44, 59)),
            ItemSpec(4, "issue", utc(2026, 3, 27, 3, 45)),
        ]
    )
    s = summarize(sc)
    assert [r.number for r in s.appendix.new_issues] == [2, 3]
    assert s.previous_counts.new_issues == 1


def test_week_across_dst_change_counts_local_days():
    week = week_window(2026, 13, "Europe/Berlin")  # 2026-03-29: clocks go forward
    assert (week.end - week.start) == timedelta(hours=167)
    sc = Scenario(
        items=[
            ItemSpec(1, "issue", utc(2026, 3, 22, 23, 0)),  # Monday 00:00 CET: inside
            ItemSpec(2, "issue", utc(2026, 3, 29, 21, 59)),  # Sunday 23:59 CEST: inside
            ItemSpec(3, "issue", utc(2026, 3, 29, 22, 0)),  # next Monday 00:00 CEST: outside
        ]
    )
    s = summarize(sc, window=week)
    assert [r.number for r in s.appendix.new_issues] == [1, 2]
    assert len(s.activity) == 7
    assert s.activity[0].issues_opened == 1 and s.activity[-1].issues_opened == 1
    assert s.activity[-1].day == date(2026, 3, 29)


def test_revisions_and_changed_figures():
    sc = random_scenario(5, DAY.start, 1.0, n_items=60)
    before = summarize(sc)
    late = ItemSpec(
        500,
        "pull_request",
        DAY.start + timedelta(hours=1),
        merged=DAY.start + timedelta(hours=2),
        additions=77,
        deletions=0,
        modules=("moe",),
    )
    sc.items.append(late)
    after = summarize(sc)
    f0, f1 = figures(before), figures(after)
    assert next_revision(0, None, f0) == (1, ())
    assert next_revision(1, f0, f0) == (1, ())
    revision, diff = next_revision(1, f0, f1)
    assert revision == 2
    by = {c.name: c for c in diff}
    assert (by["counts.merged_prs"].before, by["counts.merged_prs"].after) == (
        before.counts.merged_prs,
        before.counts.merged_prs + 1,
    )
    assert by["counts.lines_added"].after - by["counts.lines_added"].before == 77
    assert "counts.new_issues" not in by
    assert changed(f1, f1) == ()


def test_request_meta_is_carried():
    sc = random_scenario(2, DAY.start, 1.0, n_items=10)
    meta = RequestMeta(
        languages=("zh-CN",), formats=("md",), synthetic=True, data_note="demo", request_id="r-1"
    )
    s = build_summary(window_input(sc.events(), DAY), now=NOW, meta=meta)
    assert (s.languages, s.formats, s.synthetic, s.data_note, s.request_id) == (
        ("zh-CN",),
        ("md",),
        True,
        "demo",
        "r-1",
    )
    assert s.repo == REPO and s.generated_at == NOW and s.ruleset_versions == ("t1",)


def test_fit_size_cuts_the_appendix_and_says_how_much():
    week = week_window(2026, 24, "UTC")
    sc = random_scenario(8, week.start, 7.0, n_items=900)
    full = summarize(sc, window=week)
    size = len(full.model_dump_json())
    assert fit_size(full, size) is full
    budget = size // 2
    cut = fit_size(full, budget)
    assert len(cut.model_dump_json()) <= budget
    assert cut.counts == full.counts and cut.key_prs == full.key_prs and cut.modules == full.modules
    omitted = cut.appendix.omitted
    assert omitted and "new_prs" in omitted
    for name, dropped in omitted.items():
        kept = getattr(cut.appendix, name)
        assert len(kept) + dropped == len(getattr(full.appendix, name))
        assert [r.number for r in kept] == [r.number for r in getattr(full.appendix, name)][
            : len(kept)
        ]
    # lists that were not cut are complete, only without their tags
    assert len(cut.appendix.merged_prs) == cut.counts.merged_prs


def test_a_new_key_pr_selection_is_a_new_revision_without_listing_a_hash():
    before = {"counts.merged_prs": 5, "_key_pr_selection": 1}
    after = {"counts.merged_prs": 5, "_key_pr_selection": 2}
    assert next_revision(3, before, after) == (4, ())
    assert next_revision(3, before, dict(before)) == (3, ())


def test_unreviewed_prs_older_than_the_maximum_are_not_awaiting_review():
    end = DAY.end
    sc = Scenario(
        items=[
            ItemSpec(1, "pull_request", end - timedelta(days=10), author="a"),
            ItemSpec(2, "pull_request", end - timedelta(days=45), author="b"),
            ItemSpec(3, "pull_request", end - timedelta(days=4), author="c", reviews=2),
        ]
    )
    s = summarize(sc)
    assert [(f.item.number, f.days) for f in s.follow_ups if f.kind == "awaiting_review"] == [
        (1, 10.0)
    ]


def test_score_signals_explain_the_score():
    start = DAY.start
    docs = ItemSpec(
        1,
        "pull_request",
        start,
        merged=start + timedelta(hours=1),
        additions=99,
        deletions=0,
        categories=("docs",),
        files=("docs/a.md",),
    )
    feature = ItemSpec(
        2,
        "pull_request",
        start,
        merged=start + timedelta(hours=1),
        additions=99,
        deletions=0,
        categories=("feature",),
        files=("docs/a.md",),
        labels=("Performance",),
        reviews=3,
        risks=(("core-change", "high"), ("interface-change", "medium")),
    )
    policy = ReportPolicy()
    (d_score, d_signals), (f_score, f_signals) = (
        score_pr(x.snapshot(x.merged), x.tags(), policy) for x in (docs, feature)
    )
    d, f = {s.name: s for s in d_signals}, {s.name: s for s in f_signals}
    # the size is the project's own work: the builder lists one line of docs/a.md (a quarter of
    # a line) and 98 lines of no listed file (in full): round(98.25) = 98, log10(1 + 98)
    assert d["size"].value == 98 and d["size"].points == 1.996
    assert d["kind"].points == -2.0 and f["kind"].points == 1.5  # docs -2, feature +1.5
    assert (
        f["risk"].value == 2 and f["risk"].points == 1.0
    )  # half of (high 2 + medium 1), capped at 1
    assert f["reviews"].points == 1.5 and f["labels"].value == 1
    assert "core" in f and "core" not in d
    assert f_score > d_score
    assert d_score == pytest.approx(sum(s.points for s in d_signals))


def test_new_york_dst_days_by_hand():
    # fall back, Sun 1 Nov 2026: 00:00 EDT = 04:00 UTC to 00:00 EST (next day) = 05:00 UTC, 25 hours;
    # 01:30 local happens twice, at 05:30 UTC and 06:30 UTC: the day's second and third hours
    fall = day_window(date(2026, 11, 1), "America/New_York")
    sc = Scenario(
        items=[
            ItemSpec(1, "issue", utc(2026, 11, 1, 4, 0)),  # the first instant: inside
            ItemSpec(2, "issue", utc(2026, 11, 1, 5, 30)),
            ItemSpec(3, "issue", utc(2026, 11, 1, 6, 30)),
            ItemSpec(4, "issue", utc(2026, 11, 2, 4, 59)),  # 23:59 EST: inside, the 25th hour
            ItemSpec(5, "issue", utc(2026, 11, 2, 5, 0)),  # 00:00 EST on the 2nd: outside
            ItemSpec(6, "issue", utc(2026, 11, 1, 3, 59)),  # 23:59 EDT on 31 Oct: outside
        ]
    )
    s = summarize(sc, window=fall)
    assert [r.number for r in s.appendix.new_issues] == [1, 2, 3, 4]
    assert len(s.hourly) == 25
    assert s.hourly[0].start == utc(2026, 11, 1, 4) and s.hourly[-1].start == utc(2026, 11, 2, 4)
    assert [h.issues_opened for h in s.hourly] == [1, 1, 1] + [0] * 21 + [1]
    assert [(a.day, a.issues_opened) for a in s.activity] == [(date(2026, 11, 1), 4)]
    # spring forward, Sun 8 Mar 2026: 05:00 UTC to 04:00 UTC, 23 hours; 01:59 EST (06:59 UTC)
    # and 03:00 EDT (07:00 UTC) are one minute apart, in consecutive hours
    spring = day_window(date(2026, 3, 8), "America/New_York")
    sc = Scenario(
        items=[
            ItemSpec(1, "issue", utc(2026, 3, 8, 6, 59)),
            ItemSpec(2, "issue", utc(2026, 3, 8, 7, 0)),
            ItemSpec(3, "issue", utc(2026, 3, 9, 4, 0)),
        ]
    )  # 00:00 EDT on the 9th: outside
    s = summarize(sc, window=spring)
    assert [r.number for r in s.appendix.new_issues] == [1, 2]
    assert len(s.hourly) == 23
    assert [h.issues_opened for h in s.hourly][:3] == [0, 1, 1]
