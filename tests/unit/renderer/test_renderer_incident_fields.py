"""What the summary's newer incident fields and key reasons say in a report (issue #15), in
English and Chinese:

- a burst's fixes are counted as its line counts them (Incident.of_fixes: 2026-W22's section 2.1
  said 9 fixes of DeepSeek V4, the burst 8 — now "8 of the 9 fixes in its line of work");
- a loosened check names the later changes of its test or configuration files
  (Incident.followed_by: #9681 skipped a DFlash test, #9704 fixed it — "(#9704 followed)");
- one file fixed again and again is told as such, in the risks and in a day's problems worth
  attention (2026-07-08/09: the docs translation scripts, five fixes in 31 hours);
- every reason a key PR is picked for has a name in each language (severe_fix, default_change)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import get_args

import pytest

from services.renderer.adapters.catalogs import _catalog, messages
from services.renderer.adapters.documents import render_markdown
from shared.events import Appendix, Incident
from shared.events.summary import KeyReason

from .explain_samples import MERGED, explained_summary
from .samples import pr
from .test_renderer_attention import DAY, daily
from .test_renderer_bursts_highlights import burst_summary, text_of, top

# ---------------------------------------------------------------- a burst counted as its line


def with_burst(of_fixes: int):
    s = burst_summary()
    incs = tuple(
        i.model_copy(update={"of_fixes": of_fixes}) if i.kind == "fix_burst" else i
        for i in s.incidents
    )
    return s.model_copy(update={"incidents": incs})


@pytest.mark.parametrize(
    "lang,line,follow",
    [
        (
            "en",
            "was followed by 4 of the 6 fixes in its line of work (DeepSeek V4): #9367",
            "Stabilise DeepSeek V4: 4 of its 6 fixes followed “Support DeepseekV4” (#9270)",
        ),
        (
            "zh-CN",
            "同一工作线（DeepSeek V4）陆续出现 4 个修复（该工作线共 6 个修复）：#9367",
            "合入后 4 天内出现 4 个修复（该工作线共 6 个）；",
        ),
    ],
)
def test_a_burst_counts_its_fixes_as_its_line_does(lang, line, follow):
    text = text_of(with_burst(6), lang)
    assert top(text).count(line) == 1 and text.count(line) == 2  # the top and section 4
    assert sum(follow in ln for ln in text.splitlines()) == 1


@pytest.mark.parametrize("of_fixes", [0, 4])
def test_a_burst_holding_all_its_lines_fixes_gives_one_count(of_fixes):
    text = text_of(with_burst(of_fixes), "en")
    assert "4 fixes in the same line of work (DeepSeek V4)" in text
    assert "Stabilise DeepSeek V4: 4 fixes followed" in text
    assert " of the " not in text.split("4 fixes in the same line", 1)[0].splitlines()[-1]
    assert "of its" not in text


# ---------------------------------------------------------------- a loosened check come back to

SKIP = pr(9681, "[Test][Misc] Skip broken DFlash acceptance test", "q", categories=("test",))
FIX = pr(9704, "[CI]fix dflash test", "z", categories=("ci",))


def loosened(followed_by: tuple[int, ...]):
    inc = Incident(
        kind="loosened",
        items=(9681,),
        roles=("loosened",),
        subject=SKIP.title,
        followed_by=followed_by,
    )
    return explained_summary(
        incidents=(inc,),
        appendix=Appendix(merged_prs=(*MERGED, SKIP, FIX)),
    )


@pytest.mark.parametrize(
    "lang,said",
    [("en", "(#9704 followed)"), ("zh-CN", "（其后 #9704 又改动了相同的测试或配置文件）")],
)
def test_a_loosened_check_names_the_change_that_followed(lang, said):
    text = text_of(loosened((9704,)), lang)
    lines = [ln for ln in text.splitlines() if "#9681" in ln and said in ln]
    assert len(lines) == 2  # at the top and in section 4
    assert said not in text_of(loosened(()), lang)


# ---------------------------------------------------------------- one file fixed again and again


def at(day: int, hour: int, minute: int):
    """A merge time given in Shanghai (UTC+8)."""
    return datetime(2026, 7, day, hour - 8, minute, tzinfo=UTC)


TRANSLATE = tuple(
    pr(n, title, "w", categories=("bugfix",)).model_copy(update={"merged_at": at(*when)})
    for n, title, when in (
        (11597, "[CI] Fix doc translate workflow", (8, 11, 53)),
        (11606, "[Doc] Fix doc link url bug", (8, 15, 42)),
        (11652, "[DOC] Fix wrong CN translate", (9, 8, 11)),
        (11664, "[Doc] Fix CN doc problem", (9, 10, 36)),
        (11688, "[CI] Fix po translate bug", (9, 18, 34)),
    )
)
REFIXED = Incident(
    kind="instability",
    items=tuple(i.number for i in TRANSLATE),
    roles=("fixed",) * len(TRANSLATE),
    subject="detect_po_changes.py",
    across_windows=True,
)
ITEMS = "#11597, #11606, #11652, #11664 and #11688"


def test_a_file_fixed_again_and_again_is_told_by_how_often_and_how_fast():
    text = text_of(
        explained_summary(
            incidents=(REFIXED,), appendix=Appendix(merged_prs=(*MERGED, *TRANSLATE))
        ),
        "en",
    )
    said = f"detect_po_changes.py was fixed 5 times within 31 hours: {ITEMS}"
    assert text.count(said) == 2  # the top and section 4
    assert "fixed in #11597" not in text


def test_a_day_names_a_file_fixed_again_and_again_among_its_problems():
    # the fixes of the day before unknown: no span said
    text = daily(TRANSLATE[2:], [REFIXED]).replace("\n", " ")
    assert f"Fix po translate bug — detect_po_changes.py was fixed 5 times: {ITEMS}" in text
    text = daily(TRANSLATE, [REFIXED]).replace("\n", " ")
    assert f"detect_po_changes.py was fixed 5 times within 31 hours: {ITEMS}" in text
    s = explained_summary(
        window=DAY,
        appendix=Appendix(merged_prs=TRANSLATE),
        incidents=(REFIXED,),
        follow_ups=(),
        discussions=(),
    )
    assert "detect_po_changes.py 在 31 小时内被修复了 5 次" in render_markdown(s, "zh-CN")


def test_fixes_days_apart_are_counted_in_days_and_a_chain_with_its_change_is_not_one():
    spread = tuple(
        i.model_copy(update={"merged_at": at(6 + k, 12, 0)}) for k, i in enumerate(TRANSLATE)
    )
    text = text_of(
        explained_summary(incidents=(REFIXED,), appendix=Appendix(merged_prs=(*MERGED, *spread))),
        "en",
    )
    assert f"detect_po_changes.py was fixed 5 times in 4 days: {ITEMS}" in text
    added = REFIXED.model_copy(update={"roles": ("added", *("fixed",) * 4)})
    text = text_of(
        explained_summary(incidents=(added,), appendix=Appendix(merged_prs=(*MERGED, *spread))),
        "en",
    )
    assert "was fixed 5 times" not in text and "added in #11597" in text
    assert "times within" not in daily(TRANSLATE, [added])


# ---------------------------------------------------------------- key reasons in words


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_every_key_reason_has_a_name(lang):
    names = _catalog(lang)["reason_names"]  # the language's own catalog, no fallback
    for reason in get_args(KeyReason):
        assert names.get(reason), reason
    assert messages(lang).name("reason_names", "severe_fix") == names["severe_fix"]
