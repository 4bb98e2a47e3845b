"""Transitions: the facts between an item's last known state and a fresh snapshot of it.

Pure: standard library and `shared.events` only. The first sight of an item reproduces its
history as far as a snapshot tells it (opened at created_at; merged at merged_at, or closed at
closed_at), so a backfill and a live poll publish the same facts with the same ids. Labels present
at first sight are part of the snapshot, not `labeled` facts: their time is unknown.

Facts whose GitHub time is exact (opened, merged, closed, comment created, review submitted) get
the same id from a poll and from a webhook. The others (edited, labeled, reopened,
ready_for_review, converted_to_draft) are timed at the item's `updated_at` when the poll saw it,
which equals the webhook's time when nothing else happened to the item in between.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from shared.events import (
    CommentInfo,
    FactData,
    FileChange,
    ItemSnapshot,
    ReviewInfo,
    fact_time,
    utc,
)

from .mapping import comment_fact, content_hash, item_fact, review_fact

STATE_VERSION = 1
IDS_AT_MARK_MAX = 64


@dataclass(frozen=True)
class Mark:
    """A high-water mark over a stream of timed objects (comments, reviews): the latest time
    seen and the ids seen at exactly that time, so equal timestamps are neither lost nor
    repeated."""

    at: datetime | None = None
    ids: tuple[int, ...] = ()

    def is_new(self, when: datetime, oid: int) -> bool:
        if self.at is None:
            return True
        when = utc(when)
        return when > self.at or (when == self.at and oid not in self.ids)

    def advance(self, seen: Iterable[tuple[datetime, int]]) -> Mark:
        at, ids = self.at, set(self.ids)
        for when, oid in seen:
            when = utc(when)
            if at is None or when > at:
                at, ids = when, {oid}
            elif when == at:
                ids.add(oid)
        return Mark(at, tuple(sorted(ids))[-IDS_AT_MARK_MAX:])


@dataclass(frozen=True)
class ItemState:
    """What ingest remembers of one pull request or issue between two polls (stored in KV)."""

    kind: str
    state: str
    merged: bool = False
    draft: bool = False
    labels: tuple[str, ...] = ()
    content: str = ""
    updated_at: datetime | None = None
    closed_at: datetime | None = None
    comments: int = 0
    review_comments: int = 0
    # the last files and review count of a pull request: what a 304 on their listings stands for
    files: tuple[tuple[str, int, int, str | None], ...] = ()
    files_truncated: bool = False
    reviews: int = 0
    # facts timed at observation that a webhook already published, with the item's updated_at
    # then: the next poll does not publish them again under its own time (`note_webhook`)
    announced: tuple[tuple[str, datetime], ...] = ()
    comment_mark: Mark = field(default_factory=Mark)
    review_comment_mark: Mark = field(default_factory=Mark)
    review_mark: Mark = field(default_factory=Mark)

    # ------------------------------------------------------------ storage form

    def to_json(self) -> bytes:
        def enc(value: object) -> object:
            return value.isoformat() if isinstance(value, datetime) else value

        raw = asdict(self)
        body = {k: enc(v) for k, v in raw.items() if not isinstance(v, dict)}
        for name in ("comment_mark", "review_comment_mark", "review_mark"):
            mark: Mark = getattr(self, name)
            body[name] = {"at": enc(mark.at), "ids": list(mark.ids)}
        body["labels"] = list(self.labels)
        body["files"] = [list(f) for f in self.files]
        body["announced"] = [[k, t.isoformat()] for k, t in self.announced]
        body["v"] = STATE_VERSION
        return json.dumps(body, separators=(",", ":"), sort_keys=True).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes | str) -> ItemState:
        body = json.loads(data)
        body.pop("v", None)

        def dt(value: str | None) -> datetime | None:
            return None if value is None else utc(datetime.fromisoformat(value))

        marks: dict[str, Mark] = {}
        for name in ("comment_mark", "review_comment_mark", "review_mark"):
            m = body.pop(name, None) or {}
            marks[name] = Mark(dt(m.get("at")), tuple(int(i) for i in m.get("ids") or ()))
        known = {f for f in cls.__dataclass_fields__}
        values: dict[str, Any] = {k: v for k, v in body.items() if k in known}
        values["labels"] = tuple(values.get("labels") or ())
        values["files"] = tuple(tuple(f) for f in values.get("files") or ())
        values["updated_at"] = dt(values.get("updated_at"))
        values["closed_at"] = dt(values.get("closed_at"))
        values["announced"] = tuple((str(k), dt(t)) for k, t in values.get("announced") or ())
        values.update(marks)  # no name in both: the marks were popped from the body
        return cls(**values)

    # ------------------------------------------------------------ questions a poller asks

    def unchanged(self, updated_at: datetime | None) -> bool:
        """True when a listing's `updated_at` says there is nothing new to fetch."""
        return (
            self.updated_at is not None
            and updated_at is not None
            and utc(updated_at) <= self.updated_at
        )

    def file_changes(self) -> tuple[FileChange, ...]:
        return tuple(
            FileChange(path=p, additions=a, deletions=d, status=s) for p, a, d, s in self.files
        )

    def has_new_comments(self, comments: Iterable[CommentInfo]) -> bool:
        """True when some of `comments` were not published yet (per the marks)."""
        return any(
            (self.review_comment_mark if c.on_review else self.comment_mark).is_new(
                c.created_at, c.id
            )
            for c in comments
        )


