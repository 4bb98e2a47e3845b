"""GitHub REST / webhook JSON -> snapshots and facts, on the real recorded payloads."""

from __future__ import annotations

import ast
import json

import pytest

from services.ingest.domain.mapping import (
    MappingError,
    comment_info,
    facts_from_webhook,
    is_pull_request,
    review_info,
    snapshot_from_issue,
    snapshot_from_pull,
)
from shared.events import make_fact
from tests.conftest import require_shared_data

pytestmark = pytest.mark.shared_data


def exchanges(name: str) -> list[tuple[str, int, dict, object]]:
    """(path, status, headers, body) of each exchange in a PyGithub replay file."""
    path = require_shared_data("github-rest-replay", name)
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for i in range(0, len(lines) - 9, 11):
        block = lines[i : i + 10]
        body = json.loads(block[9]) if block[9].strip() else None
        out.append((block[4], int(block[7]), dict(ast.literal_eval(block[8])), body))
    return out


def webhook(event: str, name: str) -> dict:
    return json.loads(require_shared_data("github-webhooks", event, name).read_text("utf-8"))


def test_old_issue_listing_is_tolerated_and_not_taken_for_pull_requests():
    _, _, _, body = exchanges("Repository.testGetIssues.txt")[0]
    snaps = [snapshot_from_issue("PyGithub/PyGithub", issue) for issue in body]
    assert len(snaps) == len(body)
    # 2012 recordings carry pull_request: {html_url: null}: those are issues
    assert all(s.kind == "issue" for s in snaps)
    assert all(not is_pull_request(i) for i in body)
    by_number = {s.number: s for s in snaps}
    raw = {i["number"]: i for i in body}
    for number, snap in by_number.items():
        assert snap.labels == tuple(sorted(label["name"] for label in raw[number]["labels"]))
        assert snap.author.login == raw[number]["user"]["login"]
        assert snap.author.association == "NONE"  # absent in 2012
        assert snap.draft is False


def test_pull_request_detail_maps_merge_and_size():
    detail = next(
        b
        for p, s, h, b in exchanges("PullRequest.setUp.txt")
        if p == "/repos/PyGithub/PyGithub/pulls/31"
    )
    files = exchanges("PullRequest.testGetFiles.txt")[0][3]
    snap = snapshot_from_pull("PyGithub/PyGithub", detail, files=files)
    assert snap.kind == "pull_request" and snap.state == "closed"
    assert snap.merged_at is not None and snap.merged_at.isoformat().startswith(
        detail["merged_at"][:19]
    )
    assert snap.merged_by == detail["merged_by"]["login"]
    assert (snap.additions, snap.deletions, snap.changed_files) == (
        detail["additions"],
        detail["deletions"],
        detail["changed_files"],
    )
    assert [f.path for f in snap.files] == [f["filename"] for f in files]
    assert snap.base_branch == detail["base"]["ref"]


def test_head_branch_comes_from_the_recorded_pull_requests():
    """REST detail and listing answers carry `head.ref` (a fork's branch name, without `owner:`)."""
    seen = {}
    for name in ("PullRequest.setUp.txt", "Issue131.testGetPullsWithOrgHeadUser.txt"):
        for path, _, _, body in exchanges(name):
            for pr in body if isinstance(body, list) else [body]:
                if isinstance(pr, dict) and isinstance(pr.get("head"), dict):
                    repo = "/".join(path.split("/")[2:4])
                    snap = snapshot_from_pull(repo, pr)
                    assert snap.head_branch == pr["head"]["ref"]
                    seen[(repo, snap.number)] = snap.head_branch
    assert seen[("FlorentClarret/PyGithub", 2)] == "feature/pr-maintainer-can-modify"
    assert seen[("PyGithub/PyGithub", 31)] == "master"
    assert "rebased/develop/virtualjob_extlink" in seen.values()
    # an issue has none, and a pull request whose head repository was deleted may lack it
    assert (
        snapshot_from_issue("o/r", exchanges("Repository.testGetIssues.txt")[0][3][0]).head_branch
        is None
    )
    pr = dict(
        next(
            b
            for p, s, h, b in exchanges("PullRequest.setUp.txt")
            if p == "/repos/PyGithub/PyGithub/pulls/31"
        )
    )
    pr["head"] = None
    assert snapshot_from_pull("PyGithub/PyGithub", pr).head_branch is None


def test_events_logged_before_head_branch_still_read():
    """An event file written before `head_branch` existed validates; the field reads as None."""
    detail = next(
        b
        for p, s, h, b in exchanges("PullRequest.setUp.txt")
        if p == "/repos/FlorentClarret/PyGithub/pulls/2"
    )
    from services.ingest.domain.mapping import item_fact
    from shared.events import GITHUB_EVENT_ADAPTER

    event = make_fact(
        item_fact(snapshot_from_pull("FlorentClarret/PyGithub", detail), "opened", origin="poll")
    )
    raw = json.loads(event.to_bytes())
    assert raw["data"]["item"]["head_branch"] == "feature/pr-maintainer-can-modify"
    del raw["data"]["item"]["head_branch"]
    old = GITHUB_EVENT_ADAPTER.validate_python(raw)
    assert old.id == event.id and old.data.item.head_branch is None


