"""Enriched facts published by the classifier on RD_ENRICHED: a GitHub fact plus its tags.

Producer: classifier. Consumers: summarizer.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import Field, TypeAdapter

from .envelope import CloudEvent, Frozen, Int64, Text, Time, deterministic_id
from .github import FactData, GithubFact, RepoName, WatermarkData

Severity = Literal["low", "medium", "high"]


class Tag(Frozen):
    """A label the classifier attached, with the id of the rule that fired (explainability)."""

    name: Text
    rule: Text
    fallback: bool = False


class TopicTag(Tag):
    """A profile's topic the item belongs to, with the topic's names in the report's other
    languages ({"zh-CN": "310P（Atlas 300I 推理卡）"}): the profile's words, not the data's."""

    names: dict[Text, Text] = Field(default_factory=dict)


class RiskTag(Frozen):
    name: Text
    severity: Severity = "medium"
    reason: Text
    rule: Text


# "none": the description says no test was run or needed; "not_run": it says tests were not run
# ("NPU end-to-end validation has not been run locally"), beside the kinds that were
TestKind = Literal["unit", "e2e", "benchmark", "accuracy", "manual", "ci", "none", "not_run"]
RefKind = Literal["fixes", "reverts", "follow_up", "fix_up", "backport", "upstream", "related"]
UserFacing = Literal["yes", "no", "unknown"]


class Claim(Frozen):
    """A performance or accuracy claim of a description, quoted with its sentence."""

    kind: Literal["performance", "accuracy"]
    sentence: Text  # a span of the body (markup stripped), at most ~240 characters
    figures: tuple[Text, ...] = ()  # the numbers it states, as written ("1.2x", "9-16%", "3.6x")
    # what was measured, when the sentence names it ("time cost", "KV cache memory"; a table's
    # header cell "Mean TTFT (ms)"); a span of the body
    metric: Text = ""
    # a measured change stated as a pair, as written: "26us" → "11 us"; a table's baseline and
    # this change's cells "429.40" → "323.3"
    before: Text = ""
    after: Text = ""
    # the way the sentence says the metric went: "reduced" (reduce, lower, save …) or "improved"
    # (improve, increase, boost, faster …); "" when it says neither
    trend: Literal["reduced", "improved", ""] = ""
    # when `sentence` is a table row: the table's header row (a span), which says what the
    # row's cells are
    header: Text = ""


# "type": a setting whose value now takes another type ("dump_config is changed from dict to
# string", real #5296): a configuration written for the old type breaks
InterfaceKind = Literal["added", "removed", "renamed", "default", "type"]


class InterfaceChange(Frozen):
    """A setting users will notice in how they configure or run the code — an option, flag,
    argument, environment variable, configuration key or load format — added, removed, renamed,
    given a new default or a new type, as the description (or title) says."""

    kind: InterfaceKind
    name: Text  # as the body writes it ("sp_threshold", "--load-format", "load-format: rfork")
    new_name: Text = ""  # renamed: what it is called now
    sentence: Text = ""  # the sentence that says so, a span of the body ("" when the title says it)


# words that make a sentence a reason ("break CI:", "It breaks the test …", "image build failed"):
# the classifier picks a title revert's `context` by them, the summarizer quotes a revert's
# what-sentence as its reason only when it has one
REASON_WORDS = re.compile(
    r"(?i)\b(?:break|breaks|broke|broken|fail\w*|regress\w*|errors?|crash\w*|hang\w*|because|due to"
    r"|caus\w+|bugs?|wrong|incorrect|accuracy|precision|problems?|conflict\w*|for ci"
    # ... or that it is undone on purpose, for a while ("the main branch is freeze")
    r"|freez\w*|frozen|postpon\w*|redo)\b"
)


class Reference(Frozen):
    """Another change or issue a description (or title) points at, and how."""

    kind: RefKind
    number: Int64 | None = None  # #N in this repository (or in `repo`)
    repo: Text | None = None  # owner/name when it points into another repository
    sha: Text | None = None  # "This reverts commit <sha>"
    title: Text | None = None  # the reverted change's title, from `Revert "<title>"`
    # the description's sentence that makes a revert or fix-up reference (it often says why:
    # "Reverts #5082, which broke CI"); a span of the body, at most ~240 characters
    context: Text = ""


class Digest(Frozen):
    """What a change or issue says of itself, extracted from its description (pure, replayable).

    Every text field is a span of the body (modulo whitespace and markup), never written anew.
    """

    what: Text = ""  # what it does and why: one or two sentences, at most ~240 characters
    user_facing: UserFacing = "unknown"
    user_facing_text: Text = ""  # how it is user-facing, when the description says so
    tested: tuple[TestKind, ...] = ()  # () = not stated; "not_run" last, its sentence tested_text
    tested_text: Text = ""
    claims: tuple[Claim, ...] = ()
    refs: tuple[Reference, ...] = ()
    template_only: bool = False  # the description is the template with nothing filled in
    # the sentence that says what went wrong, when it names a hang, deadlock, crash, running out
    # of memory, a leak or wrong output ("the two operators will be deadlocked"); a span of the body
    symptom: Text = ""
    # the sentence that says what error a user hits, when it names an exception, an assertion,
    # "no attribute", something failing to start or load ("which will cause assert error in vllm
    # KVOutputAggregator"); not one of CI, tests or docs; a span of the body
    error: Text = ""
    # settings users will notice: added, removed, renamed, given a new default
    interface: tuple[InterfaceChange, ...] = ()
    # the sentences that say the change is temporary, announce what comes next or admit what is
    # left open ("This will be discard after … releases", "2nd PR for #5712", "Further testing
    # should be done", "there are several issues remain to be resolved: …"); spans
    next_steps: tuple[Text, ...] = ()
    # the sentence that says this change gives something a new default, what users get unless
    # they set otherwise ("the default graph mode is changed to `FULL_AND_PIECEWISE`", "async-
    # scheduling is now enabled by default"); a span of the body, "" when it says none
    default_change: Text = ""


class PersonLink(Frozen):
    """An actor of the fact (its login as the fact carries it: a GitHub login, or a commit's
    author name) and the person the identities file or a GitHub noreply address makes it."""

    login: Text
    person: Text


class Tags(Frozen):
    modules: tuple[Tag, ...] = ()
    risks: tuple[RiskTag, ...] = ()
    # organisations the author belongs to (a `-amd` login, an e-mail domain, a member list)
    affiliations: tuple[Tag, ...] = ()
    # ecosystems the item touches whoever wrote it (a "[ROCm]" title counts toward ROCm)
    ecosystems: tuple[Tag, ...] = ()
    # kind of change: performance, bugfix, feature, platform, ci, docs, release, refactor, ...
    categories: tuple[Tag, ...] = ()
    # the profile's topics the item belongs to: one line of work under several names ("A5",
    # "Ascend950"), named as the profile names it ("Ascend 950 (A5)"); the summarizer's storylines
    # count a topic as a term of the item
    topics: tuple[TopicTag, ...] = ()
    bot: bool = False
    bot_rule: Text | None = None
    # what the item's description says it does, why, how it was tested, what it claims and refers to
    digest: Digest | None = None
    # the fact's actors (author, merger, commenter, reviewer) that are another person's alias;
    # an actor not listed is the person its login names
    people: tuple[PersonLink, ...] = ()

    def person(self, login: str) -> str:
        """The person `login` is (itself unless the identities merged it into someone)."""
        for link in self.people:
            if link.login == login:
                return link.person
        return login

    def module_names(self) -> list[str]:
        return [t.name for t in self.modules]

    def topic_names(self) -> list[str]:
        return [t.name for t in self.topics]


class RuleSetRef(Frozen):
    """Which rule set produced the tags: its profile name and the hash of its content."""

    profile: Text
    version: Text


class EnrichedData(Frozen):
    fact_id: Text
    fact_type: Text
    fact_time: Time
    fact: FactData
    tags: Tags
    ruleset: RuleSetRef


class EnrichedFact(CloudEvent):
    """A GitHub fact with module, risk, affiliation, ecosystem, category and bot tags."""

    type: Literal["dev.repodigest.enriched.fact.v1"] = "dev.repodigest.enriched.fact.v1"
    TYPE: ClassVar[str] = "dev.repodigest.enriched.fact.v1"
    data: EnrichedData

    @classmethod
    def create(cls, fact: GithubFact, tags: Tags, ruleset: RuleSetRef) -> EnrichedFact:
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
    def create(cls, data: WatermarkData) -> WatermarkForwarded:
        return cls(
            id=deterministic_id(data.repo, "watermark-forwarded", data.watermark),
            source="/repodigest/classifier",
            subject=data.repo,
            time=data.watermark,
            data=data,
        )


AnyEnrichedEvent = Annotated[EnrichedFact | WatermarkForwarded, Field(discriminator="type")]
ENRICHED_EVENT_ADAPTER: TypeAdapter = TypeAdapter(AnyEnrichedEvent)

__all__ = [
    "Claim",
    "Digest",
    "InterfaceChange",
    "Reference",
    "EnrichedData",
    "EnrichedFact",
    "RepoName",
    "RiskTag",
    "RuleSetRef",
    "Severity",
    "Tag",
    "Tags",
    "WatermarkForwarded",
    "ENRICHED_EVENT_ADAPTER",
]
