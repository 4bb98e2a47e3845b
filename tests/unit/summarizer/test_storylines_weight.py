"""Which lines a report tells, and what an upgrade line holds (a reader's findings on 2026-W27,
W16, issue #15): lines are kept by weight, so a line is never left out for a lighter one, and
many changes of one piece of tooling are a line of work; an upgrade line holds the upgrades of
the project it is named after, another project's upgrades a line of their own when there are
enough; the upgrade's own sync words ("main2main") join it when their changes name the project;
a name in a description counts only as what it is about, not a config named in passing. Real
windows of the vllm-ascend history (skipped where ../shared/data is absent, failing in CI)."""

from __future__ import annotations

from services.summarizer.domain.storylines import (
    FILES_WEIGHT,
    name_heads,
    normalise_term,
    upgrade_line,
)
from tests.unit.summarizer.test_storylines_real_windows import lines_of, numbers, week

CHERRY_PICK = {11142, 11156, 11157, 11164, 11189, 11220, 11328, 11339, 11358}
MOONCAKE = {10891, 11366, 10871}  # a bump, its revert, the re-land


def _weight(line) -> float:
    return len(line.items) * (FILES_WEIGHT if line.evidence == "files" else 1.0)


def _aside(line, items) -> bool:
    return all(m.role in ("docs", "ci", "test") for m in line.items)


def test_a_big_line_is_never_left_out_for_a_smaller_one():
    # 2026-W27: the nine changes of the /cherry-pick, /revert and /nightly commands and the KV
    # pool topic were cut while lines of three stayed
    lines, items = lines_of(week(2026, 27), 7)
    tooling = [s for s in lines if numbers(s) & CHERRY_PICK]
    assert len(tooling) == 1 and numbers(tooling[0]) == CHERRY_PICK
    kv = next(s for s in lines if s.key.startswith("topic:kvpool"))
    assert {10393, 11061, 11370} <= numbers(kv)  # (the connector kept in step with vLLM too)
    # the tooling line is told after the lines of work on the code
    assert lines.index(tooling[0]) > max(i for i, s in enumerate(lines) if not _aside(s, items))
    # (negative) over busy weeks, a named line of the code left out weighs no more than the
    # lightest named line of the code kept (a line of shared files weighs 3/4 a change)
    for year, number in ((2026, 27), (2026, 4), (2026, 28), (2026, 30), (2025, 50)):
        kept, items = lines_of(week(year, number), 7)
        every, _ = lines_of(week(year, number), 7, limit=100)
        told = {s.key for s in kept}
        code = [s for s in every if s.evidence != "module" and not _aside(s, items)]
        lightest = min(_weight(s) for s in code if s.key in told)
        for s in code:
            if s.key not in told:
                assert _weight(s) <= lightest, (year, number, s.key)


def test_few_ci_changes_stay_after_the_code():
    # (negative) 2026-W27's two tutorial changes (a docs chain) weigh half: not told over the
    # week's lines of three; a CI line of three changes is no piece of tooling to lead
    lines, items = lines_of(week(2026, 27), 7)
    assert not any(10148 in numbers(s) for s in lines)
    order = [_aside(s, items) for s in lines]
    assert order == sorted(order)


def test_an_upgrade_line_holds_its_own_projects_upgrades():
    lines, items = lines_of(week(2026, 27), 7)
    (up,) = [s for s in lines if s.key == "upgrades"]
    assert up.name.startswith("vLLM")
    # syncs with vLLM: "upgrade vLLM to a30addc", "upgrade vllm to 0619", "main2main 0608", the
    # move to v0.24.0 a description tells ("[CI] main2mian v0.24.0"), and the auto main2main job
    # and its fixes, whose descriptions mostly name vLLM
    assert {10459, 10935, 11081, 11227, 10909, 11359, 11362, 11367} <= numbers(up)
    assert not numbers(up) & MOONCAKE
    assert up.lead in {10459, 10935, 11227}
    (mooncake,) = [s for s in lines if numbers(s) & MOONCAKE]
    assert mooncake.key == "upgrades:mooncake" and upgrade_line(mooncake.key)
    assert numbers(mooncake) == MOONCAKE and mooncake.name.startswith("Mooncake")
    assert mooncake.lead in {10891, 10871}
    # (negative) 2026-W04: a Mooncake bump and its revert, two CANN upgrades — too few for lines
    # of their own, and no vLLM upgrades
    lines, _items = lines_of(week(2026, 4), 7)
    (up,) = [s for s in lines if upgrade_line(s.key)]
    assert up.name.startswith("vLLM")
    assert not numbers(up) & {6110, 6164, 6070, 6145, 6112}
    assert {5988, 6222} <= numbers(up)


def test_a_config_named_in_passing_is_not_what_a_description_is_about():
    heads = normalise_term  # (keys as the terms are)
    said = name_heads("updated with baselines for DeepSeek-V3_2-W8A8-EP and DeepSeek-V3.2-W8A8")
    assert "W8A8" not in said and "DeepSeek-V3.2" in said
    said = name_heads("Adds a check to the nightly test (docs/models/DeepSeek-V4-Flash.md)")
    assert "DeepSeek-V4" not in said  # (a path says where)
    said = name_heads("DeepSeek-V4-Flash or self_attn and indexer_k_cache group")
    assert heads("DeepSeek-V4") in heads(said)
    assert name_heads("310P support W8A8 dynamic linear method") == (
        "310P support W8A8 dynamic linear method"
    )
    # 2026-W16: three titles writing w8a8 ("w8a8_static", "DeepSeek-R1-W8A8-HBM test", "w8a8
    # dispatch ffn combine") are no line that goes on: W15 named W8A8 in one title and in two
    # nightly configs' names ("DeepSeek-V3_2-W8A8-EP")
    lines, _items = lines_of(week(2026, 16), 7)
    assert "w8a8" not in {s.key for s in lines}
    # (positive) 2026-W27's DeepSeek-V4 still goes on from W26 (a title and a description about
    # "DeepSeek-V4-Flash")
    lines, _items = lines_of(week(2026, 27), 7)
    assert any(s.key == "deepseekv4" and s.status == "continuing" for s in lines)
