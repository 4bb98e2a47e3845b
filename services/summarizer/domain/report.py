"""The report model of one window (SEEDS.md), computed from folded facts and items (pure).

Every figure is a function of the window's facts, the previous window's facts, the items they
touch and the policy; `now` is only the generation time. Ordering is deterministic everywhere:
ties are broken by item number (or login), never by input order.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from shared.events import (
    ALL_PROVIDED,
    REASON_WORDS,
    Actor,
    Appendix,
    ChangedFigure,
    Contributor,
    Counts,
    DailyActivity,
    Discussion,
    EcosystemGroup,
    EcosystemSection,
    FactData,
    FileChange,
    FollowUp,
    HourlyActivity,
    Incident,
    ItemRef,
    ItemSnapshot,
    KeyPR,
    ModuleTrend,
    RiskObservation,
    ScoreSignal,
    SourceInfo,
    Storyline,
    SummaryData,
    Tags,
    Theme,
    WindowRef,
)
from shared.events.summary import (
    AppendixMode,
    CoveredSpan,
    CrossRef,  # reports across repositories
    Format,
    Language,
    LineCount,
    LineKind,
    ProjectNews,
)
from shared.windows import Window
from shared.wording import lifts_stopgap

from .memo import ITEMS
from .news import NewsWords, news_of, project_news
from .storylines import (
    FILE_SHARE,
    KIND_WORDS,
    REMOVAL_TITLE,
    REMOVALS_KEY,
    STOP_WORDS,
    UPGRADES_KEY,
    ItemLink,
    StoryItem,
    ci_only,
    file_kind,
    find_storylines,
    plain_title,
    quoted_revert,
    resolve_links,
    role_of,
    takes_out,
    terms_of,
    topic_term,
    upgrade_target,
    warm_title,
)

FIRST_TIME_ASSOCIATIONS = frozenset({"FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER"})
SEVERITY_RANK = {"low": 0, "medium": 1, "high": 2}
SEVERITY_POINTS = {"low": 0.5, "medium": 1.0, "high": 2.0}
ECOSYSTEM_GROUPS = ("performance", "bugfix", "platform-ci", "release", "other")
_GROUP_OF_CATEGORY = {
    "performance": "performance",
    "perf": "performance",
    "optimization": "performance",
    "bugfix": "bugfix",
    "bug": "bugfix",
    "fix": "bugfix",
    "platform": "platform-ci",
    "ci": "platform-ci",
    "build": "platform-ci",
    "hardware": "platform-ci",
    "platform-ci": "platform-ci",
    "test": "platform-ci",
    "release": "release",
}


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class FactRow:
    """One folded fact: what happened (with the item snapshot of that moment) and its tags."""

    fact_id: str
    time: datetime
    fact: FactData
    tags: Tags
    ruleset: str = ""


@dataclass(frozen=True)
class ItemRow:
    """The latest known snapshot and tags of a pull request or issue."""

    snapshot: ItemSnapshot
    tags: Tags
    first_seen: datetime | None = None


@dataclass(frozen=True)
class EcosystemSpec:
    """A vendor/ecosystem section: authors affiliated with `affiliation` plus items tagged `ecosystem`."""

    name: str
    affiliation: str | None = None
    ecosystem: str | None = None


@dataclass(frozen=True)
class ReportPolicy:
    key_pr_fraction: float = 0.10
    key_pr_min: int = 5
    key_pr_max: int = 25
    awaiting_review_days: float = 3.0
    # older unreviewed PRs are abandoned rather than awaiting review
    awaiting_review_max_days: float = 30.0
    popular_bug_reactions: int = 5
    # a login first seen in the window is a first-time contributor only if the folded history
    # reaches this far back (else only GitHub's FIRST_TIME_CONTRIBUTOR/FIRST_TIMER association)
    first_seen_history_days: float = 90.0
    hot_discussions: int = 5
    representative_prs: int = 3
    themes: int = 8
    theme_prs: int = 4
    follow_ups_per_kind: int = 8
    fact_sample: int = 50
    key_pr_excerpt: int = 400
    ecosystems: tuple[EcosystemSpec, ...] = (EcosystemSpec("AMD/ROCm", "amd", "rocm"),)
    # risk tag names meaning "touches core paths" and "lacks tests" (classifier rule sets name them)
    core_risks: tuple[str, ...] = ("core-change", "core", "core-path", "core-paths")
    # risk tag names of the project's pipeline (CI, build, dependencies): a loosened test touches
    # them by its nature, so they are no subsystem made unstable
    pipeline_risks: tuple[str, ...] = ("ci-build-change", "ci-change", "dependency-bump")
    # the classifier's profiles emit core-without-tests (llm-serving) and code-without-tests (generic)
    missing_test_risks: tuple[str, ...] = (
        "core-without-tests",
        "code-without-tests",
        "missing-tests",
        "untested",
    )
    notable_labels: tuple[str, ...] = (
        "rfc",
        "breaking",
        "performance",
        "security",
        "release-blocker",
    )
    # what kind of change it is: features and speed-ups lead, documentation, tests and CI trail
    category_points: Mapping[str, float] = field(
        default_factory=lambda: {
            "feature": 1.5,
            "performance": 1.0,
            "docs": -2.0,
            "test": -1.0,
            "platform-ci": -1.0,
            "ci": -1.0,
        }
    )
    # storylines (domain/storylines.py): how many (a profile's names of one line of work are its
    # `topics`, which the classifier tags)
    storylines: int = 8
    key_prs_per_storyline: int = 2
    # a bump of a dependency or upstream, then fixes merged within this many days: upgrade fallout
    upgrade_fallout_days: float = 7.0
    # module tags meaning "keeping up with an upstream or dependency" (the profiles name them)
    upgrade_modules: tuple[str, ...] = ("upstream-sync", "dependencies")
    # project news (domain/news.py): words a repository adds for its release documents and roles
    news_words: NewsWords = NewsWords()


@dataclass(frozen=True)
class WindowInput:
    """Everything the report of one window is computed from."""

    repo: str
    window: Window
    previous: Window
    facts: Sequence[FactRow]
    previous_facts: Sequence[FactRow]
    items: Mapping[int, ItemRow] = field(default_factory=dict)
    # first time each login was seen acting in the repository, and the first fact we hold at all
    actor_first_seen: Mapping[str, datetime] = field(default_factory=dict)
    history_start: datetime | None = None
    watermark: datetime | None = None
    # storylines: in how many of the repository's items (all history) each term appears, and how
    # many items that history holds (see domain/storylines.py: term_counts_of)
    term_counts: Mapping[str, int] = field(default_factory=dict)
    history_items: int = 0
    # items the window's items refer to (reverted, fixed-up, followed-up) merged before the window
    referenced: Mapping[int, ItemRow] = field(default_factory=dict)
    # changes merged after the window, up to the watermark, that may bring back a change reverted
    # in it: their titles say a change comes back or repeat a reverted change's title (the store
    # finds them by title, `brings_back_title`; `_relands` decides); never counted, linked or
    # listed as the window's, only told as what became of its reverts
    later: Mapping[int, ItemRow] = field(default_factory=dict)
    # the report lines made of `items` (see `_ref_for`): ItemRefs are immutable
    refs: dict[tuple[int, int, bool], ItemRef] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class RequestMeta:
    languages: tuple[Language, ...] = ("en",)
    formats: tuple[Format, ...] = ("md", "html", "pdf", "json")
    synthetic: bool = False
    data_note: str | None = None
    request_id: str | None = None
    source: SourceInfo | None = None
    appendix: AppendixMode = "compact"


# ---------------------------------------------------------------- fact helpers


def fact_actor(fact: FactData) -> Actor | None:
    """Who did it: the comment or review author, the opener, the merger, else the event actor."""
    if fact.kind == "comment" and fact.comment is not None:
        return fact.comment.author
    if fact.kind == "review" and fact.review is not None:
        return fact.review.author
    if fact.action == "opened":
        return fact.item.author
    if fact.action == "merged" and fact.item.merged_by:
        return Actor(login=fact.item.merged_by)
    if fact.actor:
        return Actor(login=fact.actor)
    return None


def is_bot(actor: Actor | None) -> bool:
    return actor is not None and (actor.is_bot or actor.login.lower().endswith("[bot]"))


def _author_bot(snap: ItemSnapshot, tags: Tags) -> bool:
    return tags.bot or is_bot(snap.author)


def _names(tags: Iterable) -> tuple[str, ...]:
    return tuple(t.name for t in tags)


def _fold(text: str | None) -> str:
    return (text or "").casefold()


def _status_at(snap: ItemSnapshot, end: datetime) -> str:
    if snap.merged_at is not None and snap.merged_at < end:
        return "merged"
    if snap.closed_at is not None and snap.closed_at < end:
        return "closed"
    return "open"


def _open_at(snap: ItemSnapshot, end: datetime) -> bool:
    return snap.created_at < end and _status_at(snap, end) == "open"


def item_ref(snap: ItemSnapshot, tags: Tags, *, excerpt: int = 0, digest: bool = False) -> ItemRef:
    """The report line of an item (made once per snapshot and tags: memo.py)."""
    return ITEMS.get(
        "ref",
        snap,
        tags,
        lambda: _item_ref(snap, tags, excerpt, digest),
        extra=(excerpt, digest),
    )


def _item_ref(snap: ItemSnapshot, tags: Tags, excerpt: int, digest: bool) -> ItemRef:
    return ItemRef(
        number=snap.number,
        kind=snap.kind,
        title=snap.title,
        url=snap.html_url,
        author=tags.person(snap.author.login),
        author_association=str(snap.author.association),
        bot=_author_bot(snap, tags),
        labels=snap.labels,
        modules=_names(tags.modules),
        risks=_names(tags.risks),
        categories=_names(tags.categories),
        affiliations=_names(tags.affiliations),
        ecosystems=_names(tags.ecosystems),
        state=snap.state,
        draft=snap.draft,
        merged=snap.merged_at is not None,
        created_at=snap.created_at,
        closed_at=snap.closed_at,
        merged_at=snap.merged_at,
        additions=snap.additions or 0,
        deletions=snap.deletions or 0,
        changed_files=snap.changed_files or len(snap.files),
        comments=snap.comments + snap.review_comments,
        reviews=snap.reviews,
        reactions=snap.reactions,
        body_excerpt=snap.body_excerpt[:excerpt] if excerpt else "",
        digest=tags.digest if digest else None,
        role=role_of(story_item(snap, tags)) if snap.kind == "pull_request" else None,
    )


# ---------------------------------------------------------------- tallies


@dataclass
class _Tally:
    """The window's facts sorted into what the counts, lists and sections need."""

    window: Window
    facts: list[FactRow]
    new_issues: dict[int, FactRow] = field(default_factory=dict)
    closed_issues: dict[int, FactRow] = field(default_factory=dict)
    new_prs: dict[int, FactRow] = field(default_factory=dict)
    merged_prs: dict[int, FactRow] = field(default_factory=dict)
    closed_prs: dict[int, FactRow] = field(default_factory=dict)
    comments: list[FactRow] = field(default_factory=list)
    reviews: list[FactRow] = field(default_factory=list)
    actors: dict[str, Actor] = field(default_factory=dict)

    @property
    def closed_unmerged(self) -> dict[int, FactRow]:
        return {n: f for n, f in self.closed_prs.items() if n not in self.merged_prs}


def _tally(window: Window, facts: Iterable[FactRow]) -> _Tally:
    inside = sorted(
        (f for f in facts if window.start <= f.time < window.end), key=lambda f: (f.time, f.fact_id)
    )
    t = _Tally(window, inside)
    for row in inside:
        data = row.fact
        number = data.item.number
        key = (data.kind, data.action, data.item.kind)
        if key == ("issue", "opened", "issue"):
            t.new_issues.setdefault(number, row)
        elif data.kind == "issue" and data.action == "closed":
            t.closed_issues[number] = row
        elif data.kind == "issue" and data.action == "reopened":
            t.closed_issues.pop(number, None)
        elif key == ("pull_request", "opened", "pull_request"):
            t.new_prs.setdefault(number, row)
        elif data.kind == "pull_request" and data.action == "merged":
            t.merged_prs[number] = row
        elif data.kind == "pull_request" and data.action == "closed":
            t.closed_prs[number] = row
        elif data.kind == "pull_request" and data.action == "reopened":
            t.closed_prs.pop(number, None)
        elif data.kind == "comment":
            t.comments.append(row)
        elif data.kind == "review":
            t.reviews.append(row)
        actor = fact_actor(data)
        if actor is not None:
            # one person, one key: the identities' person for an alias login (Tags.people)
            t.actors.setdefault(row.tags.person(actor.login), actor)
    return t


def key_pr_quota(merged: int, policy: ReportPolicy) -> int:
    """Top `fraction` of merged PRs, at least `key_pr_min` and at most `key_pr_max` (never more than merged)."""
    if merged <= 0:
        return 0
    wanted = math.ceil(policy.key_pr_fraction * merged)
    return min(merged, max(policy.key_pr_min, min(policy.key_pr_max, wanted)))


def _first_timers(t: _Tally, inp: WindowInput, policy: ReportPolicy) -> set[str]:
    logins: set[str] = set()
    for row in (*t.new_prs.values(), *t.new_issues.values()):
        author = row.fact.item.author
        if str(author.association) in FIRST_TIME_ASSOCIATIONS and not is_bot(author):
            logins.add(row.tags.person(author.login))
    # "first seen here" only means something when our history reaches well before the window
    lookback = timedelta(days=policy.first_seen_history_days)
    if inp.history_start is not None and inp.history_start <= t.window.start - lookback:
        for login, actor in t.actors.items():
            seen = inp.actor_first_seen.get(login)
            if seen is not None and t.window.contains(seen) and not is_bot(actor):
                logins.add(login)
    return logins


def _counts(
    t: _Tally, inp: WindowInput, policy: ReportPolicy, key_prs: int | None = None
) -> Counts:
    # a login the classifier tagged a bot ("vllm-ascend-ci": a CI account named after its project)
    # is no person, as in the contributors' list (2026-W33: "70 people" beside 69 in the table)
    tagged = {
        row.tags.person(row.fact.item.author.login)
        for rows in (t.new_prs, t.merged_prs, t.new_issues)
        for row in rows.values()
        if row.tags.bot
    }
    humans = {login for login, actor in t.actors.items() if not is_bot(actor)} - tagged
    reviewers = {
        r.tags.person(r.fact.review.author.login)
        for r in t.reviews
        if r.fact.review is not None and not is_bot(r.fact.review.author)
    }
    merged = t.merged_prs.values()
    if key_prs is None:
        key_prs = key_pr_quota(
            sum(1 for r in merged if not _author_bot(r.fact.item, r.tags)), policy
        )
    return Counts(
        new_issues=len(t.new_issues),
        closed_issues=len(t.closed_issues),
        new_prs=len(t.new_prs),
        merged_prs=len(t.merged_prs),
        closed_unmerged_prs=len(t.closed_unmerged),
        active_contributors=len(humans),
        first_time_contributors=len(_first_timers(t, inp, policy)),
        reviewers=len(reviewers),
        comments=len(t.comments),
        reviews=len(t.reviews),
        lines_added=sum(r.fact.item.additions or 0 for r in merged),
        lines_removed=sum(r.fact.item.deletions or 0 for r in merged),
        key_prs=key_prs,
        lines_by_kind=lines_by_kind((r.fact.item, r.tags) for r in merged),
    )


# ---------------------------------------------------------------- lines by kind of file

# vendored or generated files: a third-party tree, lock files, generated code
_GENERATED_FILE = re.compile(
    r"(?i)(?:^|/)(?:third[_-]?party|3rdparty|vendor(?:ed)?|_?generated)/"
    r"|(?:^|/)(?:[\w.-]+\.lock|package-lock\.json|pnpm-lock\.yaml|go\.sum)$"
    r"|_pb2(?:_grpc)?\.pyi?$|\.min\.(?:js|css)$"
)
# a change that brings code in from elsewhere: "Migrate attention/kv_quant_sparse_flash_attention
# from ops-transformer" (real #11626), "Ports the mixed precision … changes from cann-recipes-infer
# PR 456" (#9363), "migrates the KDA Triton operators from vLLM" (#9035); not "Migrate from the
# deprecated torchair … to npugraph_ex" (no object: a switch of backend), and never a change that
# takes out about as much as it adds (#9201 "migrate compilation backend from torchair to …",
# #11252 "migrate doc from sphinx to mkdocs": a move inside the project)
_IMPORTED = re.compile(
    r"(?i)\b(?:migrat(?:e|es|ed|ing)|port(?:s|ed|ing)?|vendor(?:s|ed|ing)?)\s+(?!from\b)"
    r"[^.;:\n]{1,80}?\bfrom\s+(?!scratch\b)[`'\"]?[\w./-]"
)
IMPORTED_MIN_LINES = 200  # lines a change adds to be told as code brought in
IMPORTED_MAX_REMOVED = 0.25  # ... removing at most this share of what it adds


def imported(snap: ItemSnapshot, tags: Tags | None) -> bool:
    """Whether the change says it migrates or ports its code in from elsewhere (another
    repository, project or branch) and mostly adds: its size is not the project's own work."""
    added, removed = snap.additions or 0, snap.deletions or 0
    if added < IMPORTED_MIN_LINES or removed > IMPORTED_MAX_REMOVED * added:
        return False
    what = tags.digest.what if tags is not None and tags.digest is not None else ""
    return bool(_IMPORTED.search(f"{snap.title or ''}\n{what}"))


# the project's own tooling at the top of the tree (tools/docs_codegen, scripts/…): its developers
# run it, its users never do (real #8368 "[Doc][Test] Add testable docs codegen framework")
_TOOLING_FILE = re.compile(r"(?i)^(?:tools|scripts|tooling|hack)/")

_FILE_LINE_KIND: dict[str | None, LineKind] = {
    None: "code",
    "test": "tests",
    "docs": "docs",
    "ci": "ci",
}
LINE_KINDS: tuple[LineKind, ...] = (
    "code",
    "tests",
    "docs",
    "ci",
    "generated",
    "imported",
    "unlisted",
)


# example scripts at the top of the tree show users how to run the project; they are not it
# (2026-06-10: #9645, one proxy example of 1,276 lines, was a key change beside a decode fix)
_EXAMPLE_FILE = re.compile(r"(?i)^examples?/")


@functools.lru_cache(maxsize=16384)  # a path's kind never changes; a report asks per file
def line_kind(path: str) -> LineKind:
    """code, tests, docs (translations and top-level examples too), ci (CI and the project's
    tooling: tools/, scripts/) or generated (vendored, lock files)."""
    if _GENERATED_FILE.search(path):
        return "generated"
    kind = _FILE_LINE_KIND.get(file_kind(path), "code")
    if kind == "code" and _EXAMPLE_FILE.search(path):
        return "docs"
    return "ci" if kind == "code" and _TOOLING_FILE.search(path) else kind


def _lines_of(snap: ItemSnapshot, tags: Tags | None = None) -> Mapping[LineKind, list[int]]:
    """A change's added and removed lines by kind of file; the code lines it adds of code it
    brings in from elsewhere are `imported`; what its files do not account for is `unlisted`.
    (Read only: the same mapping answers again for the same snapshot and tags, memo.py.)"""
    return ITEMS.get("lines", snap, tags, lambda: _count_lines(snap, tags))


