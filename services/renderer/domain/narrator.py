"""The narrator's pure core: what a language model is shown, what it must answer, and the checks
that keep its prose from changing a figure.

A narrator (see `Narrator`) may rewrite the report's prose: the lead, the highlight lines, the
per-theme explanations, the risk commentary and the follow-ups. It never touches figures, tables,
lists or links. Its answer is verified sentence by sentence against the summary before anything
is published: every number must be one of the summary's figures (or a difference, sum or percent
derivable from them) and every `#N` reference must be an item the summary names. A sentence that
fails is dropped and the template's text for that part takes its place; the report says so.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from shared.events import SummaryData

from .i18n import Messages
from .view import Bullet, ReportView, ThemeView

# ---------------------------------------------------------------- what the model sees

MAX_INPUT_KEY_PRS = 15
MAX_INPUT_DISCUSSIONS = 5
MAX_INPUT_FOLLOW_UPS = 8
MAX_INPUT_THEMES = 8
MAX_INPUT_RISK_ITEMS = 8
MAX_INPUT_STORYLINES = 8
MAX_INPUT_INCIDENTS = 8
MAX_INPUT_CLAIMS = 2
DESCRIPTION_CHARS = 300
WHAT_CHARS = 240


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def narration_input(s: SummaryData) -> dict[str, Any]:
    """The structured summary the model writes from (JSON-ready, deterministic for one summary).

    Only what prose needs: counts, modules, themes, key PRs (title, short description), risks,
    discussions and follow-ups. The appendix lists are left out (they cost tokens and add nothing
    a narrative should say).
    """
    c = s.counts
    titles = {k.item.number: k.item.title for k in s.key_prs}
    out: dict[str, Any] = {
        "repository": s.repo,
        "window": {
            "kind": s.window.kind,
            "label": s.window.label,
            "start": s.window.start.isoformat(),
            "end": s.window.end.isoformat(),
            "time_zone": s.window.tz,
        },
        "counts": c.model_dump(),
        "previous_counts": s.previous_counts.model_dump() if s.previous_counts else None,
        "modules": [
            {
                "module": t.module,
                "total": t.total,
                "merged": t.merged,
                "opened": t.opened,
                "issues": t.issues,
                "previous_total": t.previous_total,
                "delta": t.delta,
                "trend": t.trend,
            }
            for t in s.modules
            if not t.fallback
        ],
        "themes": [
            {
                "module": t.module,
                "merged": t.merged,
                "prs": list(t.prs),
                "lines_added": t.lines_added,
                "lines_removed": t.lines_removed,
            }
            for t in s.themes[:MAX_INPUT_THEMES]
        ],
        "key_prs": [
            {
                "number": k.item.number,
                "title": k.item.title,
                "author": k.item.author,
                "modules": list(k.item.modules),
                "risks": list(k.item.risks),
                "merged": k.item.merged,
                "additions": k.item.additions,
                "deletions": k.item.deletions,
                "description": _short(k.item.body_excerpt, DESCRIPTION_CHARS),
            }
            for k in sorted(s.key_prs, key=lambda k: (-k.score, k.item.number))[:MAX_INPUT_KEY_PRS]
        ],
        "risks": [
            {
                "risk": r.risk,
                "severity": r.severity,
                "count": r.count,
                "items": list(r.items[:MAX_INPUT_RISK_ITEMS]),
                "reason": r.reason,
            }
            for r in s.risks
        ],
        "discussions": [
            {
                "number": d.item.number,
                "kind": d.item.kind,
                "title": d.item.title,
                "comments": d.comments_in_window,
                "reviews": d.reviews_in_window,
                "participants": len(d.participants),
                "status": d.status,
            }
            for d in s.discussions[:MAX_INPUT_DISCUSSIONS]
        ],
        "follow_ups": [
            {"number": f.item.number, "kind": f.kind, "title": f.item.title, "reason": f.reason}
            for f in s.follow_ups[:MAX_INPUT_FOLLOW_UPS]
        ],
    }
    for theme in out["themes"]:
        theme["pr_titles"] = {str(n): titles[n] for n in theme["prs"] if n in titles}
    _explained_input(s, out)
    return out


def _explained_input(s: SummaryData, out: dict[str, Any]) -> None:
    """What changes do and why (issue #15): each key PR's what-sentence and claims and why it was
    picked, the storylines (the report's highlights and themes are keyed by storyline when there
    are any), incidents, every item a follow-up covers, and what the source cannot tell."""
    by_number = {k.item.number: k for k in s.key_prs}
    for entry in out["key_prs"]:
        k = by_number[entry["number"]]
        d = k.item.digest
        if d is not None and not d.template_only and d.what.strip():
            entry["what"] = _short(d.what, WHAT_CHARS)
        if d is not None and d.claims:
            entry["claims"] = [_short(c.sentence, WHAT_CHARS) for c in d.claims[:MAX_INPUT_CLAIMS]]
        if k.reasons:
            entry["reasons"] = list(k.reasons)
        if k.storyline:
            entry["storyline"] = k.storyline
    if s.storylines:
        out["storylines"] = [
            {
                "key": st.key,
                "name": st.name,
                "summary": _short(st.summary, WHAT_CHARS),
                "status": st.status,
                "previous_items": st.previous_items,
                "merged": st.merged,
                "lines_added": st.lines_added,
                "lines_removed": st.lines_removed,
                "lead": st.lead,
                "items": [{"number": i.number, "role": i.role} for i in st.items],
            }
            for st in s.storylines[:MAX_INPUT_STORYLINES]
        ]
    if s.incidents:
        out["incidents"] = [
            {
                "kind": i.kind,
                "items": list(i.items),
                "roles": list(i.roles),
                "subject": i.subject,
                "across_windows": i.across_windows,
            }
            for i in s.incidents[:MAX_INPUT_INCIDENTS]
        ]
    for entry, f in zip(out["follow_ups"], s.follow_ups):
        if f.items:
            entry["items"] = list(f.items)
    if s.source is not None:
        out["source"] = {
            "kind": s.source.kind,
            "name": s.source.name,
            "provides": list(s.source.provides),
            "coverage": s.coverage,
        }


def input_json(s: SummaryData) -> str:
    """The model's input as canonical JSON (sorted keys): its hash keys the narration cache."""
    return json.dumps(narration_input(s), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------- what the model answers

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lead": {"type": "string"},
        "highlights": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"module": {"type": "string"}, "text": {"type": "string"}},
                "required": ["module", "text"],
            },
        },
        "themes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"module": {"type": "string"}, "text": {"type": "string"}},
                "required": ["module", "text"],
            },
        },
        "risks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"risk": {"type": "string"}, "text": {"type": "string"}},
                "required": ["risk", "text"],
            },
        },
        "follow_ups": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"number": {"type": "integer"}, "text": {"type": "string"}},
                "required": ["number", "text"],
            },
        },
    },
    "required": ["lead"],
}


