"""Report requests and the window summary (the whole report model of SEEDS.md) on RD_REPORTS.

ReportRequested — producer: CLI / operators; consumer: summarizer.
WindowSummarized — producer: summarizer; consumer: renderer.
Every figure here is computed from projections; prose is written later from these figures.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from shared.windows import Window

from .enriched import Digest
from .envelope import CloudEvent, Frozen, deterministic_id, utc
from .github import ItemKind, RepoName

Language = Literal["en", "zh-CN"]
AppendixMode = Literal["full", "compact", "none"]
# what a data source can tell: a figure built from something its source does not provide is
# reported as not available (None), never as 0
Provided = Literal[
    "merged_prs",
    "opened_prs",
    "closed_prs",
    "issues",
    "comments",
    "reviews",
    "open_times",
    "labels",
]
ALL_PROVIDED: tuple[str, ...] = (
    "merged_prs",
    "opened_prs",
    "closed_prs",
    "issues",
    "comments",
    "reviews",
    "open_times",
    "labels",
)
SourceKind = Literal[
    "github", "github-graphql", "webhook", "service", "demo", "replay", "events", "gharchive", "git"
]


class SourceInfo(Frozen):
    """Where a report's facts came from: the source's kind and name (a file's base name, never a
    path), what it can tell, and the span of time it covers (None: unbounded, e.g. GitHub)."""

    kind: SourceKind
    name: str = Field(default="", max_length=200)
    provides: tuple[Provided, ...] = ALL_PROVIDED  # type: ignore[assignment]
    coverage_start: datetime | None = None
    coverage_end: datetime | None = None

    @field_validator("name")
    @classmethod
    def _no_path(cls, v: str) -> str:
        # a report names its source, never a machine's file layout
        return v.replace("\\", "/").rsplit("/", 1)[-1]


Format = Literal["md", "html", "pdf", "json"]
ALL_FORMATS: tuple[Format, ...] = ("md", "html", "pdf", "json")


class WindowRef(Frozen):
    """A report window: [start, end) in UTC, with the time zone and cut-off it was defined in."""

    kind: Literal["day", "week", "month", "custom"]
    label: str = Field(pattern=r"^[0-9A-Za-z_-]{1,64}$")
    start: datetime
    end: datetime
    tz: str = "UTC"
    cutoff: str | None = None

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, v: datetime) -> datetime:
        return utc(v)

    @classmethod
    def of(cls, window: Window) -> WindowRef:
        """The reference to a `shared.windows.Window` (kind, label, instants, zone, cut-off)."""
        return cls(
            kind=window.kind,
            label=window.label,
            start=window.start,
            end=window.end,
            tz=window.tz,
            cutoff=window.cutoff,
        )

    def to_window(self) -> Window:
        """The `shared.windows.Window` this reference names (the inverse of `of`)."""
        return Window(self.kind, self.label, self.start, self.end, self.tz, self.cutoff)


# ---------------------------------------------------------------- requests


class ReportRequestData(Frozen):
    repo: RepoName
    window: WindowRef
    languages: tuple[Language, ...] = ("en",)
    formats: tuple[Format, ...] = ALL_FORMATS
    # close only after the folded watermark reaches this instant (what ingest last published)
    as_of: datetime | None = None
    # shown in the report: e.g. that the data is synthetic (demo) or replayed from a file
    data_note: str | None = None
    synthetic: bool = False
    requested_by: str = "cli"
    source: SourceInfo | None = None
    appendix: AppendixMode = "compact"
    # make the next revision even when no figure changed (`repodigest report --force`); without
    # it an unchanged window is answered with the revision already reported
    force: bool = False


class ReportRequested(CloudEvent):
    """Someone asked for a window's report now (the CLI, an operator, a schedule)."""

    type: Literal["dev.repodigest.summary.requested.v1"] = "dev.repodigest.summary.requested.v1"
    TYPE: ClassVar[str] = "dev.repodigest.summary.requested.v1"
    data: ReportRequestData

    @classmethod
    def create(cls, data: ReportRequestData, *, nonce: str, at: datetime) -> ReportRequested:
        # a request is an intent, not a GitHub fact: two requests are two events, so the caller
        # passes a nonce (the CLI run id); re-sending the same request is still de-duplicated
        return cls(
            id=deterministic_id("request", data.repo, data.window.label, nonce),
            source=f"/repodigest/{data.requested_by}",
            subject=data.repo,
            time=at,
            data=data,
        )