def _count_lines(snap: ItemSnapshot, tags: Tags | None) -> dict[LineKind, list[int]]:
    out: dict[LineKind, list[int]] = defaultdict(lambda: [0, 0])
    bring_in = imported(snap, tags)
    for f in snap.files:
        kind = line_kind(f.path)
        out["imported" if bring_in and kind == "code" else kind][0] += f.additions or 0
        out[kind][1] += f.deletions or 0
    listed_add = sum(f.additions or 0 for f in snap.files)
    listed_del = sum(f.deletions or 0 for f in snap.files)
    rest_add = max(0, (snap.additions or 0) - listed_add)
    rest_del = max(0, (snap.deletions or 0) - listed_del)
    if rest_add or rest_del:
        out["unlisted"][0] += rest_add
        out["unlisted"][1] += rest_del
    return dict(out)


def lines_by_kind(changes: Iterable[tuple[ItemSnapshot, Tags | None]]) -> tuple[LineCount, ...]:
    """Lines added and removed by kind of file over the changes, code first; only kinds with
    lines (docs and translations apart from code: 2026-07-09's net -73 lines were docs -12.5k
    and code +12.4k)."""
    total: dict[LineKind, list[int]] = defaultdict(lambda: [0, 0])
    for snap, tags in changes:
        for kind, (a, r) in _lines_of(snap, tags).items():
            total[kind][0] += a
            total[kind][1] += r
    return tuple(
        LineCount(kind=k, added=total[k][0], removed=total[k][1])
        for k in LINE_KINDS
        if total[k][0] or total[k][1]
    )


# ---------------------------------------------------------------- key PRs


def _has_tests(snap: ItemSnapshot) -> bool:
    return any("test" in f.path.lower() for f in snap.files)


# a change that only touches logging, wording or formatting ranks low whatever its size
_MINOR_WORDS = (
    r"typos?|spelling|misspell\w*|logs?|logging|logger|lint(?:er|ing)?|comments?|docstrings?|"
    r"whitespace|wording|print(?:s|ing)?"
)
_MINOR = re.compile(rf"(?i)\b(?:{_MINOR_WORDS}|format(?:ting)?|readme)\b")
# ... and whatever its [Feat] tag says when that is what it adds: a [Lint]/[Log] tag, or the
# title's object before any "for / to / with …" ("Add npugraph_ex enablement logging", "Add lint
# hooks for clang-format"; not "Support X with log probs", nor a quantization or weight format)
_MINOR_TAG = re.compile(
    r"(?i)\[(?:typos?|lint|style|format(?:ting)?|log(?:s|ging|ger)?|logger|print|comments?)\]"
)
_MINOR_OBJECT = re.compile(rf"(?i)\b(?:{_MINOR_WORDS}|log level|formatting|code format)\b")
_TITLE_HEAD = re.compile(
    r"(?i)^(.*?)(?:\b(?:for|to|in|on|with|when|from|into|during|via|under|after|before|if|and|"
    r"while)\b|[,;:(]|$)"
)
# a fix of wrong output, accuracy, NaN, a crash, a hang or a deadlock (its title says so, or its
# description's symptom sentence does): it matters more than its size
_SEVERE_TITLE = re.compile(
    r"(?i)\b(?:dead-?lock\w*|hang(?:s|ing)?|hung|stuck|crash\w*|segfault\w*|segmentation fault|"
    r"core ?dump\w*|oom|out of memory|memory leak\w*|accuracy|(?<!mixed )(?<!mixed-)precision|garbled|nan|"
    r"(?:wrong|incorrect) (?:output|result|answer|value)s?|dead(?!\s+code))\b"
)
# "add / support / enable / introduce": new capability, when the module says model or platform
_NEW = re.compile(
    r"(?i)\b(?:support(?:s|ed|ing)?|enabl(?:e|es|ed|ing)|add(?:s|ed|ing)?|"
    r"introduc(?:e|es|ed|ing)|new|initial)\b"
)
_CLAIM_POINTS = 1.5
_USER_FACING_POINTS = 0.75
_SUPPORT_POINTS = 1.0
_MINOR_POINTS = -2.5
_SEVERE_FIX_POINTS = 1.5  # as much as a feature's kind: a NaN fix outranks a log line's [Feat]
_LEAD_POINTS = 1.0
_LARGE_LINES = 500
_REMOVAL_LINES = 1000  # net lines a removal takes out to be news
_REMOVAL_POINTS = 2.0  # ... worth a feature's kind and more (W50: "Drop torchair", -16,881 lines)
_TOOLING_KINDS = frozenset({"ci", "platform-ci", "test", "docs"})
_DEFAULT_POINTS = 2.0  # a default turned on, off or changed reaches every user (2026-W22 #9572)
# how much of a change's size counts, by kind of file: its own code in full; tests, docs and CI
# a quarter; vendored, generated or imported code a fiftieth (#11626, +9,947 lines migrated in,
# counts as 199: on the log scale of size points a tenth would still be the maximum)
_SIZE_SHARE: dict[str, float] = {
    "code": 1.0,
    "unlisted": 1.0,
    "tests": 0.25,
    "docs": 0.25,
    "ci": 0.25,
    "generated": 0.02,
    "imported": 0.02,
}
# reasons of size and place: alone they rank a change after every change with another reason
_SIZE_REASONS = frozenset({"large", "core"})
# a default turned on or off, or changed, said by its title (the digest reads the description
# only: Digest.default_change): "Disable SwiGLU clamp by default", "Update default method …"
_DEFAULT_TITLE = re.compile(
    r"(?i)^\W*(?:\[[^\]]*\]\W*)*(?:enable|disable|turn\s+on|turn\s+off)\b[^\n]*\bby\s+default\b"
    r"|\b(?:change|set|reset|switch|update)\w*\s+(?:the\s+)?default\b"
)


def changes_default(snap: ItemSnapshot, tags: Tags) -> bool:
    """Whether the change turns a default on or off, or changes it, for users: its digest names
    a setting given a new default or the description's sentence saying so (Digest.default_change,
    the classifier's one reading of it: "the default graph mode is changed to FULL_AND_PIECEWISE",
    real #9572; not a new option's "(default: disabled)", #9504, nor behaviour "unchanged by
    default", #8308), or its title says so. A change of tests, CI or docs alone changes no default
    users run with ("[CI] Change default main2main model")."""
    if aside_only(snap.files):
        return False
    digest = tags.digest
    if digest is not None and any(i.kind == "default" for i in digest.interface):
        return True
    if _DEFAULT_TITLE.search(snap.title or ""):
        return True
    return digest is not None and bool(digest.default_change)


def sized_lines(snap: ItemSnapshot, tags: Tags | None = None) -> int:
    """A change's size as the project's own work: its code lines in full, tests, docs and CI a
    quarter, vendored, generated or imported code a fiftieth (without a file list: its totals)."""
    total = (snap.additions or 0) + (snap.deletions or 0)
    if not snap.files:
        return total
    by_kind = _lines_of(snap, tags)
    # (never more than its totals, whatever a file list says)
    return min(total, round(sum(_SIZE_SHARE[k] * (a + r) for k, (a, r) in by_kind.items())))


_UPGRADE_FILES = 10  # files an upgrade touches to be news


def _is_broad_upgrade(snap: ItemSnapshot, tags: Tags, policy: ReportPolicy, files: int) -> bool:
    """A bump of the upstream or a dependency (as _is_bump says) that touches many files."""
    if files < _UPGRADE_FILES or not _BUMP.search(snap.title or ""):
        return False
    modules = {_fold(m.name) for m in tags.modules}
    return bool(modules & {_fold(m) for m in policy.upgrade_modules}) or bool(
        re.search(r"(?i)\b(?:bump|upgrade)\b", snap.title or "")
    )


def _is_removal(snap: ItemSnapshot) -> bool:
    """A change that takes at least _REMOVAL_LINES net lines out and says it removes something."""
    net = (snap.deletions or 0) - (snap.additions or 0)
    return net >= _REMOVAL_LINES and bool(REMOVAL_TITLE.search(snap.title or ""))


def _support_kind(snap: ItemSnapshot, tags: Tags) -> str | None:
    """new_model / new_hardware when the title announces new capability in a model or platform area."""
    if not _NEW.search(snap.title or "") or _is_bugfix(tags):
        return None
    kinds = {_fold(c.name) for c in tags.categories}
    if kinds & {"test", "docs", "ci", "platform-ci", "refactor"}:
        return None  # a test, a doc or a CI job for a model is not support for it
    modules = [_fold(m) for m in tags.module_names()]
    modelish = [("model" in m and "load" not in m) for m in modules[:3]]
    # the model area is the change's main one, or the title says it is about a model: mxfp8
    # quantization "(qwen dense)" is quantization work that happens to name a model (2026-W02)
    if modelish[:1] == [True] or (
        any(modelish) and re.search(r"(?i)\bmodels?\b", snap.title or "")
    ):
        return "new_model"
    # an ecosystem tag alone is not enough: in a hardware plugin every change touches its chip
    if any(m.startswith(("platform", "hardware")) for m in modules[:2]):
        return "new_hardware"
    return None


def is_minor(snap: ItemSnapshot, kinds: Iterable[str]) -> bool:
    """A change of logging, lint, formatting, wording or typos: any title that names them, and a
    feature's only when they are what it adds (its [Tag] or the object of its title)."""
    title = snap.title or ""
    if not _MINOR.search(title):
        return False
    if "feature" not in kinds:
        return True
    rest = _BRACKET_TAG.sub(" ", title).strip(" :")
    head = _TITLE_HEAD.match(rest)
    return bool(_MINOR_TAG.search(title)) or bool(head and _MINOR_OBJECT.search(head.group(1)))


_BRACKET_TAG = re.compile(r"\[[^\]]*\]")


def fixes_severe(snap: ItemSnapshot, tags: Tags) -> bool:
    """A fix whose title or description's symptom sentence names wrong output, accuracy, NaN, a
    crash, a hang or a deadlock."""
    if not (_is_bugfix(tags) or _FIX_TITLE.search(snap.title or "")):
        return False
    symptom = tags.digest.symptom if tags.digest is not None else ""
    if _AVOIDS.search(symptom) or _AVOIDS.search(snap.body_excerpt or ""):
        return False  # the problem dodged for now ("Temporarily avoid the accuracy issue")
    return bool(symptom) or bool(_SEVERE_TITLE.search(snap.title or ""))


_FIX_TITLE = re.compile(r"(?i)^\W*(?:\[[^\]]*\]\W*)*(?:bug\s*fix|fix|hotfix)\w*\b|\[bug\s*fix\]")


def aside_only(files: Sequence[FileChange]) -> bool:
    """Whether a change touches tests, CI or docs alone (some files, none of them code)."""
    return bool(files) and all(file_kind(f.path) is not None for f in files)


def score_pr(
    snap: ItemSnapshot, tags: Tags, policy: ReportPolicy, *, storyline_lead: bool = False
) -> tuple[float, tuple[ScoreSignal, ...]]:
    """Explainable score of a merged PR: each signal says its raw value and the points it gave.

    What a change is counts more than how big it is: features, new model or hardware support,
    measured speed-ups (a claim with figures in its description), user-facing changes and the
    leads of the window's storylines rise; logging, wording, docs, tests and CI tweaks sink.
    (Worked out once per snapshot, tags, policy and lead: memo.py.)
    """
    return ITEMS.get(
        "score",
        snap,
        tags,
        lambda: _score_pr(snap, tags, policy, storyline_lead),
        extra=(storyline_lead,),
        keep=(policy,),
    )


def _score_pr(
    snap: ItemSnapshot, tags: Tags, policy: ReportPolicy, storyline_lead: bool
) -> tuple[float, tuple[ScoreSignal, ...]]:
    lines = sized_lines(snap, tags)
    files = snap.changed_files or len(snap.files)
    discussion = snap.comments + snap.review_comments
    risk_points = sum(SEVERITY_POINTS.get(r.severity, 1.0) for r in tags.risks)
    core = any(r.name in policy.core_risks for r in tags.risks)
    labels = {_fold(x) for x in snap.labels}
    notable = sorted(labels & {_fold(x) for x in policy.notable_labels})
    kinds = sorted({_fold(c.name) for c in tags.categories} & set(policy.category_points))
    digest = tags.digest
    claims = [c for c in (digest.claims if digest else ()) if c.figures]
    # "user-facing: auto run A5 nightly pipeline" (real #13442) says yes of a change to CI, tests
    # or docs alone: no user of the software meets it
    aside = aside_only(snap.files)
    user_facing = digest is not None and digest.user_facing == "yes" and not aside
    support = _support_kind(snap, tags)
    severe = fixes_severe(snap, tags)
    minor = is_minor(snap, kinds) and support is None and not severe
    removal = _is_removal(snap)
    upgrade = _is_broad_upgrade(snap, tags, policy, files)
    default = changes_default(snap, tags)
    # a [Feat] that adds a log line is no feature: its kind gives nothing but what it lacks
    kind_points = sum(
        policy.category_points.get(k, 0.0) for k in kinds if not (minor and k == "feature")
    )
    # (name, value, points): only the signals that give points become part of the report
    candidates: list[tuple[str, int, float]] = [
        ("size", lines, min(3.0, math.log10(1 + lines))),
        ("files", files, min(1.5, files / 20)),
        ("risk", len(tags.risks), min(1.0, 0.5 * risk_points)),
        ("core", 1 if core else 0, 0.5 if core else 0.0),
        ("discussion", discussion, min(2.0, math.log2(1 + discussion) / 3)),
        ("reviews", snap.reviews, min(2.0, 0.5 * snap.reviews)),
        ("labels", len(notable), min(1.5, 0.75 * len(notable))),
        ("reactions", snap.reactions, min(1.0, snap.reactions / 5)),
        # a large removal is its own kind: the CI or docs files it deletes do not make it a tweak
        (
            "kind",
            len(kinds),
            (max(0.0, kind_points) if removal else kind_points),
        ),
        ("claims", len(claims), _CLAIM_POINTS if claims else 0.0),
        (
            "user_facing",
            1 if user_facing else 0,
            _USER_FACING_POINTS if user_facing else 0.0,
        ),
        ("support", 1 if support else 0, _SUPPORT_POINTS if support else 0.0),
        ("minor", 1 if minor else 0, _MINOR_POINTS if minor else 0.0),
        ("severe_fix", 1 if severe else 0, _SEVERE_FIX_POINTS if severe else 0.0),
        ("default_change", 1 if default else 0, _DEFAULT_POINTS if default else 0.0),
        # taking a large body of code out is news (seed 000: GGUF moved out of core, deprecated
        # code deleted), however small its diff of additions
        ("removal", 1 if removal else 0, _REMOVAL_POINTS if removal else 0.0),
        # following the upstream or a dependency across many files is the week's news for every
        # downstream user (W43: the vLLM commit upgrade touched 37 files)
        ("upgrade", 1 if upgrade else 0, _SUPPORT_POINTS if upgrade else 0.0),
        (
            "storyline_lead",
            1 if storyline_lead else 0,
            _LEAD_POINTS if storyline_lead else 0.0,
        ),
    ]
    signals = tuple(
        ScoreSignal(name=name, value=value, points=round(points, 3))
        for name, value, points in candidates
        if points
    )
    return round(sum(s.points for s in signals), 3), signals


def key_reasons(snap: ItemSnapshot, tags: Tags, signals: Sequence[ScoreSignal]) -> tuple[str, ...]:
    """Why a key PR was picked, most telling first (codes the renderer says in words)."""
    got = {s.name: s for s in signals}
    kinds = {_fold(c.name) for c in tags.categories}
    out: list[str] = []
    if "default_change" in got:
        out.append("default_change")  # (what users meet first: 2026-W22's #9572)
    support = _support_kind(snap, tags)
    if support:
        out.append(support)
    if "upgrade" in got:
        out.append("upgrade")
    if "removal" in got:
        out.append("removal")
    elif (
        "feature" in kinds
        and not support
        and not kinds & _TOOLING_KINDS
        and not _is_bugfix(tags)
        and "minor" not in got
    ):
        out.append("feature")  # (a new CI workflow or test is no product feature)
    if "claims" in got:
        out.append("measured_claim")
    elif (
        "performance" in kinds
        and not _is_bugfix(tags)
        and not REMOVAL_TITLE.search(snap.title or "")
    ):
        out.append("performance")  # (a fix in a performance area is a fix, not performance work)
    if "storyline_lead" in got:
        out.append("storyline_lead")
    if "severe_fix" in got:
        out.append("severe_fix")
    if "user_facing" in got:
        out.append("user_facing")
    # (large as the project's own code: not docs, tests or code migrated in)
    if got.get("size") and got["size"].value >= _LARGE_LINES:
        out.append("large")
    if "core" in got:
        out.append("core")
    if got.get("discussion") and got["discussion"].value >= 5:
        out.append("discussed")
    if got.get("reviews") and got["reviews"].value >= 3:
        out.append("reviewed")
    if "labels" in got:
        out.append("notable_label")
    return tuple(out[:4])


def _key_prs(t: _Tally, inp: WindowInput, policy: ReportPolicy, story: _Story) -> list[KeyPR]:
    """The window's key PRs: never a revert nor a change reverted in the window (they are risks),
    at most `key_prs_per_storyline` per storyline, best scored first."""
    scored = []
    for number, row in t.merged_prs.items():
        snap, tags = row.fact.item, row.tags
        if _author_bot(snap, tags) or number in story.reverts or number in story.reverted:
            continue
        score, signals = score_pr(snap, tags, policy, storyline_lead=number in story.leads)
        story.scores[number] = score
        reasons = key_reasons(snap, tags, signals)
        # size and core paths alone make no key PR: such a change comes after every change with
        # another reason (2026-W22's #9363, +1,848 lines ported in, was key for "large change"
        # only), and fills the quota only where nothing else does
        said = bool(set(reasons) - _SIZE_REASONS)
        scored.append((score, number, snap, tags, signals, reasons, said))
    scored.sort(key=lambda s: (not s[6], -s[0], s[1]))
    quota = key_pr_quota(len(scored), policy)
    per_story: Counter[str] = Counter()
    out: list[KeyPR] = []
    for score, n, snap, tags, signals, reasons, _said in scored:
        if len(out) >= quota:
            break
        key = story.storyline_of.get(n)
        if key is not None:
            if per_story[key] >= policy.key_prs_per_storyline:
                continue
            per_story[key] += 1
        out.append(
            KeyPR(
                item=_ref_for(n, inp, snap, tags, excerpt=policy.key_pr_excerpt, digest=True),
                score=score,
                signals=signals,
                reasons=reasons,
                storyline=key,
            )
        )
    return out


def _ref_for(
    number: int,
    inp: WindowInput,
    snap: ItemSnapshot,
    tags: Tags,
    *,
    excerpt: int = 0,
    digest: bool = False,
) -> ItemRef:
    """The report line of an item: its latest snapshot when folded, else the fact's own. A
    folded item's line is made once per report (an item shows in several sections)."""
    row = inp.items.get(number)
    if row is None:
        return item_ref(snap, tags, excerpt=excerpt, digest=digest)
    key = (number, excerpt, digest)
    ref = inp.refs.get(key)
    if ref is None:
        ref = inp.refs[key] = item_ref(row.snapshot, row.tags, excerpt=excerpt, digest=digest)
    return ref


