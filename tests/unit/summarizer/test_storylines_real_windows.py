"""Lines of work of real windows of the vllm-ascend history, classified by its profile as the
pipeline does: how lines are named (never by two letters, "CN"; an upgrade line after the
project kept up with) and when a line is part of a bigger one (a reader's findings on 2026-W22
and 2026-07-09, issue #15). Skipped where ../shared/data is absent, failing in CI."""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime, timedelta

from services.classifier.domain.digest import digest_of
from services.summarizer.domain.report import story_item
from services.summarizer.domain.storylines import (
    StoryItem,
    Storyline,
    _main_dates,
    _upgrade_name,
    find_storylines,
    short_word,
    takes_out,
    term_counts_of,
    title_verb,
    upgrade_line,
    version_marker,
)
from shared.events import Actor, FileChange, ItemSnapshot, Tags
from tests.conftest import history_prs
from tests.unit.classifier.factory import builtin

REPO = "vllm-project/vllm-ascend"
UPGRADE_MODULES = ("upstream-sync", "dependencies")  # the report's policy


@functools.cache
def _snapshot(number: int) -> ItemSnapshot:
    row = history_prs()[number]
    files = tuple(
        FileChange(path=f["path"], additions=f["additions"] or 0, deletions=f["deletions"] or 0)
        for f in row["files"]
    )
    at = datetime.fromisoformat(row["merged_at"]).astimezone(UTC)
    return ItemSnapshot(
        repo=REPO,
        number=number,
        kind="pull_request",
        title=row["title"],
        author=Actor(login=row["author_name"]),
        state="closed",
        created_at=at - timedelta(hours=5),
        merged_at=at,
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
        changed_files=len(files),
        files=files,
        body_excerpt=row["body"] or "",
    )


@functools.cache
def _tags(number: int) -> Tags:
    return builtin("vllm-ascend").classify(_snapshot(number))


@functools.cache
def _item(number: int) -> StoryItem:
    """A real PR as the pipeline sees it: classified by the repository's profile (modules,
    topics, categories, bot), with the digest of its description."""
    row = history_prs()[number]
    digest = digest_of(row["title"], row["body"] or "", repo=REPO, number=number)
    return story_item(_snapshot(number), _tags(number).model_copy(update={"digest": digest}))


def _merged_between(first: date, last: date) -> list[StoryItem]:
    """The PRs merged from `first` to `last` (days in the repository's time zone, UTC+8)."""
    out = []
    for number, row in history_prs().items():
        day = datetime.fromisoformat(row["merged_at"]).astimezone(UTC) + timedelta(hours=8)
        if first <= day.date() <= last:
            out.append(_item(number))
    return sorted(out, key=lambda i: i.number)


@functools.cache
def _history() -> tuple[dict[str, int], int]:
    # (as the pipeline counts them: titles and the topics the profile gives each)
    rows = history_prs()
    topics = [[t.name for t in _tags(n).topics] for n in rows]
    return term_counts_of([r["title"] for r in rows.values()], topics), len(rows)


def lines_of(
    first: date, days: int, limit: int = 8
) -> tuple[list[Storyline], dict[int, StoryItem]]:
    """The lines a report of `days` days from `first` tells (`limit`: its named lines, the
    report's policy), with the window's changes."""
    last = first + timedelta(days=days - 1)
    current = [i for i in _merged_between(first, last) if not i.bot]
    previous = [
        i
        for i in _merged_between(first - timedelta(days=days), first - timedelta(days=1))
        if not i.bot
    ]
    counts, history = _history()
    lines = find_storylines(
        current, previous, counts, history, upgrade_modules=UPGRADE_MODULES, limit=limit
    )
    return lines, {i.number: i for i in current}


def numbers(line: Storyline) -> set[int]:
    return {m.number for m in line.items}


def week(year: int, number: int) -> date:
    return date.fromisocalendar(year, number, 1)


def test_a_word_of_two_letters_alone_names_no_line():
    assert short_word("cn") and short_word("kv") and short_word("pr")
    # a letter and a digit is a name ("A5"), a pair's key is longer ("kvpool")
    assert not (short_word("a5") or short_word("kvpool") or short_word("mtp"))
    # 2026-07-09: "CN" (three fixes of the doc translation tool) was the day's only line;
    # 2026-W17 "KV", 2026-W31 "DP" and "PR" were bags of unrelated changes
    for first, days in ((date(2026, 7, 9), 1), (week(2026, 17), 7), (week(2026, 31), 7)):
        lines, _items = lines_of(first, days)
        assert lines, first
        for line in lines:
            if line.evidence != "module":  # (the renderer names a module's line)
                assert not short_word(line.name.casefold()), (first, line.name)