# ---------------------------------------------------------------- the report model


Role = Literal["feature", "fix", "revert", "perf", "refactor", "test", "docs", "ci", "other"]


class ItemRef(Frozen):
    """One PR or issue as a report line shows it."""

    number: int
    kind: ItemKind
    title: str
    url: str
    author: str
    author_association: str = "NONE"
    bot: bool = False
    labels: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    risks: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    affiliations: tuple[str, ...] = ()
    ecosystems: tuple[str, ...] = ()
    state: str = "open"
    draft: bool = False
    merged: bool = False
    created_at: datetime | None = None
    closed_at: datetime | None = None
    merged_at: datetime | None = None
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    comments: int = 0
    reviews: int = 0
    reactions: int = 0
    body_excerpt: str = ""
    # what the description says (the classifier's digest of the latest snapshot)
    digest: Digest | None = None
    # the one kind every section gives a PR (its storyline's role of it: "[Refactor][Feature]
    # Remove compress attention manager" is a refactor in its line and in the key PRs alike);
    # None for an issue, or in a summary made before it
    role: Role | None = None
    # a report across repositories: the item's repository (its number is then the combined
    # report's number for it, see services/summarizer/domain/combined.py); None in one repository's
    repo: RepoName | None = None


LineKind = Literal["code", "tests", "docs", "ci", "generated", "imported", "unlisted"]


class LineCount(Frozen):
    """Lines the window's merged changes added and removed in one kind of file: code; tests;
    docs (documentation, translations: .md, .rst, .po, docs/); ci (workflows, CI configs, the
    project's own tooling: tools/, scripts/);
    generated (vendored or generated files: third_party/, vendor/, lock files, *_pb2.py);
    imported (the files a change says it migrates or ports in from elsewhere — "Migrate … from
    ops-transformer" — counted apart from the code the project wrote); unlisted (the lines of
    files the source did not list)."""

    kind: LineKind
    added: int = 0
    removed: int = 0


class Counts(Frozen):
    """The window's counts; None where the source cannot tell (e.g. issues from a merged-PR file)."""

    new_issues: int | None = 0
    closed_issues: int | None = 0
    new_prs: int | None = 0
    merged_prs: int = 0
    closed_unmerged_prs: int | None = 0
    active_contributors: int = 0
    first_time_contributors: int = 0
    reviewers: int | None = 0
    comments: int | None = 0
    reviews: int | None = 0
    lines_added: int = 0
    lines_removed: int = 0
    key_prs: int = 0
    # lines_added/lines_removed split by kind of file, code first, only the kinds with lines;
    # () in summaries made before the split (their totals still hold)
    lines_by_kind: tuple[LineCount, ...] = ()


class ModuleTrend(Frozen):
    module: str
    merged: int = 0
    opened: int = 0
    issues: int = 0
    total: int = 0
    previous_total: int = 0
    delta: int = 0
    trend: Literal["new", "up", "down", "flat", "gone"] = "flat"
    representative: tuple[int, ...] = ()
    fallback: bool = False


class ScoreSignal(Frozen):
    name: str
    value: float
    points: float


KeyReason = Literal[
    "upgrade",
    "removal",
    "feature",
    "new_model",
    "new_hardware",
    "performance",
    "measured_claim",
    "user_facing",
    "storyline_lead",
    "large",
    "core",
    "discussed",
    "reviewed",
    "notable_label",
    # the change turns a default on or off, or changes it, for users ("the default graph mode is
    # changed to FULL_AND_PIECEWISE", "Disable SwiGLU clamp by default")
    "default_change",
    # a fix of wrong output, accuracy, NaN, a crash, a hang or a deadlock
    "severe_fix",
]


class KeyPR(Frozen):
    item: ItemRef
    score: float
    signals: tuple[ScoreSignal, ...] = ()
    # why it was picked, most important first (the renderer says them in words)
    reasons: tuple[KeyReason, ...] = ()
    storyline: str | None = None  # the key of the storyline it belongs to


class StorylineItem(Frozen):
    number: int
    role: Role = "other"