# ---------------------------------------------------------------- modules and themes


def _module_sets(t: _Tally) -> dict[str, dict[str, set[int]]]:
    """module -> {"merged", "opened", "issues", "all"} item numbers, from each fact's own tags."""
    out: dict[str, dict[str, set[int]]] = defaultdict(
        lambda: {k: set() for k in ("merged", "opened", "issues", "all")}
    )
    for bucket, rows in (("merged", t.merged_prs), ("opened", t.new_prs), ("issues", t.new_issues)):
        for number, row in rows.items():
            for module in set(row.tags.module_names()):
                out[module][bucket].add(number)
                out[module]["all"].add(number)
    return out


def _trend(total: int, previous: int, share: tuple[float, float] = (1.0, 1.0)) -> str:
    """up, down or flat by more than a tenth; with the windows' covered shares (this, previous)
    the previous total is scaled to this window's covered span first."""
    if previous == 0:
        return "new" if total else "flat"
    if total == 0:
        return "gone"
    now_share, prev_share = share
    expected = previous * (now_share / prev_share) if now_share > 0 and prev_share > 0 else previous
    threshold = max(1.0, round(expected * 0.1))
    delta = total - expected
    return "up" if delta > threshold else "down" if delta < -threshold else "flat"


def _modules(
    t: _Tally,
    prev: _Tally,
    scores: Mapping[int, float],
    policy: ReportPolicy,
    share: tuple[float, float] = (1.0, 1.0),
) -> list[ModuleTrend]:
    now_sets, prev_sets = _module_sets(t), _module_sets(prev)
    fallback: dict[str, bool] = {}
    for row in (*t.merged_prs.values(), *t.new_prs.values(), *t.new_issues.values()):
        for tag in row.tags.modules:
            fallback[tag.name] = fallback.get(tag.name, True) and tag.fallback
    primary: dict[int, str] = {}
    for rows_ in (t.merged_prs, t.new_prs):
        for number, row in rows_.items():
            names = row.tags.module_names()
            if names:
                primary.setdefault(number, names[0])
    # a change of tests, CI or docs alone stands for no module's work (2026-W23: a test-folder move
    # was the sampling, distributed and xlite rows' representative)
    aside = {
        number
        for rows_ in (t.merged_prs, t.new_prs)
        for number, row in rows_.items()
        if aside_only(row.fact.item.files)
    }
    order = sorted(
        set(now_sets) | set(prev_sets),
        key=lambda m: (
            -len(now_sets[m]["all"]) if m in now_sets else 0,
            -(len(prev_sets[m]["all"]) if m in prev_sets else 0),
            m,
        ),
    )
    used: set[int] = set()
    rows = []
    for module in order:
        cur = now_sets.get(module, {k: set() for k in ("merged", "opened", "issues", "all")})
        total, previous = (
            len(cur["all"]),
            len(prev_sets[module]["all"]) if module in prev_sets else 0,
        )
        prs = cur["merged"] | cur["opened"]
        # representative: its own PRs first (this module is their main one), merged before open,
        # then by score; a PR already shown for a bigger module gives way (one PR, one row)
        ranked = sorted(
            prs,
            key=lambda n: (
                n in used,
                n in aside,
                primary.get(n) != module,
                n not in cur["merged"],
                -scores.get(n, 0.0),
                n,
            ),
        )
        rep = [n for n in ranked if n not in used][: policy.representative_prs] or ranked[:1]
        used.update(rep)
        rows.append(
            ModuleTrend(
                module=module,
                merged=len(cur["merged"]),
                opened=len(cur["opened"]),
                issues=len(cur["issues"]),
                total=total,
                previous_total=previous,
                delta=total - previous,
                trend=_trend(total, previous, share),
                representative=tuple(rep[: policy.representative_prs]),
                fallback=fallback.get(module, False),
            )
        )
    rows.sort(key=lambda m: (-m.total, -m.previous_total, m.module))
    return rows


def _themes(
    key_prs: Sequence[KeyPR], t: _Tally, scores: Mapping[int, float], policy: ReportPolicy
) -> list[Theme]:
    """Lines of work: each key PR leads the theme of its first (strongest) module; a theme is
    filled up to `theme_prs` with its module's best-scored merged PRs not shown elsewhere."""
    merged_by_module: dict[str, list[FactRow]] = defaultdict(list)
    for row in t.merged_prs.values():
        for module in dict.fromkeys(row.tags.module_names()):
            merged_by_module[module].append(row)
    lead: dict[str, list[int]] = defaultdict(list)
    for kp in key_prs:
        if kp.item.modules:
            lead[kp.item.modules[0]].append(kp.item.number)
    used = {n for numbers in lead.values() for n in numbers}
    picked: dict[str, list[int]] = {}
    order = sorted(lead, key=lambda m: (-len(merged_by_module.get(m, ())), m))
    for module in order:
        numbers = list(lead[module][: policy.theme_prs])
        extra = sorted(
            (
                r.fact.item.number
                for r in merged_by_module.get(module, ())
                if r.fact.item.number not in used and not _author_bot(r.fact.item, r.tags)
            ),
            key=lambda n: (-scores.get(n, 0.0), n),
        )
        for number in extra[: max(0, min(2, policy.theme_prs) - len(numbers))]:
            numbers.append(number)
            used.add(number)
        picked[module] = numbers
    themes = []
    for module in order[: policy.themes]:
        merged = merged_by_module.get(module, [])
        themes.append(
            Theme(
                module=module,
                prs=tuple(picked[module]),
                merged=len(merged),
                lines_added=sum(r.fact.item.additions or 0 for r in merged),
                lines_removed=sum(r.fact.item.deletions or 0 for r in merged),
            )
        )
    return themes


# ---------------------------------------------------------------- storylines, links, incidents


def story_item(snap: ItemSnapshot, tags: Tags) -> StoryItem:
    """The item as storylines see it: one object per snapshot and tags (memo.py), so its role,
    a cached property, is worked out once."""
    return ITEMS.get("story", snap, tags, lambda: _story_item(snap, tags))


def _story_item(snap: ItemSnapshot, tags: Tags) -> StoryItem:
    return StoryItem(
        number=snap.number,
        title=snap.title,
        merged_at=snap.merged_at,
        digest=tags.digest,
        files=tuple(f.path for f in snap.files),
        categories=_names(tags.categories),
        modules=_names(tags.modules),
        additions=snap.additions or 0,
        deletions=snap.deletions or 0,
        bot=_author_bot(snap, tags),
        kind=snap.kind,
        topics=_names(tags.topics),
        merge_commit_sha=snap.merge_commit_sha,
    )


@dataclass
class _Story:
    """The window's lines of work and the references between its items (and earlier ones)."""

    storylines: list[Storyline]
    links: list[ItemLink]
    items: dict[int, StoryItem]
    storyline_of: dict[int, str] = field(default_factory=dict)
    leads: set[int] = field(default_factory=set)
    reverts: set[int] = field(default_factory=set)  # reverts merged in the window
    reverted: set[int] = field(default_factory=set)  # what those reverts undid
    # changes merged after the window that may bring a reverted change back (WindowInput.later),
    # with the descriptions the window's changes and they give (what names the change it re-lands)
    later: dict[int, StoryItem] = field(default_factory=dict)
    bodies: dict[int, str] = field(default_factory=dict)
    scores: dict[int, float] = field(default_factory=dict)  # merged PR -> score (computed once)


def _story_items(t: _Tally, inp: WindowInput | None) -> dict[int, StoryItem]:
    out: dict[int, StoryItem] = {}
    for rows in (t.merged_prs, t.new_prs, t.new_issues):
        for number, row in rows.items():
            if number in out:
                continue
            item = inp.items.get(number) if inp is not None else None
            snap, tags = (
                (item.snapshot, item.tags) if item is not None else (row.fact.item, row.tags)
            )
            out[number] = story_item(snap, tags)
    return out


def _with_topic_names(storylines: list[Storyline], t: _Tally) -> list[Storyline]:
    """A line that is a profile's topic carries the topic's names in the report's other
    languages, as the classifier's topic tags give them (the profile's words, not the data's)."""
    names = {
        topic_term(tag.name): tag.names for row in t.facts for tag in row.tags.topics if tag.names
    }
    return [
        st.model_copy(update={"names": dict(names[st.key])}) if st.key in names else st
        for st in storylines
    ]


def _story(t: _Tally, prev: _Tally, inp: WindowInput, policy: ReportPolicy) -> _Story:
    current = _story_items(t, inp)
    previous = _story_items(prev, None)
    referenced = {n: story_item(r.snapshot, r.tags) for n, r in inp.referenced.items()}
    known = {**referenced, **previous, **current}
    bodies = {
        n: row.fact.item.body_excerpt or ""
        for n, row in t.merged_prs.items()
        if n in current and current[n].merged_at is not None
    }
    bound = RARE_TERM_SHARE * inp.history_items
    links = fix_up_links(
        resolve_links(known),
        known,
        bodies,
        inp.repo,
        inp.previous.start,
        rare=lambda word: inp.term_counts.get(word, 0) <= bound,
    )
    storylines = find_storylines(
        [i for i in current.values() if not i.bot],
        [i for i in previous.values() if not i.bot],
        inp.term_counts,
        inp.history_items,
        referenced=referenced,
        upgrade_modules=policy.upgrade_modules,
        limit=policy.storylines,
    )
    storylines = _with_topic_names(storylines, t)
    later = {
        n: story_item(r.snapshot, r.tags)
        for n, r in inp.later.items()
        if n not in known and r.snapshot.merged_at is not None
    }
    bodies.update((n, r.snapshot.body_excerpt or "") for n, r in inp.later.items() if n in later)
    story = _Story(storylines=storylines, links=links, items=known, later=later, bodies=bodies)
    for line in storylines:
        for member in line.items:
            story.storyline_of.setdefault(member.number, line.key)
        if line.lead is not None:
            story.leads.add(line.lead)
    for number in t.merged_prs:
        if number in current and role_of(current[number]) == "revert":
            story.reverts.add(number)
    for link in links:
        if link.kind == "reverts" and link.source in t.merged_prs:
            story.reverts.add(link.source)
            story.reverted.add(link.target)
    # what became of each revert: the change coming back ("relands", its own relation, never a
    # second revert), in the window or after it up to the watermark (2026-W27: #11155, reverted
    # by #11415, came back as #11429 "Reapply MC2 capacity and MoE comm selection" on 07-06)
    merged = set(t.merged_prs)
    for link in sorted(links, key=lambda lk: (lk.source, lk.target)):
        if link.kind == "reverts" and link.source in merged:
            back = _relands(link.source, link.target, known, merged, bodies) or _relands(
                link.source, link.target, {**known, **later}, set(later), bodies
            )
            story.links.extend(ItemLink(n, link.target, "relands") for n in back)
    return story


# a change a description names: "#8842", or its address in the repository
_MENTION = re.compile(r"(?<![\w/&])#(\d{1,7})\b")


# a change named as what this one needs or resembles, not as what it fixes (real #7158 "It
# depends on https://…/pull/7144 and https://…/pull/7148", "the same way as #5472")
_BUILDS_ON = re.compile(
    r"(?i)\b(?:depend\w*|based\s+on|on\s+top\s+of|requir\w*|blocked\s+by|builds?\s+on|"
    r"same\s+(?:way|as)|similar\w*|like|as\s+in|cherry-?pick\w*|backport\w*)\b[^.\n]*$"
)


def _own_code(item: StoryItem) -> set[str]:
    return {f for f in item.files if file_kind(f) is None and "test" not in f.lower()}


# a change a fix names as the one that broke it: "Root cause: #N introduced …", "a regression
# from #N", "caused by #N", "broken by #N" (real #10241's "`d7bca903` introduced …", #10200's
# "PR #8671 switched … [and broke FP32]") — before the mention … (a commit named by its hash,
# #10241's `d7bca903`, stays unnamed: item snapshots carry no merge commit to match it to)
_CAUSE_BEFORE = re.compile(
    r"(?i)\b(?:introduced\s+(?:by|in)|regress\w*\s+(?:from|caused\s+by|of|in|since|after)|"
    r"caused\s+by|broken\s+by|root\s+cause\W+(?:is\s+)?(?:that\s+)?)[^.\n]{0,12}$"
)
# … or after it: "#N introduced …", "#N broke …", "the content of #N is rolled back" (#10205)
_CAUSE_AFTER = re.compile(
    r"(?i)^\W{0,3}(?:\)\s*)?(?:which\s+|that\s+)?(?:introduced|broke|caused|regressed)\b"
)
_ROLLED_BACK = re.compile(r"(?i)^[^.\n]{0,20}?\b(?:is|was|are|were|gets?|being)\s+rolled\s+back\b")
# a fix merged this soon after a change of the same files is that change's fix when nothing else
# touched them in between (2026-W34: #14295 'add a5 nightly multi test', #14441 'fix a5 nightly
# multi test' two hours later in its jinja template; #12968 'Support DSV4 Dspark' then #14696
# 'Fix DSpark spec decoding', dsa_v1.py, the next day)
FIX_SOON = timedelta(hours=48)


def fix_up_links(
    links: Sequence[ItemLink],
    items: Mapping[int, StoryItem],
    bodies: Mapping[int, str],
    repo: str,
    since: datetime,
    rare: Callable[[str], bool] | None = None,
) -> list[ItemLink]:
    """The references among items, where a fix's reference to a change merged before it (since
    `since`: this window or the previous one) counts as a fix-up of that change: one it says it
    fixes or follows up ("Resolve #8842 PR Bugs", real #9594), or one its description only names
    — a bare number or address, real #9545 "fix reduce_sampling" naming
    https://github.com/…/pull/8308 — when the two share code (not tests, docs or CI)."""
    out = {(lk.source, lk.target): lk for lk in links}
    url = re.compile(rf"(?i)github\.com/{re.escape(repo)}/(?:pull|issues)/(\d+)")

    def before(source: int, target: int, since: datetime | None = None) -> bool:
        """`target` is a pull request merged before `source` (and not before `since`)."""
        a, b = items.get(source), items.get(target)
        return (
            a is not None
            and b is not None
            and b.kind == "pull_request"
            and a.merged_at is not None
            and b.merged_at is not None
            and b.merged_at < a.merged_at
            and (since is None or since <= b.merged_at)
        )

    for (source, target), lk in list(out.items()):
        if (
            lk.kind in ("fixes", "follow_up")
            and source in bodies
            and role_of(items[source]) == "fix"
            and before(source, target, since)
        ):
            out[(source, target)] = ItemLink(source, target, "fix_up")

    # a change the description says broke what it fixes, or says it rolls back: whenever merged
    for source, body in bodies.items():
        item = items.get(source)
        if item is None or not body or role_of(item) == "revert":
            continue
        found: list[tuple[int, str]] = []
        for rx in (_MENTION, url):
            for m in rx.finditer(body):
                head, tail = body[max(0, m.start() - 80) : m.start()], body[m.end() : m.end() + 40]
                if _ROLLED_BACK.search(tail):
                    found.append((int(m.group(1)), "reverts"))
                elif _CAUSE_BEFORE.search(head) or _CAUSE_AFTER.search(tail):
                    found.append((int(m.group(1)), "regression"))
        for target, kind in found:
            if (
                before(source, target)
                and (kind == "reverts" or role_of(item) == "fix")
                and getattr(out.get((source, target)), "kind", "") != "reverts"
            ):
                out[(source, target)] = ItemLink(source, target, kind)
    for source, body in bodies.items():
        item = items.get(source)
        if item is None or role_of(item) != "fix" or not body:
            continue
        named = {
            int(m.group(1))
            for rx in (_MENTION, url)
            for m in rx.finditer(body)
            if not _BUILDS_ON.search(body, max(0, m.start() - 80), m.start())
        }
        for target in sorted(named):
            if (
                (source, target) not in out
                and before(source, target, since)
                and _own_code(item) & _own_code(items[target])
            ):
                out[(source, target)] = ItemLink(source, target, "fix_up")
    # a fix naming no issue or change, soon after the change(s) of its files (code or CI scripts;
    # not tests or docs, nor a file a fifth of the window's changes touch) in the 48 hours before
    # it: their fix — one or two such changes, none of them a fix or revert, each with no other
    # such fix (a change fixed again and again is a burst, told as one: _fix_bursts)
    linked = {lk.source for lk in out.values() if lk.kind in ("fix_up", "reverts", "regression")}
    per_file = Counter(f for n in bodies if n in items for f in set(items[n].files))
    common = {f for f, c in per_file.items() if c > FILE_SHARE * max(len(bodies), 1)}
    soon: dict[int, list[int]] = defaultdict(list)
    for source in bodies:
        item = items.get(source)
        if (
            item is None
            or source in linked
            or role_of(item) != "fix"
            or item.merged_at is None
            or _MINOR.search(item.title)  # a typo or lint fix answers no change's breakage
            # a fix of an issue or change it names answers that, not a change of its files
            # (2025-W52: #5196 "Related to …/issues/4084", 45 hours after #4501's runner change)
            or any(rx.search(bodies[source] or "") for rx in (_MENTION, url))
        ):
            continue
        mine = _fixable(item) - common
        touched = [
            n
            for n, other in items.items()
            if n != source
            and mine
            and other.merged_at is not None
            and item.merged_at - FIX_SOON <= other.merged_at < item.merged_at
            and n < source  # opened after the change (2026-W31: #11929 was opened before #12662)
            and mine & _fixable(other)
            and _names_its_subject(item, other, rare)
        ]
        if 1 <= len(touched) <= 2 and all(
            role_of(items[n]) not in ("fix", "revert") and before(source, n, since) for n in touched
        ):
            for n in touched:
                soon[n].append(source)
    for target, sources in soon.items():
        if len(sources) == 1:
            out[(sources[0], target)] = ItemLink(sources[0], target, "fix_soon")
    return list(out.values())


_SUBJECT_WORD = re.compile(r"[A-Za-z][\w.]{3,}")


