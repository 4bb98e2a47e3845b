"""A digest's references to commits named by their hash alone ("This PR reverts commit 8134146…",
"git revert 8835236…", "Reverted merge commit: `f6b33f4…`", "**Root cause**: `d7bca903`
introduced …", "after commit: 05a5611…, will run into a init error"), on real vllm-ascend
descriptions read in place. The history file carries each PR's merge commit (`sha`): every hash
recorded here is checked to name the PR the description means, which is how a reader (the
summarizer) can resolve it."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from services.classifier.domain.digest import digest_of, is_span
from shared.events.enriched import Digest, Reference
from tests.conftest import require_shared_data

REPO = "vllm-project/vllm-ascend"


@lru_cache(maxsize=1)
def _rows() -> tuple[dict, ...]:
    path = require_shared_data("vllm-ascend-history", "merged_prs_with_bodies.jsonl")
    return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


def _row(number: int) -> dict:
    (r,) = [r for r in _rows() if r["pr_number"] == number]
    return r


def real(number: int) -> tuple[dict, Digest]:
    r = _row(number)
    d = digest_of(r["title"], r["body"], repo=REPO, number=number)
    assert d is not None
    return r, d


def merged_as(sha: str) -> int | None:
    """The PR whose merge commit `sha` (or a prefix of it) is, by the history file."""
    found = [r["pr_number"] for r in _rows() if r["sha"].startswith(sha)]
    return found[0] if len(found) == 1 else None


def hashed(d: Digest) -> list[Reference]:
    return [r for r in d.refs if r.sha]


@pytest.mark.parametrize(
    "number,kind,reverted",
    [
        # "This PR reverts commit 8134146…" under 'Revert "[CI] fix DS3.2 … (#6241)"': one
        # reference with the number and the hash
        (6497, "reverts", 6241),
        # "Manually reverts #11899 from main. … Reverted merge commit: `f6b33f4…`"
        (12228, "reverts", 11899),
        # "This PR reverts #9865 / commit `9099b7f…`, which …"
        (11562, "reverts", 9865),
    ],
)
def test_a_revert_by_hash_is_one_reference_with_number_and_hash(number, kind, reverted):
    _r, d = real(number)
    (ref,) = [r for r in d.refs if r.kind == kind]
    assert ref.number == reverted
    assert ref.sha and merged_as(ref.sha) == reverted


def test_git_revert_lines_name_each_commit():
    # "git revert 8835236… / git revert 64fba51… / …" (real #6891): four reverted commits, each
    # the merge commit of a PR of the history
    _r, d = real(6891)
    refs = [r for r in hashed(d) if r.kind == "reverts"]
    assert [merged_as(r.sha or "") for r in refs] == [6884, 6871, 6867, 6708]


@pytest.mark.parametrize(
    "number,fixed",
    [
        # "**Root cause**: `d7bca903` introduced `vllm_config_backup = deepcopy(vllm_config)` …"
        (10241, 9893),
        # "Any version of vllm-ascend, after commit: 05a5611…, will run into a init error …"
        (7801, 7572),
    ],
)
def test_a_commit_named_as_the_cause_is_a_fix_up_by_hash(number, fixed):
    r, d = real(number)
    (ref,) = [x for x in hashed(d) if x.kind == "fix_up"]
    assert ref.number is None and merged_as(ref.sha or "") == fixed
    assert ref.context and is_span(ref.context, r["body"])


def test_a_cherry_pick_from_a_commit_is_a_backport_by_hash():
    # "(cherry picked from commit 816375e…)" (real #2080), "Cherry-picked from\ncommit 9bb27ed…"
    for number in (2080, 10709):
        _r, d = real(number)
        assert [r.kind for r in hashed(d)] == ["backport"], number


@pytest.mark.parametrize(
    "number",
    [
        14287,  # "Merge commit: `8546281…`" of a cherry-pick: says where it came from, not how
        12352,  # "[#11252](…), merged as `fbbf516…`": the PR is referenced by its number already
        6876,  # "- vLLM Ascend main: 81fb7d5…": a version line
        10712,  # "Before 350d1f0" in a diagram
        12923,  # "PR `2c888b4d2` vs main @ merge-base `e80067d46`": a benchmark's baseline
    ],
)
def test_a_hash_not_said_how_is_no_reference(number):
    _r, d = real(number)
    assert hashed(d) == [], d.refs


def test_the_same_commit_twice_is_one_reference_and_git_s_line_is_no_reason():
    # "This reverts commit acad18f…" under 'Revert "… (#10891)"': no second reference, and the
    # line says no why (the reason stays the what's "because of image build failed")
    _r, d = real(11366)
    (ref,) = d.refs
    assert (ref.number, ref.sha, ref.context) == (
        10891,
        "acad18fd7decb62ad704afd2834bd512dc270ffc",
        "",
    )
    # "Before 350d1f0 … Before 350d1f0": nothing; the 7801 body names 05a5611 twice, once as
    # the cause ("after commit:") and once as a baseline ("before commit:"): one reference
    _r, d = real(7801)
    assert len(hashed(d)) == 1


@pytest.mark.parametrize(
    "body,kind",
    [
        ("Fix the accuracy regression introduced by commit 1a2b3c4d in the sampler.", "fix_up"),
        ("This reverts commit 0f1e2d3c4b5a because it broke the nightly test.", "reverts"),
        ("Follow-up of commit 9e8d7c6b: handle the empty batch too.", "follow_up"),
    ],
)
def test_wordings_of_a_commit_reference(body, kind):
    d = digest_of("Fix something", body, repo=REPO, number=1)
    assert d is not None
    assert [(r.kind, r.number) for r in hashed(d)] == [(kind, None)]


@pytest.mark.parametrize(
    "body",
    [
        "This reverts the decade-old default.",  # a word of hex letters: no digit
        "Revert 20250101 nightly config.",  # a date, a number: no letter
        "Fixes the crash seen on 1a2b3c4d.",  # a hash, but not named as what is fixed
        "Reverted the colour #a1b2c3d4 to the old one.",  # a colour
    ],
)
def test_what_is_no_commit_reference(body):
    d = digest_of("Fix something", body, repo=REPO, number=1)
    assert d is not None and hashed(d) == [], d.refs