class MalformedProse(ValueError):
    """The model's answer is not the JSON object the prompt asks for."""


@dataclass(frozen=True)
class ModelProse:
    """What a model wrote for one summary in one language: parsed, not yet verified."""

    model: str
    prompt_version: str
    lead: str = ""
    highlights: dict[str, str] = field(default_factory=dict)  # theme module -> text
    themes: dict[str, str] = field(default_factory=dict)  # theme module -> explanation
    risks: dict[str, str] = field(default_factory=dict)  # risk tag -> commentary
    follow_ups: dict[int, str] = field(default_factory=dict)  # item number -> text


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


def parse_model_prose(content: str, model: str, prompt_version: str) -> ModelProse:
    """The model's message content as `ModelProse`, or `MalformedProse` saying what is wrong."""
    fenced = _FENCE.match(content)
    if fenced:
        content = fenced.group(1)
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise MalformedProse(f"the answer is not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(data, dict):
        raise MalformedProse(f"the answer is JSON {type(data).__name__}, not an object")
    lead = data.get("lead", "")
    if not isinstance(lead, str):
        raise MalformedProse("'lead' is not a string")

    def entries(name: str, key: str, kind: type) -> dict:
        raw = data.get(name, [])
        if not isinstance(raw, list):
            raise MalformedProse(f"'{name}' is not a list")
        out: dict = {}
        for entry in raw:
            if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
                raise MalformedProse(f"an entry of '{name}' lacks a text string")
            k = entry.get(key)
            if kind is int and isinstance(k, str) and k.lstrip("#").isdigit():
                k = int(k.lstrip("#"))
            if not isinstance(k, kind) or isinstance(k, bool):
                raise MalformedProse(f"an entry of '{name}' lacks its '{key}'")
            out[k] = entry["text"].strip()
        return out

    return ModelProse(
        model=model,
        prompt_version=prompt_version,
        lead=lead.strip(),
        highlights=entries("highlights", "module", str),
        themes=entries("themes", "module", str),
        risks=entries("risks", "risk", str),
        follow_ups=entries("follow_ups", "number", int),
    )


@dataclass(frozen=True)
class Narration:
    """A narrator's answer for one summary and language: the model's prose, or why there is none
    (`unavailable`: the model was down, slow, over budget or answered malformed JSON)."""

    model: str
    prompt_version: str
    prose: ModelProse | None = None
    unavailable: str | None = None
    # why, for readers (a catalog key under prose.reasons): timeout | server_error | refused |
    # unreachable | malformed | over_budget | no_prompt
    code: str | None = None
    cached: bool = False


class Narrator(Protocol):
    """Writes a report's prose for a summary in a language. Must not raise for a model failure:
    it answers `Narration(unavailable=...)` (or None: the templates' prose, nothing to note)."""

    async def narrate(self, summary: SummaryData, lang: str) -> Narration | None: ...

    async def close(self) -> None: ...


class NarrationCache(Protocol):
    """Model answers by key (summary input hash + prompt version + model + language)."""

    async def get(self, key: str) -> str | None: ...

    async def put(self, key: str, content: str) -> None: ...


# ---------------------------------------------------------------- the figures prose may use


def _norm(text: str) -> str | None:
    try:
        d = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    d = d.normalize()
    return format(d, "f")


def _forms(value: float | int) -> set[str]:
    if isinstance(value, int):
        return {str(value)}
    return {
        x
        for x in (
            _norm(repr(value)),
            _norm(f"{value:.1f}"),
            _norm(f"{value:.0f}"),
            _norm(f"{value:.2f}"),
        )
        if x
    }


@dataclass(frozen=True)
class Facts:
    numbers: frozenset[str]  # normalized decimal strings
    percents: frozenset[str]
    refs: frozenset[int]
    # counts a sentence may claim for "merged N PRs" / "N new PRs" (any scope: window, module,
    # theme, risk, contributor, day, previous window)
    merged: frozenset[str] = frozenset()
    opened: frozenset[str] = frozenset()
    # what the source cannot tell (issues, opened PRs, reviews, comments): a sentence giving a
    # count of it is wrong whatever the number
    unavailable: frozenset[str] = frozenset()


# identifiers, not figures: their digits must not make an invented number pass
_NOT_FIGURES = frozenset({"fact_ids_sample", "request_id", "url", "ruleset_versions"})


def summary_facts(s: SummaryData) -> Facts:
    """Every figure of the summary, plus what prose may fairly derive from them: differences with
    the previous window, net lines, sums of the headline counts, and percents (shares of a count
    in another, changes against the previous window) to 0 or 1 decimal."""
    numbers: set[str] = set()
    tz = ZoneInfo(s.window.tz)

    def walk(node: object) -> None:
        if isinstance(node, bool) or node is None:
            return
        if isinstance(node, (int, float)):
            numbers.update(_forms(node))
        elif isinstance(node, str):
            # numbers standing on their own in titles, descriptions and reasons (as prose would
            # quote them), not the digits inside names
            numbers.update(
                x for x in (_norm(m.group(1).rstrip(",.")) for m in _NUMBER.finditer(node)) if x
            )
        elif isinstance(node, datetime):
            local = node.astimezone(tz)
            numbers.update(
                {
                    str(local.year),
                    str(local.month),
                    str(local.day),
                    str(local.hour),
                    str(local.minute),
                }
            )
        elif isinstance(node, date):
            numbers.update({str(node.year), str(node.month), str(node.day)})
        elif isinstance(node, dict):
            for k, v in node.items():
                if k not in _NOT_FIGURES:
                    walk(v)
        elif isinstance(node, (list, tuple)):
            numbers.add(str(len(node)))
            for v in node:
                walk(v)

    walk(s.model_dump())
    walk((s.window.end.astimezone(tz) - timedelta(days=1)).date())
    c, p = s.counts, s.previous_counts
    # a count the source cannot tell is None: nothing is derived from it (and prose may not
    # invent it)
    wholes: list[int] = [
        x
        for x in (
            _sum(c.lines_added, -c.lines_removed),
            _sum(c.new_prs, c.new_issues),
            _sum(c.merged_prs, c.closed_unmerged_prs),
            _sum(c.comments, c.reviews),
        )
        if x is not None
    ]
    pairs: list[tuple[int | None, int | None]] = []  # (part, whole) shares
    changes: list[tuple[int, int | None]] = []  # (now, before)
    counts = {k: v for k, v in c.model_dump().items() if isinstance(v, int)}
    if p is not None:
        for name, value in counts.items():
            before = getattr(p, name)
            if before is None:
                continue
            wholes.append(value - before)
            changes.append((value, before))
    items_total = _sum(c.new_prs, c.new_issues, c.merged_prs)
    for t in s.modules:
        wholes.append(t.total - t.previous_total)
        changes.append((t.total, t.previous_total))
        pairs.append((t.total, items_total))
        pairs.append((t.merged, c.merged_prs))
    for t in s.themes:
        pairs.append((t.merged, c.merged_prs))
    for st in s.storylines:
        pairs.append((st.merged, c.merged_prs))
        wholes.append(st.lines_added - st.lines_removed)
    for r in s.risks:
        pairs += [(r.count, c.merged_prs), (r.count, c.new_prs), (r.count, len(s.key_prs))]
    pairs += [
        (c.merged_prs, c.new_prs),
        (c.closed_issues, c.new_issues),
        (c.key_prs, c.merged_prs),
        (c.first_time_contributors, c.active_contributors),
        (c.closed_unmerged_prs, _sum(c.merged_prs, c.closed_unmerged_prs)),
        (c.merged_prs, _sum(c.merged_prs, c.closed_unmerged_prs)),
    ]
    shares = [(a, b) for a, b in pairs if a is not None and b is not None]
    for w in wholes:
        numbers.add(str(abs(w)))
    percents: set[str] = set()

    def pct(value: Decimal) -> None:
        for q in (Decimal(1), Decimal("0.1")):
            x = _norm(str(abs(value).quantize(q)))
            if x:
                percents.add(x)

    for part, whole in shares:
        if whole:
            pct(Decimal(part) * 100 / Decimal(whole))
    for now, before in changes:
        if before:
            pct((Decimal(now) - Decimal(before)) * 100 / Decimal(before))
    merged = {c.merged_prs, c.key_prs, len(s.key_prs), sum(1 for k in s.key_prs if k.item.merged)}
    merged |= {t.merged for t in s.modules} | {t.merged for t in s.themes}
    merged |= {st.merged for st in s.storylines}
    merged |= {r.count for r in s.risks} | {x.prs_merged for x in s.contributors}
    merged |= {d.prs_merged for d in s.activity}
    merged |= {sum(1 for g in e.pr_groups for i in g.items if i.merged) for e in s.ecosystems}
    opened = {c.new_prs, _sum(c.new_prs, -c.merged_prs)} | {t.opened for t in s.modules}
    opened |= {x.prs_opened for x in s.contributors} | {d.prs_opened for d in s.activity}
    opened |= {sum(len(g.items) for g in e.pr_groups) for e in s.ecosystems}
    opened |= {r.count for r in s.risks}
    if p is not None:
        merged.add(p.merged_prs)
        opened.add(p.new_prs)
    unavailable = {
        kind
        for kind, names in _UNAVAILABLE_FROM.items()
        if any(getattr(c, n) is None for n in names)
    }
    return Facts(
        frozenset(numbers),
        frozenset(percents),
        frozenset(_refs(s)),
        frozenset(str(abs(x)) for x in merged if x is not None),
        frozenset(str(abs(x)) for x in opened if x is not None),
        frozenset(unavailable),
    )


_UNAVAILABLE_FROM = {
    "issues": ("new_issues", "closed_issues"),
    "opened": ("new_prs",),
    "reviews": ("reviews",),
    "comments": ("comments",),
}


def _sum(*values: int | None) -> int | None:
    """A sum of counts, or None when one of them is not available from the source."""
    if any(v is None for v in values):
        return None
    return sum(values)  # type: ignore[arg-type]


def _refs(s: SummaryData) -> set[int]:
    refs: set[int] = set()
    a = s.appendix
    for items in (a.merged_prs, a.new_prs, a.closed_unmerged_prs, a.new_issues, a.closed_issues):
        refs.update(i.number for i in items)
    refs.update(k.item.number for k in s.key_prs)
    refs.update(d.item.number for d in s.discussions)
    refs.update(f.item.number for f in s.follow_ups)
    for e in s.ecosystems:
        refs.update(i.number for i in e.issues)
        refs.update(i.number for g in e.pr_groups for i in g.items)
    for t in s.themes:
        refs.update(t.prs)
    for r in s.risks:
        refs.update(r.items)
    for t in s.modules:
        refs.update(t.representative)
    for f in s.follow_ups:
        refs.update(f.items)
    for st in s.storylines:
        refs.update(i.number for i in st.items)
    for inc in s.incidents:
        refs.update(inc.items)
    return refs


# ---------------------------------------------------------------- checks

# `#123` (or `＃123`): a PR or issue reference
_REF = re.compile(r"[#＃]\s?(\d+)")
# a number standing on its own: not part of a word such as fp8, H100, k8s, v0.5 or Qwen3
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(\d[\d,]*(?:\.\d+)?)(?![\d])(\s?(?:%|％|percent\b|个百分点))?"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])")


