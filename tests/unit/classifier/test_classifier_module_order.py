"""Which module a change is first (its primary): a module its title or description names before
one its file paths alone give, and a change of documentation or examples alone told as
documentation. Real vllm-ascend pull requests with their descriptions and per-file counts, read in
place from the history file (real_prs_w13.item_json: a skip where it is absent, a failure in CI),
under the real vllm-ascend profile."""

from __future__ import annotations

import pytest

from services.classifier.cli import load_ruleset, parse_item

from .real_prs_w13 import item_json


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset("vllm-ascend")


def modules(ruleset, number: int) -> tuple[list[str], dict[str, str]]:
    trace: dict[str, str] = {}
    tags = ruleset.classify(parse_item(item_json(number)), trace)
    return [t.name for t in tags.modules], trace


@pytest.mark.parametrize(
    "number,first,said",
    [
        # "Use DispatchGmmCombineDecode operator to replace MC2": config/ changed first in rule
        # order, the description tells of MoE
        (5040, "moe", "MoE"),
        # "fix vllm use v2 but vllm-ascend use v1": patch/ files, the description's model runner
        (11389, "v1-engine", "model runner"),
        # "Fix the method of importing environment variables in DeepSeek…"
        (817, "models", "DeepSeek"),
    ],
)
def test_a_module_the_description_names_leads_those_paths_alone_give(ruleset, number, first, said):
    names, trace = modules(ruleset, number)
    assert names[0] == first
    assert f"{first} (the description mentions" in trace["modules:said"]
    assert said in trace["modules:said"]


def test_a_title_word_still_leads_a_module_the_description_names(ruleset):
    # #10201 "Enhance error messages and logging …" changes eplb/, fused_moe/, spec_decode/ and
    # sample/ and says so: logging is what it is (06-10's report told it under Kernels)
    names, _ = modules(ruleset, 10201)
    assert names[0] == "observability"
    assert {"speculative-decoding", "moe"} <= set(names[1:])


@pytest.mark.parametrize(
    "number,order",
    [
        # "fix low acc communication problem on W4A16MXFP": MoE communication under csrc/moe/
        (12585, ["moe", "kernels"]),
        (8749, ["speculative-decoding", "attention"]),  # "[BugFix] fix dcp async bug"
    ],
)
def test_paths_keep_their_order_when_the_description_names_none_of_them(ruleset, number, order):
    names, trace = modules(ruleset, number)
    assert "modules:said" not in trace
    assert names == order


@pytest.mark.parametrize(
    "number",
    [
        9282,  # "chunk_gated_delta_rule_fwd_h supports kvcache discontin…", code in csrc/moe/
        9018,  # "add op `chunk_fwd_o` and `chunk_gated_delta_rule_fwd_h`", csrc/moe/ too
        12647,  # "Add fused torch_npu chunk gated delta rule for GDN prefill"
        6822,  # "Fixed an accuracy problem of gdn layer in graph"
    ],
)
def test_a_gated_deltanet_kernel_is_attention_work_not_moe(ruleset, number):
    names, _ = modules(ruleset, number)
    assert names[0] == "attention"


@pytest.mark.parametrize(
    "number,not_module",
    [
        (10016, "moe"),  # "Fix a bug inside a triton operator fused_sigmoid_gating_delta_rule…"
        (8557, "moe"),  # "[CI][1/N] Add hardware-awared test gating and CI routing"
        (8290, "moe"),  # "[BugFix][DSv32] Fix DSA-CP PD role gating for deepseek v3.2"
        (10069, "observability"),  # "[Misc][Ops]add trion ops log": a log line, no logging work
    ],
)
def test_gating_alone_is_no_moe_and_a_log_is_no_logging_work(ruleset, number, not_module):
    names, _ = modules(ruleset, number)
    assert not_module not in names


@pytest.mark.parametrize(
    "number,left",
    [
        # "[Feature] Adapt load balance proxy example to shared scheduler workers": one script
        # under examples/ (06-10's key PR, told as "Scheduler and core")
        (9645, {"scheduler/core", "kv-transfer"}),
        (4182, {"kv-transfer"}),  # "[P/D] Add readme for PD separation"
    ],
)
def test_documentation_and_examples_alone_are_documentation(ruleset, number, left):
    names, trace = modules(ruleset, number)
    assert names == ["docs"]
    assert all(name in trace["modules:aside"] for name in left)


@pytest.mark.parametrize(
    "number,kept",
    [
        (8323, "ci/build"),  # "[CI] fix report_template.md": CI is no code module
        # an example changed with the code it shows keeps the code's module
        (14142, "kv-transfer"),  # examples/…/load_balance_proxy_server_example.py + mooncake
        (10126, "v1-engine"),  # examples/offline_reload_weight.py + worker/worker.py
    ],
)
def test_what_documentation_alone_keeps(ruleset, number, kept):
    names, trace = modules(ruleset, number)
    assert kept in names
    assert "modules:aside" not in trace
