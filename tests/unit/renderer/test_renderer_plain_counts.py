"""Counts a reader needs, said once (2026-W13 reading): "(0 for the first time)" and "Kernels (7
items, 7 merged)" told nothing the sentence had not said."""

from __future__ import annotations

import re

import pytest

from services.renderer.adapters.documents import render_markdown
from shared.events import ModuleTrend

from .explain_samples import explained_summary
from .test_renderer_explains import section


@pytest.mark.parametrize(
    "lang,none_new,some_new",
    [
        ("en", "3 people were active.", "3 people were active (2 for the first time)"),
        ("zh-CN", "共有 3 位贡献者活跃。", "共有 3 位贡献者活跃（其中 2 位首次贡献）"),
    ],
)
def test_nobody_new_is_not_told_as_zero_newcomers(lang, none_new, some_new):
    s = explained_summary()
    title = "Activity" if lang == "en" else "活跃度"
    for first_time, expected, absent in ((0, none_new, "0"), (2, some_new, None)):
        counts = s.counts.model_copy(
            update={"active_contributors": 3, "first_time_contributors": first_time}
        )
        text = section(render_markdown(s.model_copy(update={"counts": counts}), lang), title)
        assert expected in text
        if absent is not None:
            assert "for the first time" not in text and "首次贡献" not in text


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_module_whose_items_are_all_merged_says_merged_prs_once(lang):
    s = explained_summary(storylines=())
    modules = (
        ModuleTrend(module="kernels", total=7, merged=7, previous_total=9),
        ModuleTrend(module="ci/build", total=4, merged=3, previous_total=2),
    )
    text = render_markdown(s.model_copy(update={"modules": modules}), lang)
    if lang == "en":
        assert "Kernels (7 merged PRs)" in text and "(7 items, 7 merged)" not in text
        assert "(4 items, 3 merged)" in text
    else:
        assert "算子（合并 7 个 PR）" in text and "（7 项，合并 7 个）" not in text
        assert "（4 项，合并 3 个）" in text


@pytest.mark.parametrize(
    "lang,top,other",
    [
        (
            "en",
            "**Core paths and test coverage** (high): ",
            "**Other code changes without tests** (medium, 3 items",
        ),
        ("zh-CN", "**核心路径与测试覆盖**（高风险）：", "**其他缺少测试的代码变更**（中风险，3 项"),
    ],
)
def test_untested_code_beside_untested_core_is_the_others_and_the_top_names_one_group(
    lang, top, other
):
    """2026-W13: the top said "(high, 55 items)" — the union of three groups, a count no sentence
    said — and section 4 called the 25 non-core ones "Code changes without tests" beside "42 code
    changes came without tests": the top names the untested core changes it counts, section 4
    calls the rest the others."""
    from shared.events import RiskObservation

    s = explained_summary()
    risks = (
        RiskObservation(risk="core-without-tests", severity="high", count=2, items=(10700, 10701)),
        RiskObservation(risk="code-without-tests", severity="medium", count=3, items=(10501,)),
        RiskObservation(risk="core-change", severity="medium", count=4, items=(10700, 10501)),
    )
    text = render_markdown(s.model_copy(update={"risks": risks}), lang)
    line = next(ln for ln in text.splitlines() if top in ln)
    assert "#10700" in line and "#10701" in line and "#10501" not in line.split("—")[0]
    assert ("5 code changes came without tests, 2 of them in core paths" in line) == (lang == "en")
    assert other in text
    alone = render_markdown(s.model_copy(update={"risks": risks[1:2]}), lang)
    assert "Other code changes" not in alone and "其他缺少测试" not in alone


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_hot_topic_names_what_its_changes_are(lang):
    """2026-03-24: "Compilation and graphs (3 merged PRs): #7574" — bare numbers, one of three.
    A topic names its changes with their titles ([Tags] left out), as seed 003 does, the key
    changes first, and never says more of them than its count."""
    from .samples import daily_summary

    s = daily_summary()
    md = render_markdown(s, lang)
    title = "Hot topics and trends" if lang == "en" else "热门话题与趋势"
    lines = [ln for ln in section(md, title).splitlines() if ln[:1].isdigit()]
    assert lines
    titles = {
        i.number: i.title
        for name in ("merged_prs", "new_prs", "new_issues")
        for i in getattr(s.appendix, name)
    }
    for ln in lines:
        named = [int(n) for n in re.findall(r"\[#(\d+)\]", ln)]
        assert named, ln
        for n in named:
            bare = re.sub(r"^\s*(?:\[[^\]]*\]\s*:?\s*)+", "", titles[n]).strip()
            assert bare in ln.replace("\\", ""), (n, bare, ln)
            assert f"[{titles[n].split(']')[0].lstrip('[')}]" not in ln or "[" not in titles[n]
        counted = re.search(r"\((\d+) (?:items?|merged PRs?)|（(?:合并了 )?(\d+) (?:项|个 PR)", ln)
        total = int(next(g for g in counted.groups() if g))
        more = re.search(r"… and (\d+) more|另有 (\d+) 项", ln)
        extra = int(next(g for g in more.groups() if g)) if more else 0
        assert len(named) + extra <= total, ln


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_an_unstable_change_is_told_by_its_title_without_its_tags(lang):
    """2026-W13: "\\[Bugfix\\]\\[eager\\]\\[oom\\] fix rank0 load imbalance …: added in #7297,
    fixed in #7614" — a title's [Tags] say nothing in a sentence, which opens capitalised."""
    from shared.events import Incident

    s = explained_summary()
    inc = Incident(
        kind="instability",
        items=(10501, 10700),
        roles=("added", "fixed"),
        subject="[Bugfix][eager][oom] fix rank0 load imbalance by no padding when multi dp",
    )
    md = render_markdown(s.model_copy(update={"incidents": (inc,)}), lang)
    assert "Fix rank0 load imbalance by no padding when multi dp" in md
    assert "[eager]" not in md and "\\[eager\\]" not in md


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_line_of_work_never_prints_a_title_twice(lang):
    """2026-W13's section 2: "#7533 [310p][feat] Added a patch file for 310P to adapt to Qwen3.5
    — Added a patch file for 310P to adapt to Qwen3.5": a description that repeats its title
    says nothing more."""
    s = explained_summary()
    merged = []
    for i in s.appendix.merged_prs:
        if i.number == 10502 and i.digest is not None:
            bare = re.sub(r"^\s*(?:\[[^\]]*\]\s*)+", "", i.title)
            i = i.model_copy(update={"digest": i.digest.model_copy(update={"what": bare})})
        merged.append(i)
    s = s.model_copy(
        update={
            "appendix": s.appendix.model_copy(update={"merged_prs": tuple(merged)}),
            "key_prs": tuple(k for k in s.key_prs if k.item.number != 10502),
        }
    )
    title = next(i.title for i in merged if i.number == 10502)
    bare = re.sub(r"^\s*(?:\[[^\]]*\]\s*)+", "", title)
    themes = section(render_markdown(s, lang), "2.")
    line = next(ln for ln in themes.splitlines() if "#10502" in ln)
    assert line.replace("\\", "").count(bare) == 1, line
