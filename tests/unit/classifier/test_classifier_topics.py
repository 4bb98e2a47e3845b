"""Topics: a profile's lines of work written under several names ("A5", "Ascend950"), matched
like modules, inherited like modules, validated with errors that name the file and the rule, and
emitted as `Tags.topics`."""

from __future__ import annotations

import pytest
import yaml

from services.classifier.adapters.profiles import parse_profile_text, read_profiles
from services.classifier.domain.rules import ProfileError, fired_rules, resolve_profile

from .factory import builtin, compile_yaml, item

TOPICS = r"""
profile: t
topics:
  - name: Ascend 950 (A5)
    title_prefixes: [a5, ascend950]
    keywords: [ascend950, ascend 950]
    title_regex: ['(?<![\w.-])a5\b']
  - name: Model Runner V2
    keywords: [model runner v2, mrv2]
modules:
  - {name: kernels, paths: ["csrc/**"]}
"""


def raws_with(**profiles: str) -> dict:
    raws = dict(read_profiles())
    for name, text in profiles.items():
        raws[name] = (f"/profiles/{name}.yaml", yaml.safe_load(text))
    return raws


def topics(rs, title: str, files=()) -> list[str]:
    return [t.name for t in rs.classify(item(title, list(files))).topics]


@pytest.mark.parametrize(
    "title",
    [
        # real titles of vllm-project/vllm-ascend: one chip generation, four spellings
        "[Feature] Support DeepSeek for A5",
        "[Ascend950][BugFix] Fix w8a8_mxfp8 weight_scale group count",
        "[Feature] Support Ascend 950 CPU binding",
        "[Build] Add support for Ascend950 chip",
        "【A5】【Qwen VL】Qwen VL adapt for A5",
    ],
)
def test_every_spelling_gives_the_topic_by_its_profile_name(title):
    assert topics(compile_yaml(TOPICS), title) == ["Ascend 950 (A5)"]


def test_topics_fire_like_modules_and_say_how():
    rs = compile_yaml(TOPICS)
    tags = rs.classify(item("[A5][Perf] MRV2 on Ascend 950"))
    assert [t.name for t in tags.topics] == ["Ascend 950 (A5)", "Model Runner V2"]
    assert tags.topics[0].rule == "topic:Ascend 950 (A5)/title-prefix"
    assert tags.topics[1].rule == "topic:Model Runner V2/keyword"
    assert "topic:Model Runner V2/keyword" in fired_rules(tags)
    trace: dict[str, str] = {}
    rs.classify(item("Fix MRV2 sampler"), trace)
    assert "topic:Model Runner V2/keyword" in trace
    # a model's name that holds a spelling is not it; no topic is no topic
    assert topics(rs, "Qwen3-30B-A5B accuracy fix") == []
    assert topics(rs, "Fix a5_kernel build") == []
    assert topics(rs, "Fix the scheduler", ["csrc/a5_kernel.cpp"]) == []
    assert rs.classify(item("Fix the scheduler")).topics == ()


def test_a_topic_may_follow_files_and_modules():
    rs = compile_yaml(
        """
profile: t
modules:
  - {name: kernels, paths: ["csrc/**"]}
topics:
  - {name: Custom kernels, modules: [kernels]}
  - {name: Torchair, paths: ["**/torchair/**"]}
"""
    )
    assert topics(rs, "Fix a crash", ["csrc/attn.cpp"]) == ["Custom kernels"]
    assert topics(rs, "Fix a crash", ["vllm_ascend/torchair/runner.py"]) == ["Torchair"]


def test_a_child_replaces_a_topic_by_name_and_inherits_the_rest():
    raws = raws_with(
        parent=TOPICS.replace("profile: t", "profile: parent"),
        child="""
profile: child
extends: parent
topics:
  - name: Ascend 950 (A5)
    keywords: [a5]
""",
    )
    profile, _ = resolve_profile("child", raws)
    by_name = {t.name: t for t in profile.topics}
    assert list(by_name) == ["Ascend 950 (A5)", "Model Runner V2"]  # the child's come first
    assert by_name["Ascend 950 (A5)"].keywords == ("a5",)  # replaced, not merged
    assert by_name["Model Runner V2"].keywords == ("model runner v2", "mrv2")


@pytest.mark.parametrize(
    "text,fragments",
    [
        (
            "profile: p\ntopics:\n  - name: A5\n    description: no condition\n",
            ["/profiles/p.yaml:3", "topics rule 'A5'", "at least one condition"],
        ),
        (
            "profile: p\ntopics:\n  - name: A5\n    keyword: [a5]\n",
            ["/profiles/p.yaml:4", "topics rule 'A5'", "keyword", "Extra inputs"],
        ),
        (
            "profile: p\ntopics:\n  - name: A5\n    title_regex: ['(a5']\n",
            ["topics rule 'A5'", "title_regex", "invalid regular expression '(a5'"],
        ),
        (
            # YAML reads 910_95 as a number: the error says which element
            "profile: p\ntopics:\n  - name: A5\n    keywords: [a5,\n      910_95]\n",
            ["/profiles/p.yaml:5", "topics rule 'A5'", "keywords.1", "valid string"],
        ),
        (
            "profile: p\ntopics:\n  - {name: A5, keywords: [a5]}\n  - {name: A5, keywords: [x]}\n",
            ["two rules named 'A5'"],
        ),
        (
            "profile: p\ntopics:\n  - {name: Ascend 950, keywords: [a5]}\n"
            "  - {name: ascend-950, keywords: [x]}\n",
            ["'Ascend 950' and 'ascend-950' are one name written twice"],
        ),
        (
            "profile: p\ntopics:\n  - {name: '()', keywords: [a5]}\n",
            ["topics rule '()'", "letter or digit"],
        ),
    ],
)
def test_topic_errors_name_file_rule_and_problem(text, fragments):
    raws = dict(read_profiles())
    raws["p"] = ("/profiles/p.yaml", parse_profile_text(text))
    with pytest.raises(ProfileError) as exc:
        resolve_profile("p", raws)
    for fragment in fragments:
        assert fragment in str(exc.value), str(exc.value)