class Storyline(Frozen):
    """A line of work of the window, found from the data itself: a term that stands out in this
    window against the repository's history, a chain of references (revert, fix-up, follow-up) or
    shared files. Its name is taken from the data ("DeepSeek-V4", "MTP", "build cache")."""

    key: str  # stable id: the normalised term or "chain:<first number>"
    name: str
    # term: stands out against the history; chain: references; files: shared files with a shared
    # phrase; module: a busy module's changes no other storyline took
    evidence: Literal["term", "chain", "files", "module"] = "term"
    items: tuple[StorylineItem, ...]  # merge order
    lead: int | None = None
    merged: int = 0
    lines_added: int = 0
    lines_removed: int = 0
    status: Literal["new", "continuing"] = "new"
    previous_items: int = 0  # items of the same storyline in the previous window
    summary: str = ""  # one line from the lead's digest (a span of its description), may be ""
    terms: tuple[str, ...] = ()  # the terms that define it, as written in titles
    # a profile's topic's line: its name in the report's other languages, by language ("zh-CN":
    # "310P（Atlas 300I 推理卡）"), the profile's words and not the data's; {} for other lines
    names: dict[str, str] = Field(default_factory=dict)


class Incident(Frozen):
    """Instability told from evidence, with its items in order.

    revert: items = (the revert, what it reverted); instability: a change added, fixed and/or
    reverted (roles say which, chronological); upgrade_fallout: a dependency or upstream bump,
    then the fixes that followed it; removal: a change that takes out something its description
    says users see (reason: how, in its words); loosened: tests or checks loosened (skipped,
    thresholds relaxed, run less often); narrowed: support narrowed (a version or platform
    dropped); unfinished: merged with problems its description admits are open (reason: the
    description's sentence, "" when only the title says it); fix_burst: a feature or large change
    of a line of work, then several fixes of the same line touching its code (items: the change,
    then the fixes in merge order; subject: the line's name); interface: a setting users will
    notice, added, removed, renamed or given a new default (items: the change; roles: the kind;
    subject: the setting's name, "old → new" when renamed; reason: the description's sentence)."""

    kind: Literal[
        "revert",
        "instability",
        "upgrade_fallout",
        "removal",
        "loosened",
        "narrowed",
        "unfinished",
        "fix_burst",
        "interface",
    ]
    items: tuple[int, ...]
    # per item: added | fixed | reverted | reverted_change | relanded | bump | follow_up | revert
    roles: tuple[str, ...] = ()
    subject: str = ""  # the storyline or reverted change's title
    across_windows: bool = False  # the first item was merged before this window
    # why it was reverted, as the revert's description says it (a span of it; "" when silent)
    reason: str = ""
    # fix_burst: the fixes of the line (merged in the window after the change) and the fixes
    # joining the burst, together — the items' fixes are those of them that touched the change's
    # code ("7 of its 8 fixes"); 0 in summaries made before it was carried
    of_fixes: int = 0
    # loosened (tests skipped or relaxed) and temporary measures: the later changes of the window
    # that touched the same test or configuration files (#9681 skipped a test, #9704 updated its
    # baseline: "#9704 followed"); () when none did
    followed_by: tuple[int, ...] = ()
    # revert: undone on purpose, to come back (its reason gives a plan — a freeze, "redo it once
    # 0.13.0 is released" — and names no defect): not a regression; False in older summaries
    planned: bool = False


NewsKind = Literal[
    "release",
    "version",
    "release_branch",
    "support_dropped",
    "support_added",
    "governance",
    "policy",
]


class ProjectNews(Frozen):
    """An event a reader of the project's report wants first, found from a change's title, paths
    and description: release notes for a version (release), the project's own version bumped
    (version), a release branch cut (release_branch), support for a dependency's version dropped
    or added, maintainers, committers, reviewers or code owners added or changed (governance), a
    versioning or deprecation policy changed (policy). `what` is as written: the version
    ("v0.11.0"), the dependency and version ("vLLM 0.12.0"), the role ("maintainers"), the
    policy; `people` the names a governance change gives; `ahead_of` the release a description
    says comes next ("release v0.13.0 soon"); `said` the description's sentence."""

    kind: NewsKind
    items: tuple[int, ...]
    what: str = ""
    people: tuple[str, ...] = ()
    action: Literal["added", "removed", "changed"] = "changed"
    ahead_of: str = ""
    said: str = ""


class Theme(Frozen):
    """A line of work: a module with its key PRs (highlights and key changes by theme)."""

    module: str
    prs: tuple[int, ...]
    merged: int = 0
    lines_added: int = 0
    lines_removed: int = 0


class Discussion(Frozen):
    item: ItemRef
    comments_in_window: int = 0
    reviews_in_window: int = 0
    participants: tuple[str, ...] = ()
    status: str = "open"
    heat: float = 0.0


