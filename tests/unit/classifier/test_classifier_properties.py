"""Properties of classification under every built-in profile (hypothesis): it never raises for
arbitrary titles, labels, paths, bodies and authors, and it is deterministic (same item, same
tags: twice in a row, through the tag memo, and under a freshly compiled copy of the rules)."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.classifier.adapters.profiles import BUILTIN_PROFILES, read_profiles
from services.classifier.domain.rules import compile_profile, resolve_profile
from shared.events import Actor, FileChange, ItemSnapshot, Tags

from .factory import T0, builtin

PROFILES = sorted(p.stem for p in BUILTIN_PROFILES.glob("*.yaml"))

# (the event contract refuses NUL and lone surrogates at the edge: the classifier never sees them)
text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=100
)
# titles that look like real ones often enough to reach the prefix, keyword and regex paths
prefix = st.sampled_from(
    [
        "[Bugfix]",
        "[ROCm]",
        "[CI/Build]",
        "[Spec Decode]",
        "[MoE]",
        "[310P]",
        "[Misc][Deprecation]",
        "fix(ci):",
        "feat!:",
        "Revert",
        "[main][Ops]",
        "",
        "[",
    ]
)
words_ = st.sampled_from(
    [
        "remove",
        "deprecated",
        "cuda graph",
        "fused_moe",
        "EAGLE-3",
        "by default",
        "xlite",
        "NPU",
        "tool call",
        "Qwen3-Next",
        "--flag",
        "VLLM_USE_X",
        "rust",
    ]
)
titles = st.one_of(
    text,
    st.builds(
        lambda p, ws, t: " ".join([p, *ws, t]).strip() or "x",
        prefix,
        st.lists(words_, max_size=4),
        text,
    ),
)
segment = st.one_of(
    st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(
        [
            "vllm",
            "vllm_ascend",
            "v1",
            "core",
            "ops",
            "rocm",
            "_310p",
            "tests",
            "docs",
            "csrc",
            ".github",
            "rust",
            "fused_moe",
            "kv_transfer",
            "scheduler.py",
            "x.cu",
        ]
    ),
)
paths = st.lists(segment, min_size=1, max_size=6).map("/".join)
labels = st.lists(
    st.one_of(text, st.sampled_from(["rocm", "bug", "ci/build", "documentation"])), max_size=4
)
logins = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9-]{0,20}(\[bot\]|-amd)?", fullmatch=True)


@st.composite
def items(draw) -> ItemSnapshot:
    files = draw(
        st.lists(st.tuples(paths, st.integers(0, 10**5), st.integers(0, 10**5)), max_size=10)
    )
    return ItemSnapshot(
        repo="vllm-project/vllm",
        number=draw(st.integers(1, 10**6)),
        kind=draw(st.sampled_from(["pull_request", "issue"])),
        title=draw(titles),
        author=Actor(
            login=draw(logins),
            association=draw(st.sampled_from(["NONE", "MEMBER", "FIRST_TIME_CONTRIBUTOR"])),
            is_bot=draw(st.booleans()),
            email_domain=draw(
                st.one_of(st.none(), st.sampled_from(["amd.com", "huawei.com", "x.io"]))
            ),
        ),
        labels=tuple(draw(labels)),
        state="open",
        created_at=T0,
        body_excerpt=draw(text),
        files=tuple(FileChange(path=p, additions=a, deletions=d) for p, a, d in files),
        additions=draw(st.one_of(st.none(), st.integers(0, 10**6))),
        base_branch=draw(st.one_of(st.none(), st.sampled_from(["main", "releases/v0.9"]))),
    )


@cache
def fresh(name: str):
    """A second, independently compiled copy of the same profile."""
    profile, _ = resolve_profile(name, read_profiles())
    return compile_profile(profile)


def test_all_shipped_profiles_are_covered():
    assert {"generic", "llm-serving", "vllm", "vllm-ascend"} <= set(PROFILES)


@pytest.mark.parametrize("name", PROFILES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(item=items())
def test_classification_never_raises_and_is_deterministic(name, item):
    rs = builtin(name)
    trace: dict[str, str] = {}
    tags = rs.classify(item, trace)
    assert isinstance(tags, Tags) and tags.modules  # at least one module, always
    assert Tags.model_validate_json(tags.model_dump_json()) == tags  # survives the wire
    assert rs.classify(item) == tags  # the same again
    assert rs.classify_cached(item) == tags and rs.classify_cached(item) == tags  # through the memo
    other = fresh(name)
    assert other.ref == rs.ref and other.classify(item) == tags  # a fresh compile agrees
    for t in (*tags.modules, *tags.categories, *tags.ecosystems, *tags.affiliations):
        assert t.rule in trace and t.rule.split(":", 1)[0] in (
            "module",
            "category",
            "ecosystem",
            "affiliation",
        )
    assert all(r.rule.startswith(f"risk:{r.name}/") and r.reason for r in tags.risks)
    assert len({t.name for t in tags.modules}) == len(tags.modules)  # no module twice
