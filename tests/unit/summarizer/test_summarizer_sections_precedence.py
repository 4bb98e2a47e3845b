"""Ecosystem groups by the item's first category; code-without-tests is a follow-up (pure)."""

from __future__ import annotations

from datetime import date, timedelta

from services.summarizer.domain.report import ReportPolicy, build_summary
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import ItemSpec, Scenario, utc, window_input

DAY = day_window(date(2026, 3, 26), "Asia/Shanghai", "11:45")
NOW = utc(2026, 3, 28)


def groups(sc: Scenario) -> dict[str, list[int]]:
    (section,) = build_summary(window_input(sc.events(), DAY), now=NOW).ecosystems
    return {g.category: [i.number for i in g.items] for g in section.pr_groups}


def pr(number: int, *categories: str, hours: int = 1, **kw) -> ItemSpec:
    return ItemSpec(
        number,
        "pull_request",
        DAY.start + timedelta(hours=hours),
        author="lee-amd",
        affiliations=("amd",),
        categories=categories,
        merged=DAY.start + timedelta(hours=hours + 2),
        **kw,
    )


def test_the_first_category_decides_the_group_not_the_group_order():
    sc = Scenario(
        items=[
            # "[Releases] [ROCm] speed up the wheel build": release first, so release, as in the seed
            pr(1, "release", "performance", title="[Releases] [ROCm] speed up the wheel build"),
            pr(2, "performance", "release"),
            pr(3, "bugfix", "platform-ci"),
            pr(4, "platform-ci", "bugfix"),
            pr(5, "docs", "bugfix"),  # docs names no group: the next category does
            pr(6, "docs"),
        ]
    )
    got = groups(sc)
    assert got == {
        "performance": [2],
        "bugfix": [3, 5],
        "platform-ci": [4],
        "release": [1],
        "other": [6],
    }
    # the groups are listed in the fixed precedence, whatever the items' order
    (section,) = build_summary(window_input(sc.events(), DAY), now=NOW).ecosystems
    assert [g.category for g in section.pr_groups] == [
        "performance",
        "bugfix",
        "platform-ci",
        "release",
        "other",
    ]


def test_code_without_tests_is_a_follow_up_like_core_without_tests():
    sc = Scenario(
        items=[
            pr(1, "feature", risks=("code-without-tests",), files=("pkg/a.py",), additions=50),
            pr(2, "feature", risks=("core-without-tests",), files=("core/b.py",), additions=500),
            pr(3, "feature", risks=("large-change",), files=("pkg/c.py",), additions=5000),
        ]
    )
    summary = build_summary(window_input(sc.events(), DAY), now=NOW)
    # one concern, one line: the core change without tests — the same items as that risk, not
    # the code changes without tests as well (a reader counted 36 there against 13 in risks)
    (follow,) = [f for f in summary.follow_ups if f.kind == "core_without_tests"]
    assert follow.items == (2,) and "core paths" in follow.reason
    (risk,) = [r for r in summary.risks if r.risk == "core-without-tests"]
    assert set(risk.items) == set(follow.items)
    # a policy without the name does not flag it: the default list is what makes it count
    narrow = ReportPolicy(missing_test_risks=("core-without-tests",))
    summary = build_summary(window_input(sc.events(), DAY), now=NOW, policy=narrow)
    assert [f.items for f in summary.follow_ups if f.kind == "core_without_tests"] == [(2,)]
    only_code = Scenario(
        items=[pr(1, "feature", risks=("code-without-tests",), files=("pkg/a.py",))]
    )
    (follow,) = [
        f
        for f in build_summary(window_input(only_code.events(), DAY), now=NOW).follow_ups
        if f.kind == "core_without_tests"
    ]
    assert "core paths" not in follow.reason
