"""A merged pull request's snapshot carries the commit it became on its base branch
(`merge_commit_sha`): the history replay's and the git log's `sha`, REST's `merge_commit_sha` once
merged (never the test merge GitHub computes for an open or closed-unmerged pull request), GraphQL's
`mergeCommit.oid`. What "This reverts commit <sha>" names is resolved to a pull request by it."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from services.ingest.domain.graphql import PULLS_QUERY, pull_from_graphql
from services.ingest.domain.mapping import facts_from_webhook, snapshot_from_pull
from services.ingest.domain.sources import (
    GIT_LOG_FORMAT,
    git_facts,
    replay_fact,
    snapshot_from_api,
)
from shared.events import GITHUB_EVENT_ADAPTER, make_fact
from shared.events.github import ItemSnapshot, commit_sha
from tests.conftest import history_prs, require_shared_data

SHA = "8134146a3c2e5f1d7b9a0e4c6d8f2a1b3c5d7e9f"


def _pulls(name: str) -> list[dict]:
    """The pull request objects of a recorded PyGithub REST exchange file."""
    lines = require_shared_data("github-rest-replay", name).read_text("utf-8").split("\n")
    out = []
    for i in range(0, len(lines) - 9, 11):
        body = json.loads(lines[i + 9]) if lines[i + 9].strip() else None
        for obj in body if isinstance(body, list) else [body]:
            if isinstance(obj, dict) and "merge_commit_sha" in obj and "number" in obj:
                out.append(obj)
    return out


def test_the_replay_keeps_each_real_pull_requests_merge_commit():
    prs = history_prs()
    for number in (6891, 6884, 6241, 11899):
        record = prs[number]
        fact = replay_fact(record)
        assert fact is not None
        assert fact.item.merge_commit_sha == record["sha"] and len(record["sha"]) == 40


def test_a_history_line_without_a_hash_is_read_without_one():
    record = dict(history_prs()[6884])
    for value in ("abc", "", None, "not-a-hash-at-all", "8134146 "):
        fact = replay_fact(dict(record, sha=value))
        assert fact is not None
        expected = "8134146" if value == "8134146 " else None
        assert fact.item.merge_commit_sha == expected
    # an upper-case hash is the same commit
    assert replay_fact(dict(record, sha=SHA.upper())).item.merge_commit_sha == SHA


def test_the_git_log_source_keeps_the_squash_commits_hash():
    record = history_prs()[6884]
    text = (
        GIT_LOG_FORMAT.replace("%x1e", "\x1e")
        .replace("%x1f", "\x1f")
        .replace("%x1d", "\x1d")
        .replace("%H", record["sha"])
        .replace("%an", "A")
        .replace("%ae", "a@corp.example")
        .replace("%aI", record["merged_at"])
        .replace("%cI", record["merged_at"])
        .replace("%s", f"{record['title']} (#6884)")
        .replace("%b", "body")
    )
    (fact,) = git_facts(text + "\n3\t1\ta.py\n", "vllm-project/vllm-ascend")
    assert fact.item.number == 6884 and fact.item.merge_commit_sha == record["sha"]


def test_rest_keeps_the_merge_commit_only_of_a_merged_pull_request():
    pulls = _pulls("PullRequest.setUp.txt") + _pulls("Repository.testGetPullsWithArguments.txt")
    merged = [p for p in pulls if p.get("merged_at")]
    unmerged = [p for p in pulls if not p.get("merged_at") and p.get("merge_commit_sha")]
    assert merged and unmerged
    for pr in merged:
        assert snapshot_from_pull("o/r", pr).merge_commit_sha == pr["merge_commit_sha"]
        assert snapshot_from_api(pr, "o/r").merge_commit_sha == pr["merge_commit_sha"]
    for pr in unmerged:  # GitHub's test merge of an open pull request is no commit of the base
        assert snapshot_from_pull("o/r", pr).merge_commit_sha is None
        assert snapshot_from_api(pr, "o/r").merge_commit_sha is None


def test_a_webhook_closing_without_merge_carries_no_merge_commit():
    path = require_shared_data("github-webhooks", "pull_request", "closed.payload.json")
    payload = json.loads(path.read_text("utf-8"))
    assert payload["pull_request"]["merge_commit_sha"] and not payload["pull_request"]["merged"]
    facts = facts_from_webhook("pull_request", payload)
    assert facts and all(f.item.merge_commit_sha is None for f in facts)
    merged = json.loads(path.read_text("utf-8"))
    merged["pull_request"].update(merged=True, merged_at=merged["pull_request"]["closed_at"])
    (fact,) = facts_from_webhook("pull_request", merged)
    assert fact.action == "merged"
    assert fact.item.merge_commit_sha == payload["pull_request"]["merge_commit_sha"]


def test_graphql_asks_for_and_keeps_the_merge_commit():
    assert "mergeCommit { oid }" in PULLS_QUERY
    node = {
        "number": 7,
        "title": "t",
        "createdAt": "2026-06-01T10:00:00Z",
        "closedAt": "2026-06-02T10:00:00Z",
        "mergedAt": "2026-06-02T10:00:00Z",
        "state": "MERGED",
        "mergeCommit": {"oid": SHA},
    }
    assert snapshot_from_pull("o/r", pull_from_graphql(node).pull).merge_commit_sha == SHA
    open_ = dict(node, state="OPEN", mergedAt=None, closedAt=None, mergeCommit=None)
    assert snapshot_from_pull("o/r", pull_from_graphql(open_).pull).merge_commit_sha is None


@pytest.mark.parametrize("bad", ["abc", "8134146A", "g134146", "8134146 ", "1" * 65])
def test_the_model_refuses_what_is_no_commit_hash(bad):
    base = json.loads(replay_fact(history_prs()[6884]).item.model_dump_json())
    with pytest.raises(ValidationError):
        ItemSnapshot.model_validate(dict(base, merge_commit_sha=bad))
    assert ItemSnapshot.model_validate(dict(base, merge_commit_sha=SHA[:7])).merge_commit_sha


def test_events_logged_before_the_field_still_read():
    event = make_fact(replay_fact(history_prs()[6884]))
    raw = json.loads(event.to_bytes())
    assert raw["data"]["item"]["merge_commit_sha"] == history_prs()[6884]["sha"]
    del raw["data"]["item"]["merge_commit_sha"]
    old = GITHUB_EVENT_ADAPTER.validate_python(raw)
    assert old.id == event.id and old.data.item.merge_commit_sha is None


def test_commit_sha_reads_what_sources_give():
    assert commit_sha(SHA.upper()) == SHA
    assert commit_sha(None) is None and commit_sha("") is None
    assert commit_sha("abc") is None and commit_sha(12345678) == "12345678"
