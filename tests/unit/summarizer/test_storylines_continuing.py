"""A line of work that goes on for weeks, and lines named after what they are about (a reader's
findings on 2026-W27 and 2026-01-23, issue #15): a name the previous window worked on qualifies
with three changes however usual its rate, under its long name or its acronym; a plain word that
merely goes on does not; a line of shared files is named after the file when its titles share
only one change's words; a pair read inside different identifiers is no name. Real windows of
the vllm-ascend history (skipped where ../shared/data is absent, failing in CI)."""

from __future__ import annotations

from datetime import date, timedelta

from services.summarizer.domain.storylines import (
    enclosing_identifier,
    file_line_name,
    find_storylines,
    one_change_phrase,
)
from tests.unit.summarizer.test_storylines_real_windows import (
    UPGRADE_MODULES,
    _history,
    _item,
    _merged_between,
    lines_of,
    numbers,
    week,
)


def _line_of(lines, number: int):
    return next((line for line in lines if number in numbers(line)), None)


def test_a_name_the_previous_window_worked_on_is_a_line_at_its_usual_rate():
    # 2026-W27: "Support dsv4 mtp graph", "DSV4 prefix cache hit rate optimize", "fix act fn in
    # dsv4" — 3 of 115, the history's usual rate for DeepSeek-V4; W26 named it in a title
    # ("Standardize DeepSeek-V4-Flash and DeepSeek-V4-Pro …") and in what two descriptions say
    lines, _items = lines_of(week(2026, 27), 7)
    line = _line_of(lines, 11062)
    assert line is not None, [(s.name, sorted(numbers(s))) for s in lines]
    assert line.key == "deepseekv4" and line.name == "DeepSeek-V4"  # (the long form names it)
    assert {11062, 11107, 11184} <= numbers(line)
    assert line.status == "continuing"


def test_the_same_three_changes_after_a_quiet_window_are_no_line():
    # (negative) the W27 changes with the previous window of a quiet stretch (2026-W19, no
    # DeepSeek-V4 at all): three at the history's rate are no surprise, and nothing goes on
    current = [i for i in _merged_between(week(2026, 27), week(2026, 27) + timedelta(days=6))]
    quiet = [i for i in _merged_between(week(2026, 19), week(2026, 19) + timedelta(days=6))]
    counts, history = _history()
    lines = find_storylines(
        [i for i in current if not i.bot],
        [i for i in quiet if not i.bot],
        counts,
        history,
        upgrade_modules=UPGRADE_MODULES,
    )
    assert not {"dsv4", "deepseekv4"} & {s.key for s in lines}


def test_a_generic_word_that_goes_on_is_no_line():
    # 2026-W02: "KV Cache" is in three titles and in W01's titles and descriptions, yet it is an
    # area of the code, not a line of work: the doc "PD-Colocated … KV Cache reuse" stays P/D's
    lines, _items = lines_of(week(2026, 2), 7)
    assert "kvcache" not in {s.key for s in lines}
    pd = _line_of(lines, 5540)
    assert pd is not None and 5415 in numbers(pd)


def test_a_revert_and_its_change_do_not_make_a_continuing_line():
    # 2026-W27: "MC2" in three titles, one a revert of another ("Simplify MC2 capacity …")
    lines, _items = lines_of(week(2026, 27), 7)
    assert "mc2" not in {s.key for s in lines}


def test_an_acronym_is_a_long_name_only_when_the_history_writes_that_name():
    # 2026-W33: "DSpark acceptance" (W32, two titles) has the initials of "DSA", but the history
    # writes DSA far more often: DSA stays DSA
    lines, _items = lines_of(week(2026, 33), 7)
    keys = {s.key for s in lines}
    assert "dsa" in keys and "dsparkacceptance" not in keys


def test_a_line_of_shared_files_is_named_after_the_file_not_one_change():
    # 2026-W27: four changes of token_dispatcher.py; "Simplify MC2" was one change and its revert
    lines, items = lines_of(week(2026, 27), 7)
    line = _line_of(lines, 10579)
    assert line is not None and line.key == "files:vllm_ascend/ops/fused_moe/token_dispatcher.py"
    assert line.name == "token dispatcher (fused MoE)"
    members = [items[n] for n in (10579, 10749, 11155, 11415)]
    assert one_change_phrase(members, "Simplify MC2")
    # (negative) a pair several changes share that is not their verb keeps naming the line:
    # 2026-W24's build cache changes, "Add ninja incremental build cache …", "Fix … Ninja
    # incremental build …", "Fix Ninja Incremental Build in CI process"
    build = [_item(n) for n in (9890, 10301, 10324, 10367, 10446)]
    assert not one_change_phrase(build, "incremental build")
    w24, _ = lines_of(week(2026, 24), 7)
    assert _line_of(w24, 10301).name.casefold() == "incremental build"
    assert file_line_name("vllm_ascend/platform.py", {}) == "platform"


def test_a_pair_inside_identifiers_names_the_identifier_or_nothing():
    # 2026-01-23: "max num" of max_num_batched_tokens and of --max-num-seqs is two things;
    # "ffn combine" of dispatch_ffn_combine twice is that operator
    assert (
        enclosing_identifier(
            "[bugfix] align max_num_batched_tokens with tp*pcp when using FLASHCOMM1",
            ("max", "num"),
        )
        == "max_num_batched_tokens"
    )
    assert (
        enclosing_identifier("[doc]update --max-num-seqs in Qwen3-235b tutorial", ("max", "num"))
        == "max-num-seqs"
    )
    # (negative) a pair written as words, or an identifier that is the pair, is no fragment
    assert (
        enclosing_identifier("[Fix] Fix estimated_times permission", ("estimated", "times")) is None
    )
    assert enclosing_identifier("Support DeepSeek-V4-Flash", ("deepseek", "v4")) is None
    lines, _items = lines_of(date(2026, 1, 23), 1)
    names = {s.key: s.name for s in lines}
    assert "maxnum" not in names
    assert names.get("ffncombine") == "dispatch ffn combine"
    # 2025-W45: FULL_DECODE_ONLY, written so twice and as full_decode_only once, is the mode
    w45, _ = lines_of(week(2025, 45), 7)
    assert _line_of(w45, 3763).name == "FULL_DECODE_ONLY"