class RiskObservation(Frozen):
    risk: str
    severity: Literal["low", "medium", "high"] = "medium"
    count: int
    items: tuple[int, ...]
    reason: str = ""


class EcosystemGroup(Frozen):
    category: str
    items: tuple[ItemRef, ...]


class EcosystemSection(Frozen):
    """A vendor or ecosystem view, e.g. AMD/ROCm: affiliated authors plus ecosystem-tagged items."""

    name: str
    affiliation: str | None = None
    ecosystem: str | None = None
    issues: tuple[ItemRef, ...] = ()
    pr_groups: tuple[EcosystemGroup, ...] = ()
    contributors: tuple[str, ...] = ()


class FollowUp(Frozen):
    """One concern, once: its first item, and every item it covers in `items`."""

    kind: Literal[
        "open_rfc",
        "awaiting_review",
        "popular_bug",
        "core_without_tests",
        "instability",
        "revert",
        "reland",
        "upgrade_fallout",
        "fix_burst",
        "temporary",
        "removal",
        "loosened",
        "unfinished",
        "narrowed",
        # a setting removed or given a new default: tell users (items: the changes)
        "interface",
        # what a change says is temporary or comes next, in its own words (reason: its sentence)
        "next_step",
        "other",
    ]
    item: ItemRef
    reason: str
    days: float | None = None
    items: tuple[int, ...] = ()


class Contributor(Frozen):
    login: str
    prs_opened: int = 0
    prs_merged: int = 0
    issues_opened: int = 0
    comments: int = 0
    reviews: int = 0
    first_time: bool = False
    bot: bool = False


class DailyActivity(Frozen):
    day: date
    prs_opened: int = 0
    prs_merged: int = 0
    prs_closed_unmerged: int = 0
    issues_opened: int = 0
    issues_closed: int = 0
    comments: int = 0


class HourlyActivity(Frozen):
    """One hour of a day window (`start` in UTC; the renderer shows it in the window's zone)."""

    start: datetime
    prs_opened: int = 0
    prs_merged: int = 0
    issues_opened: int = 0
    comments: int = 0


class Appendix(Frozen):
    new_issues: tuple[ItemRef, ...] = ()
    closed_issues: tuple[ItemRef, ...] = ()
    new_prs: tuple[ItemRef, ...] = ()
    merged_prs: tuple[ItemRef, ...] = ()
    closed_unmerged_prs: tuple[ItemRef, ...] = ()
    # list name -> items left out to keep the event under the bus's message size (counts stay exact)
    omitted: dict[str, int] = Field(default_factory=dict)


class ChangedFigure(Frozen):
    name: str
    before: float | int | None
    after: float | int | None


class ProseCheckNote(Frozen):
    """A model-written sentence that failed verification and was replaced by template text."""

    part: str  # lead | highlights.<module> | themes.<module> | risks.<risk> | follow_ups.<number>
    check: str  # invented_number | underivable_percent | unknown_reference | unknown_entry
    value: str
    problem: str = ""
    sentence: str = ""


class ProseNote(Frozen):
    """Who wrote a rendered report's prose (set by the renderer when a narrator is configured;
    the summarizer leaves it empty)."""

    source: Literal["model", "mixed", "template"]
    model: str
    prompt_version: str
    model_parts: tuple[str, ...] = ()
    replaced: tuple[ProseCheckNote, ...] = ()
    unavailable: str | None = None
    cached: bool = False
    # timeout | server_error | refused | unreachable | malformed | over_budget | no_prompt |
    # unverified
    unavailable_code: str | None = None


# the numbers of a report across repositories: the repository's place in `SummaryData.repos`
# (from 1) times NUMBER_STRIDE plus the item's own number (no repository is near 10^7 items)
NUMBER_STRIDE = 10_000_000


def split_number(number: int) -> tuple[int | None, int]:
    """(the repository's place in `repos`, or None for one repository's number; the own number)."""
    if number < NUMBER_STRIDE:
        return None, number
    return number // NUMBER_STRIDE - 1, number % NUMBER_STRIDE


def number_label(number: int, repos: tuple[str, ...] | list[str]) -> str:
    """`#N` for a repository's own number, `name#N` for a number of a report across repositories."""
    place, own = split_number(number)
    if place is None or place >= len(repos):
        return f"#{number}"
    return f"{repos[place].split('/', 1)[1]}#{own}"