# claims about pull-request counts: the number must be a count of that kind, not just any figure
_PRS = r"(?:PRs?|pull requests?)"
_N = r"(\d[\d,]*)"
_CLAIMS = (
    ("merged", re.compile(rf"\bmerged\s+{_N}\s+(?:[\w-]+\s+){{0,2}}{_PRS}", re.I)),
    (
        "merged",
        re.compile(
            rf"(?<![\w.]){_N}\s+(?:[\w-]+\s+){{0,2}}{_PRS}\s+(?:were\s+|got\s+)?merged", re.I
        ),
    ),
    ("merged", re.compile(rf"合并(?:了)?\s*{_N}\s*个?\s*(?:[\w-]{{0,12}}\s*)?{_PRS}", re.I)),
    (
        "merged",
        re.compile(rf"(?<![\w.]){_N}\s*个\s*(?:[\w-]{{0,12}}\s*)?{_PRS}\s*(?:被|已)?合并", re.I),
    ),
    ("opened", re.compile(rf"\b(?:opened|received)\s+{_N}\s+(?:new\s+)?{_PRS}", re.I)),
    ("opened", re.compile(rf"(?<![\w.]){_N}\s+new\s+{_PRS}", re.I)),
    ("opened", re.compile(rf"(?:新增|新开)(?:了)?\s*{_N}\s*个\s*{_PRS}", re.I)),
)


