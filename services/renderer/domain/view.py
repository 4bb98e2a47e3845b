"""The report view: every section of SEEDS.md as text and links, written from the summary's figures.

`build_view(summary, messages)` is pure and deterministic: the same summary and catalog give the
same view, and every number in it comes from the summary (templates only lay it out). This is the
seam where a narrator (e.g. a language model rewriting prose) could replace `Prose` fields while
keeping the figures, tables and links.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from shared.events import (
    ALL_PROVIDED,
    Claim,
    Contributor,
    Discussion,
    EcosystemSection,
    FollowUp,
    Incident,
    ItemRef,
    KeyPR,
    ModuleTrend,
    RiskObservation,
    Storyline,
    SummaryData,
    Theme,
)
from shared.events.summary import (  # reports across repositories
    ProjectNews,
    number_label,
    split_number,
)
from shared.wording import MEMORY_LEAK_PATTERN

from .bounds import bounded
from .i18n import Messages
from .text import (
    _SENTENCE_END,
    day,
    days_text,
    excerpt,
    fit_sentence,
    num,
    one_decimal,
    short_refs,
    short_version,
    signed,
    stamp,
    utc_offset,
    window_span,
    without_lead_in,
    word_cut,
)

# the seeds' shape (issue #15 part 6): a weekly main body reads in about the seed's length, so
# every list in it is capped ("… and N more") and the long lists live in the appendix
MAX_HIGHLIGHTS = 7
MAX_STANDOUT_CHANGES = 3  # key changes told as highlights when no line of work is named
# why a key change of no line of work is a highlight on its own: news to a reader of the week
STANDOUT_REASONS = frozenset(
    {"feature", "new_model", "new_hardware", "user_facing", "measured_claim"}
)
MAX_THEME_PRS = 2  # seed 000: 2-4 PRs a theme; each told with its whole sentence
MAX_THEMES = 6  # seed 000: six themes; the others are named in one line
MAX_MORE_DETAILED = 3  # themes that one line names with their PRs by kind (the others: a count)
MAX_HIGHLIGHT_PRS = 2  # PRs named in a highlight bullet, titles whole (seed 000: 2-4)
MAX_MODULE_ROWS = 8
MAX_KEY_PRS = 10
MAX_DISCUSSIONS = 5
MAX_CONTRIBUTORS = 5
MAX_BOTS_NAMED = 3
MAX_RISK_LINKS = 2  # detailed risks: lines with titles per risk, as the seed names 1-2 (low: links)
MAX_RISK_LINKS_SHORT = 3
# settings users will notice (incidents of kind "interface", by role); how many the top of the
# report names, and how many changes section 4 tells
INTERFACE_KINDS = ("added", "removed", "renamed", "default", "type")
MAX_INTERFACE_SHORT = 6
MAX_INTERFACE_DETAILED = 6
MAX_STEP_QUOTE = 160  # a change's announced next step, quoted whole or as its main clause
MAX_LINE_AREAS = 2  # the areas a line's one-sentence facts name
MAX_RISKS_DETAILED = 5  # seed 000: 4-5 risks; more are named in one closing line
MAX_FOLLOW_UPS = 8  # seed 000 has 6; a change's own announced next steps may add two
MAX_FOLLOW_UP_LINKS = 5  # items named (as references) by one grouped follow-up
MAX_ECOSYSTEM_LINES = 3  # per group (and issues)
MAX_ECOSYSTEM_LINKS = 6  # weekly: a group is one line of links
MAX_ROW_MODULES = 3  # modules named in a key-PR row
MAX_TOPICS = 4  # hot topics and trends (daily)
MAX_TOPIC_LINKS = 5
MAX_ATTENTION = 5  # issues worth attention (daily)
# one file fixed again and again: its span told in hours up to two days, else in days
REFIXED_HOURS = 48
FIXUP_HOURS = 72  # fixes within this many hours of a change are told as its fix-up chain
MAX_CHANGED = 8
EXCERPT_DISCUSSION = 280
# changes that are no code of the project: a line made only of them is no main line of the work
SUPPORT_ROLES = frozenset({"docs", "ci", "test"})
CI_KINDS = frozenset({"ci", "platform-ci"})
DOC_TEST_KINDS = frozenset({"docs", "test", "tests"})


@dataclass(frozen=True)
class Link:
    number: int
    url: str
    title: str
    kind: str  # "pr" | "issue"
    author: str = ""
    # a report across repositories: "name#N" (the item's repository and own number)
    shown: str = ""

    @property
    def label(self) -> str:
        return self.shown or f"#{self.number}"


@dataclass(frozen=True)
class Line:
    """A PR or issue with one line about it (and, where useful, an excerpt of its description)."""

    link: Link
    text: str
    excerpt: str = ""
    # what the description says beside it: role, user-facing change, tests (short notes) and
    # performance/accuracy claims quoted as written
    notes: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Bullet:
    text: str
    head: str = ""
    detail: str = ""
    links: tuple[Link, ...] = ()
    lines: tuple[Line, ...] = ()
    # what the bullet is about (theme module, risk tag, item number): where a narrator's text goes
    key: str = ""
    # a sentence with its references in place (incidents): plain strings and Links, in order
    parts: tuple = ()
    # "… and N more" after capped links/lines (the seeds' shape)
    more: str = ""


@dataclass(frozen=True)
class Figure:
    label: str
    value: str


@dataclass(frozen=True)
class ThemeView:
    title: str
    text: str
    lines: tuple[Line, ...]
    key: str = ""  # the theme's module (or storyline key)
    more: tuple[Link, ...] = ()  # the storyline's other PRs, as links
    # the same PRs by kind, for the text: ("Also 8 fixes", links), ("2 features", links)
    more_groups: tuple[tuple[str, tuple[Link, ...]], ...] = ()


@dataclass(frozen=True)
class ModuleRow:
    name: str
    merged: str
    opened: str
    issues: str
    total: str
    previous: str
    delta: str
    trend: str
    trend_kind: str
    links: tuple[Link, ...]


@dataclass(frozen=True)
class KeyPRRow:
    link: Link
    author: str
    modules: str
    score: str
    signals: str
    size: str
    what: str = ""  # what it does and why (its description's digest)
    why: str = ""  # why it was picked, in words (from the summary's reasons)
    quotes: tuple[str, ...] = ()  # its claims, quoted
    storyline: str = ""


@dataclass(frozen=True)
class DiscussionView:
    link: Link
    kind: str
    text: str
    status: str
    excerpt: str = ""


@dataclass(frozen=True)
class EcosystemGroupView:
    title: str
    lines: tuple[Line, ...]
    more: str = ""  # "… and N more" after capped lines
    links: tuple[Link, ...] = ()  # weekly: the group as one line of links (instead of lines)


@dataclass(frozen=True)
class EcosystemView:
    title: str
    text: str
    issues: tuple[Line, ...]
    groups: tuple[EcosystemGroupView, ...]


@dataclass(frozen=True)
class ContributorRow:
    login: str
    prs_opened: str
    prs_merged: str
    issues_opened: str
    reviews: str
    comments: str
    note: str


@dataclass(frozen=True)
class AppendixList:
    title: str
    links: tuple[Link, ...]
    modules: tuple[str, ...] = ()  # per link: its modules, readable
    # "… and N more" when the summarizer trimmed the list to fit the message size
    more: str = ""


@dataclass(frozen=True)
class Section:
    id: str
    number: int | None
    title: str


@dataclass
class ReportView:
    lang: str
    title: str
    repo: str
    repo_url: str
    kind: str
    labels: dict[str, str]
    header: tuple[Figure, ...]
    counts: tuple[Figure, ...]
    notice: str | None
    changed: str | None
    lead: str
    highlights: tuple[Bullet, ...]
    risk_bullets: tuple[Bullet, ...]
    summary: tuple[str, ...]
    themes: tuple[ThemeView, ...]
    modules: tuple[ModuleRow, ...]
    modules_text: str
    key_prs: tuple[KeyPRRow, ...]
    discussions: tuple[DiscussionView, ...]
    ecosystems: tuple[EcosystemView, ...]
    activity: tuple[str, ...]
    contributors: tuple[ContributorRow, ...]
    risks: tuple[Bullet, ...]
    follow_ups: tuple[Bullet, ...]
    appendix: tuple[AppendixList, ...]
    sections: dict[str, Section] = field(default_factory=dict)
    # section id -> the "no data for this section in this window" note, for sections without data
    notes: dict[str, str] = field(default_factory=dict)
    downloads: tuple[Figure, ...] = ()
    # who wrote the prose, when a narrator is configured (see domain/narrator.py)
    prose: str | None = None
    # incidents (reverts, instability, upgrade fallout): one line each, before tag-based risks
    incidents: tuple[Bullet, ...] = ()
    # the same lines, short, for the risk bullets at the top (the reasons are told in section 4)
    incident_bullets: tuple[Bullet, ...] = ()
    # the window reaches beyond what the source covers: said at the top
    coverage: str | None = None
    # the footnote for "n/a" figures (counts the source cannot tell), when there are any
    na_note: str | None = None
    # table columns left out because no value in them is available from this source
    # ("modules.opened", "modules.issues", "contributors.reviews", ...)
    hidden: frozenset[str] = frozenset()
    # --- the seeds' shape (issue #15 part 6)
    # section ids in reading order for this window kind (SECTION_ORDERS)
    order: tuple[str, ...] = ()
    # section ids given as subsections at the appendix's start (APPENDIX_SECTIONS)
    appendix_sections: tuple[str, ...] = ()
    # full | compact | none (SummaryData.appendix_mode); appendix_line: the counts in one line
    appendix_mode: str = "compact"
    appendix_line: str = ""  # "none": the note that the lists are left out, with the counts
    appendix_summary: str = ""  # HTML's <summary> of the collapsed (compact) appendix
    # daily: hot topics and trends; issues worth attention
    topics: tuple[Bullet, ...] = ()
    attention: tuple[Bullet, ...] = ()
    # a day's risks its lead and summary name, explained after its problems worth attention
    attention_risks: tuple[Bullet, ...] = ()
    # "… and N more" after capped tables and lists
    modules_more: str = ""
    contributors_more: str = ""
    key_prs_more: str = ""
    risks_more: str = ""
    # under the top's risk list: where each is told in detail with what to do ("section 4")
    risks_pointer: str = ""
    # the same line with the PRs of its small groups linked in place (strings and Links)
    risks_more_parts: tuple = ()
    follow_ups_more: str = ""
    ecosystem_issues_more: tuple[str, ...] = ()  # per ecosystem
    themes_more: str = ""  # the themes beyond MAX_THEMES, named in one line
    # the daily window's activity chart is by hour (drawn with the activity section)
    hourly_chart: bool = False
    # a report across repositories: the five counts of each repository, then the total
    repo_counts: tuple[RepoCounts, ...] = ()
    # the footer: how the report is made, and its rule-set versions ("Rule sets: 31174541cc95.")
    footer: str = ""


@dataclass(frozen=True)
class RepoCounts:
    """One row of a report across repositories: a repository (or the total) and its five counts."""

    repo: str
    url: str
    values: tuple[str, ...]
    total: bool = False


def _person(name: str) -> str:
    """A login as GitHub writes it (@login); a name written out stays as written."""
    return name if " " in name or name.startswith("@") else f"@{name}"


def link(item: ItemRef) -> Link:
    shown = f"{item.repo.split('/', 1)[1]}#{split_number(item.number)[1]}" if item.repo else ""
    return Link(item.number, item.url, item.title, item.kind, item.author, shown)


def combined_repo_url(s: SummaryData) -> str:
    """The report's page on the forge: the repository's, or the owner's for one across repositories."""
    if s.repos:
        return f"https://github.com/{s.repo.split('/', 1)[0]}"
    return f"https://github.com/{s.repo}"


def shown_repo(s: SummaryData) -> str:
    """The repository as the report names it: "owner: a, b" for a report across repositories."""
    if not s.repos:
        return s.repo
    return f"{s.repo.split('/', 1)[0]}: " + ", ".join(p.repo.split("/", 1)[1] for p in s.repos)


def repo_counts(w: _Writer) -> tuple[RepoCounts, ...]:
    """Each repository's five counts (as its own report has them), then the report's total."""
    s, m = w.s, w.m

    def values(c, prev) -> tuple[str, ...]:
        out = []
        for name in ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs"):
            value = w.na(getattr(c, name))
            # (a day against the day before is no trend — a Monday's "Merged 29 (+24)" after a
            # Sunday; a week or a month keeps its change)
            if (
                prev is not None
                and s.window.kind != "day"
                and getattr(c, name) is not None
                and getattr(prev, name) is not None
            ):
                value += m.t("counts.delta", delta=signed(getattr(c, name) - getattr(prev, name)))
            out.append(value)
        return tuple(out)

    if not s.repos:
        return ()
    rows = [
        RepoCounts(
            p.repo.split("/", 1)[1],
            f"https://github.com/{p.repo}",
            values(p.counts, p.previous_counts),
        )
        for p in s.repos
    ]
    rows.append(
        RepoCounts(m.t("counts.total"), "", values(s.counts, s.previous_counts), total=True)
    )
    return tuple(rows)


def _item_index(s: SummaryData) -> dict[int, ItemRef]:
    """Every item the summary mentions, by number (key PRs and lists carry the full ItemRef)."""
    index: dict[int, ItemRef] = {}
    lists = (
        s.appendix.merged_prs,
        s.appendix.new_prs,
        s.appendix.closed_unmerged_prs,
        s.appendix.new_issues,
        s.appendix.closed_issues,
    )
    for items in lists:
        for item in items:
            index.setdefault(item.number, item)
    for k in s.key_prs:
        index[k.item.number] = k.item
    for d in s.discussions:
        index.setdefault(d.item.number, d.item)
    for f in s.follow_ups:
        index.setdefault(f.item.number, f.item)
    for item in s.referenced:
        index.setdefault(item.number, item)
    for e in s.ecosystems:
        for item in e.issues:
            index.setdefault(item.number, item)
        for g in e.pr_groups:
            for item in g.items:
                index.setdefault(item.number, item)
    return index


# risks whose reason is a change's description's own sentence, not the classifier's evidence
_SAID_REASON_RISKS = frozenset({"tests-not-run"})

# key reasons that say a change's kind, and the kind (Role) they say
# (new model or hardware support says what a change is about, which a performance change of a
# new device may be too: 2026-W22's "[Performance][ops][310p] Support Qwen3.5-Dense ACLGraph")
_KIND_REASONS = {"feature": "feature", "performance": "perf"}


