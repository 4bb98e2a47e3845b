"""Storylines and a profile's topics: a topic is a term of its items, named as the profile names
it, so one line of work written under several names ("A5", "Ascend950") is one storyline; on the
real vllm-ascend history, with the tags the `vllm-ascend` profile gives."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from services.summarizer.domain.storylines import (
    StoryItem,
    find_storylines,
    term_counts_of,
    terms_of,
    topic_term,
)
from shared.events import Actor, ItemSnapshot

from .test_storylines import COUNTS, FILLER, HISTORY, it, real_items

A5 = "Ascend 950 (A5)"


def test_a_topic_is_a_term_of_its_item_and_of_the_history():
    key = topic_term(A5)
    assert key == topic_term("ascend 950 (a5)") and key not in terms_of("Ascend 950 A5")
    assert terms_of("[Feature] Support DeepSeek for A5", (A5,)) == terms_of(
        "[Feature] Support DeepSeek for A5"
    ) | {key}
    counts = term_counts_of(
        ["[Build] Add support for Ascend950 chip", "A5 fix", "unrelated"], [(A5,), (A5,)]
    )
    assert counts[key] == 2 and counts["ascend950"] == 1 and counts["unrelated"] == 1


# real titles of vllm-project/vllm-ascend, 2026-W22 and W23: one chip generation, two names
SPELLED_A5 = [
    "[Feature] GDN and conv1d operators adapted for A5",
    "[Feature] Add A5 MLA C8 feature",
    "[BugFix] Fix A5 custom opapi symbol shadowing",
    "[Misc][Docker] Add Ascend A5 Dockerfiles",
]
SPELLED_950 = [
    "[Ascend950] [Feature] Enable MXFP4 flatquant and support for row parallelism",
    "[BugFix][MLA][Ascend950] Zero-init o_proj_input padding to prevent NaN propagation",
    "[Ascend950][Feature]Support MXFP8 FlashcommV3 on 950",
    "[Ascend950] [Feature] Support custom op for GDN on Ascend 950",
]


def chip_window(topics: tuple[str, ...] = ()) -> list[StoryItem]:
    return FILLER + [
        replace(it(n, title, day=n % 6, files=(f"src/op{n}.py",)), topics=topics)
        for n, title in enumerate(SPELLED_A5 + SPELLED_950, start=1)
    ]


def test_without_a_topic_the_two_names_are_two_lines():
    lines = find_storylines(chip_window(), [], COUNTS, len(HISTORY))
    assert {s.key: {m.number for m in s.items} for s in lines} == {
        "a5": {1, 2, 3, 4},
        "ascend950": {5, 6, 7, 8},
    }


def test_a_topic_makes_one_line_named_by_the_profile():
    lines = find_storylines(chip_window((A5,)), [], COUNTS, len(HISTORY))
    assert [(s.name, s.key) for s in lines] == [(A5, topic_term(A5))]
    (line,) = lines
    assert {m.number for m in line.items} == set(range(1, 9))  # the spellings lost their items
    assert line.evidence == "term" and line.status == "new"
    # worked on the week before too: continuing
    previous = [
        replace(it(90 + n, t, day=-3, files=(f"src/p{n}.py",)), topics=(A5,))
        for n, t in enumerate(SPELLED_A5[:2])
    ]
    (line,) = find_storylines(chip_window((A5,)), previous, COUNTS, len(HISTORY))
    assert (line.status, line.previous_items) == ("continuing", 2)


def test_a_topic_takes_its_spellings_not_another_line_it_touches():
    # DeepSeek-V4 work, one change of it on the 950: DeepSeek V4 stays a line of its own
    dsv4 = [
        it(20, "[Feature] DeepSeek-V4 for Ascend950", files=("src/d20.py",)),
        it(21, "[BugFix] DeepSeek-V4 rope", files=("src/d21.py",)),
        it(22, "[Perf] DeepSeek-V4 MLA prefill", files=("src/d22.py",)),
        it(23, "DeepSeek-V4 weight loading", files=("src/d23.py",)),
        it(24, "[Doc] DeepSeek-V4 tutorial", files=("src/d24.py",)),
    ]
    dsv4[0] = replace(dsv4[0], topics=(A5,))
    lines = find_storylines(chip_window((A5,)) + dsv4, [], COUNTS, len(HISTORY))
    by_name = {s.name: {m.number for m in s.items} for s in lines}
    assert set(by_name) == {A5, "DeepSeek-V4"}, by_name
    assert set(range(1, 9)) <= by_name[A5] and {21, 22, 23, 24} <= by_name["DeepSeek-V4"]


def test_a_topic_common_in_the_history_is_an_area_not_a_line():
    # every tenth change of the history carries it: too common to stand out, like any word
    topics = [(A5,) if i % 10 == 0 else () for i in range(len(HISTORY))]
    counts = term_counts_of(HISTORY, topics)
    window = FILLER + [
        replace(it(n, f"[Misc] tidy part{n}", files=(f"src/x{n}.py",)), topics=(A5,))
        for n in range(1, 5)
    ]
    assert find_storylines(window, [], counts, len(HISTORY)) == []


# ---------------------------------------------------------------- the real vllm-ascend history

SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.fixture(scope="module")
def tagged_history() -> list[StoryItem]:
    """The real merged PRs, each with the topics the `vllm-ascend` profile gives its title."""
    from tests.unit.classifier.factory import builtin

    rules = builtin("vllm-ascend")

    def topics(item: StoryItem) -> tuple[str, ...]:
        snap = ItemSnapshot(
            repo="vllm-project/vllm-ascend",
            number=item.number,
            kind="pull_request",
            title=item.title,
            author=Actor(login="someone"),
            state="closed",
            created_at=item.merged_at or datetime(2026, 1, 1, tzinfo=UTC),
            files=(),
        )
        return tuple(t.name for t in rules.classify(snap).topics)

    return [replace(i, topics=topics(i)) for i in real_items()]


def week(items: list[StoryItem], year: int, number: int):
    start = datetime.combine(date.fromisocalendar(year, number, 1), time(), SHANGHAI)
    end, before = start + timedelta(days=7), start - timedelta(days=7)
    current = [i for i in items if start <= i.merged_at < end]
    previous = [i for i in items if before <= i.merged_at < start]
    history = [i for i in items if i.merged_at < start]
    known = {i.number: i for i in items if i.merged_at < before}
    counts = term_counts_of([i.title for i in history], [i.topics for i in history])
    return current, find_storylines(current, previous, counts, len(history), referenced=known)


@pytest.mark.parametrize("year,number", [(2026, 22), (2026, 23)])
def test_real_week_with_both_names_has_one_chip_storyline(tagged_history, year, number):
    current, lines = week(tagged_history, year, number)
    titles = {i.number: i.title.lower() for i in current}
    # the week writes the chip both ways
    assert any(" a5" in t or "[a5]" in t for t in titles.values())
    assert any("ascend950" in t for t in titles.values())
    chip = [
        s
        for s in lines
        if any(w in s.name.lower().replace(" ", "") for w in ("a5", "ascend950", "950"))
    ]
    assert [s.name for s in chip] == [A5], [s.name for s in lines]
    members = {m.number for m in chip[0].items}
    assert any("ascend950" in titles[n] for n in members)
    assert any(" a5" in titles[n] or "[a5]" in titles[n] for n in members)
    # no change is told twice
    numbers = [m.number for s in lines for m in s.items]
    assert len(numbers) == len(set(numbers))