def test_old_pull_listing_entry_without_modern_fields():
    _, _, _, body = exchanges("Repository.testGetPullsWithArguments.txt")[0]
    for pr in body:
        for key in ("draft", "node_id", "merged_by", "additions"):
            pr.pop(key, None)
        snap = snapshot_from_pull("PyGithub/PyGithub", pr)
        assert snap.draft is False and snap.additions is None
        assert (snap.merged_at is not None) == bool(pr.get("merged_at"))


def test_files_are_capped():
    files = exchanges("PullRequest.testGetFiles.txt")[0][3]
    from services.ingest.domain.mapping import file_changes

    kept, truncated = file_changes(files, cap=10)
    assert len(kept) == 10 and truncated
    kept, truncated = file_changes(files, cap=len(files))
    assert len(kept) == len(files) and not truncated


def test_reviews_and_comments():
    reviews = exchanges("PullRequestReview.testAttributes.txt")[0][3]
    mapped = [review_info(r) for r in reviews]
    assert [m.id for m in mapped if m] == [r["id"] for r in reviews if r.get("submitted_at")]
    assert review_info({"id": 1, "state": "PENDING", "user": {"login": "a"}}) is None
    comments = exchanges("Issue.testGetComments.txt")[0][3]
    infos = [comment_info(c) for c in comments]
    assert [c.author.login for c in infos] == [c["user"]["login"] for c in comments]


@pytest.mark.parametrize(
    "event,name,kind,action",
    [
        ("pull_request", "opened.payload.json", "pull_request", "opened"),
        ("pull_request", "closed.payload.json", "pull_request", "closed"),
        ("pull_request", "reopened.payload.json", "pull_request", "reopened"),
        ("pull_request", "labeled.payload.json", "pull_request", "labeled"),
        ("pull_request", "ready_for_review.payload.json", "pull_request", "ready_for_review"),
        ("pull_request", "converted_to_draft.payload.json", "pull_request", "converted_to_draft"),
        ("pull_request", "opened.with-null-body.json", "pull_request", "opened"),
        ("issues", "opened.payload.json", "issue", "opened"),
        ("issues", "reopened.payload.json", "issue", "reopened"),
        ("issues", "labeled.payload.json", "issue", "labeled"),
        ("issues", "edited.payload.json", "issue", "edited"),
        ("issue_comment", "created.payload.json", "comment", "created"),
        ("pull_request_review", "submitted.payload.json", "review", "submitted"),
        ("pull_request_review_comment", "created.payload.json", "comment", "created"),
    ],
)
def test_webhook_deliveries_map_to_one_fact(event, name, kind, action):
    payload = webhook(event, name)
    facts = facts_from_webhook(event, payload)
    assert len(facts) == 1
    fact = facts[0]
    assert (fact.kind, fact.action) == (kind, action)
    assert fact.repo == payload["repository"]["full_name"] and fact.origin == "webhook"
    if action == "labeled":
        assert fact.label == payload["label"]["name"]
    if "pull_request" in payload:  # the head ref name travels in the snapshot (labeler head-branch)
        assert fact.item.head_branch == payload["pull_request"]["head"]["ref"] == "changes"
    else:
        assert fact.item.head_branch is None
    make_fact(fact)  # a valid typed event


@pytest.mark.parametrize(
    "event,name",
    [
        ("pull_request", "assigned.payload.json"),
        ("pull_request", "synchronize.payload.json"),
        ("issues", "pinned.payload.json"),
        ("issue_comment", "edited.payload.json"),
        ("push", "payload.json"),
        ("label", "created.payload.json"),
    ],
)
def test_webhook_actions_that_are_not_facts(event, name):
    assert facts_from_webhook(event, webhook(event, name)) == []


def test_merged_closed_webhook_is_a_merge():
    payload = webhook("pull_request", "closed.payload.json")
    payload = json.loads(json.dumps(payload))
    payload["pull_request"]["merged"] = True
    payload["pull_request"]["merged_at"] = payload["pull_request"]["closed_at"]
    (fact,) = facts_from_webhook("pull_request", payload)
    assert fact.action == "merged"


def test_supported_event_without_its_object_is_a_contract_violation():
    payload = webhook("issue_comment", "created.payload.json")
    broken = {k: v for k, v in payload.items() if k != "comment"}
    with pytest.raises(MappingError, match="comment"):
        facts_from_webhook("issue_comment", broken)


def test_bots_and_deleted_users():
    from services.ingest.domain.mapping import actor

    assert actor({"login": "dependabot[bot]", "type": "Bot"}).is_bot
    assert actor({"login": "renovate[bot]"}).is_bot  # type absent in some payloads
    assert not actor({"login": "alice", "type": "User"}, "MEMBER").is_bot
    ghost = actor(None)
    assert ghost.login == "ghost" and ghost.association == "NONE"


def test_comment_on_pull_request_has_the_same_id_from_webhook_and_poll():
    """The issue view (webhook) and the pull view (poll) of a commented PR give one fact id."""
    from services.ingest.domain.mapping import comment_fact, snapshot_from_pull

    payload = webhook("issue_comment", "created.payload.json")
    payload = json.loads(json.dumps(payload))
    payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/x/y/pulls/1"}
    (hook,) = facts_from_webhook("issue_comment", payload)
    assert hook.item.kind == "pull_request"
    pr = dict(payload["issue"], base={"ref": "main"}, merged_at=None)
    polled = comment_fact(
        snapshot_from_pull(hook.repo, pr), comment_info(payload["comment"]), origin="poll"
    )
    assert make_fact(polled).id == make_fact(hook).id
