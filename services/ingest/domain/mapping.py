"""GitHub REST and webhook JSON -> `ItemSnapshot` / `FactData`: one mapping for polls and webhooks.

Pure: standard library and `shared.events` only. Both paths build facts from the same GitHub times
(created_at, merged_at, closed_at, a comment's created_at, a review's submitted_at) through
`make_fact`, so a transition seen by a webhook and by a poll gets the same deterministic id.

Old recordings (2012-era REST responses) lack modern fields (`draft`, `node_id`,
`author_association`, `reactions`, `merged_by`); every such field is optional here. In those
recordings an issue carries `pull_request: {"html_url": null, ...}`: only a non-null URL marks a
pull request.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from shared.events import Actor, CommentInfo, FactData, FileChange, ItemSnapshot, ReviewInfo
from shared.events.github import FILES_CAP, commit_sha

Json = Mapping[str, Any]

# webhook actions that are facts; every other action of these events is acknowledged and ignored
PR_ACTIONS = {
    "opened",
    "closed",
    "reopened",
    "edited",
    "labeled",
    "ready_for_review",
    "converted_to_draft",
}
ISSUE_ACTIONS = {"opened", "closed", "reopened", "edited", "labeled"}
SUPPORTED_EVENTS = {
    "pull_request",
    "issues",
    "issue_comment",
    "pull_request_review",
    "pull_request_review_comment",
}


COMMENT_ACTIONS = {"created"}
REVIEW_ACTIONS = {"submitted"}
FACT_ACTIONS = {
    "pull_request": PR_ACTIONS,
    "issues": ISSUE_ACTIONS,
    "issue_comment": COMMENT_ACTIONS,
    "pull_request_review": REVIEW_ACTIONS,
    "pull_request_review_comment": COMMENT_ACTIONS,
}

# why the events that are not facts are acknowledged and ignored
EVENT_REASONS = {
    "label": "a label definition was created, edited or deleted; putting a label on an item "
    "arrives as pull_request.labeled or issues.labeled",
    "push": "pushes are not reported; merged pull requests are",
    "release": "releases are not pull request or issue activity",
}


def ignore_reason(event: str, action: str) -> str:
    """Why a delivery of `event` with `action` publishes no fact (acknowledged, not an error)."""
    if event not in SUPPORTED_EVENTS:
        return EVENT_REASONS.get(event, f"{event} events are not pull request or issue activity")
    facts = ", ".join(sorted(FACT_ACTIONS[event]))
    if event in ("pull_request", "issues") and action == "synchronize":
        return "new commits on a pull request are not a fact (its changed files are read when it is merged)"
    if event == "pull_request_review" and action == "submitted":
        return "a pending review is not a fact until it is submitted"
    return f"{event}.{action or '?'} is not a fact repodigest reports (facts of {event}: {facts})"


class MappingError(ValueError):
    """A GitHub payload lacks what a fact needs (a contract violation, not a transient failure)."""


def parse_time(value: Any) -> datetime | None:
    """GitHub's ISO 8601 times (`2012-05-27T10:29:07Z`); None stays None."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value
    text = str(value)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise MappingError(f"not a GitHub timestamp: {value!r}") from exc


def _req(obj: Json, key: str, what: str) -> Any:
    value = obj.get(key)
    if value is None:
        raise MappingError(f"{what} has no {key!r}")
    return value


def actor(user: Json | None, association: str | None = None) -> Actor:
    """A GitHub user object as an `Actor` (deleted users come back as `ghost`)."""
    if not user:
        return Actor(login="ghost", association=association or "NONE")
    login = str(user.get("login") or "ghost")
    is_bot = user.get("type") == "Bot" or login.endswith("[bot]")
    return Actor(login=login, association=association or "NONE", is_bot=is_bot)


def is_pull_request(issue: Json) -> bool:
    """True for the issue view of a pull request (modern `pull_request.url` is set)."""
    pr = issue.get("pull_request")
    if not isinstance(pr, Mapping):
        return False
    return bool(pr.get("url") or pr.get("html_url"))


def _labels(obj: Json) -> tuple[str, ...]:
    names = []
    for label in obj.get("labels") or ():
        name = label.get("name") if isinstance(label, Mapping) else label
        if name:
            names.append(str(name))
    return tuple(sorted(set(names)))


def _reactions(obj: Json) -> int:
    reactions = obj.get("reactions")
    if isinstance(reactions, Mapping):
        return int(reactions.get("total_count") or 0)
    return 0


