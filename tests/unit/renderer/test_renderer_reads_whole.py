"""What a reader found thinner than the seeds (issue #15, renderer side): sentences told whole
or not at all (never cut with "…"), a PR's sentence printed once, sections without data left
out, small risk groups named, a quiet header, and Chinese punctuation in zh-CN."""

from __future__ import annotations

import re

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import render_html, render_markdown, view_for
from services.renderer.domain.view import EXCERPT_WHAT, MAX_HIGHLIGHT_PRS

from .explain_samples import P_MTP, P_V4, explained_summary

LANGS = ("en", "zh-CN")

# real descriptions' sentences (vllm-ascend, 2026-W26) that the report used to cut at 100
# characters: "… by adding…", "… with DP > 1 and MTP/ Graph Mode…"
LONG_WHAT = (
    "Introduces support for hybrid attention PCP (Parallel Context Processing) by adding the "
    "prefill context-parallel metadata to the GDN layers and wiring MTP through it."
)
# a sentence whose head is a subordinate clause has no main clause to show alone
SUBORDINATE_WHAT = (
    "When DP is larger than one and MTP runs with graph mode enabled on every rank of the "
    "deployment, the GDN layers' conv and ssm states were overwritten by padded requests, which "
    "produced garbled output and precision errors in long multi-turn conversations on 910B."
)
LONG_TITLE = (
    "[Feature][P/D][Core][KVOffload] Support recompute KVCache offloading on P/D "
    "disaggregation decoder nodes"
)


def _with_what(item, what: str, **update):
    return item.model_copy(
        update={"digest": item.digest.model_copy(update={"what": what}), **update}
    )


def whole_sentence_summary():
    """The explained week with a key PR of a long what-sentence, a PR whose sentence has no main
    clause to tell alone, and a lead with a long title."""
    s = explained_summary()
    v4 = _with_what(P_V4, LONG_WHAT, title=LONG_TITLE)
    mtp = _with_what(P_MTP, SUBORDINATE_WHAT)
    swap = {P_V4.number: v4, P_MTP.number: mtp}
    merged = tuple(swap.get(i.number, i) for i in s.appendix.merged_prs)
    keys = tuple(
        k.model_copy(update={"item": swap[k.item.number]}) if k.item.number in swap else k
        for k in s.key_prs
    )
    return s.model_copy(
        update={
            "appendix": s.appendix.model_copy(update={"merged_prs": merged}),
            "key_prs": keys,
        }
    )


def main_body(text: str) -> str:
    cut = re.search(r"^## (附录|Appendix)", text, re.M)
    return text[: cut.start()] if cut else text


def cuts(text: str) -> list[str]:
    """Places a sentence or title is cut with "…" ("… and 3 more", "……另有 3 项" and a list of
    modules cut to three are not sentences)."""
    body = re.sub(r"… and \d+ more|……另有\s*\d+\s*项|等，另有\s*\d+\s*项", "", text)
    return re.findall(r".{0,40}…", body)


# ---------------------------------------------------------------- 1. sentences told whole


@pytest.mark.parametrize("lang", LANGS)
def test_a_key_prs_what_sentence_is_told_whole(lang: str) -> None:
    s = whole_sentence_summary()
    assert 100 < len(LONG_WHAT) <= EXCERPT_WHAT
    v = view_for(s, lang)
    shown = " ".join(
        [k.what for k in v.key_prs]
        + [ln.text for t in v.themes for ln in t.lines]
        + [ln.text for b in v.highlights for ln in b.lines]
        + [b.text for b in v.highlights]
    )
    assert LONG_WHAT.rstrip(".") in shown
    # the sentence without a main clause is not cut into: its title says it instead
    assert SUBORDINATE_WHAT[:60] not in shown


