"""References a description makes in words and Markdown links: "In addition to [#4168](…),
[#5011](…), this PR adds …" is a follow-up of both (real #5077); a link's text "#7" is the
address's number, not this repository's #7."""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import digest_of
from tests.unit.classifier.test_digest import REPO, real, refs_of

OWN = "https://github.com/vllm-project/vllm-ascend/pull/"


@pytest.mark.shared_data
def test_in_addition_to_two_linked_prs_is_a_follow_up_of_both():
    _record, d = real(5077)  # "[Graph][Fusion]Add new pattern for AddRmsnormQuant with SP."
    assert refs_of(d) == {("follow_up", 4168, None), ("follow_up", 5011, None)}


@pytest.mark.shared_data
def test_a_revert_named_by_its_commit_and_by_a_linked_pr_is_one_reference():
    _record, d = real(11366)  # 'This reverts commit acad18f…' and 'revert [the pr](…/10891)'
    assert [(r.kind, r.number) for r in d.refs if r.kind == "reverts"] == [("reverts", 10891)]


@pytest.mark.parametrize(
    "body, refs",
    [
        (f"Follow-up of [#4168]({OWN}4168).", {("follow_up", 4168, None)}),
        (f"fix the bug introduced by [#12]({OWN}12)", {("fix_up", 12, None)}),
        ("Builds on top of #12 and #13.", {("follow_up", 12, None), ("follow_up", 13, None)}),
        # a link to another repository's issue: that repository's number, not ours
        ("Closes [#7](https://github.com/o/r/issues/7)", {("fixes", 7, "o/r")}),
        # mentioned, not said how: no reference of ours
        ("see #12 in addition", set()),
        ("related work: [#5]", set()),
    ],
)
def test_references_in_words_and_markdown_links(body, refs):
    assert refs_of(digest_of("A change", body, repo=REPO, number=1)) == refs
