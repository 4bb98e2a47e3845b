"""A burst of fixes after a big change is instability, told once (issue #15): 2026-W21 merged
"[Feature] Support DeepseekV4" (#9270) and, within four days, seven fixes of the same line that
touch its code — and the report said nothing. Real titles and files of that week; a line of
fixes by nature (2025-W51's PP fixes) and a line whose fixes touch other code (2026-W21's
Ascend950) never fire."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from services.summarizer.domain.report import BURST_FIXES
from services.summarizer.domain.storylines import term_counts_of
from shared.events import Digest, Reference

from .summarizer_builders import ItemSpec, Scenario, window_input
from .test_summarizer_explained import NOW, WEEK, build_summary

MODEL = "vllm_ascend/models/deepseek_v4.py"
MOE = "vllm_ascend/ops/fused_moe/fused_moe.py"
RUNNER = "vllm_ascend/worker/model_runner_v1.py"
DSA = "vllm_ascend/attention/dsa_v1.py"
KV = "vllm_ascend/patch/platform/patch_kv_cache_utils.py"


def at(day: float) -> datetime:
    # 2026-06-08 is the Monday of W24 (noon in Shanghai)
    return datetime(2026, 6, 8, 4, tzinfo=UTC) + timedelta(days=day)


def pr(number: int, title: str, day: float, files, **kw) -> ItemSpec:
    merged = at(day)
    kw.setdefault("additions", 40)
    kw.setdefault("deletions", 10)
    return ItemSpec(
        number,
        "pull_request",
        merged=merged,
        opened=merged - timedelta(hours=5),
        title=title,
        files=tuple(files),
        **kw,
    )


def fix(number: int, title: str, day: float, files) -> ItemSpec:
    return pr(number, title, day, files, categories=("bugfix",))


# the week's other work: enough changes for a busy week, each of its own files
FILLER = [
    pr(600 + i, f"[Misc] tidy component{i} internals", i % 7, (f"vllm_ascend/misc/c{i}.py",))
    for i in range(30)
]

# 2026-W21's DeepSeek V4 line (titles and files as merged; days as in that week)
SUPPORT = pr(
    9270,
    "[Feature] Support DeepseekV4",
    1.2,
    (MODEL, MOE, RUNNER, DSA, KV, "setup.py", "tests/ut/ops/test_fused_moe.py"),
    additions=9000,
    deletions=300,
    categories=("feature",),
)
DSV4_FIXES = [
    fix(9367, "[BugFix][KVCache] Separate Deepseek-V4 MTP layer KVCache sharding", 1.5, (KV,)),
    fix(
        9389,
        "[BugFix][A2]Avoid duplicate MoE all-reduce for DeepSeek V4 tensor outputs",
        2.4,
        (MODEL,),
    ),
    fix(9452, "[BugFix][Model] Fix DeepSeek V4 hc_pre op and add 4-card E2E test", 3.3, (MODEL,)),
    fix(9456, "[BugFix]Fix Deepseek-V4 async scheduling with MTP", 3.5, (RUNNER,)),
    fix(9487, "[BugFix] Fix serial inference anomaly of DeepSeek-V4", 4.3, (DSA,)),
    fix(
        9488,
        "[BugFix] Fix precision anomaly of DeepSeek-V4 on A2 when FlashComm is enabled",
        4.4,
        ("tests/ut/ops/test_fused_moe.py", MOE),
    ),
]
OTHER_DSV4 = [
    pr(
        9396,
        "[Feature][Model] Switch DeepSeekV4 hc_pre to fused op",
        2.0,
        ("vllm_ascend/ops/hc_pre.py",),
        categories=("feature",),
    ),
    pr(
        9441,
        "[Feature] DeepSeekV4 DSA indexer_select_qli cv multistream overlap",
        3.0,
        ("vllm_ascend/attention/indexer.py",),
        categories=("feature",),
    ),
]


# a history where DeepSeek V4 and PP are rare names (as they were before these weeks)
HISTORY = (
    [f"[BugFix] fix crash in worker {i}" for i in range(400)]
    + [f"[Feature] support model family {i}" for i in range(300)]
    + [f"[Doc] update guide section {i}" for i in range(280)]
    + ["[Model] DeepSeek V3 bring-up", "[Bugfix] PP fix"] * 3
)


def summarize(items):
    events = Scenario(items=list(items)).events()
    inp = window_input(
        events, WEEK, term_counts=term_counts_of(HISTORY), history_items=len(HISTORY)
    )
    return build_summary(inp, now=NOW)


def bursts(s):
    return [i for i in s.incidents if i.kind == "fix_burst"]


def test_fixes_of_the_same_line_after_a_new_feature_are_one_instability_line():
    s = summarize([*FILLER, SUPPORT, *DSV4_FIXES, *OTHER_DSV4])
    line = next(st for st in s.storylines if 9270 in {i.number for i in st.items})
    told = bursts(s)
    assert len(told) == 1
    burst = told[0]
    # the change, then its fixes in merge order
    assert burst.items == (9270, 9367, 9389, 9452, 9456, 9487, 9488)
    assert burst.roles == ("added", *("fixed",) * 6)
    assert burst.subject == line.name
    assert not burst.across_windows
    follow = [f for f in s.follow_ups if f.kind == "fix_burst"]
    assert [(f.item.number, f.items) for f in follow] == [(9270, burst.items[1:])]
    assert line.name in follow[0].reason


def test_fixes_before_the_change_or_of_other_code_do_not_count():
    # the change lands after most fixes: only the two after it follow it
    late = pr(9270, SUPPORT.title, 4.0, SUPPORT.files, additions=9000, categories=("feature",))
    assert not bursts(summarize([*FILLER, late, *DSV4_FIXES, *OTHER_DSV4]))
    # fixes of the line that touch none of its files (Ascend950 in 2026-W21: fixes of mxfp8
    # scales and eagle3 beside an mc2 feature) are no evidence that they answer it
    elsewhere = [
        fix(n.number, n.title, 3.0 + k / 10, (f"vllm_ascend/other/o{k}.py",))
        for k, n in enumerate(DSV4_FIXES)
    ]
    assert not bursts(summarize([*FILLER, SUPPORT, *elsewhere, *OTHER_DSV4]))


def test_a_line_of_fixes_by_nature_never_fires():
    # 2025-W51: three PP fixes, no change for them to follow
    pp = [
        fix(
            4913,
            "[Bugfix] Fix the bug in initializing the shared_weight communication domain in "
            "sfa-cp, and fix the mtp weight load in pp>1 situation",
            0.5,
            ("vllm_ascend/distributed/parallel_state.py", "vllm_ascend/spec_decode/mtp.py"),
        ),
        fix(
            4902,
            "[Bugfix] Add support for PP intermediate value types in graph mode",
            1.0,
            ("vllm_ascend/distributed/parallel_state.py",),
        ),
        fix(
            4960,
            "[Bugfix] Fix PP hang when the last rank has no requests",
            2.0,
            ("vllm_ascend/distributed/parallel_state.py",),
        ),
        fix(
            4971,
            "[Bugfix] Fix PP weight loading of the draft model",
            3.0,
            ("vllm_ascend/distributed/parallel_state.py",),
        ),
    ]
    assert len(pp) > BURST_FIXES
    assert not bursts(summarize([*FILLER, *pp]))


def test_fixes_a_fix_up_chain_already_tells_are_not_told_again():
    # four of the fixes say they fix #9270: the chain of references tells them
    said = Digest(refs=(Reference(kind="fix_up", number=9270),))
    chained = [replace(f, digest=said) if k < 4 else f for k, f in enumerate(DSV4_FIXES)]
    s = summarize([*FILLER, SUPPORT, *chained, *OTHER_DSV4])
    told = {n for i in s.incidents if i.kind == "instability" for n in i.items}
    assert {9270, 9367, 9389, 9452, 9456} <= told
    assert not bursts(s)  # the change is the chain's to tell, and two fixes are left


def test_a_change_of_the_previous_window_is_followed_across_windows():
    # "Support DeepseekV4" merged the week before; its fixes this week
    before = replace(SUPPORT, merged=at(-3), opened=at(-3) - timedelta(hours=5))
    s = summarize([*FILLER, before, *DSV4_FIXES, *OTHER_DSV4])
    told = bursts(s)
    assert [(i.items[0], i.across_windows) for i in told] == [(9270, True)]
    assert told[0].items[1:] == tuple(f.number for f in DSV4_FIXES)
    # the earlier change is named with its title in the summary
    assert 9270 in {r.number for r in s.referenced}


def test_fixes_opened_before_the_change_do_not_follow_it():
    # 2026-W32's MoE line: the refactor #13268 merged on the previous Saturday, then three MoE
    # fixes touching its files — two of them opened before it (#12772, #13012)
    fused, routed = "vllm_ascend/ops/fused_moe/fused_moe.py", "vllm_ascend/ops/fused_moe/routed.py"
    refactor = pr(
        13268,
        "[Refactor][Ops] Move Ascend routed experts logic out of MoE runner",
        -2.0,
        (fused, routed, "vllm_ascend/patch/platform/patch_fused_moe.py"),
        additions=700,
        deletions=600,
    )
    moe_fixes = [
        fix(
            12772,
            "[Core][BugFix][Test] Fix sequence parallelism for both MoE and dense model",
            0.1,
            (fused,),
        ),
        fix(
            13337, "[MTP][BugFix] Preserve MoE weight loaders during online updates", 2.0, (routed,)
        ),
        fix(13012, "[BugFix][Worker] Fix Level-2 sleep MoE weight reload layout", 4.0, (fused,)),
    ]
    others = [
        pr(
            13400 + k,
            f"[Feature] MoE {what}",
            1.0 + k,
            (f"vllm_ascend/ops/moe_{k}.py",),
            categories=("feature",),
        )
        for k, what in enumerate(("W8A8 dynamic LoRA", "gating top-k kernel"))
    ]
    s = summarize([*FILLER, refactor, *moe_fixes, *others])
    assert not bursts(s)
    # the same fixes opened after it are a burst
    later = [replace(f, number=13300 + k) for k, f in enumerate(moe_fixes)]
    s = summarize([*FILLER, refactor, *later, *others])
    assert [i.items[0] for i in bursts(s)] == [13268]
