"""What makes a line of work beyond a shared word, on real vllm-ascend titles: a day's two changes
need a specific name or shared code (2025-12-18: "MLP" joined a unit test and a feature); the
parts of a series join by their place and their code (2025-W51's attention refactor, 3/N and
4/N); a module's leftovers that change the same files are a theme, ranked as one."""

from __future__ import annotations

from dataclasses import replace

from services.summarizer.domain.storylines import find_storylines
from tests.unit.summarizer.test_storylines import COUNTS, FILLER, HISTORY, it


def numbers(line) -> set[int]:
    return {m.number for m in line.items}


def test_a_days_two_changes_sharing_a_word_and_nothing_else_are_no_line():
    """Real #5036 (a unit test of moe_mlp's helper) and #4999 (dense-FFN tensor parallel) share
    only "mlp": no line of work; two changes of one file under a rare name are."""
    day = FILLER[:15]
    test_and_feature = [
        it(
            5036,
            "[UT]Ut for function cumsum_group_list  in moe_mlp (ref #5025)",
            files=("tests/ut/ops/test_moe_mlp.py",),
        ),
        it(
            4999,
            "[Feat] Support MLP_TP feature, exclude MOE layer",
            day=1.2,
            files=("vllm_ascend/distributed/parallel_state.py", "vllm_ascend/ops/linear_op.py"),
        ),
    ]
    assert find_storylines(day + test_and_feature, [], COUNTS, len(HISTORY)) == []
    # the same word and no shared file, no reference: no line either, the test aside
    feature_and_fix = [
        replace(
            test_and_feature[0],
            title="[Bugfix] Fix moe_mlp cumsum_group_list precision",
            files=("vllm_ascend/ops/moe/moe_mlp.py",),
        ),
        test_and_feature[1],
    ]
    assert find_storylines(day + feature_and_fix, [], COUNTS, len(HISTORY)) == []
    # ... and one when both change the same specific code
    shared = [
        replace(feature_and_fix[0], files=("vllm_ascend/ops/linear_op.py",)),
        feature_and_fix[1],
    ]
    (line,) = find_storylines(day + shared, [], COUNTS, len(HISTORY))
    assert numbers(line) == {5036, 4999} and line.name == "MLP"


def test_the_parts_of_a_series_join_by_their_tags_count_and_code():
    """2025-W51: "[Refactor]3/N Refactor mla_v1.py & extract mla_cp" and "[Refactor] 4/N
    Distinguish the branches …" share no word but their [Refactor], their "/N" and the attention
    code; "[Refactor][EAGLE] 1/N delete __init__ in mtp_proposer" is another series."""
    parts = [
        it(
            4933,
            "[Refactor]3/N Refactor mla_v1.py & extract mla_cp",
            day=1,
            files=("vllm_ascend/attention/mla_cp.py", "vllm_ascend/attention/mla_v1.py"),
        ),
        it(
            5081,
            "[Refactor] 4/N Distinguish the branches based on the applicable scenarios of "
            "PA and FIA Ops.",
            day=3,
            files=("vllm_ascend/attention/attention_v1.py", "vllm_ascend/attention/utils.py"),
        ),
        it(
            5176,
            "[Refactor][EAGLE] 1/N delete __init__ in mtp_proposer",
            day=2,
            files=("vllm_ascend/spec_decode/mtp_proposer.py",),
        ),
    ]
    lines = find_storylines(FILLER + parts, [], COUNTS, len(HISTORY))
    (series,) = [s for s in lines if numbers(s) & {4933, 5081}]
    assert numbers(series) == {4933, 5081}
    assert not any(5176 in numbers(s) for s in lines)
    # the same [Tag] and count, but code in two places: two series
    apart = [parts[0], replace(parts[1], files=("vllm_ascend/spec_decode/eagle_proposer.py",))]
    lines = find_storylines(FILLER + apart, [], COUNTS, len(HISTORY))
    assert not any(numbers(s) == {4933, 5081} for s in lines)


def test_titles_the_same_but_for_their_batch_are_one_series():
    """2026-01: "[Lint]Style: Convert `vllm-ascend/` to ruff format(Batch #2)", "(Batch #3)";
    "tidy part1" (a name, not a place) is none."""
    batches = [
        it(
            5977 + i,
            f"[Lint]Style: Convert `vllm-ascend/` to ruff format(Batch #{i + 2})",
            day=i,
            files=(f"vllm_ascend/pkg{i}/a.py",),
        )
        for i in range(2)
    ]
    lines = find_storylines(FILLER + batches, [], COUNTS, len(HISTORY))
    assert [numbers(s) for s in lines if numbers(s) & {5977, 5978}] == [{5977, 5978}]
    glued = [it(1, "[Misc] tidy part1"), it(2, "[Misc] tidy part2", day=2)]
    assert find_storylines(FILLER + glued, [], COUNTS, len(HISTORY)) == []


def test_a_modules_leftovers_that_share_files_rank_as_a_theme_above_a_small_word_line():
    """2025-W51: seven changes to speculative decoding (eagle and MTP proposers, the rejection
    sampler) that no named line took ranked after "PP", three fixes sharing a word ("DBO" here:
    a word of two letters names no line); leftovers that mostly change files another of them
    changes weigh as a line of shared files. A module's leftovers of unrelated files keep half
    the weight."""
    spec = [
        it(
            4893,
            "[Feat] Support async_scheduler and disable_padded_drafter_batch in eagle",
            files=("vllm_ascend/spec_decode/eagle_proposer.py",),
        ),
        it(
            5131,
            "[BugFix] Fix top_p,top_k issue with EAGLE and add top_p,top_k in EAGLE e2e",
            day=2,
            files=("vllm_ascend/spec_decode/eagle_proposer.py", "vllm_ascend/sample/s.py"),
        ),
        it(4975, "[Feat] Refactor rejection sampler", day=3, files=("vllm_ascend/sample/s.py",)),
        it(
            5046,
            "[Bugfix] Fix DeepSeek FIA error in async_scheduling with mtp",
            day=4,
            files=("vllm_ascend/spec_decode/mtp_proposer.py",),
        ),
        it(
            4947,
            "[bugfix] Fix dummy-run and multi-node issues in MoE routing and MTP",
            day=5,
            files=("vllm_ascend/spec_decode/mtp_proposer.py",),
        ),
    ]
    spec = [replace(i, modules=("speculative-decoding",)) for i in spec]
    words = [
        it(4913 + i, f"[Bugfix] Fix DBO {w}", day=i, files=(f"vllm_ascend/pp/f{i}.py",))
        for i, w in enumerate(("intermediate values", "get bug", "shared weight domain"))
    ]
    lines = find_storylines(FILLER + spec + words, [], COUNTS, len(HISTORY))
    keys = [s.key for s in lines]
    assert keys.index("module:speculative-decoding") < keys.index("dbo"), keys
    # the same leftovers, each in a file of its own: a bucket, told after the named line
    scattered = [replace(i, files=(f"vllm_ascend/spec_decode/x{i.number}.py",)) for i in spec]
    lines = find_storylines(FILLER + scattered + words, [], COUNTS, len(HISTORY))
    keys = [s.key for s in lines]
    assert keys.index("dbo") < keys.index("module:speculative-decoding"), keys
