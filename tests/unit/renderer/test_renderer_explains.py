"""The report tells what changes do and why (issue #15 parts 2-5, rendering side): storylines as
highlights and themes, each PR beside its own what-sentence and quoted claims, key PRs with why
they were picked, incidents on one line each, one line per follow-up concern, and what the
source cannot tell said as such (never 0, never None, never a path)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import render_html, render_markdown, view_for
from services.renderer.domain import narrator as nr
from services.renderer.domain.view import mid_sentence
from shared.events import RiskObservation, SummaryData
from shared.events.summary import CoveredSpan

from .explain_samples import explained_summary

MD_LINK = re.compile(r"\[(#\d+)\]\([^)]*\)")


def md(lang: str = "en", **kw) -> str:
    return render_markdown(explained_summary(**kw), lang)


def section(text: str, title: str) -> str:
    """The body of the Markdown section whose heading contains `title`: a section of the main
    body ("## "), else a subsection of the appendix ("### ": a week's activity observations),
    up to the next heading of its level or above."""
    lines = text.splitlines()
    head = next(
        (ln for ln in lines if ln.startswith("## ") and title in ln),
        None,
    ) or next(ln for ln in lines if ln.startswith("### ") and title in ln)
    body = text.split(head, 1)[1].split("\n## ", 1)[0]
    return body.split("\n### ", 1)[0] if head.startswith("### ") else body


def plain(line: str) -> str:
    return MD_LINK.sub(r"\1", line)


# ---------------------------------------------------------------- what changes do and why


def test_each_pr_stands_beside_its_own_what_sentence() -> None:
    text = md()
    themes = section(text, "Key changes by theme")
    # the lead's sentence went up to its highlight; here it has its title and notes
    line = next(ln for ln in themes.splitlines() if ln.startswith("- [#10501]("))
    assert "Adds DeepSeek-V4 inference" not in line and "Support DeepSeek-V4 on Ascend" in line
    assert "Adds DeepSeek-V4 inference on Ascend NPUs so that users can serve" in section(
        text, "Highlights"
    )
    other = next(ln for ln in themes.splitlines() if ln.startswith("- [#10502]("))
    assert "Enables multi-token prediction (MTP) for DeepSeek-V4" in other
    # two PRs a line of work told with their whole sentences; the others are linked after them
    # (by kind: "Also 1 fix: #10510", not a bare "Also: #10510")
    also = next(ln for ln in themes.splitlines() if ln.startswith("Also 1 fix: "))
    assert "[#10510](" in also and "Also:" not in themes
    # a claim is quoted as written, under its PR
    assert "  > “Decode throughput improves by 1.6x on 910B.”" in themes
    assert "user-facing: “new --model deepseek-v4 support”" in themes
    # the storyline's subsection says how big it is, what kinds of change and whether it is new
    assert "3 merged PRs in this line of work" in themes
    assert "By kind: 2 features and 1 fix in models." in themes and "New in this window." in themes
    # continuity is said only for a line already as big then (1 PR then, more now: not said)
    assert "Continues from the previous window" not in themes
    assert "By kind: 1 feature, 2 fixes and 1 revert." in themes


def test_highlights_are_storylines_naming_their_prs_whose_sentences_section_2_tells() -> None:
    text = md()
    highlights = section(text, "Highlights")
    bullets = [ln for ln in highlights.splitlines() if ln.startswith("- ")]
    # the line, its size, what it is about in its lead's sentence (a bullet of counts alone says
    # nothing of the work: a reader of 2026-W26), and its lead and one more PR by title
    assert bullets[0].startswith(
        "- **DeepSeek-V4** (3 merged PRs): 2 features and 1 fix in models. "
        "Adds DeepSeek-V4 inference on Ascend NPUs so that "
        "users can serve the new model with graph mode"
    )
    assert (
        "[#10501](https://github.com/vllm-project/vllm/pull/10501) \\[Model\\] Support "
        "DeepSeek-V4 on Ascend; [#10502](https://github.com/vllm-project/vllm/pull/10502) "
        "\\[Feat\\] MTP speculative decoding for DeepSeek-V4" in bullets[0]
    )
    # a PR's sentence is printed once: the lead's in the highlight, the others' in section 2
    assert text.count("Adds DeepSeek-V4 inference") == 1
    assert "Enables multi-token prediction" not in highlights
    assert text.count("Enables multi-token prediction (MTP) for DeepSeek-V4") == 1
    # a line whose lead section 2 tells without a sentence says what kinds of change it holds
    assert bullets[1].startswith("- **Build cache** (4 merged PRs): ")


def test_a_highlight_section_2_does_not_tell_keeps_its_sentences(monkeypatch) -> None:
    from services.renderer.domain import view as rv

    s = explained_summary()
    first = s.storylines[0]
    assert first.key in {t.key for t in view_for(s, "en").themes}
    # with no room for the line in section 2, its highlight says what its lead does
    monkeypatch.setattr(rv, "MAX_THEMES", 0)
    v = view_for(s, "en")
    assert first.key not in {t.key for t in v.themes}
    bullet = next(b for b in v.highlights if b.key == first.key)
    # its facts first (kinds and areas), then its lead's sentence
    assert bullet.text.startswith("2 features and 1 fix in models. Adds DeepSeek-V4 inference")


def test_the_lead_names_the_storylines() -> None:
    lead = md().split("\n## ", 1)[0].strip().splitlines()[-1]
    assert "The main lines of work were DeepSeek-V4 and build cache." in lead


def test_without_storylines_the_module_themes_stay() -> None:
    from .samples import weekly_summary

    text = render_markdown(weekly_summary(), "en")
    assert "line of work" not in text and "### " in section(text, "Key changes by theme")
    assert "- **MoE**: 9 merged PRs — " in section(text, "Highlights")


def test_key_prs_say_what_they_do_and_why_they_were_picked_in_words() -> None:
    text = md()
    quick = section(text, "Key PR quick view")
    assert "| Score |" not in text and "Top signals" not in text
    rows = quick.strip().splitlines()
    # a table: why each was picked, its area and size (seed 000's quick view)
    assert rows[0] == "| PR | Why key | Area | Size |"
    assert (
        rows[2].startswith("| [#10501](")
        and (
            "| New --model deepseek-v4 support (user-facing change; new model support; new "
            "hardware support; measured results; leads the DeepSeek-V4 storyline) | Models | "
            "+1,800 / -120 lines in 31 files |"
        )
        in rows[2]
    )
    # its what-sentence (in its line's highlight) and claims (section 2) are not told again here
    assert "Adds DeepSeek-V4 inference" not in quick and "TPOT drops" not in quick
    themes = section(text, "Key changes by theme")
    assert "Adds DeepSeek-V4 inference" in section(text, "Highlights")
    assert "  > “TPOT drops 23% at batch 32.”" in themes
    html = render_html(explained_summary(), "en")
    assert 'title="Score 9.5' in html  # the score stays out of the body, in a title attribute
    assert (
        '<blockquote class="claim">“Decode throughput improves by 1.6x on 910B.”</blockquote>'
        in html
    )


def test_representative_prs_are_not_repeated_across_module_rows() -> None:
    rows = [
        ln
        for ln in section(md(), "Module and topic trends").splitlines()
        if ln.startswith("| ") and "[#" in ln
    ]
    seen = [n for row in rows for n in re.findall(r"\[#(\d+)\]", row)]
    assert len(seen) == len(set(seen)) and "10501" in seen


# ---------------------------------------------------------------- incidents and follow-ups


@pytest.mark.parametrize("lang, reverts", [("en", "reverts"), ("zh-CN", "回滚了")])
def test_an_incident_is_one_line_naming_both_prs(lang: str, reverts: str) -> None:
    for title in (
        ("Risk observations", "风险观察"),
        ("Risk observations in detail", "风险观察详情"),
    ):
        risks = section(md(lang), title[0] if lang == "en" else title[1])
        lines = [plain(ln) for ln in risks.splitlines() if "#10414" in ln]
        assert len(lines) == 1 and f"#10414 {reverts} #10069" in lines[0], lines
        # incidents come before the tag-based risks
        bullets = [ln for ln in risks.splitlines() if ln.startswith("- ")]
        assert "#10414" in bullets[0]
    risks = [plain(ln) for ln in section(md(), "Risk observations").splitlines()]
    assert (
        "- Build cache: added in #10301, fixed in #10320 and #10333, reverted in #10340." in risks
    )
    assert "- The upgrade to vLLM (#10600) was followed by the fixes #10610 and #10615." in risks
    assert any(
        ln.startswith(
            "- #10414 reverts #10069 (add triton ops log), a change merged before this window"
        )
        for ln in risks
    )


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_one_line_per_follow_up_concern_and_never_the_same_sentence_twice(lang: str) -> None:
    text = md(lang)
    follow = section(text, "Follow-up" if lang == "en" else "后续建议")
    bullets = [ln for ln in follow.splitlines() if ln.startswith("- ")]
    assert len(bullets) == len(set(bullets)) == 2
    # one home per finding: the untested core changes are told in section 4 with their advice
    # (the risk's line), so the last section does not ask it again
    assert "#10700" not in follow and "#10701" not in follow
    detail = section(text, "Risk observations in detail" if lang == "en" else "风险观察详情")
    core = next(ln for ln in detail.splitlines() if "10700" in ln or "核心变更" in ln)
    assert "#10700" in detail and "#10701" in detail and core
    if lang == "en":
        assert "Add unit or integration tests" in detail
        revert = next(b for b in bullets if "Reverted" in b)
        assert "test" not in revert.lower()  # a revert is not "add tests"


def test_a_day_keeps_its_follow_ups() -> None:
    """A day has no section 4: what a week's section 4 asks stays among a day's follow-ups."""
    from services.renderer.domain.view import build_view

    week = explained_summary()
    day = week.model_copy(update={"window": week.window.model_copy(update={"kind": "day"})})
    told = {
        kind: {lk.number for b in build_view(s, messages("en")).follow_ups for lk in b.links}
        for kind, s in (("week", week), ("day", day))
    }
    assert 10700 in told["day"] and 10701 in told["day"]
    assert 10700 not in told["week"]


# ---------------------------------------------------------------- what the data cannot say


def test_unavailable_counts_are_said_never_zero_or_none() -> None:
    for lang, na, note in (
        ("en", "n/a", "not available from this source"),
        ("zh-CN", "不可用", "此数据源不提供"),
    ):
        text, html = md(lang), render_html(explained_summary(), lang)
        assert "None" not in text and "None" not in html
        assert note in text and note in html
        head = text.split("\n## ", 1)[0]
        assert re.search(rf"\*\*{re.escape(na)}\*\*", head)
        assert not re.search(r"\*\*0(\s|\*)", head)
    en = md()
    # "n/a" said once, for every count the source cannot tell (2026-W22: four "n/a" cells)
    assert "Merged PRs **13 (+4 vs previous)**" in en
    assert "New issues, closed issues, new PRs and closed unmerged PRs **n/a**" in en
    assert en.count("**n/a**") == 1
    assert "新 Issue、关闭 Issue、新 PR 和关闭未合并 PR **不可用**" in md("zh-CN")
    # the comparison of a count the source cannot tell is skipped, not printed as n/a → n/a
    summary = section(en, "Executive summary")
    assert "Compared with the previous window, merged PRs went from 9 to 13 (+4)." in summary
    assert "new issues" not in summary and "received" not in summary
    assert "This week, vllm-project/vllm merged 13 pull requests." in en
    # columns with nothing available are left out
    table = next(
        ln
        for ln in section(en, "Module and topic trends").splitlines()
        if ln.startswith("| Module")
    )
    assert "Opened" not in table and "Issues" not in table and "Merged" in table
    assert "Total" not in table  # (it would repeat Merged)
    # the trend says which storyline moved a module, in a few words (seed 000's trend column)
    rows = section(en, "Module and topic trends")
    assert "| Models | 2 | 1 | +1 | up; 2 of them DeepSeek-V4 work |" in rows
    assert "| Speculative decoding | 1 | 0 | +1 | new |" in rows
    people = section(en, "Activity observations")
    header = next(ln for ln in people.splitlines() if ln.startswith("| Contributor"))
    assert "Reviews" not in header and "Comments" not in header and "Issues opened" not in header
    assert "1 person was active" in people and "reviews" not in people.split("|", 1)[0]


def test_key_prs_outside_every_storyline_are_told_in_the_key_changes_too() -> None:
    """A week's biggest feature is not always a storyline's: section 2 tells the key PRs no
    storyline holds as a theme of their own (2025-W43: none of its ten key PRs was in section 2)."""
    en = md()
    themes = section(en, "Key changes by theme")
    other = themes.split("Other key changes", 1)
    assert len(other) == 2, themes
    assert "#10600" in other[1] and "#10501" not in other[1]
    assert "1 key change" not in other[1]  # (one: said in words)
    assert "其他重点变化" in md("zh-CN")


def test_a_tie_for_most_active_names_everyone_tied() -> None:
    from shared.events import Contributor

    s = explained_summary()
    tied = s.model_copy(
        update={
            "contributors": (
                Contributor(login="yiz-liu", prs_merged=8),
                Contributor(login="wangxiyuan", prs_merged=8),
                Contributor(login="someone", prs_merged=2),
            )
        }
    )
    people = section(render_markdown(tied, "en"), "Activity observations")
    assert (
        "The most active contributors were yiz-liu and wangxiyuan, with 8 merged PRs each."
        in people
    )
    zh = render_markdown(tied, "zh-CN")
    assert "最活跃的贡献者是 yiz-liu 和 wangxiyuan，各合并 8 个 PR。" in zh
    alone = section(md(), "Activity observations")
    assert "The most active contributor was ascend-dev with 1 merged PR." in alone


def test_a_full_source_keeps_every_column() -> None:
    from .samples import weekly_summary

    text = render_markdown(weekly_summary(), "en")
    assert "| Module | Merged | Opened | Issues |" in text and "n/a" not in text


def test_the_source_is_named_by_kind_and_name_never_a_path() -> None:
    for lang in ("en", "zh-CN"):
        text, html = md(lang), render_html(explained_summary(), lang)
        for doc in (text, html):
            assert "/work/" not in doc and "shared/data" not in doc
            assert "merged_prs_with_bodies.jsonl" in doc.replace("\\_", "_")
    assert "Data source: merged-PR history file merged_prs_with_bodies.jsonl." in md()
    assert "数据来源：已合并 PR 历史文件 merged_prs_with_bodies.jsonl" in md("zh-CN")


def test_partial_coverage_is_said_at_the_top_with_its_range() -> None:
    for lang, words in (("en", "Partial coverage"), ("zh-CN", "数据覆盖不完整")):
        head = md(lang).split("\n## ", 1)[0]
        notice = next(ln for ln in head.splitlines() if words in ln)
        assert "2026-06-08 08:00" in notice and "2026-06-12 20:00" in notice
    assert "Partial coverage" not in md(coverage="full")


def _covered_from_afar(**overrides) -> SummaryData:
    """A history from long before the window, ending 4.5 days into it (2026-W34's case: data from
    2025-02-05 to 2026-08-22 20:51), with the summarizer's covered span clipped to the window."""
    base = explained_summary()
    assert base.source is not None
    source = base.source.model_copy(
        update={"coverage_start": datetime(2025, 2, 5, 2, 53, tzinfo=UTC)}
    )
    covered = CoveredSpan(
        start=base.window.start, end=datetime(2026, 6, 12, 12, tzinfo=UTC), share=4.5 / 7
    )
    return explained_summary(**{"source": source, "covered": covered, **overrides})


def test_partial_coverage_names_the_part_of_the_window_covered_not_the_source_span() -> None:
    for lang, words in (("en", "Partial coverage"), ("zh-CN", "数据覆盖不完整")):
        head = render_markdown(_covered_from_afar(), lang).split("\n## ", 1)[0]
        notice = next(ln for ln in head.splitlines() if words in ln)
        assert "2026-06-08 08:00" in notice and "2026-06-12 20:00" in notice, notice
        assert "2025-02-05" not in notice and "64" in notice, notice
    # an older summary (no covered span) keeps the source's span
    old = _covered_from_afar().model_copy(update={"covered": None})
    head = render_markdown(old, "en").split("\n## ", 1)[0]
    assert "2025-02-05 10:53" in head


def test_comparisons_of_a_partly_covered_window_say_they_are_partial() -> None:
    text = render_markdown(_covered_from_afar(), "en")
    head, _, body = text.partition("\n## ")
    assert "13 (+4 vs previous; this week is partly covered)" in head
    assert "from 9 to 13 (+4; this week is partly covered)" in body
    caption = next(ln for ln in body.splitlines() if "modules were active" in ln)
    assert caption.endswith("(this week is partly covered).")
    zh = render_markdown(_covered_from_afar(), "zh-CN")
    assert "13（较上期 +4；本周数据不完整）" in zh.partition("\n## ")[0]
    assert "（+4；本周数据不完整）" in zh
    # the previous window partly covered; both; neither
    prev = _covered_from_afar().covered
    only_prev = render_markdown(_covered_from_afar(covered=None, previous_covered=prev), "en")
    assert "(+4 vs previous; the previous week is partly covered)" in only_prev
    both = render_markdown(_covered_from_afar(previous_covered=prev), "en")
    assert "this and the previous week are partly covered" in both
    assert "partly covered" not in md() and "数据不完整" not in md("zh-CN")


def test_a_pr_has_one_kind_everywhere_its_own_role() -> None:
    """A key PR whose reasons say "feature" but whose kind (ItemRef.role, its line's) is a
    refactor is a refactor in the quick view and in its line ("[Refactor][Feature] Remove
    compress attention manager", 2026-W34); without a role (an older summary) it is as before."""
    base = explained_summary()
    refactor = base.key_prs[1].item.model_copy(update={"role": "refactor"})
    keys = tuple(
        k.model_copy(update={"item": refactor}) if k.item.number == refactor.number else k
        for k in base.key_prs
    )
    text = render_markdown(explained_summary(key_prs=keys), "en")
    row = next(ln for ln in section(text, "Key PR quick view").splitlines() if "#10502" in ln)
    assert "refactor" in row and "new feature" not in row, row
    themes = section(text, "Key changes by theme")
    note = themes.split("#10502", 1)[1].split("\n- ", 1)[0]
    assert "_refactor" in note and "_feature" not in note, note
    old = render_markdown(base, "en")
    row = next(ln for ln in section(old, "Key PR quick view").splitlines() if "#10502" in ln)
    assert "new feature" in row, row
    # a performance change picked as a feature and as performance work: its kind said once
    perf = base.key_prs[1].model_copy(
        update={
            "item": refactor.model_copy(update={"role": "perf"}),
            "reasons": ("feature", "performance"),
        }
    )
    text = render_markdown(explained_summary(key_prs=(base.key_prs[0], perf)), "en")
    row = next(ln for ln in section(text, "Key PR quick view").splitlines() if "#10502" in ln)
    assert "performance work" in row and "new feature" not in row, row
    assert "(performance; " not in row and "; performance;" not in row, row


@pytest.mark.parametrize(
    ("lang", "name", "action", "ci"),
    [
        ("en", "Tests not run", "Run the tests", "Changes touching CI or build files"),
        ("zh-CN", "测试未运行", "补跑", "涉及 CI 或构建文件的变更"),
    ],
)
def test_tests_not_run_is_named_with_its_sentence_and_ci_risk_says_files(
    lang: str, name: str, action: str, ci: str
) -> None:
    """tests-not-run is named and advised in the report's language, with the description's own
    sentence quoted (its reason); the CI risk counts changes touching CI or build files (more
    than the trend table's CI module), and its name says so."""
    said = "NPU end-to-end validation has not been run locally."
    risks = explained_summary().risks + (
        RiskObservation(
            risk="tests-not-run", severity="medium", count=1, items=(10502,), reason=said
        ),
        RiskObservation(
            risk="ci-build-change",
            severity="medium",
            count=1,
            items=(10301,),
            reason="changed .github/workflows/ci.yaml (CI or build)",
        ),
    )
    text = render_markdown(explained_summary(risks=risks), lang)
    detail = section(text, "Risk observations in detail" if lang == "en" else "风险观察详情")
    blocks = detail.split("\n- ")
    block = next(b for b in blocks if name in b)
    assert action in block and said.rstrip(".") in block and "#10502" in block, block
    assert "tests-not-run" not in text
    assert any(b.startswith(f"**{ci}**") for b in blocks), detail
    assert "CI and build changes" not in text and "CI 与构建变更" not in text
    # no reason: the advice alone
    bare = tuple(r.model_copy(update={"reason": ""}) for r in risks)
    title = "Risk observations in detail" if lang == "en" else "风险观察详情"
    text = render_markdown(explained_summary(risks=bare), lang)
    block = next(b for b in section(text, title).split("\n- ") if name in b)
    assert action in block and said.rstrip(".") not in block


def test_english_plurals() -> None:
    text = md()
    for wrong in (
        "1 people",
        "1 pull requests",
        "1 PRs",
        "1 comments",
        "1 participants",
        "1 reviewers",
        "1 features",
        "1 fixes",
        "1 reverts",
    ):
        assert wrong not in text, wrong


# ---------------------------------------------------------------- the narrator's new material


def test_the_narrator_sees_storylines_what_sentences_and_incidents() -> None:
    data = nr.narration_input(explained_summary())
    assert [s["key"] for s in data["storylines"]] == ["deepseek-v4", "build cache"]
    assert data["storylines"][0]["summary"].startswith("Adds DeepSeek-V4 inference")
    key = data["key_prs"][0]
    assert key["what"].startswith("Adds DeepSeek-V4") and key["reasons"][0] == "new_model"
    assert key["claims"] == ["Decode throughput improves by 1.6x on 910B."]
    assert {"kind": "revert", "items": [10414, 10069]}.items() <= data["incidents"][0].items()
    assert data["counts"]["new_issues"] is None and data["source"]["kind"] == "replay"
    json.dumps(data)


def test_the_narrator_checks_still_hold_with_unavailable_counts() -> None:
    facts = nr.summary_facts(explained_summary())
    assert nr.check_sentence("#10414 reverts #10069 in the build cache line.", facts) == []
    assert nr.check_sentence("DeepSeek-V4 merged 3 PRs; decode is 1.6x faster.", facts) == []
    assert nr.check_sentence("We merged 999 PRs.", facts) == [("invented_number", "999")]
    # a count the source cannot tell is wrong whatever the number
    assert nr.check_sentence("0 new issues were opened.", facts) == [("unavailable_count", "0")]
    assert nr.check_sentence("新开 0 个 Issue。", facts) == [("unavailable_count", "0")]
    assert nr.check_sentence("It received 13 new PRs.", facts) == [("unavailable_count", "13")]


def test_model_prose_for_a_storyline_lands_in_its_highlight() -> None:
    s = explained_summary()
    content = json.dumps(
        {
            "lead": "DeepSeek-V4 arrived on Ascend (#10501).",
            "highlights": [
                {"module": "deepseek-v4", "text": "DeepSeek-V4 now runs on Ascend with MTP."},
                {
                    "module": "build cache",
                    "text": "The build cache was added and reverted (#10340).",
                },
            ],
        }
    )
    narration = nr.Narration(
        model="m", prompt_version="v1", prose=nr.parse_model_prose(content, "m", "v1")
    )
    view = view_for(s, "en", narration=narration)
    assert view.highlights[0].text == "DeepSeek-V4 now runs on Ascend with MTP"
    assert view.highlights[1].text == "The build cache was added and reverted (#10340)"
    assert view.lead == "DeepSeek-V4 arrived on Ascend (#10501)."
    report = nr.apply_narration(view_for(s, "en"), s, narration, messages("en"))
    assert report.source == "model" and not report.replaced


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_every_number_of_the_explained_report_comes_from_the_summary(lang: str) -> None:
    # each number read under its label (tests/unit/renderer/report_figures.py) and compared with
    # the model's field of that label; a number without a known label fails
    from .report_figures import (
        check,
        expected_from_summary,
        lists_from_summary,
        names_for,
        texts_of,
    )

    s = explained_summary()
    table = {
        c.login: {
            k: getattr(c, k)
            for k in ("prs_opened", "prs_merged", "issues_opened", "reviews", "comments")
        }
        for c in s.contributors
    }
    names = names_for(
        lang,
        {m.module for m in s.modules},
        {r.risk for r in s.risks},
        texts_of(s),
        {st.name: st.key for st in s.storylines},
    )
    problems = check(
        render_markdown(s, lang),
        lang,
        expected_from_summary(s),
        names,
        lists_from_summary(s, lang),
        table,
    )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "lang,where",
    [
        ("en", "(medium, 3 items, mostly in V1 engine)"),
        ("zh-CN", "（中风险，3 项，集中在 V1 引擎）"),
    ],
)
def test_a_tag_risk_says_where_its_items_are(lang: str, where: str) -> None:
    # two of three items in one module: the module is named; one item alone names nowhere
    s = explained_summary()
    core = s.risks[0].model_copy(update={"count": 3, "items": (10700, 10701, 10600)})
    s = s.model_copy(
        update={
            "risks": (core,),
            "appendix": s.appendix.model_copy(
                update={
                    "merged_prs": tuple(
                        i.model_copy(update={"modules": ("v1-engine",)})
                        if i.number in (10701,)
                        else i
                        for i in s.appendix.merged_prs
                    )
                }
            ),
        }
    )
    text = render_markdown(s, lang)
    assert where in text, text
    single = s.model_copy(
        update={"risks": (core.model_copy(update={"count": 1, "items": (10700,)}),)}
    )
    assert "mostly in" not in render_markdown(single, "en")


