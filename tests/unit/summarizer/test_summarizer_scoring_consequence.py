"""Key PRs by consequence before size (2026-03-24): a change whose object is logging, lint,
formatting or typos ranks low whatever its [Feat] tag says; a fix of wrong output, accuracy, NaN,
a crash, a hang or a deadlock (its title says so, or its description's symptom sentence) ranks
above them. Real vllm-ascend pull requests, tagged by the real vllm-ascend profile."""

from __future__ import annotations

import json

import pytest

from services.classifier.cli import load_ruleset, parse_item
from services.summarizer.domain.report import (
    ReportPolicy,
    fixes_severe,
    is_minor,
    key_reasons,
    score_pr,
)
from tests.unit.classifier.real_prs_w13 import item_json


@pytest.fixture(scope="module")
def classified():
    ruleset = load_ruleset("vllm-ascend")

    def run(number: int):
        snap = parse_item(item_json(number))
        return snap, ruleset.classify(snap)

    return run


def test_fixes_of_nan_and_a_dead_connector_outrank_a_log_line_and_lint_hooks(classified):
    scores = {}
    for n in (7574, 7511, 7506, 7514):
        snap, tags = classified(n)
        scores[n], signals = score_pr(snap, tags, ReportPolicy())
        names = {s.name for s in signals}
        if n in (7574, 7511):
            assert "minor" in names and "severe_fix" not in names
            assert "feature" not in key_reasons(snap, tags, signals)  # no "new feature"
        else:
            assert "severe_fix" in names and "minor" not in names
    assert min(scores[7506], scores[7514]) > max(scores[7574], scores[7511])


@pytest.mark.parametrize(
    "title,minor",
    [
        ("[Feat] Add npugraph_ex enablement logging", True),  # real #7574: its object
        (  # real #7511: its [Lint] tag
            "[Lint]Add lint hooks for clang-format, shellcheck, forbidden imports, and boolean "
            "context manager checks",
            True,
        ),
        ("[Misc] Add debug logging probes for speculative decoding diagnostics", True),  # #11123
        # a data format, a utility that prints from graphs: the feature is something else
        ("[Performance] Support NZ format for w4a8 MoE of compressed tensor", False),  # #9625
        ("[Feature][Quant] Auto-detect quantization format from model files", False),  # #6645
        ("[Feat] Adds a utility for printing from within ACL graphs", False),  # #4162
    ],
)
def test_a_feature_is_minor_when_logging_lint_or_formatting_is_what_it_adds(title, minor):
    assert is_minor(_snap(title), ["feature"]) is minor


def test_a_change_that_is_no_feature_is_minor_when_its_title_names_logging_at_all():
    assert is_minor(_snap("lower log level in PD Disaggregation"), [])  # real #7589
    assert not is_minor(_snap("[Bugfix] Fix AscendStore parent-hash chain"), ["bugfix"])


def test_a_fix_is_severe_by_its_title_or_its_symptom_sentence(classified):
    for n in (7506, 7514):  # NaN values (symptom and "accuracy"), a connector gone dead
        snap, tags = classified(n)
        assert fixes_severe(snap, tags)
    snap, tags = classified(7574)  # a [Feat]: no fix
    assert not fixes_severe(snap, tags)
    plain = _snap("[Bugfix] Fix AscendStore parent-hash chain")  # real #12012
    _, tags = classified(7514)
    assert not fixes_severe(plain, tags.model_copy(update={"digest": None}))
    dead_code = _snap("[Misc] Remove dead code in attention")
    assert not fixes_severe(dead_code, tags.model_copy(update={"digest": None}))


def _snap(title: str):
    return parse_item(json.dumps({"number": 1, "title": title}))
