"""The what-sentence of a description reads as told, not pasted: on real vllm-ascend descriptions
(each read by hand; the sentence the digest gave before is kept beside the one it gives now) and
on synthetic ones for the rules' edges.

- the author's own doings with the change ("I have refactored this PR and used very little code")
  are passed over or cut off; so is a sentence that only says where the change belongs;
- a numbered list inside a paragraph ("(1)refactor … (2) move …") is told as the words before it,
  else as its first item;
- a short line without end punctuation before a capitalised line is a sentence of its own;
- a sentence that only announces what follows ("This PR provides two features:", "The key
  changes are:") gives way to what follows, or is left out after a sentence;
- a sentence that only repeats the title gives way to a later one that says more.
"""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import MAX_TEXT, digest_of, is_span
from tests.unit.classifier.test_digest import real

H = "### What this PR does / why we need it?\n"

# number -> (the what before, the what now)
REAL = [
    # first person, the author's process: the clause goes, the rest of the sentence stays
    (
        4999,
        "#4257 This PR implements the dense_ffn TP of the first three layers of the deepseek"
        " model, I have refactored this PR and used very little code to support the"
        " implementation of this feature.",
        "#4257 This PR implements the dense_ffn TP of the first three layers of the deepseek model",
    ),
    # a paragraph of the author's doings and a pointer: the next paragraph says why
    (
        6846,
        "This was meant to be merged in #6536, but I accidentally restored a commit. You can find"
        " the relevant discussion here.",
        "Since self.pass_config.enable_sp is forcibly set to False in the source code, this"
        " section will no longer verify whether the generated cudagraph shapes are multiples of"
        " both uniform_decode_query_len (num_speculative_tokens + 1) and…",
    ),
    # numbered lists inside a paragraph
    (
        4993,
        "(1)refactor npu_model_runner for profile_run (2) move _select_moe_comm_method to"
        " ascend_forward_context (3) delete _init_model_kwargs in npu_model_runner",
        "refactor npu_model_runner for profile_run",
    ),
    (
        5204,
        "Remove unnecessary attributes from set_ascend_forward_context 1.prefetch_stream"
        " 2.weight_prefetch_method",
        "Remove unnecessary attributes from set_ascend_forward_context",
    ),
    (
        6020,
        "1.Incorporate the warm up of the EPLB into the profile run. 2.Reusing the same gather"
        " buffer",
        "Incorporate the warm up of the EPLB into the profile run.",
    ),
    (
        3948,
        "1、revert TND modify when dcp pcp, which is introduced by https://github.com/vllm-project"
        "/vllm-ascend/commit/f57bdb09fc3126a1857edf95a3bbc208312678a0 2、deal aclgraph pad border"
        " issue",
        "revert TND modify when dcp pcp, which is introduced by https://github.com/vllm-project"
        "/vllm-ascend/commit/f57bdb09fc3126a1857edf95a3bbc208312678a0",
    ),
    # item 1 is the title: item 2, without its number
    (
        1246,
        "1.Fixed the issue that pyhccl e2e cannot run continuously with other tests. 2.Cleaned up"
        " the resources occupied by the dynamic_npugraph_batchsize e2e test.",
        "Cleaned up the resources occupied by the dynamic_npugraph_batchsize e2e test.",
    ),
    # a line without end punctuation is a sentence: not merged with the next line
    (
        7619,
        "Apply Eagle3 to MiniMax-M2.5 to increase model performance This will be discard after"
        " Eagle3 weight for MiniMax-M2.5 releases and code change accepted by official repo"
        " https://github.com/vllm-project/vllm/pull/37512/changes",
        "Apply Eagle3 to MiniMax-M2.5 to increase model performance",
    ),
    (
        13067,
        "Update the name of obs secrets in pr_test.yaml to fix the problem : unable to upload"
        " Update analyze_failure comments",
        "Update the name of obs secrets in pr_test.yaml to fix the problem : unable to upload",
    ),
    (
        3807,
        "Add accuracy test for qwen3-30b-a3b-w8a8 This PR depends on"
        " https://github.com/vllm-project/vllm-ascend/pull/3799",
        "Add accuracy test for qwen3-30b-a3b-w8a8",
    ),
    (
        1395,
        "When all_reduce_merge is in progress, shared_experts does not do all_reduce in mlp, but"
        " waits until shared_experts+router_experts are completed before doing all_reduce In"
        " prefill and decode, as long as shared_experts+router_experts are…",
        "When all_reduce_merge is in progress, shared_experts does not do all_reduce in mlp, but"
        " waits until shared_experts+router_experts are completed before doing all_reduce",
    ),
    # a line that only says where the change belongs, then what it does
    (
        8014,
        "The total plan in RFC: #7942 This PR add decode case ut for eagle proposer",
        "This PR add decode case ut for eagle proposer",
    ),
    (
        1939,
        "cherry-pick #1675 to main This PR adds validation checking to torchair_graph_config for"
        " better reliability.",
        "This PR adds validation checking to torchair_graph_config for better reliability.",
    ),
    # the first line repeats the title: the line after it
    (
        10292,
        "add ascendc ops store_kv_block Control whether to use the operator by using"
        """ additional-config '{"enable_sparse_c8":true,"c8_enable_reshape_optim":true}'.""",
        "Control whether to use the operator by using additional-config"
        """ '{"enable_sparse_c8":true,"c8_enable_reshape_optim":true}'.""",
    ),
    (
        1067,
        "[CI]Moe alltoall communication optimization The DeepSeek V3/R1 model has 256 routing"
        " experts.",
        "The DeepSeek V3/R1 model has 256 routing experts.",
    ),
    # the paragraph repeats the title: the next one says why
    (
        1094,
        "Add with_prefill_across_dp to AscendMetadata to fix dp",
        "This pr fixes the bug introduced by #1012, which add an arg with_prefill_across_dp when"
        " dp_size > 1.",
    ),
    (
        5444,
        "Fix chunk prefill bug for long_sequence feature",
        "When there are two requests with chunk prefill enabled in the long-sequence scenario, if"
        " one request has only 1 token during scheduling, it will be identified as a decode"
        " request and trigger an error.",
    ),
    (
        12810,
        "Support eager for MTP in MRV2. The key Ascend-specific piece is build_wrapper, which"
        " injects positions into the draft attention metadata so that MLA draft tokens receive"
        " correct RoPE.",
        "The key Ascend-specific piece is build_wrapper, which injects positions into the draft"
        " attention metadata so that MLA draft tokens receive correct RoPE.",
    ),
    # an announcement, then what it announces
    (
        6682,
        "This PR provides two features: It allows triggering the action via workflow_dispatch to"
        " translate .po files and submit a PR to a specified branch.",
        "It allows triggering the action via workflow_dispatch to translate .po files and submit"
        " a PR to a specified branch. If a submitted PR contains documentation files, it will"
        " prompt the user to download the corresponding translated .po files.",
    ),
    (
        4489,
        "This patch mainly doing the following things: Make k8s/lws optional for multi-node"
        " testing, allowing developers to run multi-node tests locally by actively passing in the"
        " IP addresses of all nodes.",
        "Make k8s/lws optional for multi-node testing, allowing developers to run multi-node tests"
        " locally by actively passing in the IP addresses of all nodes. Allows passing a custom"
        " proxy script path in the config file to load the proxy.",
    ),
    (
        13506,
        "Two things in this PR: Adapted the operator csrc/attention/kv_quant_sparse_attn_sharedkv"
        " for dspark.",
        "Adapted the operator csrc/attention/kv_quant_sparse_attn_sharedkv for dspark. The weight"
        " loading problem caused by inconsistent weight data types of DeepSeek V4 is resolved.",
    ),
    # a sentence over a list of names: the sentence, not its first name
    (
        12896,
        "Remove four legacy custom operator implementations that no longer have runtime callers:"
        " indexer_compress_epilog",
        "Remove four legacy custom operator implementations that no longer have runtime callers",
    ),
    # an announcement after a sentence is left out
    (
        1385,
        "This PR aims to address a long-standing CI bug and remove unused code. The specific"
        " changes include:",
        "This PR aims to address a long-standing CI bug and remove unused code.",
    ),
    (
        2612,
        "There are a lot of redundant codes related to moe here, and the structure is not very"
        " clear. We did the following things：",
        "There are a lot of redundant codes related to moe here, and the structure is not very"
        " clear.",
    ),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("number, before, after", REAL, ids=[str(r[0]) for r in REAL])
def test_real_what_sentences_read_as_told(number, before, after):
    row, d = real(number)
    assert d.what == after
    assert d.what != before
    assert is_span(d.what, row["body"])
    assert len(d.what) <= MAX_TEXT + 1


# descriptions whose what stays as it was (each read by hand)
KEPT = [
    # the title repeated, nothing more in the section: the title's words stay (the renderer
    # leaves them out)
    (7533, "Added a patch file for 310P to adapt to Qwen3.5"),
    # a second sentence that goes on from the first ("And …") is no what of its own
    (
        12541,
        "Recompute Scheduler main2main to v0.25.1. And drop short request schedule on Recompute"
        " Scheduler, because it does not support enable on prefill nodes.",
    ),
    # "depends on <link>. And only if …": not passed over into a sentence that goes on from it
    (
        4075,
        "This PR depends on PR https://github.com/vllm-project/vllm-ascend/pull/4046. And only if"
        " the latter merged, it will work.",
    ),
    # first person telling what the change does is no process
    (
        1321,
        "PR913 introduced an error that caused V0's spec decode function to fail. PR1109 wanted to"
        " fix this problem. Unfortunately, the fix broke the ngram function. I fixed the ngram"
        " function in this PR.",
    ),
    # after the title, a line of commands ("git revert <sha> git revert <sha>") says no more
    (6891, "Revert speedup image building and CI Installation related PRs"),
    # "Based on #7476, this PR keeps …" is what it does, not only where it belongs
    (
        9701,
        "this PR keeps KV Pool load failure block-id reporting for non-hybrid models and removes"
        " the hybrid peer-block failure grouping logic.",
    ),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("number, what", KEPT, ids=[str(r[0]) for r in KEPT])
def test_real_what_sentences_kept(number, what):
    row, d = real(number)
    assert d.what == what
    assert is_span(d.what, row["body"])


SYNTHETIC = [
    # a wrapped paragraph: a capitalised name on the next line that would not have fitted on
    # the line goes on the sentence
    (
        "wrapped",
        "Fix",
        H + "This change fixes the accuracy of the fused attention kernel in models like\n"
        "Qwen and Llama when they run with a very long context window.\n",
        "This change fixes the accuracy of the fused attention kernel in models like Qwen and"
        " Llama when they run with a very long context window.",
    ),
    # a short line without punctuation, then a capitalised one: two sentences
    (
        "line end",
        "Fix",
        H + "Cache the rotary tables per device to cut prefill latency\n"
        "This also removes the global lock that serialised the two decode streams\n",
        "Cache the rotary tables per device to cut prefill latency",
    ),
    # a line ending with a word that goes on ("for") is wrapped, not ended
    (
        "goes on",
        "Fix",
        H + "Add a switch for\nQwen models to use the fused kernel\n",
        "Add a switch for Qwen models to use the fused kernel",
    ),
    # a counted announcement over a list: the list's first item
    (
        "announcement",
        "Fix",
        H + "This PR addresses two items:\n- Add a unit test for the reshape path.\n"
        "- Rename the option.\n",
        "Add a unit test for the reshape path. Rename the option.",
    ),
    # the author's doings alone, then what it does
    (
        "process",
        "Fix",
        H + "I have rebased this PR on main.\n\nThe scheduler now drops finished requests before"
        " the next step.\n",
        "The scheduler now drops finished requests before the next step.",
    ),
    # a numbered list after an announcement: its first item
    (
        "numbered",
        "Fix",
        H + "This PR makes the following modifications: 1.drop the old cache 2.add a test\n",
        "drop the old cache",
    ),
    # the title again, then a note: the note is no what, the title's words stay
    (
        "title then note",
        "[Misc] Bump the version",
        H + "Bump the version.\n\nNote: nothing else changes here at all.\n",
        "Bump the version.",
    ),
]


@pytest.mark.parametrize("name, title, body, what", SYNTHETIC, ids=[s[0] for s in SYNTHETIC])
def test_synthetic_what_sentences(name, title, body, what):
    d = digest_of(title, body)
    assert d.what == what
    assert is_span(d.what, body)


# (number, its what): a sentence that admits open problems gives only the words before the
# admission — the list after it lists the problems, not what the change does
ADMITS = [
    # "This is the initial support of `FULL_AND_PIECEWISE` and there are several issues remain
    # to be resolved: 1. Mixed batch …"
    (9572, "This is the initial support of FULL_AND_PIECEWISE"),
    # negatives: an admission in a later paragraph leaves the what as it was
    (7959, "This PR aims to remove the overwriting of the speculative_config.enforce_eager"),
    (3125, "Adds support for capturing the Multi-Layer Attention (MLA) decode operation"),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("number,start", ADMITS, ids=[str(n) for n, _ in ADMITS])
def test_an_admission_of_open_problems_is_no_what(number: int, start: str) -> None:
    row, d = real(number)
    assert d.what.startswith(start), d.what
    assert "remain to be resolved" not in d.what and "Mixed batch" not in d.what
    assert is_span(d.what, row["body"])