class _Writer:
    def __init__(self, s: SummaryData, m: Messages) -> None:
        self.s, self.m = s, m
        self._module_names: dict[str, str] = {}
        self._support_modules: frozenset[str] | None = None
        self.items = _item_index(s)
        # changes reverted in the window and not brought back: reverted -> its revert
        self.undone = {
            inc.items[1]: inc.items[0]
            for inc in s.incidents
            if inc.kind == "revert" and len(inc.items) >= 2 and "relanded" not in inc.roles
        }
        self.reverts = frozenset(
            i.number for st in s.storylines for i in st.items if i.role == "revert"
        ) | frozenset(inc.items[0] for inc in s.incidents if inc.kind == "revert" and inc.items)
        self.repo_url = combined_repo_url(s)
        self.keys = frozenset(k.item.number for k in s.key_prs)
        self.said_whats: set[int] = set()  # changes a highlight told with their own sentence
        self.said_effects: set[int] = set()  # ... or with their user-facing sentence

    # ------------------------------------------------------------ helpers

    def ref(self, number: int) -> Link:
        item = self.items.get(number)
        if item is not None:
            return link(item)
        # a number the summary names without its item: still a working GitHub link
        place, own = split_number(number)
        if self.s.repos and place is not None and place < len(self.s.repos):
            repo = self.s.repos[place].repo
            return Link(
                number,
                f"https://github.com/{repo}/issues/{own}",
                "",
                "issue",
                shown=number_label(number, [p.repo for p in self.s.repos]),
            )
        return Link(number, f"{self.repo_url}/issues/{number}", "", "issue")

    def module(self, name: str) -> str:
        # asked for every module of every item in the appendix: each name is looked up once
        try:
            return self._module_names[name]
        except KeyError:
            shown = self._module_names[name] = self.m.name("module_names", name)
            return shown

    def size(self, item: ItemRef) -> str:
        return self.m.tn(
            "item.size",
            item.changed_files,
            added=num(item.additions),
            removed=num(item.deletions),
            files=num(item.changed_files),
        )

    def pr_line(self, item: ItemRef) -> Line:
        bits = [self.m.t("item.by", author=item.author)]
        if item.additions or item.deletions:
            bits.append(self.size(item))
        if item.merged:
            bits.append(self.m.t("item.merged"))
        elif item.state == "closed":
            bits.append(self.m.t("item.closed"))
        elif item.draft:
            bits.append(self.m.t("item.draft"))
        return Line(link(item), self.m.t("list.comma").join(bits))

    def period(self) -> str:
        return self.m.t(f"period.{self.s.window.kind}")

    # ------------------------------------------------------------ header

    def title(self) -> str:
        w = self.s.window
        start, end = window_span(w)
        key = f"title.{w.kind}"
        # an ISO week's label read as a week of its year where the language says it so
        # ("2026 年第 34 周周报", not "2026-W34 周报")
        iso = _ISO_WEEK.match(w.label)
        if iso and self.m.has(f"title.{w.kind}_numbered"):
            return self.m.t(
                f"title.{w.kind}_numbered",
                repo=shown_repo(self.s),
                label=w.label,
                year=iso.group(1),
                week=int(iso.group(2)),
                start=start,
                end=end,
            )
        return self.m.t(key, repo=shown_repo(self.s), label=w.label, start=start, end=end)

    def header(self) -> tuple[Figure, ...]:
        s, m = self.s, self.m
        start, end = window_span(s.window)
        offset = utc_offset(s.window.start, s.window.tz)
        if s.window.kind == "day":  # a day states its span, as seed 003 does (00:00 - 00:00)
            start, end = stamp(s.window.start, s.window.tz), stamp(s.window.end, s.window.tz)
            end_offset = utc_offset(s.window.end, s.window.tz)
            if end_offset != offset:  # the day the clocks change: each instant its own offset
                end += m.t("labels.lparen") + end_offset + m.t("labels.rparen")
        key = (
            "header.window_value_utc"
            if s.window.tz in ("UTC", "Etc/UTC")
            else "header.window_value"
        )
        if start == end:  # a whole local day: one date says it
            key = key.replace("window_value", "window_single")
        window = m.t(key, start=start, end=end, tz=s.window.tz, offset=offset)
        if s.window.cutoff:
            window += m.t("header.cutoff", cutoff=s.window.cutoff)
        rows = [
            Figure(m.t("header.repository"), shown_repo(s)),
            Figure(m.t("header.window"), window),
            Figure(
                m.t("header.sources"),
                m.t(
                    "header.sources_value",
                    merged=num(s.counts.merged_prs),
                    key=num(s.counts.key_prs or len(s.key_prs)),
                ),
            ),
            Figure(
                m.t("header.generated"),
                m.t(
                    "header.generated_value",
                    at=stamp(s.generated_at, s.window.tz),
                    offset=utc_offset(s.generated_at, s.window.tz),
                ),
            ),
        ]
        if s.revision > 1:  # a first revision is the report; a later one says what changed below
            rows.append(
                Figure(m.t("header.revision"), m.t("header.revision_value", revision=s.revision))
            )
        # (the rule sets are in the JSON model and the footer: no reader's question)
        if s.watermark is not None:
            rows.append(Figure(m.t("header.watermark"), stamp(s.watermark, s.window.tz)))
        return tuple(rows)

    def footer(self) -> str:
        """How the report is made, then the rule-set versions it was made with (they belong to
        the JSON model and here, not to the header: no reader asks for them first)."""
        m = self.m
        if not self.s.ruleset_versions:
            return m.t("labels.footer")
        versions = m.t("list.comma").join(short_version(v) for v in self.s.ruleset_versions)
        return m.t("labels.footer") + m.t("footer.sep") + m.t("footer.rulesets", versions=versions)

    def counts(self) -> tuple[Figure, ...]:
        """The header's five counts; those the source cannot tell in one cell at the end, "n/a"
        said once ("New issues, closed issues, new PRs and closed unmerged PRs **n/a**": four
        "n/a" cells cluttered 2026-W22's header). A report across repositories keeps the five
        cells: its table's columns are these figures."""
        c, prev, m = self.s.counts, self.s.previous_counts, self.m
        out = []
        unknown = []
        for name in ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs"):
            if getattr(c, name) is None and not self.s.repos:
                unknown.append(m.t(f"counts.{name}"))
                continue
            value = self.na(getattr(c, name))
            # (a day against the day before is no trend — a Monday's "Merged 29 (+24)" after a
            # Sunday; a week or a month keeps its change)
            if (
                prev is not None
                and self.s.window.kind != "day"
                and getattr(c, name) is not None
                and getattr(prev, name) is not None
            ):
                delta = getattr(c, name) - getattr(prev, name)
                partial = self.partial_comparison()
                value += (
                    m.t("counts.delta_partial", delta=signed(delta), partial=partial)
                    if partial
                    else m.t("counts.delta", delta=signed(delta))
                )
            out.append(Figure(m.t(f"counts.{name}"), value))
        if unknown:
            # (a label after the first is written in lower case where the language has cases:
            # "New issues, closed issues and new PRs", never "pRs")
            named = [unknown[0]] + [
                x[0].lower() + x[1:] if x[:1].isupper() and x[1:2].islower() else x
                for x in unknown[1:]
            ]
            out.append(Figure(m.join(named), m.t("na.short")))
        return tuple(out)

    def notice(self) -> str | None:
        s, m = self.s, self.m
        parts = []
        if s.synthetic:
            parts.append(m.t("notice.synthetic"))
        if s.data_note:
            note = _strip_paths(s.data_note)
            if m.lang != "en" and note.isascii():  # an English note, quoted as written
                note = (
                    m.t(
                        "notice.replayed",
                        source=m.t("quote.text", text=note[len("replayed from ") :]),
                    )
                    if note.startswith("replayed from ")
                    else m.t("quote.text", text=note)
                )
            if s.source is not None and note.strip()[-1:] not in ".。!！?？":
                note = note.strip() + m.t("lead.end")  # a sentence about the source follows
            parts.append(m.t("notice.note", note=note))
        source = self.source_note()
        if source:
            parts.append(source)
        return m.t("notice.joiner").join(parts) or None

    def figure_name(self, name: str) -> str:
        """A readable name for a figure of the summarizer's revision check (`counts.merged_prs`,
        `modules.moe.total`, `risks.core-change.count`, `median_hours_to_merge`, ...)."""
        m = self.m
        group, _, rest = name.partition(".")
        if group == "counts" and rest:
            return m.name("figure_names", rest)
        if group == "modules" and rest:
            module, _, measure = rest.rpartition(".")
            return m.t(
                f"changed.module_{measure}"
                if measure in ("total", "merged")
                else "changed.module_total",
                module=self.module(module or rest),
            )
        if group == "risks" and rest:
            return self.risk_name(rest.rpartition(".")[0] or rest)
        return m.name("figure_names", name)

    def changed(self) -> str | None:
        if not self.s.changed_figures:
            return None
        m = self.m
        parts = []
        for f in self.s.changed_figures[:MAX_CHANGED]:
            if f.name == "key_pr_numbers":
                # a digest of the selection, not a figure a person can read
                parts.append(m.t("changed.key_prs"))
                continue
            parts.append(
                m.t(
                    "changed.figure",
                    name=self.figure_name(f.name),
                    before="-" if f.before is None else num(f.before),
                    after="-" if f.after is None else num(f.after),
                )
            )
        more = len(self.s.changed_figures) - MAX_CHANGED
        text = m.t("list.comma").join(parts)
        if more > 0:
            text += m.tn("changed.more", more, count=num(more))
        return m.t("changed.text", revision=self.s.revision, figures=text)

    # ------------------------------------------------------------ prose

    def own_counts(self) -> bool:
        """A day whose appendix lists all its merged changes counts its modules by their own
        changes (first module); else by the module table (the appendix a sample of them)."""
        s = self.s
        return (
            s.window.kind == "day"
            and s.counts.merged_prs is not None
            and len(s.appendix.merged_prs) >= s.counts.merged_prs
        )

    def top_modules(self, n: int = 3) -> list[ModuleTrend]:
        """The busiest modules. A day counts each change once, under its first module — the
        count its hot topic prints beside the module (2026-07-10: the summary's "Kernels (10
        merged PRs)", every change touching kernels, against the topic's 4 of its own); a
        week or a month keeps the module table's count, every change touching the module."""
        mods = [t for t in self.s.modules if not t.fallback and t.total > 0]
        if self.own_counts():
            mods = [t for t in _own_trends(self.s, mods) if t.total > 0]
        return sorted(mods, key=lambda t: (-t.total, t.module))[:n]

    def lead(self) -> str:
        s, m, c = self.s, self.m, self.s.counts
        parts = [
            self.lead_activity()
            or m.tn(
                "lead.activity",
                c.merged_prs,
                repo=shown_repo(s),
                period=self.period(),
                merged=num(c.merged_prs),
                new_prs=num(c.new_prs),
                new_issues=num(c.new_issues),
                closed_issues=num(c.closed_issues),
            )
        ]
        tops = self.top_modules()
        if self.main_storylines():
            parts.append(self.storyline_lead())
        elif tops:
            parts.append(m.t("lead.focus", modules=m.join([self.module(t.module) for t in tops])))
        if news := self.news_line():
            parts.append(news)
        # (a day against the day before is no trend: 2026-07-09's "Kernels rose most: 8 items, 8
        # more" after a quiet day; a week or a month keeps it)
        rising = sorted(
            (
                t
                for t in s.modules
                if t.trend in ("up", "new")
                and t.delta > 0
                and not t.fallback
                and s.window.kind != "day"
            ),
            key=lambda t: (-t.delta, t.module),
        )
        if rising:
            t = rising[0]
            parts.append(
                m.tn(
                    "lead.rising",
                    t.delta,
                    module=self.module(t.module),
                    delta=num(t.delta),
                    total=num(t.total),
                )
                + self.partial_aside()
            )
        high = [r for r in self.lead_risks() if r.severity == "high"]
        if high:
            # a day's report has no risk section: the lead names the items (2026-06-24: "1
            # high-severity risk needs attention" and no PR said which)
            named = [
                self.risk_name(r.risk)
                + (
                    m.t(
                        "lead.risk_items",
                        items=m.t("list.ref_sep").join(
                            f"#{n}" for n in r.items[:MAX_RISK_LINKS_SHORT]
                        ),
                    )
                    if s.window.kind == "day" and r.items
                    else ""
                )
                for r in high[:3]
            ]
            parts.append(m.tn("lead.risks", len(high), count=num(len(high)), risks=m.join(named)))
        return m.t("lead.joiner").join(parts) + m.t("lead.end")

    def highlights(self) -> tuple[Bullet, ...]:
        """Lines of work by name, then standout changes that belong to none. A module's
        leftovers ("Other work in Kernels (6 merged PRs)") mix unrelated PRs: they never take a
        highlight (section 2 and the trend table tell them); their slots go to named lines first,
        then to the key changes of no line that are news on their own — a new feature, new model
        or hardware support, a user-facing change, a measured claim (2026-W13: #7392 "Add rfork
        support for fast model loading" was left out while "Other work in …" made the list)."""
        m = self.m
        if self.s.storylines:  # lines of work found from the data (issue #15)
            out = [self.storyline_highlight(st) for st in self.highlight_lines()]
            for k in self.standout_changes(MAX_HIGHLIGHTS - len(out), any_reason=not out):
                out.append(self.change_highlight(k, [b.head for b in out]))
            return tuple(out)
        out = []
        for theme in self.s.themes[:MAX_HIGHLIGHTS]:
            lines = tuple(Line(self.ref(n), self.ref(n).title) for n in theme.prs[:MAX_THEME_PRS])
            text = m.tn("highlights.theme", theme.merged, merged=num(theme.merged))
            out.append(Bullet(text, head=self.module(theme.module), lines=lines, key=theme.module))
        return tuple(out)

    def highlight_lines(self) -> list[Storyline]:
        """The lines of work the report tells by name: the highlights' (a module's leftovers are
        no line a reader can name) — each a theme of section 2, so a line the highlights name is
        one the reader finds told there (2025-W51: "PP" and "Keeping up with vllm" were
        highlights, and past section 2's six themes)."""
        shown = self.theme_storylines()
        return [st for st in shown if st.evidence != "module"][:MAX_HIGHLIGHTS]

    def theme_storylines(self) -> list[Storyline]:
        """The storylines section 2 shows as themes: MAX_THEMES of them, or one fewer beside the
        theme of the key PRs no told line holds (see `storyline_themes`); a day tells its
        first MAX_TOPICS as hot topics."""
        told = list(self.s.storylines[:MAX_STORY_THEMES])
        if self.s.window.kind == "day":
            return told[:MAX_TOPICS]
        return told[: MAX_THEMES - 1] if self.key_prs_outside(told) else told[:MAX_THEMES]

    def key_prs_outside(self, told: Sequence[Storyline]) -> list[KeyPR]:
        """The key PRs section 2 tells, those of no storyline in `told`."""
        keys = sorted(self.s.key_prs, key=lambda k: (-k.score, k.item.number))[
            : _cap(len(self.s.key_prs), MAX_KEY_PRS)
        ]
        inside = {i.number for st in told for i in st.items}
        return [k for k in keys if k.item.number not in inside]

    def standout_changes(self, room: int, any_reason: bool = False) -> list[KeyPR]:
        """Key changes in no named line that are news on their own (STANDOUT_REASONS), those
        whose what-sentence fits a highlight first (a highlight says what the change is: 2026-W13's
        #7392 "Support an new load format: RFORK" before a change told only by why it was picked),
        each group best first; with `any_reason` (no line to tell at all) the best key changes of
        no line."""
        if room <= 0:
            return []
        named = {i.number for st in self.highlight_lines() for i in st.items}
        keys = sorted(
            self.s.key_prs,
            key=lambda k: (not self.highlight_what(k.item), -k.score, k.item.number),
        )
        out = [
            k
            for k in keys
            if k.item.number not in named
            and k.item.number not in self.undone  # a highlight never sells what did not stay
            and k.item.number not in self.reverts
            and (any_reason or STANDOUT_REASONS & set(k.reasons))
        ]
        return out[: min(room, MAX_STANDOUT_CHANGES if any_reason else room)]

    def highlight_what(self, item: ItemRef) -> str:
        """A change's what-sentence as a highlight tells it; "" when it does not fit or only
        repeats the title (a description that repeats its title says nothing more)."""
        what = self.fitted_what(item, CLIP_HIGHLIGHT).rstrip("。.！!")
        return "" if _bare(what) == _bare(item.title) else what

    def change_highlight(self, k: KeyPR, taken: Sequence[str] = ()) -> Bullet:
        """One change as a highlight: its title (without [Tags]) as the head — in a report in
        another language than the title's, a head in that language from its facts, the title
        beside its link — its what-sentence (else why it was picked), and its link."""
        m, item = self.m, k.item
        # (a title's closing stop is no part of a head: "… training-inference consistency.")
        head = (_TITLE_TAGS.sub("", item.title).strip() or item.title).rstrip(" .。")
        title = ""
        if m.lang != "en" and not _CJK.search(head):
            # an English title in another language's report: the head is said in that language
            # from the change's facts (its kind, the area it is about: "MoE 方向的新功能"), the
            # title stays beside its link, quoted (2026-W30: "「Add Mega moe support for a3」"
            # named a highlight of Chinese prose)
            head = self.change_head(k, taken)
            title = m.t("quote.title", text=self.ref(item.number).title)
        what = self.highlight_what(item)
        if what:
            self.said_whats.add(item.number)
        # no what-sentence fits: what it means for users says it (2026-W22's #9572 was told by
        # "new feature; user-facing change; touches core paths"), else why it was picked
        effect = "" if what else self.user_effect(item, CLIP_HIGHLIGHT)
        if effect:
            self.said_effects.add(item.number)
        text = m.t("quote.what", text=what or effect) if what or effect else self.reasons_text(k)
        if title and not (what or effect):
            # why it was picked, without the kind the head already says ("MoE 方向的新功能：新功能；
            # 涉及核心路径", 2025-W52's #5329)
            sep = m.t("list.semicolon")
            said = [w for w in text.split(sep) if w and w not in head]
            text = sep.join(said) or text
        return Bullet(text, head=head, lines=(Line(link(item), title),), key=f"pr:{item.number}")

    def change_head(self, k: KeyPR, taken: Sequence[str] = ()) -> str:
        """A change named from its facts in the report's language: its kind of change (its role,
        else the first reason it was picked for that is a kind) and the area it is about, the
        first module of its own the catalog names that is no CI, docs or tests one ("MoE 方向的新
        功能"); two areas when one names a head already `taken`; its kind alone without an
        area."""
        m, item = self.m, k.item
        role: str | None = item.role if item.role != "other" else None
        role = role or next((_REASON_ROLES[r] for r in k.reasons if r in _REASON_ROLES), None)
        kind = m.name("role_names", role) if role else m.t("highlights.change_kind_any")
        support = self.support_modules()
        # (a module the catalog does not name would put its tag's words in the prose)
        areas = [
            self.module(n)
            for n in dict.fromkeys(item.modules)
            if n not in support and m.has(f"module_names.{n}")
        ]
        head = m.t("highlights.change_head_kind", kind=kind)
        for n in range(1, min(len(areas), 2) + 1):
            head = m.t("highlights.change_head", area=m.join(areas[:n]), kind=kind)
            if head not in taken:
                break
        return head

    def risk_name(self, risk: str) -> str:
        """A risk's display name; code changes without tests beside core changes without tests
        are the others (the profiles' rule for them is suppressed by the core one: 2026-W13's
        top said 42 untested, 17 in core paths, and section 4 "Code changes without tests: 25")."""
        if risk == "code-without-tests" and any(
            r.risk == "core-without-tests" for r in self.s.risks
        ):
            return self.m.name("risk_names", "code-without-tests-outside-core")
        return self.m.name("risk_names", risk)

    def risk_bullet(self, r: RiskObservation, detailed: bool) -> Bullet:
        m = self.m
        head = self.risk_name(r.risk)
        text = m.tn(
            "risks.bullet", r.count, count=num(r.count), severity=m.t(f"severity.{r.severity}")
        )
        detail = ""
        if self.m.has(f"risk_help.{r.risk}"):
            detail = m.t(f"risk_help.{r.risk}")
            if r.risk in _SAID_REASON_RISKS and r.reason.strip():
                # its reason is a description's own sentence, quoted in any language ("NPU
                # end-to-end validation has not been run locally", real #14046)
                said = fit_sentence(" ".join(r.reason.split()), CLIP_NOTE).rstrip("。.")
                detail = m.tn(
                    "risks.with_said", r.count, help=detail, said=m.t("quote.text", text=said)
                )
        elif r.reason and m.lang == "en":
            detail = r.reason
        elif r.reason:
            # classifier reasons are English evidence ("changed ci.yaml"): not printed in zh-CN
            detail = m.t("risks.generic_help")
        text += self.risk_where(r)
        total = max(r.count, len(r.items))
        cap = _cap(total, MAX_RISK_LINKS if detailed else MAX_RISK_LINKS_SHORT)
        links = tuple(self.ref(n) for n in r.items[:cap])
        if detailed:
            # section 4 is where a risk is expanded: its first PRs with their titles, every
            # other one linked after them (2026-W02 said "… and 26 more", and nothing in the
            # report said which 26 PRs changed core paths)
            lines = tuple(Line(lk, lk.title) for lk in links)
            rest = tuple(self.ref(n) for n in dict.fromkeys(r.items[cap:]))
            return Bullet(text, head=head, detail=detail, lines=lines, links=rest, key=r.risk)
        # the short bullet at the top names the risk and where; its advice is in section 4 (told
        # twice, the same sentence made the top as long as the details)
        return Bullet(text, head=head, links=links, key=r.risk)

    def core_tests_bullet(self, risks: Sequence[RiskObservation]) -> Bullet:
        """Core paths changed and changes without tests, in one bullet: how many changed core
        paths and where, how many came without tests and how many of those are core; the
        untested core changes named first."""
        m = self.m
        by = {r.risk: r for r in risks}
        gravest = min(risks, key=lambda r: _SEVERITY[r.severity])
        parts = []
        core = by.get("core-change")
        if core is not None:
            parts.append(
                m.tn("risks.core_changed", core.count, count=num(core.count))
                + self.risk_where(core)
            )
        core_untested = by.get("core-without-tests")
        untested = (core_untested.count if core_untested else 0) + (
            by["code-without-tests"].count if "code-without-tests" in by else 0
        )
        if untested:
            text = m.tn("risks.untested", untested, count=num(untested))
            if core_untested is not None and core_untested.count and "code-without-tests" in by:
                text += m.tn(
                    "risks.untested_core", core_untested.count, count=num(core_untested.count)
                )
            # first: the links before it are these (untested core changes, else untested code)
            parts.insert(0, text)
        # the gravest group's items, named: untested core changes first (a union of the three
        # groups' items is a count no sentence of the report says: 2026-W13's "55 items")
        named = next(by[key] for key in _CORE_TESTS_ORDER if key in by)
        numbers = list(dict.fromkeys(named.items))
        total = max(len(numbers), named.count)  # (its item list may be a sample)
        cap = _cap(len(numbers), MAX_RISK_LINKS_SHORT)
        return Bullet(
            m.t("risks.bullet_severity", severity=m.t(f"severity.{gravest.severity}")),
            head=m.name("risk_names", CORE_TESTS),
            links=tuple(self.ref(n) for n in numbers[:cap]),
            more=_more(m, total - min(cap, len(numbers)), INLINE_MORE),
            detail=m.t("list.semicolon").join(parts),
            key=CORE_TESTS,
        )

    def risk_where(self, r: RiskObservation) -> str:
        """Where a tag risk's items are, in words, as the seeds say it ("core paths (scheduler,
        attention backend, model runner) changed without tests"): the lines of work holding a
        fifth of them or more, else the modules a quarter or more touch; "" for one item or when
        nothing stands out."""
        if len(r.items) < 2:
            return ""
        in_story: dict[int, str] = {
            it.number: _short_name(st.name) for st in self.highlight_lines() for it in st.items
        }
        stories = Counter(in_story[n] for n in r.items if n in in_story)
        names = [
            name for name, c in stories.most_common(RISK_AREAS) if c >= 2 and c * 5 >= len(r.items)
        ]
        if names:
            return self.m.t("risks.where_lines", areas=self.m.join(names))
        modules = Counter(
            mod for n in r.items if (item := self.items.get(n)) is not None for mod in item.modules
        )
        top = [
            mod for mod, c in modules.most_common(RISK_AREAS) if c >= 2 and c * 4 >= len(r.items)
        ]
        return (
            self.m.t("risks.where", areas=self.m.join([self.module(mod) for mod in top]))
            if top
            else ""
        )

    def summary(self) -> tuple[str, ...]:
        s, m, c = self.s, self.m, self.s.counts
        paras = [
            self.summary_totals()
            or m.tn(
                "summary.totals",
                c.merged_prs,
                period=self.period(),
                merged=num(c.merged_prs),
                key=num(c.key_prs or len(s.key_prs)),
                new_prs=num(c.new_prs),
                closed_unmerged=num(c.closed_unmerged_prs),
                new_issues=num(c.new_issues),
                closed_issues=num(c.closed_issues),
            )
        ]
        if c.lines_added or c.lines_removed:
            net = c.lines_added - c.lines_removed
            key = "summary.lines_net_removed" if net < 0 else "summary.lines_net_added"
            biggest = self.biggest_change(net)
            paras[0] += m.t("list.sentence") + m.t(
                key,
                added=num(c.lines_added),
                removed=num(c.lines_removed),
                net=num(abs(net)),
                drivers=self.lines_drivers(biggest[0] if biggest is not None else None),
            )
            split = self.lines_split()
            if split:
                paras[0] = paras[0].rstrip("。.") + split
            if biggest is not None:
                item, lines = biggest
                # after the split, a sentence of its own (not one more kind of the list)
                key = "summary.lines_alone" if split else "summary.lines_mostly"
                paras[0] = (
                    paras[0] + m.t("summary.alone_sep") if split else paras[0].rstrip("。.")
                ) + m.t(
                    f"{key}_removed" if net < 0 else f"{key}_added",
                    number=link(item).label,
                    title=m.t("quote.title", text=_whole(item.title)),
                    lines=num(lines),
                )
        else:
            paras[0] += m.t("lead.end")
        tops = self.top_modules()
        if self.main_storylines():
            lines = [
                m.tn(
                    "summary.storyline" + _all_merged(st),
                    len(st.items),
                    name=st.name,
                    total=num(len(st.items)),
                    merged=num(st.merged),
                )
                for st in self.main_storylines()
            ]
            paras.append(
                m.tn("summary.mainlines", len(lines), count=num(len(lines)), lines=m.join(lines))
            )
        elif tops:
            lines = [
                m.tn(
                    "summary.module" + ("_merged" if t.merged == t.total else ""),
                    t.total,
                    module=self.module(t.module),
                    total=num(t.total),
                    merged=num(t.merged),
                )
                for t in tops
            ]
            # the busiest modules are where the work went, not lines of work (a day of docs and
            # CI fixes has no main line: 2026-07-09's "3 main lines: CI and build, …, docs")
            # (a day says how it counts them: its hot topics count the same)
            key = "summary.focus_own" if self.own_counts() else "summary.focus"
            paras.append(m.t(key, lines=m.join(lines)))
        if (news := self.news_line(detailed=True)) and news != self.news_line():
            # only where it says more than the lead above (the names of a governance change): a
            # sentence is printed once (2026-W30 told "项目动态：发布 v0.23.0rc1 版本说明（#12485）"
            # in the lead and again in section 1)
            paras.append(news + m.t("lead.end"))
        if s.previous_counts is not None and s.window.kind != "day":  # (as its stats: no trend)
            prev = s.previous_counts
            known = c.new_issues is not None and prev.new_issues is not None
            paras.append(
                m.t(
                    "summary.previous" if known else "summary.previous_merged",
                    merged=num(c.merged_prs),
                    prev_merged=num(prev.merged_prs),
                    delta=signed(c.merged_prs - prev.merged_prs)
                    + (
                        m.t("coverage.delta_note", partial=partial)
                        if (partial := self.partial_comparison())
                        else ""
                    ),
                    new_issues=self.na(c.new_issues),
                    prev_new_issues=self.na(prev.new_issues),
                )
            )
        if lead_risks := self.lead_risks():
            worst = sorted(lead_risks, key=lambda r: (_SEVERITY[r.severity], -r.count, r.risk))[:2]
            risks = m.join(
                [
                    m.tn("summary.risk", r.count, risk=self.risk_name(r.risk), count=num(r.count))
                    for r in worst
                ]
            )
            # a day has no risk section: its summary names the changes, as its lead does ("core
            # path changes (5 items)" pointed at nothing in 2026-07-10's report)
            named = list(dict.fromkeys(n for r in worst for n in r.items[:MAX_RISK_LINKS_SHORT]))
            if s.window.kind == "day" and named:
                items = m.t("list.ref_sep").join(f"#{n}" for n in named)
                paras.append(m.t("summary.risks_items", risks=risks, items=items))
            else:
                paras.append(m.t("summary.risks", risks=risks))
        return tuple(paras)

    def lines_split(self) -> str:
        """The window's lines by kind of file, code first ("; code +12,380 / -210, docs and
        translations +23,100 / -35,600"), when more than one kind has lines: a total alone hid
        2026-07-09's docs and translations, net -12.5k, behind code +12.4k ("a net reduction of
        73 lines"). "" for one kind or a summary made before the split."""
        m, kinds = self.m, self.s.counts.lines_by_kind
        if len(kinds) < 2:
            return ""
        # mostly lines of files the source did not list (events without file lists): the split
        # would tell the few it knows as if they were the window's
        unlisted = sum(k.added + k.removed for k in kinds if k.kind == "unlisted")
        if unlisted * 2 > sum(k.added + k.removed for k in kinds):
            return ""
        parts = [
            m.t(
                "summary.lines_kind",
                kind=m.name("line_kinds", k.kind),
                added=num(k.added),
                removed=num(k.removed),
            )
            for k in kinds
        ]
        return m.t("summary.lines_split", parts=m.t("list.semicolon").join(parts))

    def theme(self, theme: Theme) -> ThemeView:
        m = self.m
        text = m.tn(
            "themes.text",
            theme.merged,
            merged=num(theme.merged),
            key=num(len(theme.prs)),
            added=num(theme.lines_added),
            removed=num(theme.lines_removed),
        )
        trend = next((t for t in self.s.modules if t.module == theme.module), None)
        if trend is not None and trend.trend != "flat":
            text += m.t("list.sentence") + self.trend_sentence(trend)
        lines = []
        for n in theme.prs[:MAX_THEME_PRS]:
            item = self.items.get(n)
            if item is None:
                lines.append(Line(self.ref(n), ""))
                continue
            line = self.pr_line(item)
            what = self.fitted_what(item, EXCERPT_WHAT) or (
                "" if item.digest is not None else self.fitted_excerpt(item, EXCERPT_WHAT)
            )
            lines.append(
                Line(
                    line.link,
                    line.text,
                    m.t("quote.what", text=what) if what else "",
                    notes=self.digest_notes(item),
                    quotes=self.claims(item),
                )
            )
        return ThemeView(self.module(theme.module), text, tuple(lines), key=theme.module)

    def trend_sentence(self, t: ModuleTrend) -> str:
        return self.m.tn(
            f"trend_sentence.{t.trend}",
            t.previous_total if t.trend == "gone" else t.total,
            total=num(t.total),
            previous=num(t.previous_total),
            delta=num(abs(t.delta)),
        )

    def module_row(self, t: ModuleTrend) -> ModuleRow:
        m = self.m
        name = self.module(t.module) + (m.t("modules_table.fallback") if t.fallback else "")
        return ModuleRow(
            name,
            num(t.merged),
            num(t.opened),
            num(t.issues),
            num(t.total),
            num(t.previous_total),
            signed(t.delta),
            m.t(f"trend.{t.trend}"),
            t.trend,
            tuple(self.ref(n) for n in t.representative[:4]),
        )

    def modules_text(self) -> str:
        m = self.m
        ups = [t for t in self.s.modules if t.trend in ("up", "new")]
        downs = [t for t in self.s.modules if t.trend in ("down", "gone")]
        text = m.t(
            "modules_table.text",
            modules=num(len(self.s.modules)),
            up=num(len(ups)),
            down=num(len(downs)),
        )
        if aside := self.partial_aside():
            # "… compared with the previous window (this week is partly covered)."
            text = text.rstrip(".。") + aside + m.t("lead.end")
        return text

    def key_pr(self, k: KeyPR) -> KeyPRRow:
        m = self.m
        signals = sorted(k.signals, key=lambda g: (-g.points, g.name))[:3]
        sig = m.t("list.comma").join(
            m.t("key_prs.signal", name=m.name("signal_names", g.name), points=one_decimal(g.points))
            for g in signals
        )
        return KeyPRRow(
            link(k.item),
            k.item.author,
            m.t("list.sep").join(self.module(x) for x in k.item.modules),
            one_decimal(k.score),
            sig,
            self.size(k.item),
        )

    def discussion(self, d: Discussion) -> DiscussionView:
        m = self.m
        kind = m.t(f"kind.{d.item.kind}")
        people = d.participants[:4]
        # counted words ("1 comment from 1 participant"): units.* in the catalog
        text = m.t(
            "discussions.text",
            comments=m.tn("units.comment", d.comments_in_window, count=num(d.comments_in_window)),
            reviews=m.tn("units.review", d.reviews_in_window, count=num(d.reviews_in_window)),
            participants=m.tn(
                "units.participant", len(d.participants), count=num(len(d.participants))
            ),
            author=d.item.author,
        )
        if people:
            text += m.t("list.sentence") + m.t(
                "discussions.people", people=m.t("list.comma").join(people)
            )
        status = m.name("status_names", d.status)
        return DiscussionView(
            link(d.item), kind, text, status, excerpt(d.item.body_excerpt, EXCERPT_DISCUSSION)
        )

    def ecosystem(self, e: EcosystemSection) -> EcosystemView:
        m = self.m
        prs = sum(len(g.items) for g in e.pr_groups)
        merged = sum(1 for g in e.pr_groups for i in g.items if i.merged)
        text = m.t(
            "ecosystem.text",
            prs=num(prs),
            merged=num(merged),
            issues=num(len(e.issues)),
            contributors=num(len(e.contributors)),
        )
        # stable: among equally large groups the summarizer's order wins
        biggest = sorted(e.pr_groups, key=lambda g: -len(g.items))
        if biggest and len(biggest[0].items) > 1:
            text += m.t("list.sentence") + m.tn(
                "ecosystem.focus",
                len(biggest[0].items),
                category=m.name("category_names", biggest[0].category),
                count=num(len(biggest[0].items)),
            )
        if e.affiliation:
            text += m.t("list.sentence") + m.t("ecosystem.affiliation", affiliation=e.affiliation)
        groups = tuple(
            EcosystemGroupView(
                m.name("category_names", g.category)
                + m.t("ecosystem.group_count", count=num(len(g.items))),
                tuple(self.pr_line(i) for i in g.items),
            )
            for g in e.pr_groups
        )
        issues = tuple(Line(link(i), m.t("item.by", author=i.author)) for i in e.issues)
        return EcosystemView(m.t("ecosystem.title", name=e.name), text, issues, groups)

    def activity(self) -> tuple[str, ...]:
        s, m, c = self.s, self.m, self.s.counts
        paras = [self.activity_people()]
        medians = []
        if s.median_hours_to_merge is not None:
            medians.append(m.t("activity.median_merge", hours=one_decimal(s.median_hours_to_merge)))
        if s.median_hours_to_first_response is not None:
            medians.append(
                m.t("activity.median_response", hours=one_decimal(s.median_hours_to_first_response))
            )
        if medians:
            paras.append(m.t("activity.medians", medians=m.join(medians)))
        humans = [x for x in s.contributors if not x.bot]
        if humans:
            top = humans[0]
            if c.reviews is None:  # the source cannot tell reviews: say only what it can
                # a tie names everyone tied (up to three), not whoever sorts first
                tied = [x.login for x in humans if x.prs_merged == top.prs_merged][:3]
                paras.append(
                    m.tn(
                        "activity.top_merged",
                        top.prs_merged,
                        login=m.join(tied),
                        merged=num(top.prs_merged),
                    )
                    if len(tied) == 1
                    else m.tn(
                        "activity.top_merged_tied",
                        top.prs_merged,
                        logins=m.join(tied),
                        merged=num(top.prs_merged),
                    )
                )
            else:
                paras.append(
                    m.tn(
                        "activity.top",
                        top.prs_merged,
                        login=top.login,
                        merged=num(top.prs_merged),
                        reviews_n=m.tn("activity.reviews_n", top.reviews, reviews=num(top.reviews)),
                    )
                )
        bots = [x for x in s.contributors if x.bot]
        if bots:
            # named: "listed separately" promised a list no section held
            names = m.join([b.login for b in bots[:MAX_BOTS_NAMED]])
            paras.append(
                m.tn(
                    "activity.bots",
                    len(bots),
                    count=num(len(bots)),
                    logins=_etc(m, names) if len(bots) > MAX_BOTS_NAMED else names,
                )
            )
        return tuple(paras)

    def people(self) -> list[Contributor]:
        """The contributors who are people: the table's rows (bots have a sentence of their own,
        and "… and N more people" adds up to the people the activity sentence counts)."""
        return [x for x in self.s.contributors if not x.bot]

    def contributor_rows(self) -> tuple[ContributorRow, ...]:
        m = self.m
        rows = []
        people = self.people()
        for x in people[: _cap(len(people), MAX_CONTRIBUTORS)]:
            notes = []
            if x.first_time:
                notes.append(m.t("contributors.first_time"))
            if x.bot:
                notes.append(m.t("contributors.bot"))
            rows.append(
                ContributorRow(
                    x.login,
                    num(x.prs_opened),
                    num(x.prs_merged),
                    num(x.issues_opened),
                    num(x.reviews),
                    num(x.comments),
                    m.t("list.comma").join(notes),
                )
            )
        return tuple(rows)

    def follow_up(self, f: FollowUp) -> Bullet:
        m = self.m
        days = days_text(f.days) if f.days is not None else None
        kind = f.kind
        if kind == "revert":
            # every revert says why (a failed build, tests it broke): the cause is known, the
            # work left is to fix it and land the change again (2026-W27: #11366, #11415)
            why = {
                i.items[1]: i.reason
                for i in self.s.incidents
                if i.kind == "revert" and len(i.items) > 1
            }
            undone = [n for n in dict.fromkeys((f.item.number, *f.items)) if n in why]
            if undone and all(why[n].strip() for n in undone):
                kind = "revert_known"
        if kind == "interface":
            # which settings: the changes it covers, removed or given a new default
            covered = {f.item.number, *f.items}
            incs = [
                i for i in self.interface_incidents(("removed", "default")) if i.items[0] in covered
            ]
            text = m.t("follow_ups.interface", changes=self.interface_changes(incs, 4))
            return Bullet(text, links=(link(f.item),), key=str(f.item.number))
        if kind == "next_step":
            said = fit_sentence(f.reason, MAX_STEP_QUOTE) or _said(f.reason)
            text = (
                m.t("follow_ups.next_step", text=self.quote(said.rstrip(" .。")))
                if said
                else m.t("follow_ups.next_step_plain")
            )
            return Bullet(text, links=(link(f.item),), key=str(f.item.number))
        key = f"follow_ups.{kind}" + ("_days" if days is not None else "")
        if kind == "fix_burst":
            return Bullet(self.burst_follow_up(f), links=(link(f.item),), key=str(f.item.number))
        text = m.t(key, days=days, title=f.item.title)
        if f.kind == "other" or (f.reason and m.lang == "en" and not m.has(f"follow_ups.{f.kind}")):
            text += m.t("list.sentence") + f.reason
        return Bullet(text, links=(link(f.item),), key=str(f.item.number))

    def appendix(self) -> tuple[AppendixList, ...]:
        a, m = self.s.appendix, self.m
        out = []
        for name in APPENDIX_LISTS:
            items = getattr(a, name)
            omitted = max(0, int(a.omitted.get(name, 0)))
            if getattr(self.s.counts, name) is None:
                continue  # a list the source cannot fill is left out (the line above names it n/a)
            count = num(len(items) + omitted)
            out.append(
                AppendixList(
                    m.t(f"appendix.{name}") + m.t("appendix.count", count=count),
                    tuple(link(i) for i in items),
                    tuple(m.t("list.sep").join(self.module(x) for x in i.modules) for i in items),
                    m.tn("appendix.more", omitted, count=num(omitted)) if omitted else "",
                )
            )
        return tuple(out)

    def notes(self) -> dict[str, str]:
        """A visible note for each section this summary has no data for (by section id)."""
        s, none = self.s, self.m.t("labels.none")
        empty = {
            "highlights": not s.themes and not s.storylines,
            "risk_bullets": not s.risks and not s.incidents,
            "charts": not s.activity and not any(t.total or t.previous_total for t in s.modules),
            "themes": not s.themes and not s.storylines,
            "modules": not s.modules,
            "key_prs": not s.key_prs,
            "discussions": not s.discussions,
            "ecosystems": not s.ecosystems,
            "activity": not s.contributors and not s.activity,
            "risks": not s.risks and not s.incidents,
            "follow_ups": not s.follow_ups,
            "appendix": not any(getattr(s.appendix, n) for n in APPENDIX_LISTS)
            and not any(s.appendix.omitted.values()),
        }
        notes = {sid: none for sid, missing in empty.items() if missing}
        # a section the source has no data for says so: "none this week" would be a guess
        for sid, needs in SECTION_NEEDS.items():
            lacking = self.not_provided(needs)
            if sid in notes and lacking:
                notes[sid] = self.m.t("na.section", what=lacking)
        if s.previous_counts is None:
            notes["summary"] = self.m.t("summary.no_previous")
        return notes

    def not_provided(self, needs: tuple[str, ...]) -> str:
        """The names of `needs` when the source provides none of them ("" when it gives any)."""
        src = self.s.source
        if src is None or any(n in src.provides for n in needs):
            return ""
        return self.m.join([self.m.name("provided_names", n) for n in needs])

    def labels(self) -> dict[str, str]:
        raw = self.m.raw("labels")
        out = {k: self.m.t(f"labels.{k}") for k in raw}
        out["ref_sep"] = self.m.t("list.ref_sep")  # between linked references ("、" in Chinese)
        return out

    # ------------------------------------------------------------ what changes do and why
    # (storylines, digests, incidents, and figures the source cannot tell; issue #15)

    def na(self, value: int | float | None) -> str:
        """A count, or "n/a" where the source cannot tell it (never 0)."""
        return self.m.t("na.short") if value is None else num(value)

    def quote(self, text: str) -> str:
        return self.m.t("quote.text", text=text) if text else ""

    def what(self, item: ItemRef | None, limit: int | None = None) -> str:
        """What a change does and why, from its description's digest ("" when it says nothing)."""
        d = item.digest if item is not None else None
        if d is None or d.template_only or not d.what.strip():
            return ""
        what = short_refs(" ".join(d.what.split()), self.s.repo)
        return _span(without_lead_in(what), limit or EXCERPT_WHAT)

    def fitted_what(self, item: ItemRef | None, limit: int) -> str:
        """The what-sentence told within `limit` characters: whole sentences or a main clause
        (`fit_sentence`), else "" — a sentence is never cut into (the title says it then)."""
        d = item.digest if item is not None else None
        if d is None or d.template_only or not d.what.strip():
            return ""
        # (a span that ends at a list's ";" or ":" reads as cut: the clause before it is whole)
        what = short_refs(" ".join(d.what.split()), self.s.repo)
        return fit_sentence(without_lead_in(what), limit).rstrip(" ;,:；，：")

    def fitted_excerpt(self, item: ItemRef, limit: int) -> str:
        """A description's opening (an older summary without a digest) told as `fitted_what`
        tells a what-sentence: whole sentences or a main clause, else ""."""
        return fit_sentence(excerpt(item.body_excerpt, EXCERPT_BODY), limit)

    def short_what(self, number: int) -> str:
        """One short sentence about an item: its digest's first sentence, else its title."""
        item = self.items.get(number)
        # a revert is told by its title ('Revert "x"'): its description often pastes the
        # reverted change's own, which says the opposite of what the revert does
        text = "" if number in self.reverts else self.what(item, EXCERPT_WHAT)
        # a sentence that does not fit the line is not cut into: the title says it instead
        first = fit_sentence(text, CLIP_LINE) if text else ""
        if first:
            out = self.m.t("quote.what", text=first.rstrip("。."))
        else:
            title = item.title if item is not None else ""
            out = self.m.t("quote.title", text=title) if title else ""
        if number in self.undone:  # a highlight must not sell what did not stay (2025-W52)
            out = self.m.t("story.reverted_line", text=out, by=self.ref(self.undone[number]).label)
        return out

    def claims(self, item: ItemRef | None) -> tuple[str, ...]:
        """An item's claims in the digest's order: a sentence quoted as written, a table's row
        told as what it measured ("Mean TTFT (ms), 16k: 1297.01 → 911.74 (−30%)"; a row is no
        sentence: its cells and pipes are not quoted)."""
        d = item.digest if item is not None else None
        if d is None:
            return ()
        return tuple(
            dict.fromkeys(
                self.table_claim(c, "measured.change")
                if c.header
                else self.quote(fit_sentence(c.sentence, EXCERPT_WHAT))
                for c in d.claims[:MAX_CLAIMS]
                if fit_sentence(c.sentence, EXCERPT_WHAT)
            )
        )

    def shown_metric(self, metric: str) -> str:
        """What a claim measured, in the description's words: quoted in another language's prose
        when they are English words ("throughput performance", "avg execution time",
        "_create_custom_4d_mask"; 2025-W52: "（「throughput performance」提升 18%）"); "TTFT"
        alone is a name."""
        if self.m.lang != "en" and _PROSE_WORD.search(metric) and not _CJK.search(metric):
            return self.m.t("quote.text", text=metric)
        return metric

    def table_claim(self, c: Claim, change_key: str) -> str:
        """A table row's claim: what it measured (the header's column), which case (the row's
        first cell), before → after and how much that is when both are numbers of one unit, else
        the table's own column of the change ("27.8x") as written."""
        m = self.m
        metric, label = (self.shown_metric(x) for x in _table_row(c))
        if label:  # "Mean TTFT (ms), 16k: 1297.01 → 911.74", "dev3: 595.88ms → 2.41ms"
            key = "measured.row" if metric else "measured.row_case"
            text = m.t(key, metric=metric, label=label, before=c.before, after=c.after)
        else:  # "queue p99 603.63ms → 2.64ms", "2189 → 79"
            key = "measured.pair" if metric else "measured.pair_bare"
            text = m.t(key, metric=metric, before=c.before, after=c.after)
        change = _relative_change(c, m)
        if not change:
            delta = [f for f in c.figures if f not in (c.before, c.after)]
            change = delta[0] if delta and _RATIO.search(delta[0]) else ""
        if change:
            text = m.t(change_key, text=text, delta=change)
        return _TEMPLATE_GAP.sub("", text)

    def measured(self, item: ItemRef | None) -> str:
        """The measured figure of an item's description in a few words, from its first claim that
        states a change (the digest orders them, the one that matters first: a trend is not
        passed over for a smaller pair): a pair with what it measured ("time cost 26us → 11 us",
        a table's row "Mean TTFT (ms), 16k: 1297.01 → 911.74, −30%"), else a trend with what it
        measured ("KV cache memory reduced by ~50%"), else ""."""
        d = item.digest if item is not None else None
        best = next((c for c in d.claims if _states_change(c)), None) if d is not None else None
        if best is None:
            return ""
        m = self.m
        metric = self.shown_metric(best.metric)
        if best.header and best.before and best.after:
            text = self.table_claim(best, "measured.with_delta")
        elif best.before and best.after:
            key = "measured.pair" if best.metric else "measured.pair_bare"
            text = m.t(key, metric=metric, before=best.before, after=best.after)
        else:
            figure = next((f for f in best.figures if _RATIO.search(f)), best.figures[0])
            text = m.t(f"measured.{best.trend}", metric=metric, figure=figure)
        # no space between Chinese words, nor beside a closing quote: "「KV cache memory」降低
        # ~50%", "HBM 峰值占用提升 18%" (the template's space stands between Latin words)
        text = _TEMPLATE_GAP.sub("", text)
        return text if len(text) <= MEASURED_CHARS else ""

    def digest_notes(self, item: ItemRef | None, role: str | None = None) -> tuple[str, ...]:
        m, notes = self.m, []
        # one kind per PR everywhere: where a kind is said, the item's own (ItemRef.role)
        if role and item is not None and item.role:
            role = item.role
        if role and role != "other":
            notes.append(m.name("role_names", role))
        d = item.digest if item is not None else None
        if d is not None:
            if d.user_facing == "yes":
                said = fit_sentence(d.user_facing_text, CLIP_NOTE)
                notes.append(
                    m.t("digest.user_facing_text", text=said.rstrip("。."))
                    if said
                    else m.t("digest.user_facing")
                )
            elif d.user_facing == "no":
                notes.append(m.t("digest.internal"))
            kinds = [k for k in d.tested if k not in ("none", "not_run")]
            if kinds:
                notes.append(
                    m.t(
                        "digest.tested",
                        kinds=m.join([m.name("test_kinds", k) for k in kinds]),
                    )
                )
            elif "none" in d.tested:
                notes.append(m.t("digest.untested"))
            if "not_run" in d.tested:  # "NPU end-to-end validation has not been run"
                notes.append(m.t("digest.not_run"))
        return tuple(notes)

    def storyline_by_key(self) -> dict[str, Storyline]:
        return {st.key: st for st in self.s.storylines}

    def story_order(self, st: Storyline) -> list[int]:
        """A storyline's PRs, most telling first: its lead, its key PRs, then by role, in merge
        order (the first two are told in section 2: a key PR is never left to a bare link)."""
        rank = {r: i for i, r in enumerate(ROLE_ORDER)}
        items = sorted(
            enumerate(st.items),
            key=lambda p: (
                p[1].number != st.lead,
                p[1].number not in self.keys,
                rank.get(p[1].role, len(rank)),
                p[0],
            ),
        )
        return list(dict.fromkeys(i.number for _, i in items))

    def roles_text(self, st: Storyline) -> str:
        counts: dict[str, int] = {}
        for i in st.items:
            counts[i.role] = counts.get(i.role, 0) + 1
        parts = [
            self.m.tn(f"roles.{r}", counts[r], count=num(counts[r]))
            for r in ROLE_ORDER
            if counts.get(r)
        ]
        return self.m.join(parts)

    def line_areas(self, st: Storyline) -> list[str]:
        """What a line's code changes are about beyond what all of them share: the modules at
        least two of them name, most named first, at most two ("speculative decoding and
        attention" for 2026-W34's MRV2, whose eight changes all touch the engine)."""
        items = [x for x in (self.items.get(i.number) for i in st.items) if x is not None]
        code = [x for x in items if not _support_item(x)] or items
        support = self.support_modules()
        counts = Counter(
            name for x in code for name in dict.fromkeys(x.modules) if name not in support
        )
        shared = {n for n, c in counts.items() if c == len(code)} if len(code) > 2 else set()
        names = [self.module(n) for n, c in counts.most_common() if c >= 2 and n not in shared]
        names = [n for n in dict.fromkeys(names) if _bare(n) != _bare(st.name)][:MAX_LINE_AREAS]
        # a module's display name inside an English sentence: "in models", but "MoE", "CI and
        # build" (Chinese has no capitals to lower)
        if self.m.lang != "en":
            return names
        return [mid_sentence(n) for n in names]

    def support_modules(self) -> frozenset[str]:
        """The modules of CI, docs or tests: every merged change of theirs is one of those
        alone (no area a line of work is about: "in docs" said nothing of 2026-W34's A5)."""
        if self._support_modules is None:
            own: dict[str, list[ItemRef]] = {}
            for i in self.items.values():
                if i.merged and not i.bot:
                    for name in i.modules:
                        own.setdefault(name, []).append(i)
            self._support_modules = (
                frozenset(n for n, its in own.items() if all(_support_item(i) for i in its))
                | DOCS_MODULES
                | {"tests", "ci"}
            )
        return self._support_modules

    def line_facts(self, st: Storyline) -> str:
        """A line of work in one sentence from its facts, before any quote: its kinds of change
        and the areas they touch ("4 features and 4 fixes in speculative decoding and
        attention"); its kinds alone when no area stands out."""
        roles = self.roles_text(st)
        areas = self.line_areas(st)
        if not roles or not areas:
            return roles
        return self.m.t("story.facts", roles=roles, areas=self.m.join(areas))

    def story_status(self, st: Storyline) -> str:
        """Where a line stands against the previous window, said only where it adds something:
        new, or continuing a line already as big then ("8 PRs then" beside 8 now); every other
        line's "Continues from the previous window (N PRs then)" repeated one sentence in every
        subsection (2025-W52: five of five). Empty when it says nothing."""
        if st.status == "continuing":
            if st.previous_items and st.previous_items >= len(st.items):
                return self.m.tn(
                    "story.continuing_n", st.previous_items, previous=num(st.previous_items)
                )
            return ""
        return self.m.t("story.new")

    def storyline_highlight(self, st: Storyline, told: bool = False) -> Bullet:
        """A line of work in one bullet: its name, size, what it is about (its lead's sentence,
        else the kinds of change it holds) and its PRs. `told`: section 2 tells its items with
        their sentences, so the bullet names its PRs by title (and section 2 leaves out the
        lead's sentence the bullet said: `_told_once`); else by their own sentences. A bullet of
        counts alone says nothing of the work (a reader of 2026-W26: "Qwen3.5 (8 merged PRs):
        1 feature, 3 fixes, 3 docs changes and 1 CI change")."""
        m = self.m
        detail = m.tn(
            "story.count" + _all_merged(st),
            len(st.items),
            count=num(len(st.items)),
            merged=num(st.merged),
        )
        # the lead's sentence when it fits whole (or as its main clause), else the roles say it
        summary = (
            fit_sentence(
                without_lead_in(short_refs(" ".join(st.summary.split()), self.s.repo)),
                CLIP_HIGHLIGHT,
            ).rstrip("。.！!")
            if st.summary and not told
            else ""
        )
        lead = self.items.get(st.lead) if st.lead is not None else None
        if summary and lead is not None and _bare(summary) in (_bare(lead.title), ""):
            summary = ""  # a description that repeats its title (real #13350) says nothing more
        facts = self.line_facts(st)
        text = (
            m.t("list.sentence").join(x for x in (facts, m.t("quote.what", text=summary)) if x)
            if summary
            else facts
        )
        numbers = self.story_order(st)[:MAX_THEME_PRS]
        lines = []
        for n in numbers:
            if told:
                title = self.ref(n).title
                line = m.t("quote.title", text=title) if title else ""
                if n in self.undone:
                    line = m.t("story.reverted_line", text=line, by=self.ref(self.undone[n]).label)
                lines.append(Line(self.ref(n), line))
                continue
            line = self.short_what(n)
            if summary and n == st.lead and self.what(self.items.get(n)).startswith(summary[:40]):
                # the summary is the lead's own sentence: its title says the rest
                title = self.ref(n).title
                line = m.t("quote.title", text=title) if title else ""
            lines.append(Line(self.ref(n), line))
        return Bullet(text, head=st.name, detail=detail, lines=tuple(lines), key=st.key)

    def storyline_theme(self, st: Storyline) -> ThemeView:
        m = self.m
        sentences = [
            m.tn(
                "story.text" + _all_merged(st),
                len(st.items),
                count=num(len(st.items)),
                merged=num(st.merged),
                added=num(st.lines_added),
                removed=num(st.lines_removed),
            )
        ]
        roles = self.line_facts(st)
        if roles:
            sentences.append(m.t("story.roles", roles=roles))
        if status := self.story_status(st):
            sentences.append(status)
        text = m.t("list.sentence").join(s.rstrip("。.") for s in sentences) + m.t("lead.end")
        role_of = {i.number: i.role for i in st.items}
        order = self.story_order(st)
        lines = []
        for n in order[:MAX_STORY_PRS]:
            item = self.items.get(n)
            if item is None:
                lines.append(Line(self.ref(n), "", notes=self.digest_notes(None, role_of.get(n))))
                continue
            lines.append(self.explained_line(item, self.digest_notes(item, role_of.get(n))))
        more = tuple(self.ref(n) for n in order[MAX_STORY_PRS:])
        return ThemeView(
            st.name,
            text,
            tuple(lines),
            key=st.key,
            more=more,
        )

    def more_by_role(
        self, numbers: Sequence[int], role_of: dict[int, str]
    ) -> tuple[tuple[str, tuple[Link, ...]], ...]:
        """A line's PRs section 2 has no room for, by kind ("Also 8 fixes: #…; 2 features: #…"):
        eleven bare numbers after "Also:" said nothing of them (2026-W22's DeepSeek V4)."""
        m = self.m
        by_role: dict[str, list[int]] = {}
        for n in numbers:
            by_role.setdefault(role_of.get(n, "other"), []).append(n)
        groups: list[tuple[str, tuple[Link, ...]]] = []
        for r in sorted(by_role, key=lambda r: ROLE_ORDER.index(r) if r in ROLE_ORDER else 99):
            count = len(by_role[r])
            label = m.tn(f"roles.{r}", count, count=num(count))
            if not groups:
                label = m.t("themes.more_head", kinds=label)
            groups.append((label, tuple(self.ref(n) for n in by_role[r])))
        return tuple(groups)

    def explained_line(self, item: ItemRef, notes: tuple[str, ...]) -> Line:
        """A PR in section 2: its what-sentence (else its description's opening), notes, claims."""
        # a key PR's whole sentence (section 2 is where a week tells it), another's within CLIP_WHAT
        limit = EXCERPT_WHAT if item.number in self.keys else CLIP_WHAT
        what = self.fitted_what(item, limit)
        if not what and item.digest is None:
            # no digest (an older summary): the description's opening; a digest with no what (a
            # template-only body) has nothing to say, and its opening is the template's headings
            what = self.fitted_excerpt(item, limit)
        if what and _bare(what) == _bare(item.title):
            what = ""  # a description that repeats its title says nothing more (real #7533)
        if item.number in self.undone:  # said first: the change did not stay
            notes = (
                self.m.t("story.reverted_by", by=self.ref(self.undone[item.number]).label),
            ) + tuple(notes)
        return Line(
            link(item),
            self.m.t("quote.what", text=what) if what else "",
            notes=notes,
            quotes=self.claims(item),
        )

    def storyline_themes(self) -> tuple[ThemeView, ...]:
        """Every storyline of the summary as a theme, in its order (of weight), then the key PRs
        no storyline of the first MAX_STORY_THEMES holds, as one theme of their own within the
        first MAX_THEMES: a week's biggest features are not always a storyline's, and section 2
        must not miss them. The themes past MAX_THEMES are named in its closing line, none left
        out (2026-W27: "cherry-pick", nine CI changes, and "models" were the ninth and tenth
        lines and section 2 named neither)."""
        outside = self.key_prs_outside(self.s.storylines[:MAX_STORY_THEMES])
        themes = [self.storyline_theme(st) for st in self.s.storylines]
        if not outside:
            return tuple(themes)
        m = self.m
        # each with why it matters (its user-facing sentence) before why it was picked: tags
        # alone said nothing of 2026-W22's #9572, whose what-sentence the highlight told
        lines = [
            self.explained_line(
                k.item, (self.why_key(k, what_shown=True, in_body=True),) if k.reasons else ()
            )
            for k in outside[:MAX_THEME_PRS]
        ]
        other = ThemeView(
            m.t("themes.other_key"),
            m.tn("themes.other_key_text", len(outside), count=num(len(outside))),
            tuple(lines),
            key="key-prs",
            more=tuple(link(k.item) for k in outside[MAX_THEME_PRS:]),
        )
        at = min(len(themes), MAX_THEMES - 1)
        return tuple(themes[:at] + [other] + themes[at:])

    def main_storylines(self) -> list[Storyline]:
        """The main lines of work for the lead and the executive summary: named lines only — a
        module's leftovers ("Other work in KV transfer") are no line a reader can name (2026-W04:
        two of the three "main lines" were such buckets), and the highlights' first three. A
        line made only of docs, CI or test changes is no main line of the work (2026-07-09: "The
        main line of work was CN", three fixes of the Chinese docs' translation): it keeps its
        highlight or hot topic, and with no line of code the lead names the busiest modules."""
        return [st for st in self.highlight_lines() if not self.support_only(st)][:3]

    def support_only(self, st: Storyline) -> bool:
        """Whether every change of a line is docs, CI or tests: by its role in the line, or by its
        kinds (`_support_item`) — a fix of the docs or of a CI job ("[DOC] Fix wrong CN
        translate": docs, bugfix, platform-ci) is still no code."""

        def support(number: int, role: str) -> bool:
            item = self.items.get(number)
            return role in SUPPORT_ROLES or (item is not None and _support_item(item))

        return bool(st.items) and all(support(i.number, i.role) for i in st.items)

    def told_storyline(self, key: str | None) -> Storyline | None:
        """The storyline of `key` when the report tells it by name (a highlight), else None: a
        reason or a trend cell never points at a line the reader cannot find (2026-W04)."""
        for st in self.highlight_lines():
            if st.key == key:
                return st
        return None

    def news_line(self, detailed: bool = False) -> str | None:
        """The window's project news in one sentence (SummaryData.news): "Project news: release
        notes for v0.11.0 (#4918); support for vLLM 0.12.0 dropped ahead of v0.13.0 (#5146);
        three maintainers added (#5152)". Detailed (section 1): with the names a governance
        change gives. None when there is none."""
        m = self.m
        parts = []
        for news in self.s.news:
            parts.append(self._news_part(news, detailed) + self._news_refs(news.items))
        if not parts:
            return None
        return m.t("news.lead", items=m.t("news.sep").join(parts))

    def _news_refs(self, numbers: Sequence[int]) -> str:
        labels = []
        for n in numbers:
            item = self.items.get(n)
            labels.append(link(item).label if item is not None else f"#{n}")
        return self.m.t("news.refs", refs=self.m.t("list.ref_sep").join(labels))

    def _news_part(self, news: ProjectNews, detailed: bool) -> str:
        m = self.m
        if news.kind == "governance":
            key = f"news.roles.{news.what}"
            count = len(news.people)
            role = (m.tn(key, count or 2) if m.has(key) else news.what) or news.what
            verb = news.action
            # maintainers moved to emeritus are not "removed": said so when the change says it
            if verb == "removed" and _EMERITUS.search(f"{news.what} {news.said}"):
                verb = "emeritus"
            if count and verb in ("added", "removed", "emeritus"):
                words = m.raw("news.numbers")
                said = m.t(
                    f"news.governance.{verb}",
                    count=words[count] if count < len(words) else num(count),
                    role=role,
                )
            else:
                bare = f"news.governance.{verb}_bare"
                said = m.t(bare if m.has(bare) else "news.governance.changed", role=role)
            if detailed and news.people:
                said += m.t("news.people", people=m.join([_person(p) for p in news.people]))
            return said
        if news.kind == "support_dropped":
            if news.ahead_of:
                said = m.t("news.support_dropped_ahead", what=news.what, ahead=news.ahead_of)
            else:
                said = m.t("news.support_dropped", what=news.what)
            return said
        if news.kind == "release_branch" and not news.what:
            return m.t("news.release_branch_bare")
        if news.kind == "policy":
            key = f"news.policies.{news.what}"
            return m.t("news.policy", what=m.t(key) if m.has(key) else news.what)
        return m.t(f"news.{news.kind}", what=news.what)

    def storyline_lead(self) -> str:
        tops = self.main_storylines()
        names = [m_name for m_name in (st.name for st in tops) if m_name]
        if not names:
            return ""
        return self.m.tn(
            "lead.storylines", len(names), count=num(len(names)), names=self.m.join(names)
        )

    def reasons_text(self, k: KeyPR, skip: frozenset[str] = frozenset()) -> str:
        m = self.m
        st = self.told_storyline(k.storyline) if k.storyline else None
        words = []
        for r in k.reasons:
            if r in skip:
                continue
            if r == "storyline_lead":
                if st is not None:
                    words.append(m.t("reason_names.storyline_lead", name=_short_name(st.name)))
                continue
            if r == "measured_claim" and self.measured(k.item):
                words.append(m.t("reason_names.measured_as", figure=self.measured(k.item)))
                continue
            role = k.item.role
            if r in _KIND_REASONS and role is not None and role != _KIND_REASONS[r]:
                # one kind per PR everywhere (ItemRef.role): "[Refactor][Feature] Remove
                # compress attention manager" is a refactor in its line and here, not a feature
                # (its kind once, unless another reason says it: "performance work")
                if role != "other" and role not in {_KIND_REASONS.get(x) for x in k.reasons}:
                    words.append(m.name("role_names", role))
                continue
            words.append(m.name("reason_names", r))
        if st is not None and "storyline_lead" not in k.reasons:
            words.append(m.t("reason_names.storyline_part", name=_short_name(st.name)))
        return m.t("list.semicolon").join(dict.fromkeys(words))

    def shown_subject(self, subject: str) -> str:
        """A change's subject (its title, a line's name) opening a sentence: in another
        language's report an English phrase is quoted as titles are ("「Reduce sampling」：#8308
        引入，#9545 修复", not "Reduce sampling：…" read as Chinese); a name stays as it is."""
        said = _capitalised(subject)
        return self.m.t("quote.title", text=said) if _phrase_name(self.m, said) else said

    def user_effect(self, item: ItemRef | None, limit: int | None = None) -> str:
        """What a change means for its users, in its description's words: the sentence of its
        user-facing section when that says yes ("the default graph mode is changed to
        FULL_AND_PIECEWISE", real #9572), whole or as its main clause within `limit`, else ""."""
        d = item.digest if item is not None else None
        if d is None or d.user_facing != "yes" or not d.user_facing_text.strip():
            return ""
        text = short_refs(" ".join(d.user_facing_text.split()), self.s.repo)
        # its first sentence: what follows often takes it back ("It does not change an existing
        # public CLI or API", real #13009)
        text = _FIRST_SENTENCE.split(text, maxsplit=1)[0]
        said = fit_sentence(text, CLIP_WHY if limit is None else limit)
        return _capitalised(said.rstrip(" .。;；,，:："))

    def why_key(self, k: KeyPR, what_shown: bool, in_body: bool = False) -> str:
        """Why a key change matters, in words, before why it was picked: what it means for users
        (its user-facing sentence), else — when its row does not show it already — what it does;
        the selection's reasons follow as a short second part ("new feature; touches core
        paths" alone said nothing of the change: 2026-W22's quick view)."""
        m, item = self.m, k.item
        # (the body does not tell again a sentence a highlight told; the quick view, a summary
        # of the key changes, may)
        said = in_body and item.number in self.said_effects
        effect = "" if said else self.user_effect(item)
        # what it does, whole, when nothing above told it (every key change with a description
        # says what it does in its own words: issue #15); what it means for users after it only
        # when it gives them a new default or setting (#9572) — a user-facing answer is often a
        # fragment ("By enabling c8_enable_reshape_optim on the P node", real #10292)
        what = "" if what_shown else self.fitted_what(item, EXCERPT_WHAT)
        d = item.digest
        if what and effect and not (d is not None and (d.default_change or d.interface)):
            effect = ""
        sentence = m.t("list.semicolon").join(x.rstrip(" 。.") for x in (what, effect) if x)
        tags = self.reasons_text(k)
        if effect and "user_facing" not in k.reasons:
            # the sentence is its user-facing section's: the tags say so
            tags = m.t("list.semicolon").join(
                x for x in (m.t("digest.user_facing_change"), tags) if x
            )
        if not sentence:
            return tags
        said = m.t("quote.what", text=sentence)
        return m.t("why_key.with_tags", text=said, tags=tags) if tags else said

    def key_pr_explained(self, k: KeyPR) -> KeyPRRow:
        row = self.key_pr(k)
        st = self.told_storyline(k.storyline)
        # the whole what-sentence (a digest's is at most ~240 characters), else its main clause
        what = self.fitted_what(k.item, EXCERPT_WHAT)
        if not what and k.item.digest is None:
            # no digest (an older summary): the description's opening says what it does
            what = self.fitted_excerpt(k.item, EXCERPT_WHAT)
        return dataclasses.replace(
            row,
            what=self.m.t("quote.what", text=what) if what else "",
            why=self.why_key(k, what_shown=bool(what)),
            quotes=self.claims(k.item),
            storyline=st.name if st is not None else "",
        )

    def inline(self, key: str, links: dict[str, list[Link]], **fields: object) -> tuple:
        """A catalog sentence whose {fields} are references: the text and Links in order."""
        table: list[Link] = []

        def token(lk: Link) -> str:
            table.append(lk)
            return f"\x00{len(table) - 1}\x00"

        def join(parts: list[str]) -> str:
            if len(parts) < 2:
                return "".join(parts)
            return self.m.t("list.ref_sep").join(parts[:-1]) + self.m.t("list.ref_last") + parts[-1]

        filled = {name: join([token(lk) for lk in lks]) for name, lks in links.items()}
        clean = {k: str(v).replace("\x00", "") for k, v in fields.items()}
        text = self.m.t(key, **filled, **clean)
        parts: list = []
        for i, piece in enumerate(text.split("\x00")):
            if i % 2:
                parts.append(table[int(piece)])
            elif piece:
                parts.append(piece)
        return tuple(parts)

    def told_incidents(self) -> list[Incident]:
        """The incidents, without a revert that a line of instability already tells (2026-W23:
        "#9744 added, fixed in #9869, reverted in #9898 and #9899" beside both reverts again)."""
        chains = [set(i.items) for i in self.s.incidents if i.kind == "instability"]
        return [
            i
            for i in self.s.incidents
            if not (i.kind == "revert" and any(set(i.items[:2]) <= c for c in chains))
        ]

    def planned_reverts(self) -> list[Incident]:
        """Reverts undone on purpose, to come back (their reason gives a plan, a freeze, and names
        no defect): told apart from a defect's revert, never as a regression."""
        return [i for i in self.told_incidents() if i.kind == "revert" and i.planned and i.items]

    def lead_risks(self) -> list[RiskObservation]:
        """The tag-based risks the lead and summary name, without the planned reverts (undone on
        purpose, to come back: no regression to watch); a risk left with none is dropped."""
        planned = {i.items[0] for i in self.planned_reverts()}
        out = []
        for r in self.s.risks:
            gone = [n for n in r.items if n in planned] if r.risk == "revert" else []
            if gone:
                r = r.model_copy(
                    update={
                        "items": tuple(n for n in r.items if n not in planned),
                        "count": max(0, r.count - len(gone)),
                    }
                )
            if r.count:
                out.append(r)
        return out

    def announced_risks(self) -> list[RiskObservation]:
        """The tag risks the lead and the summary name: the high ones (at most three) and the two
        gravest; a day's report explains each of them under "worth attention" (2026-01-26's lead
        announced "1 high-severity risk: core changes without tests (#5416, #6128, #6191)" and
        no section of the day said more)."""
        risks = sorted(self.lead_risks(), key=lambda r: (_SEVERITY[r.severity], -r.count, r.risk))
        high = [r for r in self.lead_risks() if r.severity == "high"][:3]
        named = {r.risk for r in high} | {r.risk for r in risks[:2]}
        return [r for r in risks if r.risk in named]

    def planned_line(self, linked_first: bool = False, reason: bool = True) -> list[Bullet]:
        """The planned reverts in one line, after the defect reverts: "Reverted as planned, to
        come back: #5410 (reverts #5275), #5434 (reverts #5300) — “…”" (a reason they share is
        quoted once). `linked_first`: the line follows the first revert's own link (a day's
        problems: "#5410 Revert "…" — reverts #5275 as planned, to come back; so does #5434
        (reverts #5300) — “…”"), so it does not name that revert again (2025-12-27 named #5410
        twice in one line). Without `reason` (the top's line, which refers to section 4's) the
        reverts' words are not quoted."""
        incs = self.planned_reverts()
        if not incs:
            return []
        m = self.m
        said = [
            fit_sentence(" ".join(i.reason.split()), CLIP_LINE).rstrip("。.") if reason else ""
            for i in incs
        ]
        once = len(set(said)) == 1
        shared = said[0] if once else ""
        parts: list = [m.t("incidents.planned_head")]
        if linked_first:
            first = incs[0]
            parts = (
                list(
                    self.inline("attention.planned_first", {"reverted": [self.ref(first.items[1])]})
                )
                if len(first.items) >= 2
                else [m.t("attention.planned_first_unnamed")]
            )
            if said[0] and not once:
                parts.append(m.t("incidents.planned_why", text=said[0]))
            if len(incs) > 1:
                parts.append(m.t("attention.planned_also"))
            incs, said = incs[1:], said[1:]
        for k, (inc, why) in enumerate(zip(incs, said, strict=True)):
            if k:
                parts.append(m.t("list.comma"))
            if len(inc.items) >= 2:
                parts += self.inline(
                    "incidents.planned_one",
                    {"revert": [self.ref(inc.items[0])], "reverted": [self.ref(inc.items[1])]},
                )
            else:
                parts.append(self.ref(inc.items[0]))
            if why and not once:
                parts.append(m.t("incidents.planned_why", text=why))
        if linked_first and incs:
            parts.append(m.t("attention.planned_also_end"))
        if shared:
            parts.append(m.t("incidents.planned_why", text=shared))
        parts.append(m.t("lead.end"))
        return [Bullet("", parts=tuple(parts), key="planned")]

    @staticmethod
    def _after_reverts(out: list[Bullet], kinds: list[str], extra: list[Bullet]) -> list[Bullet]:
        """`extra` placed right after the last revert's line (else at the end of `out`)."""
        at = max((k + 1 for k, kind in enumerate(kinds) if kind == "revert"), default=len(out))
        return out[:at] + extra + out[at:]

    def short_incidents(self) -> tuple[Bullet, ...]:
        """The incidents for the top of the report, short: removals users see, and what the
        changes say of themselves, in one line per kind (a week that retires features has many;
        each is told in section 4)."""
        grouped = ("removal", "interface", *SAID_RISK_KINDS)
        told = [i for i in self.told_incidents() if i.kind not in grouped and not i.planned]
        out = self._after_reverts(
            [self.incident(i, reason=False) for i in told],
            [i.kind for i in told],
            self.planned_line(reason=False),
        )
        for kind in (*SAID_RISK_KINDS, "removal"):
            out += self._one_line(
                [i for i in self.s.incidents if i.kind == kind and i.items],
                "incidents.removals" if kind == "removal" else f"incidents.{kind}_many",
                "removals" if kind == "removal" else kind,
            )
        return tuple(out + self._interface_line())

    def interface_incidents(self, kinds: tuple[str, ...] = INTERFACE_KINDS) -> list[Incident]:
        """The settings users will notice (kind `interface`), of the given kinds of change."""
        return [
            i
            for i in self.s.incidents
            if i.kind == "interface" and i.items and i.roles and i.roles[0] in kinds
        ]

    def interface_change(self, inc: Incident) -> str:
        """One setting's change in a few words: "sp_threshold removed", "new default for x"."""
        kind = inc.roles[0] if inc.roles and inc.roles[0] in INTERFACE_KINDS else "added"
        return self.m.t(f"interface.{kind}", name=_whole(inc.subject))

    def interface_changes(self, incs: Sequence[Incident], limit: int) -> str:
        """Changes of settings as one list ("a removed, b added and 2 more")."""
        phrases = list(dict.fromkeys(self.interface_change(i) for i in incs))
        shown = self.m.t("list.comma").join(phrases[:limit])
        more = _more(self.m, len(phrases) - limit, INLINE_MORE) if len(phrases) > limit else ""
        return shown + more

    def _interface_line(self) -> list[Bullet]:
        """Settings users will notice, at the top of the report in one line, each with its
        change ("Configuration changes users will notice: sp_threshold removed (#7044), …")."""
        incs = self.interface_incidents()
        if not incs:
            return []
        parts: list = [self.m.t("incidents.interface_head")]
        for k, inc in enumerate(incs[:MAX_INTERFACE_SHORT]):
            if k:
                parts.append(self.m.t("list.comma"))
            parts += self.inline(
                "incidents.interface_one",
                {"item": [self.ref(inc.items[0])]},
                change=self.interface_change(inc),
            )
        more = _more(self.m, len(incs) - MAX_INTERFACE_SHORT, INLINE_MORE)
        return [Bullet("", parts=tuple(parts), key="interface", more=more)]

    def _one_line(self, incidents: list[Incident], many: str, key: str) -> list[Bullet]:
        """Incidents of one kind at the top: the incident itself, or one line with their count
        and the first of them linked."""
        if len(incidents) <= 1:
            return [self.incident(i, reason=False) for i in incidents]
        shown = [i.items[0] for i in incidents[:MAX_RISK_LINKS_SHORT]]
        parts = self.inline(
            many, {"items": [self.ref(n) for n in shown]}, count=num(len(incidents))
        )
        more = _more(self.m, len(incidents) - len(shown), INLINE_MORE)
        return [Bullet("", parts=parts, key=key, more=more)]

    def detailed_incidents(self) -> tuple[Bullet, ...]:
        """The incidents of section 4, each told with its reason and, for what a change says of
        itself or takes from users, what to do about it (seed 000's risks end with their advice;
        section 7 then does not ask it again); tests loosened and support narrowed in one line
        per kind (each title is in the appendix)."""
        grouped = ("loosened", "narrowed")
        told = [
            i
            for i in self.told_incidents()
            if i.kind not in grouped and i.kind != "interface" and not i.planned
        ]
        out = self._after_reverts(
            [self._acted(self.incident(i), i.kind) for i in told],
            [i.kind for i in told],
            self.planned_line(),
        )
        out += self._interface_bullets()
        for kind in grouped:
            said = [i for i in self.s.incidents if i.kind == kind and i.items]
            if len(said) == 1:
                # a loosened check quoted in its description's words (the sentence that says why,
                # when it says it: the summarizer picks it) is asked only when it comes back
                quoted = kind == "loosened" and bool(_said(said[0].reason))
                out.append(self._acted(self.incident(said[0]), kind, quoted=quoted))
            elif said:
                # each change with its title (the top of the report has the short line); its
                # words are not quoted here (2026-W24's three would outgrow the main body's
                # length), so the line asks why as well
                parts: list = [self.m.t(f"incidents.{kind}_head", count=num(len(said)))]
                for k, inc in enumerate(said):
                    if k:
                        parts.append(self.m.t("list.comma"))
                    ref = self.ref(inc.items[0])
                    parts += [ref, " " + self.m.t("quote.subject", text=_whole(ref.title))]
                    parts += self.followed(inc)
                parts.append(self.m.t("lead.end"))
                out.append(self._acted(Bullet("", parts=tuple(parts), key=kind), kind))
        return tuple(out)

    def linked(self, text: str) -> tuple:
        """A finished sentence with the repository's own "#N" references in it as Links (a
        quoted "…/pull/11014 introduces this issue", real #11437, reads "#11014 introduces this
        issue" with #11014 linked); the text alone when it names none."""
        if self.s.repos or "#" not in text:
            return (text,) if text else ()
        out: list = []
        at = 0
        for m in _OWN_REF.finditer(text):
            if m.start() > at:
                out.append(text[at : m.start()])
            out.append(self.ref(int(m.group(1))))
            at = m.end()
        if at < len(text):
            out.append(text[at:])
        return tuple(out)

    def _acted(self, b: Bullet, kind: str, quoted: bool = False) -> Bullet:
        """A section-4 line with what to do about it before its closing stop ("…; say why, and
        when they come back."), for the kinds whose follow-up section 4 thereby asks
        (ACTED_IN_RISKS); `quoted`: the line quotes each change's own words on it, so a loosened
        check is asked only when it comes back ("…; it says “relaxed to 10 to prevent transient
        test failures …”; say when they come back.", real #11247)."""
        if kind not in ACTED_IN_RISKS or not self.m.has(f"incidents.act.{kind}"):
            return b
        act = f"incidents.act.{kind}"
        if quoted and self.m.has(f"{act}_said"):
            act += "_said"
        end = self.m.t("lead.end")
        parts = b.parts[:-1] if b.parts and b.parts[-1] == end else b.parts
        parts = (*parts, self.m.t(act), end)
        text = "".join(p if isinstance(p, str) else p.label for p in parts)
        return dataclasses.replace(b, text=text if b.text else b.text, parts=parts)

    def acted_in_risks(self, risks_shown: Sequence[str]) -> set[tuple[str, int]]:
        """The (follow-up kind, PR) pairs whose action section 4 says: its incidents of the
        ACTED_IN_RISKS kinds (the settings of the PRs it lists), and the untested core changes
        when that risk is told in detail there (its line advises tests)."""
        out: set[tuple[str, int]] = {
            (str(i.kind), n)
            for i in self.s.incidents
            if i.kind in ACTED_IN_RISKS and i.kind != "interface"
            for n in i.items[:1]
        }
        by_pr = dict.fromkeys(i.items[0] for i in self.interface_incidents())
        out |= {
            ("interface", i.items[0])
            for i in self.interface_incidents(("removed", "default", "renamed", "type"))
            if i.items[0] in list(by_pr)[:MAX_INTERFACE_DETAILED]
        }
        for r in self.s.risks:
            if r.risk == "core-without-tests" and r.risk in risks_shown:
                out |= {("core_without_tests", n) for n in r.items}
        return out

    def _interface_bullets(self) -> list[Bullet]:
        """Section 4's settings users will notice: one line per change with what it changes and
        the description's sentence that says so (its first)."""
        m = self.m
        by_pr: dict[int, list[Incident]] = {}
        for inc in self.interface_incidents():
            by_pr.setdefault(inc.items[0], []).append(inc)
        out = []
        for number, incs in list(by_pr.items())[:MAX_INTERFACE_DETAILED]:
            parts = self.inline(
                "incidents.interface_pr",
                {"item": [self.ref(number)]},
                changes=self.interface_changes(incs, MAX_INTERFACE_SHORT),
            )
            # the words of a setting users must adapt to (one added is named, news enough)
            said = _said(
                next((i.reason for i in incs if i.reason.strip() and i.roles[0] != "added"), "")
            )
            if said:
                how = self.quote(said.rstrip(" .。"))
                parts = parts + (m.t("incidents.removal_how", how=how),)
            parts = parts + (m.t("lead.end"),)
            text = "".join(p if isinstance(p, str) else p.label for p in parts)
            links = tuple(dict.fromkeys(p for p in parts if isinstance(p, Link)))
            b = Bullet(text, links=links, key=f"interface:{number}", parts=parts)
            # what to do only for what users must adapt to (a setting added is news)
            adapt = any(i.roles[0] != "added" for i in incs)
            out.append(self._acted(b, "interface") if adapt else b)
        rest = len(by_pr) - MAX_INTERFACE_DETAILED
        if rest > 0:
            out.append(Bullet(m.tn("list.more", rest, count=num(rest)), key="interface:more"))
        return out

    def incident(self, inc: Incident, reason: bool = True) -> Bullet:
        m = self.m
        # a title's [Tags] say nothing in a sentence ("[Bugfix][eager][oom] fix rank0 …: added in")
        subject = _whole(_TITLE_TAGS.sub("", inc.subject).strip() or inc.subject)
        subj = m.t("quote.subject", text=subject) if subject else ""
        if inc.kind == "revert" and len(inc.items) >= 2:
            # what it undid by number, title and merge day ("#7557 reverts #7100 (GMM custom
            # operator optimization …, merged 2026-03-19)"): a reader sees which change and when
            merged_on = self.merged_day(inc.items[1])
            parts = self.inline(
                "incidents.revert"
                + ("_subject" if subj else "")
                + ("_merged" if merged_on else ""),
                {"revert": [self.ref(inc.items[0])], "reverted": [self.ref(inc.items[1])]},
                subject=subj,
                day=merged_on,
            )
            if inc.across_windows and not merged_on:  # (its merge day says it when known)
                parts += (m.t("incidents.across_revert"),)
            back = [n for n, r in zip(inc.items, inc.roles) if r == "relanded"]
            # brought back after the window (up to the watermark): when, so it never reads as
            # the window's ("; re-landed as #11429 on 2026-07-06")
            after = [n for n in back if self.merged_after_window(n)]
            if back and after == back:
                parts += self.inline(
                    "incidents.relanded_later",
                    {"items": [self.ref(n) for n in back]},
                    day=self.merged_day(back[0]),
                )
            elif back:
                parts += self.inline("incidents.relanded", {"items": [self.ref(n) for n in back]})
        elif inc.kind == "revert" and inc.items:
            ref = self.ref(inc.items[0])
            number, rest = self.own_number(subject)
            if number is not None and rest:
                # 'Revert "x (vllm-project#7100)"' of a change the data does not hold: its number
                # as the title gives it, then what it was
                parts = self.inline(
                    "incidents.revert_subject",
                    {"revert": [ref], "reverted": [self.ref(number)]},
                    subject=m.t("quote.subject", text=rest),
                )
            else:
                parts = self.inline(
                    "incidents.revert_named" if subj else "incidents.revert_alone",
                    {"revert": [ref]},
                    subject=subj,
                    title=m.t("quote.subject", text=_whole(ref.title)),
                )
        elif inc.kind == "removal" and inc.items:
            parts = self.inline(
                "incidents.removal", {"item": [self.ref(inc.items[0])]}, subject=subj
            )
            if reason and (said := _said(inc.reason)):
                parts = parts + (m.t("incidents.removal_how", how=self.quote(said)),)
            reason = False  # (said above, as how users see it)
        elif inc.kind in SAID_RISK_KINDS and inc.items:
            # what a change says of itself (tests loosened, support narrowed, problems left
            # open): the change, its title, and its own words
            parts = self.inline(
                f"incidents.{inc.kind}", {"item": [self.ref(inc.items[0])]}, subject=subj
            )
            # the title says what was loosened or dropped; open problems need the words
            if reason and inc.kind in ("unfinished", "loosened") and (said := _said(inc.reason)):
                said = short_refs(said, self.s.repo).rstrip(" .。")
                parts = parts + self.linked(m.t("incidents.removal_how", how=self.quote(said)))
            parts = parts + self.followed(inc)
            reason = False  # (said above, in its words)
        elif inc.kind == "fix_burst" and len(inc.items) >= 2:
            # "“Support DeepseekV4” (#9270, merged 2026-05-20) was followed by 7 fixes in the
            # same line of work (DeepSeek V4): #9367, … (2026-05-20 to 2026-05-24)"
            lead, fixes = inc.items[0], list(inc.items[1:])
            days = [d for n in fixes if (d := self.merged_day(n))]
            hours = self.fixup_hours(lead, fixes)
            span = (
                ""
                if not days
                else days[0]
                if days[0] == days[-1]
                else m.t("incidents.fix_burst_dates", first=days[0], last=days[-1])
            )
            # counted as its line counts its fixes: "8 of the 9 fixes in its line of work" when
            # the line holds fixes of other code too (section 2 says the line's 9)
            total = inc.of_fixes if inc.of_fixes > len(fixes) else 0
            parts = self.inline(
                "incidents.fix_burst" + ("_span" if span else ""),
                {"lead": [self.ref(lead)], "fixes": [self.ref(n) for n in fixes]},
                title=m.t("quote.text", text=self.bare_title(lead)),
                day=self.merged_day(lead) or "?",
                counted=m.t(
                    "incidents.burst_fixes" + ("_of" if total else ""),
                    count=num(len(fixes)),
                    total=num(total),
                    line=self.burst_line(inc),
                ),
                span=span,
            )
            if hours is not None:
                # fix-ups one after another within hours of the change: the chain in merge order
                # and the time from the change to its last fix ("#4993 (…) needed 4 fix-ups
                # within 53 hours: #5093, #5122, #5136 and #5165")
                parts = self.inline(
                    "incidents.fixup_chain",
                    {"lead": [self.ref(lead)], "fixes": [self.ref(n) for n in fixes]},
                    title=m.t("quote.text", text=self.bare_title(lead)),
                    count=num(len(fixes)),
                    hours=num(hours),
                    of=m.t("incidents.fixup_of", total=num(total)) if total else "",
                )
        elif inc.kind == "upgrade_fallout" and inc.items:
            roles = list(inc.roles) + [""] * (len(inc.items) - len(inc.roles))
            bumps = [n for n, r in zip(inc.items, roles) if r == "bump"] or [inc.items[0]]
            fixes = [n for n in inc.items if n not in bumps]
            key = (
                "incidents.upgrade" + ("_subject" if subject else "") + ("_fixes" if fixes else "")
            )
            # the summary names what the upgrade moves to ("vLLM v0.21.0"); without it, the
            # upgrade's own title says what it was
            title = "" if subject else m.t("quote.subject", text=_whole(self.ref(bumps[0]).title))
            parts = self.inline(
                key,
                {"bump": [self.ref(n) for n in bumps], "fixes": [self.ref(n) for n in fixes]},
                subject=subject,
                title=title,
                fix_word=m.tn("incidents.fix_word", len(fixes)),
            )
        elif refixed := self.refixed(inc):
            parts = refixed
        else:
            roles = list(inc.roles) + ["other"] * (len(inc.items) - len(inc.roles))
            # told in the order it happened (the items are in merge order): "added in #1, fixed
            # in #2, reverted in #3, fixed in #4" — grouping by role would reorder the events
            runs: list[tuple[str, list[int]]] = []
            for n, r in zip(inc.items, roles):
                r = r if r in INCIDENT_ROLES else "other"
                if runs and runs[-1][0] == r:
                    runs[-1][1].append(n)
                else:
                    runs.append((r, [n]))
            phrases = [
                self.inline(f"incidents.role.{r}", {"items": [self.ref(n) for n in ns]})
                for r, ns in runs
            ]
            sep = m.t("list.comma")
            joined: list = []
            for i, ph in enumerate(phrases):
                if i:
                    joined.append(sep)
                joined.extend(ph)
            head = (
                m.t("incidents.instability_head", subject=self.shown_subject(subject))
                if subject
                else m.t("incidents.instability_anon")
            )
            parts = (head,) + tuple(joined)
        if inc.across_windows and inc.kind not in ("revert", "fix_burst"):  # (a day says it)
            parts = parts + (m.t("incidents.across"),)
        if reason and (said := _said(inc.reason)):
            parts = parts + (m.t("incidents.reason", reason=self.quote(said.rstrip(" .。"))),)
        # (the top's line refers to it: its reason is quoted once, in section 4; 2026-W02 quoted
        # "Revert PR 5253 to fix the smoking problem" at the top and again in section 4)
        parts = parts + (m.t("lead.end"),)
        text = "".join(p if isinstance(p, str) else p.label for p in parts)
        links = tuple(dict.fromkeys(p for p in parts if isinstance(p, Link)))
        return Bullet(
            text, links=links, key=f"{inc.kind}:{inc.items[0] if inc.items else ''}", parts=parts
        )

    def followed(self, inc: Incident) -> tuple:
        """The later changes of a loosened check's test or configuration files, after its line
        (" (#9704 followed)"): the check was come back to; () when none was."""
        if inc.kind != "loosened" or not inc.followed_by:
            return ()
        return self.inline("incidents.followed", {"items": [self.ref(n) for n in inc.followed_by]})

    def refixed(self, inc: Incident) -> tuple:
        """One file fixed again and again (an instability whose changes are all fixes, subject
        the file's name): "detect_po_changes.py was fixed 5 times within 30 hours: #11597, …";
        () for any other incident."""
        if (
            inc.kind != "instability"
            or len(inc.items) < 2
            or len(inc.roles) != len(inc.items)
            or any(r != "fixed" for r in inc.roles)
            or not inc.subject.strip()
        ):
            return ()
        at = [getattr(self.items.get(n), "merged_at", None) for n in inc.items]
        fields: dict[str, object] = {
            "subject": self.shown_subject(_whole(inc.subject)),
            "count": num(len(inc.items)),
        }
        key = "incidents.refixed"
        known = [a for a in at if a is not None]
        if len(known) == len(at):
            seconds = (max(known) - min(known)).total_seconds()
            hours = max(1, math.ceil(seconds / 3600))
            if hours <= REFIXED_HOURS:
                key, fields["hours"] = "incidents.refixed_hours", num(hours)
            else:
                key, fields["days"] = "incidents.refixed_days", num(math.ceil(seconds / 86400))
        return self.inline(key, {"items": [self.ref(n) for n in inc.items]}, **fields)

    def bare_title(self, number: int) -> str:
        """An item's title without its [Tags] ("Support DeepseekV4")."""
        title = _whole(self.ref(number).title)
        return _TITLE_TAGS.sub("", title).strip() or title or f"#{number}"

    def burst_line(self, inc: Incident) -> str:
        """The line of work a burst of fixes belongs to, by the name the report tells it."""
        fixes = set(inc.items[1:])
        for st in self.s.storylines:
            if fixes & {i.number for i in st.items}:
                return _short_name(st.name)
        return inc.subject

    def burst_follow_up(self, f: FollowUp) -> str:
        """The follow-up of a burst of fixes, with the line, its change and how fast the fixes
        came: what to settle, and where."""
        m = self.m
        inc = next(
            (
                i
                for i in self.s.incidents
                if i.kind == "fix_burst" and i.items and i.items[0] == f.item.number
            ),
            None,
        )
        fixes = inc.items[1:] if inc is not None else f.items
        lead = self.items.get(f.item.number)
        ends = [
            at
            for n in fixes
            if (it := self.items.get(n)) is not None and (at := it.merged_at) is not None
        ]
        start = lead.merged_at if lead is not None else None
        days = (
            max(1, math.ceil((max(ends) - start).total_seconds() / 86400))
            if ends and start is not None
            else None
        )
        total = inc.of_fixes if inc is not None and inc.of_fixes > len(fixes) else 0
        fields = {
            "line": self.burst_line(inc) if inc is not None else "",
            "counted": (
                m.t("follow_ups.fix_count_of", count=num(len(fixes)), total=num(total))
                if total
                else m.tn("follow_ups.fix_count", len(fixes), count=num(len(fixes)))
            ),
            "number": f"#{f.item.number}",
            "title": m.t("quote.text", text=self.bare_title(f.item.number)),
        }
        if days is None:
            return m.t("follow_ups.fix_burst", **fields)
        return m.tn("follow_ups.fix_burst_days", days, days=num(days), **fields)

    def fixup_hours(self, lead: int, fixes: list[int]) -> int | None:
        """Hours (rounded up) from a change's merge to its last fix's, when within
        FIXUP_HOURS; else None."""
        at = [getattr(self.items.get(n), "merged_at", None) for n in (lead, *fixes)]
        if any(a is None for a in at) or not fixes:
            return None
        span = max(at[1:]) - at[0]  # type: ignore[type-var,operator]
        hours = max(1, math.ceil(span.total_seconds() / 3600))
        return hours if span.total_seconds() > 0 and hours <= FIXUP_HOURS else None

    def merged_after_window(self, number: int) -> bool:
        item = self.items.get(number)
        return (
            item is not None and item.merged_at is not None and item.merged_at >= self.s.window.end
        )

    def merged_day(self, number: int) -> str:
        """The day an item the summary holds was merged, in the window's zone; "" if unknown."""
        item = self.items.get(number)
        at = item.merged_at if item is not None else None
        return day(at, self.s.window.tz) if at is not None else ""

    def own_number(self, subject: str) -> tuple[int | None, str]:
        """The number a reverted title ends with — "(#7100)", or "(vllm-project#7100)" when the
        owner is this repository's — and the title without it; (None, subject) otherwise."""
        m = _OWN_NUMBER.search(subject)
        if m is None or self.s.repos:
            return None, subject
        owner = m.group("owner")
        if owner and owner.lower() not in (
            self.s.repo.lower(),
            self.s.repo.split("/", 1)[0].lower(),
        ):
            return None, subject
        return int(m.group("n")), subject[: m.start()].rstrip(" -—:")

    def follow_ups_grouped(self, asked: set[tuple[str, int]] | None = None) -> tuple[Bullet, ...]:
        """One line per concern: follow-ups that would say the same sentence are one bullet with
        every item they cover (a concern's `items` included). A follow-up whose action section 4
        already says (`asked`: kind and PR, every item of it) is left out: one home per finding."""
        out: list[Bullet] = []
        where: dict[str, int] = {}
        for f in self.s.follow_ups:
            if asked and all((f.kind, n) in asked for n in (f.item.number, *f.items)):
                continue
            b = self.follow_up(f)
            numbers = list(dict.fromkeys((f.item.number, *f.items)))
            links = tuple(link(f.item) if n == f.item.number else self.ref(n) for n in numbers)
            if b.text in where:
                prev = out[where[b.text]]
                links = tuple(dict.fromkeys(prev.links + links))
                out[where[b.text]] = dataclasses.replace(prev, links=links)
                continue
            where[b.text] = len(out)
            # the items as references: their titles are told in the sections above, a follow-up
            # says what to do about them
            out.append(dataclasses.replace(b, links=links, lines=()))
        return tuple(out)

    def module_rows(self) -> tuple[ModuleRow, ...]:
        """The trend table; a PR is representative of one row only (the first it appears in)."""
        used: set[int] = set()
        rows = []
        for t in sorted(self.s.modules, key=lambda t: (t.fallback, -t.total, t.module))[
            :MAX_MODULE_ROWS
        ]:
            fresh = [n for n in dict.fromkeys(t.representative) if n not in used]
            used.update(fresh[:4])
            row = self.module_row(t)
            # how much of the module the line is ("up; 3 of them DSA work"): a bare "main line:
            # DSA" said nothing of the row (2026-W22)
            line, inside = self.module_storyline_count(t.module)
            trend = (
                self.m.tn(
                    "modules_table.trend_with",
                    inside,
                    trend=row.trend,
                    storyline=line,
                    count=num(inside),
                )
                if line
                else row.trend
            )
            rows.append(
                dataclasses.replace(row, trend=trend, links=tuple(self.ref(n) for n in fresh[:4]))
            )
        return tuple(rows)

    def module_storyline(self, module: str) -> str:
        """The storyline most of whose changes are in `module` (two at least), to say in a few
        words what moved it, as seed 000's trend column does; "" when none."""
        return self.module_storyline_count(module)[0]

    def module_storyline_count(self, module: str) -> tuple[str, int]:
        """`module_storyline` with how many of the module's changes are that line's."""
        best, most = "", 1
        # (only a line the report tells by name: a module's own line says nothing the row does
        # not, "up: Speculative decoding")
        for st in self.highlight_lines():
            inside = sum(
                1
                for i in st.items
                if (ref := self.items.get(i.number)) is not None and module in ref.modules
            )
            if inside > most and inside * 2 >= len(st.items):
                best, most = _short_name(st.name), inside
        return best, (most if best else 0)

    def hidden_columns(self) -> frozenset[str]:
        c, hidden = self.s.counts, set()
        if c.new_prs is None:
            hidden |= {"modules.opened", "contributors.prs_opened"}
        if c.new_issues is None:
            hidden |= {"modules.issues", "contributors.issues_opened"}
        if c.reviews is None:
            hidden.add("contributors.reviews")
        if c.comments is None:
            hidden.add("contributors.comments")
        return frozenset(hidden)

    def na_note(self) -> str | None:
        c = self.s.counts
        if all(getattr(c, n) is not None for n in NULLABLE_COUNTS):
            return None
        return self.m.t("na.note")

    def partial_comparison(self) -> str:
        """A comparison with the previous window is partial when either window is partly covered
        (SummaryData.covered, previous_covered): "this week is partly covered", else ""."""
        s, m = self.s, self.m
        if s.covered is not None and s.previous_covered is not None:
            which = "both"
        elif s.covered is not None:
            which = "this"
        elif s.previous_covered is not None:
            which = "previous"
        else:
            return ""
        return m.t(f"coverage.compare_{which}.{s.window.kind}")

    def partial_aside(self) -> str:
        partial = self.partial_comparison()
        return self.m.t("coverage.aside", partial=partial) if partial else ""

    def coverage(self) -> str | None:
        s, m = self.s, self.m
        if s.coverage != "partial":
            return None
        if s.covered is not None:
            # the part of this window the source covers, clipped to it, and its share (2026-W34 of
            # a history ending 08-22 20:51: 08-17 00:00 to 08-22 20:51, 84 %; not the source's
            # whole span from 2025)
            return m.t(
                "coverage.partial_share",
                start=stamp(s.covered.start, s.window.tz),
                end=stamp(s.covered.end, s.window.tz),
                share=num(round(s.covered.share * 100)),
            )
        src = s.source
        if src is not None and src.coverage_start is not None and src.coverage_end is not None:
            return m.t(
                "coverage.partial",
                start=stamp(src.coverage_start, s.window.tz),
                end=stamp(src.coverage_end, s.window.tz),
            )
        if src is not None and src.coverage_end is not None:
            return m.t("coverage.partial_until", end=stamp(src.coverage_end, s.window.tz))
        if src is not None and src.coverage_start is not None:
            return m.t("coverage.partial_from", start=stamp(src.coverage_start, s.window.tz))
        return m.t("coverage.partial_unknown")

    def source_note(self) -> str | None:
        src, m = self.s.source, self.m
        if src is None:
            return None
        kind = src.kind
        if (
            kind == "replay"
            and "merged_prs" in src.provides
            and not ({"opened_prs", "issues"} & set(src.provides))
        ):
            kind = "replay_merged"
        what = m.name("source_kinds", kind)
        text = (
            m.t("source.named", what=what, name=_basename(src.name))
            if src.name
            else m.t("source.unnamed", what=what)
        )
        missing = [p for p in ALL_PROVIDED if p not in src.provides]
        if missing:
            text += m.t("list.sentence") + m.t(
                "source.missing", what=m.join([m.name("provided_names", p) for p in missing])
            )
        return text + m.t("lead.end")

    def lead_activity(self) -> str | None:
        """The lead's activity clause from what the source can tell (None: say it the usual way)."""
        s, m, c = self.s, self.m, self.s.counts
        if all(x is not None for x in (c.new_prs, c.new_issues, c.closed_issues)):
            return None
        text = m.tn(
            "lead.merged_only",
            c.merged_prs,
            repo=shown_repo(s),
            period=self.period(),
            merged=num(c.merged_prs),
        )
        if c.new_prs is not None:
            text += m.tn("lead.and_new_prs", c.new_prs, new_prs=num(c.new_prs))
        if c.new_issues is not None and c.closed_issues is not None:
            text += m.t(
                "lead.and_issues", new_issues=num(c.new_issues), closed_issues=num(c.closed_issues)
            )
        return text

    def biggest_change(self, net: int) -> tuple[ItemRef, int] | None:
        """The merged change that explains most of the window's net lines (GGUF's removal in
        seed 000): its net in the same direction is at least a quarter of the window's and at
        least 1,000 lines; None when no single change stands out."""
        if abs(net) < 1000:
            return None
        sign = -1 if net < 0 else 1
        w = self.s.window
        # (a bot's or a documentation-only change is churn, not the week's work: 2026-W28's
        # "Translated Doc files" by the CI account took 40,990 lines out of the docs)
        best = max(
            (
                i
                for i in self.items.values()
                if i.merged
                and i.merged_at is not None
                and w.start <= i.merged_at < w.end
                and not i.bot
                and not (i.modules and set(i.modules) <= DOCS_MODULES)
            ),
            key=lambda i: (sign * (i.additions - i.deletions), -i.number),
            default=None,
        )
        if best is None:
            return None
        lines = sign * (best.additions - best.deletions)
        if lines < 1000 or lines * 4 < abs(net):
            return None
        return best, lines

    def line_drivers(self, told: ItemRef | None = None) -> list[ItemRef]:
        """The changes that hold much of the window's added or removed lines: at least a quarter
        of one side's total and DRIVER_MIN_LINES of it (2026-W27's #11340 "[Doc] Update Chinese
        translations", +22,018 / -6,965 of +45,116 / -13,929, hid behind "docs and translations
        +27,231 / -9,101"); the largest of each side, a change once, without `told` (the change
        the net sentence names). Docs and a bot's changes count: they are the figure's lines."""
        c, w = self.s.counts, self.s.window
        merged = [
            i
            for i in self.items.values()
            if i.merged and i.merged_at is not None and w.start <= i.merged_at < w.end
        ]
        out: list[ItemRef] = []
        for total, size in (
            (c.lines_added, lambda i: i.additions),
            (c.lines_removed, lambda i: i.deletions),
        ):
            best = max(merged, key=lambda i: (size(i), -i.number), default=None)
            if (
                best is not None
                and size(best) >= DRIVER_MIN_LINES
                and size(best) * DRIVER_SHARE >= total
                and best is not told
                and best not in out
            ):
                out.append(best)
        return out

    def lines_drivers(self, told: ItemRef | None = None) -> str:
        """The line drivers (`line_drivers`) as the totals' aside, each with its size: " (#11340
        [Doc] Update Chinese translations alone: +22,018 / -6,965)"; "" when none."""
        m = self.m
        drivers = self.line_drivers(told)
        if not drivers:
            return ""
        parts = [
            m.t(
                "summary.driver",
                number=link(i).label,
                title=m.t("quote.title", text=_whole(i.title)),
                added=num(i.additions),
                removed=num(i.deletions),
            )
            for i in drivers
        ]
        return m.t("summary.drivers", items=m.t("list.semicolon").join(parts))

    def lead_split(self, ln: Line) -> tuple[str, str] | None:
        """A line's lead as a highlight and section 2 tell it, nothing said twice: (the
        highlight's sentence, section 2's) — its whole what-sentence and "" when the line says
        something of its own (a claim, a measured figure, a user-facing quote); else its
        what-sentence's first sentence and the rest (#11264 "Adds support for GLM-5.2 on Ascend"
        / "Updates model_returns_tuple …"); else the whole what-sentence and another sentence of its
        description (what went wrong, a setting it changes: #10935's "Set
        VLLM_USE_V2_MODEL_RUNNER=0 for non-0.23.0"); None when it says nothing else (the
        sentence then stays in section 2)."""
        m, item = self.m, self.items.get(ln.link.number)
        limit = EXCERPT_WHAT if ln.link.number in self.keys else CLIP_WHAT
        what = self.fitted_what(item, limit)
        if not what or item is None or item.digest is None:
            return None
        if ln.quotes or self.measured(item) or any(_QUOTED_NOTE.search(n) for n in ln.notes):
            return ln.text, ""  # (its claim or user-facing sentence is told under it)
        # (its whole what-sentence: the part section 2 had no room for is a part to tell)
        sentences = [x for x in _SENTENCE_END.split(self.fitted_what(item, EXCERPT_WHAT)) if x]
        if len(sentences) > 1:
            rest = fit_sentence(without_lead_in(" ".join(sentences[1:])), limit)
            if _bare(rest):
                first = sentences[0].rstrip(" .。")
                return m.t("quote.what", text=first), m.t("quote.what", text=rest)
        d = item.digest
        said = _bare(what)
        for other in (
            d.symptom,
            d.error,
            d.default_change,
            *(i.sentence for i in d.interface),
        ):
            text = fit_sentence(short_refs(" ".join(other.split()), self.s.repo), CLIP_WHAT)
            text = without_lead_in(text).rstrip(" ;,:；，：")
            if _bare(text) and _bare(text) not in said and said not in _bare(text):
                return ln.text, m.t("quote.what", text=text)
        return None

    def summary_totals(self) -> str | None:
        s, m, c = self.s, self.m, self.s.counts
        if all(
            x is not None for x in (c.new_prs, c.closed_unmerged_prs, c.new_issues, c.closed_issues)
        ):
            return None
        text = m.tn(
            "summary.totals_merged",
            c.merged_prs,
            period=self.period(),
            merged=num(c.merged_prs),
            key=num(c.key_prs or len(s.key_prs)),
        )
        if c.new_prs is not None:
            text += m.tn("summary.and_new_prs", c.new_prs, new_prs=num(c.new_prs))
        if c.closed_unmerged_prs is not None:
            text += m.t("summary.and_closed_unmerged", closed_unmerged=num(c.closed_unmerged_prs))
        if c.new_issues is not None and c.closed_issues is not None:
            text += m.t(
                "summary.and_issues",
                new_issues=num(c.new_issues),
                closed_issues=num(c.closed_issues),
            )
        return text

    def activity_people(self) -> str:
        m, c = self.m, self.s.counts
        figures = (c.reviewers, c.reviews, c.comments, c.active_contributors)
        new = c.first_time_contributors
        if new and all(x is not None and x != 1 for x in figures):  # the usual sentence reads right
            return m.tn(
                "activity.people",
                c.active_contributors,
                contributors=num(c.active_contributors),
                first_time=num(c.first_time_contributors),
                reviewers=num(c.reviewers),
                comments=num(c.comments),
                reviews=num(c.reviews),
            )
        text = m.tn(
            "activity.people_active" + ("" if new else "_none_new"),
            c.active_contributors,
            contributors=num(c.active_contributors),
            first_time=num(c.first_time_contributors),
        )
        parts = []
        if c.reviewers is not None and c.reviews is not None:
            parts.append(
                m.tn(
                    "activity.reviews_by",
                    c.reviews,
                    reviews=num(c.reviews),
                    reviewers=m.tn("activity.reviewers", c.reviewers, count=num(c.reviewers)),
                )
            )
        if c.comments is not None:
            parts.append(m.tn("activity.comments_n", c.comments, comments=num(c.comments)))
        if parts:
            text += m.t("activity.people_joiner") + m.join(parts)
        return text + m.t("lead.end")


