"""What a description says users will notice in how they configure or run the code (settings
added, removed, renamed, given a new default) and what it says is temporary or comes next — on
REAL descriptions of vllm-project/vllm-ascend (../shared/data/vllm-ascend-history, read in
place), negatives included. Every sentence the digest quotes is a span of its body."""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import digest_of, is_span
from tests.conftest import history_prs

pytestmark = pytest.mark.shared_data

REPO = "vllm-project/vllm-ascend"


_rows = history_prs  # the real history, by number (tests/conftest.py)


def digest(number: int):
    row = _rows()[number]
    return digest_of(row["title"], row["body"] or "", repo=REPO, number=number), row


# (number, the settings it changes as (kind, name), written by hand from each description)
INTERFACE = [
    # 2026-W13: "remove `sp_threshold` in additional config and reuse `sp_min_token_num` from
    # vLLM" — the one it reuses is no change
    (7044, [("removed", "sp_threshold")]),
    # "a new feature controlled by the `VLLM_ASCEND_BALANCE_SCHEDULING` environment variable"
    (7611, [("added", "VLLM_ASCEND_BALANCE_SCHEDULING")]),
    # "provide its own default `max_cudagraph_capture_size`"
    (7572, [("default", "max_cudagraph_capture_size")]),
    # "add an new options for load-format: rfork"
    (7392, [("added", "load-format: rfork")]),
    (12496, [("removed", "dp_allreduce_on_npu")]),
    # "A new additional_config key mega_moe_max_tokens": the key, not where it lives
    (11258, [("added", "mega_moe_max_tokens")]),
    (8769, [("added", "need_timing"), ("default", "smooth_factor")]),
    # "No breaking user-facing changes. A new configuration option enable_reduce_sample is added
    # to AscendConfig …": the answer denies a break, not the new option
    (8308, [("added", "enable_reduce_sample")]),
    # negatives: the answer says users see no change (#7511's lint hooks); a function's
    # parameter (#5094); a kernel's constexpr (#10395); "No default change" (#12256); what an
    # old implementation dropped (#13337); a bug another change brought, "which add an arg"
    # (#1273); a CI script that tolerates a missing log (#7552)
    (7511, []),
    (5094, []),
    (10395, []),
    (12256, []),
    (13337, []),
    (1273, []),
    (7552, []),
    # "Add the now-necessary `all2all_backend` parameter. … it has no effect on the
    # `vllm-ascend` logic" (#5223): what its paragraph says has no effect is no change users
    # notice; a "no-op" another paragraph names leaves #10454's new option told
    (5223, []),
    (10454, [("added", "reduce_results")]),
    # an environment variable removed: by the title ("Remove VLLM_ASCEND_ENABLE_DENSE_OPTIMIZE",
    # #5272), by a pronoun after it ("`VLLM_ENABLE_FUSED_EXPERTS_ALLGATHER_EP` is not used
    # anywhere, let's remove it", #5270); negatives: taken out of examples and tests or code
    # ("Remove VLLM_USE_V1 in example and tests", #1733; "… usage in code", #1764)
    (5272, [("removed", "VLLM_ASCEND_ENABLE_DENSE_OPTIMIZE")]),
    (5270, [("removed", "VLLM_ENABLE_FUSED_EXPERTS_ALLGATHER_EP")]),
    (1733, []),
    (1764, []),
]


@pytest.mark.parametrize("number,expected", INTERFACE, ids=[str(n) for n, _ in INTERFACE])
def test_settings_users_will_notice(number: int, expected: list[tuple[str, str]]) -> None:
    d, row = digest(number)
    assert [(c.kind, c.name) for c in d.interface] == expected
    for c in d.interface:
        assert is_span(c.sentence, row["body"]), c.sentence


def test_a_sentence_of_a_setting_is_quoted_as_the_body_says_it() -> None:
    d, _ = digest(7044)
    assert d.interface[0].sentence == (
        "remove sp_threshold in additional config and reuse sp_min_token_num from vLLM."
    )
    d, _ = digest(7611)
    assert d.interface[0].sentence == (
        "Yes, this PR introduces a new feature controlled by the VLLM_ASCEND_BALANCE_SCHEDULING "
        "environment variable."
    )