def _names_its_subject(
    fix: StoryItem, change: StoryItem, rare: Callable[[str], bool] | None = None
) -> bool:
    """Whether a fix's title names a word of the change's title (four letters or more, no
    function or kind word: 'Fix DSpark spec decoding' after 'Support DSV4 Dspark'; not 'Reject
    placeholder draft tokens in sampler' after 'Enhance error messages and logging', nor a
    description's passing 'usage' — 06-23's #10833 after #9585) that is `rare` in the
    repository's titles, a thing and not a topic: 2026-W02's 'fix chunked prefill accurancy
    issue' (#5647) named no subject of 'MLA prefill preformance optimization' (#5456) two days
    before it — "prefill" is in 69 of vllm-ascend's 4,734 titles."""
    said = fix.title.lower()
    words = {
        w
        for w in {
            w.lower().rstrip(".")
            for w in _SUBJECT_WORD.findall(_BRACKET_TAGS.sub(" ", change.title))
        }
        - STOP_WORDS
        - KIND_WORDS
        if rare is None or rare(w)
    }
    return any(re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", said) for w in words)


_BRACKET_TAGS = re.compile(r"\[[^\]]*\]")


def _fixable(item: StoryItem) -> set[str]:
    """The files a fix of this change would touch: its code and CI scripts, not tests or docs."""
    return {f for f in item.files if file_kind(f) in (None, "ci") and "test" not in f.lower()}


def _merged_order(numbers, items: Mapping[int, StoryItem]) -> list[int]:
    far = datetime.max.replace(tzinfo=None)

    def when(n: int):
        it = items.get(n)
        at = it.merged_at if it is not None else None
        return (at.replace(tzinfo=None) if at is not None else far, n)

    return sorted(set(numbers), key=when)


def _incidents(t: _Tally, story: _Story, inp: WindowInput, policy: ReportPolicy) -> list[Incident]:
    """Instability told from evidence: each revert with what it undid; a change added, fixed and
    reverted (by references, or inside one storyline); a bump followed by fixes."""
    items, window = story.items, t.window
    merged = set(t.merged_prs)
    out: list[Incident] = []

    def before_window(n: int) -> bool:
        it = items.get(n)
        return it is not None and it.merged_at is not None and it.merged_at < window.start

    earlier = {
        n
        for n, it in items.items()
        if it.merged_at is not None and inp.previous.start <= it.merged_at < window.start
    }

    # each revert, with what it undid, why, and the change coming back when it did
    linked = set()
    for link in sorted(story.links, key=lambda lk: (lk.source, lk.target)):
        if link.kind != "reverts" or link.source not in merged:
            continue
        linked.add(link.source)
        target = items.get(link.target)
        back = _merged_order(
            {
                lk.source
                for lk in story.links
                if lk.kind == "relands"
                and lk.target == link.target
                and _merged_after({**story.later, **items}, lk.source, link.source)
            },
            {**story.later, **items},
        )
        why = _not_its_description(_revert_reason(items.get(link.source), link.target), target)
        out.append(
            Incident(
                kind="revert",
                items=(link.source, link.target, *back),
                roles=("revert", "reverted_change", *("relanded",) * len(back)),
                subject=target.title if target is not None else "",
                across_windows=before_window(link.target),
                reason=why,
                planned=_planned_revert(why),
            )
        )
    # a revert that names nothing it undid is a risk of its own only when it takes code out
    # ("[Fix] Revert temporary skip on … tests" turns tests back on)
    unlinked = sorted(
        n
        for n in story.reverts - linked
        if n in items and (_names_reverted(items[n]) or _touches_code(items[n]))
    )
    # a change added, then fixed up and/or reverted: by references...
    followers: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for link in story.links:
        if link.kind in ("reverts", "fix_up", "fix_soon", "regression"):
            followers[link.target].append(
                (link.source, "reverted" if link.kind == "reverts" else "fixed")
            )
    # a change a fix says introduced its problem, whenever merged (real #3675 "introduced by PR
    # #2372", a month before)
    caused = {lk.target for lk in story.links if lk.kind == "regression" and lk.source in merged}
    chains: list[tuple[list[int], dict[int, str], str]] = []
    for root in sorted(followers):
        if any(root == src for srcs in followers.values() for src, _ in srcs):
            continue  # a follower itself: its own chain hangs off its root
        roles = {root: "added"}
        queue = [root]
        while queue:
            n = queue.pop()
            for src, role in followers.get(n, ()):
                if src not in roles:
                    # "Reapply …" that also fixes it: the change coming back, not one more fix
                    back = role == "fixed" and src in items and _RELAND.search(items[src].title)
                    roles[src] = "relanded" if back else role
                    queue.append(src)
        # three or more steps; or a change of this window that already needed a fix in it (a
        # regression answered within days: "#11266 added, #12605 fixed")
        # (or of the previous window: "#8842 added, #9594 fixed" — a fix's reference to a change
        # of this window or the one before is a fix-up, fix_up_links)
        fixed_here = (
            len(roles) == 2
            and (all(n in merged or n in earlier for n in roles) or root in caused)
            and "fixed" in roles.values()
        )
        if (len(roles) >= 3 or fixed_here) and any(n in merged for n in roles if n != root):
            root_item = items.get(root)
            chains.append(
                (_merged_order(roles, items), roles, root_item.title if root_item else "")
            )
    # ... or inside one storyline: reverts among its fixes
    for line in story.storylines:
        roles_in = {m.number: m.role for m in line.items}
        reverts = [n for n, r in roles_in.items() if r == "revert"]
        fixes = [n for n, r in roles_in.items() if r == "fix"]
        if not reverts or not fixes:
            continue
        targets = {
            lk.target
            for lk in story.links
            if lk.kind == "reverts" and lk.source in reverts and lk.target in items
        }
        if targets:
            # what was reverted is known: the revert (and any chain of references) tells it;
            # fixes that merely share a topic and a file are no evidence of the same instability
            continue
        if not targets:
            # "Revert build cache temporarily": the change it undid is the line's first new work
            first_revert = _merged_order(reverts, items)[0]
            cutoff = items[first_revert].merged_at
            added = [
                n
                for n in _merged_order(roles_in, items)
                if roles_in[n] not in ("fix", "revert")
                and cutoff is not None
                and (merged_at := items[n].merged_at) is not None
                and merged_at < cutoff
            ]
            targets = set(added[:1])
        start = min((at for n in targets if (at := items[n].merged_at) is not None), default=None)
        touched = {
            f for n in (*targets, *reverts) for f in items[n].files if "test" not in f.lower()
        }
        roles = {n: "reverted" for n in reverts}
        # a fix counts toward the instability once the change it fixes is in, when it touches the
        # same code (a topic shared by title alone is not evidence that it fixed that change) and
        # is not the change coming back ("Reapply …", "[redo]")
        roles.update(
            {
                n: "fixed"
                for n in fixes
                if (start is None or ((at := items[n].merged_at) is not None and at > start))
                and touched & set(items[n].files)
                and not _RELAND.search(items[n].title)
            }
        )
        roles.update({n: "added" for n in targets})
        if len(roles) >= 3:
            chains.append((_merged_order(roles, items), roles, line.name))
    chains.sort(key=lambda c: -len(c[0]))
    covered: list[set[int]] = []
    for order, roles, subject in chains:
        members = set(order)
        if any(len(members & c) >= len(members) / 2 for c in covered):
            continue
        covered.append(members)
        out.append(
            Incident(
                kind="instability",
                items=tuple(order),
                roles=tuple(roles[n] for n in order),
                subject=subject,
                across_windows=any(before_window(n) for n in order),
            )
        )
    # a revert whose target is unknown: told with its instability when it has one, else alone
    told = {n for inc in out if inc.kind == "instability" for n in inc.items}
    for number in unlinked:
        if number not in told:
            it = items.get(number)
            # the subject is what it names (`Revert "x"` -> x), else nothing: its title is its link
            out.append(
                Incident(
                    kind="revert",
                    items=(number,),
                    roles=("revert",),
                    subject=(quoted_revert(it.title)[0] or "") if it is not None else "",
                    reason=_revert_reason(it, None),
                )
            )
    out.extend(_upgrade_fallout(t, story, policy))
    out.extend(_repeated_fixes(t, story, inp, {n for i in out for n in i.items}))
    # (a fix that also reverts another change, real #5093, is told as that change's revert and
    # may still be a fix-up of a third)
    # a chain of a fix merged soon after a change of its files (no reference: "fix_soon") gives
    # way to a burst of fixes of that change, which tells it with its other fixes
    soon = {(lk.source, lk.target) for lk in story.links if lk.kind == "fix_soon"}

    def by_time_only(i: Incident) -> bool:
        return i.kind == "instability" and len(i.items) == 2 and (i.items[1], i.items[0]) in soon

    bursts = _fix_bursts(
        t,
        story,
        inp,
        policy,
        {
            n
            for i in out
            if not by_time_only(i)
            for k, n in enumerate(i.items)
            if not (i.kind == "revert" and k == 0 and n in items and role_of(items[n]) == "fix")
        },
    )
    in_bursts = {n for b in bursts for n in b.items}
    out = [i for i in out if not (by_time_only(i) and set(i.items) & in_bursts)]
    out.extend(bursts)
    interface = _interface_changes(t, story)
    # a removal the digest names as a setting removed is told once, as that setting
    named = {n for i in interface if i.roles == ("removed",) for n in i.items}
    out.extend(i for i in _user_facing_removals(t, story) if not set(i.items) & named)
    out.extend(_said_risks(t, story, {n for i in out for n in i.items}))
    out.extend(interface)
    return out


# ---------------------------------------------------------------- risks the changes say

# a gap within a sentence: a stop inside a word or version ("Qwen3.5", "v0.9.1", "foo.yaml") is no
# sentence end (real #11124 "Lower Qwen3.5 397B w4a8 MTP A2 perf baseline" went untold)
_IN = r"(?:[^.]|\.(?=\S))"
_IN_LINE = r"(?:[^.\n]|\.(?=\S))"
# words for tests, as a title names them
# (a test by its name: "Skip `test_suffix_correctness`", real #4820; "skip test_models[…]", #9812)
_TEST_WORDS = r"(?:tests?|uts?|e2e|test\s+cases?|use\s+cases?|cases|ci\s+jobs?|test_\w+)"
# tests or checks loosened: tests skipped, disabled or deleted, accuracy thresholds relaxed,
# suites run less often or on fewer cases (2026-W26: three thresholds raised, a suite moved
# from nightly to weekly, fewer ACLGraph instances — none told)
_LOOSENED = re.compile(
    r"(?i)\b(?:skip(?:s|ped|ping)?|disabl(?:e|es|ed|ing)|xfail|mark(?:s|ed)?\s+\S+\s+(?:as\s+)?flaky)"
    rf"\b{_IN}{{0,50}}?\b{_TEST_WORDS}\b"
    # (not a test word that names something else: "skip e2e log summary", real #7552)
    r"(?!\s+(?:logs?|summar\w*|reports?|artifacts?|images?|outputs?|scripts?|names?|files?"
    # (nor a test's time collected: "Skip CPU test time collect", real #10450, a CI job's step)
    r"|director\w*|paths?|results?\s+(?:summar\w*|upload\w*)|times?|timing|durations?|collect\w*))"
    # tests named first, then what was done to them ("UT use case issue temporarily blocked and
    # skipped execution", real #11437)
    rf"|\b{_TEST_WORDS}\b{_IN}{{0,40}}?\bskipped\b"
    # ("del test …", real #11329)
    r"|\b(?:(?:remov|delet|drop)(?:e|es|ed|ing|s|ped)?|del)\s+(?:the\s+|some\s+|\S+\s+){0,3}"
    r"(?:tests?|test\s+cases?|cases|e2e\s+tests?|uts?"
    # an accuracy check taken out ("Remove aime2025 accuracy benchmark", real #11794)
    r"|(?:accuracy|precision)\s+(?:benchmarks?|checks?|tests?|evaluations?))\b"
    rf"|\b(?:remov|delet|drop)(?:e|es|ed|ing|s|ped)?\b{_IN}{{0,60}}?\bfrom\s+(?:the\s+)?(?:nightly|weekly|ci)\b"
    # tests taken offline ("take some unstable test cases offline", real #10219)
    rf"|\b(?:take|takes|taken|taking|took)\s+(?:\S+\s+){{0,4}}?{_TEST_WORDS}\s+offline\b"
    rf"|\b(?:relax|loosen|rais|increas|lower|adjust|tweak|modif|chang|updat)\w*\b{_IN}{{0,40}}?"
    r"\b(?:thresholds?|tolerances?|atol|rtol)\b"
    # a baseline updated says no direction (perf numbers tracked: "Modify perf baseline of …",
    # real #11789, #14553); one lowered or relaxed is loosened ("Decrease … throughput baseline
    # to make ci happy", real #6233)
    rf"|\b(?:relax|loosen|lower|decreas|reduc)\w*\b{_IN}{{0,40}}?\bbaselines?\b"
    rf"|\bfrom\s+nightly\s+to\s+weekly\b|\bmov\w*\b{_IN}{{0,60}}?\bto\s+(?:the\s+)?weekly\b"
    rf"|\breduc\w*\b{_IN}{{0,40}}?\b(?:coverage|tests?|test\s+runtime|cases)\b"
    rf"|\blimit\w*\b{_IN}{{0,40}}?\b(?:prompts|samples|test\s+cases|tests)\b"
    rf"|\bfewer\b{_IN}{{0,30}}\b(?:tests?|instances|cases)\b"
)
_NOT_LOOSENED = re.compile(
    r"(?i)\b(?:(?:re-?)?enabl\w*|re-?open\w*|unskip\w*|restor\w*|recover\w*|fix(?:es|ed)?\s+(?:the\s+)?"
    r"(?:skipped|disabled)|add(?:s|ed|ing)?)\b"
    # a skip undone turns tests back on ("Revert temporary skip on mtp1/mtp2 correctness tests",
    # real #5039; "remove the skip of …")
    r"|\b(?:revert|remov|delet|drop|lift)\w*\s+(?:the\s+|a\s+)?(?:temporar\w*\s+)?"
    r"(?:skip|disabl|xfail)\w*\b(?!\s+(?:tests?|cases|some|more|the|all|\S+\s+tests?)\b)"
    # a step that bears a missing input is no check loosened ("Skip e2e log summary when the log
    # file is missing or empty", real #7552: no test is skipped)
    rf"|\b(?:when|if)\b{_IN}{{0,60}}\b(?:missing|empty|absent|not\s+(?:found|present|exist\w*)"
    r"|unavailable|does\s+not\s+exist)\b"
    # tests that no longer test anything taken out: outdated, duplicated ("[CI] Drop outdated
    # cases", real #5709: a case renamed upstream; "[Test]Remove duplicate cases", #9191)
    r"|\b(?:remov|delet|drop|clean)\w*\s+(?:up\s+)?(?:the\s+|some\s+)?(?:\S+\s+){0,2}?"
    r"(?:outdated|obsolete|stale|deprecated|dead|unused|useless|duplicat\w*|redundant|invalid)\s+"
    r"(?:e2e\s+|ut\s+|unit\s+)?(?:tests?|test\s+cases?|cases|uts?)\b"
)
# a check made to tolerate what it caught, said in the description of a change of tests ("This
# tolerates minor argmax drift caused by floating-point differences", real #7455; "Replace
# text-match assertions with a two-tier logprob accuracy check")
_TOLERATES = re.compile(
    r"(?i)\b(?:tolerat\w*|allow\w*|accept\w*|ignor\w*)\s+(?:[\w-]+\s+){0,3}?(?:drift|differences?"
    r"|mismatch\w*|deviations?|divergence|noise|jitter|flak\w*)\b"
)
_LOOSENED_BODY = re.compile(
    r"(?i)\breplac\w*\s+(?:the\s+)?(?:exact|strict|text)[- ]?(?:match\w*|comparisons?|assert\w*)"
    r"|\b(?:relax|loosen)\w*\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:thresholds?|tolerances?|atol|rtol"
    r"|checks?|assert\w*|comparisons?)\b"
    r"|\b(?:increas|rais)\w*\s+(?:the\s+)?(?:atol|rtol|tolerances?)\b"
)
# a problem dodged for now, not fixed ("Temporarily avoid the accuracy issue in the full graph
# mode", real #6247; "Close the Full Graph mode to temporarily avoid accuracy issue", #5746)
_AVOIDS = re.compile(
    r"(?i)\btemporar\w*\s+(?:to\s+)?(?:avoid|bypass|skip\w*|disabl\w*|clos\w*|turn\w*\s+off)\b"
    rf"|\b(?:clos|disabl|turn\w*\s+off|switch\w*\s+off)\w*\b{_IN_LINE}{{0,60}}?\bto\s+temporar\w*\s+avoid\b"
)
# tests taken out for now, said in the description of a change that touches tests or CI, its
# sentence naming them ("Temporarily **skip two known-broken two-card e2e cases on vLLM main**",
# real #11081, in a large upgrade; "The newly launched CI did not pass the test and has been
# temporarily taken offline", #11119; "all PCP/DCP test cases have been taken offline", #12482)
_TAKEN_OUT = re.compile(
    r"(?i)\btemporar\w*[\s*_]+(?:be(?:en)?\s+)?(?:skip|remov|disabl|delet|drop|block)\w*"
    r"|\b(?:take|takes|taken|taking|took)\s+(?:\S+\s+){0,4}?offline\b"
)
# why a check was loosened, in the description's words: a purpose or a cause ("The threshold is
# relaxed to `10` to prevent transient test failures …", real #11247; "…/pull/11014 introduces
# this issue", #11437; "The previous baseline was too high …", #11124)
_WHY = re.compile(
    r"(?i)\b(?:to\s+(?:prevent|avoid|unblock|stop|keep|make|match|reflect|reduce)"
    r"|in\s+order\s+to|so\s+that|because|due\s+to|caused\s+by|since|as\s+(?:the|it|they)"
    r"|introduc\w*\s+(?:this|the)\s+(?:issue|problem|bug|failure|error)"
    r"|known\s+(?:\w+\s+)?(?:issues?|bugs?|problems?)|oom"
    r"|unstable|flaky|broken|did\s+not\s+pass|fail(?:s|ed|ing|ures?)?|too\s+(?:high|strict|low|tight))\b"
)
_OF_TESTS = re.compile(r"(?i)\b(?:tests?|uts?|e2e|accuracy|checks?|ci|assert\w*|benchmarks?)\b")
# support narrowed: a version, platform or feature dropped, or said to be unsupported now
_NARROWED_TITLE = re.compile(
    rf"(?i)^(?:drop|deprecate)\w*\b{_IN}{{0,60}}?\b(?:support|compat\w*|backward|versions?"
    r"|v?\d+\.\d+(?:\.\d+)*)(?!\w)"
    rf"|^(?:remove|disable)\w*\b{_IN}{{0,60}}?\b(?:support\s+for|support$"
    r"|(?:backward\s+)?compatibility\s+(?:with|for))"
)
_NARROWED_BODY = re.compile(
    r"(?i)\bno longer support(?:s|ed)?\b|\bis no longer supported\b|\b(?:drop|remove)s? support for\b"
)
# merged with problems its description admits are open
_UNFINISHED = re.compile(
    r"(?i)\bknown (?:issues?|limitations?|problems?)\b"
    rf"|\b(?:critical|remaining|open) issues?\b{_IN}{{0,30}}\b(?:identified|remain|left|found)\b"
    rf"|\b(?:validation|testing|verification)\b{_IN_LINE}{{0,60}}\bis pending\b"
    r"|\bnot (?:yet )?(?:been )?tested\b"
    r"|\bwill be (?:fixed|addressed) in (?:a )?(?:follow[- ]?up|later|separate|future)\b"
    # "handled" later is a plan ("Those migrations will be handled in follow-up PRs", a staged
    # 2/N refactor, 2026-W33) unless what is handled is a problem
    rf"|\b(?:issues?|problems?|bugs?|errors?|regressions?|failures?)\b{_IN}{{0,60}}"
    r"\bwill be handled in (?:a )?(?:follow[- ]?up|later|separate|future)\b"
)
_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*")
SAID_RISK_KINDS = ("loosened", "narrowed", "unfinished")
# where a sentence ends: a stop before white space (not "v0.9.1", "e.g."), or a line break
_SENTENCE_BREAK = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?。！？](?=\s|$)|\n")
# "have fixed a known issue": what is admitted open, not what was closed
_CLOSED_NOW = re.compile(r"(?i)\b(?:fix(?:es|ed)?|resolv\w*|address(?:es|ed))\b")


