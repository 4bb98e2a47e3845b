"""Reverts undone on purpose (Incident.planned) are told apart from a defect's revert: one line
after the defect reverts, at the top, in section 4 and among a day's problems."""

from __future__ import annotations

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.domain.view import build_view
from shared.events.summary import Incident, RiskObservation
from tests.unit.renderer.samples import daily_summary, weekly_summary

FREEZE = "The main branch is freeze for the release. We'll redo it once 0.13.0 is released."
DEFECT = Incident(kind="revert", items=(5317, 4138), reason="It causes a deepseek v3.2 hang error.")
PLANNED = (
    Incident(kind="revert", items=(5410, 5275), reason=FREEZE, planned=True),
    Incident(kind="revert", items=(5434, 5300), reason=FREEZE, planned=True),
)


def _text(b) -> str:
    return b.text + "".join(p if isinstance(p, str) else p.label for p in b.parts)


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_planned_reverts_one_line_after_the_defect_reverts(lang: str) -> None:
    view = build_view(weekly_summary(incidents=(*PLANNED, DEFECT)), messages(lang))
    head = "Reverted as planned" if lang == "en" else "按计划回退"
    for bullets in (view.incident_bullets, view.incidents):
        texts = [_text(b) for b in bullets]
        planned = [t for t in texts if head in t]
        assert len(planned) == 1, texts
        line = planned[0]
        assert "#5410" in line and "#5275" in line and "#5434" in line and "#5300" in line
        # a shared reason quoted once, in section 4; the top's line refers to it without it
        quoted = 1 if bullets is view.incidents else 0
        assert line.count("The main branch is freeze") == quoted
        # the defect revert keeps its own line, before the planned one
        defect = next(k for k, t in enumerate(texts) if "#5317" in t)
        assert head not in texts[defect] and defect < texts.index(line)
        assert not any("#5410" in t for t in texts if head not in t)


def test_no_planned_line_for_defect_reverts_only() -> None:
    view = build_view(weekly_summary(incidents=(DEFECT,)), messages("en"))
    texts = [_text(b) for b in (*view.incident_bullets, *view.incidents)]
    assert any("#5317" in t for t in texts)
    assert not any("as planned" in t for t in texts)


def test_day_attention_sets_planned_reverts_apart() -> None:
    view = build_view(daily_summary(incidents=(*PLANNED, DEFECT)), messages("en"))
    texts = [b.text for b in view.attention] if hasattr(view, "attention") else []
    planned = [t for t in texts if "as planned" in t]
    assert len(planned) == 1 and "#5434" in planned[0], texts
    assert not any("#5410" in t and "as planned" not in t for t in texts)


def test_summary_does_not_count_planned_reverts_among_its_risks() -> None:
    risks = (RiskObservation(risk="revert", severity="high", count=3, items=(5410, 5434, 5317)),)
    view = build_view(daily_summary(incidents=(*PLANNED, DEFECT), risks=risks), messages("en"))
    told = " ".join((view.lead, *view.summary))
    assert "#5317" in told and "(1 item)" in told  # the defect revert stays a risk
    assert "#5410" not in told and "#5434" not in told
    # a risk of planned reverts alone is no risk; one of a defect's revert stays
    alone = (RiskObservation(risk="revert", severity="high", count=2, items=(5410, 5434)),)
    only = build_view(daily_summary(incidents=PLANNED, risks=alone), messages("en"))
    assert "#5410" not in " ".join((only.lead, *only.summary))
    kept = build_view(daily_summary(risks=alone), messages("en"))
    assert "#5410" in " ".join((kept.lead, *kept.summary))


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_day_attention_planned_line_names_its_linked_revert_once(lang: str) -> None:
    # the line follows #5410's own link: it says what #5410 undid, never "#5410" again
    view = build_view(daily_summary(incidents=(*PLANNED, DEFECT)), messages(lang))
    line = next(b for b in view.attention if b.links and b.links[0].number == 5410)
    assert "#5410" not in line.text, line.text
    assert "#5275" in line.text and "#5434" in line.text and "#5300" in line.text
    assert line.text.count("The main branch is freeze") == 1
    # one planned revert alone: what it undid and why, no other revert to add
    alone = build_view(daily_summary(incidents=PLANNED[:1]), messages(lang))
    one = next(b for b in alone.attention if b.links and b.links[0].number == 5410)
    assert "#5410" not in one.text and "#5275" in one.text and "#5434" not in one.text
    assert "The main branch is freeze" in one.text and ("so does" not in one.text)
    # the week's line has no link before it: it names each revert
    week = build_view(weekly_summary(incidents=PLANNED), messages(lang))
    told = [_text(b) for b in week.incident_bullets if b.key == "planned"]
    assert len(told) == 1 and "#5410" in told[0] and "#5434" in told[0]


def test_a_chinese_report_marks_the_quoted_reason_as_its_other_excerpts() -> None:
    # an excerpt of a description is 「…」 in Chinese prose, as every other excerpt; “…” stays
    # for the report's own words ("见下文“风险观察详情”一节") and for English
    zh = build_view(weekly_summary(incidents=PLANNED), messages("zh-CN"))
    line = next(_text(b) for b in zh.incidents if b.key == "planned")
    assert "「The main branch is freeze" in line and "“The main branch" not in line
    en = build_view(weekly_summary(incidents=PLANNED), messages("en"))
    assert "“The main branch is freeze" in next(
        _text(b) for b in en.incidents if b.key == "planned"
    )


def test_no_chinese_template_marks_an_excerpt_with_english_quotes() -> None:
    import re

    from services.renderer.adapters.catalogs import _catalog

    def walk(node, key=""):
        if isinstance(node, dict):
            for k, v in node.items():
                yield from walk(v, f"{key}.{k}" if key else str(k))
        elif isinstance(node, str):
            yield key, node

    quoted = [
        (k, t)
        for k, t in walk(_catalog("zh-CN"))
        if re.search(r"“\{(?:text|said|reason|title)\}”", t)
    ]
    assert not quoted, quoted
