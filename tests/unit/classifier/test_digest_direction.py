"""Digest readings that turn on which way a word points (issue #15, second reading of 2026-W34
and 2026-06-10): "leak" is a memory problem only beside a word of memory; real bodies, positives
and negatives; every sentence still a span of its body."""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import MEMORY_LEAK, clip, digest_of, is_span
from shared.wording import lifts_stopgap

from .test_digest import real


@pytest.mark.parametrize(
    "number",
    [
        10146,  # "state or behavior leaking into generic, non-NPU, and config-only flows"
        9763,  # "its page size leaked into unify_kv_cache_spec_page_size"
        11384,  # "the obsolete local parser path that leaked split tags"
    ],
)
def test_a_leak_of_state_or_config_is_no_memory_problem(number):
    row, d = real(number)
    assert not MEMORY_LEAK.search(d.symptom), d.symptom
    assert "leak" not in d.symptom.lower(), d.symptom
    assert not d.symptom or is_span(d.symptom, row["body"])


@pytest.mark.parametrize(
    "number,words",
    [
        (12126, "leaking an extra NPU context onto device 0"),
        (8069, "extra NPU context leaking on device 0"),
    ],
)
def test_a_leak_beside_memory_words_is_grave(number, words):
    row, d = real(number)
    assert words in d.symptom
    assert is_span(d.symptom, row["body"])


@pytest.mark.parametrize(
    "text,memory",
    [
        ("This mismatch left the KV cache unreleased, leading to memory leaks.", True),
        ("The worker leaks HBM on every abort.", True),
        ("KV cache blocks are leaked when a request is aborted.", True),
        ("Ascend-specific config leaking into generic code paths.", False),
        ("The env var leaked into the subprocess.", False),
    ],
)
def test_memory_leak_needs_a_memory_word_beside_it(text, memory):
    assert bool(MEMORY_LEAK.search(text)) is memory
    d = digest_of("Fix it", f"### What this PR does / why we need it?\n\n{text}\n")
    assert bool(d.symptom) is memory


def test_an_own_repository_address_is_kept_as_related():
    # "- https://github.com/vllm-project/vllm-ascend/pull/12356" under "Related release:"
    _, d = real(14379)
    assert ("related", 12356, None) in {(r.kind, r.number, r.repo) for r in d.refs}


def test_own_addresses_related_bare_numbers_not_and_one_reference_per_change():
    own = "https://github.com/o/r/pull"
    body = (
        f"Follow-up of {own}/7. See also {own}/8 and <{own}/9>; step #3 is unrelated.\n"
        f"Fixes https://github.com/o/r/issues/11. Mirrors {own}/42."
    )
    d = digest_of("Do it", body, repo="o/r", number=42)
    assert {(r.kind, r.number, r.repo) for r in d.refs} == {
        ("follow_up", 7, None),
        ("related", 8, None),
        ("related", 9, None),
        ("fixes", 11, None),
    }


@pytest.mark.parametrize(
    "number,said,kinds",
    [
        # "NPU end-to-end validation has not been run locally": no end-to-end test ran
        (14046, "NPU end-to-end validation has not been run locally.", ("manual", "not_run")),
        (14023, "The targeted pytest files and mypy could not be run", ("unit", "ci", "not_run")),
        (13790, "The full pytest suite was not run locally", ("manual", "not_run")),
        (9438, "Not run locally: NPU build/runtime validation.", ("not_run",)),
    ],
)
def test_a_description_saying_tests_were_not_run_is_tested_not_run(number, said, kinds):
    row, d = real(number)
    assert d.tested == kinds
    assert d.tested_text.startswith(said), d.tested_text
    assert is_span(d.tested_text, row["body"])


@pytest.mark.parametrize(
    "number,kinds",
    [
        (12804, None),  # "The offline gitleaks hook could not run": a checker, no test
        (12054, None),  # "coverage data of the failed and not run test cases": no saying
        (933, None),  # "the CI machine could not run V3 due to the HBM limits": tested locally
        (
            14379,
            ("none",),
        ),  # "NPU functional tests were not run because … only updates documentation"
        (12121, ("none",)),  # "Not run; docs-only change."
    ],
)
def test_checkers_not_run_and_changes_that_need_no_test_are_no_tests_not_run(number, kinds):
    row, d = real(number)
    assert "not_run" not in d.tested
    if kinds is not None:
        assert d.tested == kinds
        assert is_span(d.tested_text, row["body"])


@pytest.mark.parametrize(
    "number,kind,name",
    [
        # "The former top-level `enable_sleep_mode_extra_cleanup` option has also been removed"
        (13748, "removed", "enable_sleep_mode_extra_cleanup"),
        # "No runtime or API behavior changes" yet "documents the removal of `ASCEND_BUFFER_POOL`"
        (14379, "removed", "ASCEND_BUFFER_POOL"),
        (
            13820,
            "removed",
            "ASCEND_BUFFER_POOL",
        ),  # "`ASCEND_BUFFER_POOL` is removed and replaced by"
        (11899, "removed", "pa_shape_list"),  # "Yes. `pa_shape_list` is removed"
        (2450, "renamed", "VLLM_LLMDD_RPC_PORT"),  # "rename VLLM_LLMDD_RPC_PORT to VLLM_ASCEND_…"
    ],
)
def test_a_setting_said_to_be_removed_or_renamed_is_an_interface_change(number, kind, name):
    row, d = real(number)
    found = {c.name: c for c in d.interface}
    assert name in found and found[name].kind == kind, d.interface
    assert is_span(found[name].sentence, row["body"])