def _unwrapped(body: str) -> str:
    """A description with its soft line breaks joined (a sentence wrapped at 72 columns is one
    sentence); paragraphs, list items, headings and tables keep their breaks."""
    return _SOFT_BREAK.sub(" ", body.replace("\r\n", "\n"))


# (a line that starts with emphasis continues the sentence: "…the accuracy issue in the\n**full
# graph** mode.", real #6247; a list item's "* " or a rule's "---" does not)
_SOFT_BREAK = re.compile(r"(?<=\S)\n(?=[ \t]*(?:[^\s\-*+>#|\d]|\*\*\w|\*\w))")


_EMPHASIS = re.compile(r"\*\*(?=\S)|(?<=\S)\*\*|(?<!\w)__(?=\S)|(?<=\S)__(?!\w)")


def _sentence_at(text: str, m: re.Match[str]) -> str:
    """The sentence (or line) of `text` holding the match, without list or heading marks; a
    heading that announces a list ("Known issues:") with its first item."""
    start = 0
    for b in _SENTENCE_BREAK.finditer(text, 0, m.start()):
        start = b.end()
    b = _SENTENCE_BREAK.search(text, m.end())
    end = b.end() if b else len(text)
    said = " ".join(_EMPHASIS.sub("", text[start:end]).strip(" -*>#\t").split())
    if said.rstrip("*").endswith((":", "：")):
        rest = [ln.strip(" -*>#\t") for ln in text[end:].split("\n")]
        nxt = next((ln for ln in rest if ln), "")
        said = f"{said.rstrip('*')} {' '.join(nxt.split())}".strip() if nxt else ""
    return said[:240]


def _said_risks(t: _Tally, story: _Story, told: set[int]) -> list[Incident]:
    """Risks a change says of itself, quoted: tests or checks loosened, support narrowed, open
    problems admitted (2026-W26: thresholds raised, a suite moved to weekly, v0.22.1 dropped, a
    change merged with "several critical issues identified" — the report told none). Reverts
    and what another line already tells are left out; documentation changes say no such risk."""
    out: list[Incident] = []
    for number in sorted(t.merged_prs):
        if number in told:
            continue
        row = t.merged_prs[number]
        it = story.items.get(number)
        if it is None or role_of(it) in ("revert", "docs"):
            continue
        title = _TAGS.sub("", row.fact.item.title or "")
        body = _unwrapped(row.fact.item.body_excerpt or "")
        found: tuple[str, str] | None = None
        loose = _loosened_said(title, body, row.fact.item.files, role_of(it))
        if loose is not None:
            found = ("loosened", loose)
        elif _NARROWED_TITLE.search(title):
            found = ("narrowed", "")
        elif m := _NARROWED_BODY.search(body):
            found = ("narrowed", _sentence_at(body, m))
        if found is None and (m := _UNFINISHED.search(body)):
            said = _sentence_at(body, m)
            if said and not _CLOSED_NOW.search(said):
                found = ("unfinished", said)
        if found is None:
            continue
        kind, said = found
        if kind == "loosened":
            # why, when the description says it: its sentence answers the "say why" asked
            said = _why_loosened(body, said, aside_only(row.fact.item.files))
        elif not said and kind != "unfinished":
            # the title says it; the description's matching sentence, when there is one, says more
            m = _NARROWED_BODY.search(body)
            said = _sentence_at(body, m) if m else ""
        out.append(
            Incident(
                kind=kind,
                items=(number,),
                roles=(kind,),
                subject=it.title,
                reason=said,
                followed_by=followed_by(number, t, story) if kind == "loosened" else (),
            )
        )
    return out


def _loosened_said(title: str, body: str, files: Sequence[FileChange], role: str) -> str | None:
    """Whether a change says it loosened tests or checks: "" when its title (tags taken off)
    says so, the description's sentence when that says so, None when neither does."""
    undone = bool(_NOT_LOOSENED.search(title))  # ("Re-enable …", "Revert temporary skip …")
    if _LOOSENED.search(title) and not undone:
        return ""
    if (role == "test" or _OF_TESTS.search(title)) and (
        m := _TOLERATES.search(body) or _LOOSENED_BODY.search(body)
    ):
        return _sentence_at(body, m)
    if undone:
        return None
    if aside_only(files) and (m := _AVOIDS.search(body)):
        # a test changed to step around what it caught, for now (2026-01-26's #6247 was told as a
        # fix of wrong output; #5746 did the same two weeks before)
        return _sentence_at(body, m)
    if any(file_kind(f.path) in ("test", "ci") for f in files):
        # tests taken out for now, whatever else the change does (#11081 skipped two e2e cases
        # in an upgrade of 2,000 lines); the sentence names them
        for m in _TAKEN_OUT.finditer(body):
            said = _sentence_at(body, m)
            if _OF_TESTS.search(said) or re.search(rf"(?i)\b{_TEST_WORDS}\b", said):
                return said
    return None


# the template's sections after what a change does and why
_LATER_SECTIONS = re.compile(r"(?im)^#+\s*(?:does this pr|how was this|test plan|validation)")


def _why_loosened(body: str, said: str, aside: bool) -> str:
    """The description's sentence that says why a check was loosened — the one that says it was
    loosened, when it gives a purpose or a cause ("The threshold is relaxed to `10` to prevent
    transient test failures …", real #11247), else, for a change of tests or CI alone, the
    first sentence that does ("…/pull/11014 introduces this issue", #11437); else what says it
    was loosened (`said`, or the description's sentence matching the title's words)."""
    sentences = [
        _sentence_at(body, m)
        for rule in (_LOOSENED, _LOOSENED_BODY, _TOLERATES, _TAKEN_OUT, _AVOIDS)
        for m in rule.finditer(body)
    ]
    if said and _WHY.search(said):
        return said
    why = next((x for x in sentences if _WHY.search(x)), "")
    if not why and aside:
        # (the sentences before the template's later sections: what it does and why)
        lead = _LATER_SECTIONS.split(body)[0]
        why = next((x for m in _WHY.finditer(lead) if _WHY.search(x := _sentence_at(lead, m))), "")
    return why or said or (sentences[0] if sentences else "")


# a file of tests or of configuration (a CI list, a test's baseline YAML)
_CONFIG_FILE = re.compile(r"(?i)\.(?:ya?ml|json|toml|ini|cfg|conf|txt)$")
# a title that comes back to a test: fixes, restores or re-enables it, or updates its baseline
# (real #9704 "[CI]fix dflash test"; not #4800 "[CI]cleanup e2e test", which renamed tests)
_CAME_BACK = re.compile(
    r"(?i)\b(?:fix\w*|re-?enabl\w*|restor\w*|un-?skip\w*|recover\w*|revert\w*|baselines?|"
    r"bring\w*\s+back|turn\w*\s+(?:\w+\s+)?back\s+on)\b"
)


def followed_by(number: int, t: _Tally, story: _Story) -> tuple[int, ...]:
    """The window's later changes that touched the same test or configuration files as `number`
    and whose titles say they fix, restore or re-enable something (#9681 skipped a DFlash test;
    "[CI]fix dflash test", #9704, updated that test's baseline the next day): a loosened check
    or a temporary measure someone came back to. A file a fifth of the window's changes touch
    (a CI list, the platform file) is no evidence."""
    items = story.items
    it = items.get(number)
    if it is None or it.merged_at is None:
        return ()
    merged = [n for n in t.merged_prs if n in items]
    per_file = Counter(f for n in merged for f in set(items[n].files))
    common = {f for f, c in per_file.items() if c > FILE_SHARE * max(len(merged), 1)}
    mine = {
        f
        for f in it.files
        if f not in common and (file_kind(f) in ("test", "ci") or _CONFIG_FILE.search(f))
    }
    return tuple(
        _merged_order(
            (
                n
                for n in merged
                if n != number
                and not items[n].bot
                and (at := items[n].merged_at) is not None
                and at > it.merged_at
                and mine & set(items[n].files)
                and _CAME_BACK.search(items[n].title)
            ),
            items,
        )
    )


_RELAND = re.compile(
    r"(?i)\b(?:reapply|re-?appl\w*|re-?land\w*|redo|restor\w*|re-?introduc\w*|re-?enabl\w*)\b"
)


def _revert_reason(revert: StoryItem | None, target: int | None) -> str:
    """Why a change was reverted, in the revert's own words: the sentence that names what it
    reverts ("Reverts #5082, which broke CI"), else its description's what-sentence unless that
    only repeats the title ("Revert "x" for CI" is kept: it says for what)."""
    if revert is None or revert.digest is None:
        return ""
    for ref in revert.digest.refs:
        if (
            ref.kind == "reverts"
            and ref.context
            and (target is None or ref.number in (None, target))
        ):
            # "Reverts #12515" or "Manually reverts #11899 from main" says no why
            return ref.context if _says_why(ref.context) else ""
    what = revert.digest.what.strip()
    # the what-sentence only when it gives a reason (a revert's "- fix lint" list item does not)
    if (
        not what
        or revert.digest.template_only
        or not _says_why(what)
        or not REASON_WORDS.search(what)
    ):
        return ""
    if plain_title(what) == plain_title(revert.title):
        return ""
    return what


def _not_its_description(reason: str, reverted: StoryItem | None) -> str:
    """A revert's reason, unless it is the reverted change's own description pasted into the
    revert's body (2026-W29: #11994 embedded #10824's "This PR unifies FIA …"; it says why the
    change was made, not why it was undone)."""
    theirs = " ".join(
        (reverted.digest.what if reverted is not None and reverted.digest else "").split()
    )
    ours = " ".join(reason.split())
    if ours and theirs and (ours[:60] in theirs or theirs[:60] in ours):
        return ""
    return reason


_NOT_WHY = re.compile(
    r"(?i)https?://\S+|(?:[\w.-]+/[\w.-]+)?#\d+|\b(?:this|that|the|pr|commit|manually|partially"
    r"|revert\w*|from|main|branch|of|to|in|[0-9a-f]{7,40})\b|[^\w\s]"
)


def _says_why(sentence: str) -> bool:
    """More than "Reverts #N (from main)": a few words of its own remain (two, "break CI", when
    one of them is a reason)."""
    words = _NOT_WHY.sub(" ", sentence).split()
    return len(words) >= 3 or (len(words) == 2 and bool(REASON_WORDS.search(sentence)))


def _names_reverted(item: StoryItem) -> bool:
    """A revert that says what it undid: a quoted title, a commit or a number."""
    if quoted_revert(item.title)[0] is not None:
        return True
    refs = item.digest.refs if item.digest is not None else ()
    return any(r.kind == "reverts" and (r.sha or r.number) for r in refs)


def _touches_code(item: StoryItem) -> bool:
    return any(file_kind(f) is None for f in item.files) if item.files else True


def _upgrade_key(title: str) -> tuple[str, str] | None:
    """What an upgrade moves to, as a comparable key: ("mooncake", "0.3.11.post1") for both "Bump
    Mooncake to v0.3.11.post1" and "Upgrade mooncake from 0.3.9 to 0.3.11.post1"."""
    target = upgrade_target(title)
    parts = target.split() if target else []
    if len(parts) < 2 or not re.search(r"\d", parts[-1]):
        return None
    return parts[0].casefold(), parts[-1].casefold().removeprefix("v")


# a change coming back, in its own words: "Reapply …", "re-land", "[Recover] …", "(re-pull)",
# "brings back", a revert of a revert ('This PR reverts "[ModelRunner] Revert …"', real #6475);
# "restore" only of the change itself, named ("restore pr-7029", real #7294: "Restore the import
# … PR #13290 reverted" restores a line, real #13810)
_BACK = re.compile(
    r"(?i)\b(?:re-?appl\w*|re-?land\w*|recover\w*|redo|re-?pull\w*|re-?submit\w*|"
    r"re-?introduc\w*|bring\w* back|brought back)\b"
    r"|\brevert\w*\s+(?:the\s+|a\s+)?[\"“'`]?(?:\[[^\]]*\]\s*)*revert"
)
_RESTORE = re.compile(r"(?i)\brestor\w*")
# a sentence of a description: its end, a blank line or a list item (a wrapped line goes on)
_SENTENCE_END = re.compile(r"\n\s*\n|\n\s*(?:[-*+]|\d+\.)\s+|(?<=[.!?])\s+(?=[A-Z#*\[(`])")


def brings_back_title(title: str) -> bool:
    """The title says a change comes back ("Reapply …", "[Recover] …", "… (re-pull)", "restore
    pr-7029"): the changes merged after a window that the store reads as its reverts' outcome
    (with those repeating a reverted change's title)."""
    return bool(_BACK.search(title) or _RESTORE.search(title))


def _names_number(text: str, number: int) -> bool:
    """`text` names #number of this repository: "#11155", "(vllm-project#7100)", "pr-7029",
    ".../pull/4892" (not another repository's "owner/name#N")."""
    return bool(
        re.search(
            rf"(?i)(?:(?<![\w/#.-])[\w-]*#|\bpr[-\s]?#?|/pull/){number}(?!\d)",
            text,
        )
    )


def _says_it_comes_back(text: str, target: int, revert: int) -> bool:
    """A sentence of `text` brings the reverted change back by number: it names the change or its
    revert and says it comes back ("This PR reapplies #11155 after #11415 reverted it", real
    #11429; "Reapply … (originally in #6645, reverted in #6873)", #7111); "restore" only with the
    change itself named. "We did try … in #5761" (#9025) and "Fix #10824" (#12084) do not."""
    for sentence in _SENTENCE_END.split(text):
        if _BACK.search(sentence) and (
            _names_number(sentence, target) or _names_number(sentence, revert)
        ):
            return True
        if _RESTORE.search(sentence) and _names_number(sentence, target):
            return True
    return False


def _merged_after(items: Mapping[int, StoryItem], n: int, than: int) -> bool:
    a, b = items.get(n), items.get(than)
    return (
        a is not None
        and b is not None
        and a.merged_at is not None
        and b.merged_at is not None
        and a.merged_at > b.merged_at
    )


def _relands(
    revert: int,
    target: int,
    items: Mapping[int, StoryItem],
    candidates: set[int],
    bodies: Mapping[int, str],
) -> list[int]:
    """The `candidates` that bring a reverted change back: merged after the revert, no revert
    themselves, and saying so — a title or sentence that names the change or its revert and
    says it comes back; a reference to it and such words; "restore"/"reapply" with most of its
    title, or its very title again, touching its code; the same upgrade; the same
    description."""
    rv, old = items.get(revert), items.get(target)
    if rv is None or old is None or rv.merged_at is None:
        return []
    code = {f for f in old.files if file_kind(f) is None}
    words = _plain_words(old.title)
    out = []
    for n in sorted(candidates):
        it = items.get(n)
        if (
            it is None
            or n in (revert, target)
            or it.merged_at is None
            or it.merged_at <= rv.merged_at
            or role_of(it) == "revert"
        ):
            continue
        refs = {r.number for r in it.digest.refs} if it.digest is not None else set()
        if _says_it_comes_back(it.title, target, revert) or _says_it_comes_back(
            bodies.get(n, ""), target, revert
        ):
            out.append(n)
        elif target in refs and _RELAND.search(
            it.title + " " + (it.digest.what if it.digest else "")
        ):
            out.append(n)
        elif (
            code & set(it.files)
            and words
            and (
                _plain_words(it.title) == words
                or (
                    (_RELAND.search(it.title) or _BACK.search(it.title))
                    and len(words & _plain_words(it.title)) * 2 >= len(words)
                )
            )
        ):
            # "restore <most of its title>" or the very same title again; "Restore FIA decode
            # mask handling" does not bring back "Remove paged attention" for sharing a file
            out.append(n)
        elif _upgrade_key(old.title) is not None and _upgrade_key(old.title) == _upgrade_key(
            it.title
        ):
            # the same upgrade landed again another way (2026-W27: "Bump Mooncake to v0.3.11.post1
            # in Dockerfiles" reverted for a failed image build, then "Upgrade mooncake from 0.3.9
            # to 0.3.11.post1" with the official wheel)
            out.append(n)
        elif code & set(it.files) and _same_what(old, it):
            # re-opened under another title with the same description (W50: #4194 "add custom
            # moe ops for prefill", reverted by #4806, came back as #4810 "Add moe normal ops")
            out.append(n)
    return _merged_order(out, items)


_SAME_WHAT_MIN = 40  # characters a what-sentence needs to tell one change from another


def _same_what(a: StoryItem, b: StoryItem) -> bool:
    """Both digests say the change does the very same thing, in a sentence long enough to be its
    own (not "Fix a bug.")."""
    wa = " ".join((a.digest.what if a.digest else "").split())
    wb = " ".join((b.digest.what if b.digest else "").split())
    return len(wa) >= _SAME_WHAT_MIN and wa == wb


def _plain_words(title: str) -> frozenset[str]:
    """A title's words without [Tags], (#N), function words and the re-land verbs."""
    return frozenset(
        w
        for w in re.findall(r"[a-z0-9_.]+", plain_title(title))
        if len(w) > 2
        and not _RELAND.fullmatch(w)
        and not _BACK.fullmatch(w)
        and w not in ("the", "and", "for", "with", "fix", "fixes", "bugfix")
    )


_BUMP = re.compile(
    r"(?i)\b(?:bump|upgrade|update|sync|align)\w*\b.*?(?:\bto\b|\bv?\d+\.\d+|\bmain\b|upstream)"
)


def _is_bump(item: StoryItem, policy: ReportPolicy) -> bool:
    if role_of(item) in ("revert", "fix"):
        return False
    modules = {_fold(m) for m in item.modules}
    upgrade_area = bool(modules & {_fold(m) for m in policy.upgrade_modules})
    return bool(_BUMP.search(item.title)) and (
        upgrade_area
        or "depend" in " ".join(modules)
        or bool(re.search(r"(?i)\b(?:bump|upgrade)\b", item.title))
    )


# a burst of fixes after a big change (issue #15): 2026-W21's "Support DeepseekV4" (#9270) was
# followed within four days by seven fixes of the same line touching its files (NaN hidden
# states, MTP acceptance, async scheduling, precision on A2, …) and the report said nothing. Read
# on 2025-W45, 2025-W51, 2026-W13, W20, W21 and W32: only that line has three or more such
# fixes after one change; two is common in any busy line (2025-W51's profile_run refactor: two;
# 2026-W32's FlashComm1 for Model Runner V2: one), so three fixes that touch the change's own
# code are the bar, and they must be most of the line's fixes after it (a line of fixes by
# nature — "[Bugfix] … PP", keeping up with upstream — has no change to follow, or is left out).
BURST_FIXES = 3
BURST_SHARE = 0.5  # ... and at least this share of the line's fixes merged after the change
# fixes within this many hours of the change are its fix-ups when they name the line's term in
# their title, or touch its code and name the term in their description: 2025-W51's profile_run
# refactor #4993 was followed by #5093 ("fix mtp accept rate by disabling in_profile_run"),
# #5122 ("delele profile_run in model_runner"), #5136 ("fix profile run for vl model", another
# file) and #5165 ("Fix in_profile_run in mtp_proposer dummy_run") within 53 hours; by shared
# files alone only two counted, and the report said "1 feature and 3 fixes"
FIXUP_HOURS = 72


