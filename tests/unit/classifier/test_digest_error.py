"""The digest's `error`: the sentence of a description that names an error a user hits (an
exception, an assertion, "no attribute", something failing to start or load) — a day without
issues tells fixes of them among its problems worth attention (2025-12-18 said "none" beside
#4973's assert error with PP + PD and #5165's enable_force_load_balance failure). Real bodies;
every sentence a span of its body; errors of CI, tests or docs are none. And a "Revert" title
that turns skipped tests back on (real #5039) reverts no change."""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import digest_of, is_span

from .test_digest import REPO, real


@pytest.mark.parametrize(
    "number,start",
    [
        (4973, "Currently, when using pipeline parallel and pd disaggregate, model_runner will"),
        (5165, "This PR aims to fix failure of enable_force_load_balance caused by missing"),
        (3437, "Fix ZeroDivisionError when prefill_tp_size > num_kv_head"),
        (4599, "Fix the issue where the qwen3 moe service cannot be started"),
        (13136, "When NPUPlatform run select_moe_comm_method, it evaluates"),
    ],
)
def test_an_error_users_hit_is_told_in_the_descriptions_words(number, start):
    row, d = real(number)
    assert d.error.startswith(start), d.error
    assert is_span(d.error, row["body"])


@pytest.mark.parametrize(
    "number",
    [
        5121,  # "creates empty vllm_config instead": wrong, but no error named
        5147,  # "defensive against potential attribute errors" names none hit (its title does)
        4423,  # "Error Traceback:" over a pasted trace: a heading, not a sentence
        4993,  # a refactor that names no error
    ],
)
def test_no_error_where_none_is_said(number):
    _row, d = real(number)
    assert d.error == ""


def test_errors_of_ci_tests_or_docs_and_in_test_sections_are_none():
    what = "### What this PR does / why we need it?\n"
    assert digest_of("x", what + "The nightly CI job raises an AttributeError on A3.\n").error == ""
    assert digest_of("x", what + "Fix the typo that causes a docs build error.\n").error == ""
    tested = what + "Tidy.\n### How was this patch tested?\nNo RuntimeError in 100 runs.\n"
    assert digest_of("x", tested).error == ""
    said = what + "Loading the W8A8 weights raises a KeyError for the MTP layer.\n"
    assert digest_of("x", said).error.startswith("Loading the W8A8 weights raises a KeyError")


def test_a_revert_of_a_skip_reverts_no_change_and_a_fix_keeps_its_revert():
    # real #5039 "[Fix]Revert temporary skip on mtp1/mtp2 correctness tests (aclgraph fix)"
    _row, d = real(5039)
    assert not [r for r in d.refs if r.kind == "reverts"]
    # a real revert title still is one
    rev = digest_of('Revert "[Perf] faster sampler (#123)"', "", repo=REPO, number=200)
    assert [(r.kind, r.number) for r in rev.refs] == [("reverts", 123)]
    # real #5093 "[bugfix] fix mtp accept rate", item 4 of 4: "Reverts …#5082, which broke CI"
    _row, d = real(5093)
    assert [(r.kind, r.number) for r in d.refs if r.kind == "reverts"] == [("reverts", 5082)]
