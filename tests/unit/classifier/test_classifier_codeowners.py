"""CODEOWNERS: parsing, pattern semantics, areas as modules (last matching line wins)."""

from __future__ import annotations

import pytest

from services.classifier.domain.codeowners import (
    OwnerRule,
    OwnersMatcher,
    area_of,
    derived_area,
    parse_codeowners,
)

from .factory import compile_yaml, item, names, rules

CODEOWNERS = """\
# vLLM-style CODEOWNERS
/vllm/v1/core @core-team
/vllm/attention/ @attn-owner   # trailing comment
/vllm/model_executor/layers/fused_moe @moe-owner
*.md @docs-team
/vllm/v1/core/sched/output.py @someone-else
[Kernels]
/csrc/ @kernel-team
"""


def test_parse_skips_comments_and_remembers_sections():
    parsed = parse_codeowners(CODEOWNERS)
    assert [r.pattern for r in parsed] == [
        "/vllm/v1/core",
        "/vllm/attention/",
        "/vllm/model_executor/layers/fused_moe",
        "*.md",
        "/vllm/v1/core/sched/output.py",
        "/csrc/",
    ]
    assert parsed[1].owners == ("@attn-owner",)
    assert parsed[-1].section == "Kernels" and parsed[0].section is None
    assert parsed[0].line == 2


@pytest.mark.parametrize(
    "pattern,path,expected",
    [
        ("/vllm/v1/core", "vllm/v1/core/sched/scheduler.py", True),  # anchored dir, any depth below
        ("/vllm/v1/core", "other/vllm/v1/core/x.py", False),  # anchored: not elsewhere
        ("docs/", "docs/a.md", True),  # directory
        ("docs/", "site/docs/a.md", True),  # no leading slash: any depth
        ("*.md", "deep/dir/README.md", True),
        ("*.md", "README.rst", False),
        ("vllm/envs.py", "vllm/envs.py", True),  # a middle slash anchors
        ("vllm/envs.py", "x/vllm/envs.py", False),
        ("*", "anything/at/all.py", True),
    ],
)
def test_pattern_semantics(pattern, path, expected):
    matcher = OwnersMatcher(parse_codeowners(f"{pattern} @x"))
    assert (matcher.owner_rule(path) is not None) is expected


@pytest.mark.parametrize(
    "pattern,area",
    [
        ("/vllm/model_executor/layers/fused_moe", "fused_moe"),
        ("/vllm/attention/", "attention"),
        ("/vllm/v1/core/sched/scheduler.py", "scheduler"),
        ("*.md", None),
    ],
)
def test_derived_area_is_the_last_literal_segment(pattern, area):
    assert derived_area(OwnerRule(1, pattern, ("@x",))) == area


def test_owner_mapping_beats_path_and_aliases_apply():
    rule = OwnerRule(1, "/vllm/model_executor/layers/fused_moe", ("@moe-owner",))
    assert area_of(rule, {"@moe-owner": "moe"}, {}, True, True) == "moe"
    assert area_of(rule, {}, {"fused_moe": "moe"}, True, True) == "moe"
    assert area_of(rule, {}, {}, True, False) is None


PROFILE = """
profile: co-test
codeowners:
  mode: {mode}
  aliases: {{fused_moe: moe, core: scheduler}}
  owner_areas: {{"@docs-team": docs}}
modules:
  - name: rocm
    title_prefixes: [rocm]
"""


def test_codeowners_areas_fill_in_when_no_rule_fires_last_line_wins():
    rs = compile_yaml(PROFILE.format(mode="fallback"), codeowners=CODEOWNERS)
    tags = rs.classify(
        item(
            "Tweak things",
            [
                ("vllm/v1/core/sched/output.py", 50, 0),
                ("vllm/model_executor/layers/fused_moe/layer.py", 5, 0),
            ],
        )
    )
    # output.py: the later, more specific line (a file pattern) wins over /vllm/v1/core
    assert names(tags.modules) == ["output", "moe"]
    assert rules(tags.modules) == ["module:output/codeowners", "module:moe/codeowners"]
    assert not any(t.fallback for t in tags.modules)


def test_codeowners_sections_name_areas_and_owner_mapping_wins():
    rs = compile_yaml(PROFILE.format(mode="fallback"), codeowners=CODEOWNERS)
    assert names(rs.classify(item("x", ["csrc/ops.cu"])).modules) == ["kernels"]
    assert names(rs.classify(item("x", ["guide/intro.md"])).modules) == ["docs"]


def test_fallback_mode_stays_out_when_a_rule_fired_supplement_adds():
    title, files = "[ROCm] x", ["vllm/attention/layer.py"]
    fallback = compile_yaml(PROFILE.format(mode="fallback"), codeowners=CODEOWNERS)
    supplement = compile_yaml(PROFILE.format(mode="supplement"), codeowners=CODEOWNERS)
    assert names(fallback.classify(item(title, files)).modules) == ["rocm"]
    assert names(supplement.classify(item(title, files)).modules) == ["rocm", "attention"]


def test_codeowners_text_is_part_of_the_ruleset_version():
    a = compile_yaml(PROFILE.format(mode="fallback"), codeowners=CODEOWNERS)
    b = compile_yaml(PROFILE.format(mode="fallback"), codeowners=CODEOWNERS + "/tools/ @ops\n")
    c = compile_yaml(PROFILE.format(mode="fallback"))
    assert len({a.ref.version, b.ref.version, c.ref.version}) == 3


def test_llm_serving_maps_vllm_codeowners_directories_to_its_modules():
    from services.classifier.adapters.profiles import read_profiles
    from services.classifier.domain.rules import compile_profile, resolve_profile

    text = (
        "/vllm/model_executor/layers/fused_moe @a\n/vllm/v1/spec_decode @b\n"
        "/vllm/entrypoints @c\n/vllm/mystery_area @d\n"
    )
    profile, _ = resolve_profile("llm-serving", read_profiles())
    rs = compile_profile(profile, text)
    # a rule fires for fused_moe paths anyway; CODEOWNERS speaks when none does
    assert names(rs.classify(item("Tweak", ["vllm/mystery_area/x.py"])).modules) == ["mystery_area"]
    assert rules(rs.classify(item("Tweak", ["vllm/mystery_area/x.py"])).modules) == [
        "module:mystery_area/codeowners"
    ]
    from services.classifier.domain.codeowners import OwnerRule, area_of

    aliases = profile.codeowners.aliases
    assert (
        area_of(
            OwnerRule(1, "/vllm/model_executor/layers/fused_moe", ("@a",)), {}, aliases, True, True
        )
        == "moe"
    )
    assert (
        area_of(OwnerRule(2, "/vllm/v1/spec_decode", ("@b",)), {}, aliases, True, True)
        == "speculative-decoding"
    )
