"""A day's hot topics (2026-06-10 reading): a module's topic lists the changes that are that
module's work — their first module — not a change that only touches it (the logging change
#10201, first in observability, listed under Kernels; #10016 of kernels under Attention); and a
module's line reads as the area itself ("Speculative decoding") when no named line of the report
is of that area, not "Other work in Speculative decoding" beside nothing else of it."""

from __future__ import annotations

import pytest

from services.renderer.adapters.documents import view_for
from shared.events import Storyline, StorylineItem

from .samples import daily_summary, weekly_summary


def _items(s):
    return {
        i.number: i for n in ("merged_prs", "new_prs", "new_issues") for i in getattr(s.appendix, n)
    }


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_module_topic_lists_only_changes_whose_first_module_it_is(lang):
    s = daily_summary()
    items = _items(s)
    modules = {t.module for t in s.modules}
    topics = [b for b in view_for(s, lang).topics if b.key in modules]
    assert topics
    # the sample has changes that touch a topic's module after another one (#38293: rocm, moe)
    touching = {b.key: [n for n, i in items.items() if b.key in i.modules[1:]] for b in topics}
    assert any(touching.values())
    for b in topics:
        named = [ln.number for ln in b.links]
        assert named
        assert all(items[n].modules[:1] == (b.key,) for n in named if n in items), (b.key, named)
        assert not set(named) & set(touching[b.key])


def _with_lines(s, *lines):
    return s.model_copy(update={"storylines": tuple(lines)})


MOE_LINE = Storyline(
    key="moe",
    name="moe",
    evidence="module",
    items=(StorylineItem(number=41183), StorylineItem(number=38256)),
    merged=1,
)
NAMED_MOE = Storyline(
    key="moerunner", name="MoERunner", items=(StorylineItem(number=41184),), merged=1
)
NAMED_ROCM = Storyline(key="aiter", name="AITER", items=(StorylineItem(number=38313),), merged=1)


@pytest.mark.parametrize(
    "lang,area,other",
    [("en", "MoE", "Other work in MoE"), ("zh-CN", "MoE", "其他 MoE 变更")],
)
def test_a_days_module_line_reads_as_its_area_unless_a_named_line_shares_it(lang, area, other):
    alone = view_for(_with_lines(daily_summary(), NAMED_ROCM, MOE_LINE), lang)
    heads = [b.head for b in alone.topics]
    assert area in heads and other not in heads
    assert len(heads) == len(set(heads)), heads  # the module is not told again by its trend
    beside = view_for(_with_lines(daily_summary(), NAMED_MOE, MOE_LINE), lang)
    heads = [b.head for b in beside.topics]
    assert other in heads and "MoERunner" in heads


def test_a_weeks_module_line_still_says_it_holds_the_rest():
    """A week's module table counts the whole module: its line says it holds the rest."""
    s = weekly_summary()
    line = MOE_LINE.model_copy(
        update={"items": (StorylineItem(number=s.appendix.merged_prs[0].number),)}
    )
    from services.renderer.adapters.documents import render_markdown

    assert "Other work in MoE" in render_markdown(_with_lines(s, line), "en")


_COUNT = {"en": r"\((\d+) items?, (\d+) merged\)", "zh-CN": r"（(\d+) 项，合并 (\d+) 个）"}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_days_module_counts_are_one_definition_in_summary_and_topics(lang):
    """A day counts each change once, under its first module, and says so: the summary's count
    beside a module is its hot topic's, and a topic's count is of the changes it stands for
    (2026-07-10: "Kernels (10 merged PRs)" in the summary, 4 in the topic; "Tests (4 merged
    PRs)" listing one)."""
    import re

    from services.renderer.adapters.documents import render_markdown

    from .event_samples import events_summary

    s = events_summary()
    items = _items(s)
    merged = {i.number for i in s.appendix.merged_prs}
    text = render_markdown(s, lang)
    said = "Counting each PR once" if lang == "en" else "按每个 PR 的主要模块计"
    line = next(ln for ln in text.splitlines() if said in ln)
    view = view_for(s, lang)
    topics = [b for b in view.topics if b.key in {t.module for t in s.modules}]
    assert topics
    for b in topics:
        own = [n for n, i in items.items() if i.modules[:1] == (b.key,)]
        figures = [
            int(x) for x in re.findall(r"\d+", b.text)
        ]  # "5 items, 2 merged" / "3 merged PRs"
        total, n_merged = figures if len(figures) == 2 else figures * 2
        assert (total, n_merged) == (len(own), len(set(own) & merged)), b.key
        # the summary names the module with the same count when it names it
        m = re.search(re.escape(b.head) + _COUNT[lang], line)
        if m:
            assert tuple(map(int, m.groups())) == (total, n_merged)
    # a module touched by a change first of another module counts it not (the negative)
    touched = {t.module: t.total for t in s.modules}
    assert any(
        touched[b.key] > len([n for n, i in items.items() if i.modules[:1] == (b.key,)])
        for b in topics
        if b.key in touched
    )


@pytest.mark.parametrize("summary", [daily_summary, weekly_summary])
def test_a_module_table_count_stays_where_the_appendix_is_a_sample_or_a_week(summary):
    """A week counts a module by every change touching it (its table), and so does a day whose
    appendix lists only some of its changes: no 'counted once' there."""
    from services.renderer.adapters.documents import render_markdown

    text = render_markdown(summary(), "en")
    assert "Counting each PR once" not in text


@pytest.mark.parametrize("lang,said", [("en", "; among them #"), ("zh-CN", "，包括 #")])
def test_a_days_summary_names_the_changes_of_the_risks_it_names(lang, said):
    """A day has no risk section: its summary's "core path changes (5 items)" pointed at
    nothing (2026-07-10); it names the changes, as its lead does. A week keeps its counts (its
    risk section lists them)."""
    from services.renderer.adapters.documents import render_markdown

    s = daily_summary()
    line = next(ln for ln in render_markdown(s, lang).splitlines() if said in ln)
    worst = sorted(s.risks, key=lambda r: -r.count)[:1]
    assert all(f"#{r.items[0]}" in line for r in worst)
    assert said not in render_markdown(weekly_summary(), lang)
