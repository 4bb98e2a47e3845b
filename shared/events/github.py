"""GitHub facts published by ingest on RD_GITHUB: item transitions, comments, reviews, watermarks.

Producer: ingest. Consumers: classifier (and, for the watermark, everything downstream through it).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import AfterValidator, Field, StringConstraints, TypeAdapter, field_validator

from .envelope import (
    ITEM_NUMBER_MAX,
    CloudEvent,
    Count,
    Frozen,
    Int64,
    Text,
    Time,
    deterministic_id,
    utc,
)

REPO_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
BODY_EXCERPT_MAX = 4000  # enough for the template sections the digest reads (99% of real bodies)
FILES_CAP = 300


def check_repo(value: str) -> str:
    """`owner/name` as GitHub spells it; anything else (paths, spaces, `..`) is refused."""
    if not REPO_RE.match(value) or value.split("/", 1)[1] in {".", ".."}:
        raise ValueError(
            f"{value!r} is not a GitHub repository name; expected OWNER/NAME, e.g. vllm-project/vllm"
        )
    return value


RepoName = Annotated[str, AfterValidator(check_repo)]
ItemKind = Literal["pull_request", "issue"]
Association = Literal[
    "OWNER",
    "MEMBER",
    "COLLABORATOR",
    "CONTRIBUTOR",
    "FIRST_TIME_CONTRIBUTOR",
    "FIRST_TIMER",
    "MANNEQUIN",
    "NONE",
]


# a commit's hash as git and GitHub write it: lower-case hex, abbreviated (7+) or whole (40, or 64
# in a SHA-256 repository)
CommitSha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{7,64}$")]
_COMMIT_SHA = re.compile(r"[0-9a-f]{7,64}")


def commit_sha(value: object) -> str | None:
    """A source's commit hash as a snapshot carries it (lower-cased), None when it has none or
    what it has is no hash (the hash is a help, never a reason to refuse the item)."""
    sha = str(value or "").strip().lower()
    return sha if _COMMIT_SHA.fullmatch(sha) else None


def excerpt(text: str | None, limit: int = BODY_EXCERPT_MAX) -> str:
    if not text:
        return ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Actor(Frozen):
    login: Text
    association: Association | Text = "NONE"
    is_bot: bool = False
    email_domain: Text | None = None
    # a commit's author as git has it (the git-history replay); None for GitHub's own facts.
    # Identities (services/classifier/domain/identities.py) merge them with logins
    name: Text | None = None
    email: Text | None = None


NOREPLY_DOMAIN = "users.noreply.github.com"


def noreply_login(email: str | None) -> str | None:
    """The GitHub login a noreply address carries (`12345+login@users.noreply.github.com`, the
    older `login@users.noreply.github.com`), else None."""
    local, _, domain = (email or "").strip().rpartition("@")
    if domain.lower() != NOREPLY_DOMAIN or not local:
        return None
    return (local.split("+", 1)[1] if "+" in local else local) or None


class FileChange(Frozen):
    path: Text
    additions: Count = 0
    deletions: Count = 0
    status: Text | None = None


class ItemSnapshot(Frozen):
    """What a pull request or issue looked like when the fact happened (or when it was observed)."""

    repo: RepoName
    number: int = Field(ge=1, le=ITEM_NUMBER_MAX)
    kind: ItemKind
    title: Text
    url: Text | None = None
    author: Actor
    labels: tuple[Text, ...] = ()
    state: Literal["open", "closed"]
    draft: bool = False
    created_at: Time
    updated_at: Time | None = None
    closed_at: Time | None = None
    merged_at: Time | None = None
    merged_by: Text | None = None
    comments: Count = 0
    review_comments: Count = 0
    reviews: Count = 0
    reactions: Count = 0
    additions: Count | None = None
    deletions: Count | None = None
    changed_files: Count | None = None
    files: tuple[FileChange, ...] = ()
    files_truncated: bool = False
    base_branch: Text | None = None
    # the pull request's head ref name (`feature/x`; a fork's branch without its owner), as REST,
    # webhooks, GraphQL (headRefName) and GH Archive give it; None for issues, for the git-history
    # replay and for facts logged before it was carried
    head_branch: Text | None = None
    # the commit a merged pull request became on its base branch (REST merge_commit_sha once
    # merged, GraphQL mergeCommit.oid, the history's squash commit): what "This reverts commit
    # <sha>" names. None for issues, open or closed-unmerged pull requests, older facts
    merge_commit_sha: CommitSha | None = None
    body_excerpt: Text = ""

    @field_validator("body_excerpt")
    @classmethod
    def _cap_body(cls, v: str) -> str:
        return excerpt(v)

    @property
    def html_url(self) -> str:
        if self.url:
            return self.url
        segment = "pull" if self.kind == "pull_request" else "issues"
        return f"https://github.com/{self.repo}/{segment}/{self.number}"


class CommentInfo(Frozen):
    id: Int64
    author: Actor
    created_at: Time
    body_excerpt: Text = ""
    on_review: bool = False

    @field_validator("body_excerpt")
    @classmethod
    def _cap(cls, v: str) -> str:
        return excerpt(v, 500)


class ReviewInfo(Frozen):
    id: Int64
    author: Actor
    state: Text
    submitted_at: Time


Origin = Literal["poll", "webhook", "replay", "gharchive", "git", "demo"]


class FactData(Frozen):
    """The body of every GitHub fact. `action` and `kind` repeat what `type` says, for readers."""

    repo: RepoName
    kind: Literal["pull_request", "issue", "comment", "review"]
    action: Text
    item: ItemSnapshot
    actor: Text | None = None
    label: Text | None = None
    comment: CommentInfo | None = None
    review: ReviewInfo | None = None
    origin: Origin = "replay"


class GithubFact(CloudEvent):
    """Base of every fact ingest publishes; subclasses pin the type."""

    data: FactData
    KIND: ClassVar[str] = ""
    ACTION: ClassVar[str] = ""

    @property
    def repo(self) -> str:
        return self.data.repo


class PullRequestOpened(GithubFact):
    """A pull request was opened. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.opened.v1"] = (
        "dev.repodigest.github.pull_request.opened.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.opened.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "opened"


