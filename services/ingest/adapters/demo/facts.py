"""The plan turned into facts: each item's snapshot at a moment, and its facts before the end."""

from __future__ import annotations

from datetime import datetime

from shared.events import CommentInfo, FactData, ItemSnapshot, ReviewInfo

from .plan import PlannedItem
from .vocabulary import DEMO_REPO, MAINTAINERS


def snapshot_at(item: PlannedItem, at: datetime) -> ItemSnapshot:
    """The item as GitHub would have shown it at `at`."""
    merged = item.merged_at if item.merged_at and item.merged_at <= at else None
    closed = item.closed_at if item.closed_at and item.closed_at <= at else None
    labels = item.labels + tuple(lb for lb, t in item.label_events if t <= at)
    return ItemSnapshot(
        repo=DEMO_REPO,
        number=item.number,
        kind=item.kind,
        title=item.title,
        author=item.author,
        labels=tuple(dict.fromkeys(labels)),
        state="closed" if closed else "open",
        draft=item.draft and not closed,
        created_at=item.created_at,
        updated_at=at,
        closed_at=closed,
        merged_at=merged,
        merged_by=item.reviews[-1].author.login if merged and item.reviews else None,
        comments=sum(1 for c in item.comments if c.at <= at and not c.on_review),
        review_comments=sum(1 for c in item.comments if c.at <= at and c.on_review),
        reviews=sum(1 for r in item.reviews if r.at <= at),
        additions=item.additions if item.kind == "pull_request" else None,
        deletions=item.deletions if item.kind == "pull_request" else None,
        changed_files=item.files_total if item.kind == "pull_request" else None,
        files=item.files,
        files_truncated=item.files_total > len(item.files),
        base_branch="main" if item.kind == "pull_request" else None,
        body_excerpt=item.body,
    )


def facts_of(item: PlannedItem, end: datetime) -> list[FactData]:
    """Every fact of `item` that happened before `end`."""
    out: list[tuple[datetime, int, FactData]] = []

    def add(at: datetime, order: int, **kw) -> None:
        if at < end:
            out.append(
                (
                    at,
                    order,
                    FactData(repo=DEMO_REPO, item=snapshot_at(item, at), origin="demo", **kw),
                )
            )

    add(item.created_at, 0, kind=item.kind, action="opened", actor=item.author.login)
    for label, at in item.label_events:
        add(at, 1, kind=item.kind, action="labeled", label=label, actor=MAINTAINERS[0])
    for c in item.comments:
        add(
            c.at,
            2,
            kind="comment",
            action="created",
            actor=c.author.login,
            comment=CommentInfo(
                id=c.id,
                author=c.author,
                created_at=c.at,
                body_excerpt=c.body,
                on_review=c.on_review,
            ),
        )
    for r in item.reviews:
        add(
            r.at,
            3,
            kind="review",
            action="submitted",
            actor=r.author.login,
            review=ReviewInfo(id=r.id, author=r.author, state=r.state, submitted_at=r.at),
        )
    if item.merged_at is not None:
        add(
            item.merged_at,
            4,
            kind="pull_request",
            action="merged",
            actor=item.reviews[-1].author.login if item.reviews else None,
        )
    elif item.closed_at is not None:
        add(item.closed_at, 4, kind=item.kind, action="closed", actor=item.author.login)
    out.sort(key=lambda t: (t[0], t[1]))
    return [f for _, _, f in out]
