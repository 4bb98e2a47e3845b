"""labeler `head-branch` rules fire on the head ref name the item snapshot carries, from the real
recordings (PyGithub's REST replay files, octokit's webhook examples) mapped by ingest."""

from __future__ import annotations

import json

import pytest

from services.classifier.domain.rules import fired_rules
from services.ingest.domain.mapping import facts_from_webhook, snapshot_from_pull
from tests.conftest import require_shared_data
from tests.unit.classifier.factory import compile_yaml, item, names
from tests.unit.ingest_github.test_github_mapping import exchanges

pytestmark = pytest.mark.shared_data

PROFILE = """
profile: branches
labeler:
  feature:
    - head-branch: ['^feature', 'feature']
  from-changes:
    - head-branch: '^changes$'
  release:
    - base-branch: 'main'
"""


def _pull(path: str) -> dict:
    return next(b for p, _, _, b in exchanges("PullRequest.setUp.txt") if p == path)


def test_head_branch_rule_fires_on_a_recorded_rest_pull_request():
    rs = compile_yaml(PROFILE)
    feature = snapshot_from_pull(
        "FlorentClarret/PyGithub", _pull("/repos/FlorentClarret/PyGithub/pulls/2")
    )
    assert feature.head_branch == "feature/pr-maintainer-can-modify"
    tags = rs.classify(feature)
    assert "feature" in names(tags.modules)
    assert "module:feature/files" in fired_rules(tags)
    master = snapshot_from_pull("PyGithub/PyGithub", _pull("/repos/PyGithub/PyGithub/pulls/31"))
    assert master.head_branch == "master"
    assert "feature" not in names(rs.classify(master).modules)


def test_head_branch_rule_fires_on_a_webhook_delivery():
    payload = json.loads(
        require_shared_data("github-webhooks", "pull_request", "opened.payload.json").read_text(
            "utf-8"
        )
    )
    (fact,) = facts_from_webhook("pull_request", payload)
    tags = compile_yaml(PROFILE).classify(fact.item)
    assert "from-changes" in names(tags.modules)
    assert "release" not in names(tags.modules)  # its base is master


def test_the_memo_tells_head_branches_apart():
    rs = compile_yaml(PROFILE)
    a = item("same title", ["x.py"], head_branch="feature/a")
    b = item("same title", ["x.py"], head_branch="fix/b")
    assert "feature" in names(rs.classify_cached(a).modules)
    assert "feature" not in names(rs.classify_cached(b).modules)
    # an item without a head branch (an old event, the git-history replay) fires no head rule
    assert "feature" not in names(rs.classify_cached(item("same title", ["x.py"])).modules)