class PullRequestMerged(GithubFact):
    """A pull request was merged. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.merged.v1"] = (
        "dev.repodigest.github.pull_request.merged.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.merged.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "merged"


class PullRequestClosed(GithubFact):
    """A pull request was closed without being merged. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.closed.v1"] = (
        "dev.repodigest.github.pull_request.closed.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.closed.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "closed"


class PullRequestReopened(GithubFact):
    """A closed pull request was reopened. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.reopened.v1"] = (
        "dev.repodigest.github.pull_request.reopened.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.reopened.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "reopened"


class PullRequestEdited(GithubFact):
    """A pull request's title, body or base branch changed. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.edited.v1"] = (
        "dev.repodigest.github.pull_request.edited.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.edited.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "edited"


class PullRequestLabeled(GithubFact):
    """A label was added to a pull request (`data.label`). Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.labeled.v1"] = (
        "dev.repodigest.github.pull_request.labeled.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.labeled.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "labeled"


class PullRequestReadyForReview(GithubFact):
    """A draft pull request was marked ready for review. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.ready_for_review.v1"] = (
        "dev.repodigest.github.pull_request.ready_for_review.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.ready_for_review.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "ready_for_review"


class PullRequestConvertedToDraft(GithubFact):
    """A pull request was converted to a draft. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.pull_request.converted_to_draft.v1"] = (
        "dev.repodigest.github.pull_request.converted_to_draft.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.pull_request.converted_to_draft.v1"
    KIND: ClassVar[str] = "pull_request"
    ACTION: ClassVar[str] = "converted_to_draft"


class IssueOpened(GithubFact):
    """An issue was opened. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.issue.opened.v1"] = "dev.repodigest.github.issue.opened.v1"
    TYPE: ClassVar[str] = "dev.repodigest.github.issue.opened.v1"
    KIND: ClassVar[str] = "issue"
    ACTION: ClassVar[str] = "opened"


class IssueClosed(GithubFact):
    """An issue was closed. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.issue.closed.v1"] = "dev.repodigest.github.issue.closed.v1"
    TYPE: ClassVar[str] = "dev.repodigest.github.issue.closed.v1"
    KIND: ClassVar[str] = "issue"
    ACTION: ClassVar[str] = "closed"


class IssueReopened(GithubFact):
    """A closed issue was reopened. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.issue.reopened.v1"] = (
        "dev.repodigest.github.issue.reopened.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.issue.reopened.v1"
    KIND: ClassVar[str] = "issue"
    ACTION: ClassVar[str] = "reopened"


