"""Words and title tokens (`tokens.py`) on real vllm-ascend titles and descriptions, read in place:
`+` joins two terms ("pcp+mtp", "DP+EP"), except in a version's local label ("2.10.0+cpu")."""

from __future__ import annotations

import pytest

from services.classifier.domain.tokens import title_tokens, words
from tests.conftest import history_prs

from .factory import builtin, item

REPO = "vllm-project/vllm-ascend"
MTP = "MTP (multi-token prediction)"
PCP = "PCP (prefill context parallelism)"


def real(number: int) -> dict:
    return history_prs()[number]


def topics_of(title: str) -> list[str]:
    rs = builtin("vllm-ascend")
    return [t.name for t in rs.classify(item(title, repo=REPO)).topics]


@pytest.mark.parametrize(
    "number,expected",
    [
        (10487, ["pcp", "mtp"]),  # "[Feature] qwen3.5 support pcp+mtp"
        (3246, ["dp", "ep", "tp"]),  # "[Quickfix] Fix dp+ep+tp error when sp chunked …"
        (10907, ["qwen3.5", "pcp", "mtp"]),  # "[BugFix] fix qwen3.5+pcp+mtp error"
        (14019, ["moe", "dp"]),  # "[CI][Spec Decode] Add case for MoE+DP hang"
    ],
)
def test_plus_joins_two_terms_of_a_real_title(number, expected):
    got = words(real(number)["title"])
    assert all(w in got for w in expected), got
    assert not any("+" in w for w in got), got


@pytest.mark.parametrize(
    "number,label",
    [
        (11917, "2.10.0+cpu"),  # "CPU result with `torch==2.10.0+cpu`: `17 passed`."
        (12292, "2.10.0+cpu"),  # "- PyTorch: `2.10.0+cpu`"
        (7102, "0.18.0+empty"),  # '"vllm_version": "0.18.0+empty",'
    ],
)
def test_a_versions_local_label_stays_one_word(number, label):
    assert label in words(real(number)["body"])
    assert words(f"torch=={label}") == ["torch", label]


def test_a_version_of_two_parts_joined_by_plus_is_a_model_and_a_term():
    # "[BugFix] Fix small chunk problem for pcp+qwen3.5" / "fix qwen3.5+pcp accuray error"
    assert words(real(11807)["title"])[-2:] == ["pcp", "qwen3.5"]
    assert "pcp" in words(real(11195)["title"])


@pytest.mark.parametrize(
    "number,topic",
    [
        (10487, MTP),  # "[Feature] qwen3.5 support pcp+mtp": both lines of work
        (10487, PCP),
        (5994, PCP),  # "[Bugfix] fix bug of pcp+mtp+async scheduler"
        (5994, MTP),
        (10855, MTP),  # "… in the PP pipeline of PP+MTP and fix the verification"
    ],
)
def test_each_term_joined_by_plus_gives_its_topic(number, topic):
    assert topic in topics_of(real(number)["title"])


@pytest.mark.parametrize(
    "number,topic",
    [
        (11807, MTP),  # "pcp+qwen3.5": PCP and a model, no MTP
        (4723, PCP),  # "[Feat] flashcomm2+oshard Generalized": neither
        (4723, MTP),
    ],
)
def test_a_term_not_joined_is_no_topic(number, topic):
    assert topic not in topics_of(real(number)["title"])


def test_a_plain_prefix_joined_by_plus_names_each_term():
    tokens = title_tokens("DP+EP: fix the all-to-all hang")
    assert {"dp+ep", "dp", "ep"} <= tokens.keys()
    assert title_tokens("ROCm: fix the build").keys() == {"rocm"}
