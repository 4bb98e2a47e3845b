"""A report model that explains (issue #15): storylines, digests, incidents, follow-ups that cover
several items, and counts a merged-PR file cannot tell (None)."""

from __future__ import annotations

from datetime import UTC, datetime

from shared.events import (
    Appendix,
    Claim,
    Contributor,
    Counts,
    Digest,
    FollowUp,
    Incident,
    KeyPR,
    ModuleTrend,
    RiskObservation,
    SourceInfo,
    Storyline,
    StorylineItem,
    SummaryData,
    WindowRef,
)

from .samples import REPO, pr


def _digest(what: str, **kw) -> Digest:
    return Digest(what=what, **kw)


P_V4 = pr(
    10501,
    "[Model] Support DeepSeek-V4 on Ascend",
    "ascend-dev",
    modules=("models",),
    additions=1800,
    deletions=120,
    files=31,
    risks=("core-change",),
)
P_V4 = P_V4.model_copy(
    update={
        "digest": _digest(
            "Adds DeepSeek-V4 inference on Ascend NPUs so that users can serve the new model with "
            "graph mode. Reuses the MLA attention path.",
            user_facing="yes",
            user_facing_text="new --model deepseek-v4 support",
            tested=("unit", "e2e"),
            claims=(
                Claim(
                    kind="performance",
                    sentence="Decode throughput improves by 1.6x on 910B.",
                    figures=("1.6x",),
                ),
            ),
        )
    }
)
P_MTP = pr(
    10502,
    "[Feat] MTP speculative decoding for DeepSeek-V4",
    "spec-dev",
    modules=("speculative-decoding",),
    additions=640,
    deletions=80,
    files=12,
)
P_MTP = P_MTP.model_copy(
    update={
        "digest": _digest(
            "Enables multi-token prediction (MTP) for DeepSeek-V4 to cut decode latency.",
            tested=("benchmark",),
            claims=(
                Claim(kind="performance", sentence="TPOT drops 23% at batch 32.", figures=("23%",)),
            ),
        )
    }
)
P_V4_FIX = pr(
    10510,
    "[Bugfix] Fix DeepSeek-V4 rope scaling",
    "fixer",
    modules=("models",),
    additions=12,
    deletions=4,
    files=1,
)
P_V4_FIX = P_V4_FIX.model_copy(
    update={
        "digest": _digest("Fixes wrong rope scaling for DeepSeek-V4 that produced garbled output.")
    }
)
P_CACHE_ADD = pr(
    10301,
    "[CI] Add build cache for wheels",
    "ci-dev",
    modules=("ci/build",),
    additions=90,
    deletions=3,
    files=4,
)
P_CACHE_FIX1 = pr(
    10320,
    "[CI] Fix build cache key",
    "ci-dev",
    modules=("ci/build",),
    additions=5,
    deletions=2,
    files=1,
)
P_CACHE_FIX2 = pr(
    10333,
    "[CI] Fix build cache on arm",
    "ci-dev2",
    modules=("ci/build",),
    additions=7,
    deletions=1,
    files=1,
)
P_CACHE_REV = pr(
    10340,
    'Revert "[CI] Add build cache for wheels"',
    "ci-dev",
    modules=("ci/build",),
    additions=3,
    deletions=90,
    files=4,
)
P_LOG_REV = pr(
    10414,
    'Revert "add triton ops log"',
    "maint",
    modules=("kernels",),
    additions=2,
    deletions=40,
    files=2,
)
P_BUMP = pr(
    10600,
    "Upgrade vLLM to v0.11.0",
    "bumper",
    modules=("upstream-sync",),
    additions=300,
    deletions=200,
    files=20,
)
P_BUMP_FIX1 = pr(10610, "Fix import after vLLM upgrade", "fixer", modules=("upstream-sync",))
P_BUMP_FIX2 = pr(
    10615, "Fix sampler signature after vLLM upgrade", "fixer2", modules=("upstream-sync",)
)
P_CORE1 = pr(
    10700,
    "Refactor model runner state",
    "core1",
    modules=("v1-engine",),
    risks=("core-without-tests",),
)
P_CORE2 = pr(
    10701,
    "Change scheduler preemption",
    "core2",
    modules=("scheduler/core",),
    risks=("core-without-tests",),
)

MERGED = (
    P_V4,
    P_MTP,
    P_V4_FIX,
    P_CACHE_ADD,
    P_CACHE_FIX1,
    P_CACHE_FIX2,
    P_CACHE_REV,
    P_LOG_REV,
    P_BUMP,
    P_BUMP_FIX1,
    P_BUMP_FIX2,
    P_CORE1,
    P_CORE2,
)


