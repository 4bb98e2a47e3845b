"""Partial summaries (sections without data) render what they have, with a visible note in the
report's language under each section that has nothing, in every text format; and trimmed appendix
lists say how many items were left out."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import render_html, render_json, render_markdown
from services.renderer.domain.view import APPENDIX_SECTIONS, LEFT_OUT_EMPTY, SECTION_ORDERS
from shared.events import (
    Appendix,
    Counts,
    DailyActivity,
    Discussion,
    EcosystemSection,
    FollowUp,
    KeyPR,
    ModuleTrend,
    RiskObservation,
    SummaryData,
    Theme,
    WindowRef,
)

from .samples import I_OOM, P_DRAFT, P_MOE, daily_summary, large_weekly_summary, weekly_summary

LANGS = ("en", "zh-CN")
# sections whose note is the "no data for this section" one (the summary's note differs)
LIST_SECTIONS = (
    "highlights",
    "risk_bullets",
    "themes",
    "modules",
    "key_prs",
    "discussions",
    "ecosystems",
    "activity",
    "risks",
    "follow_ups",
)

_ZERO_DAY = WindowRef(
    kind="day",
    label="2026-01-05",
    start=datetime(2026, 1, 5, 3, 45, tzinfo=UTC),
    end=datetime(2026, 1, 6, 3, 45, tzinfo=UTC),
    tz="Asia/Shanghai",
    cutoff="11:45",
)

# name -> (overrides of the daily sample, sections expected to carry the no-data note,
#          text that must still be in the Markdown because the summary has it)
CASES: dict[str, tuple[dict, set[str], tuple[str, ...]]] = {
    "no modules": (dict(modules=()), {"modules"}, ("#41184",)),
    "no key PRs": (dict(key_prs=()), {"key_prs"}, ("#41184", "MoE")),
    "no key PRs, themes name PRs nobody lists": (
        dict(
            key_prs=(),
            appendix=Appendix(),
            discussions=(),
            follow_ups=(),
            ecosystems=(),
            themes=(Theme(module="moe", prs=(99901, 99902), merged=2),),
        ),
        {"key_prs", "discussions", "ecosystems", "follow_ups"},
        ("#99901",),
    ),
    "no activity": (dict(activity=()), set(), ("#41184",)),
    "no activity and no contributors": (
        dict(activity=(), contributors=()),
        {"activity"},
        ("#41184",),
    ),
    "no ecosystems": (dict(ecosystems=()), {"ecosystems"}, ("#38313",)),
    "ecosystem without items": (
        dict(ecosystems=(EcosystemSection(name="AMD/ROCm", affiliation="amd"),)),
        set(),
        ("AMD/ROCm",),
    ),
    "empty appendix": (dict(appendix=Appendix()), set(), ("#41184",)),
    "no previous window": (dict(previous_counts=None), set(), ("#41184",)),
    "no themes, risks, discussions, follow-ups": (
        dict(themes=(), risks=(), discussions=(), follow_ups=()),
        {"highlights", "risk_bullets", "themes", "discussions", "risks", "follow_ups"},
        ("#41184",),
    ),
    "odd shapes": (
        dict(
            key_prs=(KeyPR(item=P_MOE.model_copy(update={"modules": ()}), score=0.0),),
            discussions=(Discussion(item=I_OOM),),
            follow_ups=(FollowUp(kind="other", item=P_DRAFT, reason=""),),
            risks=(RiskObservation(risk="core-change", count=0, items=()),),
            modules=(ModuleTrend(module="other", fallback=True),),
            contributors=(),
            median_hours_to_merge=None,
            median_hours_to_first_response=None,
        ),
        set(),
        ("#41184", "#38257", "#38280"),
    ),
    "a day window with zero events": (
        dict(
            window=_ZERO_DAY,
            counts=Counts(),
            previous_counts=Counts(),
            modules=(),
            key_prs=(),
            themes=(),
            discussions=(),
            risks=(),
            ecosystems=(),
            follow_ups=(),
            contributors=(),
            activity=(DailyActivity(day=date(2026, 1, 5)),),
            appendix=Appendix(),
            changed_figures=(),
            median_hours_to_merge=None,
            median_hours_to_first_response=None,
        ),
        {
            "highlights",
            "risk_bullets",
            "themes",
            "modules",
            "key_prs",
            "discussions",
            "ecosystems",
            "risks",
            "follow_ups",
        },
        ("2026-01-05",),
    ),
    "nothing at all": (
        dict(
            window=_ZERO_DAY,
            counts=Counts(),
            previous_counts=None,
            modules=(),
            key_prs=(),
            themes=(),
            discussions=(),
            risks=(),
            ecosystems=(),
            follow_ups=(),
            contributors=(),
            activity=(),
            appendix=Appendix(),
            changed_figures=(),
            ruleset_versions=(),
            watermark=None,
            median_hours_to_merge=None,
            median_hours_to_first_response=None,
            data_note=None,
            synthetic=False,
        ),
        set(LIST_SECTIONS),
        ("2026-01-05",),
    ),
}


_WEEK = weekly_summary().window
# text only weekly sections show (key changes by theme; a daily has no themes section)
WEEKLY_ONLY = {"#99901"}


def _summary(case: str, kind: str = "day") -> SummaryData:
    """The case on the daily sample, or on a week window (cases with their own window keep it)."""
    overrides = dict(CASES[case][0])
    if kind == "week":
        overrides.setdefault("window", _WEEK)
    return daily_summary(**overrides)


def _md_sections(text: str, lang: str) -> dict[str, str]:
    """Section id -> its Markdown (from its `## ` heading to the next one)."""
    m = messages(lang)
    titles = {
        m.t(f"sections.{sid}"): sid
        for sid in LIST_SECTIONS + ("summary", "appendix", "topics", "attention")
    }
    titles.update({m.t(f"sections_day.{sid}"): sid for sid in m.raw("sections_day")})
    out: dict[str, str] = {}
    for chunk in re.split(r"^## ", text, flags=re.M)[1:]:
        heading = chunk.split("\n", 1)[0]
        title = re.sub(r"^\d+\. ", "", heading)
        out[titles[title]] = chunk
    return out


def _html_sections(text: str) -> dict[str, str]:
    return {
        m.group(1): m.group(0)
        for m in re.finditer(r'<h2 id="([a-z_]+)">.*?(?=<h2 id=|</main>)', text, re.S)
    }


def _md_subsection(appendix: str, title: str) -> str:
    """An appendix subsection's Markdown (a week's activity observations), to the next one."""
    return appendix.split(f"\n### {title}\n", 1)[1].split("\n### ", 1)[0]


def _html_subsection(appendix: str, sid: str) -> str:
    """An appendix subsection's HTML, to the next heading or the item lists."""
    body = appendix.split(f'<h3 id="{sid}">', 1)[1]
    return re.split(r"<h3|<details|<p class=\"appendix", body, maxsplit=1)[0]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ("day", "week"))
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_partial_summary_renders_with_a_note_per_missing_section(
    case: str, kind: str, lang: str
) -> None:
    overrides, missing, present = CASES[case]
    s = _summary(case, kind)
    order = {sid for sid, _ in SECTION_ORDERS[s.window.kind]}
    note = messages(lang).t("labels.none")
    md = render_markdown(s, lang)
    html = render_html(s, lang)
    assert json.loads(render_json(s))["repo"] == s.repo

    sections = _md_sections(md, lang)
    hsections = _html_sections(html)
    in_appendix = APPENDIX_SECTIONS.get(s.window.kind, ())
    for sid in LIST_SECTIONS:
        if sid in in_appendix:
            # a week's activity observations: the appendix's first subsection, its note there
            assert sid not in sections and sid not in hsections
            title = messages(lang).t(f"sections.{sid}")
            sub = _md_subsection(sections["appendix"], title)
            hsub = _html_subsection(hsections["appendix"], sid)
            assert (note in sub) == (sid in missing), (sid, sub[:400])
            assert (note in hsub) == (sid in missing), (sid, hsub[:400])
            continue
        if sid not in order:  # not a section of this window kind (a daily has seed 003's)
            assert sid not in sections and sid not in hsections
            continue
        if sid in LEFT_OUT_EMPTY and sid in missing:
            # a section from what many sources lack is left out when empty, not said empty
            assert sid not in sections and sid not in hsections
            continue
        assert (note in sections[sid]) == (sid in missing), (sid, sections[sid][:400])
        assert (note in hsections[sid]) == (sid in missing), (sid, hsections[sid][:400])
    for text in present:
        if kind == "day" and text in WEEKLY_ONLY:
            continue
        assert text in md and text in html
    no_previous = messages(lang).t("summary.no_previous")
    assert (no_previous in sections["summary"]) == (s.previous_counts is None)
    assert (no_previous in hsections["summary"]) == (s.previous_counts is None)
    # each appendix list that has nothing says so
    empty_lists = sum(
        1
        for n in ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
        if not getattr(s.appendix, n)
    )
    # (besides an empty subsection of the appendix: a week's activity observations)
    noted = sum(
        1
        for sid in in_appendix
        if note in _md_subsection(sections["appendix"], messages(lang).t(f"sections.{sid}"))
    )
    assert sections["appendix"].count(note) == empty_lists + noted
    assert "None" not in md and ">None<" not in html