def _html_url(obj: Json) -> str | None:
    url = obj.get("html_url")
    return str(url) if url else None


def snapshot_from_issue(repo: str, issue: Json) -> ItemSnapshot:
    """The issue JSON (REST listing, `GET /issues/N`, or a webhook's `issue`) as a snapshot."""
    kind = "pull_request" if is_pull_request(issue) else "issue"
    return ItemSnapshot(
        repo=repo,
        number=int(_req(issue, "number", "issue")),
        kind=kind,
        title=str(issue.get("title") or ""),
        url=_html_url(issue),
        author=actor(issue.get("user"), issue.get("author_association")),
        labels=_labels(issue),
        state="closed" if issue.get("state") == "closed" else "open",
        draft=bool(issue.get("draft") or False),
        created_at=parse_time(_req(issue, "created_at", "issue")),
        updated_at=parse_time(issue.get("updated_at")),
        closed_at=parse_time(issue.get("closed_at")),
        comments=int(issue.get("comments") or 0),
        reactions=_reactions(issue),
        body_excerpt=issue.get("body") or "",
    )


def file_changes(
    files: Iterable[Json], cap: int = FILES_CAP
) -> tuple[tuple[FileChange, ...], bool]:
    """`GET /pulls/N/files` entries, capped; the flag says whether some were left out."""
    out: list[FileChange] = []
    truncated = False
    for f in files:
        if len(out) >= cap:
            truncated = True
            break
        out.append(
            FileChange(
                path=str(_req(f, "filename", "pull request file")),
                additions=int(f.get("additions") or 0),
                deletions=int(f.get("deletions") or 0),
                status=f.get("status"),
            )
        )
    return tuple(out), truncated


def snapshot_from_pull(
    repo: str,
    pr: Json,
    *,
    files: Iterable[Json] | None = None,
    files_truncated: bool = False,
    reviews: int | None = None,
    issue: Json | None = None,
) -> ItemSnapshot:
    """A pull request (REST `GET /pulls/N`, a `/pulls` listing entry, or a webhook's
    `pull_request`) as a snapshot. `issue`, when given, supplies fields only the issue view has
    (reactions; comments in listings)."""
    changes, truncated = file_changes(files) if files is not None else ((), False)
    merged_by = pr.get("merged_by")
    base, head = pr.get("base"), pr.get("head")
    merged_at = parse_time(pr.get("merged_at"))
    if merged_at is None and pr.get("merged") is True:
        # some old recordings say merged without the time; closed_at is when it was merged
        merged_at = parse_time(pr.get("closed_at"))
    extra = issue or {}
    return ItemSnapshot(
        repo=repo,
        number=int(_req(pr, "number", "pull request")),
        kind="pull_request",
        title=str(pr.get("title") or ""),
        url=_html_url(pr),
        author=actor(pr.get("user"), pr.get("author_association")),
        labels=_labels(pr),
        state="closed" if pr.get("state") == "closed" else "open",
        draft=bool(pr.get("draft") or False),
        created_at=parse_time(_req(pr, "created_at", "pull request")),
        updated_at=parse_time(pr.get("updated_at")),
        closed_at=parse_time(pr.get("closed_at")),
        merged_at=merged_at,
        merged_by=merged_by.get("login") if isinstance(merged_by, Mapping) else None,
        comments=int(pr.get("comments") or extra.get("comments") or 0),
        review_comments=int(pr.get("review_comments") or 0),
        reviews=int(reviews or 0),
        reactions=_reactions(extra) or _reactions(pr),
        additions=pr.get("additions"),
        deletions=pr.get("deletions"),
        changed_files=pr.get("changed_files"),
        files=changes,
        files_truncated=files_truncated or truncated,
        base_branch=base.get("ref") if isinstance(base, Mapping) else None,
        head_branch=head.get("ref") if isinstance(head, Mapping) else None,
        # GitHub fills merge_commit_sha before the merge too (a test merge): kept once merged
        merge_commit_sha=commit_sha(pr.get("merge_commit_sha")) if merged_at is not None else None,
        body_excerpt=pr.get("body") or "",
    )


def comment_info(comment: Json, *, on_review: bool = False) -> CommentInfo:
    """An issue comment or a pull request review (diff) comment."""
    return CommentInfo(
        id=int(_req(comment, "id", "comment")),
        author=actor(comment.get("user"), comment.get("author_association")),
        created_at=parse_time(_req(comment, "created_at", "comment")),
        body_excerpt=comment.get("body") or "",
        on_review=on_review,
    )