@pytest.mark.parametrize("lang", LANGS)
def test_no_sentence_or_title_is_cut_with_an_ellipsis(lang: str) -> None:
    s = whole_sentence_summary()
    for text in (render_markdown(s, lang), render_html(s, lang)):
        body = main_body(text)
        assert not cuts(body), cuts(body)
    v = view_for(s, lang)
    # a highlight names at most two PRs, each by its whole title or whole sentence
    assert all(len(b.lines) <= MAX_HIGHLIGHT_PRS for b in v.highlights)
    md = render_markdown(s, lang)
    assert LONG_TITLE.replace("[", "\\[").replace("]", "\\]") in md


def test_a_theme_line_without_a_main_clause_says_nothing_rather_than_half() -> None:
    v = view_for(whole_sentence_summary(), "en")
    line = next(ln for t in v.themes for ln in t.lines if ln.link.number == P_MTP.number)
    assert line.text == ""  # the title beside it says what it does
    assert all("…" not in ln.text for t in v.themes for ln in t.lines)


# ---------------------------------------------------------------- 2. a sentence printed once


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("make", [explained_summary, whole_sentence_summary])
def test_each_prs_sentence_is_printed_once_in_a_week(lang: str, make) -> None:
    s = make()
    body = main_body(render_markdown(s, lang)).replace("\\", "")
    told = 0
    for item in s.appendix.merged_prs:
        if item.digest is None or not item.digest.what:
            continue
        head = item.digest.what.split(".")[0][:50]
        assert body.count(head) <= 1, (item.number, head)
        told += body.count(head)
    assert told >= 1  # (the sentences are there: section 2 tells them)


@pytest.mark.parametrize("lang", LANGS)
def test_the_weekly_quick_view_is_a_table_without_sentences_told_above(lang: str) -> None:
    s = whole_sentence_summary()
    v = view_for(s, lang)
    # what a key PR's line would say is already in the body: in section 2, or its lead's
    # sentence in its line's highlight
    told = [ln.text for t in v.themes for ln in t.lines if ln.text] + [b.text for b in v.highlights]
    assert told and all(not k.what or all(k.what not in x for x in told) for k in v.key_prs)
    assert all(k.why and k.size for k in v.key_prs)
    html = render_html(s, lang)
    assert '<table class="key-prs">' in html
    # a day keeps its explained list: it has no section 2 to tell the sentences
    from .samples import daily_summary

    day = view_for(daily_summary(), lang)
    assert any(k.what for k in day.key_prs)
    assert '<ul class="key-prs">' in render_html(daily_summary(), lang)


# ---------------------------------------------------------------- 3. sections without data


def merged_pr_day():
    """The explained summary as a day of a merged-PR history: no comments, reviews or
    ecosystems."""
    from datetime import UTC, datetime

    s = explained_summary()
    window = s.window.model_copy(
        update={
            "kind": "day",
            "label": "2026-06-09",
            "start": datetime(2026, 6, 8, 16, tzinfo=UTC),
            "end": datetime(2026, 6, 9, 16, tzinfo=UTC),
        }
    )
    return s.model_copy(update={"window": window, "discussions": (), "ecosystems": ()})


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("make", [merged_pr_day, explained_summary])
def test_sections_without_data_are_left_out_and_the_rest_numbered_on(lang: str, make) -> None:
    s = make()
    assert not s.discussions and not s.ecosystems
    v = view_for(s, lang)
    assert "discussions" not in v.order and "ecosystems" not in v.order
    numbers = [sec.number for sec in v.sections.values() if sec.number is not None]
    assert numbers == list(range(1, len(numbers) + 1))
    md = render_markdown(s, lang)
    headings = re.findall(r"^## (\d+)\. ", md, re.M)
    assert [int(n) for n in headings] == numbers
    m = messages(lang)
    for sid in ("discussions", "ecosystems"):
        for key in (f"sections.{sid}", f"sections_day.{sid}"):
            assert not m.has(key) or f" {m.t(key)}\n" not in md
    html = render_html(s, lang)
    assert 'id="discussions"' not in html and 'href="#ecosystems"' not in html


# ---------------------------------------------------------------- 4. small risk groups named


