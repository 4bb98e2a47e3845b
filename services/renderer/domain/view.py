"""The report view: every section of SEEDS.md as text and links, written from the summary's figures.

`build_view(summary, messages)` is pure and deterministic: the same summary and catalog give the
same view, and every number in it comes from the summary (templates only lay it out). This is the
seam where a narrator (e.g. a language model rewriting prose) could replace `Prose` fields while
keeping the figures, tables and links.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.events import (
    Discussion, EcosystemSection, FollowUp, ItemRef, KeyPR, ModuleTrend, RiskObservation,
    SummaryData, Theme,
)

from .i18n import Messages
from .text import days_text, excerpt, short_version, num, one_decimal, signed, stamp, utc_offset, window_span

MAX_HIGHLIGHTS = 7
MAX_THEME_PRS = 4
MAX_MODULE_ROWS = 15
MAX_KEY_PRS = 12
MAX_DISCUSSIONS = 5
MAX_CONTRIBUTORS = 10
MAX_RISK_LINKS = 8
MAX_RISK_LINKS_SHORT = 5
MAX_CHANGED = 8
EXCERPT_THEME = 220
EXCERPT_DISCUSSION = 280


@dataclass(frozen=True)
class Link:
    number: int
    url: str
    title: str
    kind: str  # "pr" | "issue"
    author: str = ""

    @property
    def label(self) -> str:
        return f"#{self.number}"


@dataclass(frozen=True)
class Line:
    """A PR or issue with one line about it (and, where useful, an excerpt of its description)."""

    link: Link
    text: str
    excerpt: str = ""


@dataclass(frozen=True)
class Bullet:
    text: str
    head: str = ""
    detail: str = ""
    links: tuple[Link, ...] = ()
    lines: tuple[Line, ...] = ()
    # what the bullet is about (theme module, risk tag, item number): where a narrator's text goes
    key: str = ""


@dataclass(frozen=True)
class Figure:
    label: str
    value: str


@dataclass(frozen=True)
class ThemeView:
    title: str
    text: str
    lines: tuple[Line, ...]
    key: str = ""  # the theme's module


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


def link(item: ItemRef) -> Link:
    return Link(item.number, item.url, item.title, item.kind, item.author)


def _item_index(s: SummaryData) -> dict[int, ItemRef]:
    """Every item the summary mentions, by number (key PRs and lists carry the full ItemRef)."""
    index: dict[int, ItemRef] = {}
    lists = (s.appendix.merged_prs, s.appendix.new_prs, s.appendix.closed_unmerged_prs,
             s.appendix.new_issues, s.appendix.closed_issues)
    for items in lists:
        for item in items:
            index.setdefault(item.number, item)
    for k in s.key_prs:
        index[k.item.number] = k.item
    for d in s.discussions:
        index.setdefault(d.item.number, d.item)
    for f in s.follow_ups:
        index.setdefault(f.item.number, f.item)
    for e in s.ecosystems:
        for item in e.issues:
            index.setdefault(item.number, item)
        for g in e.pr_groups:
            for item in g.items:
                index.setdefault(item.number, item)
    return index


class _Writer:
    def __init__(self, s: SummaryData, m: Messages) -> None:
        self.s, self.m = s, m
        self.items = _item_index(s)
        self.repo_url = f"https://github.com/{s.repo}"

    # ------------------------------------------------------------ helpers

    def ref(self, number: int) -> Link:
        item = self.items.get(number)
        if item is not None:
            return link(item)
        # a number the summary names without its item: still a working GitHub link
        return Link(number, f"{self.repo_url}/issues/{number}", "", "issue")

    def module(self, name: str) -> str:
        return self.m.name("module_names", name)

    def size(self, item: ItemRef) -> str:
        return self.m.tn("item.size", item.changed_files, added=num(item.additions),
                         removed=num(item.deletions), files=num(item.changed_files))

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
        return self.m.t(f"title.{w.kind}", repo=self.s.repo, label=w.label, start=start, end=end)

    def header(self) -> tuple[Figure, ...]:
        s, m = self.s, self.m
        start, end = window_span(s.window)
        offset = utc_offset(s.window.start, s.window.tz)
        key = "header.window_value_utc" if s.window.tz in ("UTC", "Etc/UTC") else "header.window_value"
        if start == end:  # a whole local day: one date says it
            key = key.replace("window_value", "window_single")
        window = m.t(key, start=start, end=end, tz=s.window.tz, offset=offset)
        if s.window.cutoff:
            window += m.t("header.cutoff", cutoff=s.window.cutoff)
        rows = [
            Figure(m.t("header.repository"), s.repo),
            Figure(m.t("header.window"), window),
            Figure(m.t("header.sources"), m.t("header.sources_value", merged=num(s.counts.merged_prs),
                                               key=num(s.counts.key_prs or len(s.key_prs)))),
            Figure(m.t("header.generated"), m.t("header.generated_value",
                                                 at=stamp(s.generated_at, s.window.tz),
                                                 offset=utc_offset(s.generated_at, s.window.tz))),
            Figure(m.t("header.revision"), m.t("header.revision_value", revision=s.revision)),
        ]
        if s.ruleset_versions:
            rows.append(Figure(m.t("header.rulesets"),
                               m.t("list.comma").join(short_version(v) for v in s.ruleset_versions)))
        if s.watermark is not None:
            rows.append(Figure(m.t("header.watermark"), stamp(s.watermark, s.window.tz)))
        return tuple(rows)

    def counts(self) -> tuple[Figure, ...]:
        c, prev, m = self.s.counts, self.s.previous_counts, self.m
        out = []
        for name in ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs"):
            value = num(getattr(c, name))
            if prev is not None:
                delta = getattr(c, name) - getattr(prev, name)
                value += m.t("counts.delta", delta=signed(delta))
            out.append(Figure(m.t(f"counts.{name}"), value))
        return tuple(out)

    def notice(self) -> str | None:
        s, m = self.s, self.m
        parts = []
        if s.synthetic:
            parts.append(m.t("notice.synthetic"))
        if s.data_note:
            parts.append(m.t("notice.note", note=s.data_note))
        return " ".join(parts) or None

    def figure_name(self, name: str) -> str:
        """A readable name for a figure of the summarizer's revision check (`counts.merged_prs`,
        `modules.moe.total`, `risks.core-change.count`, `median_hours_to_merge`, ...)."""
        m = self.m
        group, _, rest = name.partition(".")
        if group == "counts" and rest:
            return m.name("figure_names", rest)
        if group == "modules" and rest:
            module, _, measure = rest.rpartition(".")
            return m.t(f"changed.module_{measure}" if measure in ("total", "merged")
                       else "changed.module_total", module=self.module(module or rest))
        if group == "risks" and rest:
            return m.name("risk_names", rest.rpartition(".")[0] or rest)
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
            parts.append(m.t("changed.figure", name=self.figure_name(f.name),
                             before="-" if f.before is None else num(f.before),
                             after="-" if f.after is None else num(f.after)))
        more = len(self.s.changed_figures) - MAX_CHANGED
        text = m.t("list.comma").join(parts)
        if more > 0:
            text += m.tn("changed.more", more, count=num(more))
        return m.t("changed.text", revision=self.s.revision, figures=text)

    # ------------------------------------------------------------ prose

    def top_modules(self, n: int = 3) -> list[ModuleTrend]:
        mods = [t for t in self.s.modules if not t.fallback and t.total > 0]
        return sorted(mods, key=lambda t: (-t.total, t.module))[:n]

    def lead(self) -> str:
        s, m, c = self.s, self.m, self.s.counts
        parts = [m.t("lead.activity", repo=s.repo, period=self.period(),
                     merged=num(c.merged_prs), new_prs=num(c.new_prs),
                     new_issues=num(c.new_issues), closed_issues=num(c.closed_issues))]
        tops = self.top_modules()
        if tops:
            parts.append(m.t("lead.focus", modules=m.join([self.module(t.module) for t in tops])))
        rising = sorted((t for t in s.modules if t.trend in ("up", "new") and t.delta > 0
                         and not t.fallback), key=lambda t: (-t.delta, t.module))
        if rising:
            t = rising[0]
            parts.append(m.tn("lead.rising", t.delta, module=self.module(t.module),
                              delta=num(t.delta), total=num(t.total)))
        high = [r for r in s.risks if r.severity == "high"]
        if high:
            parts.append(m.tn("lead.risks", len(high), count=num(len(high)),
                              risks=m.join([m.name("risk_names", r.risk) for r in high[:3]])))
        return m.t("lead.joiner").join(parts) + m.t("lead.end")

    def highlights(self) -> tuple[Bullet, ...]:
        m = self.m
        out = []
        for theme in self.s.themes[:MAX_HIGHLIGHTS]:
            lines = tuple(Line(self.ref(n), self.ref(n).title) for n in theme.prs[:MAX_THEME_PRS])
            text = m.tn("highlights.theme", theme.merged, merged=num(theme.merged))
            out.append(Bullet(text, head=self.module(theme.module), lines=lines, key=theme.module))
        return tuple(out)

    def risk_bullet(self, r: RiskObservation, detailed: bool) -> Bullet:
        m = self.m
        head = m.name("risk_names", r.risk)
        text = m.tn("risks.bullet", r.count, count=num(r.count),
                    severity=m.t(f"severity.{r.severity}"))
        detail = ""
        if self.m.has(f"risk_help.{r.risk}"):
            detail = m.t(f"risk_help.{r.risk}")
        elif r.reason:
            detail = r.reason
        links = tuple(self.ref(n) for n in r.items[:MAX_RISK_LINKS if detailed else MAX_RISK_LINKS_SHORT])
        if detailed:
            lines = tuple(Line(lk, lk.title) for lk in links)
            return Bullet(text, head=head, detail=detail, lines=lines, key=r.risk)
        return Bullet(text, head=head, detail=detail, links=links, key=r.risk)

    def summary(self) -> tuple[str, ...]:
        s, m, c = self.s, self.m, self.s.counts
        paras = [m.t("summary.totals", period=self.period(), merged=num(c.merged_prs),
                     key=num(c.key_prs or len(s.key_prs)), new_prs=num(c.new_prs),
                     closed_unmerged=num(c.closed_unmerged_prs), new_issues=num(c.new_issues),
                     closed_issues=num(c.closed_issues))]
        if c.lines_added or c.lines_removed:
            net = c.lines_added - c.lines_removed
            key = "summary.lines_net_removed" if net < 0 else "summary.lines_net_added"
            paras[0] += m.t("list.sentence") + m.t(key, added=num(c.lines_added),
                                                    removed=num(c.lines_removed),
                                                    net=num(abs(net)))
        else:
            paras[0] += m.t("lead.end")
        tops = self.top_modules()
        if tops:
            lines = [m.tn("summary.module", t.total, module=self.module(t.module),
                          total=num(t.total), merged=num(t.merged)) for t in tops]
            paras.append(m.tn("summary.mainlines", len(tops), count=num(len(tops)),
                              lines=m.join(lines)))
        if s.previous_counts is not None:
            prev = s.previous_counts
            paras.append(m.t("summary.previous", merged=num(c.merged_prs),
                             prev_merged=num(prev.merged_prs),
                             delta=signed(c.merged_prs - prev.merged_prs),
                             new_issues=num(c.new_issues), prev_new_issues=num(prev.new_issues)))
        if s.risks:
            worst = sorted(s.risks, key=lambda r: (_SEVERITY[r.severity], -r.count, r.risk))[:2]
            paras.append(m.t("summary.risks", risks=m.join(
                [m.tn("summary.risk", r.count, risk=m.name("risk_names", r.risk), count=num(r.count))
                 for r in worst])))
        return tuple(paras)

    def theme(self, theme: Theme) -> ThemeView:
        m = self.m
        text = m.tn("themes.text", theme.merged, merged=num(theme.merged),
                    key=num(len(theme.prs)), added=num(theme.lines_added),
                    removed=num(theme.lines_removed))
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
            lines.append(Line(line.link, line.text, excerpt(item.body_excerpt, EXCERPT_THEME)))
        return ThemeView(self.module(theme.module), text, tuple(lines), key=theme.module)

    def trend_sentence(self, t: ModuleTrend) -> str:
        return self.m.t(f"trend_sentence.{t.trend}", total=num(t.total),
                        previous=num(t.previous_total), delta=num(abs(t.delta)))

    def module_row(self, t: ModuleTrend) -> ModuleRow:
        m = self.m
        name = self.module(t.module) + (m.t("modules_table.fallback") if t.fallback else "")
        return ModuleRow(name, num(t.merged), num(t.opened), num(t.issues), num(t.total),
                         num(t.previous_total), signed(t.delta), m.t(f"trend.{t.trend}"),
                         t.trend, tuple(self.ref(n) for n in t.representative[:4]))

    def modules_text(self) -> str:
        m = self.m
        ups = [t for t in self.s.modules if t.trend in ("up", "new")]
        downs = [t for t in self.s.modules if t.trend in ("down", "gone")]
        return m.t("modules_table.text", modules=num(len(self.s.modules)), up=num(len(ups)),
                   down=num(len(downs)))

    def key_pr(self, k: KeyPR) -> KeyPRRow:
        m = self.m
        signals = sorted(k.signals, key=lambda g: (-g.points, g.name))[:3]
        sig = m.t("list.comma").join(
            m.t("key_prs.signal", name=m.name("signal_names", g.name), points=one_decimal(g.points))
            for g in signals)
        return KeyPRRow(link(k.item), k.item.author,
                        m.t("list.comma").join(self.module(x) for x in k.item.modules),
                        one_decimal(k.score), sig, self.size(k.item))

    def discussion(self, d: Discussion) -> DiscussionView:
        m = self.m
        kind = m.t(f"kind.{d.item.kind}")
        people = d.participants[:4]
        text = m.t("discussions.text", comments=num(d.comments_in_window),
                   reviews=num(d.reviews_in_window), participants=num(len(d.participants)),
                   author=d.item.author)
        if people:
            text += m.t("list.sentence") + m.t("discussions.people",
                                               people=m.t("list.comma").join(people))
        status = m.name("status_names", d.status)
        return DiscussionView(link(d.item), kind, text, status,
                              excerpt(d.item.body_excerpt, EXCERPT_DISCUSSION))

    def ecosystem(self, e: EcosystemSection) -> EcosystemView:
        m = self.m
        prs = sum(len(g.items) for g in e.pr_groups)
        merged = sum(1 for g in e.pr_groups for i in g.items if i.merged)
        text = m.t("ecosystem.text", prs=num(prs), merged=num(merged), issues=num(len(e.issues)),
                   contributors=num(len(e.contributors)))
        # stable: among equally large groups the summarizer's order wins
        biggest = sorted(e.pr_groups, key=lambda g: -len(g.items))
        if biggest and len(biggest[0].items) > 1:
            text += m.t("list.sentence") + m.tn("ecosystem.focus", len(biggest[0].items),
                                                category=m.name("category_names",
                                                                biggest[0].category),
                                                count=num(len(biggest[0].items)))
        if e.affiliation:
            text += m.t("list.sentence") + m.t("ecosystem.affiliation", affiliation=e.affiliation)
        groups = tuple(EcosystemGroupView(
            m.name("category_names", g.category) + m.t("ecosystem.group_count", count=num(len(g.items))),
            tuple(self.pr_line(i) for i in g.items)) for g in e.pr_groups)
        issues = tuple(Line(link(i), m.t("item.by", author=i.author)) for i in e.issues)
        return EcosystemView(m.t("ecosystem.title", name=e.name), text, issues, groups)

    def activity(self) -> tuple[str, ...]:
        s, m, c = self.s, self.m, self.s.counts
        paras = [m.t("activity.people", contributors=num(c.active_contributors),
                     first_time=num(c.first_time_contributors), reviewers=num(c.reviewers),
                     comments=num(c.comments), reviews=num(c.reviews))]
        medians = []
        if s.median_hours_to_merge is not None:
            medians.append(m.t("activity.median_merge", hours=one_decimal(s.median_hours_to_merge)))
        if s.median_hours_to_first_response is not None:
            medians.append(m.t("activity.median_response",
                               hours=one_decimal(s.median_hours_to_first_response)))
        if medians:
            paras.append(m.t("activity.medians", medians=m.join(medians)))
        humans = [x for x in s.contributors if not x.bot]
        if humans:
            top = humans[0]
            paras.append(m.t("activity.top", login=top.login, merged=num(top.prs_merged),
                             reviews=num(top.reviews)))
        bots = [x for x in s.contributors if x.bot]
        if bots:
            paras.append(m.tn("activity.bots", len(bots), count=num(len(bots))))
        return tuple(paras)

    def contributor_rows(self) -> tuple[ContributorRow, ...]:
        m = self.m
        rows = []
        for x in self.s.contributors[:MAX_CONTRIBUTORS]:
            notes = []
            if x.first_time:
                notes.append(m.t("contributors.first_time"))
            if x.bot:
                notes.append(m.t("contributors.bot"))
            rows.append(ContributorRow(x.login, num(x.prs_opened), num(x.prs_merged),
                                       num(x.issues_opened), num(x.reviews), num(x.comments),
                                       m.t("list.comma").join(notes)))
        return tuple(rows)

    def follow_up(self, f: FollowUp) -> Bullet:
        m = self.m
        days = days_text(f.days) if f.days is not None else None
        key = f"follow_ups.{f.kind}" + ("_days" if days is not None else "")
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
            out.append(AppendixList(
                m.t(f"appendix.{name}") + m.t("appendix.count", count=num(len(items) + omitted)),
                tuple(link(i) for i in items),
                tuple(m.t("list.comma").join(self.module(x) for x in i.modules) for i in items),
                m.tn("appendix.more", omitted, count=num(omitted)) if omitted else ""))
        return tuple(out)

    def notes(self) -> dict[str, str]:
        """A visible note for each section this summary has no data for (by section id)."""
        s, none = self.s, self.m.t("labels.none")
        empty = {
            "highlights": not s.themes, "risk_bullets": not s.risks,
            "charts": not s.activity and not any(t.total or t.previous_total for t in s.modules),
            "themes": not s.themes, "modules": not s.modules, "key_prs": not s.key_prs,
            "discussions": not s.discussions, "ecosystems": not s.ecosystems,
            "activity": not s.contributors and not s.activity,
            "risks": not s.risks, "follow_ups": not s.follow_ups,
            "appendix": not any(getattr(s.appendix, n) for n in APPENDIX_LISTS)
            and not any(s.appendix.omitted.values()),
        }
        notes = {sid: none for sid, missing in empty.items() if missing}
        if s.previous_counts is None:
            notes["summary"] = self.m.t("summary.no_previous")
        return notes

    def labels(self) -> dict[str, str]:
        raw = self.m.raw("labels")
        return {k: self.m.t(f"labels.{k}") for k in raw}


_SEVERITY = {"high": 0, "medium": 1, "low": 2}
APPENDIX_LISTS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")

# (section id, numbered) in reading order; the header, lead, highlights and short risks come first
SECTION_ORDER = (
    ("highlights", False), ("risk_bullets", False), ("charts", False),
    ("summary", True), ("themes", True), ("modules", True), ("key_prs", True),
    ("discussions", True), ("ecosystems", True), ("activity", True), ("risks", True),
    ("follow_ups", True), ("appendix", False),
)


def build_view(s: SummaryData, messages: Messages) -> ReportView:
    """The report for one summary in one language (every figure taken from `s`)."""
    w = _Writer(s, messages)
    risks_sorted = sorted(s.risks, key=lambda r: (_SEVERITY[r.severity], -r.count, r.risk))
    view = ReportView(
        lang=messages.lang,
        title=w.title(),
        repo=s.repo,
        repo_url=w.repo_url,
        kind=s.window.kind,
        labels=w.labels(),
        header=w.header(),
        counts=w.counts(),
        notice=w.notice(),
        changed=w.changed(),
        lead=w.lead(),
        highlights=w.highlights(),
        risk_bullets=tuple(w.risk_bullet(r, detailed=False) for r in risks_sorted[:5]),
        summary=w.summary(),
        themes=tuple(w.theme(t) for t in s.themes),
        modules=tuple(w.module_row(t) for t in sorted(
            s.modules, key=lambda t: (t.fallback, -t.total, t.module))[:MAX_MODULE_ROWS]),
        modules_text=w.modules_text(),
        key_prs=tuple(w.key_pr(k) for k in sorted(
            s.key_prs, key=lambda k: (-k.score, k.item.number))[:MAX_KEY_PRS]),
        discussions=tuple(w.discussion(d) for d in s.discussions[:MAX_DISCUSSIONS]),
        ecosystems=tuple(w.ecosystem(e) for e in s.ecosystems),
        activity=w.activity(),
        contributors=w.contributor_rows(),
        risks=tuple(w.risk_bullet(r, detailed=True) for r in risks_sorted),
        follow_ups=tuple(w.follow_up(f) for f in s.follow_ups),
        appendix=w.appendix(),
        notes=w.notes(),
    )
    number = 0
    for sid, numbered in SECTION_ORDER:
        if numbered:
            number += 1
        view.sections[sid] = Section(sid, number if numbered else None,
                                     messages.t(f"sections.{sid}"))
    return view


__all__ = ["ReportView", "build_view", "link"]