# counts of things a source may not provide (Facts.unavailable)
_UNAVAILABLE_CLAIMS = (
    ("issues", re.compile(rf"(?<![\w.]){_N}\s+(?:[\w-]+\s+)?issues?\b", re.I)),
    ("issues", re.compile(rf"{_N}\s*个\s*(?:新\s*)?Issue", re.I)),
    ("reviews", re.compile(rf"(?<![\w.]){_N}\s+reviews?\b|{_N}\s*次\s*评审", re.I)),
    ("comments", re.compile(rf"(?<![\w.]){_N}\s+comments?\b|{_N}\s*条\s*评论", re.I)),
)


def split_sentences(text: str) -> list[str]:
    return [p.strip() for p in _SENTENCE.split(text.strip()) if p and p.strip()]


def check_sentence(sentence: str, facts: Facts) -> list[tuple[str, str]]:
    """What is wrong with one sentence, as (check, value) pairs: `unknown_reference`,
    `invented_number`, `underivable_percent`, `wrong_merged_count`, `wrong_opened_count` (empty
    when every number and reference is in the summary, with the meaning the sentence gives it)."""
    problems: list[tuple[str, str]] = []
    for m in _REF.finditer(sentence):
        if int(m.group(1)) not in facts.refs:
            problems.append(("unknown_reference", m.group(1)))
    rest = _REF.sub(" ", sentence)
    for kind, pattern in _UNAVAILABLE_CLAIMS:
        if kind in facts.unavailable:
            for m in pattern.finditer(rest):
                problems.append(("unavailable_count", next(g for g in m.groups() if g)))
    for kind, pattern in _CLAIMS:
        if kind == "opened" and "opened" in facts.unavailable:
            problems.extend(("unavailable_count", m.group(1)) for m in pattern.finditer(rest))
            continue
        allowed = facts.merged if kind == "merged" else facts.opened
        for m in pattern.finditer(rest):
            value = _norm(m.group(1))
            if value is not None and value in facts.numbers and value not in allowed:
                problems.append((f"wrong_{kind}_count", m.group(1)))
    for m in _NUMBER.finditer(rest):
        raw, unit = m.group(1).rstrip(",."), (m.group(2) or "").strip()
        value = _norm(raw)
        if value is None:
            continue
        if unit:
            if value not in facts.percents:
                problems.append(("underivable_percent", raw))
        elif value not in facts.numbers:
            problems.append(("invented_number", raw))
    return list(dict.fromkeys(problems))


