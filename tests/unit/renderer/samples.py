"""Fixed, non-trivial report models for renderer tests (a daily and a weekly window)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from shared.events import (
    Appendix,
    ChangedFigure,
    Contributor,
    Counts,
    DailyActivity,
    Discussion,
    EcosystemGroup,
    EcosystemSection,
    FollowUp,
    ItemRef,
    KeyPR,
    ModuleTrend,
    RiskObservation,
    ScoreSignal,
    SummaryData,
    Theme,
    WindowRef,
)

REPO = "vllm-project/vllm"


def _t(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


def pr(
    number: int,
    title: str,
    author: str,
    *,
    modules=(),
    merged=True,
    additions=0,
    deletions=0,
    files=0,
    risks=(),
    ecosystems=(),
    categories=(),
    state=None,
    draft=False,
    body="",
) -> ItemRef:
    return ItemRef(
        number=number,
        kind="pull_request",
        title=title,
        url=f"https://github.com/{REPO}/pull/{number}",
        author=author,
        modules=tuple(modules),
        risks=tuple(risks),
        ecosystems=tuple(ecosystems),
        categories=tuple(categories),
        merged=merged,
        state=state or ("closed" if merged else "open"),
        draft=draft,
        additions=additions,
        deletions=deletions,
        changed_files=files,
        created_at=_t(26, 4),
        merged_at=_t(26, 19) if merged else None,
        body_excerpt=body,
    )


def issue(number: int, title: str, author: str, *, state="open", modules=()) -> ItemRef:
    return ItemRef(
        number=number,
        kind="issue",
        title=title,
        url=f"https://github.com/{REPO}/issues/{number}",
        author=author,
        state=state,
        modules=tuple(modules),
        created_at=_t(26, 6),
    )


P_MOE = pr(
    41184,
    "[MoE] Invert FusedMoE ownership into MoERunner",
    "bnellnm",
    modules=("moe",),
    additions=2417,
    deletions=1893,
    files=90,
    risks=("core-change",),
    body="<!-- markdownlint-disable -->\n## Purpose\nSplit FusedMoE into RoutedExperts "
    "(weights only) and MoERunner (forward logic) so that expert parallelism and "
    "quantization fusion no longer depend on layer wiring.\n\n## Test Plan\n"
    "pytest tests/kernels/moe -x",
)
P_DEEPEP = pr(
    41183,
    "[MoE] DeepEP v2 elastic all2all backend",
    "tlrmchlsmth",
    modules=("moe",),
    additions=806,
    deletions=112,
    files=14,
    risks=("graph-capture",),
)
P_SPEC = pr(
    32374,
    "[Spec Decode] Dynamic speculative length | batch-aware",
    "ekagra-ranjan",
    modules=("speculative-decoding",),
    additions=655,
    deletions=74,
    files=11,
    risks=("graph-capture", "core-without-tests"),
)
P_ROCM = pr(
    38313,
    "[ROCm] AITER fused RoPE + KV cache for DeepSeek MLA",
    "khairulkabir1661",
    modules=("rocm", "attention"),
    additions=312,
    deletions=41,
    files=6,
    ecosystems=("rocm",),
    categories=("performance",),
    risks=("hardware-specific",),
)
P_ROCM_FIX = pr(
    38293,
    "[Bugfix][ROCm] Quark MoE prefix mismatch in MTP draft",
    "vecheruk-amd",
    modules=("rocm", "moe"),
    additions=23,
    deletions=9,
    files=2,
    ecosystems=("rocm",),
    categories=("bugfix",),
)
P_ROCM_CI = pr(
    38238,
    "[CI/AMD] Drop host GPU reset from k8s test script",
    "dhonnappa-amd",
    modules=("ci",),
    merged=False,
    additions=4,
    deletions=31,
    files=1,
    ecosystems=("rocm",),
    categories=("platform-ci",),
)
P_GGUF = pr(
    39612,
    "Move GGUF support out of core",
    "Isotr0py",
    modules=("quantization",),
    additions=120,
    deletions=9108,
    files=57,
    risks=("interface-change",),
)
P_DRAFT = pr(
    38280,
    "[Quantization] Add TurboQuant KV cache quantization",
    "lishunyang12",
    modules=("quantization", "kv_cache"),
    merged=False,
    additions=1530,
    deletions=0,
    files=19,
    draft=True,
    body="Implements TurboQuant: sub-4-bit vector quantization of the KV cache. On "
    "Qwen2.5-1.5B, 2/3/4-bit all match 100% of outputs with no added latency.",
)
P_CLOSED = pr(
    38255,
    "Revert flaky fix in scheduler",
    "someone",
    modules=("core",),
    merged=False,
    state="closed",
    additions=3,
    deletions=3,
    files=1,
)
I_RFC = issue(38256, "[RFC]: Incremental MoE Expert Offloading", "e1n00r", modules=("moe",))
I_OOM = issue(38257, "Qwen3-VL-235B OOM with multi-image long multiturn inputs", "ckl117")
I_PARSER = issue(
    38212, "MiniMaxM2ReasoningParser broken for M2.5 <think> tags", "SilviuSavu", state="closed"
)
I_ROCM = issue(36703, "ROCm nightly wheels", "tjtanaa", modules=("rocm",))


def daily_summary(**overrides) -> SummaryData:
    window = WindowRef(
        kind="day",
        label="2026-03-26",
        start=_t(26, 3, 45),
        end=_t(27, 3, 45),
        tz="Asia/Shanghai",
        cutoff="11:45",
    )
    data = dict(
        repo=REPO,
        window=window,
        revision=2,
        generated_at=_t(27, 4, 2),
        ruleset_versions=("vllm-rules@7",),
        languages=("en", "zh-CN"),
        formats=("md", "html", "pdf", "json"),
        synthetic=True,
        data_note="replayed from a recorded GH Archive hour",
        watermark=_t(27, 3, 58),
        counts=Counts(
            new_issues=37,
            closed_issues=33,
            new_prs=96,
            merged_prs=41,
            closed_unmerged_prs=29,
            active_contributors=118,
            first_time_contributors=17,
            reviewers=64,
            comments=512,
            reviews=203,
            lines_added=6203,
            lines_removed=11371,
            key_prs=6,
        ),
        previous_counts=Counts(
            new_issues=31, closed_issues=25, new_prs=88, merged_prs=44, closed_unmerged_prs=21
        ),
        modules=(
            ModuleTrend(
                module="moe",
                merged=9,
                opened=13,
                issues=4,
                total=26,
                previous_total=15,
                delta=11,
                trend="up",
                representative=(41184, 41183, 38293),
            ),
            ModuleTrend(
                module="rocm",
                merged=6,
                opened=11,
                issues=5,
                total=22,
                previous_total=22,
                delta=0,
                trend="flat",
                representative=(38313, 38293),
            ),
            ModuleTrend(
                module="speculative-decoding",
                merged=3,
                opened=5,
                issues=2,
                total=10,
                previous_total=0,
                delta=10,
                trend="new",
                representative=(32374,),
            ),
            ModuleTrend(
                module="quantization",
                merged=2,
                opened=4,
                issues=1,
                total=7,
                previous_total=12,
                delta=-5,
                trend="down",
                representative=(39612, 38280),
            ),
            ModuleTrend(
                module="other",
                merged=21,
                opened=63,
                issues=25,
                total=109,
                previous_total=97,
                delta=12,
                trend="up",
                fallback=True,
            ),
        ),
        key_prs=(
            KeyPR(
                item=P_MOE,
                score=8.75,
                signals=(
                    ScoreSignal(name="core", value=1, points=1.0),
                    ScoreSignal(name="size", value=4310, points=2.5),
                    ScoreSignal(name="discussion", value=31, points=1.75),
                ),
            ),
            KeyPR(
                item=P_GGUF,
                score=7.125,
                signals=(ScoreSignal(name="size", value=9228, points=3.0),),
            ),
            KeyPR(
                item=P_SPEC, score=6.4, signals=(ScoreSignal(name="reviews", value=12, points=2.0),)
            ),
            KeyPR(item=P_DEEPEP, score=5.85),
            KeyPR(item=P_ROCM, score=4.35),
            KeyPR(item=P_ROCM_FIX, score=2.15),
        ),
        themes=(
            Theme(
                module="moe",
                prs=(41184, 41183, 38293),
                merged=9,
                lines_added=3246,
                lines_removed=2014,
            ),
            Theme(
                module="speculative-decoding",
                prs=(32374,),
                merged=3,
                lines_added=655,
                lines_removed=74,
            ),
            Theme(
                module="quantization",
                prs=(39612, 38280),
                merged=2,
                lines_added=120,
                lines_removed=9108,
            ),
        ),
        discussions=(
            Discussion(
                item=P_DRAFT,
                comments_in_window=23,
                reviews_in_window=4,
                participants=("lishunyang12", "xinyu-intel", "mgoin"),
                status="open",
                heat=31.5,
            ),
            Discussion(
                item=I_PARSER,
                comments_in_window=8,
                participants=("SilviuSavu", "Huyueeer"),
                status="closed",
                heat=9.0,
            ),
        ),
        risks=(
            RiskObservation(
                risk="core-change",
                severity="high",
                count=32,
                items=(41184, 32374, 38255),
                reason="scheduler and model runner",
            ),
            RiskObservation(risk="core-without-tests", severity="medium", count=36, items=(32374,)),
            RiskObservation(risk="graph-capture", severity="high", count=3, items=(32374, 41183)),
            RiskObservation(
                risk="odd-new-risk",
                severity="low",
                count=1,
                items=(38280,),
                reason="a rule nobody named yet",
            ),
        ),
        ecosystems=(
            EcosystemSection(
                name="AMD/ROCm",
                affiliation="amd",
                ecosystem="rocm",
                issues=(I_ROCM,),
                pr_groups=(
                    EcosystemGroup(category="performance", items=(P_ROCM,)),
                    EcosystemGroup(category="bugfix", items=(P_ROCM_FIX,)),
                    EcosystemGroup(category="platform-ci", items=(P_ROCM_CI,)),
                ),
                contributors=("khairulkabir1661", "vecheruk-amd", "dhonnappa-amd", "tjtanaa"),
            ),
        ),
        follow_ups=(
            FollowUp(kind="open_rfc", item=I_RFC, reason="RFC without a decision", days=5.5),
            FollowUp(kind="popular_bug", item=I_OOM, reason="OOM on 8x H100", days=None),
            FollowUp(kind="awaiting_review", item=P_DRAFT, reason="no reviewer yet", days=13.0),
        ),
        contributors=(
            Contributor(login="bnellnm", prs_opened=4, prs_merged=3, reviews=7, comments=19),
            Contributor(login="khairulkabir1661", prs_opened=2, prs_merged=1, first_time=True),
            Contributor(login="mergify[bot]", comments=58, bot=True),
        ),
        activity=(
            DailyActivity(
                day=date(2026, 3, 26),
                prs_opened=71,
                prs_merged=30,
                prs_closed_unmerged=22,
                issues_opened=28,
                issues_closed=24,
                comments=389,
            ),
            DailyActivity(
                day=date(2026, 3, 27),
                prs_opened=25,
                prs_merged=11,
                prs_closed_unmerged=7,
                issues_opened=9,
                issues_closed=9,
                comments=123,
            ),
        ),
        median_hours_to_merge=18.5,
        median_hours_to_first_response=2.4,
        appendix=Appendix(
            new_issues=(I_RFC, I_OOM, I_ROCM),
            closed_issues=(I_PARSER,),
            new_prs=(P_DRAFT, P_ROCM_CI, P_CLOSED),
            merged_prs=(P_MOE, P_DEEPEP, P_SPEC, P_ROCM, P_ROCM_FIX, P_GGUF),
            closed_unmerged_prs=(P_CLOSED,),
        ),
        changed_figures=(
            ChangedFigure(name="counts.merged_prs", before=39, after=41),
            ChangedFigure(name="key_pr_numbers", before=2894301447, after=3390217781),
            ChangedFigure(name="modules.moe.total", before=24, after=26),
            ChangedFigure(name="risks.core-change.count", before=None, after=32),
            ChangedFigure(name="median_hours_to_merge", before=17.25, after=18.5),
        ),
        facts_counted=1486,
        request_id="req-0123456789",
    )
    data.update(overrides)
    return SummaryData(**data)


def weekly_summary(**overrides) -> SummaryData:
    window = WindowRef(
        kind="week",
        label="2026-W24",
        start=datetime(2026, 6, 8, tzinfo=UTC),
        end=datetime(2026, 6, 15, tzinfo=UTC),
        tz="UTC",
    )
    base = daily_summary().model_dump()
    base.update(
        window=window,
        revision=1,
        synthetic=False,
        data_note=None,
        changed_figures=(),
        generated_at=datetime(2026, 6, 15, 1, 1, tzinfo=UTC),
        watermark=None,
        previous_counts=None,
    )
    base.update(overrides)
    return SummaryData.model_validate(base)


def large_weekly_summary(merged: int = 260, issues: int = 90) -> SummaryData:
    """A busy week (vLLM-sized): hundreds of appendix rows, so tables span many pages."""
    modules = ("moe", "rocm", "speculative-decoding", "quantization", "kv-transfer", "attention")
    merged_prs = tuple(
        pr(
            40000 + i,
            f"[{modules[i % 6]}] change number {i} touching several files",
            f"dev{i % 37}",
            modules=(modules[i % 6],),
            additions=10 * (i % 50),
            deletions=3 * (i % 20),
            files=1 + i % 9,
        )
        for i in range(merged)
    )
    new_issues = tuple(
        issue(39000 + i, f"Issue report {i}: something is slow on device {i % 7}", f"user{i % 23}")
        for i in range(issues)
    )
    return weekly_summary(
        counts=Counts(
            new_issues=issues,
            closed_issues=issues // 2,
            new_prs=merged + 40,
            merged_prs=merged,
            closed_unmerged_prs=31,
            active_contributors=211,
            key_prs=6,
        ),
        appendix=Appendix(
            merged_prs=merged_prs,
            new_issues=new_issues,
            new_prs=merged_prs[:40],
            closed_issues=new_issues[: issues // 2],
        ),
    )
