"""Key-PR scoring by a hand-computed table: each row is a merged PR and the signals (raw value,
points) a person works out from the scoring rules, written as literals.

The rules (services/summarizer/domain/report.py `score_pr`), as a reader applies them:
- size: log10(1 + additions + deletions), at most 3 — 9 lines give 1.0, 99 lines 2.0
- files: files / 20, at most 1.5 — 2 files give 0.1
- risk: half the risks' severity points (low 0.5, medium 1, high 2), at most 1
- core: 0.5 when a risk is one of the policy's core-path risks (core-change, core, core-path,
  core-paths by default); any other risk is not core, however severe
- discussion: log2(1 + comments + review comments) / 3, at most 2 — 7 in all give 1.0, 63 give
  2.0, 3 give 0.667: comments on the diff count as much as conversation comments
- reviews: 0.5 each, at most 2; notable labels 0.75 each; reactions / 5, at most 1;
  categories: feature +1.5, performance +1, docs -2 (a removal's categories count at least 0)
- removal: 2 when the title says it removes/drops/deletes/deprecates and 1,000+ net lines go
A signal worth 0 points is not listed; the score is the sum of the listed points.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from services.summarizer.domain.report import ReportPolicy, build_summary, score_pr
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import ItemSpec, Scenario, utc, window_input

T0 = utc(2026, 3, 26, 4)
BASE = dict(additions=9, deletions=0, files=("src/a.py", "src/b.py"))  # size 1.0, files 0.1


def pr(number: int = 1, **kw) -> ItemSpec:
    return ItemSpec(
        number,
        "pull_request",
        T0,
        merged=T0 + timedelta(hours=1),
        title=kw.pop("title", f"change {number}"),
        **{**BASE, **kw},
    )


# (case, the PR's distinguishing fields, expected signals {name: (value, points)}, expected score)
TABLE = [
    ("plain", {}, {"size": (9, 1.0), "files": (2, 0.1)}, 1.1),
    (
        "review comments alone count as discussion",
        {"review_comments": 7},
        {"size": (9, 1.0), "files": (2, 0.1), "discussion": (7, 1.0)},
        2.1,
    ),
    (
        "comments and review comments add up",
        {"comments": 3, "review_comments": 4},
        {"size": (9, 1.0), "files": (2, 0.1), "discussion": (7, 1.0)},
        2.1,
    ),
    (
        "conversation comments alone",
        {"comments": 3},
        {"size": (9, 1.0), "files": (2, 0.1), "discussion": (3, 0.667)},
        1.767,
    ),
    (
        "discussion reaches its cap",
        {"comments": 1, "review_comments": 62},
        {"size": (9, 1.0), "files": (2, 0.1), "discussion": (63, 2.0)},
        3.1,
    ),
    (
        "discussion stays at its cap",
        {"comments": 100, "review_comments": 100},
        {"size": (9, 1.0), "files": (2, 0.1), "discussion": (200, 2.0)},
        3.1,
    ),
    (
        "a core-path risk is core",
        {"risks": ("core-path",)},
        {"size": (9, 1.0), "files": (2, 0.1), "risk": (1, 0.5), "core": (1, 0.5)},
        2.1,
    ),
    (
        "a core-change risk is core",
        {"risks": (("core-change", "low"),)},
        {"size": (9, 1.0), "files": (2, 0.1), "risk": (1, 0.25), "core": (1, 0.5)},
        1.85,
    ),
    (
        "a non-core risk is not core",
        {"risks": ("cuda-graph",)},
        {"size": (9, 1.0), "files": (2, 0.1), "risk": (1, 0.5)},
        1.6,
    ),
    (
        "a high non-core risk is not core either",
        {"risks": (("thread-safety", "high"),)},
        {"size": (9, 1.0), "files": (2, 0.1), "risk": (1, 1.0)},
        2.1,
    ),
    (
        "missing tests is its own risk, not core",
        {"risks": ("core-without-tests",)},
        {"size": (9, 1.0), "files": (2, 0.1), "risk": (1, 0.5)},
        1.6,
    ),
    (
        "one core risk among others",
        {"risks": (("interface-change", "low"), ("core", "high"))},
        {"size": (9, 1.0), "files": (2, 0.1), "risk": (2, 1.0), "core": (1, 0.5)},
        2.6,
    ),
    (
        "reviews, labels, reactions, a feature",
        {
            "additions": 99,
            "reviews": 3,
            "labels": ("Performance", "bug"),
            "reactions": 10,
            "categories": ("feature",),
        },
        {
            "size": (99, 2.0),
            "files": (2, 0.1),
            "reviews": (3, 1.5),
            "labels": (1, 0.75),
            "reactions": (10, 1.0),
            "kind": (1, 1.5),
        },
        6.85,
    ),
    (
        "docs sink",
        {"categories": ("docs",), "review_comments": 1},
        {"size": (9, 1.0), "files": (2, 0.1), "discussion": (1, 0.333), "kind": (1, -2.0)},
        -0.567,
    ),
    # W50's "Drop torchair" (+77/-16,881): a removal of 1,000+ net lines whose title says so is
    # worth 2, and the docs files it deletes do not sink it (its kind counts at least 0)
    (
        "a large removal, docs files and all",
        {"title": "Drop torchair", "additions": 77, "deletions": 16881, "categories": ("docs",)},
        {"size": (16958, 3.0), "files": (2, 0.1), "removal": (1, 2.0)},
        5.1,
    ),
    (
        "a large deletion that does not say it removes anything",
        {"title": "Refactor the runner", "additions": 0, "deletions": 1500},
        {"size": (1500, 3.0), "files": (2, 0.1)},
        3.1,
    ),
]


@pytest.mark.parametrize("case,fields,signals,score", TABLE, ids=[row[0] for row in TABLE])
def test_score_by_hand(case, fields, signals, score):
    spec = pr(**fields)
    got_score, got_signals = score_pr(spec.snapshot(spec.merged), spec.tags(), ReportPolicy())
    assert {s.name: (s.value, s.points) for s in got_signals} == signals
    assert got_score == pytest.approx(score, abs=1e-9)


def test_core_risks_are_the_policys_not_any_risk():
    policy = ReportPolicy(core_risks=("kernel",))
    kernel, core_path = pr(risks=("kernel",)), pr(risks=("core-path",))
    _, with_kernel = score_pr(kernel.snapshot(kernel.merged), kernel.tags(), policy)
    _, with_core_path = score_pr(core_path.snapshot(core_path.merged), core_path.tags(), policy)
    assert ("core", 1, 0.5) in {(s.name, s.value, s.points) for s in with_kernel}
    assert "core" not in {s.name for s in with_core_path}


DAY = day_window(utc(2026, 3, 26).date(), "UTC")


def test_review_comments_lift_a_pr_into_the_key_prs():
    # six equal merged PRs, quota 5 (the minimum): ties go to the lower number, so #6 would be
    # left out; 7 comments on its diff (discussion 1.0) put it first
    sc = Scenario(items=[pr(n, title=f"area{n} change", author=f"u{n}") for n in range(1, 7)])
    sc.items[5].review_comments = 7
    s = build_summary(window_input(sc.events(), DAY), now=DAY.end)
    assert [k.item.number for k in s.key_prs] == [6, 1, 2, 3, 4]
    (first,) = [k for k in s.key_prs if k.item.number == 6]
    assert first.score == pytest.approx(2.1)
    assert "discussed" in first.reasons  # 7 >= 5 comments
    assert first.item.comments == 7


def test_only_a_core_risk_gives_the_core_reason():
    # quota 5 of 6: #1 (non-core risk, 1.6) and #2 (core risk, 2.1) lead; #2 says "core", #1 not
    sc = Scenario(
        items=[
            pr(1, title="alpha", author="a", risks=("cuda-graph",)),
            pr(2, title="bravo", author="b", risks=("core-path",)),
            *(pr(n, title=w, author=w) for n, w in zip(range(3, 7), ("c1", "d1", "e1", "f1"))),
        ]
    )
    s = build_summary(window_input(sc.events(), DAY), now=DAY.end)
    assert [k.item.number for k in s.key_prs] == [2, 1, 3, 4, 5]
    reasons = {k.item.number: k.reasons for k in s.key_prs}
    assert "core" in reasons[2] and "core" not in reasons[1]
