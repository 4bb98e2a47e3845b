"""A name that opens a line of an English report opens a sentence (issue #15, 2026-07-09: "1.
**translate** (3 merged PRs)", a verb of the titles "Fix wrong CN translate", "Fix po translate
bug"): its first word is capitalised when it is a plain lower-case word; an identifier
("npugraph_ex") and the titles on the line stay as written, and so does the name inside a
sentence."""

from __future__ import annotations

import pytest

from services.renderer.adapters.documents import view_for
from shared.events import Storyline, StorylineItem

from .samples import daily_summary, pr, weekly_summary

TRANSLATE = (11652, 11664, 11688)  # real titles of 2026-07-09
NPUGRAPH = (10874, 12469)  # "Disable npugraph_ex by default on 310P", "… to disable npugraph_ex"


def _real(numbers):
    from tests.conftest import history_prs

    rows = history_prs()
    return [pr(n, rows[n]["title"], rows[n]["author_name"]) for n in numbers]


def _with_lines(s):
    items = _real(TRANSLATE + NPUGRAPH)
    lines = (
        Storyline(
            key="translate",
            name="translate",
            items=tuple(StorylineItem(number=n, role="fix") for n in TRANSLATE),
            lead=TRANSLATE[0],
            merged=3,
        ),
        Storyline(
            key="npugraph_ex",
            name="npugraph_ex",
            items=tuple(StorylineItem(number=n, role="fix") for n in NPUGRAPH),
            lead=NPUGRAPH[0],
            merged=2,
        ),
    )
    return s.model_copy(
        update={
            "storylines": lines,
            "appendix": s.appendix.model_copy(
                update={"merged_prs": (*s.appendix.merged_prs, *items)}
            ),
        }
    )


def test_a_days_topic_named_by_a_plain_word_opens_with_a_capital() -> None:
    topics = {b.key: b for b in view_for(_with_lines(daily_summary()), "en").topics}
    assert topics["translate"].head == "Translate"
    assert topics["npugraph_ex"].head == "npugraph_ex"  # an identifier stays as written
    # the titles on the line stay as written ("fix …" of a title is the title's)
    titles = {p.number: p.title for p in topics["translate"].links}
    assert titles[11688] == _real([11688])[0].title and "] Fix po translate bug" in titles[11688]


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_weeks_theme_heading_opens_with_a_capital_in_english_only(lang: str) -> None:
    v = view_for(_with_lines(weekly_summary()), lang)
    titles = {t.key: t.title for t in v.themes}
    if lang == "en":
        assert titles["translate"] == "Translate"
        assert titles["npugraph_ex"] == "npugraph_ex"
        # inside a sentence the name stays as the titles write it
        assert "Translate" not in v.lead and "translate" in v.lead
    else:
        assert "Translate" not in titles["translate"]