class IssueEdited(GithubFact):
    """An issue's title or body changed. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.issue.edited.v1"] = "dev.repodigest.github.issue.edited.v1"
    TYPE: ClassVar[str] = "dev.repodigest.github.issue.edited.v1"
    KIND: ClassVar[str] = "issue"
    ACTION: ClassVar[str] = "edited"


class IssueLabeled(GithubFact):
    """A label was added to an issue (`data.label`). Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.issue.labeled.v1"] = (
        "dev.repodigest.github.issue.labeled.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.issue.labeled.v1"
    KIND: ClassVar[str] = "issue"
    ACTION: ClassVar[str] = "labeled"


class CommentCreated(GithubFact):
    """A comment was written on an issue or pull request, or on a PR's diff. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.comment.created.v1"] = (
        "dev.repodigest.github.comment.created.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.comment.created.v1"
    KIND: ClassVar[str] = "comment"
    ACTION: ClassVar[str] = "created"


class ReviewSubmitted(GithubFact):
    """A pull request review was submitted. Producer: ingest. Consumers: classifier."""

    type: Literal["dev.repodigest.github.review.submitted.v1"] = (
        "dev.repodigest.github.review.submitted.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.review.submitted.v1"
    KIND: ClassVar[str] = "review"
    ACTION: ClassVar[str] = "submitted"


FACT_TYPES: tuple[type[GithubFact], ...] = (
    PullRequestOpened,
    PullRequestMerged,
    PullRequestClosed,
    PullRequestReopened,
    PullRequestEdited,
    PullRequestLabeled,
    PullRequestReadyForReview,
    PullRequestConvertedToDraft,
    IssueOpened,
    IssueClosed,
    IssueReopened,
    IssueEdited,
    IssueLabeled,
    CommentCreated,
    ReviewSubmitted,
)
FACT_BY_KEY: dict[tuple[str, str], type[GithubFact]] = {(c.KIND, c.ACTION): c for c in FACT_TYPES}


class WatermarkData(Frozen):
    repo: RepoName
    watermark: Time
    origin: Origin = "replay"
    facts_published: Int64 = 0


class SyncWatermark(CloudEvent):
    """Everything on GitHub for `repo` up to `watermark` has been published. Producer: ingest."""

    type: Literal["dev.repodigest.github.sync.watermark.v1"] = (
        "dev.repodigest.github.sync.watermark.v1"
    )
    TYPE: ClassVar[str] = "dev.repodigest.github.sync.watermark.v1"
    data: WatermarkData

    @classmethod
    def create(cls, data: WatermarkData) -> SyncWatermark:
        return cls(
            id=deterministic_id(data.repo, "watermark", data.watermark),
            source=f"/repodigest/ingest/{data.origin}",
            subject=data.repo,
            time=data.watermark,
            data=data,
        )


# a union built at run time from FACT_TYPES: a value for TypeAdapter, not a static type
AnyGithubEvent: Any = Annotated[
    Union[tuple(FACT_TYPES) + (SyncWatermark,)],  # noqa: UP007 - X | Y cannot take a tuple
    Field(discriminator="type"),
]
GITHUB_EVENT_ADAPTER: TypeAdapter = TypeAdapter(AnyGithubEvent)


def fact_time(data: FactData) -> datetime:
    """When the fact happened on GitHub: the time windows count it by."""
    item = data.item
    key = (data.kind, data.action)
    if data.kind == "comment" and data.comment is not None:
        return data.comment.created_at
    if data.kind == "review" and data.review is not None:
        return data.review.submitted_at
    if key == ("pull_request", "merged") and item.merged_at is not None:
        return item.merged_at
    if data.action == "closed" and item.closed_at is not None:
        return item.closed_at
    if data.action == "opened":
        return item.created_at
    return item.updated_at or item.created_at


def make_fact(data: FactData, *, time: datetime | None = None) -> GithubFact:
    """Build the typed fact for `data`, with its GitHub time and its deterministic id.

    The id covers (repo, item, action, time, and the comment/review/label that makes the fact
    unique), never the origin, so a webhook and a poll that see the same transition agree.
    """
    cls = FACT_BY_KEY.get((data.kind, data.action))
    if cls is None:
        raise ValueError(f"no GitHub fact type for kind={data.kind!r} action={data.action!r}")
    when = utc(time) if time is not None else fact_time(data)
    extra = data.comment.id if data.comment else data.review.id if data.review else data.label or ""
    return cls(  # type: ignore[call-arg]  # each fact class pins `type` with its default
        id=deterministic_id(data.repo, data.item.number, data.kind, data.action, when, extra),
        source=f"/repodigest/ingest/{data.origin}",
        subject=f"{data.repo}#{data.item.number}",
        time=when,
        data=data,
    )