def many_risks_summary():
    from shared.events import RiskObservation

    extra = (
        RiskObservation(risk="large-change", severity="medium", count=9, items=(10501,)),
        RiskObservation(risk="graph-capture", severity="medium", count=5, items=(10502,)),
        RiskObservation(risk="interface-change", severity="medium", count=4, items=(10600,)),
        RiskObservation(risk="hardware-specific", severity="medium", count=4, items=(10501,)),
        RiskObservation(risk="concurrency-change", severity="low", count=6, items=(10700,)),
        RiskObservation(risk="breaking-change", severity="low", count=1, items=(10615,)),
        RiskObservation(
            risk="default-behaviour-change", severity="low", count=2, items=(10610, 10600)
        ),
    )
    s = explained_summary()
    return s.model_copy(update={"risks": s.risks + extra})


@pytest.mark.parametrize("lang", LANGS)
def test_small_risk_groups_in_the_closing_line_name_their_prs(lang: str) -> None:
    s = many_risks_summary()
    v = view_for(s, lang)
    assert v.risks_more  # more kinds than the section details
    linked = [p.number for p in v.risks_more_parts if not isinstance(p, str)]
    assert 10615 in linked and {10610, 10600} <= set(linked)
    # a larger group keeps its count (its PRs are in the appendix)
    words = "".join(p for p in v.risks_more_parts if isinstance(p, str))
    m = messages(lang)
    assert m.name("risk_names", "concurrency-change") in words
    assert 10700 not in linked
    md = render_markdown(s, lang)
    line = next(ln for ln in md.splitlines() if m.name("risk_names", "breaking-change") in ln)
    assert "[#10615](" in line
    html = render_html(s, lang)
    assert re.search(r'<p class="more">[^<]*(<[^p][^>]*>[^<]*)*#10615', html)


# ---------------------------------------------------------------- 5. a quiet header


@pytest.mark.parametrize("lang", LANGS)
def test_the_header_leaves_rule_sets_to_the_footer_and_r1_unsaid(lang: str) -> None:
    import json

    from services.renderer.adapters.documents import render_json

    m = messages(lang)
    s = explained_summary(ruleset_versions=("31174541cc95a0b1c2d3",), revision=1)
    v = view_for(s, lang)
    labels = [f.label for f in v.header]
    assert m.t("header.rulesets") not in labels and m.t("header.revision") not in labels
    assert "31174541cc95" in v.footer and "31174541cc95a0b1" not in v.footer
    md = render_markdown(s, lang)
    assert md.rstrip().splitlines()[-1] == f"_{v.footer}_"
    assert "31174541cc95" not in md.split("\n## ", 1)[0]  # not in the header
    assert json.loads(render_json(s))["ruleset_versions"] == ["31174541cc95a0b1c2d3"]
    # a later revision says so, and what changed
    later = view_for(explained_summary(revision=2), lang)
    row = next(f for f in later.header if f.label == m.t("header.revision"))
    assert row.value == "r2"


@pytest.mark.parametrize("lang", LANGS)
def test_a_days_window_line_states_its_span(lang: str) -> None:
    v = view_for(merged_pr_day(), lang)
    window = v.header[1].value
    # 2026-06-08 16:00 UTC is 2026-06-09 00:00 in Asia/Shanghai (seed 003: "11:45 ~ 11:45")
    assert window.startswith("2026-06-09 00:00") and "2026-06-10 00:00" in window
    assert "UTC+8" in window


# ---------------------------------------------------------------- 6. Chinese punctuation