# ---- what changes do and why (issue #15 parts 2-5): storylines, digests, incidents, availability
# incidents that a change says of itself (services/summarizer/domain/report.py: _said_risks)
SAID_RISK_KINDS = ("loosened", "narrowed", "unfinished")
# incidents whose section-4 line says what to do (incidents.act.<kind>); a week's section 7 does
# not ask it again (W34 told loosened tests, FlashComm v1's removal and expandable_segments at
# the top, in section 4 and again as follow-ups)
ACTED_IN_RISKS = ("removal", "interface", *SAID_RISK_KINDS)
EXCERPT_WHAT = 240  # a digest's what-sentence (already a span of at most ~240 characters)
MAX_CLAIMS = 2  # claims quoted per PR
MAX_STORY_PRS = 5  # PRs told in a storyline's subsection (the rest are links)
MAX_STORY_THEMES = 8  # storylines told as themes (the seed has six)
ROLE_ORDER = ("feature", "perf", "fix", "revert", "refactor", "test", "docs", "ci", "other")
# what a section is made from: when the source provides none of it, the section says so
SECTION_NEEDS: dict[str, tuple[str, ...]] = {
    "discussions": ("comments", "reviews"),
    "attention": ("issues",),
}
INCIDENT_ROLES = (
    "added",
    "bump",
    "fixed",
    "follow_up",
    "reverted",
    "reverted_change",
    "relanded",
    "other",
)
NULLABLE_COUNTS = (
    "new_issues",
    "closed_issues",
    "new_prs",
    "closed_unmerged_prs",
    "reviewers",
    "comments",
    "reviews",
)
_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[`(])|(?<=[。！？])")
_PATHLIKE = re.compile(r"(?:~|\.{1,2})?(?:/[^\s/]+){2,}/?|[A-Za-z]:\\\S+|(?:[\w.-]+/){2,}[\w.-]+")


# a title's closing number: "(#7100)", "(vllm-project#7100)", "(vllm-project/vllm-ascend#7100)"
_OWN_NUMBER = re.compile(r"\s*\(\s*(?P<owner>[\w.-]+(?:/[\w.-]+)?)?#(?P<n>\d+)\s*\)\s*$")


_EMERITUS = re.compile(r"(?i)\bemerit(?:us|i|a)\b")
# a name written with its spelled-out form ("MRV2 (Model Runner V2)", "Ascend 950 (A5)", a
# profile's topics): told whole where the report first names it (the lead, highlights, headings),
# by its short form in running text after (trend cells, risks, reasons, follow-ups)
_NAME_WITH_LONG = re.compile(r"^(?P<a>[^()]+?) \((?P<b>[^()]+)\)$")
_ACRONYM = re.compile(r"^(?=.*[A-Z0-9])[A-Z0-9][A-Za-z0-9._-]{0,7}$")


def _short_name(name: str) -> str:
    """The short form of a name written with its long one ("MRV2" of "MRV2 (Model Runner V2)",
    "A5" of "Ascend 950 (A5)", "SFA" of "SFA (sparse flash attention)"); the name itself when
    neither part is a short token ("KV pool and offload (KV cache outside NPU memory)")."""
    m = _NAME_WITH_LONG.match(name)
    if m is None:
        return name
    for part, other in ((m["a"], m["b"]), (m["b"], m["a"])):
        # letters in capitals (no word in lower case) beside a longer spelled-out form
        if _ACRONYM.match(part) and not re.search(r"[a-z]{2}", part) and len(other) > len(part):
            return part
    return name


_ISO_WEEK = re.compile(r"^(\d{4})-W(\d{1,2})$")


def _said(text: str) -> str:
    """A change's own words (why it was reverted, what it removes, what it leaves open) told
    whole or as their main clause, else "" (the line says the rest without a cut quote)."""
    return fit_sentence(text, EXCERPT_WHAT) if text.strip() else ""


def _capitalised(text: str) -> str:
    """A subject that opens a sentence, its first word capitalised when it is a plain lower-case
    word ("fix rank0 load imbalance …"), not an identifier ("vllm_config", "npu_graph")."""
    first = text.split(" ", 1)[0]
    if first.isascii() and first.isalpha() and first.islower():
        return text[:1].upper() + text[1:]
    return text


def _whole(title: str) -> str:
    """A title or subject as written, whitespace collapsed: told whole, never cut with "…" (a
    document's titles are already bounded: bounds.bounded)."""
    return " ".join(title.split())


def _span(text: str, limit: int) -> str:
    """A digest's span as written (whitespace collapsed), cut on a word when it is too long."""
    plain = " ".join(text.split())
    if len(plain) <= limit:
        return plain
    return word_cut(plain, limit).rstrip(" ,.;:") + "…"


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


# the reasons a key change was picked for that say its kind, when it has no role
_REASON_ROLES: dict[str, str] = {"feature": "feature", "performance": "perf", "severe_fix": "fix"}
_TITLE_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*:?\s*)+")


def _bare(text: str) -> str:
    """Words only, [Tags] left out: to tell a sentence that only repeats a title."""
    return " ".join(re.findall(r"[0-9a-z]+", re.sub(r"\[[^\]]*\]", " ", text.lower())))


def _basename(name: str) -> str:
    return name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def _strip_paths(text: str) -> str:
    """A note with any file path cut to its base name (a report never shows a machine's layout)."""
    return _PATHLIKE.sub(lambda m: _basename(m.group(0)), text)


_SEVERITY = {"high": 0, "medium": 1, "low": 2}
APPENDIX_LISTS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")

# (section id, numbered) in reading order; the header, lead, highlights and short risks come first
SECTION_ORDER = (
    ("highlights", False),
    ("risk_bullets", False),
    ("charts", False),
    ("summary", True),
    ("themes", True),
    ("modules", True),
    ("key_prs", True),
    ("discussions", True),
    ("ecosystems", True),
    ("activity", True),
    ("risks", True),
    ("follow_ups", True),
    ("appendix", False),
)


# ---------------------------------------------------------------- the seeds' shape (issue #15.6)
# Reading order per window kind. Weekly keeps seed 000's order (summary, key changes by theme,
# module trends, risks, key PRs, follow-ups; ours add charts, discussions and ecosystems without
# reordering the seed's, and tell activity in the appendix: WEEKLY_APPENDIX). Daily follows
# seed 003: stats line (the header's counts), daily status summary, AMD/ROCm ecosystem, hot
# discussions, hot topics and trends, key technical changes, activity observations (with the
# hourly chart), issues worth attention, appendix.
WEEKLY_ORDER = (
    ("highlights", False),
    ("risk_bullets", False),
    ("charts", False),
    ("summary", True),
    ("themes", True),
    ("modules", True),
    ("risks", True),
    ("key_prs", True),
    ("discussions", True),
    ("ecosystems", True),
    ("follow_ups", True),
    ("appendix", False),
)
# sections a window kind gives as a short subsection at the appendix's start, not in the main
# body: a week's activity observations (seed 000 has none; its follow-ups are section 6)
WEEKLY_APPENDIX = ("activity",)
DAILY_ORDER = (
    ("summary", True),
    ("ecosystems", True),
    ("discussions", True),
    ("topics", True),
    ("key_prs", True),
    ("activity", True),
    ("attention", True),
    ("appendix", False),
)
SECTION_ORDERS = {
    "week": WEEKLY_ORDER,
    "day": DAILY_ORDER,
    "month": WEEKLY_ORDER,
    "custom": WEEKLY_ORDER,
}
APPENDIX_SECTIONS: dict[str, tuple[str, ...]] = {
    "week": WEEKLY_APPENDIX,
    "month": WEEKLY_APPENDIX,
    "custom": WEEKLY_APPENDIX,
}
APPENDIX_MODES = ("full", "compact", "none")
MAX_DAILY_KEY_PRS = 5
ATTENTION_KINDS = ("popular_bug", "open_rfc")


# "… and N more" after a run of links on the same line ("#1、#2、#3 等，另有 47 项" in Chinese);
# list.more stands on a line of its own ("……另有 21 项")
INLINE_MORE = "list.more_inline"


def _etc(m: Messages, text: str) -> str:
    """`text` (a list cut short) with the catalog's "…" / "等" after it (a space between a Latin
    word and a Chinese one, as the catalogs space them)."""
    etc = m.t("list.etc")
    if text[-1:].isascii() and text[-1:].isalnum() and _CJK.match(etc[:1]):
        return f"{text} {etc}"
    return text + etc


def _shown_modules(w: _Writer, modules: Sequence[str]) -> str:
    """At most MAX_ROW_MODULES modules of an item, readable, "…" after a longer list."""
    text = w.m.t("list.sep").join(w.module(x) for x in modules[:MAX_ROW_MODULES])
    return _etc(w.m, text) if len(modules) > MAX_ROW_MODULES else text


def _more(m: Messages, n: int, key: str = "list.more") -> str:
    return m.tn(key, n, count=num(n)) if n > 0 else ""


def _theme_more(w: _Writer, t: ThemeView, compact: bool = False) -> str:
    """A theme section 2 has no room for, named with what it holds: its PRs by kind ("Other work
    in Kernels (2 fixes and 1 feature)"), else their number; `compact`, by kind only when they
    are of one kind ("cherry-pick (9 CI changes)"), else by their number ("Simplify MC2 (4 PRs)").
    A line named by a title says its lead's number: "2 more changes in attention (#7297)" names
    no line, and the reader finds it by the number."""
    st = w.storyline_by_key().get(t.key)
    if st is not None and st.items and _title_name(w, st):
        # a name that is a title or a piece of one ("5/N Extract common code of mla_v1.py…",
        # 2025-W52) names no line: "3 more changes in attention"
        firsts = Counter(
            w.items[i.number].modules[0]
            for i in st.items
            if i.number in w.items and w.items[i.number].modules
        )
        areas = w.line_areas(st) or [w.module(m) for m, _ in firsts.most_common(1)]
        if areas and w.m.lang == "en":
            areas[0] = mid_sentence(areas[0])  # "in attention", "in MoE", "in Ascend 310P"
        n = len(st.items)
        if areas:
            text = w.m.tn("themes_more_area", n, count=num(n), area=areas[0])
        else:
            text = w.m.tn("themes_more_changes", n, count=num(n))
        if st.lead is None:
            return text
        return w.m.t("themes_more_lead", text=text, lead=w.ref(st.lead).label)
    if st is not None and st.items:
        n = len(st.items)
        if compact and len({i.role for i in st.items}) > 1:
            what = w.m.tn("themes_more_prs", n, count=num(n))
        else:
            what = w.roles_text(st)
        return w.m.t("themes_more_item", name=t.title, what=what)
    n = len(t.lines) + len(t.more)
    return w.m.t("themes_more_item", name=t.title, what=w.m.tn("themes_more_prs", n, count=num(n)))


MIN_TITLE_NAME_WORDS = 4  # a name of this many words found in a title of its line is the title


def _title_name(w: _Writer, st: Storyline) -> bool:
    """A line named by a title of its own or a piece of one (clipped: "…"), not by a name: four
    words or more of one of its titles, as written there."""
    name = st.name.strip("「」“”\"'…. ").casefold()
    if len(name.split()) < MIN_TITLE_NAME_WORDS:
        return False
    return any(
        name in " ".join(w.items[i.number].title.split()).casefold()
        for i in st.items
        if i.number in w.items
    )


def _cap(n: int, cap: int) -> int:
    """How many of `n` rows a capped list shows: all of them when only one would be left out
    ("… and 1 more" costs a line and hides the one)."""
    return n if n <= cap + 1 else cap


def _appendix_line(s: SummaryData, m: Messages) -> str:
    """The appendix's counts in one line ("New issues 3 · Merged PRs 120 · ...")."""
    a = s.appendix
    parts = []
    for name in APPENDIX_LISTS:
        count = len(getattr(a, name)) + max(0, int(a.omitted.get(name, 0)))
        # a list the source cannot fill is left out, never 0: the header says "n/a" for it once
        if getattr(s.counts, name, 0) is None and m.has("na.short"):
            continue
        shown = num(count)
        parts.append(m.t("appendix.line_item", name=m.t(f"appendix.{name}"), count=shown))
    return m.t("appendix.line_sep").join(parts)


MAX_TOPIC_TITLED = 3  # a topic's changes named with what they are (seed 003: 2-3 per topic)


def _topic_parts(w: _Writer, numbers: Sequence[int]) -> tuple:
    """A topic's changes, each with its title (its [Tags] left out) after its link, as seed 003
    names them ("KV cache management (batched copies #38216, TurboQuant #38280, …)"): a list of
    bare numbers told a reader nothing of what the topic holds (2026-03-24)."""
    m = w.m
    parts: list = []
    for i, n in enumerate(numbers[:MAX_TOPIC_TITLED]):
        ref = w.ref(n)
        title = _TITLE_TAGS.sub("", ref.title).strip() or ref.title
        if m.lang != "en" and not _CJK.search(title):
            title = m.t("quote.title", text=title)
        if i:
            parts.append(m.t("list.semicolon"))
        parts += [ref, " " + title]
    return tuple(parts)


def _topic_items(s: SummaryData, w: _Writer, module: str, taken: set[int]) -> list[int]:
    """A module's changes of the window that no topic above holds: key changes first, then the
    largest (a module's representatives are spread over modules: 2026-03-24's "Compilation and
    graphs (3 merged PRs)" named one) — those whose first module it is: a change that only
    touches it is another module's work (2026-06-10 listed the logging change #10201 under
    Kernels, its fifth module, and #10016 of kernels under Attention)."""
    keys = {k.item.number: k.score for k in s.key_prs}
    # (the items the module table counts, opened or merged in the window: the topic's count is
    # theirs, as the summary's is)
    a = s.appendix
    window = {i.number: i for i in (*a.new_issues, *a.new_prs, *a.merged_prs)}
    found = [
        i
        for i in window.values()
        if i.modules[:1] == (module,) and i.number not in taken and not i.bot
    ]
    found.sort(key=lambda i: (-keys.get(i.number, float("-inf")), -(i.additions + i.deletions)))
    return [i.number for i in found]


def _own_trends(s: SummaryData, mods: Sequence[ModuleTrend]) -> list[ModuleTrend]:
    """Modules counted as the module table counts them (the items opened or merged in the
    window), each item once, under its first module."""
    a = s.appendix
    window = {i.number: i for i in (*a.new_issues, *a.new_prs, *a.merged_prs)}
    merged = {i.number for i in a.merged_prs}

    def first(i: ItemRef, module: str) -> bool:
        return i.modules[:1] == (module,)

    return [
        t.model_copy(
            update={
                "total": sum(1 for i in window.values() if first(i, t.module)),
                "merged": sum(1 for i in a.merged_prs if first(i, t.module) and i.number in merged),
            }
        )
        for t in mods
    ]


def _support_item(item: ItemRef) -> bool:
    """A change of CI, docs or tests only, by its kinds: any CI change ("[CI] Add ci gate job",
    a test run made faster: platform-ci), or docs and tests alone or cleaned up; a feature or a
    fix that comes with tests ("feature, test": real #11451) is code."""
    kinds = set(item.categories)
    if kinds & CI_KINDS:
        return True
    return bool(kinds & DOC_TEST_KINDS) and kinds <= DOC_TEST_KINDS | {"refactor"}


def _topics(s: SummaryData, w: _Writer, m: Messages) -> tuple[Bullet, ...]:
    """Hot topics and trends of the day: storylines when there are any, else module trends."""
    out = []
    for st in s.storylines[:MAX_TOPICS]:
        numbers = [it.number for it in st.items]
        text = m.tn(
            "topics.storyline" + _all_merged(st),
            len(numbers),
            count=num(len(numbers)),
            merged=num(st.merged),
        )
        out.append(
            Bullet(
                text,
                head=st.name,
                key=st.key,
                links=tuple(w.ref(n) for n in numbers[:MAX_TOPIC_LINKS]),
                parts=_topic_parts(w, numbers),
                more=_more(m, len(numbers) - MAX_TOPIC_TITLED, INLINE_MORE),
            )
        )
    # then the busiest modules no topic above covers, two changes at least (a day of few named
    # lines had one topic where seed 003 has four; one PR is no topic); by their size — the
    # day before is no baseline to rank or tell a day by (2026-07-09: "This area was quiet in
    # the previous window" beside a quiet day of CI and docs)
    covered = {n for st in s.storylines[:MAX_TOPICS] for n in (it.number for it in st.items)}
    # a module told above as its line is not told again as a module
    told = _areas(s.model_copy(update={"storylines": s.storylines[:MAX_TOPICS]}), True)

    def support_module(t: ModuleTrend) -> bool:
        # a module most of whose changes are CI, docs or tests is one of those: its topic tells
        # them (2026-01-26's CI and build, 8 of 10 changes CI jobs, was told by its lint feature
        # and mypy fix alone: "CI and build (2 merged PRs)" beside the summary's 11)
        own = [i for i in w.items.values() if t.module in i.modules and i.merged and not i.bot]
        return 2 * sum(1 for i in own if _support_item(i)) > len(own)

    # the count the summary prints beside a module it names (its first-module changes)
    summary_counts = {t.module: t.merged for t in w.top_modules()} if w.own_counts() else {}

    mods = sorted(
        (
            t
            for t in s.modules
            if not t.fallback
            and t.total >= 2
            and not set(t.representative) <= covered
            and t.module not in told
        ),
        # the modules of code first, then those of CI, docs or tests
        key=lambda t: (support_module(t), -t.total, t.module),
    )
    for t in mods:
        if len(out) >= MAX_TOPICS:
            break
        numbers = _topic_items(s, w, t.module, covered) or [
            n for n in t.representative if n not in w.items or w.items[n].modules[:1] == (t.module,)
        ]
        if not numbers:
            continue  # its changes are other modules' work first: no topic of its own
        if not support_module(t):
            # a module of code is told by its code: a CI job or a test list tagged with it is
            # no work of the module (2026-07-09's MoE: #11528, #11087); none left, no topic
            numbers = [n for n in numbers if n not in w.items or not _support_item(w.items[n])]
            if not numbers:
                continue
        total, merged = t.total, t.merged
        if w.own_counts():
            # the count is of the changes the topic stands for, its own (the summary counts a
            # day's modules the same way: 2026-07-10's "Tests (4 merged PRs)" listed one)
            if len(numbers) < 2:
                continue  # one change of its own is no topic
            total = len(numbers)
            merged = len(set(numbers) & {i.number for i in s.appendix.merged_prs})
        text = m.tn(
            "topics.module" + ("_merged" if merged == total else ""),
            total,
            total=num(total),
            merged=num(merged),
        )
        if merged == total and total < summary_counts.get(t.module, 0):
            # fewer than the summary counts for it (some told in a topic above, by bots, or CI
            # jobs of a module of code): says which count it is, never a second one unexplained
            text = m.tn(
                "topics.module_of_summary",
                total,
                total=num(total),
                all=num(summary_counts[t.module]),
            )
        # (the changes the topic names by title are its own; the others stay for another topic)
        covered |= set(numbers[:MAX_TOPIC_TITLED])
        out.append(
            Bullet(
                text,
                head=w.module(t.module),
                key=t.module,
                links=tuple(w.ref(n) for n in numbers[:MAX_TOPIC_LINKS]),
                parts=_topic_parts(w, numbers),
                # (never more than the topic's count says: its items told above are not again)
                more=_more(m, min(len(numbers), total) - MAX_TOPIC_TITLED, INLINE_MORE),
            )
        )
    return tuple(out)


def _attention(s: SummaryData, w: _Writer, m: Messages) -> tuple[Bullet, ...]:
    """Issues worth attention: open bug and RFC follow-ups, then issues discussed in the window."""
    out, seen = [], set()
    for f in s.follow_ups:
        if f.kind not in ATTENTION_KINDS or f.item.number in seen:
            continue
        seen.add(f.item.number)
        out.append(
            Bullet(m.t(f"follow_ups.{f.kind}"), links=(link(f.item),), key=str(f.item.number))
        )
    for d in s.discussions:
        if d.item.kind != "issue" or d.item.number in seen or d.status != "open":
            continue
        seen.add(d.item.number)
        out.append(
            Bullet(
                m.t(
                    "attention.discussed",
                    comments=m.tn(
                        "units.comment", d.comments_in_window, count=num(d.comments_in_window)
                    ),
                    participants=m.tn(
                        "units.participant", len(d.participants), count=num(len(d.participants))
                    ),
                ),
                links=(link(d.item),),
                key=str(d.item.number),
            )
        )
    # what else an operator must know of the day, from the merged changes themselves (a source of
    # merged PRs has no issues; 2026-07-17 had a deadlock and a PD hang fixed and said neither):
    # fixes of a hang, crash or memory running out, removals users see, reverts, fixes of wrong
    # output, then reverts of CI or test changes
    ranked: list[tuple[int, int, Bullet]] = []
    for number, kind in _severe_fixes(s, w):
        item = w.items.get(number)
        d = item.digest if item is not None else None
        said = (d.error if kind == "error" else d.symptom) if d is not None else ""
        said = fit_sentence(said, EXCERPT_WHAT) if said else ""
        problem = m.name("problem_names", kind)
        text = (
            m.t(
                "attention.fixed_said",
                problem=problem,
                text=m.t("quote.what", text=said.rstrip("。.")),
            )
            if said
            else m.t("attention.fixed", problem=problem)
        )
        ranked.append(
            (
                3 if kind in ("accuracy", "error") else 0,
                len(ranked),
                Bullet(text, links=(w.ref(number),), key=str(number)),
            )
        )
    for inc in s.incidents:
        if refixed := w.refixed(inc):
            # one file fixed again and again (2026-07-09: the docs translation scripts fixed five
            # times over two days): how often and how fast, by the newest of its fixes
            text = "".join(p if isinstance(p, str) else p.label for p in refixed)
            last = inc.items[-1]
            ranked.append((2, len(ranked), Bullet(text, links=(w.ref(last),), key=str(last))))
            continue
        first = inc.items[0] if inc.items else None
        if first is None or inc.kind not in ("revert", "removal", "interface", *SAID_RISK_KINDS):
            continue
        if inc.kind == "revert" and inc.planned:
            continue  # told apart, in one line after the defect reverts (below)
        if inc.kind == "interface":
            # a setting users relied on removed or given a new default (one added breaks nothing)
            if inc.roles[:1] not in (("removed",), ("default",)):
                continue
            said = fit_sentence(inc.reason, EXCERPT_WHAT) if inc.reason else ""
            change = w.interface_change(inc)
            text = (
                m.t(
                    "attention.interface_text",
                    change=change,
                    text=m.t("quote.what", text=said.rstrip("。.")),
                )
                if said
                else m.t("attention.interface", change=change)
            )
            rank = 1
        elif inc.kind in SAID_RISK_KINDS:
            # what a change says of itself: tests loosened (a regression may now go unseen),
            # support narrowed, problems left open (2026-07-01 relaxed a threshold in 18 configs)
            said = fit_sentence(inc.reason, EXCERPT_WHAT) if inc.kind == "unfinished" else ""
            text = (
                m.t(f"attention.{inc.kind}_text", text=m.t("quote.what", text=said.rstrip("。.")))
                if said
                else m.t(f"attention.{inc.kind}")
            )
            rank = 1 if inc.kind == "unfinished" else 2
        elif inc.kind == "revert":
            # a revert is told as one: what it undid, and why when its description says
            # (2026-03-24: #7557 'Revert "GMM custom operator optimization …"' read as a removal
            # users may rely on); what it undid by number, else by the title it quotes
            why = fit_sentence(inc.reason, CLIP_NOTE * 2).rstrip("。.") if inc.reason else ""
            why = m.t("quote.what", text=why) if why else ""
            if len(inc.items) >= 2:
                reverted = w.ref(inc.items[1]).label
                # merged before the window: its day, as section 4 says it ("reverts #7100
                # (merged 2026-03-19): …", the day 2026-03-24)
                day = w.merged_day(inc.items[1]) if inc.across_windows else ""
                key = "attention.revert" + ("_merged" if day else "") + ("_why" if why else "")
                text = m.t(key, reverted=reverted, text=why, day=day)
            else:
                subject = _whole(inc.subject)
                said = m.t("quote.subject", text=subject) if subject else ""
                key = "attention.revert_subject" if said else "attention.revert_unnamed"
                text = m.t(key + ("_why" if why else ""), subject=said, text=why)
            undone = (w.items.get(inc.items[1]) if len(inc.items) >= 2 else None) or w.items.get(
                first
            )
            tooling = (
                undone is not None
                and bool({"ci", "test", "tests", "docs"} & set(undone.categories))
                or any(
                    _TOOLING_TAG.search(x.title)
                    for x in (undone, w.items.get(first))
                    if x is not None
                )
            )
            rank = 4 if tooling else 2
        else:
            said = fit_sentence(inc.reason, CLIP_NOTE * 2) if inc.reason else ""
            text = (
                m.t("attention.removal_text", text=m.t("quote.what", text=said))
                if said
                else m.t("attention.removal")
            )
            rank = 1
        ranked.append((rank, len(ranked), Bullet(text, links=(w.ref(first),), key=str(first))))
    for bullet in w.planned_line(linked_first=True):
        # after the defect reverts (rank 2) and before reverts of CI or test changes
        text = "".join(p if isinstance(p, str) else p.label for p in bullet.parts)
        first = w.planned_reverts()[0].items[0]
        ranked.append((3, len(ranked), Bullet(text, links=(w.ref(first),), key=str(first))))
    for _rank, _order, bullet in sorted(ranked, key=lambda r: r[:2]):
        if len(out) >= MAX_ATTENTION:
            break
        if bullet.key in {str(n) for n in seen}:
            continue
        seen.add(int(bullet.key))
        out.append(bullet)
    return tuple(out[:MAX_ATTENTION])


def _announced_risks(w: _Writer) -> tuple[Bullet, ...]:
    """The risks a day's lead and summary name, each explained where a day tells what is worth
    attention (seed 003): its severity, where, what to do, and every PR of it linked (a daily
    has no section 4; its lead must not announce what nothing in the report explains)."""
    m, out = w.m, []
    for r in w.announced_risks():
        text = m.tn(
            "risks.bullet", r.count, count=num(r.count), severity=m.t(f"severity.{r.severity}")
        )
        out.append(
            Bullet(
                text + w.risk_where(r),
                head=w.risk_name(r.risk),
                detail=m.t(f"risk_help.{r.risk}") if m.has(f"risk_help.{r.risk}") else "",
                links=tuple(w.ref(n) for n in dict.fromkeys(r.items)),
                # (an item list that is a sample of the count says how many it leaves out)
                more=_more(m, r.count - len(set(r.items)), INLINE_MORE),
                key=f"risk:{r.risk}",
            )
        )
    return tuple(out)


_TOOLING_TAG = re.compile(r"(?i)\[(?:ci|tests?|docs?|e2e|ut)\]")
# a leak of memory, not of state (shared.wording: config state "leaking" into other code paths,
# real #10146, told on 2026-06-10 as a memory problem, is none)
_MEMORY_LEAK = MEMORY_LEAK_PATTERN
# a fix of one of these is worth an operator's attention, in this order (title or what-sentence)
_SEVERE = (
    (
        "hang",
        re.compile(
            r"(?i)\b(?:dead-?lock\w*|hang(?:s|ing)?|hung|stuck|wait\w* (?:indefinitely|forever)|freez\w*)\b"
        ),
    ),
    ("crash", re.compile(r"(?i)\b(?:crash\w*|segfault\w*|segmentation fault|core ?dump\w*)\b")),
    ("oom", re.compile(rf"(?i)\b(?:oom|out of memory)\b|{_MEMORY_LEAK}")),
    (
        "accuracy",
        re.compile(r"(?i)\b(?:accuracy|precision|garbled|wrong (?:output|result|answer)s?|nan)\b"),
    ),
)
# an error a user hits, named by a fix's title ("Fix DeepSeek V3.2 "no attr" error") or its
# description's error sentence: told after the grave kinds (the digest's `error` is a sentence
# the classifier found; a title's error of CI, tests, lint or docs is none)
_ERROR_TITLE = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b|(?i:\b(?:errors?|exceptions?|assert\w*|no attr\w*"
    r"|fail(?:s|ed|ure)?\s+to\s+(?:start|load|launch|run|initiali[sz]e|import|serve)"
    r"|(?:cannot|can't|unable to)\s+(?:load|start|launch|run|initiali[sz]e|import|serve)\w*)\b)"
)
_NOT_USER_ERROR = re.compile(
    r"(?i)\b(?:ci|uts?|unit ?tests?|e2e|tests?|smoke|pytest|lint\w*|mypy|pre-commit|typos?|docs?"
    r"|documentation|spelling|error (?:logs?|messages?|msgs?|handling|codes?))\b"
)
_FIX_TITLE = re.compile(r"(?i)\bfix\w*|\bbug\w*|\bhotfix")


def _severe_fixes(s: SummaryData, w: _Writer) -> list[tuple[int, str]]:
    """Merged fixes of the window whose title or what-sentence names a severe problem, gravest
    kind first, then in merge order."""
    found = []
    for ref in s.appendix.merged_prs:
        item = w.items.get(ref.number, ref)
        if not (_FIX_TITLE.search(item.title) or "bugfix" in item.categories) or item.bot:
            continue
        symptom = item.digest.symptom if item.digest is not None else ""
        text = f"{item.title} {symptom}"
        at = item.merged_at or datetime.max.replace(tzinfo=UTC)
        for rank, (kind, pattern) in enumerate(_SEVERE):
            if pattern.search(text):
                found.append((rank, at, item.number, kind))
                break
        else:
            # an error a user hits: not a fix of CI, tests or docs alone
            error = item.digest.error if item.digest is not None else ""
            if (
                (error or _ERROR_TITLE.search(item.title))
                and not {"ci", "test", "tests", "docs"} & set(item.categories)
                and not _TOOLING_TAG.search(item.title)
                and not (not error and _NOT_USER_ERROR.search(item.title))
            ):
                found.append((len(_SEVERE), at, item.number, "error"))
    return [(number, kind) for _r, _t, number, kind in sorted(found)]


# the seeds' shape: a what-sentence in the main body is told whole or as its main clause within a
# budget (fit_sentence), else not at all — the title says it then; never cut into with "…" (the
# seed's highlight lines are 60-120 characters; the whole description stays on GitHub)
CLIP_HIGHLIGHT = (
    120  # a highlight's summary sentence (the seed's highlight bullets: 60-120 characters)
)
CLIP_LINE = 80  # a PR's sentence in a highlight
CLIP_WHAT = 160  # a theme line's what-sentence (a key PR's is told whole: EXCERPT_WHAT)
CLIP_NOTE = 80  # a note under a PR (user-facing change quoted)
# a repository's own reference in a finished sentence ("#11014"), not "owner/name#1" nor "a#1"
# a note that quotes the change's words (its user-facing sentence: "user-facing: “…”")
_QUOTED_NOTE = re.compile(r"[“「]")
_OWN_REF = re.compile(r"(?<![\w/#])#(\d+)\b")
CLIP_WHY = 140  # why a key change matters, in the quick view (seed 000: 40-90 characters)
EXCERPT_BODY = 600  # a description's opening read for its first sentences (no digest)


def _one_quote(ln: Line) -> Line:
    """A line of the main body: one claim quoted (its sentences were fitted where they were
    written: nothing here cuts into them)."""
    return dataclasses.replace(ln, quotes=ln.quotes[:1])


def _shape(view: ReportView, s: SummaryData, w: _Writer, m: Messages) -> None:
    """Section order per window kind, capped lists with "… and N more", the appendix mode, and
    the daily sections (topics, attention). Runs last in build_view; figures stay the summary's."""
    order = SECTION_ORDERS.get(s.window.kind, WEEKLY_ORDER)
    in_appendix = APPENDIX_SECTIONS.get(s.window.kind, ()) if order is WEEKLY_ORDER else ()
    if (
        order is WEEKLY_ORDER
    ):  # a section added to SECTION_ORDER later still shows, before the appendix
        known = {sid for sid, _ in order} | set(in_appendix)
        order = order[:-1] + tuple(x for x in SECTION_ORDER if x[0] not in known) + order[-1:]
    mode = getattr(s, "appendix_mode", "compact")
    view.appendix_mode = mode if mode in APPENDIX_MODES else "compact"
    line = _appendix_line(s, m)
    view.appendix_line = (
        m.t("appendix.none_note", counts=line) if view.appendix_mode == "none" else line
    )
    view.appendix_summary = m.t("appendix.summary")
    if view.appendix_mode == "compact":  # a dense table: at most MAX_ROW_MODULES modules a row
        mods_of = {i.number: i.modules for n in APPENDIX_LISTS for i in getattr(s.appendix, n)}
        view.appendix = tuple(
            dataclasses.replace(
                a,
                modules=tuple(_shown_modules(w, mods_of.get(lk.number, ())) for lk in a.links),
            )
            for a in view.appendix
        )
    # capped tables: say how many rows are left out
    # the rows left out are the modules with fewer changes ("… and 19 more" hung under the table)
    view.modules_more = _more(m, len(s.modules) - len(view.modules), "modules_table.more")
    view.contributors_more = _more(m, len(w.people()) - len(view.contributors), "list.more_people")
    if s.window.kind == "day":
        view.key_prs = view.key_prs[:MAX_DAILY_KEY_PRS]
    view.key_prs_more = _more(m, len(s.key_prs) - len(view.key_prs))
    mods = {k.item.number: k.item.modules for k in s.key_prs}
    view.key_prs = tuple(
        dataclasses.replace(
            r,
            modules=_shown_modules(w, mods.get(r.link.number, ())),
        )
        if r.link.number in mods
        else r
        for r in view.key_prs
    )
    # risks: every risk's list capped; low-severity risks as links; at most MAX_RISKS_DETAILED
    by_risk = {r.risk: r for r in s.risks}
    risks = []
    for b in view.risks:
        r = by_risk.get(b.key)
        if r is None:
            risks.append(b)
            continue
        shown = len(b.lines) + len(b.links)
        if r.severity == "low" and b.lines:
            b = dataclasses.replace(b, links=tuple(ln.link for ln in b.lines) + b.links, lines=())
        if b.lines and b.links and r.count <= len(r.items) and len(b.links) <= MAX_NAMED_LINKS:
            # the PRs after the titled ones, each linked under a lead-in ("The other 5: #…"); a
            # broad one's (28 core-path changes, 37 of CI) is a count: a wall of numbers tells a
            # reader nothing the appendix does not, and the report would outgrow the seed's length
            more = m.tn("risks.rest", len(b.links), count=num(len(b.links)))
        elif b.lines:
            # (an item list that is a sample of the count: its titled PRs and how many more)
            b = dataclasses.replace(b, links=())
            more = _more(m, max(r.count, len(r.items)) - len(b.lines))
        else:
            # the risk's count is the true total (its item list may be a bounded sample)
            more = _more(m, max(r.count, len(r.items)) - shown, INLINE_MORE)
        risks.append(dataclasses.replace(b, more=more))
    kept, rest = risks[:MAX_RISKS_DETAILED], risks[MAX_RISKS_DETAILED:]
    view.risks = tuple(kept)
    if rest:
        told = {
            lk.number for b in view.incidents for lk in (*b.links, *b.parts) if isinstance(lk, Link)
        }
        view.risks_more_parts = _risks_more_parts(rest, by_risk, w, told)
        # (the same line in plain words: nothing left when section 4 told all of it)
        view.risks_more = "".join(
            p if isinstance(p, str) else p.label for p in view.risks_more_parts
        )
    view.risk_bullets = tuple(
        dataclasses.replace(
            b,
            more=_more(
                m,
                max(by_risk[b.key].count, len(by_risk[b.key].items)) - len(b.links),
                INLINE_MORE,
            ),
        )
        if b.key in by_risk
        else b
        for b in view.risk_bullets
    )
    view.highlights = tuple(
        dataclasses.replace(
            b,
            lines=tuple(_one_quote(ln) for ln in b.lines[:MAX_HIGHLIGHT_PRS]),
        )
        for b in view.highlights
    )
    # a theme tells MAX_THEME_PRS PRs (seed 000: 2-4); the others stay as links
    view.themes = tuple(
        dataclasses.replace(
            t,
            lines=tuple(_one_quote(ln) for ln in t.lines[:MAX_THEME_PRS]),
            more=tuple(ln.link for ln in t.lines[MAX_THEME_PRS:]) + tuple(t.more),
        )
        for t in view.themes
    )
    # a line's other PRs by kind ("Also 8 fixes: #…; 2 features: #…")
    lines_by_key = w.storyline_by_key()
    view.themes = tuple(
        dataclasses.replace(
            t,
            more_groups=w.more_by_role(
                [lk.number for lk in t.more],
                {i.number: i.role for i in lines_by_key[t.key].items},
            ),
        )
        if t.key in lines_by_key and t.more
        else dataclasses.replace(
            t, more_groups=((m.tn("themes.more_key", len(t.more), count=num(len(t.more))), t.more),)
        )
        if t.key == "key-prs" and t.more
        else t
        for t in view.themes
    )
    view.key_prs = tuple(dataclasses.replace(k, quotes=k.quotes[:1]) for k in view.key_prs)
    if len(view.themes) > MAX_THEMES:
        rest = view.themes[MAX_THEMES:]
        view.themes = view.themes[:MAX_THEMES]
        # each with what it holds ("Also active: Other work in Kernels." said nothing, 2026-W22)
        # lines said by their area last: "2 more changes in patches and CPU (…)" read as one
        by_key = w.storyline_by_key()
        rest = sorted(
            rest, key=lambda t: (st := by_key.get(t.key)) is not None and _title_name(w, st)
        )
        # the first MAX_MORE_DETAILED by kind, the others by name and count (a line of one kind
        # keeps it: "cherry-pick (9 CI changes)" is no longer than "(9 changes)")
        view.themes_more = m.t(
            "themes_more",
            themes=m.join(
                [_theme_more(w, t, compact=i >= MAX_MORE_DETAILED) for i, t in enumerate(rest)]
            ),
        )
    if s.window.kind != "day":
        _told_once(view, w)
    follow_ups = view.follow_ups
    view.follow_ups = tuple(
        dataclasses.replace(
            b,
            links=b.links[: _cap(len(b.links), MAX_FOLLOW_UP_LINKS)],
            more=_more(m, len(b.links) - _cap(len(b.links), MAX_FOLLOW_UP_LINKS), INLINE_MORE),
        )
        for b in follow_ups[:MAX_FOLLOW_UPS]
    )
    view.follow_ups_more = _more(m, len(follow_ups) - len(view.follow_ups))
    # ecosystems: each group (and the issues) capped
    ecos = []
    issues_more = []
    for e in view.ecosystems:
        if s.window.kind == "day":  # seed 003: a line per PR, what it does
            groups = tuple(
                dataclasses.replace(
                    g,
                    lines=g.lines[:MAX_ECOSYSTEM_LINES],
                    more=_more(m, len(g.lines) - MAX_ECOSYSTEM_LINES),
                )
                for g in e.groups
            )
        else:  # a week: each group in one line of links (the items are in the appendix)
            groups = tuple(
                dataclasses.replace(
                    g,
                    lines=(),
                    links=tuple(ln.link for ln in g.lines[:MAX_ECOSYSTEM_LINKS]),
                    more=_more(m, len(g.lines) - MAX_ECOSYSTEM_LINKS, INLINE_MORE),
                )
                for g in e.groups
            )
        issues_more.append(_more(m, len(e.issues) - MAX_ECOSYSTEM_LINES))
        ecos.append(dataclasses.replace(e, groups=groups, issues=e.issues[:MAX_ECOSYSTEM_LINES]))
    view.ecosystems = tuple(ecos)
    view.ecosystem_issues_more = tuple(issues_more)
    if s.window.kind == "day":
        view.topics = _topics(s, w, m)
        view.attention = _attention(s, w, m)
        view.attention_risks = _announced_risks(w)
        view.hourly_chart = bool(s.hourly)
        if not view.topics:
            view.notes["topics"] = m.t("labels.none")
        if not view.attention:
            lacking = w.not_provided(SECTION_NEEDS["attention"])
            # (the merged changes were read: the source's missing issues are said beside that)
            view.notes["attention"] = (
                m.t("attention.none_merged", what=lacking) if lacking else m.t("attention.none")
            )
    # a section the source cannot fill or that has nothing this window is left out, and the
    # others numbered on (the data note at the top says what the source lacks; a daily opened
    # with "2. Ecosystems — no data" and "3. Hot discussions — not provided")
    order = tuple(
        (sid, n) for sid, n in order if sid not in LEFT_OUT_EMPTY or sid not in view.notes
    )
    view.order = tuple(sid for sid, _ in order)
    number = 0
    view.sections.clear()
    for sid, numbered in order:
        if numbered:
            number += 1
        key = f"sections_{s.window.kind}.{sid}"
        view.sections[sid] = Section(
            sid, number if numbered else None, m.t(key) if m.has(key) else m.t(f"sections.{sid}")
        )
    # the appendix's first subsections (a week's activity observations), unnumbered; one with
    # nothing this window says so there, as a section of the main body did
    view.appendix_sections = in_appendix if "appendix" in view.sections else ()
    for sid in view.appendix_sections:
        view.sections[sid] = Section(sid, None, m.t(f"sections.{sid}"))
    # the top's list is a counted summary; its details and actions have one home, section 4
    told = view.sections.get("risks")
    if (
        "risk_bullets" in view.sections
        and told is not None
        and told.number
        and (view.incident_bullets or view.risk_bullets)
        and (view.incidents or view.risks)
    ):
        view.risks_pointer = m.t("risks.pointer", section=told.title)


# the most PRs a risk line names by number after its titled ones; beyond it, how many (2026-W24:
# "The other 28" core-path changes and 37 CI changes as links made section 4 a wall of numbers)
MAX_NAMED_LINKS = 12


def _risks_more_parts(
    rest: Sequence[Bullet],
    by_risk: dict[str, RiskObservation],
    w: _Writer,
    told: Collection[int] = (),
) -> tuple:
    """The closing "Also observed: …" line with each group's PRs named in place ("Breaking
    changes (#11021)"), as the other risk lines name theirs: every one of them, links are short
    (2026-W02 said "CI or build file changes (26 items)" and no line of the report said which).
    A revert that section 4 already tells (`told`: the PRs its incident lines link) is not named
    again; a group of reverts all told there is left out (2026-W02 said its three reverts at the
    top, in section 4, and once more here)."""
    m, links = w.m, []

    def token(number: int) -> str:
        links.append(w.ref(number))
        return f"\x00{len(links) - 1}\x00"

    groups = []
    for b in rest:
        r = by_risk.get(b.key)
        count = r.count if r is not None else 0
        items = list(dict.fromkeys(r.items)) if r is not None else []
        if b.key == "revert" and items:
            items = [n for n in items if n not in told]
            if not items:
                continue
            count = len(items)
        if items and count <= len(items) <= MAX_NAMED_LINKS:
            refs = m.t("list.ref_sep").join(token(n) for n in items)
            groups.append(m.t("risks.more_named", risk=b.head, items=refs))
        else:
            groups.append(m.tn("summary.risk", count, risk=b.head, count=num(count)))
    if not groups:
        return ()
    text = m.t("risks.more_kinds", risks=m.join(groups))
    return tuple(
        links[int(piece)] if i % 2 else piece
        for i, piece in enumerate(text.split("\x00"))
        if i % 2 or piece
    )


def _told_once(view: ReportView, w: _Writer) -> None:
    """A PR's sentence is printed once in a week's report: a highlight whose line of work section
    2 tells says its lead's sentence and names its PRs by title (section 2 tells the other PRs'
    sentences, and the lead by its title and notes), and the key-PR
    quick view (a table: why picked, area, size) shows a what-sentence only for a key PR whose
    sentence nothing above printed."""
    told_lines = {t.key for t in view.themes}
    by_key = w.storyline_by_key()

    def titles_only(b: Bullet) -> Bullet:
        told = w.storyline_highlight(by_key[b.key], told=True)
        return dataclasses.replace(told, lines=told.lines[:MAX_HIGHLIGHT_PRS])

    view.highlights = tuple(
        titles_only(b) if b.key in told_lines and b.key in by_key else b for b in view.highlights
    )
    # a highlight of a line section 2 tells says what the line is about with its lead's
    # sentence, as section 2 would have told it; section 2 then gives the lead its title and
    # notes (a sentence is printed once, and a highlight of counts alone says nothing)
    lead_line = {
        t.key: ln
        for t in view.themes
        if t.key in by_key
        for ln in t.lines
        if ln.link.number == by_key[t.key].lead
        and ln.text
        # a description that repeats its title (real #13350) says nothing more
        and _bare(w.what(w.items.get(ln.link.number))) not in (_bare(ln.link.title), "")
    }
    # ... and section 2 is never left with a bare title (2026-W27's #10935 "[CI] upgrade vllm to
    # 0619" showed "_CI_" alone): the lead keeps a sentence of its own the highlight does not say
    # — the rest of its what-sentence, else what went wrong or a setting it changes — or, with
    # none, keeps its sentence and the highlight names the line by its facts and titles
    split = {k: w.lead_split(ln) for k, ln in lead_line.items()}
    moved = {
        b.key
        for b in view.highlights
        if b.key in told_lines and b.key in lead_line and split[b.key] is not None
    }
    # a lead with no other sentence keeps its sentence in section 2, and its highlight says it
    # too (a week's main body has the room since its activity observations moved to the
    # appendix): "2 fixes, 3 test changes and 2 CI changes. Fixing the precision issue of
    # qwen3.5 with pcp integration — #11195 …; #11072 …" (2026-W27), not kinds and titles alone
    kept = {
        b.key
        for b in view.highlights
        if b.key in told_lines and b.key in lead_line and split[b.key] is None
    }
    view.highlights = tuple(
        dataclasses.replace(
            b,
            text=w.m.t("list.sentence").join(
                x for x in (w.line_facts(by_key[b.key]), said[0].rstrip(".!")) if x
            ),
        )
        if b.key in moved and (said := split[b.key]) is not None
        else dataclasses.replace(
            b,
            text=w.m.t("list.sentence").join(
                x for x in (w.line_facts(by_key[b.key]), lead_line[b.key].text.rstrip(".!")) if x
            ),
        )
        if b.key in kept
        else b
        for b in view.highlights
    )
    view.themes = tuple(
        dataclasses.replace(
            t,
            lines=tuple(
                dataclasses.replace(ln, text=said[1])
                if ln is lead_line[t.key] and (said := split[t.key]) is not None
                else ln
                for ln in t.lines
            ),
        )
        if t.key in moved
        else t
        for t in view.themes
    )
    # a change told as a highlight with its sentence: section 2 names it by title and notes
    standout = {
        b.lines[0].link.number
        for b in view.highlights
        if b.key.startswith("pr:") and b.lines and b.lines[0].link.number in w.said_whats
    }
    view.themes = tuple(
        dataclasses.replace(
            t,
            lines=tuple(
                dataclasses.replace(ln, text="") if ln.link.number in standout else ln
                for ln in t.lines
            ),
        )
        for t in view.themes
    )
    said = {ln.link.number for t in view.themes for ln in t.lines if ln.text or ln.excerpt}
    said |= {lead_line[k].link.number for k in moved} | standout
    for b in view.highlights:
        if b.key in told_lines or b.key not in by_key:
            continue  # titles only
        lead = by_key[b.key].lead
        if lead is not None and b.text != w.line_facts(by_key[b.key]):
            said.add(lead)  # the bullet's sentence is its lead's
        said |= {
            ln.link.number
            for ln in b.lines
            if ln.text and ln.text != w.m.t("quote.title", text=ln.link.title)
        }
    signals = {k.item.number: k.signals for k in w.s.key_prs}
    keys = {k.item.number: k for k in w.s.key_prs}

    def why(k: KeyPRRow) -> str:
        # the table's column: why the change matters — what it does when its row no longer
        # shows it (told above) — then why it was picked (KeyPR.reasons); an older summary
        # without reasons gives its strongest signals
        key = keys.get(k.link.number)
        if key is not None and (key.reasons or w.user_effect(key.item)):
            # a sentence is printed once: one told above is not told again here
            return w.why_key(key, what_shown=k.link.number in said)
        if k.why:
            return k.why
        top = sorted(signals.get(k.link.number, ()), key=lambda g: (-g.points, g.name))[:3]
        return w.m.t("list.semicolon").join(w.m.name("signal_names", g.name) for g in top)

    view.key_prs = tuple(
        # a what-sentence not told above goes to the why column (why_key): the title alone here
        dataclasses.replace(
            k,
            what="" if k.link.number in said or k.link.number in keys else k.what,
            why=why(k),
            quotes=(),
        )
        for k in view.key_prs
    )


# sections made from what many sources lack (comments and reviews; an ecosystem's contributors):
# left out when empty rather than shown to say so (the other sections say "nothing this window",
# which is news for them)
LEFT_OUT_EMPTY = frozenset({"discussions", "ecosystems"})


def mid_sentence(name: str) -> str:
    """An English display name as written inside a sentence: a common phrase lowered ("in
    speculative decoding", "in models"), a proper name kept — an acronym or mixed case ("MoE"),
    or a name whose later words are capitalised or carry digits ("Ascend 310P", "Intel XPU",
    "Atlas A3"), which makes its first word a name too."""
    words = name.split()
    if not words or not words[0][:1].isupper() or not words[0][1:].islower():
        return name
    if any(w[:1].isupper() or any(c.isdigit() for c in w) for w in words[1:]):
        return name
    return name[0].lower() + name[1:]


def _all_merged(st: Storyline) -> str:
    """The catalog key's suffix for a line whose every PR is merged ("3 merged PRs", not "3 PRs,
    3 merged")."""
    return "_merged" if st.merged == len(st.items) else ""


_MAIN_TO = re.compile(r"(?P<project>.+) main to (?P<date>\d{2}-\d{2})")  # storylines.MAIN_TO
TOPIC_KEY = "topic:"  # storylines.TOPIC_PREFIX: the key of a profile's topic's line


def _named_storylines(s: SummaryData, m: Messages) -> SummaryData:
    """Storylines the summarizer names by kind rather than from the data ("removals") are named
    in the report's language; the others keep the name their titles gave them."""

    areas = _areas(s) if s.window.kind == "day" else None

    def name(st: Storyline) -> str | None:
        if st.key.startswith(TOPIC_KEY):
            # a profile's topic is named by the profile, in the report's language when it
            # gives one ("310P（Atlas 300I 推理卡）"): the report's own words, never quoted as a
            # title is (2026-W27: "「310P (Atlas 300I inference cards)」")
            return st.names.get(m.lang) or st.name
        if (dated := _MAIN_TO.fullmatch(st.name)) and m.has(f"storyline_names.{st.key}_main"):
            # pins of the upstream's main branch by the day ("vLLM main to 12-27"): no version
            # ("vLLM 12.27 版本同步" read as a version 12.27, 2025-W52)
            month, day = dated["date"].split("-")
            return m.t(
                f"storyline_names.{st.key}_main",
                project=dated["project"],
                date=dated["date"],
                month=str(int(month)),
                day=day,
            )
        if st.key.startswith("ref:") and re.fullmatch(r"#\d+", st.name):
            # a line of the changes that link one issue or RFC whose title the data lacks
            # (storylines' "ref:#4629"): "Work linked to #4629", not a bare number for a name
            return m.t("storyline_names.linked", number=st.name)
        if st.key == "release" and m.has("storyline_names.release"):
            # storylines.RELEASE_KEY: "Release v0.9.1" named by the version as its titles spell it
            version = st.name.removeprefix("Release ")
            if version == st.name:
                version = f"v{st.terms[0]}" if st.terms else st.name
            return m.t("storyline_names.release", version=version)
        if m.has(f"storyline_names.{st.key}"):  # (an upgrades line: "Keeping up with {name}")
            return m.t(f"storyline_names.{st.key}", name=st.name)
        if st.evidence == "module" and areas is not None and st.name not in areas:
            # a day's hot topic of a module no named line shares is the area itself
            # ("Speculative decoding", not "Other work in Speculative decoding": 2026-06-10)
            return m.name("module_names", st.name)
        if st.evidence == "module":
            # a module's line holds what no named line took: "Other work in Models", so that
            # its count does not read against the module's own ("Models: 32 items", 2026-W27)
            return m.t("story.module_line", module=m.name("module_names", st.name))
        return None

    def quoted(st: Storyline) -> str | None:
        # a name that is a phrase of ordinary English words ("Rewrite Qwen3-30B-A3B and …
        # tutorials") is quoted in a report in another language, as titles are (2026-W27:
        # "持平（Rewrite …）"); a proper name — a product, model or hardware, its words
        # capitalised, numbers or codes ("Ascend 950 (A5)", "DeepSeek V4") — is written as it
        # is, as Chinese text writes names (2026-W22: "「Ascend 950 (A5)」"), and so is a name
        # of one or two words ("build cache")
        return m.t("quote.title", text=st.name) if _phrase_name(m, st.name) else None

    named = [(st, name(st) or quoted(st)) for st in s.storylines]
    if not any(n for _, n in named):
        return s
    return s.model_copy(
        update={
            "storylines": tuple(st.model_copy(update={"name": n}) if n else st for st, n in named)
        }
    )


def _areas(s: SummaryData, module_lines: bool = False) -> set[str]:
    """The modules of the report's named lines (with `module_lines`, of its modules' lines):
    each line's most common first module."""
    window = {i.number: i for name in APPENDIX_LISTS for i in getattr(s.appendix, name)}
    out = set()
    for st in s.storylines:
        if (st.evidence == "module") != module_lines:
            continue
        firsts = Counter(
            window[it.number].modules[0]
            for it in st.items
            if it.number in window and window[it.number].modules
        )
        if firsts:
            out.add(firsts.most_common(1)[0][0])
    return out


DOCS_MODULES = frozenset({"docs", "documentation"})
# a change named beside the window's line totals: at least a quarter of the lines added (or
# removed) and this many of them — 10 of 81 weeks of vllm-ascend's history name one more change
# than the net sentence does (2026-W27 #11340, 2026-W26 #11021, 2026-W31 #12592, …)
DRIVER_SHARE = 4
DRIVER_MIN_LINES = 5000
# an ordinary English word of a name, all small letters ("and", "cache"), not a code or a name
_ORDINARY_WORD = re.compile(r"[a-z]{2,}")


def _phrase_name(m: Messages, name: str) -> bool:
    """Whether a name is quoted in a report in another language than English: a phrase of three
    words or more with ordinary words ("Rewrite Qwen3-30B-A3B and … tutorials") reads as a title;
    a proper name ("Ascend 950 (A5)", "DeepSeek V4") or a name of one or two words ("build
    cache", "Reduce sampling") is written as it is."""
    words = name.split()
    if m.lang == "en" or len(words) < 3 or _CJK.search(name):
        return False
    return any(_ORDINARY_WORD.fullmatch(w) for w in words)


TOP_RISK_BULLETS = 5  # the seeds' 4-5 risk bullets at the top
RISK_AREAS = 3  # lines of work or modules named for where a tag risk's items are


def _top_risks(
    risks_sorted: Sequence[RiskObservation], s: SummaryData, incidents: int | None = None
) -> list[RiskObservation]:
    """The tag-based risks for the top of the report, beside the evidence-based incidents (told
    first): together at most the seeds' five bullets, at least the two gravest tag risks (a long
    list of medium path and tag risks buries the reverts and instability; section 4 has them all).
    The core-path and test-coverage risks count as one (they are told as one bullet)."""
    room = max(2, TOP_RISK_BULLETS - (len(s.incidents) if incidents is None else incidents))
    together = _core_tests_told_together(s)
    out: list[RiskObservation] = []
    bullets = 0
    for r in risks_sorted:
        if together and r.risk in CORE_TEST_RISKS and any(x.risk in CORE_TEST_RISKS for x in out):
            continue  # told with the first of them
        if bullets >= room:
            break
        bullets += 1
        out += (
            [x for x in risks_sorted if x.risk in CORE_TEST_RISKS]
            if (together and r.risk in CORE_TEST_RISKS)
            else [r]
        )
    return out


# core paths changed, and changes without tests: one bullet at the top, as seed 000 says it ("32
# PRs changed core paths, 36 lack test coverage"), instead of three that share their items
CORE_TEST_RISKS = ("core-without-tests", "core-change", "code-without-tests")
CORE_TESTS = "core-tests"  # the bullet's name (risk_names.core-tests)
_CORE_TESTS_ORDER = ("core-without-tests", "code-without-tests", "core-change")


def _core_tests_told_together(s: SummaryData) -> bool:
    return sum(1 for r in s.risks if r.risk in CORE_TEST_RISKS) >= 2


def _risk_bullets(w: _Writer, tops: Sequence[RiskObservation]) -> tuple[Bullet, ...]:
    """The top's risk bullets; the core-path and test-coverage risks as one."""
    together = (
        [r for r in tops if r.risk in CORE_TEST_RISKS] if _core_tests_told_together(w.s) else []
    )
    out: list[Bullet] = []
    for r in tops:
        if r in together:
            if r is together[0]:
                out.append(w.core_tests_bullet(together))
            continue
        out.append(w.risk_bullet(r, detailed=False))
    return tuple(out)


def build_view(s: SummaryData, messages: Messages) -> ReportView:
    """The report for one summary in one language (every figure taken from `s`)."""
    s = bounded(s, combined_repo_url(s))  # links on the forge only, titles cut
    s = _named_storylines(s, messages)
    w = _Writer(s, messages)
    risks_sorted = sorted(s.risks, key=lambda r: (_SEVERITY[r.severity], -r.count, r.risk))
    view = ReportView(
        lang=messages.lang,
        title=w.title(),
        repo=shown_repo(s),
        repo_url=w.repo_url,
        kind=s.window.kind,
        labels=w.labels(),
        header=w.header(),
        counts=w.counts(),
        notice=w.notice(),
        changed=w.changed(),
        lead=w.lead(),
        highlights=w.highlights(),
        risk_bullets=_risk_bullets(
            w, _top_risks(risks_sorted, s, len(w.short_incidents()) - len(w.planned_line()))
        ),
        summary=w.summary(),
        themes=(w.storyline_themes() if s.storylines else tuple(w.theme(t) for t in s.themes)),
        modules=w.module_rows(),
        modules_text=w.modules_text(),
        key_prs=tuple(
            w.key_pr_explained(k)
            for k in sorted(s.key_prs, key=lambda k: (-k.score, k.item.number))[
                : _cap(len(s.key_prs), MAX_KEY_PRS)
            ]
        ),
        discussions=tuple(w.discussion(d) for d in s.discussions[:MAX_DISCUSSIONS]),
        ecosystems=tuple(w.ecosystem(e) for e in s.ecosystems),
        activity=w.activity(),
        contributors=w.contributor_rows(),
        risks=tuple(w.risk_bullet(r, detailed=True) for r in risks_sorted),
        follow_ups=w.follow_ups_grouped(
            None
            if s.window.kind == "day"  # (a day has no section 4: its follow-ups stay)
            else w.acted_in_risks([r.risk for r in risks_sorted[:MAX_RISKS_DETAILED]])
        ),
        appendix=w.appendix(),
        notes=w.notes(),
        incidents=w.detailed_incidents(),
        incident_bullets=w.short_incidents(),
        coverage=w.coverage(),
        na_note=w.na_note(),
        hidden=w.hidden_columns(),
        repo_counts=repo_counts(w),
        footer=w.footer(),
    )
    number = 0
    for sid, numbered in SECTION_ORDER:
        if numbered:
            number += 1
        view.sections[sid] = Section(
            sid, number if numbered else None, messages.t(f"sections.{sid}")
        )
    _shape(view, s, w, messages)  # the seeds' shape: order per window kind, caps, appendix mode
    _with_measures(view, w)
    _sentence_starts(view)
    return view


def _sentence_starts(view: ReportView) -> None:
    """A name that opens a line of an English report opens a sentence: its first word
    capitalised when it is a plain lower-case word taken from titles ("1. **Translate** (3
    merged PRs)", not "translate", 2026-07-09), never an identifier ("vllm_config") or a title
    (a line's titles stay as written)."""
    if view.lang != "en":
        return
    view.highlights = tuple(
        dataclasses.replace(b, head=_capitalised(b.head)) for b in view.highlights
    )
    view.topics = tuple(dataclasses.replace(b, head=_capitalised(b.head)) for b in view.topics)
    view.themes = tuple(dataclasses.replace(t, title=_capitalised(t.title)) for t in view.themes)


# English words in a metric ("avg", "Mean", "throughput", "_create_custom_4d_mask"), not an
# acronym or a unit alone ("TTFT", "TTFT (ms)", "HBM")
_PROSE_WORD = re.compile(r"[a-z]{3,}")
# a space a template put between Chinese text, or after a closing quote, where Chinese has none
_TEMPLATE_GAP = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff「])|(?<=」)\s+")
# a figure that states a change by itself: a percentage, a ratio, a speed-up
_RATIO = re.compile(r"\d\s?(?:%|[x×]|pp\b|times\b)", re.I)
MEASURED_CHARS = 80  # the few words of a measured figure beside a line


def _states_change(c: Claim) -> bool:
    """Whether a claim states a measured change: a pair with what it measured (a table row's
    metric or case counts), a pair of figures with units or with a change column, a trend with
    what it measured and a figure; a level alone ("TTFT 330ms") states none."""
    if c.before and c.after:
        if c.metric or (c.header and any(_table_row(c))):
            return True
        return bool(_RATIO.search(" ".join(c.figures))) or any(
            ch.isalpha() for ch in c.before + c.after
        )
    return bool(c.trend and c.metric and c.figures)


def _row_cells(row: str) -> list[str]:
    """The cells of a table row as the digest quotes it ("| 16k | 1297.01 | 911.74 |")."""
    parts = row.strip().split("|")
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return [" ".join(p.split()) for p in parts]


# a header cell's words that say which side of a comparison a column holds, not what it measured
# ("Mean TTFT (ms) main", "Averave Time After(us)", "Before this PR"): generic English words
_SIDE_WORD = re.compile(
    r"(?i)^(?:this|pr|main|baseline|base|before|after|current|new|old|ours|origin(?:al)?"
    r"|patched|unpatched|optimi[sz]ed|with|without|w/o|w/)$"
)
_HEADER_WORD = re.compile(r"\([^()]*\)|[^\s()]+")


def _column_metric(before_head: str, after_head: str) -> str:
    """What two header cells say their columns measured: the words both share at their start
    and end, without a side's word ("Averave Time Before(us)", "Averave Time After(us)" →
    "Averave Time (us)"; "Baseline", "Current" → "")."""
    b, a = _HEADER_WORD.findall(before_head), _HEADER_WORD.findall(after_head)
    n = 0
    while n < min(len(b), len(a)) and b[n] == a[n]:
        n += 1
    k = 0
    while k < min(len(b), len(a)) - n and b[-1 - k] == a[-1 - k]:
        k += 1
    words = [w for w in b[:n] + (b[len(b) - k :] if k else []) if not _SIDE_WORD.match(w)]
    return " ".join(words) if any(ch.isalpha() for w in words for ch in w) else ""


def _table_row(c: Claim) -> tuple[str, str]:
    """What a table row's claim measured and which case its row is: the metric (the digest's,
    else what the header's before and after columns share) and the row's first cell when the
    row holds both figures ("16k" of "| 16k | 1297.01 | 911.74 |"); a row of this change beside
    a baseline row ("| With this PR | 96.06 |") names the change, no case."""
    cells, head = _row_cells(c.sentence), _row_cells(c.header)
    metric = c.metric
    if c.before not in cells or c.after not in cells:
        return metric, ""
    at_b, at_a = cells.index(c.before), cells.index(c.after)
    if not metric and len(head) == len(cells):
        metric = _column_metric(head[at_b], head[at_a])
    label = cells[0] if at_b > 0 and at_a > 0 and cells[0] != metric else ""
    return metric, label


# a figure as a table cell or a sentence writes it: a sign, a number, its unit ("603.63ms",
# "1,228.9 tok/s", "-3.5%"); a figure with a qualifier ("~0.67ms", "<1%") or a range is no number
_CELL_FIGURE = re.compile(r"^([+\-−]?)(\d+(?:[.,]\d+)*)\s?([^\d\s~<>≤≥±].*)?$")
_THOUSANDS_SEP = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def _figure_value(fig: str) -> tuple[float, str] | None:
    """A figure's number and unit in lower case ("ms", "%", "" for a bare number), or None."""
    m = _CELL_FIGURE.match(fig.strip())
    if m is None:
        return None
    digits = m.group(2)
    digits = digits.replace(",", "") if _THOUSANDS_SEP.match(digits) else digits.replace(",", ".")
    try:
        value = float(digits)
    except ValueError:  # "1.2.3"
        return None
    unit = re.sub(r"\s*\([^()]*\)$", "", (m.group(3) or "").strip()).lower()
    return (-value if m.group(1) else value), unit


def _signed_amount(x: float) -> str:
    """A change as a reader reads it: "+14", "−30", "−99.6", "+0.8" (a whole number from 10 up,
    one decimal below 10 and where a whole number would say 100 of a change that is not)."""
    a = abs(x)
    text = f"{a:.0f}" if 10 <= a < 99.5 or a >= 100.5 else f"{a:.1f}"
    text = text.removesuffix(".0") if a >= 10 else text
    return ("+" if x > 0 else "−") + text


def _relative_change(c: Claim, m: Messages) -> str:
    """How much a pair changed, worked out from its two figures when both are numbers with the
    same unit ("−30%" of 1297.01 → 911.74); a pair of percentages changes by points ("+55.3
    pp" of 1.18% → 56.47%); "" otherwise (other units, a qualifier, a zero baseline)."""
    b, a = _figure_value(c.before), _figure_value(c.after)
    if b is None or a is None or b[1] != a[1] or a[0] == b[0]:
        return ""
    if b[1] == "%":
        return m.t("measured.points", value=_signed_amount(a[0] - b[0]))
    if b[0] == 0:
        return ""
    return m.t("measured.percent", value=_signed_amount((a[0] - b[0]) / abs(b[0]) * 100))


def _with_measures(view: ReportView, w: _Writer) -> None:
    """A highlight and the lead of a line of work in section 2 carry the lead's strongest measured
    figure, as its description states it (2026-W13: "the numbers in the bodies are not used");
    so does a key change section 2 tells on its own."""
    m = w.m
    by_key = w.storyline_by_key()

    def lead_of(key: str) -> int | None:
        if key in by_key:
            return by_key[key].lead
        return int(key[3:]) if key.startswith("pr:") and key[3:].isdigit() else None

    def with_figure(text: str, number: int | None, alone: str, notes: Sequence[str] = ()) -> str:
        figure = w.measured(w.items.get(number)) if number is not None else ""
        if not figure or any(figure in x for x in (text, *notes)):  # said once
            return text
        return text + m.t("measured.paren", text=figure) if text else m.t(alone, text=figure)

    view.highlights = tuple(
        dataclasses.replace(b, text=with_figure(b.text, lead_of(b.key), "measured.paren"))
        for b in view.highlights
    )
    themes = []
    for t in view.themes:
        lead = lead_of(t.key) if t.key in by_key else None
        lines = tuple(
            dataclasses.replace(
                ln, text=with_figure(ln.text, ln.link.number, "measured.line", ln.notes)
            )
            if ln.link.number == lead or (t.key == "key-prs" and lead is None)
            else ln
            for ln in t.lines
        )
        themes.append(dataclasses.replace(t, lines=lines))
    view.themes = tuple(themes)


__all__ = ["ReportView", "build_view", "link"]