# (number, how its first next step starts; None: it announces none)
NEXT_STEPS = [
    (7619, "This will be discard after Eagle3 weight for MiniMax-M2.5 releases"),
    (7611, "Further testing should be done to validate the performance"),
    (7511, "add root .clang-format aligned with upstream vllm"),  # "temporarily exclude all csrc/"
    (7044, "2nd PR for https://github.com/vllm-project/vllm-ascend/issues/5712"),
    (14688, "This is a temporary disable to unblock CI; it should be re-enabled once"),
    (1029, "TODO: Add e2e test with torchair and deepseek once the CI resource is available."),
    # open work admitted: the admission's own clause, with the first open item of its list
    (9572, "there are several issues remain to be resolved: Mixed batch and uniform batch"),
    (4400, "Known issue: ray doesn't work"),
    (7959, "Remaining problem: there are still some bugs in running dsv32 mtp"),
    # work left for later or apart from this change
    (9363, "A dedicated E2E test can be added separately."),
    (10977, "Performance improvement will be considered in the near future."),
    (8459, "Cases in FULL_DECODE_ONLY mode will be added later."),
    # a stopgap kept "until …", then what is left as it was ("is still reproduced verbatim")
    (11310, "Route the config probe's env-var fallback through vllm_ascend.envs"),
    # negatives: a runtime step that is temporary (#5274 "temporarily increases memory usage"),
    # a temporary log removed (#13669), a skip whose bug has been fixed (#14391), a stopgap of
    # before (#13713 "It was a temporary solution"), no step at all (#7552, #7455, #7392)
    (5274, None),
    # the interim before this change lands is nothing left after it ("Workaround until this
    # lands: …", #9548); what the change adds that "is still missing" is its what, not open work
    # (#13503, #9787); "Known issues：" over nothing the digest reads (#2145)
    (9548, None),
    (13503, None),
    (9787, None),
    (2145, None),
    (13669, None),
    (14391, None),
    (13713, None),
    (7552, None),
    (7455, None),
    (7392, None),
]


@pytest.mark.parametrize("number,start", NEXT_STEPS, ids=[str(n) for n, _ in NEXT_STEPS])
def test_what_a_change_says_is_temporary_or_comes_next(number: int, start: str | None) -> None:
    d, row = digest(number)
    if start is None:
        assert d.next_steps == ()
        return
    assert d.next_steps and d.next_steps[0].startswith(start), d.next_steps
    for said in d.next_steps:
        assert is_span(said, row["body"]), said


def test_a_step_is_told_from_its_clause_without_the_link_after_it() -> None:
    """#7619 writes its step on the line after the what-sentence, no full stop between, and a
    link after it: the step alone is quoted."""
    d, _ = digest(7619)
    assert d.next_steps[0] == (
        "This will be discard after Eagle3 weight for MiniMax-M2.5 releases and code change "
        "accepted by official repo"
    )


def test_the_whole_history_quotes_spans_only() -> None:
    rows = _rows()
    changes = steps = 0
    for number, row in rows.items():
        d = digest_of(row["title"], row["body"] or "", repo=REPO, number=number)
        for c in d.interface:
            changes += 1
            assert is_span(c.sentence, row["body"] or ""), (number, c.sentence)
        for s in d.next_steps:
            steps += 1
            assert is_span(s, row["body"] or ""), (number, s)
    # few: a setting or a next step is something a description says on purpose (1-3 % of 4,734)
    assert 40 <= changes <= 250 and 40 <= steps <= 200, (changes, steps)


@pytest.mark.parametrize(
    "what,expected",
    [
        # no real vllm-ascend description renames a setting: written by hand, both word orders
        ("The `--enable-foo` flag is renamed to `--enable-bar`.", ("--enable-foo", "--enable-bar")),
        ("Rename the config option `old_key` to `new_key`.", ("old_key", "new_key")),
        ("Rename the helper function `old_fn` to `new_fn`.", None),  # code, not a setting
    ],
)
def test_a_renamed_setting_keeps_both_names(what: str, expected: tuple[str, str] | None) -> None:
    body = f"### What this PR does / why we need it?\n{what}\n"
    d = digest_of("Rename", body)
    got = [(c.name, c.new_name) for c in d.interface if c.kind == "renamed"]
    assert got == ([expected] if expected else [])


def test_what_is_left_as_it_was_is_a_step_too() -> None:
    d, _ = digest(11310)
    assert any(
        said.startswith("The schedule() body is still reproduced verbatim") for said in d.next_steps
    )


# (number, how the sentence that gives something a new default starts; None: none is said)
DEFAULTS = [
    # the user-facing answer first ("Yes, the default graph mode is changed to …")
    (9572, "Yes, the default graph mode is changed to FULL_AND_PIECEWISE"),
    (6664, "Yes. npugraph_ex is now enabled by default."),
    # what the change does
    (9567, "This parameter is now enabled by default"),
    (5545, "This PR enables hierarchical MC2 operations on A2 by default."),
    (8769, "Change smooth_factor default from 0.8 to 1.0."),
    # negatives: behaviour "unchanged by default" (#8308); defaults not changed (#4411 "No
    # default behaviors are changed"); another project's default ("In vLLM main branch,
    # async_scheduling is now enabled by default", #12528; "#5790 changes default …", #6094); a
    # default to come ("we will enable this feature by default", #7029); one of before ("V1 is
    # enabled by default", #1733; "has enabled NZ conversion … by default since #4878", #11945);
    # an answer that users see no change (#11584)
    (8308, None),
    (4411, None),
    (12528, None),
    (6094, None),
    (7029, None),
    (1733, None),
    (11945, None),
    (11584, None),
]


