"""How much of a change lies where (shares.py, applied by the rule set): a module that file
paths alone give counts only when its files are a real part of the change, and a CI kind means a
change whose lines are mostly CI, build, test or docs configuration. Real vllm-ascend pull
requests of 2026-W13 with their per-file additions and deletions, read in place from the history
file (real_prs_w13.py), the real vllm-ascend profile."""

from __future__ import annotations

import json

import pytest

from services.classifier.cli import load_ruleset, parse_item
from services.classifier.domain.shares import CI_SHARE, INCIDENTAL_LINES, INCIDENTAL_SHARE
from tests.conftest import history_prs

from .real_prs_w13 import W13_NUMBERS, item_json


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset("vllm-ascend")


def classify(ruleset, number: int, *, counts: bool = True):
    line = item_json(number)
    if not counts:  # a source without per-file counts: paths only
        obj = json.loads(line)
        obj["files"] = [f["path"] for f in obj["files"]]
        line = json.dumps(obj)
    trace: dict[str, str] = {}
    tags = ruleset.classify(parse_item(line), trace)
    return tags, trace


def names(tags_section) -> list[str]:
    return [t.name for t in tags_section]


def test_a_lint_batch_is_not_a_change_of_each_area_it_touches_one_line_of(ruleset):
    # real #7511: 396 lines, 2 in a mooncake backend, 2 in quantization, 2 in a models test,
    # 4 in the model loader, 21 in kernels (5 %); its title says [Lint]
    tags, trace = classify(ruleset, 7511)
    assert names(tags.modules) == ["ci/build"]
    assert "kv-transfer (2 of 396 changed lines)" in trace["modules:incidental"]
    # without per-file counts nothing is weighed: today's modules
    tags, _ = classify(ruleset, 7511, counts=False)
    assert {"ci/build", "kv-transfer", "quantization", "kernels"} <= set(names(tags.modules))


def test_a_module_whose_files_are_a_real_part_stays_whatever_gave_the_others(ruleset):
    # real #7557 (revert of GMM, 101 lines): moe 59, kernels 61, platforms 40 (40 %): all real
    tags, _ = classify(ruleset, 7557)
    assert names(tags.modules) == ["moe", "kernels", "platforms"]
    # real #7506: v1-engine from model_runner_v1.py, 6 of 15 lines; the title gives the rest
    tags, _ = classify(ruleset, 7506)
    assert names(tags.modules) == ["kv-transfer", "compilation/graphs", "models", "v1-engine"]
    # real #7510: config from ascend_config.py, 2 of 24 lines (8 %) goes; moe and kernels
    # (fused_moe.py, 6 lines, 25 %) stay beside upstream-sync, which the title gives
    tags, trace = classify(ruleset, 7510)
    assert names(tags.modules) == ["upstream-sync", "moe", "kernels"]
    assert "config (2 of 24 changed lines)" in trace["modules:incidental"]


def test_a_change_of_one_module_keeps_it_whatever_its_size(ruleset):
    # real #7574: 8 lines in one file of compilation/ ("Add npugraph_ex enablement logging")
    tags, trace = classify(ruleset, 7574)
    assert names(tags.modules) == ["observability", "compilation/graphs"]
    assert "modules:incidental" not in trace


def test_the_thresholds_are_a_tenth_of_the_lines_or_fifty(ruleset):
    from services.classifier.domain.shares import incidental

    class T:
        def __init__(self, name: str) -> None:
            self.name = name

    a, b, c = T("a"), T("b"), T("c")
    files = {"a": ["a.py"], "b": ["b.py"], "c": ["c.py"]}
    counts = {"a.py": 900, "b.py": 49, "c.py": 51}  # b: 4.9 % and 49 lines; c: 51 lines
    kept, left = incidental([a, b, c], counts, lambda t: files[t.name])  # type: ignore[list-item]
    assert [t.name for t in kept] == ["a", "c"] and left == {"b": 49}
    assert INCIDENTAL_LINES == 50 and INCIDENTAL_SHARE == 0.10
    # every module small: the heaviest is the change's area
    counts = {"a.py": 5, "b.py": 7, "c.py": 6, "d.py": 200}
    kept, _ = incidental([a, b, c], counts, lambda t: files[t.name])  # type: ignore[list-item]
    assert [t.name for t in kept] == ["b"]
    # a module a title gave (no files) always stays
    kept, _ = incidental([a, b], counts, lambda t: None if t.name == "a" else files[t.name])  # type: ignore[list-item]
    assert [t.name for t in kept] == ["a"]


@pytest.mark.parametrize("number", [7478, 7510, 7551])
def test_a_main2main_adaptation_of_source_code_is_code_not_ci(ruleset, number):
    # "Main2main Upgrade vllm commit to …": a pinned commit moved in five workflows and a docs
    # table, and vllm_ascend/ adapted to the upstream (a third of the lines or more)
    tags, trace = classify(ruleset, number)
    assert "upstream-sync" in names(tags.modules)
    assert "platform-ci" not in names(tags.categories)
    assert "no CI kind" in trace["categories:ci-share"]


def test_ci_kinds_of_the_310p_line_hold_only_for_its_ci_change(ruleset):
    # 2026-W13's 310P line: "3 CI changes" where only #7761 (a model list of the CI) is one
    tags, _ = classify(ruleset, 7761)
    assert "platform-ci" in names(tags.categories)
    for number in (7424, 7533, 7398):  # ops, a patch, a kernel with its unit tests
        tags, _ = classify(ruleset, number)
        assert "platform-ci" not in names(tags.categories), history_prs()[number]["title"]


def test_lint_hooks_stay_ci_and_the_share_is_by_files_without_counts(ruleset):
    # real #7511: tools/, .pre-commit-config.yaml, .clang-format, workflows: 92 % configuration
    tags, _ = classify(ruleset, 7511)
    assert "platform-ci" in names(tags.categories)
    assert CI_SHARE == 0.75
    # without per-file counts the files decide: #7510 has 6 of 8 files in .github/ and docs/
    # (75 %): CI, as before
    tags, _ = classify(ruleset, 7510, counts=False)
    assert "platform-ci" in names(tags.categories)


def test_the_same_item_gets_the_same_tags_every_time(ruleset):
    first = [classify(ruleset, n)[0] for n in W13_NUMBERS]
    again = load_ruleset("vllm-ascend")
    assert [classify(again, n)[0] for n in W13_NUMBERS] == first