@pytest.mark.parametrize(
    "lang,said", [("en", "Continues from the previous window ("), ("zh-CN", "上期已有")]
)
def test_continuity_is_said_only_for_a_line_as_big_then(lang: str, said: str) -> None:
    """2025-W52 said "Continues from the previous window (N PRs then)" in all five subsections:
    it is said for a continuing line only when it was at least as big then."""
    s = explained_summary()
    continuing = [st for st in s.storylines if st.status == "continuing"]
    assert continuing
    themes = section(render_markdown(s, lang), "2.")
    assert said not in themes  # smaller then: not said
    big = s.model_copy(
        update={
            "storylines": tuple(
                st.model_copy(update={"previous_items": len(st.items)})
                if st.status == "continuing"
                else st
                for st in s.storylines
            )
        }
    )
    assert said in section(render_markdown(big, lang), "2.")


@pytest.mark.parametrize(
    "lang,name,said",
    [
        ("en", "vLLM main to 12-27", "Keeping up with vLLM main (to 12-27)"),
        ("zh-CN", "vLLM main to 12-27", "跟进 vLLM 主干（至 12.27）"),
        ("en", "vLLM v0.13.0", "Keeping up with vLLM v0.13.0"),
        ("zh-CN", "vLLM v0.13.0", "vLLM v0.13.0 版本同步"),
    ],
)
def test_an_upgrade_line_of_main_by_the_day_names_a_date_not_a_version(lang, name, said) -> None:
    """2025-W52's "vLLM 12.27 版本同步" read as a version: pins of vLLM main by the day are
    named by their date; a release stays as it is."""
    s = explained_summary()
    first = s.storylines[0].model_copy(update={"key": "upgrades", "name": name})
    s = s.model_copy(update={"storylines": (first, *s.storylines[1:])})
    text = render_markdown(s, lang)
    assert said in text
    assert "12.27 版本同步" not in text and "with vLLM 12-27" not in text