# ---------------------------------------------------------------- applying verified prose


@dataclass(frozen=True)
class ProseCheck:
    part: str  # lead | highlights.<module> | themes.<module> | risks.<risk> | follow_ups.<number>
    # invented_number | underivable_percent | unknown_reference | unknown_entry |
    # wrong_merged_count | wrong_opened_count | unavailable_count
    check: str
    value: str  # the number, reference or entry that failed
    sentence: str = ""

    @property
    def problem(self) -> str:
        return f"{self.check.replace('_', ' ')} {self.value}"


@dataclass(frozen=True)
class ProseReport:
    """Which prose the report carries and why: model-written parts, replaced sentences, or the
    reason the template prose is used throughout."""

    source: str  # "model" | "mixed" | "template"
    model: str
    prompt_version: str
    model_parts: tuple[str, ...] = ()
    replaced: tuple[ProseCheck, ...] = ()
    unavailable: str | None = None
    cached: bool = False
    unavailable_code: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for entry, check in zip(out["replaced"], self.replaced):
            entry["problem"] = check.problem
        return out


class _Merger:
    def __init__(self, facts: Facts, joiner: str) -> None:
        self.facts, self.joiner = facts, joiner
        self.model_parts: list[str] = []
        self.replaced: list[ProseCheck] = []

    def merge(self, part: str, model_text: str | None, template_text: str) -> str:
        """The model's text with each failing sentence replaced by the template's text (once)."""
        if not model_text or not model_text.strip():
            return template_text
        out: list[str] = []
        used_template = False
        kept = 0
        for sentence in split_sentences(model_text):
            problems = check_sentence(sentence, self.facts)
            if problems:
                self.replaced.extend(ProseCheck(part, c, v, sentence) for c, v in problems)
                if not used_template and template_text:
                    out.append(template_text)
                    used_template = True
                continue
            out.append(sentence)
            kept += 1
        if kept:
            self.model_parts.append(part)
        return self.joiner.join(out) if out else template_text


