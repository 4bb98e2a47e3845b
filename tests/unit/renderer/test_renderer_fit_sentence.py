"""A what-sentence told in a short line is never cut into a clause: whole sentences, a main clause,
or nothing (the caller shows the title); a "This PR …" lead-in gives way to its verb. Sentences
from the real vllm-ascend history (2026-W13, W27, W30 readings)."""

from __future__ import annotations

import pytest

from services.renderer.domain.text import fit_sentence, without_lead_in


@pytest.mark.parametrize(
    "sentence,expected",
    [
        (
            "This PR adds C8 (INT8) KV cache quantization support.",
            "Adds C8 (INT8) KV cache quantization support.",
        ),
        (
            "This PR aims to enhance the operator performance in the post_update phase.",
            "Enhance the operator performance in the post_update phase.",
        ),
        ("In this PR, we add a new kernel.", "Add a new kernel."),
        ("This pull request updates the forward method.", "Updates the forward method."),
        # the subject stays where the verb is no action of the change
        ("This PR is a follow-up of #12.", "This PR is a follow-up of #12."),
        ("This PR has been tested on A3.", "This PR has been tested on A3."),
        ("This PR's scope is small.", "This PR's scope is small."),
        ("Adds MTP support.", "Adds MTP support."),
        # a label before the sentence goes; a name before a colon stays
        ("Symptom: With pcp=2 + MTP the accuracy drops.", "With pcp=2 + MTP the accuracy drops."),
        (
            "Feature Integration: Added support for approximate flash attention.",
            "Added support for approximate flash attention.",
        ),
        ("Root cause: this PR fixes the race.", "Fixes the race."),
        ("MTP: support the draft head.", "MTP: support the draft head."),
        # what is left once a description's "builds upon PR …" went (real #5721), capitalised
        (
            "aims to further enhance the npu_graph_ex_passes module.",
            "Further enhance the npu_graph_ex_passes module.",
        ),
        ("keeps the block ids.", "Keeps the block ids."),
        ("DeepSeek-V4: add the loader.", "DeepSeek-V4: add the loader."),
    ],
)
def test_the_lead_in_gives_way_to_the_verb(sentence, expected):
    assert without_lead_in(sentence) == expected


@pytest.mark.parametrize(
    "text,limit,expected",
    [
        # fits whole
        (
            "Add A5 mla operators to support running DeepSeek models on A5.",
            80,
            "Add A5 mla operators to support running DeepSeek models on A5.",
        ),
        # two sentences when both fit, one when only the first does
        ("Fixes the hang. Adds a test.", 80, "Fixes the hang. Adds a test."),
        (
            "Fixes the hang of the decode node in PD disaggregation. Adds an e2e test for it too.",
            60,
            "Fixes the hang of the decode node in PD disaggregation.",
        ),
        # an aside goes before a sentence is given up
        (
            "Adds C8 (INT8) KV cache quantization support for standard GQA attention models (e.g., Qwen3-32B W8A8C8).",
            80,
            "Adds C8 (INT8) KV cache quantization support for standard GQA attention models.",
        ),
        # a main clause before a comma stands for the sentence
        (
            "Fix the hang of DeepSeek v3.1 C8 when overlaying MTP and full graph modes, which was caused by "
            "a race between the two streams in the scheduler path.",
            90,
            "Fix the hang of DeepSeek v3.1 C8 when overlaying MTP and full graph modes",
        ),
        # a sentence that opens with its condition says its point after the comma: nothing fits
        (
            "To adapt the Qwen3.5 model to the Ascend 310P, the Torch implementation of the causal_conv1d_fn "
            "and causal_conv1d_update single operators is added to the Ascend 310P.",
            90,
            "",
        ),
        (
            "During the prefill phase of Qwen3-Next and Qwen3.5, the causal_conv1d_fn operator is slow.",
            60,
            "",
        ),
        # ... but an opening that says why may go when the main clause after it fits (real #7440,
        # #7675): the clause is true alone
        (
            "To adapt the Qwen3.5 model to the Ascend 310P, the Torch implementation of the causal_conv1d_fn "
            "and causal_conv1d_update single operators is added to the Ascend 310P.",
            160,
            "The Torch implementation of the causal_conv1d_fn and causal_conv1d_update single operators "
            "is added to the Ascend 310P.",
        ),
        (
            "Since upstream vLLM has upgraded to v0.18.0, we also need to upgrade RecomputeScheduler to "
            "pick up missing updates.",
            80,
            "We also need to upgrade RecomputeScheduler to pick up missing updates.",
        ),
        # the comma of a list inside the opening is no clause end
        (
            "To support Qwen3, Qwen3.5 and GLM-5, the fused kernel now takes a per-head scale.",
            60,
            "The fused kernel now takes a per-head scale.",
        ),
        # a condition does not go: the clause would be false without it
        ("If the config file is missing, the server crashes at start-up.", 40, ""),
        ("When MTP is on, the scheduler hangs after the first step.", 40, ""),
        # a sentence announcing a list the line cannot show ends the opening
        (
            "Optimizes the slot mapping kernel. The key changes include:",
            80,
            "Optimizes the slot mapping kernel.",
        ),
        ("The key changes include: a, b and c.", 80, "The key changes include: a, b and c."),
        # a head with an open parenthesis or a short one is no clause
        (
            "Replace the custom op (which fails on, say, CANN 9) with torch_npu's built-in one everywhere.",
            40,
            "",
        ),
        (
            "Tidy, and then rewrite the whole dispatch path of the fused MoE communication layer.",
            40,
            "",
        ),
        ("", 80, ""),
    ],
)
def test_a_sentence_is_told_whole_as_a_main_clause_or_not_at_all(text, limit, expected):
    out = fit_sentence(text, limit)
    assert out == expected
    assert len(out) <= limit and not out.endswith("…")