def review_info(review: Json) -> ReviewInfo | None:
    """A submitted review; a pending (unsubmitted) review is not a fact and maps to None."""
    submitted = review.get("submitted_at")
    state = str(review.get("state") or "").upper()
    if not submitted or state == "PENDING":
        return None
    return ReviewInfo(
        id=int(_req(review, "id", "review")),
        author=actor(review.get("user"), review.get("author_association")),
        state=state,
        submitted_at=parse_time(submitted),
    )


def content_hash(item: ItemSnapshot) -> str:
    """What an `edited` fact is about: title, body and base branch."""
    text = "\x1f".join((item.title, item.body_excerpt, item.base_branch or ""))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# ---------------------------------------------------------------- fact builders


def item_fact(
    item: ItemSnapshot,
    action: str,
    *,
    origin: str,
    actor_login: str | None = None,
    label: str | None = None,
) -> FactData:
    return FactData(
        repo=item.repo,
        kind=item.kind,
        action=action,
        item=item,
        actor=actor_login,
        label=label,
        origin=origin,
    )


def comment_fact(item: ItemSnapshot, comment: CommentInfo, *, origin: str) -> FactData:
    return FactData(
        repo=item.repo,
        kind="comment",
        action="created",
        item=item,
        actor=comment.author.login,
        comment=comment,
        origin=origin,
    )


def review_fact(item: ItemSnapshot, review: ReviewInfo, *, origin: str) -> FactData:
    return FactData(
        repo=item.repo,
        kind="review",
        action="submitted",
        item=item,
        actor=review.author.login,
        review=review,
        origin=origin,
    )


# ---------------------------------------------------------------- webhooks


def webhook_repo(payload: Json) -> str | None:
    repo = payload.get("repository")
    if isinstance(repo, Mapping) and repo.get("full_name"):
        return str(repo["full_name"])
    return None


def facts_from_webhook(event: str, payload: Json) -> list[FactData]:
    """The facts one webhook delivery carries ([] for actions that are not facts).

    Raises `MappingError` when a supported event lacks what its fact needs.
    """
    action = str(payload.get("action") or "")
    repo = webhook_repo(payload)
    if event not in SUPPORTED_EVENTS:
        return []
    if repo is None:
        raise MappingError(f"{event} delivery has no repository.full_name")
    sender = payload.get("sender")
    sender_login = sender.get("login") if isinstance(sender, Mapping) else None
    origin = "webhook"

    if event == "pull_request":
        if action not in PR_ACTIONS:
            return []
        item = snapshot_from_pull(repo, _req(payload, "pull_request", event))
        if action == "closed":
            action = "merged" if item.merged_at is not None else "closed"
        label = _label_name(payload) if action == "labeled" else None
        if action == "labeled" and label is None:
            raise MappingError("pull_request labeled delivery has no label.name")
        return [item_fact(item, action, origin=origin, actor_login=sender_login, label=label)]

    if event == "issues":
        if action not in ISSUE_ACTIONS:
            return []
        item = snapshot_from_issue(repo, _req(payload, "issue", event))
        label = _label_name(payload) if action == "labeled" else None
        if action == "labeled" and label is None:
            raise MappingError("issues labeled delivery has no label.name")
        return [item_fact(item, action, origin=origin, actor_login=sender_login, label=label)]

    if event == "issue_comment":
        if action != "created":
            return []
        item = snapshot_from_issue(repo, _req(payload, "issue", event))
        return [comment_fact(item, comment_info(_req(payload, "comment", event)), origin=origin)]

    if event == "pull_request_review":
        if action != "submitted":
            return []
        item = snapshot_from_pull(repo, _req(payload, "pull_request", event))
        review = review_info(_req(payload, "review", event))
        return [] if review is None else [review_fact(item, review, origin=origin)]

    if event == "pull_request_review_comment":
        if action != "created":
            return []
        item = snapshot_from_pull(repo, _req(payload, "pull_request", event))
        comment = comment_info(_req(payload, "comment", event), on_review=True)
        return [comment_fact(item, comment, origin=origin)]
    return []


def _label_name(payload: Json) -> str | None:
    label = payload.get("label")
    if isinstance(label, Mapping) and label.get("name"):
        return str(label["name"])
    return None
