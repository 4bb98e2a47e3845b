"""A series ("[MLA] refactor 5/N", "(6/N)", "part 3") is one line of work named after what its
parts share — the words before their place when a name is among them ("EAGLE refactor"), else
the words every part starts with ("Extract common code", real 2025-W52) — never after its
place ("5/N Extract common code of mla_v1.py…"); parts with the same words before the same
count of parts are one series however common the word (issue #15)."""

from __future__ import annotations

from services.summarizer.domain.storylines import _series_head, _series_name, find_storylines
from tests.unit.summarizer.test_storylines import COUNTS, FILLER, HISTORY, it
from tests.unit.summarizer.test_storylines_real_windows import _item, lines_of, numbers, week


def test_a_series_is_named_after_the_words_before_its_place_when_a_name_is_there():
    # real 2026-W33 (#13918, #13995) and 2026-W02/W04 (#5420, #5869)
    assert _series_name([_item(13918), _item(13995)]) == "DSA refactor"
    assert _series_name([_item(5420), _item(5869)]) == "EAGLE refactor"
    assert [k for k, _w in _series_head("[MLA] refactor 5/N Extract common code")] == [
        "mla",
        "refactor",
    ]
    # a head of kind words alone (real #1885, #1892 "[1/4][Refactor] Refactor torchair …"):
    # the words the parts start with
    assert _series_name([_item(1885), _item(1892)]) == "Refactor torchair"
    # a common word that is no name ("[Model]", real 2025-W43 #3189, #3561) and no shared
    # start: the first part's title, without its place
    assert _series_name([_item(3189), _item(3561)]) == "Delete deepseek v2/v3 modeling codes"
    # a title without an "N/M" place, or a sentence before it, has no head
    assert _series_head("[Lint]Style: Convert `vllm-ascend/` to ruff format(Batch #3)") == []
    assert _series_head("Make the cache loader much faster on big models 2/3") == []


def test_a_real_series_is_named_without_its_place():
    """2025-W52: "[Refactor]5/N Extract common code of mla_v1.py & extract mla_cp" and
    "[Refactor]6/N Extract common code of class AscendMLAImpl" were told as "5/N Extract
    common code of mla_v1.py…"."""
    lines, _items = lines_of(week(2025, 52), 7)
    (series,) = [s for s in lines if numbers(s) & {5097, 5314}]
    assert {5097, 5314} <= numbers(series)
    assert series.name == "Extract common code"
    assert "/N" not in series.name


def test_parts_with_the_same_words_before_the_same_count_are_one_series():
    """Two parts of "[Model] …/N" in different code, sharing no other word: "model" is in a
    fifth of the history's titles, yet the head they write before their place is one series."""
    parts = [
        it(1, "[Model] 1/N Delete legacy loader", day=1, files=("src/a/x/one.py",)),
        it(2, "[Model] 2/N Unify weight path", day=3, files=("lib/b/y/two.py",)),
    ]
    lines = find_storylines(FILLER + parts, [], COUNTS, len(HISTORY))
    (series,) = [s for s in lines if numbers(s) & {1, 2}]
    assert numbers(series) == {1, 2}
    # another count of parts, or the same place twice, is no series of the two
    for other in ("[Model] 2/4 Unify weight path", "[Model] 1/N Unify weight path"):
        apart = [parts[0], it(2, other, day=3, files=("lib/b/y/two.py",))]
        lines = find_storylines(FILLER + apart, [], COUNTS, len(HISTORY))
        assert not any(numbers(s) == {1, 2} for s in lines), other
    # a revert of one part and the first part of another series share only "Revert" before
    # their places (real #7030, #7288): the reverted titles' heads differ
    assert {k for k, _w in _series_head(_item(7030).title)} == {"refactor", "eagle"}
    assert {k for k, _w in _series_head(_item(7288).title)} == {"perf"}
