"""Summarizer settings: projections database, report schedules, closing grace, report policy."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_settings import NoDecode

from shared.config import CommonSettings, split_list
from shared.events import ALL_FORMATS
from shared.events.summary import Format, Language
from shared.messaging.partitions import Partition
from shared.windows import WindowError

from .domain.admission import Admission
from .domain.report import EcosystemSpec, ReportPolicy, RequestMeta
from .domain.windows import Schedule


class ScheduleSetting(BaseModel):
    """One recurring report: `{"kind": "day", "tz": "Asia/Shanghai", "cutoff": "11:45"}`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    tz: str = "UTC"
    cutoff: str = "00:00"

    def schedule(self) -> Schedule:
        return Schedule(self.kind, self.tz, self.cutoff)


class EcosystemSetting(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    affiliation: str | None = None
    ecosystem: str | None = None


class SummarizerSettings(CommonSettings):
    """`REPODIGEST_*` environment variables for the summarizer.

    `REPODIGEST_SCHEDULES` is JSON keyed by repository (or `*` for every repository), e.g.
    `{"vllm-project/vllm": [{"kind": "day", "tz": "Asia/Shanghai", "cutoff": "11:45"},
    {"kind": "week", "tz": "Asia/Shanghai"}]}`. Without schedules, windows close on request only.
    """

    database_url: str = Field(
        "sqlite:///./repodigest.db",
        description="projections database: sqlite:///PATH or postgresql+psycopg://USER@HOST/DB",
    )
    database_echo: bool = Field(False, description="log every SQL statement (debugging)")
    database_migrate: bool = Field(
        True,
        description="upgrade the projections schema at start (Alembic); false: only check "
        "that it is at this version's revision and refuse to start otherwise, for deployments "
        "that run `repodigest db upgrade` as a Job or one-shot service first",
    )
    summarizer_partition_index: int | None = Field(
        None,
        ge=0,
        description="the partition of the repositories this replica folds and reports "
        "(0..REPODIGEST_SUMMARIZER_PARTITIONS-1; in Kubernetes the StatefulSet pod's ordinal); "
        "unset: every partition, in this process (`serve all`, the CLI's in-process run)",
    )
    schedules: dict[str, list[ScheduleSetting]] = Field(
        default_factory=dict, description="recurring windows per repository (JSON; `*` = all)"
    )
    scheduled_languages: list[Language] = Field(
        default_factory=lambda: list[Language](["en"]),
        description="languages of scheduled (unrequested) reports",
    )
    scheduled_formats: list[Format] = Field(
        default_factory=lambda: list(ALL_FORMATS),
        description="formats of scheduled reports",
    )
    close_grace_minutes: float = Field(
        15.0, ge=0, description="a scheduled window closes when the watermark passes end + grace"
    )
    window_debounce_seconds: float = Field(
        2.0,
        ge=0,
        description="re-summarize closed windows once folding was quiet this long "
        "(one revision per replay, not one per batch)",
    )
    answer_timeout_seconds: float = Field(
        10.0,
        gt=0,
        description="how long a renderer has to answer a repeated request for an "
        "unchanged window with its announced revision, before the summary is published again",
    )
    max_windows_per_watermark: int = Field(
        31, ge=1, description="at most this many overdue windows close on one watermark"
    )
    max_summary_bytes: int = Field(
        900_000,
        ge=64_000,
        description="largest summary event; longer appendix lists are cut "
        "(keep below the NATS server's max_payload, 1 MiB by default)",
    )
    key_pr_fraction: float = Field(0.10, gt=0, le=1, description="share of merged PRs that are key")
    key_pr_min: int = Field(5, ge=0)
    key_pr_max: int = Field(25, ge=1)
    awaiting_review_days: float = Field(
        3.0, ge=0, description="an open PR without review for longer is a follow-up"
    )
    awaiting_review_max_days: float = Field(
        30.0, ge=0, description="older unreviewed PRs count as abandoned, not awaiting review"
    )
    popular_bug_reactions: int = Field(
        5, ge=1, description="an open bug with this many reactions is a follow-up"
    )
    hot_discussions: int = Field(5, ge=1)
    first_seen_history_days: float = Field(
        90.0,
        ge=0,
        description="count logins first seen in a window as first-time contributors "
        "only when the folded history reaches this many days further back",
    )
    accept_repos: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="repositories whose events are folded (OWNER/NAME or patterns like owner/*, "
        "comma-separated or JSON); others are recorded as rejected (unknown-repo). Empty: all",
    )
    future_tolerance_minutes: float | None = Field(
        10.0,
        ge=0,
        description="events timed later than now + this are held (not counted) until "
        "their time comes; empty: no limit",
    )
    held_release_seconds: float = Field(
        60.0,
        gt=0,
        description="how often held future events are checked for release when "
        "no new event arrives (every fold checks too)",
    )
    ecosystems: list[EcosystemSetting] = Field(
        default_factory=lambda: [
            EcosystemSetting(name="AMD/ROCm", affiliation="amd", ecosystem="rocm")
        ],
        description="vendor/ecosystem sections (affiliation tag and/or ecosystem tag)",
    )

    @field_validator("schedules")
    @classmethod
    def _valid_schedules(
        cls, v: dict[str, list[ScheduleSetting]]
    ) -> dict[str, list[ScheduleSetting]]:
        for repo, items in v.items():
            for item in items:
                try:
                    item.schedule()
                except WindowError as exc:
                    raise ValueError(f"REPODIGEST_SCHEDULES for {repo}: {exc}") from None
        return v

    @field_validator("accept_repos", mode="before")
    @classmethod
    def _split_repos(cls, v: object) -> object:
        return split_list(v)

    @field_validator("accept_repos")
    @classmethod
    def _valid_patterns(cls, v: list[str]) -> list[str]:
        for pattern in v:
            if not re.fullmatch(r"[A-Za-z0-9*?\[\]-]+/[A-Za-z0-9._*?\[\]-]+", pattern):
                raise ValueError(
                    f"REPODIGEST_ACCEPT_REPOS: {pattern!r} is not OWNER/NAME or a "
                    "pattern like owner/* (comma-separated)"
                )
        return v

    @field_validator("summarizer_partition_index", mode="before")
    @classmethod
    def _index_given(cls, v: object) -> object:
        if isinstance(v, str) and not v.strip():
            # what the downward API gives for a label the pod does not have
            raise ValueError(
                "REPODIGEST_SUMMARIZER_PARTITION_INDEX is empty: set it to the replica's "
                "partition (in Kubernetes, from the pod label apps.kubernetes.io/pod-index, "
                "which StatefulSet pods carry from Kubernetes 1.28), or leave it unset to fold "
                "every partition in this process"
            )
        return v

    def partitions_served(self) -> list[Partition]:
        """The partitions this process folds: its index's, or every one when the index is unset
        (raises ValueError outside the count: `partition_problems` says so at start)."""
        problems = partition_problems(self)
        if problems:
            raise ValueError(problems[0])
        count, index = self.summarizer_partitions, self.summarizer_partition_index
        if index is None:
            return [Partition(i, count) for i in range(count)]
        return [Partition(index, count)]

    def admission(self) -> Admission:
        tolerance = self.future_tolerance_minutes
        return Admission(
            repos=tuple(self.accept_repos),
            future_tolerance=None if tolerance is None else timedelta(minutes=tolerance),
        )

    def schedule_map(self) -> dict[str, list[Schedule]]:
        return {repo: [s.schedule() for s in items] for repo, items in self.schedules.items()}

    def scheduled_meta(self) -> RequestMeta:
        return RequestMeta(
            languages=tuple(self.scheduled_languages), formats=tuple(self.scheduled_formats)
        )

    def grace(self) -> timedelta:
        return timedelta(minutes=self.close_grace_minutes)

    def policy(self) -> ReportPolicy:
        return ReportPolicy(
            key_pr_fraction=self.key_pr_fraction,
            key_pr_min=self.key_pr_min,
            key_pr_max=max(self.key_pr_max, self.key_pr_min),
            awaiting_review_days=self.awaiting_review_days,
            awaiting_review_max_days=max(self.awaiting_review_max_days, self.awaiting_review_days),
            popular_bug_reactions=self.popular_bug_reactions,
            hot_discussions=self.hot_discussions,
            first_seen_history_days=self.first_seen_history_days,
            ecosystems=tuple(
                EcosystemSpec(e.name, e.affiliation, e.ecosystem) for e in self.ecosystems
            ),
        )


def partition_problems(settings: SummarizerSettings) -> list[str]:
    """A replica whose partition index is outside the count folds nothing anyone reads: refused
    at start, saying what to set."""
    index, count = settings.summarizer_partition_index, settings.summarizer_partitions
    if index is None or index < count:
        return []
    return [
        f"REPODIGEST_SUMMARIZER_PARTITION_INDEX={index} is outside the partitions 0..{count - 1} "
        f"(REPODIGEST_SUMMARIZER_PARTITIONS={count}): run one summarizer per partition, with "
        f"indexes 0..{count - 1} — in Kubernetes the StatefulSet's replicas must equal "
        "REPODIGEST_SUMMARIZER_PARTITIONS (raise both together: README, Operations, "
        "changing the partition count)"
    ]
