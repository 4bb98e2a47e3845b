"""Report-ready events on RD_REPORTS: where a rendered report's artifacts are, and their digests.

Producer: renderer. Consumers: `repodigest subscribe`, `repodigest report`, anyone subscribing.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import Field

from .envelope import CloudEvent, Frozen, deterministic_id
from .github import RepoName
from .summary import ChangedFigure, Format, Language, WindowRef


class Artifact(Frozen):
    format: Format
    language: Language
    uri: str
    key: str
    size: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    content_type: str
    # a JSON artifact's JSON Schema (stored beside it as report.schema.json); None for others
    schema_uri: str | None = None


class ReportReadyData(Frozen):
    repo: RepoName
    window: WindowRef
    revision: int = Field(ge=1)
    languages: tuple[Language, ...]
    artifacts: tuple[Artifact, ...]
    summary_id: str
    changed_figures: tuple[ChangedFigure, ...] = ()
    rendered_at: datetime
    synthetic: bool = False
    # the ReportRequested this answers, so a requester can wait for exactly its report
    request_id: str | None = None


class ReportReady(CloudEvent):
    """A window's report (one revision) is in object storage. Producer: renderer."""

    type: Literal["dev.repodigest.report.ready.v1"] = "dev.repodigest.report.ready.v1"
    TYPE: ClassVar[str] = "dev.repodigest.report.ready.v1"
    data: ReportReadyData

    @classmethod
    def create(cls, data: ReportReadyData) -> ReportReady:
        return cls(
            id=deterministic_id(
                "report",
                data.repo,
                data.window.label,
                data.revision,
                ",".join(data.languages),
                data.request_id or "",
            ),
            source="/repodigest/renderer",
            subject=f"{data.repo}@{data.window.label}",
            time=data.rendered_at,
            data=data,
        )