def test_a_summary_that_repeats_its_leads_title_gives_way_to_the_roles():
    """Real #13350: its description is its title again ("[Misc][MRV2] support mamba to mrv2")."""
    from services.renderer.adapters.documents import render_markdown

    from .explain_samples import explained_summary
    from .test_renderer_explains import section

    s = explained_summary()
    lead = next(i for i in s.appendix.merged_prs if i.number == 10501)
    st = s.storylines[0].model_copy(update={"summary": "[Model] Support DeepSeek-V4 on Ascend"})
    said = lead.model_copy(
        update={"digest": lead.digest.model_copy(update={"what": lead.title}), "claims": ()}
        if lead.digest is not None
        else {}
    )
    merged = tuple(said if i.number == 10501 else i for i in s.appendix.merged_prs)
    keys = tuple(
        k.model_copy(update={"item": said}) if k.item.number == 10501 else k for k in s.key_prs
    )
    s = s.model_copy(
        update={
            "storylines": (st, *s.storylines[1:]),
            "appendix": s.appendix.model_copy(update={"merged_prs": merged}),
            "key_prs": keys,
        }
    )
    assert lead.title == "[Model] Support DeepSeek-V4 on Ascend"
    first = [
        ln
        for ln in section(render_markdown(s, "en"), "Highlights").splitlines()
        if ln.startswith("- ")
    ][0]
    assert first.startswith("- **DeepSeek-V4** (3 merged PRs): 2 features and 1 fix in models — ")


def test_a_line_named_by_an_english_phrase_is_quoted_in_chinese():
    """2026-W27: "持平（Rewrite Qwen3-30B-A3B and Qwen3-Coder-30B-A3B tutorials）" read as English
    prose inside Chinese; a name (DeepSeek-V4, MTP) stays as it is."""
    from services.renderer.adapters.documents import render_markdown

    from .explain_samples import explained_summary
    from .test_renderer_explains import section

    s = explained_summary()
    st = s.storylines[1].model_copy(update={"name": "Rewrite the build cache"})
    s = s.model_copy(update={"storylines": (s.storylines[0], st)})
    zh = section(render_markdown(s, "zh-CN"), "亮点")
    assert "**「Rewrite the build cache」**" in zh and "**DeepSeek-V4**" in zh
    assert "**Rewrite the build cache**" in section(render_markdown(s, "en"), "Highlights")


