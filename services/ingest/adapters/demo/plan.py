"""The demo's plan: every pull request, issue, comment and review of the fortnight, and the
counts per window computed from it (independently of the facts derived from it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from shared.events import Actor, Counts, FactData, FileChange
from shared.windows import Window

_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


@dataclass
class PlannedComment:
    id: int
    author: Actor
    at: datetime
    body: str
    on_review: bool = False


@dataclass
class PlannedReview:
    id: int
    author: Actor
    state: str
    at: datetime


@dataclass
class PlannedItem:
    """One pull request or issue, with everything that happens to it (some of it after the end)."""

    key: int
    kind: str  # pull_request | issue
    title: str
    author: Actor
    created_at: datetime
    body: str
    labels: tuple[str, ...] = ()
    label_events: list[tuple[str, datetime]] = field(default_factory=list)
    merged_at: datetime | None = None
    closed_at: datetime | None = None
    files: tuple[FileChange, ...] = ()
    files_total: int = 0
    additions: int = 0
    deletions: int = 0
    draft: bool = False
    comments: list[PlannedComment] = field(default_factory=list)
    reviews: list[PlannedReview] = field(default_factory=list)
    number: int = 0
    area: str | None = None
    hot: bool = False
    revert_of: int | None = None
    follow_up_of: int | None = None
    fixes: int | None = None  # key of the issue this pull request closes

    @property
    def has_tests(self) -> bool:
        return any(f.path.startswith("tests/") for f in self.files)


class DemoCounts(Counts):
    """What happened inside one window, counted from the plan: the report's own counts
    (`shared.events.Counts`: new, merged and closed-unmerged pull requests, new and closed issues,
    comments, reviews) — those the plan does not tell (contributors, lines, key pull requests)
    stay 0 — and the label events, which the report does not count."""

    labeled: int = 0

    def by_fact(self) -> dict[tuple[str, str], int | None]:
        """The same numbers keyed like facts: (kind, action); labels are on both kinds."""
        return {
            ("pull_request", "opened"): self.new_prs,
            ("pull_request", "merged"): self.merged_prs,
            ("pull_request", "closed"): self.closed_unmerged_prs,
            ("issue", "opened"): self.new_issues,
            ("issue", "closed"): self.closed_issues,
            ("comment", "created"): self.comments,
            ("review", "submitted"): self.reviews,
        }


@dataclass(frozen=True)
class DemoData:
    repo: str
    week: str
    seed: int
    tz: str
    windows: tuple[Window, Window]  # (previous week, requested week)
    items: tuple[PlannedItem, ...]
    facts: tuple[FactData, ...]
    watermark: datetime  # the end of the requested week: every fact before it is in `facts`

    @property
    def window(self) -> Window:
        return self.windows[1]

    def expected(self, start: datetime, end: datetime) -> DemoCounts:
        """Counts of [start, end) computed from the plan (independently of `facts`)."""

        def inside(t: datetime | None) -> bool:
            return t is not None and start <= t < end and t < self.watermark

        prs = [i for i in self.items if i.kind == "pull_request"]
        issues = [i for i in self.items if i.kind == "issue"]
        return DemoCounts(
            new_prs=sum(inside(i.created_at) for i in prs),
            merged_prs=sum(inside(i.merged_at) for i in prs),
            closed_unmerged_prs=sum(i.merged_at is None and inside(i.closed_at) for i in prs),
            new_issues=sum(inside(i.created_at) for i in issues),
            closed_issues=sum(inside(i.closed_at) for i in issues),
            comments=sum(inside(c.at) for i in self.items for c in i.comments),
            reviews=sum(inside(r.at) for i in self.items for r in i.reviews),
            labeled=sum(inside(at) for i in self.items for _, at in i.label_events),
        )


def parse_week(week: str) -> tuple[int, int]:
    m = _WEEK.match(week.strip())
    if not m:
        raise ValueError(f"demo week {week!r} is not an ISO week like 2026-W24")
    return int(m.group(1)), int(m.group(2))