def explained_summary(**overrides) -> SummaryData:
    window = WindowRef(
        kind="week",
        label="2026-W24",
        start=datetime(2026, 6, 8, tzinfo=UTC),
        end=datetime(2026, 6, 15, tzinfo=UTC),
        tz="Asia/Shanghai",
    )
    data = dict(
        repo=REPO,
        window=window,
        revision=1,
        generated_at=datetime(2026, 6, 15, 1, 1, tzinfo=UTC),
        languages=("en", "zh-CN"),
        formats=("md", "html", "json"),
        source=SourceInfo(
            kind="replay",
            name="merged_prs_with_bodies.jsonl",
            provides=("merged_prs", "labels", "open_times"),
            coverage_start=datetime(2026, 6, 8, tzinfo=UTC),
            coverage_end=datetime(2026, 6, 12, 12, tzinfo=UTC),
        ),
        coverage="partial",
        data_note="replayed from /work/shared/data/vllm-ascend-history/merged_prs_with_bodies.jsonl",
        counts=Counts(
            new_issues=None,
            closed_issues=None,
            new_prs=None,
            merged_prs=13,
            closed_unmerged_prs=None,
            active_contributors=1,
            first_time_contributors=0,
            reviewers=None,
            comments=None,
            reviews=None,
            lines_added=2877,
            lines_removed=545,
            key_prs=3,
        ),
        previous_counts=Counts(
            new_issues=None,
            closed_issues=None,
            new_prs=None,
            merged_prs=9,
            closed_unmerged_prs=None,
            reviewers=None,
            comments=None,
            reviews=None,
        ),
        modules=(
            ModuleTrend(
                module="models",
                merged=2,
                total=2,
                previous_total=1,
                delta=1,
                trend="up",
                representative=(10501, 10510),
            ),
            ModuleTrend(
                module="speculative-decoding",
                merged=1,
                total=1,
                trend="new",
                delta=1,
                representative=(10502, 10501),
            ),
            ModuleTrend(
                module="ci/build",
                merged=4,
                total=4,
                previous_total=4,
                representative=(10301, 10501, 10320),
            ),
        ),
        key_prs=(
            KeyPR(
                item=P_V4,
                score=9.5,
                reasons=("new_model", "new_hardware", "measured_claim", "storyline_lead"),
                storyline="deepseek-v4",
            ),
            KeyPR(item=P_MTP, score=7.0, reasons=("feature", "measured_claim"), storyline="mtp"),
            KeyPR(item=P_BUMP, score=5.0, reasons=("large",)),
        ),
        storylines=(
            Storyline(
                key="deepseek-v4",
                name="DeepSeek-V4",
                items=(
                    StorylineItem(number=10501, role="feature"),
                    StorylineItem(number=10502, role="feature"),
                    StorylineItem(number=10510, role="fix"),
                ),
                lead=10501,
                merged=3,
                lines_added=2452,
                lines_removed=204,
                status="new",
                summary="Adds DeepSeek-V4 inference on Ascend NPUs so that users can serve the "
                "new model with graph mode.",
            ),
            Storyline(
                key="build cache",
                name="build cache",
                evidence="chain",
                items=(
                    StorylineItem(number=10301, role="feature"),
                    StorylineItem(number=10320, role="fix"),
                    StorylineItem(number=10333, role="fix"),
                    StorylineItem(number=10340, role="revert"),
                ),
                lead=10301,
                merged=4,
                lines_added=105,
                lines_removed=96,
                status="continuing",
                previous_items=1,
            ),
        ),
        incidents=(
            Incident(
                kind="revert",
                items=(10414, 10069),
                roles=("reverted", "reverted_change"),
                subject="add triton ops log",
                across_windows=True,
            ),
            Incident(
                kind="instability",
                items=(10301, 10320, 10333, 10340),
                roles=("added", "fixed", "fixed", "reverted"),
                subject="build cache",
            ),
            Incident(
                kind="upgrade_fallout",
                items=(10600, 10610, 10615),
                roles=("bump", "follow_up", "follow_up"),
                subject="vLLM",
            ),
        ),
        risks=(
            RiskObservation(
                risk="core-without-tests", severity="medium", count=2, items=(10700, 10701)
            ),
        ),
        follow_ups=(
            FollowUp(
                kind="core_without_tests",
                item=P_CORE1,
                reason="core path without tests",
                items=(10700, 10701),
            ),
            FollowUp(kind="core_without_tests", item=P_CORE2, reason="core path without tests"),
            FollowUp(kind="revert", item=P_LOG_REV, reason="reverted", items=(10414, 10069)),
            FollowUp(
                kind="instability",
                item=P_CACHE_ADD,
                reason="unstable",
                items=(10301, 10320, 10333, 10340),
            ),
        ),
        contributors=(Contributor(login="ascend-dev", prs_merged=1, prs_opened=0),),
        appendix=Appendix(merged_prs=MERGED),
    )
    data.update(overrides)
    return SummaryData(**data)