@pytest.mark.parametrize("lang", LANGS)
def test_charts_say_when_there_is_nothing_to_draw(lang: str) -> None:
    note = messages(lang).t("labels.none")
    empty = _html_sections(
        render_html(_summary("nothing at all", "week").model_copy(update={"window": _WEEK}), lang)
    )["charts"]
    assert note in empty and "<svg" not in empty
    full = _html_sections(render_html(weekly_summary(), lang))["charts"]
    assert note not in full and full.count("<svg") == 3


@pytest.mark.parametrize("lang", LANGS)
def test_trimmed_appendix_lists_say_how_many_were_left_out(lang: str) -> None:
    base = large_weekly_summary(merged=60, issues=20)
    kept = base.appendix.merged_prs[:45]
    s = base.model_copy(
        update={
            "appendix": base.appendix.model_copy(
                update={
                    "merged_prs": kept,
                    "closed_issues": (),
                    "omitted": {"merged_prs": 15, "closed_issues": 10},
                }
            )
        }
    )
    m = messages(lang)
    more_15 = m.tn("appendix.more", 15, count="15")
    more_10 = m.tn("appendix.more", 10, count="10")
    md, html = render_markdown(s, lang), render_html(s, lang)
    appendix = _md_sections(md, lang)["appendix"]
    # the true totals in the list titles, the "… and N more" line under the trimmed list
    assert m.t("appendix.merged_prs") + m.t("appendix.count", count="60") in appendix
    assert m.t("appendix.closed_issues") + m.t("appendix.count", count="10") in appendix
    merged_part = appendix.split("### " + m.t("appendix.merged_prs"))[1].split("### ")[0]
    assert merged_part.count("- [#") == 45 and more_15 in merged_part
    closed_part = appendix.split("### " + m.t("appendix.closed_issues"))[1].split("### ")[0]
    assert more_10 in closed_part and m.t("labels.none") not in closed_part
    assert more_15 in html and more_10 in html
    untrimmed = render_markdown(base, lang)
    assert m.tn("appendix.more", 15, count="15") not in untrimmed