@pytest.mark.parametrize("lang,said", [("en", "Work linked to #4629"), ("zh-CN", "#4629 相关工作")])
def test_a_line_of_changes_linking_an_untitled_issue_is_named_by_the_link(lang, said) -> None:
    """2025-W51: three changes linking RFC #4629, whose title the merged-PR history lacks, made
    a line named "#4629"; a line of those links with a name keeps it (the negative)."""
    s = explained_summary()
    first = s.storylines[0].model_copy(update={"key": "ref:#4629", "name": "#4629"})
    text = render_markdown(s.model_copy(update={"storylines": (first, *s.storylines[1:])}), lang)
    assert said in text
    named = s.storylines[0].model_copy(update={"key": "ref:#4629", "name": "Extract common code"})
    text = render_markdown(s.model_copy(update={"storylines": (named, *s.storylines[1:])}), lang)
    assert "Extract common code" in text and said not in text


@pytest.mark.parametrize(
    "lang,said,unsaid",
    [("en", "Release v0.9.1", "Release Release"), ("zh-CN", "v0.9.1 版本发布", "Release v0.9.1")],
)
def test_a_release_line_is_named_in_the_reports_language(lang, said, unsaid) -> None:
    """2025-W31's "Release v0.9.1" (storylines.RELEASE_KEY: cherry-picks and backports for one
    release) read in English in the Chinese report; named from its version in each language. A
    line of another key keeps the name its titles gave it (the negative)."""
    s = explained_summary()
    first = s.storylines[0].model_copy(
        update={"key": "release", "name": "Release v0.9.1", "terms": ("0.9.1",)}
    )
    text = render_markdown(s.model_copy(update={"storylines": (first, *s.storylines[1:])}), lang)
    assert said in text and unsaid not in text
    other = s.storylines[0].model_copy(update={"key": "term:release", "name": "Release v0.9.1"})
    kept = render_markdown(s.model_copy(update={"storylines": (other, *s.storylines[1:])}), lang)
    assert "Release v0.9.1" in kept