@pytest.mark.parametrize("number,start", DEFAULTS, ids=[str(n) for n, _ in DEFAULTS])
def test_a_new_default_is_told_in_the_bodys_words(number: int, start: str | None) -> None:
    d, row = digest(number)
    if start is None:
        assert d.default_change == "", d.default_change
        return
    assert d.default_change.startswith(start), d.default_change
    assert is_span(d.default_change, row["body"]), d.default_change


def test_few_changes_say_they_give_a_new_default() -> None:
    rows = _rows()
    said = []
    for number, row in rows.items():
        d = digest_of(row["title"], row["body"] or "", repo=REPO, number=number)
        if d.default_change:
            said.append(number)
            assert is_span(d.default_change, row["body"] or ""), (number, d.default_change)
    # a new default is something a description says on purpose: under 1 % of 4,734
    assert 10 <= len(said) <= 60, len(said)


# (number, user_facing): the answer to "user-facing change?" that says the change stays inside
# the code is a no, whatever else it says ("It only adds and refactors internal Triton kernels
# and wrappers for Ascend", #4304; "This is an internal fix to adapt to the operator input
# parameter constraints", #8387); negatives: answers that say what users get (#7611's new
# environment variable) or deny only a break (#8308)
INTERNAL_ANSWERS = [(4304, "no"), (8387, "no"), (7611, "yes"), (8308, "no")]


@pytest.mark.parametrize(
    "number,expected", INTERNAL_ANSWERS, ids=[str(n) for n, _ in INTERNAL_ANSWERS]
)
def test_an_answer_of_internal_code_only_is_no_user_facing_change(
    number: int, expected: str
) -> None:
    d, row = digest(number)
    assert d.user_facing == expected
    if expected == "yes":
        assert d.user_facing_text and is_span(d.user_facing_text, row["body"])


def test_a_description_that_says_users_feel_the_change_is_user_facing() -> None:
    # no template answer, but its own words: "this change is user impacted. dump_config is
    # changed from dict to string." (real #5296)
    d, row = digest(5296)
    assert d.user_facing == "yes"
    assert d.user_facing_text == (
        "this change is user impacted. dump_config is changed from dict to string."
    )
    assert is_span(d.user_facing_text, row["body"])
    # negatives: no template answer and no such words stay unknown (#5272); the template's
    # answer wins over the rule (#4304 answers that only internal kernels change)
    assert digest(5272)[0].user_facing == "unknown"
    assert digest(4304)[0].user_facing == "no"


def test_the_change_told_under_the_next_heading_is_the_what_never_the_headings() -> None:
    # "### What this PR does / why we need it?" left empty, the change told under "### Does this
    # PR introduce _any_ user-facing change?" (real #5223, whose what 2025-W52 showed as the two
    # headings): the answer that is no yes/no is the what
    d, row = digest(5223)
    assert "Add the now-necessary all2all_backend parameter" in d.what
    assert "What this PR does" not in d.what and "user-facing change" not in d.what
    assert is_span(d.what, row["body"])
    # negatives: a what section that holds anything (#8564's RFC link) is not passed over for
    # the answer, which stays its user-facing text; a filled what section is read as before
    assert digest(8564)[0].what == ""
    assert digest(4304)[0].what.startswith("This commit introduces a Triton-based")


def test_the_change_told_as_the_answer_does_not_make_it_user_facing() -> None:
    # the answer that stands for the empty what ("Fix vllm break: 1. … Fix Solution: Add the
    # now-necessary all2all_backend parameter", real #5223) says no yes and no word of users:
    # not a "yes"
    d, _ = digest(5223)
    assert d.user_facing == "unknown" and d.user_facing_text == ""
    assert "all2all_backend" in d.what
    # negatives: a yes answer stays yes with its text (#9572), a no stays no (#4304), an answer
    # beside a filled what section that tells a new setting stays yes (#8564, #5296's own words)
    d, _ = digest(9572)
    assert d.user_facing == "yes" and d.user_facing_text.startswith("the default graph mode")
    assert digest(4304)[0].user_facing == "no"
    assert digest(8564)[0].user_facing == "yes"
    assert digest(5296)[0].user_facing == "yes"
