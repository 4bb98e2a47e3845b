"""What makes a key PR and a risk, weighed by what a change is (issue #15, 2026-W22 and the day
2026-07-09): size alone never makes a key PR (#9363, +1,848 lines ported from another repository,
was key for "large change" only); code migrated in counts as less than its size (#11626, +9,947
lines "Migrate … from ops-transformer"); a default turned on, off or changed ranks high and is said
(#9572 "the default graph mode is changed to FULL_AND_PIECEWISE" was no key reason); a docs change
carries no risk of code (#9567 was a "concurrency change"), a docs tooling change is no very large
change (#8368), and a one-line guard (#11544) is no high risk. Real titles, descriptions and
per-file lines; negatives beside each positive."""

from __future__ import annotations

from datetime import timedelta

import pytest

from services.summarizer.domain.report import (
    _LARGE_LINES,
    ReportPolicy,
    changes_default,
    key_reasons,
    own_code_lines,
    score_pr,
    sized_lines,
)
from shared.events import Tag

from .summarizer_builders import ItemSpec
from .test_summarizer_fix_burst import FILLER, at, summarize
from .test_summarizer_line_kinds import snap_tags


def real(number: int, *categories: str):
    snap, tags = snap_tags(number)
    cats = tuple(Tag(name=c, rule=f"cat:{c}") for c in categories)
    return snap, tags.model_copy(update={"categories": cats})


@pytest.mark.parametrize("number", [9572, 9438, 9611, 6664, 10874, 1123, 6366, 84])
def test_a_default_turned_on_off_or_changed_is_told(number):
    # "the default graph mode is changed to …", "Disable SwiGLU clamp by default", "Update
    # default method", "enable npugraph_ex by default", "Disable npugraph_ex by default on 310P";
    # the digest's sentence (Digest.default_change): "Set ACL_OP_INIT_MODE env var default to 0",
    # "Use fused op by default"; a title "reset default block_size from 16 to 128"
    assert changes_default(*real(number))


@pytest.mark.parametrize("number", [9504, 8308, 9390, 9201, 13409, 6094])
def test_a_new_options_default_or_an_unchanged_one_is_no_default_change(number):
    # "adds a new configuration parameter … (default: disabled)"; "Existing sampling behaviors
    # remain unchanged by default"; a CI config's "Change default main2main model"; another
    # change's new default this one adapts to ("#5790 changes default addrmsnormBias operator")
    assert not changes_default(*real(number))


def test_a_default_change_ranks_high_and_is_its_first_reason():
    snap, tags = real(9572, "feature")
    score, signals = score_pr(snap, tags, ReportPolicy())
    reasons = key_reasons(snap, tags, signals)
    assert reasons[0] == "default_change"
    without = score_pr(snap, tags.model_copy(update={"digest": None}), ReportPolicy())[0]
    assert score - without >= 2.0


def test_code_brought_in_or_beside_the_product_counts_as_less_than_its_size():
    ported, migrated, own = real(9363, "bugfix"), real(11626, "feature"), real(8308, "performance")
    assert sized_lines(*ported) < _LARGE_LINES <= ported[0].additions
    assert sized_lines(*migrated) < _LARGE_LINES < migrated[0].additions
    assert sized_lines(*own) >= _LARGE_LINES
    # "large" is the project's own code: #9363 is no large change, reduce sampling is
    assert "large" not in key_reasons(*ported, score_pr(*ported, ReportPolicy())[1])
    assert "large" in key_reasons(*own, score_pr(*own, ReportPolicy())[1])
    # a docs codegen framework under tools/ with its docs and tests: little code of the product
    tooling = real(8368)
    assert own_code_lines(*tooling) < _LARGE_LINES < tooling[0].additions
    assert own_code_lines(*own) >= _LARGE_LINES


def test_a_change_key_only_for_its_size_comes_after_every_change_with_a_reason():
    big = ItemSpec(
        1,
        "pull_request",
        at(1) - timedelta(hours=5),
        merged=at(1),
        title="[Misc] Reshape the scheduler internals",
        additions=4000,
        deletions=100,
        files=("vllm_ascend/core/scheduler.py",),
        risks=("core-change",),
    )
    small = [
        ItemSpec(
            10 + i,
            "pull_request",
            at(2) - timedelta(hours=5),
            merged=at(2),
            title=f"[Feature] Support option {i} for component {i}",
            additions=30,
            files=(f"vllm_ascend/feature{i}.py",),
            categories=("feature",),
        )
        for i in range(3)
    ]
    s = summarize([*FILLER, big, *small])
    keys = [k.item.number for k in s.key_prs]
    # it scores highest, yet comes after the three features; it still fills the quota
    assert keys[:4] == [10, 11, 12, 1]
    assert s.key_prs[3].score > s.key_prs[0].score
    assert s.key_prs[3].reasons == ("large", "core")


def _risk(s, name):
    return next((r for r in s.risks if r.risk == name), None)