@pytest.mark.parametrize(
    "number,name",
    [
        (13093, "--async-scheduling"),  # removed "from various model deployment tutorials"
        (12193, "seq_lens_q"),  # "removing unused parameters" of a function
        (7596, "QUANT_MODEL_PREFIX_MAPPINGS"),  # "Removed `QUANT_MODEL_PREFIX_MAPPINGS` dictionary"
        (12503, "special_dependencies.transformers"),  # out of nightly test configurations
        (13859, "ASCEND_ENABLE_USE_FABRIC_MEM"),  # "from e2e weekly test configurations"
    ],
)
def test_names_taken_out_of_docs_tests_or_code_are_no_interface_change(number, name):
    _, d = real(number)
    assert name not in {c.name for c in d.interface}, d.interface


@pytest.mark.parametrize(
    "text",
    [
        "word " * 10 + "a_very_long_identifier_" * 20,  # no space in the second half
        "x" * 50 + " " + "path/to/some/file.yaml;" * 20,
        "GLM-5.1-W8A8C8-A3_3.5k_1.5k_0_50.yaml;" * 10,
    ],
)
def test_a_clipped_text_never_ends_inside_a_word(text):
    out = clip(text, 120)
    assert len(out) <= 120 and out.endswith("…")
    head = out[:-1]
    assert text.startswith(head)
    nxt = text[len(head) : len(head) + 1]
    assert not (head[-1:].isalnum() and (nxt.isalnum() or nxt == "_")), out


def test_a_real_list_of_file_names_is_cut_between_names():
    row, d = real(13370)  # "We add GLM5.1-w8a8c8 weekly cases:GLM-5.1-W8A8C8-MTP-A3_3.5k_….yaml;…"
    assert d.what.endswith("…")
    head = d.what[:-1]
    body = " ".join(row["body"].split())
    at = body.find(head)
    assert at >= 0 and not body[at + len(head)].isalnum(), d.what


@pytest.mark.parametrize(
    "number,lifts",
    [
        (14391, True),  # "[CI] Re-enable DeepSeek V4 test": the skip "temporarily" added goes
        (5039, True),  # "Revert temporary skip on mtp1/mtp2 correctness tests"
        (11122, True),  # "Restore FULL_AND_PIECEWISE coverage for PP"
        (990, False),  # "Re-enable sleep mode test and skip failure breaking CI": adds a skip too
        (10324, False),  # "Revert Build cache temporarily to avoid further impact": a stopgap
        (13810, False),  # "Restore NPU memory helper import": no test back on
        (12228, False),  # "Restore paged attention fallback (reverts #11899)"
    ],
)
def test_a_title_that_lifts_a_stopgap_and_adds_none(number, lifts):
    row, _ = real(number)
    assert lifts_stopgap(row["title"]) is lifts


@pytest.mark.parametrize(
    "number,start",
    [
        # "GVA layerwise KV cache pools can map …": background; the next paragraph is the change
        (14046, "This PR adds a common layerwise buffer-reuse completion contract"),
        (
            10262,
            "This PR introduces a minimal, zero-code-change logging layer",
        ),  # after "Currently, …"
        (10032, "Rebuild target input ids, positions"),  # after "… may correct num_computed_tokens"
        (8514, "This PR provides a quick fix"),  # later in the paragraph of "Currently …"
        (4254, "The fix ensures compute_logits executes correctly"),  # after "Previously, …"
    ],
)
def test_the_what_is_the_change_not_the_background_before_it(number, start):
    row, d = real(number)
    assert d.what.startswith(start), d.what
    assert is_span(d.what, row["body"])


@pytest.mark.parametrize(
    "number,start",
    [
        # "Previously implemention of triton rope_siso missing …": the later "This PR fixes it
        # and supplement nightly test case for it." only answers it
        (7082, "Previously implemention of triton rope_siso"),
        # "We need to unify these codes …" is no change said
        (4359, "Currently, there are two paths to judge the chip type"),
        (14391, "The bug that previously required the DeepSeek V4 test"),  # no background opening
    ],
)
def test_background_stays_the_what_when_no_later_sentence_says_the_change(number, start):
    row, d = real(number)
    assert d.what.startswith(start), d.what
    assert is_span(d.what, row["body"])


@pytest.mark.parametrize(
    "number,grave",
    [
        (10146, False),  # "to avoid crashes in config-only test cases": the tests' crash
        (4755, False),  # "Avoid oom during CI by using with VllmRunner …"
        (5036, False),  # "Add ut for the cumsum_group_list function … precision issues"
        # "Due to incomplete CI coverage, the 310P execution path can … [cause] runtime crashes"
        (8085, True),
        (14688, True),  # "… once the graph mode precision issue is fixed": the product's
    ],
)
def test_a_grave_problem_of_the_tests_is_no_symptom(number, grave):
    row, d = real(number)
    assert bool(d.symptom) is grave, d.symptom
    assert not d.symptom or is_span(d.symptom, row["body"])