def state_of(
    item: ItemSnapshot,
    prev: ItemState | None = None,
    *,
    comments: Sequence[CommentInfo] = (),
    reviews: Sequence[ReviewInfo] = (),
) -> ItemState:
    """The state to remember after having published the facts of `item`."""
    base = prev or ItemState(kind=item.kind, state=item.state)
    issue_comments = [(c.created_at, c.id) for c in comments if not c.on_review]
    diff_comments = [(c.created_at, c.id) for c in comments if c.on_review]
    return replace(
        base,
        kind=item.kind,
        state=item.state,
        merged=item.merged_at is not None,
        draft=item.draft,
        labels=item.labels,
        content=content_hash(item),
        updated_at=utc(item.updated_at) if item.updated_at else base.updated_at,
        closed_at=utc(item.closed_at) if item.closed_at else None,
        comments=item.comments,
        review_comments=item.review_comments,
        # a poll's snapshot shows everything up to its updated_at: older announcements are done
        announced=tuple(
            (k, t) for k, t in base.announced if item.updated_at is None or t > utc(item.updated_at)
        ),
        files=tuple((f.path, f.additions, f.deletions, f.status) for f in item.files),
        files_truncated=item.files_truncated,
        reviews=item.reviews,
        comment_mark=base.comment_mark.advance(issue_comments),
        review_comment_mark=base.review_comment_mark.advance(diff_comments),
        review_mark=base.review_mark.advance((r.submitted_at, r.id) for r in reviews),
    )