def test_a_tiny_core_change_without_tests_is_no_high_risk():
    def change(lines: int) -> ItemSpec:
        return ItemSpec(
            1,
            "pull_request",
            at(1) - timedelta(hours=5),
            merged=at(1),
            title="[BugFix][Core] Fix schedule new_tokens near max_model_len",
            additions=lines,
            deletions=0,
            files=("vllm_ascend/core/recompute_scheduler.py",),
            risks=(("core-without-tests", "high"),),
        )

    # a one-line change is no change to ask tests of (2026-W34: #14394 +4/-1 was "high")
    assert _risk(summarize([*FILLER, change(1)]), "core-without-tests") is None
    assert _risk(summarize([*FILLER, change(40)]), "core-without-tests").severity == "high"


def _real_risk(number: int, risk: str, *categories: str) -> ItemSpec:
    from tests.conftest import history_prs

    from .summarizer_builders import real_pr

    row = history_prs()[number]
    return real_pr(
        row,
        at(1),
        additions=sum(f["additions"] or 0 for f in row["files"]),
        deletions=sum(f["deletions"] or 0 for f in row["files"]),
        categories=categories,
        risks=((risk, "high"),),
    )


@pytest.mark.parametrize(
    "number,untestable",
    [
        (13782, True),  # "Remove MiniMax-M2 fp8 dequant load_weights patch", +2/-109
        (14643, True),  # "Remove redundant deepcopy of scheduler_output", +6/-13
        (10201, True),  # "[Misc] Enhance error messages and logging …", 12 files
        (14394, True),  # +4/-1
        (14250, False),  # "allocate MTP hidden buffer only for speculative decoding", +27/-19
        (13994, False),  # "Eplb supports Mega MoE", +59/-26
        (13946, False),  # "remove FlashComm v1": -2,006 lines of code, but +589 too
    ],
)
def test_a_tiny_change_a_removal_or_a_logging_change_asks_no_tests(number, untestable):
    from services.summarizer.domain.report import _untestable

    assert _untestable(*real(number)) is untestable


def test_a_change_saying_its_tests_were_not_run_is_a_risk():
    # "NPU end-to-end validation has not been run locally" (real #14046); #14250 says no such thing
    s = summarize([*FILLER, _real_risk(14046, "x", "bugfix"), _real_risk(14250, "x", "bugfix")])
    risk = _risk(s, "tests-not-run")
    assert risk.items == (14046,) and "not been run" in risk.reason


def test_a_docs_change_carries_no_risk_of_code():
    docs = ItemSpec(
        1,
        "pull_request",
        at(1) - timedelta(hours=5),
        merged=at(1),
        title="[Doc]: remove --async-scheduling from configs and docs",
        additions=0,
        deletions=137,
        files=("docs/source/tutorials/a.md", "tests/e2e/configs/b.yaml"),
        risks=("concurrency-change/keyword", "large-change/file-count", "core-change"),
    )
    s = summarize([*FILLER, docs])
    assert not {r.risk for r in s.risks if 1 in r.items}
    # the same words on a change of code are its risk
    code = ItemSpec(**{**docs.__dict__, "files": ("vllm_ascend/core/scheduler.py",)})
    s = summarize([*FILLER, code])
    assert {"concurrency-change", "core-change"} <= {r.risk for r in s.risks if 1 in r.items}


def _tagged(number: int, risk: str, *categories: str) -> ItemSpec:
    from dataclasses import replace

    spec = _real_risk(number, risk, *categories)
    return replace(spec, risks=((risk, "medium"),))


def test_a_subsystem_with_a_test_loosened_and_a_fix_is_one_high_risk():
    # 2026-W34's graph capture: #14688 "[CI] temporarily skip graph mode precision e2e test",
    # #14307 "[bugfix] fix bug when D node with mix_cudagraph_mode …", #13946 "remove FlashComm v1"
    skip = _tagged(14688, "graph-capture", "ci")
    fix = _tagged(14307, "graph-capture", "bugfix")
    other = _tagged(13946, "graph-capture", "refactor")
    s = summarize([*FILLER, skip, fix, other])
    risk = _risk(s, "graph-capture")
    assert (risk.severity, risk.items) == ("high", (13946, 14307, 14688))
    assert s.risks[0].risk == "graph-capture"  # above any single change's gap
    # no fix among them, or no test loosened: the area's changes stay a medium risk
    assert _risk(summarize([*FILLER, skip, other]), "graph-capture").severity == "medium"
    quiet = _risk(summarize([*FILLER, fix, other]), "graph-capture")
    assert (quiet.severity, quiet.items) == ("medium", (13946, 14307))


def test_a_small_core_change_without_tests_is_no_high_risk():
    # 2026-07-10: #11790 "[BugFix]Fix fused_infer_attention ops contiguous err", +8/-4 in one file,
    # was the day's only high risk; #14250 (+27/-19 in one file) and #13994 "Eplb
    # supports Mega MoE" (+59/-26) keep theirs
    for number, level in ((11790, "medium"), (14250, "high"), (13994, "high")):
        s = summarize([*FILLER, _real_risk(number, "core-without-tests", "bugfix")])
        assert _risk(s, "core-without-tests").severity == level, number