def _fold_term(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def _fix_bursts(
    t: _Tally, story: _Story, inp: WindowInput, policy: ReportPolicy, told: set[int]
) -> list[Incident]:
    """A feature or large change of a line of work (merged in this window or the previous one)
    followed, later in the window, by BURST_FIXES fixes or more of the same line that touch its
    code and were opened after it: instability, told once per line, naming the change and its
    fixes. Fixes a revert or a fix-up chain already tells (`told`) are not counted again; a change
    that was reverted is the revert's to tell."""
    items, window = story.items, t.window
    merged = set(t.merged_prs)
    # a file touched by a fifth of the window's changes or more (the platform file, a CI list)
    # is no evidence that a fix answers one change
    per_file = Counter(f for n in merged if n in items for f in set(items[n].files))
    common = {f for f, c in per_file.items() if c > FILE_SHARE * max(len(merged), 1)}

    def code(n: int) -> set[str]:
        return {
            f
            for f in items[n].files
            if f not in common and file_kind(f) is None and "test" not in f.lower()
        }

    def big(n: int, role: str) -> bool:
        it = items[n]
        if role == "feature":
            return not ci_only(it)
        return role in ("refactor", "perf", "other") and it.additions + it.deletions >= _LARGE_LINES

    before = inp.previous
    earlier = {
        n
        for n, it in items.items()
        if it.merged_at is not None and before.start <= it.merged_at < before.end
    }
    out: list[Incident] = []
    for line in story.storylines:
        if line.evidence == "module" or line.key in (UPGRADES_KEY, REMOVALS_KEY):
            continue  # leftovers of a module; a line of upgrades (their fallout is told apart)
        roles = {m.number: m.role for m in line.items if m.number in items}
        # the line's changes of the previous window: its titles name the line's terms
        terms = [f for f in (_fold_term(x) for x in line.terms) if len(f) >= 3]
        for n in earlier:
            it = items.get(n)
            if n not in roles and it is not None and terms and not it.bot:
                if any(term in _fold_term(it.title) for term in terms):
                    roles[n] = role_of(it)
        # the window's fixes outside the line that name its term where they say what they do
        # (real #5093 "fix mtp accept rate by disabling in_profile_run"): fix-ups when quick and
        # on its code (below)
        said_term: set[int] = set()
        for n in merged:
            it = items.get(n)
            if n in roles or it is None or it.bot or role_of(it) != "fix" or not terms:
                continue
            said = _fold_term(t.merged_prs[n].fact.item.body_excerpt or "")
            if any(term in said for term in terms):
                roles[n] = "fix"
                said_term.add(n)
        titled = {
            n for n in roles if terms and any(t_ in _fold_term(items[n].title) for t_ in terms)
        }
        fixes = [
            n
            for n in _merged_order(roles, items)
            if roles[n] == "fix" and n in merged and items[n].merged_at is not None
        ]
        best: tuple[int, list[int]] | None = None
        for lead in _merged_order(roles, items):
            at = items[lead].merged_at
            if (
                at is None
                or not big(lead, roles[lead])
                or lead in story.reverted
                or lead in told
                or _is_bump(items[lead], policy)
            ):
                continue
            touched = code(lead)
            after = [n for n in fixes if (f_at := items[n].merged_at) is not None and f_at > at]
            # a fix opened before the change (a lower number: 2026-W32's #12772 and #13012 beside
            # the MoE refactor #13268) was not made to answer it
            quick = {
                n
                for n in after
                if (f_at := items[n].merged_at) is not None
                and f_at - at <= timedelta(hours=FIXUP_HOURS)
            }
            # a fix touching its code; once two do, one within FIXUP_HOURS whose title names the
            # line's term (as the lead's does) also counts: another file of the same work (a
            # shared name alone is no evidence: "DeepSeek V4" fixes of other files)
            coded = {
                n
                for n in after
                if n > lead
                and n not in told
                and (shared := touched & set(items[n].files))
                # (one joined by its description's words shares real code with it, quickly: not
                # a package's __init__ that registers everything — real #9410, a GLM parser
                # patch removed beside DeepSeek V4's)
                and (
                    n not in said_term
                    or (n in quick and any(not f.endswith("__init__.py") for f in shared))
                )
            }
            named = {
                n
                for n in after
                if n > lead and n not in told and n in quick and lead in titled and n in titled
            }
            burst = [n for n in after if n in coded or (len(coded) >= 2 and n in named)]
            after = [n for n in after if n not in said_term or n in burst]
            if len(burst) < BURST_FIXES or len(burst) < BURST_SHARE * len(after):
                continue
            if best is None or len(burst) > len(best[1]):
                best = (lead, burst)
        if best is None:
            continue
        lead, burst = best
        start = items[lead].merged_at
        # the line's fixes in the window after the change, the burst's among them: one count
        # for the line's "8 fixes" and the burst's "7 of them" (2026-W22 said 8 and 7 apart)
        line_fixes = {
            m.number
            for m in line.items
            if m.role == "fix"
            and m.number in merged
            and (at := items[m.number].merged_at if m.number in items else None) is not None
            and start is not None
            and at > start
        }
        out.append(
            Incident(
                kind="fix_burst",
                items=(lead, *burst),
                roles=("added", *("fixed",) * len(burst)),
                subject=line.name,
                across_windows=start is not None and start < window.start,
                of_fixes=len(line_fixes | set(burst)),
            )
        )
    return out


REPEATED_FIXES = 4  # fixes of one file over this window and the previous to be instability
REPEATED_HERE = 2  # ... of them in this window


def _repeated_fixes(t: _Tally, story: _Story, inp: WindowInput, told: set[int]) -> list[Incident]:
    """One file fixed again and again, with no change to follow (2026-07-08/09: the docs
    translation scripts were fixed four times on the 8th and three times on the 9th — "Fix doc
    translate workflow" twice, "Fix wrong CN translate", "Fix CN doc problem", "Fix po translate
    bug" — none naming another): REPEATED_FIXES changes titled as fixes, within FIXUP_HOURS over
    this window and the previous one, touch one file of code or CI scripts (not docs, not a
    package's __init__), REPEATED_HERE of them in this window, and fixes are most of the changes
    of that file in both windows (a busy file many features touch is no unstable one). An instability with every
    item fixed, subject the file's name; fixes another incident tells are left out."""
    items = story.items
    since = inp.previous.start
    both = [
        n
        for n, it in items.items()
        if it.merged_at is not None
        and since <= it.merged_at < t.window.end
        and it.kind == "pull_request"
        and not it.bot
    ]
    per_file = Counter(f for n in both for f in set(items[n].files))
    fixes_of: dict[str, list[int]] = defaultdict(list)
    for n in both:
        it = items[n]
        if n in told or role_of(it) == "revert" or not _FIX_TITLE.search(it.title):
            continue
        for f in set(it.files):
            if file_kind(f) in ("docs", "test") or f.endswith("__init__.py"):
                continue
            fixes_of[f].append(n)
    out: list[Incident] = []
    covered: set[int] = set()
    ranked = sorted(fixes_of.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for path, all_fixes in ranked:
        if len(all_fixes) * 2 < per_file[path]:
            continue
        # the most fixes within FIXUP_HOURS of the first of them: a hub file fixed now and then
        # over two weeks for unrelated reasons is no burst (2026-W17: model_runner_v1.py)
        ordered = _merged_order(all_fixes, items)
        fixes: list[int] = []
        for k, n in enumerate(ordered):
            start = items[n].merged_at
            span = [
                m
                for m in ordered[k:]
                if start is not None
                and (at := items[m].merged_at) is not None
                and at - start <= timedelta(hours=FIXUP_HOURS)
            ]
            if len(span) > len(fixes):
                fixes = span
        here = [n for n in fixes if n in t.merged_prs]
        if (
            len(fixes) < REPEATED_FIXES
            or len(here) < REPEATED_HERE
            or len(set(fixes) & covered) * 2 >= len(fixes)
            or not _fix_the_same(fixes, items, inp)
        ):
            continue
        order = _merged_order(fixes, items)
        covered |= set(fixes)
        first = items[order[0]].merged_at
        out.append(
            Incident(
                kind="instability",
                items=tuple(order),
                roles=("fixed",) * len(order),
                subject=path.rsplit("/", 1)[-1],
                across_windows=first is not None and first < t.window.start,
            )
        )
    return out


RARE_TERM_SHARE = 0.01  # a term in at most this share of the history's titles names a thing


def _fix_the_same(fixes: Sequence[int], items: Mapping[int, StoryItem], inp: WindowInput) -> bool:
    """Whether more than half of the fixes name one thing in their titles: a term rare in the
    history ("translate", in 10 of 4,734 titles: "Fix doc translate workflow", "Fix wrong CN
    translate", "Fix po translate bug"); unrelated fixes of a hub file share none ("PD", "mode")."""
    bound = RARE_TERM_SHARE * inp.history_items
    named: Counter[str] = Counter()
    for n in fixes:
        named.update(
            term for term in terms_of(items[n].title) if inp.term_counts.get(term, 0) <= bound
        )
    return any(c * 2 > len(fixes) for c in named.values())


def _user_facing_removals(t: _Tally, story: _Story) -> list[Incident]:
    """Removals whose descriptions say users see them (an option, a flag, a feature gone): a risk
    for everyone who relied on it, told with the description's own words (2026-W29: #12049
    removed the sparse action, "Yes" to a user-facing change)."""
    out = []
    for number in sorted(t.merged_prs):
        it = story.items.get(number)
        if it is None or it.digest is None or it.digest.user_facing != "yes":
            continue
        if takes_out(it):
            out.append(
                Incident(
                    kind="removal",
                    items=(number,),
                    roles=("removal",),
                    subject=it.title,
                    reason=it.digest.user_facing_text,
                )
            )
    return out


# which announced steps come first: a stopgap to lift, then work or tests said to be owed, then
# a plan, then a part of a series ("2nd PR for #5712")
_STEP_RANKS = (
    re.compile(r"(?i)\btemporar|\bdiscard|\bwork-?around|\bstop-?gap|\buntil\b|\bonce\b|\bfor now"),
    re.compile(r"(?i)\b(?:further|more|additional)\b|\btodo\b|\bshould\b|\bcurrently\b"),
    re.compile(r"(?i)\bnext steps?\b|\bfollow[- ]?up\b|\bfuture\b|\blater\b|\bseparate\b"),
)


def _step_rank(said: str) -> int:
    return next((k for k, rx in enumerate(_STEP_RANKS) if rx.search(said)), len(_STEP_RANKS))


def _interface_changes(t: _Tally, story: _Story) -> list[Incident]:
    """Settings users will notice in how they configure or run the code, as the descriptions
    name them (2026-W13: `sp_threshold` removed, `VLLM_ASCEND_BALANCE_SCHEDULING` added, the
    default capture size changed, `--load-format rfork` added): one incident per setting, in
    number order. Reverts, bots and changes of tests, CI or docs alone set nothing users run."""
    out = []
    for number in sorted(t.merged_prs):
        it = story.items.get(number)
        if (
            it is None
            or it.digest is None
            or not it.digest.interface
            or it.bot
            or role_of(it) in ("revert", "docs", "test", "ci")
            or (it.files and all(file_kind(f) is not None for f in it.files))
        ):
            continue
        for change in it.digest.interface:
            subject = f"{change.name} → {change.new_name}" if change.new_name else change.name
            out.append(
                Incident(
                    kind="interface",
                    items=(number,),
                    roles=(change.kind,),
                    subject=subject,
                    reason=change.sentence,
                )
            )
    return out


# "temporarily", not "temporary": a temporary tensor is no stopgap (2025-W52)
# ("for now" is no promise: "(at least for now)" hedged a permanent refactor, 2025-W43)
# what users may do until the change itself lands (real #9548 "Workaround until this lands:
# --no-scheduler-reserve-full-isl at serve time"): nothing is left once it merged
_UNTIL_THIS = re.compile(
    r"(?i)\buntil\s+this\s+(?:(?:pr|change|patch|fix|pull request)\s+)?"
    r"(?:lands|is\s+(?:merged|landed|in)|gets\s+merged|merges)\b"
)
_STOPGAP = re.compile(
    r"(?i)\b(?:temporarily|workaround|work around|stopgap|hack|until\b.{0,40}"
    r"\b(?:fixed|resolved|released|lands?|merged))\b"
)
_PLANNED_REVERT = re.compile(
    r"(?i)\b(?:freez\w*|frozen|redo|re-?land|re-?apply|postpon\w*|until|once\b.{0,40}"
    r"\breleased|after the release|for now|temporarily)\b"
)
_BROKE = re.compile(
    r"(?i)\b(?:break|breaks|broke|broken|fail\w*|regress\w*|errors?|crash\w*|hang\w*"
    r"|accuracy|precision|wrong|incorrect|bug)\b"
)


def _planned_revert(reason: str) -> bool:
    """A revert's reason gives a plan (a freeze, "redo it once 0.13.0 is released", "for now")
    and names no defect (2025-W52's #5410 and #5434; not #5380's "introduces a precision issue")."""
    return bool(_PLANNED_REVERT.search(reason)) and not _BROKE.search(reason)


MIN_UPGRADE_FILES = 3  # an upgrade of the project touches its build, its code and its CI


def _upgrade_fallout(t: _Tally, story: _Story, policy: ReportPolicy) -> list[Incident]:
    """A dependency or upstream bump merged in the window, then the fixes that followed it (within
    `upgrade_fallout_days`, in the same upgrade area or pointing at the bump)."""
    items = story.items
    merged = [items[n] for n in t.merged_prs if n in items and items[n].merged_at is not None]
    merged.sort(key=lambda i: (i.merged_at, i.number))
    bumps = [i for i in merged if _is_bump(i, policy)]
    if not bumps:
        return []
    refers = defaultdict(set)
    for link in story.links:
        refers[link.source].add(link.target)
    upgrade = {_fold(m) for m in policy.upgrade_modules}
    horizon = timedelta(days=policy.upgrade_fallout_days)
    fixes: dict[int, list[int]] = defaultdict(list)
    for item in merged:
        if role_of(item) != "fix" or item.merged_at is None:  # (merged: never None)
            continue
        fixed_at = item.merged_at
        earlier = [
            b
            for b in bumps
            if b.merged_at is not None
            and b.merged_at <= fixed_at <= b.merged_at + horizon
            and b.number != item.number
        ]
        if not earlier:
            continue
        pointed = [b for b in earlier if b.number in refers[item.number]]
        # a bump of CI tooling only (a GitHub action) is followed by fixes that name it, never by
        # whatever fix lands in the upgrade area next (2025-W52: actions/checkout 6 "followed by"
        # a transformers pin for Qwen3-VL)
        # nor by an upgrade of one component ("Recompute scheduler upgrade to vLLM 0.18.0", one
        # file: 2026-W13's #7709 adapting model runner v2 was no fallout of it): what did not
        # move the project brings nothing that a fix in the area answers unless it says so
        same_area = [
            b
            for b in earlier
            if {_fold(m) for m in item.modules} & upgrade
            and not ci_only(b)
            and (not b.files or len(b.files) >= MIN_UPGRADE_FILES)
        ]
        if pointed:
            fixes[pointed[-1].number].append(item.number)
        elif same_area:
            # the largest upgrade before it, not the latest: a version tag bumped in CI files
            # after the code's upgrade (2026-W30: v0.25.1's 30-line tag bump after v0.25.0's
            # 54-file adaptation) did not bring the fixes
            biggest = max(same_area, key=lambda b: (b.additions + b.deletions, b.merged_at))
            fixes[biggest.number].append(item.number)
    return [
        Incident(
            kind="upgrade_fallout",
            items=(b, *numbers),
            roles=("bump", *("fixed",) * len(numbers)),
            subject=upgrade_target(items[b].title),
        )
        for b, numbers in sorted(fixes.items())
    ]


# ---------------------------------------------------------------- discussions, risks, ecosystems


def _discussions(t: _Tally, inp: WindowInput, policy: ReportPolicy) -> list[Discussion]:
    comments: Counter[int] = Counter()
    reviews: Counter[int] = Counter()
    people: dict[int, set[str]] = defaultdict(set)
    snaps: dict[int, FactRow] = {}
    for row in (*t.comments, *t.reviews):
        number = row.fact.item.number
        (comments if row.fact.kind == "comment" else reviews)[number] += 1
        actor = fact_actor(row.fact)
        if actor is not None and not is_bot(actor):
            people[number].add(row.tags.person(actor.login))
        snaps[number] = row
    out = []
    for number, row in snaps.items():
        heat = comments[number] + reviews[number] + 0.5 * len(people[number])
        item = inp.items.get(number)
        snap = item.snapshot if item else row.fact.item
        out.append(
            Discussion(
                item=_ref_for(number, inp, row.fact.item, row.tags),
                comments_in_window=comments[number],
                reviews_in_window=reviews[number],
                participants=tuple(sorted(people[number])),
                status=_status_at(snap, t.window.end),
                heat=round(heat, 3),
            )
        )
    out.sort(key=lambda d: (-d.heat, d.item.number))
    return out[: policy.hot_discussions]


def _window_items(t: _Tally) -> dict[int, FactRow]:
    """Items opened, merged or closed in the window, each with its latest such fact."""
    out: dict[int, FactRow] = {}
    for rows in (t.new_prs, t.new_issues, t.merged_prs, t.closed_prs, t.closed_issues):
        for number, row in rows.items():
            if number not in out or (row.time, row.fact_id) > (
                out[number].time,
                out[number].fact_id,
            ):
                out[number] = row
    return out


# how a rule fired when it only read words: such a tag alone is a hint, not evidence
_WORDS_ONLY = frozenset({"keyword", "title-regex", "body-keyword", "body-regex"})


def _risk_severity(risk, tags: Tags, labels: Iterable[str]) -> str:
    """A risk fired by words alone ("Sanitize" in a title) never reaches "high" without
    corroboration: a label naming it. (Fired by files or a label, the tag keeps its severity.)"""
    if risk.severity != "high" or risk.rule.rpartition("/")[2] not in _WORDS_ONLY:
        return risk.severity
    stem = _fold(risk.name).split("-")[0]
    if any(stem and stem in _fold(x) for x in labels):
        return "high"
    return "medium"


_SIZE_RULES = ("/lines", "/file-count")  # how a size risk fired (classifier ruleset: _risks)


TINY_LINES = 10  # code lines of a change too small to ask tests of
# a change this small (its code lines) in so few code files is no high risk of paths or coverage:
# severity scales with size and breadth (2026-07-10: #11790, a +8/-4 `.contiguous()` fix in one
# file, was the day's only high risk)
SMALL_LINES, SMALL_FILES = 30, 2


def _small(snap: ItemSnapshot, own: int) -> bool:
    code = [f for f in snap.files if file_kind(f.path) is None]
    return own < SMALL_LINES and len(code) <= SMALL_FILES


def own_code_lines(snap: ItemSnapshot, tags: Tags | None = None) -> int:
    """The lines of the project's own code a change adds and removes: not tests, docs, CI or
    tooling; vendored, generated or imported code a fiftieth (without a file list: its totals)."""
    if not snap.files:
        return (snap.additions or 0) + (snap.deletions or 0)
    by_kind = _lines_of(snap, tags)
    return round(
        sum(
            (a + r) * (1.0 if k in ("code", "unlisted") else _SIZE_SHARE[k])
            for k, (a, r) in by_kind.items()
            if k in ("code", "unlisted", "generated", "imported")
        )
    )


def _risks(
    t: _Tally,
    story: _Story | None = None,
    policy: ReportPolicy | None = None,
    loosened: Set[int] = frozenset(),
) -> list[RiskObservation]:
    """Risk tags of the changes that landed (merged in the window), with counts and PR lists.
    Reverts are told as incidents, never as changes that lack tests. A change of tests, docs or
    CI alone carries no risk of code: none of size, none of core paths or coverage, none fired
    by its words (2026-W22: the docs change #9567 was a "concurrency change" for naming async
    scheduling); a change is a size risk by its own code (not #8368's docs tooling, nor #11626's
    operator migrated in); a small change (_small: SMALL_LINES of code in at most SMALL_FILES
    code files) is no high risk of paths or coverage (2026-07-09: a one-line guard, #11544, and
    2026-07-10: a +8/-4 fix, #11790, were their day's only high risk)."""
    policy = policy or ReportPolicy()
    code_risks = {*policy.core_risks, *policy.missing_test_risks}
    items: dict[str, set[int]] = defaultdict(set)
    severity: dict[str, str] = {}
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    reverts = story.reverts if story is not None else set()
    for number, row in t.merged_prs.items():
        # lines of tests, CI configs or docs alone are no large change to review (2026-W21: a
        # unit-test PR and a nightly config were "very large changes")
        snap = row.fact.item
        aside = aside_only(snap.files)
        own = own_code_lines(snap, row.tags)
        # no change to ask tests of: a tiny one, one that only deletes code, or one of logging or
        # wording (2026-W34: #14394 +4/-1, the MiniMax patch deletions; 06-10: #10201's logging)
        untestable = _untestable(snap, row.tags)
        digest = row.tags.digest
        if (
            digest is not None
            and "not_run" in digest.tested
            and not aside
            and number not in reverts
            and not untestable
        ):
            # a change merged with tests its description says were not run ("NPU end-to-end
            # validation has not been run", real #14046): a risk of its own
            items[TESTS_NOT_RUN].add(number)
            severity[TESTS_NOT_RUN] = "medium"
            reasons[TESTS_NOT_RUN][digest.tested_text or "tests not run"] += 1
        for risk in row.tags.risks:
            if number in reverts and risk.name != "revert":
                continue
            sized = risk.rule.endswith(_SIZE_RULES)
            if sized and (aside or own < _LARGE_LINES):
                continue
            if aside and (risk.name in code_risks or risk.rule.rpartition("/")[2] in _WORDS_ONLY):
                continue
            if risk.name in policy.missing_test_risks and untestable:
                continue
            items[risk.name].add(number)
            level = _risk_severity(risk, row.tags, snap.labels)
            if level == "high" and risk.name in code_risks and _small(snap, own):
                level = "medium"
            if SEVERITY_RANK[level] >= SEVERITY_RANK.get(severity.get(risk.name, "low"), 0):
                severity[risk.name] = level
            reasons[risk.name][risk.reason] += 1
    # a subsystem made unstable: a risk of the window whose area also had a test or check
    # loosened and a fix, three changes or more in all, is one high risk holding the loosened
    # change too (2026-W34's graph capture: #14688 skipped the graph-mode precision test, #14307
    # fixed mixed cudagraph modes, #13946 rewired it) — above any single change's gap
    skip = {*code_risks, *policy.pipeline_risks}
    for number in sorted(loosened & set(t.merged_prs)):
        for risk in t.merged_prs[number].tags.risks:
            name = risk.name
            if name in skip or risk.rule.endswith(_SIZE_RULES) or name not in items:
                continue
            fixes = [
                n
                for n in items[name]
                if story is not None and n in story.items and role_of(story.items[n]) == "fix"
            ]
            if fixes and len(items[name] | {number}) >= 3:
                items[name].add(number)
                severity[name] = "high"
    out = [
        RiskObservation(
            risk=name,
            severity=severity[name],
            count=len(numbers),
            items=tuple(sorted(numbers)),
            reason=sorted(reasons[name].items(), key=lambda kv: (-kv[1], kv[0]))[0][0],
        )
        for name, numbers in items.items()
    ]
    out.sort(key=lambda r: (-SEVERITY_RANK[r.severity], -r.count, r.risk))
    return out


TESTS_NOT_RUN = "tests-not-run"


def _untestable(snap: ItemSnapshot, tags: Tags) -> bool:
    """No change to ask tests of: a tiny one (TINY_LINES of code), one that only deletes code, or
    one of logging or wording."""
    return ITEMS.get("untestable", snap, tags, lambda: _is_untestable(snap, tags))


def _is_untestable(snap: ItemSnapshot, tags: Tags) -> bool:
    return (
        own_code_lines(snap, tags) < TINY_LINES
        or _deletes_only(snap)
        or is_minor(snap, [c.name for c in tags.categories])
    )


def _deletes_only(snap: ItemSnapshot) -> bool:
    """Whether the change's code mostly goes away: fewer than TINY_LINES lines of code added and
    more taken out (tests, docs aside; 2026-W34's MiniMax patch removals, +2/-109, #13782)."""
    code = [f for f in snap.files if file_kind(f.path) is None and "test" not in f.path.lower()]
    added, taken = sum(f.additions for f in code), sum(f.deletions for f in code)
    if code and not added and not taken:  # a file list without lines: the change's totals
        added, taken = snap.additions or 0, snap.deletions or 0
    return bool(code) and added < TINY_LINES and taken > added


def _group_of(tags: Tags) -> str:
    """The ecosystem group of an item: its FIRST category that names a group.

    The classifier orders categories by strength (a title prefix before a label or a file
    pattern), so "[Releases] [ROCm] fix the wheel build" is a release whatever else it touches.
    The groups themselves are listed in the fixed order of ECOSYSTEM_GROUPS.
    """
    for category in tags.categories:
        group = _GROUP_OF_CATEGORY.get(_fold(category.name))
        if group is not None:
            return group
    return "other"


def _is_bugfix(tags: Tags) -> bool:
    return any(_GROUP_OF_CATEGORY.get(_fold(c.name)) == "bugfix" for c in tags.categories)


def _ecosystems(t: _Tally, inp: WindowInput, policy: ReportPolicy) -> list[EcosystemSection]:
    sections = []
    items = _window_items(t)
    for spec in policy.ecosystems:
        aff, eco = _fold(spec.affiliation), _fold(spec.ecosystem)
        issues: list[ItemRef] = []
        groups: dict[str, list[ItemRef]] = defaultdict(list)
        contributors: set[str] = set()
        for number in sorted(items):
            row = items[number]
            tags = row.tags
            affiliated = bool(aff) and aff in {_fold(x.name) for x in tags.affiliations}
            tagged = bool(eco) and eco in {_fold(x.name) for x in tags.ecosystems}
            if not (affiliated or tagged):
                continue
            if affiliated:
                contributors.add(tags.person(row.fact.item.author.login))
            ref = _ref_for(number, inp, row.fact.item, tags)
            if row.fact.item.kind == "issue":
                issues.append(ref)
            else:
                groups[_group_of(tags)].append(ref)
        if not issues and not groups:
            continue
        sections.append(
            EcosystemSection(
                name=spec.name,
                affiliation=spec.affiliation,
                ecosystem=spec.ecosystem,
                issues=tuple(issues),
                pr_groups=tuple(
                    EcosystemGroup(category=g, items=tuple(groups[g]))
                    for g in ECOSYSTEM_GROUPS
                    if groups.get(g)
                ),
                contributors=tuple(sorted(contributors)),
            )
        )
    return sections


# ---------------------------------------------------------------- follow-ups and people


def _follow_ups(
    t: _Tally,
    inp: WindowInput,
    policy: ReportPolicy,
    story: _Story | None = None,
    incidents: Sequence[Incident] = (),
) -> list[FollowUp]:
    end = t.window.end
    limit = policy.follow_ups_per_kind
    touched = {row.fact.item.number for row in t.facts}
    rfcs, waiting, bugs, core = [], [], [], []
    for number, row in inp.items.items():
        snap, tags = row.snapshot, row.tags
        if not _open_at(snap, end) or _author_bot(snap, tags):
            continue
        labels = {_fold(x) for x in snap.labels}
        if snap.kind == "issue":
            rfc = any("rfc" in x for x in labels) or any(
                _fold(c.name) == "rfc" for c in tags.categories
            )
            if rfc or _fold(snap.title).startswith("[rfc]"):
                rfcs.append(
                    (
                        number not in touched,
                        -(snap.updated_at or snap.created_at).timestamp(),
                        number,
                        row,
                    )
                )
            buggy = any("bug" in x for x in labels) or _is_bugfix(tags)
            if buggy and snap.reactions >= policy.popular_bug_reactions:
                bugs.append((-snap.reactions, number, row))
        elif not snap.draft and snap.reviews == 0:
            age = (end - snap.created_at) / timedelta(days=1)
            if policy.awaiting_review_days < age <= policy.awaiting_review_max_days:
                waiting.append((-age, number, row, age))
    reverts = story.reverts if story is not None else set()
    for number, frow in t.merged_prs.items():
        snap, tags = frow.fact.item, frow.tags
        if number in reverts or _author_bot(snap, tags) or _untestable(snap, tags):
            continue  # a revert restores what was there: asking it for tests says nothing
        names = {r.name for r in tags.risks}
        core_paths = bool(names & set(policy.core_risks))
        flagged = names & set(policy.missing_test_risks) or (core_paths and not _has_tests(snap))
        if flagged:
            lines = (snap.additions or 0) + (snap.deletions or 0)
            # (without core paths, flagged is the set of missing-test risks)
            core.append(
                (
                    -lines,
                    number,
                    frow,
                    core_paths or any("core" in n for n in names & set(policy.missing_test_risks)),
                )
            )
    out: list[FollowUp] = []
    for *_, _number, row in sorted(rfcs, key=lambda x: x[:3])[:limit]:
        out.append(
            FollowUp(
                kind="open_rfc",
                item=item_ref(row.snapshot, row.tags),
                reason="RFC still open at the end of the window",
            )
        )
    for _, _number, row, age in sorted(waiting, key=lambda x: x[:2])[:limit]:
        out.append(
            FollowUp(
                kind="awaiting_review",
                item=item_ref(row.snapshot, row.tags),
                reason=f"open {age:.1f} days without a review",
                days=round(age, 1),
            )
        )
    for _, _number, row in sorted(bugs, key=lambda x: x[:2])[:limit]:
        out.append(
            FollowUp(
                kind="popular_bug",
                item=item_ref(row.snapshot, row.tags),
                reason=f"open bug with {row.snapshot.reactions} reactions",
            )
        )
    if core:
        # one concern, one line: the merged changes to core paths without tests — the same
        # items as that risk — else, when none touched core paths, code changes without tests
        on_core = [x for x in core if x[3]]
        ordered = sorted(on_core or core, key=lambda x: x[:2])
        _, number, frow, _on = ordered[0]
        out.append(
            FollowUp(
                kind="core_without_tests",
                item=_ref_for(number, inp, frow.fact.item, frow.tags),
                reason="merged changes to core paths without test files"
                if on_core
                else "merged code changes without test files",
                items=tuple(x[1] for x in ordered),
            )
        )
    out.extend(_incident_follow_ups(incidents, inp, story))
    # a stopgap the change itself calls temporary is a follow-up its own words promise (2026-W02:
    # #5746 "Close the Full Graph mode to temporarily avoid accuracy issue for …")
    stopgaps = sorted(
        n
        for n, frow in t.merged_prs.items()
        if n not in reverts
        and not _author_bot(frow.fact.item, frow.tags)
        # a change that lifts a stopgap leaves none, whatever its description says of the one it
        # ends (2026-W34's #14391 "Re-enable DeepSeek V4 test": the test had been "temporarily
        # skipped")
        and not lifts_stopgap(frow.fact.item.title or "")
        and (
            _STOPGAP.search(frow.fact.item.title or "")  # ("… temporarily skipped", 2026-W27)
            or (
                frow.tags.digest is not None
                and _STOPGAP.search(frow.tags.digest.what)
                # a change titled as a removal takes a stopgap out, it leaves none (real #5035
                # "Remove the process patches …": "Before we add the patches temporarily")
                and not REMOVAL_TITLE.search(frow.fact.item.title or "")
            )
        )
    )
    # what a change says is temporary or comes next, each in its own words (2026-W13: "This will
    # be discard after Eagle3 weight for MiniMax-M2.5 releases", "2nd PR for #5712", "Further
    # testing should be done"); not for a change whose follow-up above already asks the same (tests
    # loosened: "when they come back"; open problems; narrowed support)
    said_risk = {n for i in incidents if i.kind in SAID_RISK_KINDS for n in i.items}
    ranked: list[tuple[int, int, FollowUp]] = []
    for n in sorted(t.merged_prs):
        frow = t.merged_prs[n]
        digest = frow.tags.digest
        it = story.items.get(n) if story is not None else None
        if (
            digest is None
            or not digest.next_steps
            or n in reverts
            or (it is not None and role_of(it) == "revert")
            or _author_bot(frow.fact.item, frow.tags)
        ):
            continue
        said = " ".join(digest.next_steps[0].split())
        if n in said_risk or _UNTIL_THIS.search(said):
            continue  # (a workaround "until this lands" is over once it has: it merged)
        if _step_rank(said) == 0 and REMOVAL_TITLE.search(frow.fact.item.title or ""):
            continue  # a change that removes a stopgap tells of it, it does not leave one
        ranked.append(
            (
                _step_rank(said),
                n,
                FollowUp(
                    kind="next_step",
                    item=_ref_for(n, inp, frow.fact.item, frow.tags),
                    reason=digest.next_steps[0],
                ),
            )
        )
    steps = [f for *_, f in sorted(ranked, key=lambda r: r[:2])]
    stepped = {f.item.number for f in steps}
    # one line per change: a stopgap that loosened tests is asked "when they come back" there
    # (2026-W22 printed #9681 as temporary and as loosened); one a later change of the window
    # came back to (the same test or configuration files) asks nothing more
    stopgaps = [
        n
        for n in stopgaps
        if n not in stepped
        and n not in said_risk
        and not (story is not None and followed_by(n, t, story))
    ]
    if stopgaps:
        frow = t.merged_prs[stopgaps[0]]
        out.append(
            FollowUp(
                kind="temporary",
                item=_ref_for(stopgaps[0], inp, frow.fact.item, frow.tags),
                reason="the change calls itself temporary: lift it when the cause is fixed",
                items=tuple(stopgaps),
            )
        )
    # removals users see: the release notes owe them a line (2026-W29 retired seven features)
    removed = [n for i in incidents if i.kind == "removal" for n in i.items]
    if removed:
        frow = t.merged_prs.get(removed[0])
        first = _ref_for(removed[0], inp, frow.fact.item, frow.tags) if frow is not None else None
        if first is not None:
            out.append(
                FollowUp(
                    kind="removal",
                    item=first,
                    items=tuple(removed),
                    reason="removed what users see: say so in the release notes",
                )
            )
    # a setting removed or given a new default: users must hear of it (tell them, once)
    told = [
        n
        for i in incidents
        if i.kind == "interface" and i.roles and i.roles[0] in ("removed", "default", "type")
        for n in i.items
    ]
    told = list(dict.fromkeys(told))
    frow = t.merged_prs.get(told[0]) if told else None
    if frow is not None:
        out.append(
            FollowUp(
                kind="interface",
                item=_ref_for(told[0], inp, frow.fact.item, frow.tags),
                items=tuple(told),
                reason="a setting was removed or given a new default: tell users",
            )
        )
    # what the changes say of themselves: one follow-up per kind, with every item it covers
    for kind, reason in (
        ("loosened", "tests or checks were loosened: say why, and when they come back"),
        ("unfinished", "merged with problems its description says are open: check they are fixed"),
        ("narrowed", "support was narrowed: say so in the release notes"),
    ):
        # (a check loosened that a later change came back to is answered: "#9704 followed")
        said = [n for i in incidents if i.kind == kind and not i.followed_by for n in i.items]
        frow = t.merged_prs.get(said[0]) if said else None
        if frow is not None:
            out.append(
                FollowUp(
                    kind=kind,
                    item=_ref_for(said[0], inp, frow.fact.item, frow.tags),
                    items=tuple(said),
                    reason=reason,
                )
            )
    # (the steps last: the concerns above are the window's, each step one change's)
    out.extend(steps[:limit])
    seen: set[tuple[str, tuple[int, ...], str]] = set()
    unique = []
    for f in out:
        key = (f.kind, f.items or (f.item.number,), f.reason)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def _fixes_of(inc: Incident) -> str:
    """A burst's fixes, counted as its line counts them: "8 of its 9 fixes" (of_fixes, 0 in
    older summaries, else the burst's own) — never two counts of one line apart."""
    fixes = len(inc.items) - 1
    if inc.of_fixes > fixes:
        return f"{fixes} of its {inc.of_fixes} fixes"
    return f"{fixes} fixes"


def _incident_follow_ups(
    incidents: Sequence[Incident], inp: WindowInput, story: _Story | None
) -> list[FollowUp]:
    """One follow-up per instability and per upgrade; the reverted changes together, once."""
    out: list[FollowUp] = []

    def ref(number: int) -> ItemRef | None:
        row = inp.items.get(number) or inp.referenced.get(number)
        if row is not None:
            return item_ref(row.snapshot, row.tags)
        it = story.items.get(number) if story is not None else None
        if it is None:
            return None
        return ItemRef(
            number=number,
            kind=it.kind,
            title=it.title,
            url=f"https://github.com/{inp.repo}/pull/{number}",
            author="",
            merged=it.merged_at is not None,
            merged_at=it.merged_at,
        )

    in_chain = {n for i in incidents if i.kind == "instability" for n in i.items}
    undone = [
        i
        for i in incidents
        if i.kind == "revert"
        and len(i.items) > 1
        and i.items[1] not in in_chain
        and "relanded" not in i.roles
    ]
    # reverted on purpose, to come back ("the main branch is frozen … redo it once 0.13.0 is
    # released"): nothing broke, so nothing is to be found out (2025-W52)
    planned = [i.items[1] for i in undone if i.planned]
    reverted = [i.items[1] for i in undone if i.items[1] not in planned]
    for inc in incidents:
        first = ref(inc.items[0])
        if first is None:
            continue
        if inc.kind == "instability" and len(inc.items) >= 3 and inc.roles[-1:] != ("relanded",):
            # (a file fixed again and again was never added in the window: say what happened)
            done = (
                f"fixed {len(inc.items)} times within days; find the cause before fixing it again"
                if set(inc.roles) == {"fixed"}
                else "added, fixed and reverted within days; settle the design before building on it"
            )
            out.append(
                FollowUp(
                    kind="instability",
                    item=first,
                    items=inc.items,
                    reason=f"{inc.subject}: {done}",
                )
            )
        elif inc.kind == "fix_burst":
            out.append(
                FollowUp(
                    kind="fix_burst",
                    item=first,
                    items=inc.items[1:],
                    reason=f"stabilise {inc.subject}: {_fixes_of(inc)} followed "
                    f"#{inc.items[0]}; cover what they fixed with tests before building on it",
                )
            )
        elif inc.kind == "upgrade_fallout":
            out.append(
                FollowUp(
                    kind="upgrade_fallout",
                    item=first,
                    items=inc.items,
                    reason=f"{len(inc.items) - 1} fixes followed the upgrade; check "
                    "what else it broke",
                )
            )
    if reverted:
        first = ref(reverted[0])
        if first is not None:
            out.append(
                FollowUp(
                    kind="revert",
                    item=first,
                    items=tuple(reverted),
                    reason="reverted in the window: re-land with the fix, or drop",
                )
            )
    if planned:
        first = ref(planned[0])
        if first is not None:
            out.append(
                FollowUp(
                    kind="reland",
                    item=first,
                    items=tuple(planned),
                    reason="reverted for now, as planned: re-land when its revert says",
                )
            )
    return out


def _contributors(t: _Tally, first_timers: set[str]) -> list[Contributor]:
    stats: dict[str, Counter[str]] = defaultdict(Counter)
    bots: dict[str, bool] = {}
    for key, rows in (
        ("prs_opened", t.new_prs.values()),
        ("prs_merged", t.merged_prs.values()),
        ("issues_opened", t.new_issues.values()),
    ):
        for row in rows:
            author = row.fact.item.author
            who = row.tags.person(author.login)
            stats[who][key] += 1
            bots[who] = bots.get(who, False) or is_bot(author) or row.tags.bot
    for key, rows in (("comments", t.comments), ("reviews", t.reviews)):
        for row in rows:
            actor = fact_actor(row.fact)
            if actor is not None:
                who = row.tags.person(actor.login)
                stats[who][key] += 1
                bots[who] = bots.get(who, False) or is_bot(actor)
    out = [
        Contributor(
            login=login, first_time=login in first_timers, bot=bots.get(login, False), **counts
        )
        for login, counts in stats.items()
    ]
    out.sort(
        key=lambda c: (
            -(c.prs_merged + c.prs_opened + c.issues_opened + c.comments + c.reviews),
            c.login,
        )
    )
    return out


def _activity(t: _Tally) -> list[DailyActivity]:
    zone = ZoneInfo(t.window.tz)
    days: dict[date, Counter[str]] = {d: Counter() for d in t.window.local_days()}

    def bump(rows: Iterable[FactRow], key: str) -> None:
        for row in rows:
            days[row.time.astimezone(zone).date()][key] += 1

    bump(t.new_prs.values(), "prs_opened")
    bump(t.merged_prs.values(), "prs_merged")
    bump(t.closed_unmerged.values(), "prs_closed_unmerged")
    bump(t.new_issues.values(), "issues_opened")
    bump(t.closed_issues.values(), "issues_closed")
    bump(t.comments, "comments")
    return [DailyActivity(day=d, **c) for d, c in sorted(days.items())]


def _hourly(t: _Tally) -> list[HourlyActivity]:
    """Per hour of a day window (23 or 25 of them on DST days); nothing for longer windows."""
    if t.window.kind != "day":
        return []
    hour = timedelta(hours=1)
    starts = []
    at = t.window.start
    while at < t.window.end:
        starts.append(at)
        at += hour
    slots: dict[datetime, Counter[str]] = {s: Counter() for s in starts}

    def bump(rows: Iterable[FactRow], key: str) -> None:
        for row in rows:
            slot = starts[min(len(starts) - 1, int((row.time - t.window.start) / hour))]
            slots[slot][key] += 1

    bump(t.new_prs.values(), "prs_opened")
    bump(t.merged_prs.values(), "prs_merged")
    bump(t.new_issues.values(), "issues_opened")
    bump(t.comments, "comments")
    return [HourlyActivity(start=s, **slots[s]) for s in starts]


def provided(meta: RequestMeta) -> frozenset[str]:
    """What the report's source can tell (everything when it does not say)."""
    return frozenset(meta.source.provides if meta.source is not None else ALL_PROVIDED)


def _available(counts: Counts, can: frozenset[str]) -> Counts:
    """The counts with what the source cannot tell set to None (never reported as 0)."""
    gone: dict[str, None] = {}
    if "issues" not in can:
        gone.update(new_issues=None, closed_issues=None)
    if "opened_prs" not in can:
        gone["new_prs"] = None
    if "closed_prs" not in can:
        gone["closed_unmerged_prs"] = None
    if "comments" not in can:
        gone["comments"] = None
    if "reviews" not in can:
        gone.update(reviews=None, reviewers=None)
    return counts.model_copy(update=gone) if gone else counts


def _coverage(window: Window, source: SourceInfo | None) -> str:
    if source is None:
        return "full"
    if source.coverage_start is not None and window.start < source.coverage_start:
        return "partial"
    if source.coverage_end is not None and window.end > source.coverage_end:
        return "partial"
    return "full"


def covered_span(window: Window, source: SourceInfo | None) -> CoveredSpan | None:
    """The part of the window the source covers, clipped to the window, when it is not all of it
    (None: all of it, or the source gives no bounds)."""
    if source is None or _coverage(window, source) == "full":
        return None
    start = max(window.start, source.coverage_start or window.start)
    end = min(window.end, source.coverage_end or window.end)
    length = (window.end - window.start).total_seconds()
    if end < start:  # the source covers none of it
        end = start
    share = (end - start).total_seconds() / length if length > 0 else 0.0
    return CoveredSpan(start=start, end=end, share=round(min(1.0, max(0.0, share)), 4))


def _median_hours(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def _hours_to_merge(t: _Tally) -> float | None:
    return _median_hours(
        [
            (r.fact.item.merged_at - r.fact.item.created_at) / timedelta(hours=1)
            for r in t.merged_prs.values()
            if r.fact.item.merged_at is not None
        ]
    )


def _hours_to_first_response(t: _Tally) -> float | None:
    """Items opened in the window: time to the first comment or review by someone else, in the window."""
    opened = {**t.new_prs, **t.new_issues}
    first: dict[int, datetime] = {}
    for row in sorted((*t.comments, *t.reviews), key=lambda r: (r.time, r.fact_id)):
        number = row.fact.item.number
        actor = fact_actor(row.fact)
        if number not in opened or number in first or actor is None or is_bot(actor):
            continue
        if row.tags.person(actor.login) == opened[number].tags.person(
            opened[number].fact.item.author.login
        ):
            continue
        first[number] = row.time
    return _median_hours(
        [(first[n] - opened[n].fact.item.created_at) / timedelta(hours=1) for n in first]
    )


def _appendix(t: _Tally, inp: WindowInput, story: _Story | None = None) -> Appendix:
    # storyline members carry their digest: the report tells what each does (fit_size drops it
    # first when the summary grows too big for a message)
    told = set(story.storyline_of) if story is not None else set()

    def refs(rows: Mapping[int, FactRow]) -> tuple[ItemRef, ...]:
        # (and so do changes whose description names a grave problem: a day's "worth attention")
        return tuple(
            _ref_for(
                n,
                inp,
                rows[n].fact.item,
                rows[n].tags,
                digest=n in told or bool((d := rows[n].tags.digest) and (d.symptom or d.error)),
            )
            for n in sorted(rows)
        )

    return Appendix(
        new_issues=refs(t.new_issues),
        closed_issues=refs(t.closed_issues),
        new_prs=refs(t.new_prs),
        merged_prs=refs(t.merged_prs),
        closed_unmerged_prs=refs(t.closed_unmerged),
    )


# ---------------------------------------------------------------- the report


def warm_items(merged: Iterable[tuple[ItemSnapshot, Tags]], policy: ReportPolicy) -> int:
    """Work out, as merged pull requests fold, what a report will ask of each (memo.py): its
    story item and role, lines by kind, score, report line, whether tests could be asked of
    it, the news it is, its title's terms. A window's report at its close then only aggregates.
    Returns how many were worked out."""
    n = 0
    for snap, tags in merged:
        if snap.kind != "pull_request" or snap.merged_at is None:
            continue
        _ = story_item(snap, tags).role
        score_pr(snap, tags, policy)
        item_ref(snap, tags)
        item_ref(snap, tags, digest=True)  # (a storyline's member, in the appendix)
        _untestable(snap, tags)
        news_of(snap, policy.news_words)
        warm_title(snap.title)  # (its title's terms, cached by title: the title history's too)
        n += 1
    return n


def build_summary(
    inp: WindowInput,
    *,
    now: datetime,
    revision: int = 1,
    policy: ReportPolicy = ReportPolicy(),
    meta: RequestMeta = RequestMeta(),
    changed_figures: Sequence[ChangedFigure] = (),
) -> SummaryData:
    """The whole report model of one window (one revision)."""
    return _build_summary(
        inp,
        now=now,
        revision=revision,
        policy=policy,
        meta=meta,
        changed_figures=changed_figures,
    )


def _build_summary(
    inp: WindowInput,
    *,
    now: datetime,
    revision: int,
    policy: ReportPolicy,
    meta: RequestMeta,
    changed_figures: Sequence[ChangedFigure],
) -> SummaryData:
    t = _tally(inp.window, inp.facts)
    prev = _tally(inp.previous, inp.previous_facts)
    story = _story(t, prev, inp, policy)
    incidents = _incidents(t, story, inp, policy)
    news = _news(t, policy)
    # support dropped is told once, as project news, not again as support narrowed
    dropped = {n for x in news if x.kind == "support_dropped" for n in x.items}
    incidents = [i for i in incidents if not (i.kind == "narrowed" and set(i.items) <= dropped)]
    # a change its own line of work reverted in the window is a risk, not a key PR
    for inc in incidents:
        if inc.kind == "instability" and "reverted" in inc.roles:
            story.reverted.update(n for n, role in zip(inc.items, inc.roles) if role == "added")
    key_prs = _key_prs(t, inp, policy, story)
    scores = {}
    for number, row in t.merged_prs.items():
        scores[number] = (
            story.scores[number]
            if number in story.scores
            else score_pr(row.fact.item, row.tags, policy, storyline_lead=number in story.leads)[0]
        )
    first_timers = _first_timers(t, inp, policy)
    sample = [r.fact_id for r in t.facts[: policy.fact_sample]]
    can = provided(meta)
    covered = covered_span(inp.window, meta.source)
    previous_covered = covered_span(inp.previous, meta.source)
    # a module's trend compares like spans: each window's total per covered share (a week covered
    # for 6 of its 7 days is not 'down' for the day it lacks)
    share = (
        (covered.share if covered else 1.0),
        (previous_covered.share if previous_covered else 1.0),
    )
    return SummaryData(
        repo=inp.repo,
        window=WindowRef.of(inp.window),
        revision=revision,
        generated_at=now,
        ruleset_versions=tuple(sorted({r.ruleset for r in t.facts if r.ruleset})),
        languages=meta.languages,
        formats=meta.formats,
        synthetic=meta.synthetic,
        data_note=meta.data_note,
        source=meta.source,
        coverage=_coverage(inp.window, meta.source),
        covered=covered,
        previous_covered=previous_covered,
        appendix_mode=meta.appendix,
        watermark=inp.watermark,
        counts=_available(_counts(t, inp, policy, key_prs=len(key_prs)), can),
        previous_counts=_available(_counts(prev, inp, policy), can),
        modules=tuple(_modules(t, prev, scores, policy, share=share)),
        key_prs=tuple(key_prs),
        themes=tuple(_themes(key_prs, t, scores, policy)),
        storylines=tuple(story.storylines),
        incidents=tuple(incidents),
        news=news,
        discussions=tuple(_discussions(t, inp, policy)),
        risks=tuple(
            _risks(
                t,
                story,
                policy,
                loosened={n for i in incidents if i.kind == "loosened" for n in i.items},
            )
        ),
        ecosystems=tuple(_ecosystems(t, inp, policy)),
        follow_ups=tuple(_follow_ups(t, inp, policy, story, incidents)),
        contributors=tuple(_contributors(t, first_timers)),
        activity=tuple(_activity(t)),
        hourly=tuple(_hourly(t)),
        median_hours_to_merge=_hours_to_merge(t) if "open_times" in can else None,
        median_hours_to_first_response=(
            _hours_to_first_response(t)
            if {"comments", "reviews"} & can and "opened_prs" in can
            else None
        ),
        appendix=_appendix(t, inp, story),
        referenced=_referenced(incidents, t, prev, inp),
        cross_refs=_cross_refs(t, inp),
        changed_figures=tuple(changed_figures),
        fact_ids_sample=tuple(sample),
        facts_counted=len(t.facts),
        request_id=meta.request_id,
    )


def _news(t: _Tally, policy: ReportPolicy) -> tuple[ProjectNews, ...]:
    """The window's project news (services/summarizer/domain/news.py), in merge order."""
    rows = sorted(
        t.merged_prs.values(), key=lambda r: (r.fact.item.merged_at or r.time, r.fact.item.number)
    )
    return project_news((r.fact.item for r in rows), policy.news_words)


def _cross_refs(t: _Tally, inp: WindowInput) -> tuple[CrossRef, ...]:
    """The window's items whose description (latest digest) refers into another repository."""
    rows = {**t.new_issues, **t.closed_issues, **t.new_prs, **t.closed_prs, **t.merged_prs}
    out = []
    for n in sorted(rows):
        known = inp.items.get(n)
        digest = (known.tags if known is not None else rows[n].tags).digest
        for ref in digest.refs if digest is not None else ():
            if ref.repo and ref.number is not None and ref.repo.lower() != inp.repo.lower():
                with contextlib.suppress(ValueError):  # a reference that is no repository name
                    out.append(
                        CrossRef(number=n, repo=ref.repo, ref_number=int(ref.number), kind=ref.kind)
                    )
    return tuple(dict.fromkeys(out))


def _referenced(
    incidents: Sequence[Incident], t: _Tally, prev: _Tally, inp: WindowInput
) -> tuple[ItemRef, ...]:
    """The items incidents name that the window's lists do not hold (earlier changes), with
    their titles and links, so that a report never shows a bare number for them."""
    listed = (
        set(t.merged_prs)
        | set(t.new_prs)
        | set(t.closed_prs)
        | set(t.new_issues)
        | set(t.closed_issues)
    )
    wanted = sorted({n for inc in incidents for n in inc.items} - listed)
    earlier = {
        n: r for rows in (prev.merged_prs, prev.new_prs, prev.closed_prs) for n, r in rows.items()
    }
    out = []
    for n in wanted:
        row = inp.items.get(n) or inp.referenced.get(n) or inp.later.get(n)
        if row is not None:
            out.append(item_ref(row.snapshot, row.tags))
        elif n in earlier:
            out.append(item_ref(earlier[n].fact.item, earlier[n].tags))
    return tuple(out)


# ---------------------------------------------------------------- size


# appendix lists give way first (least read first); every count stays exact
APPENDIX_TRIM_ORDER = (
    "new_prs",
    "closed_unmerged_prs",
    "closed_issues",
    "new_issues",
    "merged_prs",
)
_BARE = {
    "labels": (),
    "modules": (),
    "risks": (),
    "categories": (),
    "affiliations": (),
    "ecosystems": (),
    "body_excerpt": "",
    "digest": None,
}


def fit_size(summary: SummaryData, max_bytes: int) -> SummaryData:
    """Keep the summary's JSON under `max_bytes` (a NATS message has a size limit).

    First the appendix lines lose their tags (the sections above carry them); then the appendix
    lists lose their last items, recorded in `appendix.omitted`. Counts, sections and key PRs are
    never touched.
    """
    size = len(summary.model_dump_json())
    if size <= max_bytes:
        return summary
    appendix = summary.appendix
    bare = {
        name: tuple(ref.model_copy(update=_BARE) for ref in getattr(appendix, name))
        for name in APPENDIX_TRIM_ORDER
    }
    appendix = appendix.model_copy(update=bare)
    summary = summary.model_copy(update={"appendix": appendix})
    size = len(summary.model_dump_json())
    omitted: dict[str, int] = {}
    for name in APPENDIX_TRIM_ORDER:
        if size <= max_bytes:
            break
        refs = getattr(appendix, name)
        if not refs:
            continue
        per_ref = len(appendix.model_dump_json(include={name})) / len(refs)
        drop = min(len(refs), math.ceil((size - max_bytes) / per_ref) + 1)
        omitted[name] = drop
        appendix = appendix.model_copy(
            update={name: refs[: len(refs) - drop], "omitted": dict(omitted)}
        )
        summary = summary.model_copy(update={"appendix": appendix})
        size = len(summary.model_dump_json())
    return summary


# ---------------------------------------------------------------- revisions


def figures(summary: SummaryData) -> dict[str, float | int | None]:
    """The figures a revision is judged by: counts, module totals, risk counts, medians, key PRs."""
    out: dict[str, float | int | None] = {}
    for name, value in summary.counts.model_dump(exclude={"lines_by_kind"}).items():
        out[f"counts.{name}"] = value
    for line in summary.counts.lines_by_kind:
        out[f"counts.lines.{line.kind}.added"] = line.added
        out[f"counts.lines.{line.kind}.removed"] = line.removed
    for m in summary.modules:
        out[f"modules.{m.module}.total"] = m.total
        out[f"modules.{m.module}.merged"] = m.merged
    for r in summary.risks:
        out[f"risks.{r.risk}.count"] = r.count
    out["median_hours_to_merge"] = summary.median_hours_to_merge
    out["median_hours_to_first_response"] = summary.median_hours_to_first_response
    out["facts_counted"] = summary.facts_counted
    # which PRs are key is content, not a number: compared for the revision, never listed
    out["_key_pr_selection"] = hash_text(",".join(str(k.item.number) for k in summary.key_prs))
    return out


def hash_text(text: str) -> int:
    # a stable small integer, so that a changed key-PR selection shows as a changed figure
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def figures_hash(values: Mapping[str, float | int | None]) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()


def changed(
    before: Mapping[str, float | int | None], after: Mapping[str, float | int | None]
) -> tuple[ChangedFigure, ...]:
    """Figures that differ between two revisions (absent on one side counts as None)."""
    names = sorted(set(before) | set(after))
    return tuple(
        ChangedFigure(name=n, before=before.get(n), after=after.get(n))
        for n in names
        if before.get(n) != after.get(n)
    )


def next_revision(
    current: int,
    before: Mapping[str, float | int | None] | None,
    after: Mapping[str, float | int | None],
) -> tuple[int, tuple[ChangedFigure, ...]]:
    """Revision 1 first; n+1 (with what changed) when figures differ; n again when they don't.

    Names starting with `_` (the key-PR selection) count for the revision but are not listed.
    """
    if current < 1 or before is None:
        return 1, ()
    diff = changed(before, after)
    if not diff:
        return current, ()
    return current + 1, tuple(c for c in diff if not c.name.startswith("_"))