def test_chinese_severity_comes_before_risk_and_a_capped_run_of_links_reads_as_chinese() -> None:
    from .samples import weekly_summary

    md = render_markdown(weekly_summary(), "zh-CN")
    body = main_body(md)
    # "（高风险，36 项）", never "（风险高，36 项）"
    assert "（高风险，" in body and not re.search(r"（风险[高中低]", body)
    # links then "等，另有 N 项", then the detail after "；" (no "……另有 33 项 — 32 个 PR")
    line = next(ln for ln in body.splitlines() if "核心路径与测试覆盖" in ln)
    assert re.search(r"\) 等，另有 \d+ 项；\d+ 项代码变更缺少测试", line), line
    assert "……另有" not in line and " — " not in line
    # no English dash between a title and its sentence in a Chinese report; "……另有" only on a
    # line of its own
    assert " — " not in body
    for ln in body.splitlines():
        assert not re.search(r"\)\s*……另有", ln), ln
    # the English report keeps its own
    en = main_body(render_markdown(weekly_summary(), "en"))
    assert re.search(r"\(high, \d+ items\)", en) and " … and " in en and " — " in en


def test_a_list_cut_short_ends_in_chinese_in_a_chinese_report() -> None:
    from services.renderer.domain.view import MAX_ROW_MODULES

    from .samples import pr, weekly_summary

    modules = ("moe", "attention", "kernels", "models", "config")
    s = weekly_summary()
    wide = s.key_prs[0].model_copy(
        update={"item": pr(41184, "[MoE] Invert FusedMoE ownership", "bnellnm", modules=modules)}
    )
    s = s.model_copy(update={"key_prs": (wide, *s.key_prs[1:])})
    assert len(modules) > MAX_ROW_MODULES
    zh = next(k for k in view_for(s, "zh-CN").key_prs if k.link.number == 41184)
    assert zh.modules == "MoE、注意力、算子等", zh.modules
    en = next(k for k in view_for(s, "en").key_prs if k.link.number == 41184)
    assert en.modules.endswith("…") and "等" not in en.modules


def test_a_sentence_span_ending_at_a_lists_semicolon_is_told_without_it() -> None:
    from services.renderer.adapters.catalogs import messages as catalog
    from services.renderer.domain.view import _Writer

    # real #13417: the digest's span stops at the ";" before a list of what it introduces
    what = (
        "Aligns the Ascend fused MoE execution flow with the upstream router abstraction: "
        "introduces Ascend grouped top-k and fused top-k router implementations;"
    )
    item = _with_what(P_V4, what)
    said = _Writer(explained_summary(), catalog("en")).fitted_what(item, EXCERPT_WHAT)
    assert said == what[:-1]


@pytest.mark.parametrize("lang", LANGS)
def test_an_incidents_subject_is_told_whole(lang: str) -> None:
    s = explained_summary()
    long = (
        "add triton ops log for the fused MoE, attention and sampling kernels so that a failing "
        "operator on Ascend names its inputs and shapes"
    )
    assert len(long) > 120
    incidents = tuple(
        i.model_copy(update={"subject": long}) if i.kind == "revert" else i for i in s.incidents
    )
    md = render_markdown(s.model_copy(update={"incidents": incidents}), lang)
    line = next(ln for ln in md.splitlines() if "#10414" in ln and "#10069" in ln)
    assert long in line and "…" not in line


@pytest.mark.parametrize("lang", LANGS)
def test_a_reverts_own_words_are_quoted_whole_or_not_at_all(lang: str) -> None:
    s = explained_summary()
    whole = "This reverts commit 21e8dcf, which breaks the two-card spec decode e2e test."
    rambling = "When " + "the scheduler and the model runner disagree, " * 8 + "it hangs."
    assert len(rambling) > EXCERPT_WHAT
    for reason, shown in ((whole, True), (rambling, False)):
        incidents = tuple(
            i.model_copy(update={"reason": reason}) if i.kind == "revert" else i
            for i in s.incidents
        )
        md = render_markdown(s.model_copy(update={"incidents": incidents}), lang)
        lines = [ln for ln in md.splitlines() if "#10414" in ln and "#10069" in ln]
        assert lines and all("…" not in ln for ln in lines)
        assert any(whole.rstrip(".") in ln for ln in lines) == shown
        assert not any("the scheduler and the model runner disagree" in ln for ln in lines)
