"""A topic's names in a report's other languages (`names:`, issue #15 item 6): the profile's words,
validated with errors that name the file and the rule, inherited with the topic, part of the rule
set's version, and carried by every topic tag so that the report can name the line in its
language ("310P（Atlas 300I 推理卡）", not the English name in corner brackets)."""

from __future__ import annotations

import pytest

from services.classifier.adapters.profiles import parse_profile_text, read_profiles
from services.classifier.domain.profile import TOPIC_NAME_LANGUAGES
from services.classifier.domain.rules import ProfileError, resolve_profile
from shared.events import Tags

from .factory import builtin, compile_yaml, item

NAMED = """
profile: t
topics:
  - name: 310P (Atlas 300I inference cards)
    names: {zh-CN: 310P（Atlas 300I 推理卡）}
    keywords: [310p, atlas 300i]
  - name: Model Runner V2
    keywords: [model runner v2, mrv2]
"""


def test_a_topic_tag_carries_the_topics_names():
    rs = compile_yaml(NAMED)
    tags = rs.classify(item("[BugFix][310P] Fixed 310P RC aclgraph inference error"))
    (topic,) = tags.topics
    assert topic.name == "310P (Atlas 300I inference cards)"
    assert topic.names == {"zh-CN": "310P（Atlas 300I 推理卡）"}
    # a topic without names gives none
    (other,) = rs.classify(item("[MRV2] support prefill context parallelism")).topics
    assert other.name == "Model Runner V2" and other.names == {}
    # the stored tags keep them, and read back the same
    again = Tags.model_validate_json(tags.model_dump_json())
    assert again.topics[0].names == topic.names


def test_names_change_the_rule_set_version():
    plain = NAMED.replace("    names: {zh-CN: 310P（Atlas 300I 推理卡）}\n", "")
    assert plain != NAMED
    assert compile_yaml(plain).ref.version != compile_yaml(NAMED).ref.version


@pytest.mark.parametrize(
    "text,fragments",
    [
        (
            # "zh" is no language a report is written in: it would never be read
            "profile: p\ntopics:\n  - name: A5\n    names: {zh: 昇腾}\n    keywords: [a5]\n",
            ["/profiles/p.yaml", "topics rule 'A5'", "unknown language 'zh'", "zh-CN"],
        ),
        (
            "profile: p\ntopics:\n  - name: A5\n    names: {zh-CN: '（）'}\n    keywords: [a5]\n",
            ["topics rule 'A5'", "the zh-CN name needs a letter or digit"],
        ),
        (
            "profile: p\ntopics:\n  - name: A5\n    names: 昇腾\n    keywords: [a5]\n",
            ["topics rule 'A5'", "names", "valid dictionary"],
        ),
    ],
)
def test_name_errors_say_file_rule_and_problem(text, fragments):
    raws = dict(read_profiles())
    raws["p"] = ("/profiles/p.yaml", parse_profile_text(text))
    with pytest.raises(ProfileError) as exc:
        resolve_profile("p", raws)
    for fragment in fragments:
        assert fragment in str(exc.value), str(exc.value)


def test_a_child_that_replaces_a_topic_replaces_its_names():
    raws = dict(read_profiles())
    raws["base"] = (
        "/profiles/base.yaml",
        parse_profile_text(NAMED.replace("profile: t", "profile: base")),
    )
    raws["child"] = (
        "/profiles/child.yaml",
        parse_profile_text(
            "profile: child\nextends: base\ntopics:\n"
            "  - name: 310P (Atlas 300I inference cards)\n    keywords: [310p]\n"
        ),
    )
    profile, _ = resolve_profile("child", raws)
    by_name = {t.name: t for t in profile.topics}
    assert by_name["310P (Atlas 300I inference cards)"].names == {}
    assert by_name["Model Runner V2"].names == {}


@pytest.mark.parametrize("name", ["vllm-ascend", "vllm", "llm-serving", "generic"])
def test_every_builtin_topic_is_named_in_every_report_language(name):
    """A built-in topic's name is English words ("KV pool and offload (KV cache outside NPU
    memory)"): a report in another language needs its own name for it."""
    profile, _ = resolve_profile(name, read_profiles())
    for topic in profile.topics:
        assert set(topic.names) == set(TOPIC_NAME_LANGUAGES), topic.name
        for lang, local in topic.names.items():
            assert local != topic.name, (topic.name, lang)


def test_vllm_ascend_tags_name_their_lines_in_chinese():
    rs = builtin("vllm-ascend")
    cases = {
        # real titles of the history, each a spelling of one line
        "[Feature] Support DeepSeek for A5": "昇腾 950（A5）",
        "[BugFix][310P] Fixed 310P RC aclgraph inference error": "310P（Atlas 300I 推理卡）",
        "[Feature][KV Pool] Introduce AscendStoreCoordinator for hybrid cache-hit and mask "
        "coordination": "KV 池与卸载（NPU 内存之外的 KV 缓存）",
    }
    for title, zh in cases.items():
        names = [t.names.get("zh-CN") for t in rs.classify(item(title)).topics]
        assert zh in names, (title, names)
