"""One report across repositories (`repodigest report OWNER/A,OWNER/B` or `OWNER/*`): the
single-repository report models of one window, combined (pure; issue #19 item 4).

The key. A combined report is stored, indexed and announced like a repository's, under a key
that is a valid repository name of the owner and cannot be taken for one of the listed
repositories: `OWNER/_..all` for the organisation as a whole, `OWNER/_..A..B` for a list (sorted;
past 100 characters `OWNER/_..` and a hash of the list). The mark `_..` survives the object
store's key components (which strip leading dots) and subject tokens (dots encoded). Everything keyed by repository (subjects,
object keys, the archive's index, report-ready) works unchanged.

Numbers. Two repositories have their own #1, so every item of a combined model gets a number of
its own: the repository's place in `repos` (from 1) times NUMBER_STRIDE plus its number there
(no GitHub repository is near ten million items), and its ItemRef names the repository. The
renderer shows such a number as `name#number` (`item_label`).

What adds up and what does not. The five counts, comments, reviews, lines and key PRs are sums
of the repositories' reports. Active and first-time contributors are people: a login active in
two repositories counts once (when each report lists all of its people; else the sum). Reviewers
are summed (a report lists no reviewers to unite). The medians cannot be combined without the
data: not available. Modules, themes, risks, ecosystems and contributors with the same name are
merged; storylines stay the repositories', except that storylines (or items) linked by a
cross-repository reference of one item's description (its digest's `refs` with `repo` set) to
an item of another listed repository become one line: an upstream change and its downstream
adaptation are told together.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import get_args

from pydantic import BaseModel

from shared.events.summary import (
    NUMBER_STRIDE,
    Appendix,
    Contributor,
    Counts,
    DailyActivity,
    EcosystemGroup,
    EcosystemSection,
    HourlyActivity,
    ItemRef,
    KeyPR,
    LineCount,
    LineKind,
    ModuleTrend,
    RepoPart,
    RiskObservation,
    Storyline,
    StorylineItem,
    SummaryData,
    Theme,
    number_label,
    split_number,
)

MARK = "_.."  # kept by object keys (a leading dot is not) and by subjects (encoded)
ALL_MARK = MARK + "all"
MAX_NAME = 100
_SEVERITY = {"low": 0, "medium": 1, "high": 2}


class CombineError(ValueError):
    """Repositories that cannot make one report (a person can fix the list)."""


# ---------------------------------------------------------------- keys


def combined_key(repos: Sequence[str], whole_owner: bool = False) -> str:
    """The key of a report across `repos` (all of one owner): OWNER/_..all for the organisation
    as a whole (`OWNER/*`), else OWNER/_..A..B (sorted names; a hash when that is too long)."""
    names = sorted({r.split("/", 1)[1] for r in repos}, key=str.lower)
    owners = {r.split("/", 1)[0].lower() for r in repos}
    if len(owners) != 1:
        raise CombineError(
            f"a report across repositories takes repositories of one owner; these "
            f"are of {len(owners)} ({', '.join(sorted(owners))}): run one report "
            "per owner"
        )
    owner = repos[0].split("/", 1)[0]
    if whole_owner:
        return f"{owner}/{ALL_MARK}"
    name = MARK + "..".join(names)
    if len(name) > MAX_NAME:
        digest = hashlib.sha256("\n".join(n.lower() for n in names).encode()).hexdigest()[:16]
        name = f"{MARK}{digest}"
    return f"{owner}/{name}"


def is_combined_key(repo: str) -> bool:
    return "/" in repo and repo.split("/", 1)[1].startswith(MARK)


def encode(place: int, number: int) -> int:
    """The combined number of item `number` of the repository at `place` (0-based)."""
    return (place + 1) * NUMBER_STRIDE + number


decode = split_number
item_label = number_label


def item_url(number: int, repos: Sequence[str]) -> str | None:
    """A working GitHub link for a combined number the model names without its item."""
    place, own = decode(number)
    if place is None or place >= len(repos):
        return None
    return f"https://github.com/{repos[place]}/issues/{own}"


# ---------------------------------------------------------------- combining


def _sum(values: Iterable[int | None]) -> int | None:
    values = list(values)
    if any(v is None for v in values):
        return None
    return sum(values)  # type: ignore[arg-type]


def sum_counts(counts: Sequence[Counts]) -> Counts:
    """Every count added (None when a repository's source cannot tell it)."""
    fields = [name for name in Counts.model_fields if name != "lines_by_kind"]
    return Counts(
        **{name: _sum(getattr(c, name) for c in counts) for name in fields},
        lines_by_kind=_sum_lines(counts),
    )


def _sum_lines(counts: Sequence[Counts]) -> tuple[LineCount, ...]:
    """Lines by kind of file added up, in the kinds' order; () unless every report split them."""
    if any(not c.lines_by_kind for c in counts if c.lines_added or c.lines_removed):
        return ()
    total: dict[str, list[int]] = {}
    for c in counts:
        for line in c.lines_by_kind:
            got = total.setdefault(line.kind, [0, 0])
            got[0] += line.added
            got[1] += line.removed
    return tuple(
        LineCount(kind=k, added=total[k][0], removed=total[k][1])
        for k in get_args(LineKind)
        if k in total
    )


def _people(parts: Sequence[SummaryData], total: Counts) -> Counts:
    """Active and first-time contributors as people across repositories, when every report lists
    all of its people (else the sums stay)."""
    humans = [{c.login for c in p.contributors if not c.bot} for p in parts]
    if any(len(h) != p.counts.active_contributors for h, p in zip(humans, parts)):
        return total
    people = set().union(*humans)
    first = [{c.login for c in p.contributors if not c.bot and c.first_time} for p in parts]
    first_ok = all(len(f) == p.counts.first_time_contributors for f, p in zip(first, parts))
    # first-time across the repositories: new in every repository the person was active in
    newcomers = {
        login for login in people if all(login in f for f, h in zip(first, humans) if login in h)
    }
    return total.model_copy(
        update={
            "active_contributors": len(people),
            **({"first_time_contributors": len(newcomers)} if first_ok else {}),
        }
    )


def combine(
    parts: Sequence[SummaryData],
    key: str,
    *,
    revision: int,
    generated_at: datetime,
    request_id: str | None = None,
    languages: tuple[str, ...] | None = None,
    formats: tuple[str, ...] | None = None,
    appendix_mode: str | None = None,
) -> SummaryData:
    """One report model across `parts` (each repository's report of the same window)."""
    if len(parts) < 2:
        raise CombineError("a report across repositories needs at least two repositories")
    parts = sorted(parts, key=lambda p: p.repo.lower())
    repos = [p.repo for p in parts]
    if len({r.lower() for r in repos}) != len(repos):
        raise CombineError(f"a repository is named twice: {', '.join(repos)}")
    windows = {(p.window.start, p.window.end, p.window.kind) for p in parts}
    if len(windows) != 1:
        raise CombineError("the reports to combine are of different windows")
    maps = [_Renumber(i, p) for i, p in enumerate(parts)]

    total = sum_counts([p.counts for p in parts])
    total = _people(parts, total)
    prev = None
    if all(p.previous_counts is not None for p in parts):
        prev = sum_counts([p.previous_counts for p in parts])  # type: ignore[misc]
    key_prs = tuple(
        sorted((k for m in maps for k in m.key_prs()), key=lambda k: (-k.score, k.item.number))
    )
    storylines, storyline_of = _storylines(parts, maps)
    key_prs = tuple(
        k.model_copy(update={"storyline": storyline_of.get(k.storyline, k.storyline)})
        if k.storyline
        else k
        for k in key_prs
    )
    first = parts[0]
    sources = {p.source for p in parts}
    notes = list(dict.fromkeys(p.data_note for p in parts if p.data_note))
    return SummaryData(
        repo=key,
        window=first.window,
        revision=revision,
        generated_at=generated_at,
        ruleset_versions=tuple(dict.fromkeys(v for p in parts for v in p.ruleset_versions)),
        languages=languages or first.languages,
        formats=formats or first.formats,
        synthetic=any(p.synthetic for p in parts),
        data_note=" ".join(notes) or None,
        source=first.source if len(sources) == 1 else None,
        coverage="partial" if any(p.coverage == "partial" for p in parts) else "full",
        appendix_mode=appendix_mode or first.appendix_mode,
        watermark=min((p.watermark for p in parts if p.watermark), default=None),
        counts=total.model_copy(update={"key_prs": len(key_prs)}),
        previous_counts=prev,
        modules=_modules(parts, maps),
        key_prs=key_prs,
        themes=_themes(parts, maps),
        storylines=storylines,
        incidents=tuple(
            inc.model_copy(update={"items": tuple(m.n(i) for i in inc.items)})
            for m, p in zip(maps, parts)
            for inc in p.incidents
        ),
        discussions=tuple(
            sorted(
                (
                    d.model_copy(update={"item": m.item(d.item)})
                    for m, p in zip(maps, parts)
                    for d in p.discussions
                ),
                key=lambda d: -d.heat,
            )
        ),
        risks=_risks(parts, maps),
        ecosystems=_ecosystems(parts, maps),
        follow_ups=tuple(
            f.model_copy(update={"item": m.item(f.item), "items": tuple(m.n(i) for i in f.items)})
            for m, p in zip(maps, parts)
            for f in p.follow_ups
        ),
        contributors=_contributors(parts),
        activity=_by(DailyActivity, "day", (a for p in parts for a in p.activity)),
        hourly=_by(HourlyActivity, "start", (h for p in parts for h in p.hourly)),
        median_hours_to_merge=None,
        median_hours_to_first_response=None,
        appendix=_appendix(parts, maps),
        referenced=tuple(m.item(i) for m, p in zip(maps, parts) for i in p.referenced),
        changed_figures=(),
        fact_ids_sample=tuple(f for p in parts for f in p.fact_ids_sample)[:200],
        facts_counted=sum(p.facts_counted for p in parts),
        request_id=request_id,
        repos=tuple(
            RepoPart(
                repo=p.repo, revision=p.revision, counts=p.counts, previous_counts=p.previous_counts
            )
            for p in parts
        ),
    )


class _Renumber:
    def __init__(self, place: int, part: SummaryData) -> None:
        self.place, self.part = place, part

    def n(self, number: int) -> int:
        return encode(self.place, number)

    def item(self, item: ItemRef) -> ItemRef:
        return item.model_copy(update={"number": self.n(item.number), "repo": self.part.repo})

    def key(self, key: str) -> str:
        return f"{self.part.repo}:{key}"

    def key_prs(self) -> list[KeyPR]:
        return [
            k.model_copy(
                update={
                    "item": self.item(k.item),
                    "storyline": self.key(k.storyline) if k.storyline else None,
                }
            )
            for k in self.part.key_prs
        ]

    def storyline(self, st: Storyline) -> Storyline:
        return st.model_copy(
            update={
                "key": self.key(st.key),
                "items": tuple(i.model_copy(update={"number": self.n(i.number)}) for i in st.items),
                "lead": self.n(st.lead) if st.lead is not None else None,
            }
        )


def _all_items(part: SummaryData) -> dict[int, ItemRef]:
    a = part.appendix
    found: dict[int, ItemRef] = {}
    for items in (
        a.merged_prs,
        a.new_prs,
        a.closed_unmerged_prs,
        a.new_issues,
        a.closed_issues,
        part.referenced,
        tuple(k.item for k in part.key_prs),
    ):
        for item in items:
            had = found.get(item.number)
            if had is None or (had.digest is None and item.digest is not None):
                found[item.number] = item  # the appendix's items carry no digest; key PRs do
    return found


def cross_links(parts: Sequence[SummaryData]) -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """(from repository and number, to repository and number): an item's description refers to
    an item of another of `parts` that the window's reports hold."""
    by_repo = {p.repo.lower(): (p.repo, _all_items(p)) for p in parts}
    links = []
    for p in parts:
        refs = [(c.number, c.repo, c.ref_number) for c in p.cross_refs]
        for number, item in sorted(_all_items(p).items()):  # a model without cross_refs (older)
            for ref in item.digest.refs if item.digest else ():
                if ref.repo is not None and ref.number is not None:
                    refs.append((number, ref.repo, int(ref.number)))
        for number, repo, ref_number in dict.fromkeys(refs):
            target = by_repo.get(repo.lower())
            if target is None or target[0] == p.repo or ref_number not in target[1]:
                continue
            links.append(((p.repo, number), (target[0], ref_number)))
    return sorted(set(links))


def _storylines(
    parts: Sequence[SummaryData],
    maps: Sequence[_Renumber],
) -> tuple[tuple[Storyline, ...], dict[str, str]]:
    """The repositories' storylines, those joined by cross-repository references as one (a joined
    item that was in no storyline joins as itself). Returns them and old key -> joined key."""
    place = {p.repo: i for i, p in enumerate(parts)}
    lines: dict[str, Storyline] = {}
    line_of: dict[int, str] = {}  # combined number -> storyline key
    for m, p in zip(maps, parts):
        for st in p.storylines:
            st = m.storyline(st)
            lines[st.key] = st
            for it in st.items:
                line_of.setdefault(it.number, st.key)
    items = {
        encode(place[p.repo], n): maps[place[p.repo]].item(i)
        for p in parts
        for n, i in _all_items(p).items()
    }
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    loose: dict[str, int] = {}  # "item:<n>" -> n, items joined that are in no storyline
    for (ra, na), (rb, nb) in cross_links(parts):
        ends = []
        for repo, number in ((ra, na), (rb, nb)):
            n = encode(place[repo], number)
            k = line_of.get(n)
            if k is None:
                k = f"item:{n}"
                loose[k] = n
            ends.append(k)
        a, b = find(ends[0]), find(ends[1])
        if a != b:
            parent[max(a, b)] = min(a, b)
    groups: dict[str, list[str]] = defaultdict(list)
    for k in list(lines) + list(loose):
        groups[find(k)].append(k)
    renamed: dict[str, str] = {}
    out: list[Storyline] = []
    for members in groups.values():
        if len(members) == 1 and members[0] in lines:
            out.append(lines[members[0]])
            continue
        if len(members) == 1:
            continue  # a loose item never linked (cannot happen; links join two)
        joined = _join(
            [lines[k] for k in members if k in lines],
            [items[loose[k]] for k in members if k in loose],
        )
        out.append(joined)
        for k in members:
            renamed[k] = joined.key
    # the maps' keys (repo:key) are what key PRs carry
    return tuple(out), renamed


def _merged_at(item: ItemRef | None) -> tuple:
    when = item.merged_at or item.created_at if item else None
    return (when is None, when)


def _join(stories: list[Storyline], loose: list[ItemRef]) -> Storyline:
    """One line of storylines (and items) of several repositories linked by references."""
    stories = sorted(stories, key=lambda s: (-len(s.items), s.key))
    seen: dict[int, StorylineItem] = {}
    for st in stories:
        for it in st.items:
            seen.setdefault(it.number, it)
    for item in loose:
        seen.setdefault(item.number, StorylineItem(number=item.number, role="other"))
    main = stories[0] if stories else None
    merged = sum(s.merged for s in stories) + sum(1 for i in loose if i.merged)
    added = sum(s.lines_added for s in stories) + sum(i.additions for i in loose if i.merged)
    removed = sum(s.lines_removed for s in stories) + sum(i.deletions for i in loose if i.merged)
    first_loose = min(loose, key=lambda i: i.number) if loose else None
    name = main.name if main else (first_loose.title if first_loose else "")
    key = "cross:" + (main.key if main else f"{first_loose.repo}#{first_loose.number}")  # type: ignore[union-attr]
    return Storyline(
        key=key,
        name=name,
        evidence="chain",
        items=tuple(seen[n] for n in sorted(seen)),
        lead=main.lead
        if main and main.lead is not None
        else (first_loose.number if first_loose else None),
        merged=merged,
        lines_added=added,
        lines_removed=removed,
        status="continuing" if any(s.status == "continuing" for s in stories) else "new",
        previous_items=sum(s.previous_items for s in stories),
        summary=main.summary if main else "",
        terms=tuple(dict.fromkeys(t for s in stories for t in s.terms)),
    )


def _modules(parts: Sequence[SummaryData], maps: Sequence[_Renumber]) -> tuple[ModuleTrend, ...]:
    acc: dict[str, dict] = {}
    for m, p in zip(maps, parts):
        for t in p.modules:
            a = acc.setdefault(
                t.module,
                {
                    "merged": 0,
                    "opened": 0,
                    "issues": 0,
                    "total": 0,
                    "previous_total": 0,
                    "representative": [],
                    "fallback": True,
                },
            )
            for f in ("merged", "opened", "issues", "total", "previous_total"):
                a[f] += getattr(t, f)
            a["representative"] += [m.n(n) for n in t.representative]
            a["fallback"] = a["fallback"] and t.fallback
    out = []
    for module, a in acc.items():
        delta = a["total"] - a["previous_total"]
        trend = (
            "new"
            if a["previous_total"] == 0 and a["total"] > 0
            else "gone"
            if a["total"] == 0 and a["previous_total"] > 0
            else "up"
            if delta > 0
            else "down"
            if delta < 0
            else "flat"
        )
        out.append(
            ModuleTrend(
                module=module,
                delta=delta,
                trend=trend,
                representative=tuple(a.pop("representative")),
                **{k: v for k, v in a.items()},
            )
        )
    out.sort(key=lambda t: (-t.total, t.module))
    return tuple(out)


def _themes(parts: Sequence[SummaryData], maps: Sequence[_Renumber]) -> tuple[Theme, ...]:
    acc: dict[str, Theme] = {}
    for m, p in zip(maps, parts):
        for t in p.themes:
            t = t.model_copy(update={"prs": tuple(m.n(n) for n in t.prs)})
            old = acc.get(t.module)
            acc[t.module] = (
                t
                if old is None
                else old.model_copy(
                    update={
                        "prs": old.prs + t.prs,
                        "merged": old.merged + t.merged,
                        "lines_added": old.lines_added + t.lines_added,
                        "lines_removed": old.lines_removed + t.lines_removed,
                    }
                )
            )
    return tuple(sorted(acc.values(), key=lambda t: (-t.merged, t.module)))


def _risks(parts: Sequence[SummaryData], maps: Sequence[_Renumber]) -> tuple[RiskObservation, ...]:
    acc: dict[str, RiskObservation] = {}
    for m, p in zip(maps, parts):
        for r in p.risks:
            r = r.model_copy(update={"items": tuple(m.n(n) for n in r.items)})
            old = acc.get(r.risk)
            acc[r.risk] = (
                r
                if old is None
                else old.model_copy(
                    update={
                        "count": old.count + r.count,
                        "items": old.items + r.items,
                        "severity": max(old.severity, r.severity, key=_SEVERITY.__getitem__),
                        "reason": old.reason or r.reason,
                    }
                )
            )
    return tuple(sorted(acc.values(), key=lambda r: (-_SEVERITY[r.severity], -r.count, r.risk)))


def _ecosystems(
    parts: Sequence[SummaryData], maps: Sequence[_Renumber]
) -> tuple[EcosystemSection, ...]:
    acc: dict[str, EcosystemSection] = {}
    for m, p in zip(maps, parts):
        for e in p.ecosystems:
            e = e.model_copy(
                update={
                    "issues": tuple(m.item(i) for i in e.issues),
                    "pr_groups": tuple(
                        g.model_copy(update={"items": tuple(m.item(i) for i in g.items)})
                        for g in e.pr_groups
                    ),
                }
            )
            old = acc.get(e.name)
            if old is None:
                acc[e.name] = e
                continue
            groups: dict[str, EcosystemGroup] = {g.category: g for g in old.pr_groups}
            for g in e.pr_groups:
                had = groups.get(g.category)
                groups[g.category] = (
                    g if had is None else had.model_copy(update={"items": had.items + g.items})
                )
            acc[e.name] = old.model_copy(
                update={
                    "issues": old.issues + e.issues,
                    "pr_groups": tuple(groups.values()),
                    "contributors": tuple(dict.fromkeys(old.contributors + e.contributors)),
                }
            )
    return tuple(acc.values())


def _contributors(parts: Sequence[SummaryData]) -> tuple[Contributor, ...]:
    acc: dict[str, Contributor] = {}
    numeric = ("prs_opened", "prs_merged", "issues_opened", "comments", "reviews")
    for p in parts:
        for c in p.contributors:
            old = acc.get(c.login)
            acc[c.login] = (
                c
                if old is None
                else old.model_copy(
                    update={
                        **{f: getattr(old, f) + getattr(c, f) for f in numeric},
                        "first_time": old.first_time and c.first_time,
                        "bot": old.bot or c.bot,
                    }
                )
            )
    return tuple(
        sorted(
            acc.values(),
            key=lambda c: (
                -(c.prs_merged + c.prs_opened + c.issues_opened + c.comments + c.reviews),
                c.login,
            ),
        )
    )


def _by(cls: type[BaseModel], field: str, rows: Iterable) -> tuple:
    acc: dict = {}
    for row in rows:
        k = getattr(row, field)
        old = acc.get(k)
        if old is None:
            acc[k] = row
            continue
        acc[k] = old.model_copy(
            update={f: getattr(old, f) + getattr(row, f) for f in cls.model_fields if f != field}
        )
    return tuple(acc[k] for k in sorted(acc))


def _appendix(parts: Sequence[SummaryData], maps: Sequence[_Renumber]) -> Appendix:
    lists = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
    omitted: dict[str, int] = defaultdict(int)
    for p in parts:
        for k, v in p.appendix.omitted.items():
            omitted[k] += v
    return Appendix(
        **{
            name: tuple(m.item(i) for m, p in zip(maps, parts) for i in getattr(p.appendix, name))
            for name in lists
        },
        omitted=dict(omitted),
    )