@pytest.mark.parametrize("lang,said", [("en", "more changes in"), ("zh-CN", "另有")])
def test_an_also_active_line_named_by_a_title_is_said_by_its_area(lang, said, monkeypatch) -> None:
    """2025-W52: "Also active: 5/N Extract common code of mla_v1.py… (3 refactors)" — a title
    is no name; "3 more changes in attention". A line with a name keeps it (the negative)."""

    s = explained_summary()
    w_items = {i.number: i for n in ("merged_prs", "new_prs") for i in getattr(s.appendix, n)}
    lines = list(s.storylines)
    assert len(lines) >= 2
    last = lines[-1]
    title = w_items[last.items[0].number].title
    clipped = " ".join(title.split()[:5]) + "…"
    assert len(clipped.split()) >= 4
    named = s.model_copy(update={"storylines": tuple(lines)})
    titled = s.model_copy(
        update={"storylines": (*lines[:-1], last.model_copy(update={"name": clipped}))}
    )
    # the last line goes to "Also active"
    monkeypatch.setattr("services.renderer.domain.view.MAX_THEMES", len(lines) - 1)
    text_named = render_markdown(named, lang)
    text_titled = render_markdown(titled, lang)
    also = "Also active" if lang == "en" else "其他活跃方向"
    line_named = next(ln for ln in text_named.splitlines() if also in ln)
    line_titled = next(ln for ln in text_titled.splitlines() if also in ln)
    assert last.name in line_named and said not in line_named
    assert clipped.rstrip("…") not in line_titled and said in line_titled


@pytest.mark.parametrize(
    "name,written",
    [
        ("Speculative decoding", "speculative decoding"),
        ("Models", "models"),
        ("Compilation and graphs", "compilation and graphs"),
        ("MoE", "MoE"),
        ("Ascend 310P", "Ascend 310P"),  # 2026-W30: "in ascend 310P"
        ("Intel XPU", "Intel XPU"),
        ("CI and build", "CI and build"),
    ],
)
def test_a_module_inside_an_english_sentence_keeps_a_proper_names_capital(name, written) -> None:
    assert mid_sentence(name) == written