def test_topics_change_the_rule_set_version():
    a = compile_yaml("profile: v\nmodules:\n  - {name: x, keywords: [y]}\n").ref.version
    b = compile_yaml(
        "profile: v\nmodules:\n  - {name: x, keywords: [y]}\n"
        "topics:\n  - {name: A5, keywords: [a5]}\n"
    ).ref.version
    assert a != b


def test_vllm_ascend_names_its_chip_generation_once():
    rs = builtin("vllm-ascend")
    for title in (
        "[CI] add a5 nightly multi test",
        "[BugFix] Reduce the number of capture sizes captured on 950",
        "[Doc] Add Atlas 950 server pre-checks for multi-node deployment",
        "[csrc][bugfix] Add compile-time Ascend950/910_95 compatibility for custom ops",
        "[Doc][Misc] Add Ascend950DT support documentation for DeepSeek-V3.1",
    ):
        got = [t.name for t in rs.classify(item(title, repo="vllm-project/vllm-ascend")).topics]
        assert got == ["Ascend 950 (A5)"], title
    # its A2/A3 machines and a model named "…-A3B" are not the 950
    for title in (
        "[CI] Add weekly test workflow for A3-560T",
        "[Model] Support Qwen3-30B-A5B",
        "[Doc][Misc] Unify the naming of Qwen3-30B-A3B for Atlas 310P",
    ):
        got = [t.name for t in rs.classify(item(title, repo="vllm-project/vllm-ascend")).topics]
        assert "Ascend 950 (A5)" not in got, title


@pytest.mark.parametrize(
    "profile,title,topic",
    [
        # real titles of the vllm-ascend history: an acronym is named with what it is
        ("vllm-ascend", "[MRV2][Feature] SFA C8 supports ModelRunnerV2.", "C8 (INT8 KV cache)"),
        (
            "vllm-ascend",
            "[MRV2][Feature] SFA C8 supports ModelRunnerV2.",
            "SFA (sparse flash attention)",
        ),
        (
            "vllm-ascend",
            "[310P] Add a PyTorch implementation of the GDN gating operator",
            "310P (Atlas 300I inference cards)",
        ),
        (
            "vllm-ascend",
            "[BugFix][SpecDecode] Fix low MTP acceptance rate for SFA (MTP>1)",
            "MTP (multi-token prediction)",
        ),
        (
            "vllm",
            "[Feature] Support prefill context parallel for GQA",
            "PCP (prefill context parallelism)",
        ),
        ("vllm", "[EPLB] Fix expert load balancer stats", "EPLB (expert load balancing)"),
    ],
)
def test_an_acronym_line_is_named_with_what_it_is(profile, title, topic):
    """A reader of 2026-W13: "say what 310P, A5 and C8 are" — the profile names the line."""
    rs = builtin(profile)
    got = [t.name for t in rs.classify(item(title, repo="vllm-project/vllm-ascend")).topics]
    assert topic in got, (title, got)


def test_an_acronym_inside_a_word_is_no_topic():
    rs = builtin("vllm-ascend")
    for title in ("[Bugfix] fix the sfa_v1 import", "Fix DCPP typo", "Add c80 config"):
        got = [t.name for t in rs.classify(item(title, repo="vllm-project/vllm-ascend")).topics]
        assert not any(t.startswith(("C8", "DCP")) for t in got), (title, got)


MRV2 = "MRV2 (Model Runner V2)"
KV_POOL = "KV pool and offload (KV cache outside NPU memory)"


@pytest.mark.parametrize(
    "title,topic",
    [
        # real vllm-ascend titles: one line of work under several spellings each
        ("[BugFix][MRV2] Fix DSA prefill metadata propagation", MRV2),
        ("[Feature][MRv2] pcp/dcp public logic modification for MRv2", MRV2),
        ("[Feature] support eager mode in model runner v2", MRV2),
        ("[BugFix] Fixed a bug when adapting latest vllm for model_runner_v2", MRV2),
        ("[Feature]KV pool supports sparse attention", KV_POOL),
        ("[Refactor] (kv_pool): simplify metadata helpers and unit tests", KV_POOL),
        ("[DOC]Add Memcache Usage Guide", KV_POOL),
        ("[Refactor] refactor native and simple kvcache offloading", KV_POOL),
    ],
)
def test_vllm_ascend_lines_of_work_under_several_spellings(title, topic):
    rs = builtin("vllm-ascend")
    got = [t.name for t in rs.classify(item(title, repo="vllm-project/vllm-ascend")).topics]
    assert topic in got, (title, got)


@pytest.mark.parametrize(
    "title,topic",
    [
        # real titles that are not these lines
        ("[feat] support dispatch_v2/combine_v2 hierarchy communication", MRV2),
        # Mooncake is mostly the P/D connector (43 of its 81 titles), not the pool
        ("[BugFix][P/D] Fix MooncakeConnectorV1 Deepseek-V3.2 kvcache group bug", KV_POOL),
        ("[BugFix] Support virtual requests in Mooncake connector", KV_POOL),
    ],
)
def test_what_is_not_those_lines(title, topic):
    rs = builtin("vllm-ascend")
    got = [t.name for t in rs.classify(item(title, repo="vllm-project/vllm-ascend")).topics]
    assert topic not in got, (title, got)
