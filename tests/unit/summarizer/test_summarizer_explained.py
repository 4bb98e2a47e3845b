"""The summary explains: reverts and what they undid, instability, upgrade fallout, key PRs picked
for what they are, risks that need evidence, one follow-up per concern, figures the source cannot
give left unavailable. Expected values are written by hand from the scenarios below."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from services.summarizer.domain.report import (
    ReportPolicy,
    RequestMeta,
    build_summary,
    key_reasons,
    score_pr,
    upgrade_target,
)
from shared.events import Claim, Digest, Reference, RiskTag, SourceInfo, Tags
from shared.windows import day_window, week_window

from .summarizer_builders import ItemSpec, Scenario, window_input

WEEK = week_window(2026, 24, "Asia/Shanghai")
NOW = datetime(2026, 6, 20, tzinfo=UTC)


SAID = ("loosened", "narrowed", "unfinished")


def at(day: int, hour: int = 12) -> datetime:
    # 2026-06-08 is the Monday of W24; noon in Shanghai is 04:00 UTC
    return datetime(2026, 6, 8, hour - 8, tzinfo=UTC) + timedelta(days=day)


def pr(number: int, title: str, merged: datetime, **kw) -> ItemSpec:
    kw.setdefault("opened", merged - timedelta(hours=5))
    return ItemSpec(number, "pull_request", merged=merged, title=title, **kw)


def summarize(items, meta=RequestMeta(), policy=ReportPolicy(), window=WEEK, **extra):
    sc = Scenario(items=list(items))
    return build_summary(
        window_input(sc.events(), window, **extra), now=NOW, policy=policy, meta=meta
    )


def revert_digest(title: str, number: int | None = None) -> Digest:
    return Digest(refs=(Reference(kind="reverts", title=title, number=number),))


def test_a_revert_and_what_it_reverted_are_never_key_prs_and_make_one_incident():
    items = [
        pr(
            10,
            "[Ops] add triton ops log",
            at(0),
            additions=190,
            deletions=5,
            categories=("feature",),
        ),
        pr(
            11,
            'Revert "[Ops] add triton ops log (#10)"',
            at(3),
            additions=5,
            deletions=190,
            digest=revert_digest("[Ops] add triton ops log", 10),
        ),
        *[pr(20 + n, f"[Feature] unrelated work {n}", at(1), additions=20 + n) for n in range(6)],
    ]
    s = summarize(items)
    keys = {k.item.number for k in s.key_prs}
    assert keys and not keys & {10, 11}
    reverts = [i for i in s.incidents if i.kind == "revert"]
    assert [(i.items, i.subject) for i in reverts] == [((11, 10), "[Ops] add triton ops log")]
    # a revert is never asked to add tests
    for f in s.follow_ups:
        if f.kind == "core_without_tests":
            assert 11 not in f.items


def test_added_fixed_and_reverted_is_one_instability_line_in_merge_order():
    fix = Digest(refs=(Reference(kind="fix_up", number=30),))
    items = [
        pr(30, "[Build] add a compile cache", at(0), categories=("feature",)),
        pr(31, "[BugFix] fix the compile cache key", at(1), categories=("bugfix",), digest=fix),
        pr(
            32,
            'Revert "[Build] add a compile cache (#30)"',
            at(2),
            digest=revert_digest("[Build] add a compile cache", 30),
        ),
    ]
    s = summarize(items)
    unstable = [i for i in s.incidents if i.kind == "instability"]
    assert len(unstable) == 1
    assert unstable[0].items == (30, 31, 32)
    assert unstable[0].roles == ("added", "fixed", "reverted")
    assert [f.kind for f in s.follow_ups].count("instability") == 1


def test_a_bump_followed_by_fixes_in_its_area_is_upgrade_fallout():
    items = [
        pr(
            40,
            "[Misc] Upgrade vLLM to v0.21.0",
            at(0),
            modules=("upstream-sync",),
            files=("Dockerfile", "requirements.txt", "vllm_ascend/worker/model_runner.py"),
        ),
        pr(
            41,
            "[BugFix] adapt to the new scheduler interface",
            at(1),
            modules=("upstream-sync",),
            categories=("bugfix",),
        ),
        pr(
            42,
            "[BugFix] fix UT after upstream change",
            at(2),
            modules=("upstream-sync", "tests"),
            categories=("bugfix",),
        ),
        pr(
            43, "[BugFix] unrelated kernel fix", at(2), modules=("kernels",), categories=("bugfix",)
        ),
    ]
    s = summarize(items)
    fallout = [i for i in s.incidents if i.kind == "upgrade_fallout"]
    assert [(i.items, i.roles) for i in fallout] == [((40, 41, 42), ("bump", "fixed", "fixed"))]
    assert fallout[0].subject == "vLLM v0.21.0"


def test_an_upgrade_of_one_component_brings_no_fallout_in_the_area():
    """2026-W13: "[Misc] Recompute scheduler upgrade to vLLM 0.18.0" (#7675, one file) was
    "followed by" #7709, which adapted model runner v2 to upstream — no fallout of it; a fix that
    names the change still is."""
    one = dict(modules=("upstream-sync",), files=("vllm_ascend/core/recompute_scheduler.py",))
    fix = dict(modules=("upstream-sync",), categories=("bugfix",))
    items = [
        pr(40, "[Misc] Recompute scheduler upgrade to vLLM 0.18.0", at(0), **one),
        pr(41, "[bugfix] adapt to main2main for model runnerv2", at(1), **fix),
    ]
    assert not [i for i in summarize(items).incidents if i.kind == "upgrade_fallout"]
    named = pr(
        42,
        "[BugFix] fix the recompute scheduler after #40",
        at(2),
        digest=Digest(refs=(Reference(kind="fix_up", number=40),)),
        **fix,
    )
    fallout = [i for i in summarize([*items, named]).incidents if i.kind == "upgrade_fallout"]
    assert [i.items for i in fallout] == [(40, 42)]


# real titles of the vllm-ascend history and what each says it upgrades to, read by hand
UPGRADE_TITLES = [
    ("[Misc] Main2main Upgrade vLLM to v0.21.0", "vLLM v0.21.0"),
    ("Bump actions/checkout from 4 to 5", "actions/checkout 5"),
    ("[Bugfix] [kimi] upgrade transformers from 5.5.3 to 5.5.4", "transformers 5.5.4"),
    ("Bump vLLM version to v0.10.2rc2", "vLLM v0.10.2rc2"),
    ("[Misc] Upgrade vllm commit hash to 1215", "vllm 1215"),
    # a commit's date written with a space (2026-W13 read "The upgrade to vllm 03")
    ("Main2main upgrade vllm commit to 03 19 17:00", "vllm 0319"),
    ("Main2main Upgrade vllm commit to 0323 00:48:31", "vllm 0323"),
    ("[CI] upgrade to vllm 0.9.0", "vllm 0.9.0"),
    ("[Misc] upgrade to vllm main", "vllm main"),
    ("[CI]Upgrade Mooncake to 0.3.9 and Image Misc", "Mooncake 0.3.9"),
    ("[Misc][Upgrade] Upgrade CANN to 9.0.0 and triton-ascend to 3.2.1", "CANN 9.0.0"),
    ("[CI] upgrade to newest pta", None),
    ("Bump v0.9.1rc1 release", None),
    ("[Doc] Upgrade to multi-node tutorial model to deepseek-v3.1-w8a8", None),
]


@pytest.mark.parametrize("title,target", UPGRADE_TITLES)
def test_an_upgrade_is_named_by_what_its_title_moves_to(title, target):
    assert upgrade_target(title) == target


def test_why_key_says_what_the_change_is_not_what_it_touches_on_the_way():
    """2026-W02: "support mxfp8 quantization (qwen dense)" is quantization work, not new model
    support; "[BugFix][Fusion] Fix graph fusion failure problem" is a fix, not performance work."""
    policy = ReportPolicy()
    quant = pr(
        5723,
        "support mxfp8 quantization (qwen dense)",
        at(1),
        modules=("quantization", "models"),
        categories=("feature",),
    )
    model = pr(
        5724,
        "[Model] Support the Whisper model",
        at(1),
        modules=("attention", "models"),
        categories=("feature",),
    )
    fix = pr(
        5676,
        "[BugFix][Fusion] Fix graph fusion failure problem",
        at(1),
        modules=("compilation",),
        categories=("bugfix", "performance"),
    )
    reasons = {}
    for spec in (quant, model, fix):
        snap, tags = spec.snapshot(spec.merged), spec.tags()
        reasons[spec.number] = key_reasons(snap, tags, score_pr(snap, tags, policy)[1])
    assert "new_model" not in reasons[5723] and "feature" in reasons[5723]
    assert "new_model" in reasons[5724]
    assert "performance" not in reasons[5676]
    # 2026-W29: a new CI workflow is no product feature; removing an optimisation is no
    # performance work
    ci = pr(
        12270,
        "[CI] add nightly test workflow and config for A3 560T clusters",
        at(1),
        modules=("ci",),
        categories=("feature", "ci"),
        additions=1376,
    )
    removal = pr(
        12119,
        "[Refactor] Remove matmulallreduce and pass optimization techniques",
        at(1),
        modules=("kernels",),
        categories=("refactor", "performance"),
        deletions=3185,
    )
    for spec in (ci, removal):
        snap, tags = spec.snapshot(spec.merged), spec.tags()
        reasons[spec.number] = key_reasons(snap, tags, score_pr(snap, tags, policy)[1])
    assert "feature" not in reasons[12270]
    assert "performance" not in reasons[12119] and "removal" in reasons[12119]
    # 2026-08-05: "user-facing: Yes, auto run A5 nightly pipeline" of a change to CI files alone
    # is no user-facing change; the same answer of a change to the code is
    said = Digest(what="Enable run A5 nightly pipeline.", user_facing="yes")
    nightly = pr(
        13442,
        "[CI] enable A5 nightly test pipeline",
        at(1),
        files=(".github/workflows/nightly_a5.yaml", "tests/e2e/nightly/a5/test_basic.py"),
        digest=said,
    )
    code = pr(13443, "[Feature] A5 support", at(1), files=("vllm_ascend/a5.py",), digest=said)
    for spec in (nightly, code):
        snap, tags = spec.snapshot(spec.merged), spec.tags()
        reasons[spec.number] = key_reasons(snap, tags, score_pr(snap, tags, policy)[1])
    assert "user_facing" not in reasons[13442] and "user_facing" in reasons[13443]


def test_a_removal_its_description_says_users_see_is_a_risk_in_its_own_words():
    """2026-W29: #12031 removed dispatch_gmm_combine_decode, "Yes" to a user-facing change; a
    removal nobody sees and an addition that says user-facing are no such risk."""
    how = "dispatch_gmm_combine_decode is removed, and VLLM_ASCEND_ENABLE_FUSED_MC2 no longer selects mode 2."
    items = [
        pr(
            12031,
            "[Refactor] Remove dispatch_gmm_combine_decode ops",
            at(1),
            additions=36,
            deletions=11956,
            digest=Digest(
                what="Remove the fused operator.", user_facing="yes", user_facing_text=how
            ),
        ),
        pr(
            12032,
            "[Refactor] Remove dead helpers",
            at(1),
            deletions=300,
            digest=Digest(what="Remove unused helpers.", user_facing="no"),
        ),
        pr(
            12033,
            "[Feature] Add a knob",
            at(1),
            additions=300,
            digest=Digest(
                what="Adds a knob.", user_facing="yes", user_facing_text="New --knob flag."
            ),
        ),
    ]
    removals = [i for i in summarize(items).incidents if i.kind == "removal"]
    assert [(i.items, i.reason) for i in removals] == [((12031,), how)]


def test_a_change_that_calls_itself_temporary_and_removals_users_see_are_follow_ups():
    items = [
        pr(
            5746,
            "[CI] Accuracy issue of qwen3-next-w8a8 nightly test fix.",
            at(1),
            digest=Digest(
                what="Close the Full Graph mode to temporarily avoid accuracy issue for Qwen3-Next-80B-A3B-Instruct-W8A8."
            ),
        ),
        pr(
            5747,
            "[Feature] Add the knob",
            at(1),
            digest=Digest(what="Adds a knob to the scheduler."),
        ),
        pr(
            12031,
            "[Refactor] Remove dispatch_gmm_combine_decode ops",
            at(2),
            additions=36,
            deletions=11956,
            digest=Digest(
                what="Remove the fused operator.",
                user_facing="yes",
                user_facing_text="VLLM_ASCEND_ENABLE_FUSED_MC2 no longer selects mode 2.",
            ),
        ),
    ]
    follow = {f.kind: f.items for f in summarize(items).follow_ups}
    assert follow["temporary"] == (5746,) and follow["removal"] == (12031,)


def test_a_revert_made_on_purpose_for_a_while_asks_to_re_land_not_to_find_what_broke():
    """2025-W52: #5410 and #5434 reverted #5275 and #5300 because "The main branch is freeze …
    redo it once 0.13.0 is released"; #5317 reverted #4138 because it hangs."""
    frozen = "We'll release 0.13.0 soon. The main branch is freeze. Let's redo it once 0.13.0 is released."
    items = [
        pr(5275, "MLA prefill performance optimization", at(0), files=("a/mla.py",)),
        pr(
            5410,
            'Revert "MLA prefill performance optimization (#5275)"',
            at(2),
            files=("a/mla.py",),
            digest=Digest(
                what=frozen,
                refs=(Reference(kind="reverts", number=5275, context="The main branch is freeze"),),
            ),
        ),
        pr(
            4138, "[KV-Sharing] Support KV-Sharing feature in CLA models", at(0), files=("a/kv.py",)
        ),
        pr(
            5317,
            'Revert "[KV-Sharing] Support KV-Sharing (#4138)"',
            at(1),
            files=("a/kv.py",),
            digest=Digest(
                refs=(
                    Reference(kind="reverts", number=4138, context="It makes DeepSeek V3.2 hang"),
                )
            ),
        ),
    ]
    s = summarize(items)
    follow = {f.kind: f.items for f in s.follow_ups}
    assert follow["reland"] == (5275,) and follow["revert"] == (4138,)
    # the revert itself says so, for the risk list to tell it apart from a defect's revert
    planned = {i.items[1]: i.planned for i in s.incidents if i.kind == "revert"}
    assert planned == {5275: True, 4138: False}


def test_a_bump_of_ci_tooling_alone_is_followed_only_by_fixes_that_name_it():
    """2025-W52: "Bump actions/checkout from 4 to 6" was said to be followed by a transformers
    pin for Qwen3-VL, for sharing the upgrade area."""
    items = [
        pr(
            5234,
            "[CI] Bump actions/checkout from 4 to 6",
            at(0),
            modules=("upstream-sync",),
            files=(".github/workflows/lint.yaml",),
        ),
        pr(
            5250,
            "[BugFix] pin transformers to 4.57.3 for Qwen3-VL",
            at(1),
            modules=("upstream-sync",),
            categories=("bugfix",),
            files=("requirements.txt",),
        ),
    ]
    assert not [i for i in summarize(items).incidents if i.kind == "upgrade_fallout"]


def test_a_revert_that_pastes_the_reverted_description_gives_no_reason():
    """2026-W29: #11994's body embedded #10824's "This PR unifies FIA …": why the change was
    made, not why it was undone."""
    theirs = "This PR unifies FIA actual_seq_lengths handling for ViT encoder ACL graph across eager and graph modes."
    items = [
        pr(
            10824,
            "[BugFix][Worker] Fix padded sequence length handling for ViT encoder ACL graph",
            at(0),
            digest=Digest(what=theirs),
        ),
        pr(
            11994,
            'Revert "[BugFix][Worker] Fix padded sequence length handling (#10824)"',
            at(2),
            digest=Digest(
                what=theirs, refs=(Reference(kind="reverts", number=10824, context=theirs),)
            ),
        ),
    ]
    (inc,) = [i for i in summarize(items).incidents if i.kind == "revert"]
    assert inc.items[:2] == (11994, 10824) and inc.reason == ""


def test_what_a_change_is_outranks_how_big_it_is():
    claim = Digest(
        what="Adds a fused kernel.",
        claims=(
            Claim(
                kind="performance",
                sentence="Decode throughput improves by 1.3x.",
                figures=("1.3x",),
            ),
        ),
    )
    feature = pr(
        50,
        "[Feature] fused MoE kernel for the new chip",
        at(1),
        additions=120,
        categories=("feature", "performance"),
        digest=claim,
    )
    logging = pr(
        51, "[Misc] improve log quality for better debugging", at(1), additions=400, deletions=180
    )
    policy = ReportPolicy()
    f_score, f_signals = score_pr(feature.snapshot(feature.merged), feature.tags(), policy)
    l_score, l_signals = score_pr(logging.snapshot(logging.merged), logging.tags(), policy)
    assert f_score > l_score
    assert {s.name for s in f_signals} >= {"claims", "kind"}
    assert "minor" in {s.name for s in l_signals}
    s = summarize([feature, logging, *[pr(60 + n, f"[Core] part {n}", at(2)) for n in range(5)]])
    first = s.key_prs[0]
    assert first.item.number == 50
    assert "measured_claim" in first.reasons and first.item.digest == claim


def test_a_risk_fired_by_words_alone_is_not_high_without_corroboration():
    def risky(number, labels=(), extra=()):
        spec = pr(number, f"[Misc] sanitize the prompt {number}", at(1), labels=labels)
        risk = RiskTag(
            name="security-sensitive",
            severity="high",
            reason="title mentions sanitize",
            rule="risk:security-sensitive/keyword",
        )
        spec_tags = Tags(risks=(risk, *extra))
        spec.tags = lambda: spec_tags  # type: ignore[method-assign]
        return spec

    s = summarize([risky(70)])
    assert [(r.risk, r.severity) for r in s.risks] == [("security-sensitive", "medium")]
    s = summarize([risky(71, labels=("security",))])
    assert [(r.risk, r.severity) for r in s.risks] == [("security-sensitive", "high")]


def test_core_changes_without_tests_are_one_follow_up_and_no_follow_up_repeats():
    items = [
        pr(
            80 + n,
            f"[Core] change {n}",
            at(1),
            additions=10 * (n + 1),
            risks=(("core-without-tests", "high"),),
        )
        for n in range(4)
    ]
    s = summarize(items)
    core = [f for f in s.follow_ups if f.kind == "core_without_tests"]
    assert len(core) == 1
    assert core[0].items == (83, 82, 81, 80)  # largest first
    keys = [(f.kind, f.items or (f.item.number,), f.reason) for f in s.follow_ups]
    assert len(keys) == len(set(keys))


def test_module_representatives_are_distinct_prs():
    items = [
        pr(
            90,
            "[Feature] one change everywhere",
            at(1),
            additions=900,
            modules=("a", "b", "c", "d"),
            categories=("feature",),
        )
    ]
    items += [pr(91 + n, f"[Misc] small {n}", at(2), modules=(m,)) for n, m in enumerate("abcd")]
    s = summarize(items)
    shown = [n for m in s.modules for n in m.representative]
    assert shown.count(90) == 1
    assert {m.module: m.representative[0] for m in s.modules} == {
        "a": 90,
        "b": 92,
        "c": 93,
        "d": 94,
    }


MERGED_ONLY = SourceInfo(
    kind="replay",
    name="merged_prs_with_bodies.jsonl",
    provides=("merged_prs",),
    coverage_start=at(-30),
    coverage_end=at(30),
)


def test_figures_the_source_cannot_give_are_unavailable_not_zero():
    items = [pr(100 + n, f"[Core] change {n}", at(1)) for n in range(3)]
    s = summarize(items, meta=RequestMeta(source=MERGED_ONLY))
    c = s.counts
    assert (c.new_issues, c.closed_issues, c.new_prs, c.closed_unmerged_prs) == (
        None,
        None,
        None,
        None,
    )
    assert (c.comments, c.reviews, c.reviewers) == (None, None, None)
    assert c.merged_prs == 3 and s.previous_counts.new_prs is None
    assert s.median_hours_to_merge is None and s.median_hours_to_first_response is None
    assert '"new_issues":null' in s.model_dump_json()
    assert s.source.name == "merged_prs_with_bodies.jsonl" and s.coverage == "full"
    # the same facts from a source that tells everything: figures, never None
    full = summarize(items)
    assert full.counts.new_prs == 3 and full.median_hours_to_merge == 5.0


def test_a_window_reaching_beyond_the_source_is_partial():
    late = SourceInfo(
        kind="replay",
        name="x.jsonl",
        provides=("merged_prs",),
        coverage_start=at(-30),
        coverage_end=at(3),
    )
    s = summarize([pr(110, "[Core] change", at(1))], meta=RequestMeta(source=late))
    assert s.coverage == "partial"
    # the covered span is the window's part, not the source's whole span (2026-W34 of a history
    # from 2025 ending 08-22 20:51 read '2025-02-05 10:53 to 2026-08-22 20:51')
    assert s.covered is not None and s.covered.start == WEEK.start and s.covered.end == at(3)
    assert s.covered.share == round((at(3) - WEEK.start) / (WEEK.end - WEEK.start), 4)
    assert 0 < s.covered.share < 1 and s.previous_covered is None  # the week before is covered
    full = summarize([pr(110, "[Core] change", at(1))], meta=RequestMeta(source=MERGED_ONLY))
    assert full.covered is None and full.previous_covered is None


def test_a_partly_covered_week_is_not_down_for_the_days_it_lacks():
    from services.summarizer.domain.report import _trend

    # 10 changes the week before; this week 5: down when whole, flat when half of it is covered
    assert _trend(5, 10) == "down"
    assert _trend(5, 10, (0.5, 1.0)) == "flat"
    assert _trend(2, 10, (0.5, 1.0)) == "down"  # still down against half of the week before
    assert _trend(9, 10, (0.5, 1.0)) == "up"
    # a partly covered previous week is scaled up to this one's span
    assert _trend(10, 6, (1.0, 0.5)) == "down"


def test_a_source_name_is_never_a_path():
    info = SourceInfo(kind="replay", name="/home/me/data/merged_prs.jsonl")
    assert info.name == "merged_prs.jsonl"
    assert SourceInfo(kind="replay", name="C:\\data\\merged.jsonl").name == "merged.jsonl"


@pytest.mark.parametrize(
    "day,tz,hours",
    [
        (date(2026, 6, 10), "Asia/Shanghai", 24),
        (date(2026, 3, 8), "America/New_York", 23),  # spring forward
        (date(2026, 11, 1), "America/New_York", 25),  # fall back
    ],
)
def test_a_day_window_has_one_activity_slot_per_hour(day, tz, hours):
    window = day_window(day, tz)
    start = window.start
    items = [ItemSpec(n, "pull_request", start + timedelta(minutes=37 * n)) for n in range(1, 30)]
    s = summarize(items, window=window)
    assert len(s.hourly) == hours
    assert [h.start for h in s.hourly] == [start + timedelta(hours=k) for k in range(hours)]
    assert sum(h.prs_opened for h in s.hourly) == s.counts.new_prs
    # PR n opened 37n minutes after the start: hour index 37n // 60
    expected = [0] * hours
    for n in range(1, 30):
        if 37 * n < hours * 60:
            expected[37 * n // 60] += 1
    assert [h.prs_opened for h in s.hourly] == expected
    assert summarize(items).hourly == ()  # weeks have none


def test_a_change_reverted_by_its_own_line_of_work_is_not_a_key_pr():
    cache = ("ci/workflows/build.yaml",)
    items = [
        pr(
            120,
            "[CI] add an incremental build cache",
            at(0),
            additions=900,
            files=cache,
            categories=("feature",),
        ),
        pr(
            121,
            "[BugFix] fix the incremental build cache",
            at(1),
            files=cache,
            categories=("bugfix",),
        ),
        pr(
            122,
            "[CI] revert the incremental build cache",
            at(2),
            files=cache,
            digest=Digest(refs=(Reference(kind="reverts", title="the incremental build cache"),)),
        ),
        *[
            pr(130 + n, f"[Feature] unrelated {w}", at(3), additions=50, files=(f"src/{w}.py",))
            for n, w in enumerate(("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"))
        ],
    ]
    s = summarize(
        items,
        term_counts={"incremental": 1, "build": 40, "cache": 30, "incrementalbuild": 1},
        history_items=1000,
    )
    unstable = [i for i in s.incidents if i.kind == "instability"]
    assert [(i.items, i.roles) for i in unstable] == [
        ((120, 121, 122), ("added", "fixed", "reverted"))
    ]
    assert not {k.item.number for k in s.key_prs} & {120, 121, 122}


def test_a_revert_says_why_and_which_change_brought_it_back():
    """#5093 reverted #5082 "which broke CI" and #5119 restored it (2025-W51): one line with
    the reason in the revert's words and the re-land; no "re-land or drop" follow-up after it."""
    op = ("csrc/matmul_allreduce_add_rmsnorm/op_host/aclnn_matmul_allreduce_add_rmsnorm.cpp",)
    why = "Reverts vllm-project/vllm-ascend#5082, which broke CI"
    items = [
        pr(
            5082,
            "[bugfix] matmul_allreduce_add_rmsnorm aclnn interface",
            at(0),
            files=op,
            categories=("bugfix",),
        ),
        pr(
            5093,
            "[bugfix] fix mtp accept rate",
            at(1),
            files=op + ("vllm_ascend/worker/model_runner_v1.py",),
            digest=Digest(
                what="fix mtp accept rate by disabling in_profile_run",
                refs=(Reference(kind="reverts", number=5082, context=why),),
            ),
        ),
        pr(5119, "restore matmul_allreduce_add_rmsnrom aclnn interface", at(2), files=op),
        # restores something else in a file the reverted change touched: not its re-land
        pr(5120, "[BugFix] Restore FIA decode mask handling", at(3), files=op),
    ]
    s = summarize(items)
    (inc,) = [i for i in s.incidents if i.kind == "revert"]
    assert inc.items == (5093, 5082, 5119)
    assert inc.roles == ("revert", "reverted_change", "relanded")
    assert inc.reason == why
    assert not [f for f in s.follow_ups if f.kind == "revert"]


def test_a_change_back_under_another_title_with_the_same_description_is_its_re_land():
    """2025-W50: #4194 "add custom moe ops for prefill" was reverted by #4806 ("as it broke CI")
    and came back two days later as #4810 "Add moe normal ops", the same description word for
    word; a change that only shares a file and says something else is no re-land."""
    what = (
        "1.Add the implementation of normal Aclnn operators: MoeCombineNormal, "
        "MoeDispatchNormal, NotifyDispatch，and DispatchLayout."
    )
    ops = ("csrc/moe_dispatch_normal/op_host/moe_dispatch_normal.cpp",)
    items = [
        pr(
            4194,
            "[Kernel] add custom moe ops for prefill",
            at(0),
            files=ops,
            additions=5563,
            digest=Digest(what=what),
        ),
        pr(
            4806,
            'Revert "[Kernel] add custom moe ops for prefill"',
            at(1),
            files=ops,
            deletions=5563,
            digest=revert_digest("[Kernel] add custom moe ops for prefill", 4194),
        ),
        pr(
            4810,
            "[Kernel] Add moe normal ops",
            at(2),
            files=ops,
            additions=5366,
            digest=Digest(what=" ".join(what.split())),
        ),
        pr(
            4811,
            "[Kernel] tune the dispatch layout",
            at(3),
            files=ops,
            digest=Digest(what="Tunes the dispatch layout of the normal MoE operators for A3."),
        ),
    ]
    s = summarize(items)
    (inc,) = [i for i in s.incidents if i.kind == "revert"]
    assert (inc.items, inc.roles) == ((4806, 4194, 4810), ("revert", "reverted_change", "relanded"))
    assert not [f for f in s.follow_ups if f.kind == "revert"]


def test_a_revert_of_a_named_change_known_by_reference_makes_no_storyline_instability():
    """The revert names what it undid: fixes that only share the storyline's topic and a file
    are not told as that change's instability (2026-W30 told "#11899 added, #11266 fixed,
    #12228 reverted" although #11266 came after the revert and fixed something else)."""
    attn = ("vllm_ascend/attention/attention_v1.py",)
    items = [
        pr(
            200,
            "[Refactor] remove the FIA paged fallback",
            at(0),
            files=attn,
            categories=("refactor",),
        ),
        pr(
            201,
            'Revert "[Refactor] remove the FIA paged fallback (#200)"',
            at(1),
            files=attn,
            digest=revert_digest("[Refactor] remove the FIA paged fallback", 200),
        ),
        pr(
            202,
            "[BugFix] fix FIA decode mask handling on main",
            at(2),
            files=attn,
            categories=("bugfix",),
        ),
        pr(
            203,
            "[BugFix] fix FIA decode mask for graph mode",
            at(3),
            files=attn,
            categories=("bugfix",),
        ),
        *[
            pr(220 + n, f"[Feature] unrelated {w}", at(3), files=(f"src/{w}.py",))
            for n, w in enumerate(
                ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
            )
        ],
    ]
    s = summarize(items, term_counts={"fia": 1}, history_items=1000)
    # the four are one storyline (FIA), and the revert is the only incident
    assert [sorted(i.number for i in st.items) for st in s.storylines if st.name == "FIA"] == [
        [200, 201, 202, 203]
    ]
    assert [i.kind for i in s.incidents] == ["revert"]
    assert s.incidents[0].items == (201, 200)


def test_a_revert_naming_nothing_that_only_turns_tests_back_on_is_no_risk():
    items = [
        pr(
            210,
            "[Fix]Revert temporary skip on mtp1/mtp2 correctness tests (aclgraph fix)",
            at(1),
            files=("tests/e2e/singlecard/test_mtp_correctness.py",),
            digest=Digest(
                refs=(
                    Reference(
                        kind="reverts", title="temporary skip on mtp1/mtp2 correctness tests"
                    ),
                )
            ),
        ),
        pr(
            211,
            "[CI] revert the csrc build cache",
            at(2),
            files=("csrc/build.sh",),
            digest=Digest(refs=(Reference(kind="reverts", title="the csrc build cache"),)),
        ),
    ]
    s = summarize(items)
    assert [i.items for i in s.incidents if i.kind == "revert"] == [(211,)]


def test_a_large_removal_is_a_key_pr_and_says_so():
    """Seed 000's key PRs include moving GGUF out of core (~9k lines): taking a body of code out is
    news however few lines it adds (real 2026-W30: #12305 removed the init-routing custom ops,
    -10,902 lines, and was not a key PR)."""
    removal = pr(
        300,
        "[Refactor][Ops]Remove init routing custom ops",
        at(1),
        additions=13,
        deletions=10902,
        files=("csrc/moe_init_routing/kernel.cpp",),
    )
    small = pr(301, "[Refactor] remove an unused helper", at(1), additions=2, deletions=40)
    others = [
        pr(
            310 + n,
            f"[Core] routine change {n}",
            at(2),
            additions=150,
            deletions=20,
            files=(f"src/m{n}.py",),
        )
        for n in range(10)
    ]
    s = summarize([removal, small, *others])
    keys = {k.item.number: k for k in s.key_prs}
    assert 300 in keys and "removal" in keys[300].reasons
    assert 301 not in keys or "removal" not in keys[301].reasons


def test_a_reapply_that_also_fixes_is_the_change_coming_back_and_earlier_items_keep_their_titles():
    """2025-W43: #3365 (merged the week before) reverted by #3483, then "Reapply …" #3512 that also
    fixes a bug #3365 introduced: told "added, reverted, brought back", no "settle it" follow-up;
    the earlier change is named with its title (it is in no list of this window)."""
    items = [
        pr(3365, "[MoE] [Refactor] Remove manual memory cleanup", at(-3), files=("moe/a.py",)),
        pr(
            3483,
            'Revert "[MoE] [Refactor] Remove manual memory cleanup (#3365)"',
            at(0),
            files=("moe/a.py",),
            digest=revert_digest("[MoE] [Refactor] Remove manual memory cleanup", 3365),
        ),
        pr(
            3512,
            '[MoE] [Refactor] Reapply "Remove manual memory cleanup" and fix the MC2 bug',
            at(2),
            files=("moe/a.py",),
            categories=("bugfix",),
            digest=Digest(refs=(Reference(kind="fix_up", number=3365),)),
        ),
    ]
    s = summarize(items)
    (line,) = [i for i in s.incidents if i.kind == "instability"]
    assert (line.items, line.roles) == ((3365, 3483, 3512), ("added", "reverted", "relanded"))
    assert not [f for f in s.follow_ups if f.kind == "instability"]
    assert [(r.number, r.title) for r in s.referenced] == [
        (3365, "[MoE] [Refactor] Remove manual memory cleanup")
    ]


def test_a_broad_upstream_upgrade_is_a_key_pr_and_says_so():
    upgrade = pr(
        400,
        "Upgrade to new vllm commit",
        at(1),
        additions=300,
        deletions=250,
        files=tuple(f"vllm_ascend/m{n}.py" for n in range(37)),
        modules=("upstream-sync",),
    )
    narrow = pr(
        401,
        "[Misc] Upgrade ray to 2.48",
        at(1),
        files=("requirements.txt",),
        modules=("dependencies",),
    )
    others = [
        pr(
            410 + n,
            f"[Core] routine change {n}",
            at(2),
            additions=150,
            deletions=20,
            files=(f"src/m{n}.py",),
        )
        for n in range(10)
    ]
    s = summarize([upgrade, narrow, *others])
    keys = {k.item.number: k for k in s.key_prs}
    assert 400 in keys and keys[400].reasons[0] == "upgrade"
    assert 401 not in keys or "upgrade" not in keys[401].reasons


def test_what_changes_say_of_themselves_is_a_risk_in_their_words():
    """2026-W26 (a reader beside seed 000): accuracy thresholds raised, a suite moved to weekly,
    v0.22.1 dropped, a feature merged with "several critical issues identified" — the report
    told none. Reverts, documentation, re-enabled tests and problems said fixed are no such
    risk."""
    critical = (
        "### What this PR does / why we need it?\nAdds PCP and MTP for Qwen3.5.\n\n"
        "However, several critical issues were identified during the review: `num_prefills`\n"
        "is never updated, which breaks the PCP + MTP logic.\n"
    )
    items = [
        pr(1, "[CI] Modify accuracy threshold for aime2025 dataset to 10", at(0)),
        pr(2, "[CI] Move accuracy-group-2 to weekly single node configs", at(1)),
        pr(3, "[Misc] Drop vLLM v0.22.1 compatibility from main", at(1), deletions=900),
        pr(4, "[Feature] qwen3.5 support pcp+mtp", at(2), additions=900, body=critical),
        pr(5, '[Revert] Revert "[CI] Drop vllm main e2e test for v0.24.0rc"', at(2)),
        pr(6, "[CI] Enable the skipped cases when HDK is upgraded", at(3)),
        pr(7, "[Doc] Update release notes known issues", at(3), files=("docs/notes.md",)),
        pr(8, "[BugFix] fix env in dbo", at(4), body="We have fixed a known issue in dbo."),
        # a staged refactor's plan is no open problem (real #13721, 2026-W33) ...
        pr(
            9,
            "[Refactor][Device][2/N] Introduce capability-oriented hardware profiles",
            at(4),
            body="Those migrations will be handled in follow-up PRs so this abstraction can be "
            "reviewed independently.",
        ),
        # ... a problem left for later is
        pr(
            10,
            "[Feature] Support X",
            at(5),
            body="The accuracy issue with FP8 will be handled in a follow-up PR.",
        ),
    ]
    s = summarize(items)
    said = {i.items[0]: (i.kind, i.reason) for i in s.incidents if i.kind in SAID}
    assert {n: k for n, (k, _) in said.items()} == {
        1: "loosened",
        2: "loosened",
        4: "unfinished",
        10: "unfinished",
    }
    # a version dropped is told once, as project news, not again as support narrowed
    assert [(n.kind, n.what, n.items) for n in s.news] == [
        ("support_dropped", "vLLM v0.22.1", (3,))
    ]
    # the description's own sentence, its wrapped lines joined
    assert said[4][1] == (
        "However, several critical issues were identified during the review: `num_prefills` "
        "is never updated, which breaks the PCP + MTP logic."
    )
    follow = {f.kind: f.items for f in s.follow_ups if f.kind in SAID}
    assert follow == {"loosened": (1, 2), "unfinished": (4, 10)}


def test_lines_of_tests_ci_or_docs_alone_are_no_large_change_to_review():
    """2026-W21: a unit-test PR and a nightly config (+1,123 lines in 2 files) were "very large
    changes" beside 82k lines of vendored operators."""
    items = [
        pr(
            1,
            "[Test] add UT for the scheduler",
            at(0),
            additions=3000,
            files=("tests/ut/test_scheduler.py",),
            risks=("large-change/lines",),
        ),
        pr(
            2,
            "[CI] nightly config",
            at(1),
            additions=1123,
            files=(".github/workflows/configs/nightly.yaml",),
            risks=("large-change/lines",),
        ),
        pr(
            3,
            "[Feature] vendored operators",
            at(2),
            additions=82000,
            files=("csrc/ops/a.cpp", "tests/ut/test_ops.py"),
            risks=("large-change/lines",),
        ),
    ]
    (large,) = [r for r in summarize(items).risks if r.risk == "large-change"]
    assert large.items == (3,)