def apply_narration(
    view: ReportView, s: SummaryData, narration: Narration, messages: Messages
) -> ProseReport:
    """Put the verified model prose into `view` (in place) and set its prose note; figures,
    tables, lists and links are never touched."""
    prose = narration.prose
    if prose is None:
        report = ProseReport(
            "template",
            narration.model,
            narration.prompt_version,
            unavailable=narration.unavailable or "no answer",
            cached=narration.cached,
            unavailable_code=narration.code,
        )
        view.prose = prose_note(report, messages)
        return report
    m = _Merger(summary_facts(s), "" if messages.lang.startswith("zh") else " ")
    view.lead = m.merge("lead", prose.lead, view.lead)
    # a highlight's text is followed by its PR list after a colon: no closing full stop
    view.highlights = tuple(
        _replace_text(
            b, m.merge(f"highlights.{b.key}", prose.highlights.get(b.key), b.text).rstrip("。.！!")
        )
        for b in view.highlights
    )
    view.themes = tuple(
        _replace_text(t, m.merge(f"themes.{t.key}", prose.themes.get(t.key), t.text))
        for t in view.themes
    )
    view.risks = tuple(
        dataclasses.replace(b, detail=m.merge(f"risks.{b.key}", prose.risks.get(b.key), b.detail))
        for b in view.risks
    )
    view.follow_ups = tuple(
        _replace_text(b, m.merge(f"follow_ups.{b.key}", prose.follow_ups.get(_int(b.key)), b.text))
        for b in view.follow_ups
    )
    known = (
        {"lead"}
        | {f"highlights.{b.key}" for b in view.highlights}
        | {f"themes.{t.key}" for t in view.themes}
        | {f"risks.{b.key}" for b in view.risks}
        | {f"follow_ups.{b.key}" for b in view.follow_ups}
    )
    # parts the model wrote for things the summary does not have: reported, not shown
    for group, entries in (
        ("highlights", prose.highlights),
        ("themes", prose.themes),
        ("risks", prose.risks),
        ("follow_ups", prose.follow_ups),
    ):
        for key in entries:
            if f"{group}.{key}" not in known:
                m.replaced.append(ProseCheck(f"{group}.{key}", "unknown_entry", f"{group}.{key}"))
    source = (
        "model" if m.model_parts and not m.replaced else ("mixed" if m.model_parts else "template")
    )
    report = ProseReport(
        source,
        prose.model,
        prose.prompt_version,
        tuple(m.model_parts),
        tuple(m.replaced),
        cached=narration.cached,
        unavailable=None if m.model_parts else "every model sentence failed verification",
        unavailable_code=None if m.model_parts else "unverified",
    )
    view.prose = prose_note(report, messages)
    return report