def test_a_day_of_fixes_to_one_tool_is_named_by_the_word_their_titles_share():
    """2026-07-09: "Fix wrong CN translate", "Fix CN doc problem", "Fix po translate bug" —
    three fixes of the doc translation tool, in its scripts and the .po files it writes."""
    lines, items = lines_of(date(2026, 7, 9), 1)
    (line,) = [s for s in lines if numbers(s) & {11652, 11664, 11688}]
    assert numbers(line) == {11652, 11664, 11688}
    titles = [items[n].title.casefold() for n in numbers(line)]
    assert sum(line.name.casefold() in t for t in titles) * 2 > len(titles)
    assert line.name.casefold() != "cn"


def test_an_upgrade_line_is_named_after_the_project_kept_up_with():
    """2026-W22: "Keeping up with 310P" held two main2main syncs with vLLM main and one
    "[CI] Upgrade 310P CANN image to 9.1.0-beta.1" — 310P says which CANN image. An upgrade
    line holds the upgrades of the project it is named after (issue #15): the CANN image is no
    vLLM upgrade, and two syncs are no line of three."""
    lines, items = lines_of(week(2026, 22), 7)
    assert not [s for s in lines if upgrade_line(s.key)], [(s.key, s.name) for s in lines]
    # the syncs cite vLLM's pull requests; one upgrade of CANN
    syncs = [items[9238], items[9399]]
    assert _upgrade_name([items[9710]], list(items.values()), synced=syncs) == "vLLM"
    # an upgrade's project is the word before the version, not what says which of its uses
    assert _upgrade_name([_item(9710)]) == "CANN 9.1.0-beta.1"
    assert _upgrade_name([_item(6564)]) == "CANN 8.5.0"  # "Update UT CANN version to 8.5.0"
    assert _upgrade_name([_item(6145)]) == "CANN 8.5.0"  # "… Upgrade wheel building's CANN to"
    # a release a title names still names the line (2026-W26)
    lines, _items = lines_of(week(2026, 26), 7)
    (up,) = [s for s in lines if s.key == "upgrades"]
    assert up.name == "vLLM v0.23.0"


def test_a_line_inside_a_bigger_one_is_folded_into_it():
    """2026-W22: "DSA" (#9562 dsa.py clean-up, #9714 MTP for DSA context parallel, #9739 fp32
    RoPE for the DSA compressor) was a line beside DeepSeek V4, whose sparse attention it is:
    titles write the two together, and its changes change the files DeepSeek V4's change."""
    lines, _items = lines_of(week(2026, 22), 7)
    assert not [s for s in lines if s.key == "dsa"]
    (dsv4,) = [s for s in lines if s.name == "DeepSeek V4"]
    assert {9562, 9714, 9739} <= numbers(dsv4)
    assert "DSA" in dsv4.terms
    assert dsv4.lead not in {9562, 9714, 9739}  # the bigger line's own change speaks for it


def test_lines_that_only_share_files_or_a_platform_word_stay_apart():
    # 2026-W33: four DSA refactors change files MRV2's changes change, but two titles in
    # seven name the two together: a series of its own
    lines, _items = lines_of(week(2026, 33), 7)
    keys = {s.key for s in lines}
    # (MRV2, or the profile's topic of it)
    assert "dsa" in keys and any(k == "mrv2" or k.startswith("topic:mrv2") for k in keys)
    # 2026-W26: "WeightTransfer", three changes of their own files, all "for Ascend NPU"
    lines, _items = lines_of(week(2026, 26), 7)
    keys = {s.key for s in lines}
    assert {"weighttransfer", "npu"} <= keys


def test_a_version_marker_alone_names_no_line():
    """2026-W34: "V1" lumped the removal of FlashComm v1 (#13946), a split of dsa_v1 (#14375)
    and Qwen3-32B V1/V2 migration guards (#14198, #14200): a version marker names a line only
    inside a component's name."""
    assert version_marker("v1") and version_marker("v1v2", ("v1", "v2"))
    assert not version_marker("mrv2") and not version_marker("flashcommv1", ("flashcomm", "v1"))
    assert not version_marker("dsav1", ("dsa", "v1")) and not version_marker("v0.23.0")
    for first in (week(2026, 34), week(2026, 22), week(2026, 17)):
        lines, _items = lines_of(first, 7)
        for line in lines:
            assert not version_marker(line.key) and line.name.casefold() not in ("v1", "v2")
    lines, _items = lines_of(week(2026, 34), 7)
    assert not [s for s in lines if len(numbers(s) & {13946, 14198, 14200, 14375}) > 1]


def test_a_pair_led_by_the_titles_verb_names_no_line():
    """2026-W34: "Remove MiniMax" (four deletions of MiniMax-M2 patches) read as MiniMax support
    dropped, the week MiniMax M3 support came (#14412)."""
    assert title_verb("[Refactor] Remove MiniMax-M2 fp8 dequant load_weights patch") == "remove"
    assert title_verb("[Doc]add Qwen3.8 tutorial to navigation (#14348)") == "add"
    lines, items = lines_of(week(2026, 34), 7)
    verbs = {title_verb(i.title) for i in items.values()}
    assert "remove" in verbs and "support" in verbs
    for line in lines:
        first = line.name.split()[0].casefold()
        assert first not in {"remove", "support", "add", "fix"}, line.name
    # a name a title starts with, written as a name, still names its line (DeepSeek V4, MRV2 —
    # or the profile's topic of it, "MRV2 (Model Runner V2)")
    names = {s.name for s in lines}
    assert "DeepSeek V4" in names and any(n.startswith("MRV2") for n in names)


