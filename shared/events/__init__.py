"""Event contracts v1: CloudEvents envelope and one pydantic model per event type."""

from .dead import DeadLetter
from .enriched import (
    ENRICHED_EVENT_ADAPTER, REASON_WORDS, Claim, Digest, EnrichedData, Reference, EnrichedFact, RiskTag,
    PersonLink, RuleSetRef, Tag, Tags,
    WatermarkForwarded,
)
from .envelope import CloudEvent, Frozen, deterministic_id, utc
from .github import (
    FACT_BY_KEY, FACT_TYPES, GITHUB_EVENT_ADAPTER, Actor, CommentCreated, CommentInfo, FactData,
    FileChange, GithubFact, IssueClosed, IssueEdited, IssueLabeled, IssueOpened, IssueReopened,
    ItemSnapshot, PullRequestClosed, PullRequestConvertedToDraft, PullRequestEdited,
    PullRequestLabeled, PullRequestMerged, PullRequestOpened, PullRequestReadyForReview,
    PullRequestReopened, ReviewInfo, ReviewSubmitted, SyncWatermark, WatermarkData, check_repo,
    excerpt, fact_time, make_fact,
)
from .reports import Artifact, ReportReady, ReportReadyData
from .summary import (
    ALL_FORMATS, ALL_PROVIDED, Appendix, ChangedFigure, Contributor, Counts, DailyActivity,
    Discussion, EcosystemGroup, EcosystemSection, FollowUp, HourlyActivity, Incident, ItemRef,
    KeyPR, SourceInfo, Storyline, StorylineItem, ModuleTrend, ProseCheckNote,
    ProseNote, ReportRequestData, ReportRequested, RiskObservation, ScoreSignal, SummaryData, Theme, WindowRef,
    WindowSummarized,
)

# every event type with a committed JSON Schema (shared/events/schemas/<type>.json)
ALL_EVENT_TYPES: tuple[type[CloudEvent], ...] = (
    *FACT_TYPES, SyncWatermark, EnrichedFact, WatermarkForwarded, ReportRequested,
    WindowSummarized, ReportReady,
)

__all__ = [name for name in dir() if not name.startswith("_")]