def _int(key: str) -> int:
    return int(key) if key.isdigit() else -1


def _replace_text(obj: Bullet | ThemeView, text: str) -> Any:
    return dataclasses.replace(obj, text=text)


MAX_NOTED_PROBLEMS = 5


def prose_note(r: ProseReport, m: Messages) -> str:
    """One line for the report's readers: who wrote the prose, and what was replaced and why."""
    if r.source == "template":
        reason = r.unavailable or ""
        if r.unavailable_code and m.has(f"prose.reasons.{r.unavailable_code}"):
            reason = m.t(f"prose.reasons.{r.unavailable_code}", detail=reason)
        return m.t("prose.template", model=r.model, version=r.prompt_version, reason=reason)
    text = m.t("prose.model", model=r.model, version=r.prompt_version)
    if r.replaced:
        problems = list(
            dict.fromkeys(m.t(f"prose.checks.{c.check}", value=c.value) for c in r.replaced)
        )
        shown = m.t("list.comma").join(problems[:MAX_NOTED_PROBLEMS])
        if len(problems) > MAX_NOTED_PROBLEMS:
            shown += m.t("prose.more", count=len(problems) - MAX_NOTED_PROBLEMS)
        sentences = len({(c.part, c.sentence) for c in r.replaced})
        text += m.t("list.sentence") + m.tn(
            "prose.replaced", sentences, count=sentences, problems=shown
        )
    return text


__all__ = [
    "Facts",
    "MalformedProse",
    "ModelProse",
    "Narration",
    "NarrationCache",
    "Narrator",
    "OUTPUT_SCHEMA",
    "ProseCheck",
    "ProseReport",
    "apply_narration",
    "check_sentence",
    "input_json",
    "narration_input",
    "parse_model_prose",
    "prose_note",
    "split_sentences",
    "summary_facts",
]