def test_a_line_of_removals_alone_is_part_of_the_windows_removals():
    """2026-W34: the MiniMax-M2 patch deletions belong with the removal of FlashComm v1 and the
    all_to_all patch (patches dropped for upstream code): one line, its name a term of it; the
    MiniMax M3 support (#14412) stays out, and a line of more than removals keeps its own
    (DeepSeek V4 keeps #13242, "Remove compress attention manager for DeepSeek V4")."""
    lines, items = lines_of(week(2026, 34), 7)
    (out,) = [s for s in lines if numbers(s) & {13782}]
    # (the removals line, or the profile's topic of patches removed for upstream code)
    assert out.key == "removals" or out.key.startswith("topic:")
    assert {13782, 13789, 13800, 13992, 12923} <= numbers(out)
    assert 14412 not in numbers(out)
    if out.key == "removals":
        assert "MiniMax-M2" in out.terms and 13946 in numbers(out)
    assert not [s for s in lines if s.key in ("minimaxm2", "removeminimax")]
    (dsv4,) = [s for s in lines if s.name == "DeepSeek V4"]
    assert 13242 in numbers(dsv4)
    # every change of the line takes something out, by its title, and so does #13946's line
    (flashcomm,) = [s for s in lines if 13946 in numbers(s)]
    assert all(takes_out(items[n]) for n in numbers(out) | numbers(flashcomm))


def test_a_days_rare_word_in_three_changes_of_one_area_is_its_line():
    """2026-06-10: three fixes of speculative decoding write "draft" (draft tokens rejected in
    the sampler, a draft model's deepcopy crash, a dense draft model taken for MoE), told under
    three directories: a line of the area they share, with the day's other code changes whose
    main area it is (#10205, the MTP sync fix)."""
    lines, _items = lines_of(date(2026, 6, 10), 1)
    (line,) = [s for s in lines if numbers(s) & {10043, 10241, 10266}]
    assert {10043, 10241, 10266, 10205} <= numbers(line)
    assert line.key == "module:speculative-decoding" and line.evidence == "module"
    # 2025-12-18: "fused" of "fused_qkvzba_split_reshape", "FUSED_MC2" and "fused alltoall" is
    # pieces of three identifiers, no shared subject
    lines, _items = lines_of(date(2025, 12, 18), 1)
    assert not [s for s in lines if s.evidence == "module"]


def test_the_ci_reworked_over_several_big_changes_is_a_line_and_a_weeks_tweaks_are_not():
    """2026-W34: precise test selection (#14650, +1,158/-507), a weekly workflow for A3-560T,
    the rerun strategy, PR test selection, job cancelling — CI tooling alone, 2,548 lines in 13
    changes no line took, told nowhere; told after the lines of the code."""
    lines, items = lines_of(week(2026, 34), 7)
    (ci,) = [s for s in lines if 14650 in numbers(s)]
    assert ci.evidence == "module" and ci.lead == 14650
    assert {14298, 14552, 14724, 14725, 14752} <= numbers(ci)
    assert all(r.role in ("ci", "test") for r in ci.items)
    assert lines.index(ci) > min(i for i, s in enumerate(lines) if s.name == "DeepSeek V4")
    # one big CI change and its tweaks (2025-W50: 1,767 of 1,808 lines; 2026-W13: 695 of 780)
    # or a week of small tweaks (2026-W22) is no line
    for first in (week(2025, 50), week(2026, 13), week(2026, 22)):
        lines, items = lines_of(first, 7)
        assert not [
            s for s in lines if all(r.role in ("ci", "test") for r in s.items) and len(s.items) > 3
        ], first


def test_pins_of_the_upstream_main_by_the_day_are_dates_not_a_version():
    """2025-W52 read "vLLM 12.27 版本同步": its pins went "update to vllm 12-19", "Update vllm
    pin to 12.24" … "12.27" — dates of vLLM's main branch. A release stays a release."""
    lines, _items = lines_of(week(2025, 52), 7)
    (up,) = [s for s in lines if s.key == "upgrades"]
    assert up.name == "vLLM main to 12-27"
    assert _upgrade_name([_item(5223)]) == "vllm main to 12-19"  # "update to vllm 12-19"
    # one dotted pin alone, two versions, a three-part version or a version beside: no dates
    assert _main_dates(["12.27"]) == "" and _main_dates(["2.10", "2.11"]) == ""
    assert _main_dates(["8.5.0"]) == "" and _main_dates(["12-19", "v0.13.0"]) == ""
    assert _main_dates(["12.30", "12.31", "01-02"]) == "01-02"  # over new year
    lines, _items = lines_of(week(2026, 26), 7)
    (up,) = [s for s in lines if s.key == "upgrades"]
    assert up.name == "vLLM v0.23.0"
