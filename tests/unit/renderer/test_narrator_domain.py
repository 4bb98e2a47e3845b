"""The narrator's checks: every number and #reference of model prose must come from the summary,
a failing sentence gives way to the template's text, and the report says what happened.

Golden narrated reports (good model prose, en and zh-CN) live in golden/narrator/; regenerate with
    REPODIGEST_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/unit/renderer/test_narrator_domain.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import (
    prose_report,
    render_html,
    render_json,
    render_markdown,
    view_for,
)
from services.renderer.domain.narrator import (
    MalformedProse,
    Narration,
    check_sentence,
    narration_input,
    parse_model_prose,
    split_sentences,
    summary_facts,
)

from .samples import daily_summary

GOLDEN = Path(__file__).parent / "golden" / "narrator"
UPDATE = os.environ.get("REPODIGEST_UPDATE_GOLDEN") == "1"
MODEL = "test-model-7b"


def answer(lang: str) -> str:
    return (GOLDEN / f"answer.{lang}.json").read_text(encoding="utf-8")


def narration(content: str, **kw) -> Narration:
    return Narration(
        model=MODEL, prompt_version="v1", prose=parse_model_prose(content, MODEL, "v1"), **kw
    )


def edited(lang: str, **changes) -> str:
    data = json.loads(answer(lang))
    data.update(changes)
    return json.dumps(data, ensure_ascii=False)


# ---------------------------------------------------------------- sentence checks


@pytest.mark.parametrize(
    "sentence, problems",
    [
        ("41 PRs were merged.", []),  # counts.merged_prs
        ("42 PRs were merged.", [("invented_number", "42")]),
        ("The summary counts 1,486 facts.", []),  # facts_counted, with a comma
        ("The summary counts 1,487 facts.", [("invented_number", "1,487")]),
        ("Merges fell by 3 from 44.", []),  # a delta with the previous window
        ("MoE grew 73% on the previous window.", []),  # (26 - 15) / 15
        ("MoE grew 73.3% on the previous window.", []),
        ("MoE grew 80% on the previous window.", [("underivable_percent", "80")]),
        ("See #41184 and #38256.", []),
        ("See #99999.", [("unknown_reference", "99999")]),
        ("fp8 kernels on H100 and k8s jobs for Qwen3.", []),  # digits inside words
        ("The median merge took 18.5 hours.", []),
        ("The median merge took 18.7 hours.", [("invented_number", "18.7")]),
        ("本窗口合并了41个PR。", []),
        ("本窗口合并了 43 个 PR，涉及 #41184。", [("invented_number", "43")]),
        ("参见＃12345。", [("unknown_reference", "12345")]),
        # a figure of the summary used as the wrong kind of count
        ("The repository merged 26 PRs.", [("wrong_merged_count", "26")]),  # 26 is MoE's total
        ("9 MoE PRs were merged.", []),  # MoE's merged
        ("32 merged PRs changed core paths.", []),  # a risk's count
        ("It received 41 new PRs.", [("wrong_opened_count", "41")]),
        ("It received 96 new PRs.", []),
        ("本窗口合并了 26 个 PR。", [("wrong_merged_count", "26")]),
        ("26 个 MoE PR 已合并。", [("wrong_merged_count", "26")]),
        ("本窗口合并 41 个 PR（上一窗口 44 个）。", []),
    ],
)
def test_check_sentence(sentence: str, problems: list) -> None:
    assert check_sentence(sentence, summary_facts(daily_summary())) == problems


def test_digits_of_identifiers_are_not_figures() -> None:
    facts = summary_facts(daily_summary(fact_ids_sample=("f-77731",), request_id="req-55555"))
    assert check_sentence("We saw 77731 facts and 55555 requests.", facts) == [
        ("invented_number", "77731"),
        ("invented_number", "55555"),
    ]
    # a number quoted from a PR description is the summary's (Qwen2.5 is a name, 100 is not)
    assert check_sentence("Outputs matched at 2, 3 and 4 bits.", facts) == []


def test_split_sentences_in_both_scripts() -> None:
    assert split_sentences("One (v0.5). Two #1! Three?") == ["One (v0.5).", "Two #1!", "Three?"]
    assert split_sentences("第一句。第二句；第三句") == ["第一句。", "第二句；", "第三句"]


def test_the_model_input_carries_the_figures_and_not_the_appendix() -> None:
    data = narration_input(daily_summary())
    assert data["counts"]["merged_prs"] == 41
    assert [t["module"] for t in data["themes"]] == ["moe", "speculative-decoding", "quantization"]
    assert (
        data["key_prs"][0]["number"] == 41184
        and "RoutedExperts" in data["key_prs"][0]["description"]
    )
    assert {r["risk"] for r in data["risks"]} >= {"core-change", "graph-capture"}
    assert "appendix" not in data and "other" not in {m["module"] for m in data["modules"]}


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "content, message",
    [
        ("Sure! Here is the report: {lead: 1}", "not JSON"),
        ("[1, 2]", "not an object"),
        ('{"lead": 5}', "'lead' is not a string"),
        ('{"lead": "x", "highlights": {"moe": "y"}}', "'highlights' is not a list"),
        ('{"lead": "x", "risks": [{"text": "y"}]}', "lacks its 'risk'"),
        ('{"lead": "x", "follow_ups": [{"number": 1}]}', "lacks a text string"),
    ],
)
def test_malformed_answers_are_refused_with_a_reason(content: str, message: str) -> None:
    with pytest.raises(MalformedProse, match=message):
        parse_model_prose(content, MODEL, "v1")


def test_a_fenced_answer_is_read() -> None:
    prose = parse_model_prose(
        '```json\n{"lead": "Hello.", "follow_ups": [{"number": "#7", "text": "x"}]}\n```',
        MODEL,
        "v1",
    )
    assert prose.lead == "Hello." and prose.follow_ups == {7: "x"}


# ---------------------------------------------------------------- applying verified prose


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_good_prose_matches_golden(lang: str) -> None:
    # the formats of the integration test's report (no PDF engine there), which compares with it
    text = render_markdown(
        daily_summary(formats=("md", "html", "json")), lang, narration(answer(lang))
    )
    path = GOLDEN / f"daily.{lang}.md"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} differs; if intended, regenerate with REPODIGEST_UPDATE_GOLDEN=1"
    )
    report = prose_report(daily_summary(), lang, narration(answer(lang)))
    assert report.source == "model" and not report.replaced
    assert "lead" in report.model_parts and "follow_ups.38280" in report.model_parts


def test_good_prose_replaces_prose_and_keeps_figures_and_lists() -> None:
    s = daily_summary()
    plain, narrated = view_for(s, "en"), view_for(s, "en", narration=narration(answer("en")))
    assert narrated.lead != plain.lead and narrated.lead.startswith("MoE dominated the day")
    assert narrated.counts == plain.counts and narrated.modules == plain.modules
    assert narrated.key_prs == plain.key_prs and narrated.appendix == plain.appendix
    assert [b.lines for b in narrated.highlights] == [b.lines for b in plain.highlights]
    assert narrated.prose == (
        "Prose: model-written (test-model-7b, prompt v1); figures, tables and lists are computed"
    )
    assert plain.prose is None


def test_an_invented_number_gives_way_to_the_template_sentence() -> None:
    s = daily_summary()
    lead = (
        "MoE dominated the day with 26 items. The team merged 42 PRs. Speculative decoding is new."
    )
    view = view_for(s, "en", narration=narration(edited("en", lead=lead)))
    template = view_for(s, "en").lead
    assert (
        view.lead == f"MoE dominated the day with 26 items. {template} Speculative decoding is new."
    )
    report = prose_report(s, "en", narration(edited("en", lead=lead)))
    assert report.source == "mixed"
    assert [(c.part, c.check, c.value) for c in report.replaced] == [
        ("lead", "invented_number", "42")
    ]
    assert "lead" in report.model_parts  # the two good sentences stayed
    assert "1 sentence replaced by template text: invented number 42" in view.prose


def test_a_wrong_pr_number_replaces_only_that_highlight() -> None:
    s = daily_summary()
    data = json.loads(answer("en"))
    data["highlights"][0]["text"] = "The MoE stack was restructured (#99999)."
    view = view_for(s, "en", narration=narration(json.dumps(data)))
    plain = view_for(s, "en")
    assert view.highlights[0].text == plain.highlights[0].text  # template text back
    assert view.highlights[1].text == "Speculative length now adapts to the batch (#32374)"
    assert "unknown reference #99999" in view.prose
    report = prose_report(s, "en", narration(json.dumps(data)))
    assert (
        "highlights.moe" not in report.model_parts
        and "highlights.quantization" in report.model_parts
    )


def test_entries_for_things_the_summary_lacks_are_reported_not_shown() -> None:
    data = json.loads(answer("en"))
    data["themes"].append({"module": "tpu", "text": "TPU work."})
    report = prose_report(daily_summary(), "en", narration(json.dumps(data)))
    assert [(c.part, c.check) for c in report.replaced] == [("themes.tpu", "unknown_entry")]
    assert "TPU work." not in render_markdown(daily_summary(), "en", narration(json.dumps(data)))


def test_an_unavailable_model_leaves_template_prose_and_says_why() -> None:
    s = daily_summary()
    down = Narration(
        model=MODEL, prompt_version="v1", unavailable="no answer within 5 s", code="timeout"
    )
    view = view_for(s, "zh-CN", narration=down)
    plain = view_for(s, "zh-CN")
    assert view.lead == plain.lead and view.themes == plain.themes
    assert view.prose == (
        "文字：模板生成；未采用模型（test-model-7b，提示词 v1）的输出："
        "模型未在时限内回答（no answer within 5 s）"
    )
    assert view_for(s, "en", narration=down).prose == (
        "Prose: template text; the model (test-model-7b, prompt v1) was not used: "
        "no answer within 5 s"
    )


def test_json_html_and_markdown_carry_the_prose_note() -> None:
    s = daily_summary()
    bad = narration(edited("zh-CN", lead="本窗口合并了 43 个 PR。"))
    data = json.loads(render_json(s, prose_report(s, "zh-CN", bad)))
    assert data["prose"]["source"] == "mixed" and data["prose"]["model"] == MODEL
    assert data["prose"]["prompt_version"] == "v1"
    assert data["prose"]["replaced"][0]["problem"] == "invented number 43"
    assert "虚构的数字 43" in render_markdown(s, "zh-CN", bad)
    assert "虚构的数字 43" in render_html(s, "zh-CN", bad)
    assert json.loads(render_json(s))["prose"] is None


def test_every_model_sentence_failing_means_template_prose() -> None:
    s = daily_summary()
    content = json.dumps(
        {
            "lead": "We merged 999 PRs.",
            "follow_ups": [{"number": 38256, "text": "Open for 99 days."}],
        }
    )
    report = prose_report(s, "en", narration(content))
    assert report.source == "template" and not report.model_parts
    assert report.unavailable_code == "unverified"
    assert {c.value for c in report.replaced} == {"999", "99"}
    assert "999" not in render_markdown(s, "en", narration(content)).split("> Prose")[1]
    assert messages("en").t("prose.checks.invented_number", value=1) == "invented number 1"
