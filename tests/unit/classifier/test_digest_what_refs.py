"""The what says what the change does, not where it points or comes from (issue #15, "reports
that explain"): on real vllm-ascend descriptions read in place (each read by hand; the what
before kept beside the one now) and on synthetic ones for the rules' edges.

- a sentence that only names a reference ("To solve the problem of the issue：<link>", "Fix
  #1234.") is no what: the next candidate is, or nothing;
- a sentence that only says where the change comes from ("It comes from 0.9.1dev […] (#1547)",
  "Ports #N to main.", "The PR is the cherry-pick from v0.9.1 <link>") is no what either, and
  the changes it names are backports;
- a sentence opening with "Refactor …" or "Seems …" is no "ref"/"see" pointer;
- a sentence that only restates the title gives way to the next one of its paragraph that says
  why or how;
- a revert whose what speaks of the reverted change tells the harm that change did;
- "a prompt has been added for setting the `x`" adds no setting.
"""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import MAX_TEXT, digest_of, is_span
from tests.unit.classifier.test_digest import real, refs_of

H = "### What this PR does / why we need it?\n"

# number -> (the what before, the what now)
CHANGED = [
    # a reference alone, then the list under the what heading: its first item
    (
        5592,
        "To solve the problem of the issue：https://github.com/vllm-project/vllm-ascend/issues/2262",
        "support for cross-attention when the model is encoder-decoder",
    ),
    # a reference alone, then the paragraph that says what
    (
        7789,
        "To fix the issue:7769",
        "The GPUModelRunner updates the output_token_ids of sampling_metadata before each sample."
        " However, the NPUModelRunner does not perform this step.",
    ),
    (
        1229,
        "This PR is used for resolved issue 1147",
        "Move fused_moe code into one file fused_moe.py. Integrate branch conditions into function"
        " get_fused_moe_state.",
    ),
    # a reference alone and nothing after it: no what
    (
        2541,
        "The detail has been clarified in that issue :"
        " https://github.com/vllm-project/vllm-ascend/issues/2557",
        "",
    ),
    (3116, "fix the problem of https://github.com/vllm-project/vllm-ascend/issues/3114", ""),
    # where it comes from: a version and another change's commit subject, nothing after it
    (
        2088,
        "It comes from 0.9.1dev [0.9.1][Feature]Moe alltoallv communication optimization for"
        " unquantized RL training sence & alltoallv support dpo (#1547)",
        "",
    ),
    (12470, "port #12351 to main branch.", ""),
    # where it comes from, then what it does (on the next line, no stop between them)
    (
        2124,
        "The PR is the cherry-pick from v0.9.1 https://github.com/vllm-project/vllm-ascend/pull/1953",
        "This PR introduce a new load balance proxy server example implementation for"
        " disaggregated pd, which support simple token&kv_cache aware load balance routing"
        " strategy for the disaggregated pd system compared with origin round robin…",
    ),
    (
        2532,
        "This PR ports #2312 #2506 #2531 to main branch.",
        "Original implementation of torchair caching forces users to make everything prepared,"
        " fix all the configuration and enable use_cached_npu_graph, and it might cause some"
        " problems confusing to understand and tackle for users.",
    ),
    # "Refactor …" read as the pointer "ref": the sentence was passed over for a reference
    (
        5214,
        "RFC：https://github.com/vllm-project/vllm-ascend/issues/5449",
        "Refactor pcp& dcp related code. we use pcp_manager class to Unifiy Manage pcp & dcp . as"
        " we do this , many code can be deleted from model_runner, and can avoid break pcp & dcp"
        " by other developments.",
    ),
    # the title restated, then why
    (
        8029,
        "This PR aims to fix attention state of short prompt for correct forwarding.",
        "Since a batch of short prompts (prefill tokens less than or equal to num_spec_tokens + 1)"
        " will be treated as decode requests (by split_decodes_and_prefills), its original"
        " PrefillNoCache attention state contradicts.",
    ),
    # a revert: the harm the reverted change did
    (
        11021,
        "This PR reverts #10077. PR #10077 introduced new functionality for"
        " MooncakeLayerwiseConnector.",
        "This PR reverts #10077. PR #10077 introduced new functionality for"
        " MooncakeLayerwiseConnector. However, this change causes compatibility issues in some"
        " model scenarios.",
    ),
    (
        11562,
        "This PR reverts #9865 / commit 9099b7f66d123ea704e329d7586333ad8b08db50, which introduced"
        " pre-KV ACL graph memory profiling in determine_available_memory().",
        "After that change, the combined scenario below can hang during inference and eventually"
        " fail with an HCCL timeout in lmhead TP communication",
    ),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("number, before, after", CHANGED, ids=[str(r[0]) for r in CHANGED])
def test_real_whats_that_said_nothing(number, before, after):
    row, d = real(number)
    assert d.what == after
    assert d.what != before
    assert is_span(d.what, row["body"])
    assert len(d.what) <= MAX_TEXT + 1


# descriptions whose what stays as it was (each read by hand)
KEPT = [
    # a reference with words of what the change does
    (682, "Fix #674 to avoild KVCache overallocation and OOM risks."),
    (
        3765,
        "Add custom op to nightly tests, fix https://github.com/vllm-project/vllm-ascend/pull/3665",
    ),
    # "same to: <link>" with more than where it comes from
    (
        9008,
        "same to: https://github.com/vllm-project/vllm-ascend/pull/8337 , and fixed ci test error.",
    ),
    # the title restated, nothing after it that says why or how: kept
    (6193, "This patch purpose to add the update_max_model_len interface."),
    # a list's items are changes of their own, not the first one's why
    (1109, "Set default values to fix spec decode"),
    (799, "Move Release Compatibility Matrix to top"),
    # a revert's what that already tells the harm
    (
        5529,
        "PR4214 was intended to collect expert heat by processing multiple streams, which could"
        " lead to memory overwriting and accuracy issues.",
    ),
    # a revert whose body is the reverted change's own description: its harm words are of the
    # problem that change fixed, not of the revert
    (
        11994,
        "This PR unifies FIA actual_seq_lengths handling for ViT encoder ACL graph across eager,"
        " capture, and replay.",
    ),
    # no revert: "reverting #13268 restores BF16 accuracy" was an experiment
    (
        13412,
        "PR #13268 moved Ascend quant-method selection into AscendRoutedExperts._get_quant_method.",
    ),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("number, what", KEPT, ids=[str(r[0]) for r in KEPT])
def test_real_whats_kept(number, what):
    row, d = real(number)
    assert d.what == what
    assert is_span(d.what, row["body"])


BACKPORTS = [
    (2088, {("backport", 1547, None)}),  # "It comes from 0.9.1dev […] (#1547)"
    (2124, {("backport", 1953, None)}),  # was "related"
    (2532, {("backport", 2312, None), ("backport", 2506, None), ("backport", 2531, None)}),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("number, refs", BACKPORTS, ids=[str(r[0]) for r in BACKPORTS])
def test_where_a_change_comes_from_is_a_backport(number, refs):
    row, d = real(number)
    assert refs <= refs_of(d)
    assert not any(r.kind == "related" and (r.kind, r.number, r.repo) in refs for r in d.refs)
    # each with the sentence that says where it comes from (a release's line of work reads the
    # branch or version there: "It comes from 0.9.1dev …"), a span of the description
    for r in d.refs:
        if r.kind == "backport":
            assert r.context and is_span(r.context.rstrip("…"), row["body"])
    if number == 2088:
        assert "0.9.1dev" in next(r.context for r in d.refs if r.number == 1547)


@pytest.mark.shared_data
def test_where_it_comes_from_is_no_backport_when_it_names_the_backport_or_an_issue():
    # "This main-branch fix is intended to land before the corresponding v0.26 backport in
    # #13408": #13408 is this change's backport, not what it backports
    _, d = real(13503)
    assert all(r.kind != "backport" for r in d.refs)
    # "Come from <issue link>": an issue is no change to port
    _, d = real(13268)
    assert ("backport", 13220, None) not in refs_of(d)
    assert ("related", 13220, None) in refs_of(d)


@pytest.mark.shared_data
def test_a_prompt_added_for_a_setting_adds_no_setting():
    _, d = real(5561)  # "a prompt has been added for setting the cp_kv_cache_interleave_size"
    assert d.interface == ()
    # the setting itself added still is
    _, d = real(11258)  # "A new additional_config key mega_moe_max_tokens is introduced …"
    assert [(i.kind, i.name) for i in d.interface] == [("added", "mega_moe_max_tokens")]


SYNTHETIC = [
    (
        "fix ref",
        "Fix a crash",
        H + "Fix #1234.\n\nAdd a guard for empty batches in the sampler.",
        "Add a guard for empty batches in the sampler.",
    ),
    (
        "see ref",
        "Fix a crash",
        H + "See #12\n\nAdd a guard for empty batches in the sampler.",
        "Add a guard for empty batches in the sampler.",
    ),
    (
        "described",
        "Fix a crash",
        H + "As described in #12.\n\nAdd a guard for empty batches.",
        "Add a guard for empty batches.",
    ),
    ("ref only", "Fix a crash", H + "Fix #1234.", ""),
    ("backport only", "Fix a crash", H + "backport of #77 to v0.9.1-dev", ""),
    # a port of something named in words is what the change does
    (
        "port words",
        "Port",
        H + "Port the DeepSeek sampler fix to the 310P backend.",
        "Port the DeepSeek sampler fix to the 310P backend.",
    ),
    (
        "refactor",
        "Cleanup",
        H + "Refactor the sampler into two classes.\n\nThe old one was slow.",
        "Refactor the sampler into two classes.",
    ),
    (
        "seems",
        "Cleanup",
        H + "Seems the sampler ran twice, so run it once.\n\nIt was slow.",
        "Seems the sampler ran twice, so run it once.",
    ),
]


@pytest.mark.parametrize("name, title, body, what", SYNTHETIC, ids=[s[0] for s in SYNTHETIC])
def test_synthetic_whats(name, title, body, what):
    d = digest_of(title, body)
    assert d is not None and d.what == what


@pytest.mark.shared_data
def test_a_description_that_only_points_is_no_bare_template():
    row, d = real(12470)  # the template, and "port #12351 to main branch." under its what
    assert d.what == ""
    assert not d.template_only
    assert ("backport", 12351, None) in refs_of(d)
    # the template left empty still is
    empty = digest_of("x", H + "\n### Does this PR introduce _any_ user-facing change?\n")
    assert empty is not None and empty.template_only
