"""Transitions between an item's last known state and a fresh snapshot (table-driven, pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.ingest.domain.mapping import facts_from_webhook
from services.ingest.domain.transitions import ItemState, Mark, derive
from shared.events import Actor, CommentInfo, ItemSnapshot, ReviewInfo, make_fact

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
REPO = "octo/repo"


def snap(**kw) -> ItemSnapshot:
    base = dict(
        repo=REPO,
        number=7,
        kind="pull_request",
        title="Add x",
        author=Actor(login="alice"),
        state="open",
        created_at=T0,
        updated_at=T0,
    )
    base.update(kw)
    return ItemSnapshot(**base)


def actions(facts) -> list[str]:
    return [f"{f.kind}.{f.action}" + (f":{f.label}" if f.label else "") for f in facts]


def test_first_sight_of_merged_pr_reproduces_history():
    merged = T0 + timedelta(hours=5)
    facts, state = derive(
        None,
        snap(
            state="closed", closed_at=merged, merged_at=merged, updated_at=merged, labels=("bug",)
        ),
    )
    assert actions(facts) == ["pull_request.opened", "pull_request.merged"]
    assert [make_fact(f).time for f in facts] == [T0, merged]
    assert state.merged and state.state == "closed" and state.labels == ("bug",)


def test_first_sight_of_closed_issue():
    closed = T0 + timedelta(days=1)
    facts, _ = derive(None, snap(kind="issue", state="closed", closed_at=closed, updated_at=closed))
    assert actions(facts) == ["issue.opened", "issue.closed"]
    assert make_fact(facts[1]).time == closed


def test_nothing_changed_means_no_facts():
    item = snap(labels=("a",))
    _, state = derive(None, item)
    facts, again = derive(state, item)
    assert facts == [] and again == state


@pytest.mark.parametrize(
    "before,after,expected",
    [
        (
            dict(),
            dict(state="closed", closed_at=T0 + timedelta(1), merged_at=T0 + timedelta(1)),
            ["pull_request.merged"],
        ),
        (dict(), dict(state="closed", closed_at=T0 + timedelta(1)), ["pull_request.closed"]),
        (
            dict(state="closed", closed_at=T0 + timedelta(1)),
            dict(state="open"),
            ["pull_request.reopened"],
        ),
        (dict(draft=True), dict(draft=False), ["pull_request.ready_for_review"]),
        (dict(draft=False), dict(draft=True), ["pull_request.converted_to_draft"]),
        (
            dict(labels=("a",)),
            dict(labels=("a", "c", "b")),
            ["pull_request.labeled:b", "pull_request.labeled:c"],
        ),
        (dict(title="Add x"), dict(title="Add y"), ["pull_request.edited"]),
        (dict(labels=("a",)), dict(labels=()), []),  # unlabeled is not a fact
        (
            dict(state="closed", closed_at=T0 + timedelta(1)),
            dict(state="closed", closed_at=T0 + timedelta(2)),
            ["pull_request.closed"],
        ),
    ],
)
def test_transitions(before, after, expected):
    _, state = derive(None, snap(**before))
    later = dict(before, updated_at=T0 + timedelta(days=3))
    later.update(after)
    facts, new_state = derive(state, snap(**later))
    assert actions(facts) == expected
    assert new_state.updated_at == T0 + timedelta(days=3)


def test_comments_and_reviews_are_emitted_once_including_equal_timestamps():
    c1 = CommentInfo(id=1, author=Actor(login="b"), created_at=T0 + timedelta(minutes=1))
    c2 = CommentInfo(id=2, author=Actor(login="c"), created_at=T0 + timedelta(minutes=1))
    r1 = ReviewInfo(
        id=9, author=Actor(login="d"), state="APPROVED", submitted_at=T0 + timedelta(minutes=2)
    )
    facts, state = derive(None, snap(comments=1), comments=[c1], reviews=[r1])
    assert actions(facts) == ["pull_request.opened", "comment.created", "review.submitted"]
    # the next poll sees the same listings plus a comment with the very same timestamp
    facts, state = derive(
        state,
        snap(comments=2, updated_at=T0 + timedelta(minutes=3)),
        comments=[c1, c2],
        reviews=[r1],
    )
    assert actions(facts) == ["comment.created"] and facts[0].comment.id == 2
    facts, _ = derive(
        state,
        snap(comments=2, updated_at=T0 + timedelta(minutes=3)),
        comments=[c1, c2],
        reviews=[r1],
    )
    assert facts == []


def test_state_round_trips_through_json():
    c1 = CommentInfo(id=1, author=Actor(login="b"), created_at=T0, on_review=True)
    from shared.events import FileChange

    files = (FileChange(path="a.py", additions=3, deletions=1, status="modified"),)
    _, state = derive(
        None, snap(labels=("x", "y"), draft=True, files=files, reviews=2), comments=[c1]
    )
    assert ItemState.from_json(state.to_json()) == state
    assert state.file_changes() == files and state.reviews == 2
    assert state.review_comment_mark == Mark(T0, (1,))


def test_poll_and_webhook_agree_on_ids_for_exactly_timed_facts():
    import json

    from tests.conftest import require_shared_data

    payload = json.loads(
        require_shared_data("github-webhooks", "pull_request", "closed.payload.json").read_text(
            "utf-8"
        )
    )
    (hook,) = facts_from_webhook("pull_request", payload)
    from services.ingest.domain.mapping import snapshot_from_pull

    polled = snapshot_from_pull(hook.repo, payload["pull_request"])
    prev_item = polled.model_copy(update={"state": "open", "closed_at": None})
    _, prev = derive(None, prev_item)
    facts, _ = derive(prev, polled)
    assert [make_fact(f).id for f in facts] == [make_fact(hook).id]
    assert facts[0].origin == "poll" and hook.origin == "webhook"


def test_has_new_comments_follows_the_marks_per_comment_kind():
    c1 = CommentInfo(id=1, author=Actor(login="b"), created_at=T0)
    r1 = CommentInfo(id=5, author=Actor(login="b"), created_at=T0, on_review=True)
    _, state = derive(None, snap(), comments=[c1])
    assert not state.has_new_comments([c1])
    assert state.has_new_comments([r1])  # a review comment has its own mark
    later = CommentInfo(id=2, author=Actor(login="c"), created_at=T0 - timedelta(seconds=1))
    assert not state.has_new_comments([later])  # older than the mark: already handled


def test_webhook_announced_transitions_are_not_published_again_by_the_poll():
    from services.ingest.domain.mapping import item_fact
    from services.ingest.domain.transitions import note_webhook

    _, polled = derive(None, snap(draft=True))
    t_hook = T0 + timedelta(minutes=5)
    hooked = snap(draft=False, labels=("bug",), updated_at=t_hook)
    state = polled
    for fact in (
        item_fact(hooked, "labeled", origin="webhook", label="bug"),
        item_fact(hooked, "ready_for_review", origin="webhook"),
        item_fact(hooked, "opened", origin="webhook"),
    ):  # exact: not recorded
        state = note_webhook(state, fact) or state
    assert {k for k, _ in state.announced} == {"labeled:bug", "ready_for_review"}
    assert note_webhook(None, item_fact(hooked, "labeled", origin="webhook", label="bug")) is None

    # the poll sees the item later still (something else happened): nothing is published twice
    later = snap(draft=False, labels=("bug", "perf"), updated_at=t_hook + timedelta(minutes=1))
    facts, after = derive(state, later)
    assert actions(facts) == ["pull_request.labeled:perf"]
    assert after.announced == ()  # consumed: a later real re-label is published again


def test_poll_snapshot_older_than_the_announcement_keeps_it():
    from services.ingest.domain.mapping import item_fact
    from services.ingest.domain.transitions import merge_observed, note_webhook

    _, polled = derive(None, snap())
    hooked = snap(labels=("bug",), updated_at=T0 + timedelta(minutes=5))
    stored = note_webhook(polled, item_fact(hooked, "labeled", origin="webhook", label="bug"))
    # a poll that read its snapshot before the label, and writes after the webhook did
    facts, fresh = derive(polled, snap(updated_at=T0 + timedelta(minutes=1)))
    assert facts == []
    merged = merge_observed(fresh, stored)
    assert [k for k, _ in merged.announced] == ["labeled:bug"]
    facts, _ = derive(merged, hooked.model_copy(update={"updated_at": T0 + timedelta(minutes=9)}))
    assert facts == []
