"""GraphQL pull-request nodes -> REST shapes -> the same snapshots and fact ids as REST."""

from __future__ import annotations

import pytest

from services.ingest.domain.graphql import (
    PULLS_QUERY,
    GraphqlShapeError,
    pull_from_graphql,
    pull_page,
    variables,
)
from services.ingest.domain.mapping import (
    comment_info,
    review_info,
    snapshot_from_pull,
)
from services.ingest.domain.transitions import derive
from shared.events import make_fact

NODE = {
    "number": 7,
    "title": "[Core] faster scheduler",
    "body": "Speeds it up",
    "url": "https://github.com/o/r/pull/7",
    "author": {"login": "dependabot", "__typename": "Bot"},
    "authorAssociation": "CONTRIBUTOR",
    "createdAt": "2026-06-01T10:00:00Z",
    "updatedAt": "2026-06-03T10:00:00Z",
    "closedAt": "2026-06-02T10:00:00Z",
    "mergedAt": "2026-06-02T10:00:00Z",
    "mergedBy": {"login": "maintainer", "__typename": "User"},
    "isDraft": False,
    "state": "MERGED",
    "labels": {"nodes": [{"name": "ready"}, {"name": "core"}]},
    "additions": 12,
    "deletions": 3,
    "changedFiles": 3,
    "baseRefName": "main",
    "headRefName": "dependabot/pip/torch-2.9",
    "files": {
        "totalCount": 3,
        "nodes": [
            {"path": "a.py", "additions": 10, "deletions": 1, "changeType": "MODIFIED"},
            {"path": "b.py", "additions": 2, "deletions": 0, "changeType": "ADDED"},
        ],
    },
    "comments": {
        "totalCount": 1,
        "nodes": [
            {
                "databaseId": 55,
                "body": "lgtm",
                "createdAt": "2026-06-01T12:00:00Z",
                "author": {"login": "alice", "__typename": "User"},
                "authorAssociation": "MEMBER",
            }
        ],
    },
    "reviews": {
        "totalCount": 2,
        "nodes": [
            {
                "databaseId": 66,
                "state": "APPROVED",
                "submittedAt": "2026-06-01T13:00:00Z",
                "author": {"login": "bob", "__typename": "User"},
                "authorAssociation": "MEMBER",
            },
            {
                "databaseId": 67,
                "state": "PENDING",
                "submittedAt": None,
                "author": {"login": "carol", "__typename": "User"},
                "authorAssociation": "NONE",
            },
        ],
    },
    "reactions": {"totalCount": 4},
}

# what REST answers for the same pull request
REST_PULL = {
    "number": 7,
    "title": "[Core] faster scheduler",
    "body": "Speeds it up",
    "html_url": "https://github.com/o/r/pull/7",
    "user": {"login": "dependabot[bot]", "type": "Bot"},
    "author_association": "CONTRIBUTOR",
    "created_at": "2026-06-01T10:00:00Z",
    "updated_at": "2026-06-03T10:00:00Z",
    "closed_at": "2026-06-02T10:00:00Z",
    "merged_at": "2026-06-02T10:00:00Z",
    "merged_by": {"login": "maintainer"},
    "draft": False,
    "state": "closed",
    "labels": [{"name": "core"}, {"name": "ready"}],
    "additions": 12,
    "deletions": 3,
    "changed_files": 3,
    "base": {"ref": "main"},
    "comments": 1,
    "head": {"ref": "dependabot/pip/torch-2.9", "label": "o:dependabot/pip/torch-2.9"},
}


def test_node_maps_to_the_rest_shapes():
    node = pull_from_graphql(NODE)
    item = snapshot_from_pull(
        "o/r", node.pull, files=node.files, files_truncated=node.files_truncated, reviews=1
    )
    rest = snapshot_from_pull(
        "o/r",
        REST_PULL,
        files=[
            {"filename": "a.py", "additions": 10, "deletions": 1, "status": "modified"},
            {"filename": "b.py", "additions": 2, "deletions": 0, "status": "added"},
        ],
        reviews=1,
    )
    assert item.author.login == "dependabot[bot]" and item.author.is_bot
    assert node.files_truncated and not rest.files_truncated  # 2 of 3 files listed
    same = (
        "number",
        "title",
        "state",
        "merged_at",
        "merged_by",
        "labels",
        "base_branch",
        "head_branch",
        "files",
        "created_at",
        "closed_at",
        "additions",
        "changed_files",
        "comments",
        "author",
    )
    assert {k: getattr(item, k) for k in same} == {k: getattr(rest, k) for k in same}
    assert item.reactions == 4
    assert item.head_branch == "dependabot/pip/torch-2.9"  # headRefName, as REST's head.ref
    assert [f.status for f in item.files] == ["modified", "added"]


def test_facts_and_ids_equal_the_rest_paths():
    node = pull_from_graphql(NODE)
    reviews = [r for r in map(review_info, node.reviews) if r is not None]
    assert [r.id for r in reviews] == [66]  # the pending review is not a fact
    comments = [comment_info(c) for c in node.comments]
    facts, _ = derive(
        None,
        snapshot_from_pull("o/r", node.pull, files=node.files),
        comments=comments,
        reviews=reviews,
    )
    rest_facts, _ = derive(
        None,
        snapshot_from_pull("o/r", REST_PULL),
        comments=[
            comment_info(
                {"id": 55, "user": {"login": "alice"}, "created_at": "2026-06-01T12:00:00Z"}
            )
        ],
        reviews=[
            review_info(
                {
                    "id": 66,
                    "user": {"login": "bob"},
                    "state": "APPROVED",
                    "submitted_at": "2026-06-01T13:00:00Z",
                }
            )
        ],
    )
    assert [f"{f.kind}.{f.action}" for f in facts] == [
        "pull_request.opened",
        "comment.created",
        "review.submitted",
        "pull_request.merged",
    ]
    assert [make_fact(f).id for f in facts] == [make_fact(f).id for f in rest_facts]


@pytest.mark.parametrize(
    "state, rest_state, merged",
    [("OPEN", "open", False), ("CLOSED", "closed", False), ("MERGED", "closed", True)],
)
def test_states(state, rest_state, merged):
    node = dict(NODE, state=state, mergedAt="2026-06-02T10:00:00Z" if merged else None)
    pull = pull_from_graphql(node).pull
    assert (pull["state"], pull["merged"]) == (rest_state, merged)


def test_shape_errors():
    with pytest.raises(GraphqlShapeError, match="'number'"):
        pull_from_graphql({"title": "x"})
    with pytest.raises(GraphqlShapeError, match="no data"):
        pull_page(None)
    with pytest.raises(GraphqlShapeError, match="pullRequests"):
        pull_page({"repository": {}})


def test_page_and_variables():
    page = pull_page(
        {
            "rateLimit": {"cost": 2, "remaining": 4990, "resetAt": "2026-06-01T13:00:00Z"},
            "repository": {
                "pullRequests": {
                    "nodes": [NODE],
                    "pageInfo": {"hasNextPage": True, "endCursor": "Y3Vyc29yOjE="},
                }
            },
        }
    )
    assert (len(page.nodes), page.has_next, page.end_cursor, page.cost, page.remaining) == (
        1,
        True,
        "Y3Vyc29yOjE=",
        2,
        4990,
    )
    v = variables("vllm-project/vllm", first=50, after="c", files=300)
    assert v == {"owner": "vllm-project", "name": "vllm", "first": 50, "after": "c", "files": 100}
    assert "orderBy: {field: UPDATED_AT, direction: DESC}" in PULLS_QUERY
