"""Enriched facts published by the classifier on RD_ENRICHED: a GitHub fact plus its tags.

Producer: classifier. Consumers: summarizer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar, Literal, Union

from pydantic import Field, TypeAdapter

from .envelope import CloudEvent, Frozen, deterministic_id
from .github import FactData, GithubFact, RepoName, WatermarkData

Severity = Literal["low", "medium", "high"]


class Tag(Frozen):
    """A label the classifier attached, with the id of the rule that fired (explainability)."""

    name: str
    rule: str
    fallback: bool = False


class RiskTag(Frozen):
    name: str
    severity: Severity = "medium"
    reason: str
    rule: str


class Tags(Frozen):
    modules: tuple[Tag, ...] = ()
    risks: tuple[RiskTag, ...] = ()
    # organisations the author belongs to (a `-amd` login, an e-mail domain, a member list)
    affiliations: tuple[Tag, ...] = ()
    # ecosystems the item touches whoever wrote it (a "[ROCm]" title counts toward ROCm)
    ecosystems: tuple[Tag, ...] = ()
    # kind of change: performance, bugfix, feature, platform, ci, docs, release, refactor, ...
    categories: tuple[Tag, ...] = ()
    bot: bool = False
    bot_rule: str | None = None

    def module_names(self) -> list[str]:
        return [t.name for t in self.modules]


class RuleSetRef(Frozen):
    """Which rule set produced the tags: its profile name and the hash of its content."""

    profile: str
    version: str


class EnrichedData(Frozen):
    fact_id: str
    fact_type: str
    fact_time: datetime
    fact: FactData
    tags: Tags
    ruleset: RuleSetRef


class EnrichedFact(CloudEvent):
    """A GitHub fact with module, risk, affiliation, ecosystem, category and bot tags."""

    type: Literal["dev.repodigest.enriched.fact.v1"] = "dev.repodigest.enriched.fact.v1"
    TYPE: ClassVar[str] = "dev.repodigest.enriched.fact.v1"
    data: EnrichedData

    @classmethod
    def create(cls, fact: GithubFact, tags: Tags, ruleset: RuleSetRef) -> "EnrichedFact":
        # a re-classification under another rule set is a new event for the same fact
        return cls(
            id=deterministic_id(fact.id, ruleset.version),
            source="/repodigest/classifier",
            subject=fact.subject,
            time=fact.time,
            data=EnrichedData(
                fact_id=fact.id,
                fact_type=fact.type,
                fact_time=fact.time,
                fact=fact.data,
                tags=tags,
                ruleset=ruleset,
            ),
        )


class WatermarkForwarded(CloudEvent):
    """The ingest watermark, passed on by the classifier after every fact before it."""

    type: Literal["dev.repodigest.enriched.watermark.v1"] = "dev.repodigest.enriched.watermark.v1"
    TYPE: ClassVar[str] = "dev.repodigest.enriched.watermark.v1"
    data: WatermarkData

    @classmethod
    def create(cls, data: WatermarkData) -> "WatermarkForwarded":
        return cls(
            id=deterministic_id(data.repo, "watermark-forwarded", data.watermark),
            source="/repodigest/classifier",
            subject=data.repo,
            time=data.watermark,
            data=data,
        )


AnyEnrichedEvent = Annotated[
    Union[EnrichedFact, WatermarkForwarded], Field(discriminator="type")
]
ENRICHED_EVENT_ADAPTER: TypeAdapter = TypeAdapter(AnyEnrichedEvent)

__all__ = [
    "EnrichedData", "EnrichedFact", "RepoName", "RiskTag", "RuleSetRef", "Severity", "Tag",
    "Tags", "WatermarkForwarded", "ENRICHED_EVENT_ADAPTER",
]
