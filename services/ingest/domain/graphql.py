"""GitHub GraphQL (v4) pull-request pages -> the REST JSON shapes `mapping` already reads.

Pure: standard library and `shared.events` only. The backfill asks for many pull requests per
request, each with its labels, changed files, submitted reviews and issue comments. Each node is
turned into what REST would have answered (`GET /pulls/N`, `/pulls/N/files`, `/pulls/N/reviews`,
`/issues/N/comments`) so one mapping (`mapping.snapshot_from_pull`, `review_info`,
`comment_info`) and one transition logic serve both paths: the same facts, the same ids.

Known differences from REST, none of which enter an id: a bot's GraphQL login lacks the `[bot]`
suffix (added back from `__typename`); GraphQL counts reactions on the pull request itself; diff
(review) comments are not asked for (the REST comment listing brings them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shared.events.github import FILES_CAP

Json = Mapping[str, Any]

PAGE_SIZE = 50  # pull requests per request: 50 x 4 nested connections ~ 2 points

PULLS_QUERY = """
query($owner: String!, $name: String!, $first: Int!, $after: String, $files: Int!) {
  rateLimit { cost remaining resetAt }
  repository(owner: $owner, name: $name) {
    pullRequests(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
      nodes {
        number title body url author { login __typename } authorAssociation
        createdAt updatedAt closedAt mergedAt mergedBy { login __typename } isDraft state
        mergeCommit { oid }
        labels(first: 20) { nodes { name } }
        additions deletions changedFiles baseRefName headRefName
        files(first: $files) { totalCount nodes { path additions deletions changeType } }
        comments(first: 50) { totalCount nodes { databaseId body createdAt
          author { login __typename } authorAssociation } }
        reviews(first: 50) { totalCount nodes { databaseId state submittedAt
          author { login __typename } authorAssociation } }
        reactions { totalCount }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}
""".strip()

# GraphQL's PatchStatus -> REST's file `status`
CHANGE_TYPES = {
    "ADDED": "added",
    "DELETED": "removed",
    "MODIFIED": "modified",
    "RENAMED": "renamed",
    "COPIED": "copied",
    "CHANGED": "changed",
}


class GraphqlShapeError(ValueError):
    """A GraphQL answer without what the query asked for (a contract violation)."""


def variables(
    repo: str, *, first: int = PAGE_SIZE, after: str | None = None, files: int = FILES_CAP
) -> dict[str, Any]:
    owner, name = repo.split("/", 1)
    return {"owner": owner, "name": name, "first": first, "after": after, "files": min(100, files)}


def _user(node: Any) -> dict[str, Any] | None:
    """A GraphQL actor as a REST user; bots get REST's `[bot]` login suffix back."""
    if not isinstance(node, Mapping) or not node.get("login"):
        return None
    login = str(node["login"])
    bot = node.get("__typename") == "Bot"
    if bot and not login.endswith("[bot]"):
        login += "[bot]"
    return {"login": login, "type": "Bot" if bot else "User"}


def _nodes(conn: Any) -> list[Json]:
    if not isinstance(conn, Mapping):
        return []
    return [n for n in conn.get("nodes") or () if isinstance(n, Mapping)]


def _total(conn: Any) -> int:
    return int(conn.get("totalCount") or 0) if isinstance(conn, Mapping) else 0


@dataclass(frozen=True)
class PullNode:
    """One GraphQL pull request in REST shapes."""

    pull: dict[str, Any]
    files: list[dict[str, Any]]
    files_truncated: bool
    reviews: list[dict[str, Any]]
    comments: list[dict[str, Any]]
    comments_complete: bool  # every issue comment is in `comments`


def pull_from_graphql(node: Json) -> PullNode:
    """A `pullRequests.nodes[]` entry as REST JSON (pull detail, files, reviews, comments)."""
    for key in ("number", "createdAt"):
        if node.get(key) is None:
            raise GraphqlShapeError(f"a pull request node has no {key!r}")
    state = str(node.get("state") or "OPEN").upper()
    merged_by = _user(node.get("mergedBy"))
    pull = {
        "number": int(node["number"]),
        "title": node.get("title") or "",
        "body": node.get("body") or "",
        "html_url": node.get("url"),
        "user": _user(node.get("author")),
        "author_association": node.get("authorAssociation"),
        "created_at": node.get("createdAt"),
        "updated_at": node.get("updatedAt"),
        "closed_at": node.get("closedAt"),
        "merged_at": node.get("mergedAt"),
        "merged": state == "MERGED" or node.get("mergedAt") is not None,
        "merged_by": merged_by,
        "merge_commit_sha": (node.get("mergeCommit") or {}).get("oid"),
        "draft": bool(node.get("isDraft")),
        "state": "open" if state == "OPEN" else "closed",
        "labels": [{"name": n["name"]} for n in _nodes(node.get("labels")) if n.get("name")],
        "additions": node.get("additions"),
        "deletions": node.get("deletions"),
        "changed_files": node.get("changedFiles"),
        "base": {"ref": node.get("baseRefName")} if node.get("baseRefName") else None,
        "head": {"ref": node.get("headRefName")} if node.get("headRefName") else None,
        "comments": _total(node.get("comments")),
        "reactions": {"total_count": _total(node.get("reactions"))},
    }
    files_conn = node.get("files")
    files = [
        {
            "filename": f.get("path"),
            "additions": f.get("additions") or 0,
            "deletions": f.get("deletions") or 0,
            "status": CHANGE_TYPES.get(str(f.get("changeType") or "").upper()),
        }
        for f in _nodes(files_conn)
    ]
    total_files = _total(files_conn) or int(node.get("changedFiles") or 0)
    reviews = [
        {
            "id": r.get("databaseId"),
            "user": _user(r.get("author")),
            "author_association": r.get("authorAssociation"),
            "state": r.get("state"),
            "submitted_at": r.get("submittedAt"),
        }
        for r in _nodes(node.get("reviews"))
        if r.get("databaseId") is not None
    ]
    comment_nodes = _nodes(node.get("comments"))
    comments = [
        {
            "id": c.get("databaseId"),
            "user": _user(c.get("author")),
            "author_association": c.get("authorAssociation"),
            "body": c.get("body") or "",
            "created_at": c.get("createdAt"),
        }
        for c in comment_nodes
        if c.get("databaseId") is not None
    ]
    return PullNode(
        pull=pull,
        files=files,
        files_truncated=total_files > len(files),
        reviews=reviews,
        comments=comments,
        comments_complete=len(comment_nodes) >= _total(node.get("comments")),
    )


@dataclass(frozen=True)
class PullPage:
    nodes: list[Json]
    has_next: bool
    end_cursor: str | None
    cost: int | None
    remaining: int | None
    reset_at: str | None


def pull_page(data: Any) -> PullPage:
    """The `data` of a `PULLS_QUERY` answer as a page; None repository: not found."""
    if not isinstance(data, Mapping):
        raise GraphqlShapeError("the GraphQL answer has no data")
    repo = data.get("repository")
    if not isinstance(repo, Mapping):
        raise GraphqlShapeError("the GraphQL answer has no repository")
    conn = repo.get("pullRequests")
    if not isinstance(conn, Mapping):
        raise GraphqlShapeError("the GraphQL answer has no repository.pullRequests")
    info = conn.get("pageInfo") or {}
    limit = data.get("rateLimit") or {}
    cost = limit.get("cost")
    remaining = limit.get("remaining")
    return PullPage(
        nodes=_nodes(conn),
        has_next=bool(info.get("hasNextPage")),
        end_cursor=info.get("endCursor"),
        cost=int(cost) if cost is not None else None,
        remaining=int(remaining) if remaining is not None else None,
        reset_at=limit.get("resetAt"),
    )
