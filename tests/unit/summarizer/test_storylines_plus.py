"""'+' puts two things together in a title ("qwen3.5 support pcp+mtp", "fix pcp + eplb error"):
two terms, as the classifier's tokens read them, never one name ("pcpmtp"); a version's local
label ("2.10.0+cpu", PEP 440) stays one word. Real vllm-ascend titles, read in place."""

from __future__ import annotations

import pytest

from services.summarizer.domain.storylines import normalise_term, terms_of
from tests.conftest import history_prs


@pytest.mark.parametrize(
    "number,parts,joined",
    [
        (10487, ("pcp", "mtp"), "pcpmtp"),  # "[Feature] qwen3.5 support pcp+mtp"
        (4572, ("pcp", "mtp"), "pcpmtp"),  # "[feature] support pcp + mtp in full graph"
        (10855, ("pp", "mtp"), "ppmtp"),  # "… in the PP pipeline of PP+MTP and …"
        (5416, ("pcp", "flashcomm1"), "pppcp"),  # "Fix PP+PCP and PP+flashcomm1 bugs"
        (5416, ("pp", "flashcomm1"), "ppflashcomm1"),
        (10907, ("pcp", "mtp"), "qwen3.5pcp"),  # "fix qwen3.5+pcp+mtp error"
    ],
)
def test_words_around_a_plus_are_terms_of_their_own(number, parts, joined):
    title = history_prs()[number]["title"]
    assert "+" in title
    terms = terms_of(title)
    assert set(parts) <= terms
    assert joined not in terms
    assert not any("+" in t for t in terms)


def test_other_separators_still_join_a_name():
    # "[Feature] Support DeepSeek-V4 …", "Ascend 950": a pair of words is still a term
    title = "[Feature] Support DeepSeek-V4 on Ascend 950 with pcp+mtp"
    terms = terms_of(title)
    assert {"deepseekv4", "ascend950", "pcp", "mtp"} <= terms
    assert "pcpmtp" not in terms


def test_a_versions_local_label_stays_one_word():
    terms = terms_of("[CI] Pin torch to 2.10.0+cpu for the docs build")
    assert "2.10.0+cpu" in terms and "cpu" not in terms
    assert "v0.18.0+empty" in terms_of("Bump vllm to v0.18.0+empty")
    # a two-part number is no such version: "3.5+pcp" is two words
    assert {"qwen3.5", "pcp"} <= terms_of("fix qwen3.5+pcp accuracy error")
    assert normalise_term("torch 2.10.0+cpu") == "torch2.10.0+cpu"