@pytest.mark.parametrize(
    "text,expected",
    [
        # real #7044 (2026-03-24's key change): a raw address in the middle of the line
        (
            "2nd PR for https://github.com/vllm-project/vllm-ascend/issues/5712, extend SP to VL MoE models.",
            "2nd PR for #5712, extend SP to VL MoE models.",
        ),
        (
            "Ported from https://github.com/vllm-project/vllm/pull/37512/changes upstream.",
            "Ported from vllm-project/vllm#37512 upstream.",
        ),
        ("See https://github.com/vllm-project/vllm-ascend/pull/12#issuecomment-1.", "See #12."),
        # other addresses stay as written
        (
            "Docs at https://docs.vllm.ai/en/latest/ now.",
            "Docs at https://docs.vllm.ai/en/latest/ now.",
        ),
    ],
)
def test_a_github_address_in_a_quoted_sentence_reads_as_github_writes_it(text, expected):
    from services.renderer.domain.text import short_refs

    assert short_refs(text, "vllm-project/vllm-ascend") == expected


def test_a_key_change_quotes_its_sentence_with_short_references():
    from services.renderer.adapters.documents import render_markdown

    from .explain_samples import explained_summary

    s = explained_summary()
    k = s.key_prs[0]
    url = f"https://github.com/{s.repo}/issues/5712"
    said = k.item.model_copy(
        update={
            "digest": k.item.digest.model_copy(update={"what": f"2nd PR for {url}, extend SP."})
        }
    )
    s = s.model_copy(update={"key_prs": (k.model_copy(update={"item": said}), *s.key_prs[1:])})
    md = render_markdown(s, "en")
    assert "2nd PR for #5712, extend SP" in md and url not in md


def _what(body: str) -> str:
    """The opening of a real description's "What this PR does" section, on one line."""
    import re

    m = re.search(r"What this PR does[^\n]*\n(.*?)(?:\n#|\Z)", body, re.S)
    assert m, "the description has a 'What this PR does' section"
    return " ".join(m.group(1).split())


@pytest.mark.parametrize(
    "number,limit,expected",
    [
        # the comma of a list is no clause end: cutting there changes what is said (2026-W34's
        # #13946 read "upstream SP is activated with DP>1", dropping "TP>1 and all2all …")
        (13946, 80, ""),
        (12031, 80, ""),  # "… and its related code, tests, and documentation."
        (14671, 80, ""),  # "… for punica_npu, lora_ops, MoE routing/index helpers, and …"
        (
            12605,
            160,
            "This PR restores the causal attention mask and the corresponding sparse "
            "mode for FIA decode paths",
        ),  # not "…, including normal execution, ACLGraph capture"
        # a comma before a clause still ends the head (a clause word, an "-ing" phrase, "and" + verb)
        (3094, 80, "This PR removed the redundant log prints in register_custom_ops.py"),
        (4595, 80, "This pull request introduces an L2 normalization kernel implemented in Triton"),
        (9509, 80, "Fix the bug causing failures in V2 E2E test cases due to code changes"),
        (
            2614,
            160,
            "* **Unify execution paths:** Consolidates the quantized and non-quantized "
            "execution paths into a single `fused_experts` function",
        ),
    ],
)
def test_a_comma_ends_a_head_only_before_a_clause_never_inside_a_list(number, limit, expected):
    from tests.conftest import history_prs

    text = _what(history_prs()[number]["body"])
    assert fit_sentence(text, limit) == expected


@pytest.mark.parametrize(
    "text,limit,expected",
    [
        (
            "Upstream SP is activated with DP>1, TP>1 and all2all backend allgather_reducescatter.",
            60,
            "",
        ),
        ("Supports Qwen3 on the A3 nodes, the A2 nodes and the 310P cards of the cluster.", 40, ""),
        (
            "Fix the crash in the fused MoE dispatch path, which was caused by a stale buffer.",
            50,
            "Fix the crash in the fused MoE dispatch path",
        ),
        (
            "Removes the deprecated flashcomm switch everywhere, so the config no longer takes it.",
            60,
            "Removes the deprecated flashcomm switch everywhere",
        ),
        (
            "Adds the fused kernel for the decode path of MLA, and wires it into the runner too.",
            60,
            "Adds the fused kernel for the decode path of MLA",
        ),
    ],
)
def test_a_comma_before_a_clause_ends_the_head_a_list_comma_does_not(text, limit, expected):
    assert fit_sentence(text, limit) == expected