class CrossRef(Frozen):
    """An item of the window whose description refers into another repository (its digest's
    reference with `repo` set): what joins repositories' storylines in a report across them."""

    number: int
    repo: RepoName
    ref_number: int
    kind: str = "related"


class RepoPart(Frozen):
    """One repository of a report across repositories: its own report's revision and counts."""

    repo: RepoName
    revision: int = Field(ge=1)
    counts: Counts
    previous_counts: Counts | None = None


class CoveredSpan(Frozen):
    """The part of a window its source covers when that is not all of it: the span clipped to the
    window (2026-W34 of a history ending 08-22 20:51: 08-17 00:00 to 08-22 20:51, not the source's
    whole span from 2025) and its share of the window's length."""

    start: datetime
    end: datetime
    share: float = Field(ge=0.0, le=1.0)


class SummaryData(Frozen):
    """The whole report model for one repository and window (one revision)."""

    repo: RepoName
    window: WindowRef
    revision: int = Field(ge=1)
    generated_at: datetime
    ruleset_versions: tuple[str, ...] = ()
    languages: tuple[Language, ...] = ("en",)
    formats: tuple[Format, ...] = ALL_FORMATS
    synthetic: bool = False
    data_note: str | None = None
    source: SourceInfo | None = None
    # "partial": the window reaches beyond what the source covers (the report says so on top)
    coverage: Literal["full", "partial"] = "full"
    # the part of the window the source covers, when partial (None: full, or no bounds known);
    # the same of the previous window: a comparison of a partly covered window with the previous
    # is partial (the figures compare unlike spans; module trends are judged prorated)
    covered: CoveredSpan | None = None
    previous_covered: CoveredSpan | None = None
    appendix_mode: AppendixMode = "compact"
    watermark: datetime | None = None
    counts: Counts
    previous_counts: Counts | None = None
    modules: tuple[ModuleTrend, ...] = ()
    key_prs: tuple[KeyPR, ...] = ()
    themes: tuple[Theme, ...] = ()
    storylines: tuple[Storyline, ...] = ()
    incidents: tuple[Incident, ...] = ()
    # releases, support dropped or added, governance and policy changes of the window
    news: tuple[ProjectNews, ...] = ()
    discussions: tuple[Discussion, ...] = ()
    risks: tuple[RiskObservation, ...] = ()
    ecosystems: tuple[EcosystemSection, ...] = ()
    follow_ups: tuple[FollowUp, ...] = ()
    contributors: tuple[Contributor, ...] = ()
    activity: tuple[DailyActivity, ...] = ()
    hourly: tuple[HourlyActivity, ...] = ()  # day windows only
    median_hours_to_merge: float | None = None
    median_hours_to_first_response: float | None = None
    appendix: Appendix = Appendix()
    # items the summary names that none of its lists holds (a change merged before the window
    # that a revert or an instability line points at, or one merged after it, up to the
    # watermark, that brought a reverted change back): their titles, links and merge times
    referenced: tuple[ItemRef, ...] = ()
    changed_figures: tuple[ChangedFigure, ...] = ()
    # ids of the facts the figures count (bounded sample), for span links and audits
    fact_ids_sample: tuple[str, ...] = ()
    facts_counted: int = 0
    # the ReportRequested this summary answers (None when a watermark closed the window)
    request_id: str | None = None
    # the renderer's prose note in a JSON artifact (never set by the summarizer)
    prose: ProseNote | None = None
    # a report across repositories (`repo` is then its key, e.g. vllm-project/_..all): each
    # repository's revision and counts, in the order of the combined numbering; () for one repository
    repos: tuple[RepoPart, ...] = ()
    # the window's items that refer into another repository (for reports across repositories)
    cross_refs: tuple[CrossRef, ...] = ()


class WindowSummarized(CloudEvent):
    """A window's report model was computed (revision n). Producer: summarizer."""

    type: Literal["dev.repodigest.summary.window.v1"] = "dev.repodigest.summary.window.v1"
    TYPE: ClassVar[str] = "dev.repodigest.summary.window.v1"
    data: SummaryData

    @classmethod
    def create(cls, data: SummaryData) -> WindowSummarized:
        return cls(
            id=deterministic_id(
                "summary", data.repo, data.window.label, data.revision, data.request_id or ""
            ),
            source="/repodigest/summarizer",
            subject=f"{data.repo}@{data.window.label}",
            time=data.generated_at,
            data=data,
        )