def derive(
    prev: ItemState | None,
    item: ItemSnapshot,
    *,
    comments: Sequence[CommentInfo] = (),
    reviews: Sequence[ReviewInfo] = (),
    origin: str = "poll",
) -> tuple[list[FactData], ItemState]:
    """The facts between `prev` (None: never seen) and `item`, and the state to store after them.

    `comments` and `reviews` are what the poll fetched for this item (possibly already seen
    ones: the marks in `prev` filter them). Facts come out in GitHub-time order.
    """
    facts: list[FactData] = []
    author = item.author.login

    if prev is None:
        facts.append(item_fact(item, "opened", origin=origin, actor_login=author))
        if item.kind == "pull_request" and item.merged_at is not None:
            facts.append(item_fact(item, "merged", origin=origin, actor_login=item.merged_by))
        elif item.state == "closed" and item.closed_at is not None:
            facts.append(item_fact(item, "closed", origin=origin))
    else:
        told = {key for key, _ in prev.announced}
        if prev.content and prev.content != content_hash(item) and "edited" not in told:
            facts.append(item_fact(item, "edited", origin=origin))
        if item.state == "open" and prev.state == "closed" and "reopened" not in told:
            facts.append(item_fact(item, "reopened", origin=origin))
        if item.kind == "pull_request" and item.merged_at is not None and not prev.merged:
            facts.append(item_fact(item, "merged", origin=origin, actor_login=item.merged_by))
        elif (
            item.merged_at is None
            and item.state == "closed"
            and item.closed_at is not None
            and (prev.state == "open" or prev.closed_at != utc(item.closed_at))
        ):
            # closed since the last poll (or closed, reopened and closed again in between)
            facts.append(item_fact(item, "closed", origin=origin))
        if item.kind == "pull_request" and item.state == "open" and prev.draft != item.draft:
            action = "converted_to_draft" if item.draft else "ready_for_review"
            if action not in told:
                facts.append(item_fact(item, action, origin=origin))
        for label in sorted(set(item.labels) - set(prev.labels)):
            if f"labeled:{label}" not in told:
                facts.append(item_fact(item, "labeled", origin=origin, label=label))

    marks = prev or ItemState(kind=item.kind, state=item.state)
    seen: set[int] = set()
    for c in sorted(comments, key=lambda c: (c.created_at, c.id)):
        mark = marks.review_comment_mark if c.on_review else marks.comment_mark
        if c.id in seen or not mark.is_new(c.created_at, c.id):
            continue
        seen.add(c.id)
        facts.append(comment_fact(item, c, origin=origin))
    seen.clear()
    for r in sorted(reviews, key=lambda r: (r.submitted_at, r.id)):
        if r.id in seen or not marks.review_mark.is_new(r.submitted_at, r.id):
            continue
        seen.add(r.id)
        facts.append(review_fact(item, r, origin=origin))

    facts.sort(key=lambda f: fact_time(f))
    return facts, state_of(item, prev, comments=comments, reviews=reviews)


# ---------------------------------------------------------------- webhooks and polls together

# facts whose time is when they were observed; exactly timed facts get equal ids on both paths
INEXACT = {"edited", "reopened", "labeled", "ready_for_review", "converted_to_draft"}


def announcement(fact: FactData) -> str | None:
    if fact.kind not in ("pull_request", "issue") or fact.action not in INEXACT:
        return None
    return f"labeled:{fact.label}" if fact.action == "labeled" else fact.action


def note_webhook(prev: ItemState | None, fact: FactData) -> ItemState | None:
    """Record in an item's state that a webhook published `fact` (None: nothing to store).

    Only facts timed at observation are recorded (`labeled`, `edited`, `reopened`,
    `ready_for_review`, `converted_to_draft`): the next poll that sees the same transition does
    not publish it again under its own time. Nothing else of the state changes: a delivery that
    was lost must still be caught up by the poll. An item never polled is left to the poll's
    first sight, which reproduces its history and publishes no `labeled` facts.
    """
    key = announcement(fact)
    if prev is None or key is None:
        return None
    when = fact.item.updated_at or fact.item.created_at
    if any(k == key and t == utc(when) for k, t in prev.announced):
        return None
    return replace(prev, announced=prev.announced + ((key, utc(when)),))


def merge_observed(polled: ItemState, stored: ItemState | None) -> ItemState:
    """The state to store after a poll, given what is stored now: the poll's state, plus the
    webhook announcements that arrived while it was fetching and are newer than its snapshot."""
    if stored is None:
        return polled
    upto = polled.updated_at
    keep = [(k, t) for k, t in stored.announced if upto is None or t > upto]
    merged = tuple(dict.fromkeys(tuple(polled.announced) + tuple(keep)))
    return polled if merged == polled.announced else replace(polled, announced=merged)
