"""Golden Markdown reports (daily and weekly, en and zh-CN) and where every number in them comes from.

Regenerate the golden files after an intended change with:
    REPODIGEST_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/unit/renderer/test_renderer_golden.py
and review the diff.
"""

from __future__ import annotations

import os
import re
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from services.renderer.adapters.documents import render_markdown
from shared.events import SummaryData

from .samples import daily_summary, weekly_summary

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("REPODIGEST_UPDATE_GOLDEN") == "1"

CASES = {
    "daily": daily_summary,
    "weekly": weekly_summary,
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_markdown_matches_golden(case: str, lang: str) -> None:
    text = render_markdown(CASES[case](), lang)
    path = GOLDEN / f"{case}.{lang}.md"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with REPODIGEST_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} differs from the rendered report; if the change is intended, regenerate "
        "with REPODIGEST_UPDATE_GOLDEN=1 and review the diff")


def test_rendering_is_deterministic() -> None:
    assert render_markdown(daily_summary(), "zh-CN") == render_markdown(daily_summary(), "zh-CN")


# ---------------------------------------------------------------- numbers come from the summary

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_HEADING_NUMBER = re.compile(r"^(#+) \d+(?:\.\d+)*\.? ", re.M)


def _forms(value: float | int) -> set[str]:
    out = {str(value), f"{value:.1f}", f"{value:.0f}"}
    if isinstance(value, float) and value.is_integer():
        out.add(str(int(value)))
    return {o.replace(",", "") for o in out}


def allowed_numbers(s: SummaryData) -> set[str]:
    """Every number the summary holds, in the forms a report may print, plus the few figures the
    report derives from them (differences, sums, list lengths), derived here independently."""
    allowed: set[str] = set()
    tz = ZoneInfo(s.window.tz)

    def walk(node: object) -> None:
        if isinstance(node, bool) or node is None:
            return
        if isinstance(node, (int, float)):
            allowed.update(_forms(node))
        elif isinstance(node, str):
            allowed.update(re.findall(r"\d+", node))
            allowed.update(n.replace(",", "") for n in _NUMBER.findall(node))
        elif isinstance(node, datetime):
            local = node.astimezone(tz)
            allowed.update(local.strftime("%Y %m %d %H %M").split())
            allowed.update({str(local.month), str(local.day), str(local.hour)})
        elif isinstance(node, date):
            allowed.update(node.strftime("%Y %m %d").split())
        elif isinstance(node, dict):
            if "additions" in node and "deletions" in node:  # an item: its net lines (the summary
                allowed.add(str(abs(node["additions"] - node["deletions"])))  # names the biggest)
            for v in node.values():
                walk(v)
        elif isinstance(node, (list, tuple)):
            allowed.add(str(len(node)))
            for v in node:
                walk(v)

    walk(s.model_dump())
    # the last day of a midnight-to-midnight window is shown inclusively (end - 1 day)
    walk(date.fromordinal(s.window.end.astimezone(tz).date().toordinal() - 1))
    offset = s.window.start.astimezone(tz).utcoffset()
    allowed.add(str(abs(int(offset.total_seconds() // 3600))))
    if s.previous_counts is not None:
        for name in Counts_fields(s):
            now, before = getattr(s.counts, name), getattr(s.previous_counts, name)
            if now is not None and before is not None:  # None: not available from the source
                allowed.add(str(abs(now - before)))
    allowed.add(str(abs(s.counts.lines_added - s.counts.lines_removed)))
    for e in s.ecosystems:
        allowed.add(str(sum(len(g.items) for g in e.pr_groups)))
        allowed.add(str(sum(1 for g in e.pr_groups for i in g.items if i.merged)))
    for group in (("up", "new"), ("down", "gone")):
        allowed.add(str(sum(1 for t in s.modules if t.trend in group)))
    allowed.add(str(sum(1 for r in s.risks if r.severity == "high")))
    allowed.add(str(sum(1 for c in s.contributors if c.bot)))
    allowed.add(str(min(3, len([t for t in s.modules if not t.fallback and t.total]))))
    # "… and N more" under a capped list: a risk's count less the few items shown (issue #15.6)
    from services.renderer.domain.view import MAX_RISK_LINKS, MAX_RISK_LINKS_SHORT
    for r in s.risks:
        for shown in {MAX_RISK_LINKS, MAX_RISK_LINKS_SHORT, min(len(r.items), MAX_RISK_LINKS),
                      min(len(r.items), MAX_RISK_LINKS_SHORT)}:
            allowed.add(str(max(r.count, len(r.items)) - shown))
    return allowed


def Counts_fields(s: SummaryData) -> list[str]:  # noqa: N802 - reads like the model it lists
    return list(type(s.counts).model_fields)


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_number_in_the_report_comes_from_the_summary(case: str, lang: str) -> None:
    summary = CASES[case]()
    text = _HEADING_NUMBER.sub(r"\1 ", render_markdown(summary, lang))
    allowed = allowed_numbers(summary)
    found = [n.replace(",", "") for n in _NUMBER.findall(text)]
    stray = sorted({n for n in found if n not in allowed})
    assert not stray, f"numbers not derived from the summary: {stray}"
    # and the headline figures are really there
    for figure in (summary.counts.new_issues, summary.counts.merged_prs, summary.counts.new_prs):
        assert str(figure) in found


def test_the_number_check_catches_a_typed_number() -> None:
    summary = daily_summary()
    allowed = allowed_numbers(summary)
    assert "9999" not in allowed and "97.3" not in allowed
    # a report that invents a figure would fail the check above
    assert "41" in allowed and "18.5" in allowed
