"""A risk tag needs its evidence (issue #15 item 4), on REAL pull requests of the vllm-ascend
history (../shared/data/vllm-ascend-history, read in place):

- a word the title mentions is a hint: a risk a keyword alone fired is low whatever its rule's
  severity, unless a second signal of another kind (its files, the author, a statement of the
  description) fires the same rule;
- a change of log or print statements, comments or docstrings alone (`Profile.quiet_titles`,
  small, no CI or build file) carries no behaviour risk;
- "update X to …" is a dependency bump only with a version after it.
"""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from shared.events import FileChange, Tags
from tests.conftest import require_shared_data

from .factory import builtin
from .test_classifier_real_history import to_item

pytestmark = pytest.mark.shared_data


@lru_cache(maxsize=1)
def rows() -> dict[int, dict]:
    path = require_shared_data("vllm-ascend-history", "merged_prs_with_bodies.jsonl")
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["pr_number"]] = row
    return out


@lru_cache(maxsize=1)
def ruleset():
    return builtin("vllm-ascend")


def tags_of(number: int, **change) -> Tags:
    item = to_item(rows()[number])
    if change:
        item = item.model_copy(update=change)
    return ruleset().classify(item)


def risks(tags: Tags) -> dict[str, tuple[str, str]]:
    return {r.name: (r.severity, r.rule) for r in tags.risks}


# -- a keyword alone stays low


def test_a_security_word_alone_is_no_high_risk():
    # "Sanitize MTP placeholders": spec-decode tensors, not input sanitization
    got = risks(tags_of(10307))
    assert got["security-sensitive"] == ("low", "risk:security-sensitive/keyword")


def test_a_security_word_with_a_security_file_stays_high():
    row = rows()[10307]
    files = (FileChange(path="vllm_ascend/auth/token_check.py", additions=20, deletions=2),)
    got = risks(tags_of(10307, files=files, additions=None, deletions=None))
    assert got["security-sensitive"] == ("high", "risk:security-sensitive/keyword")
    assert row["title"].startswith("[BugFix][SpecDecode] Sanitize")


def test_breaking_in_a_title_about_ci_is_low():
    # "skip failure breaking CI": the CI broke, not an interface
    got = risks(tags_of(990))
    assert got["breaking-change"] == ("low", "risk:breaking-change/keyword")


def test_a_graph_word_with_compilation_files_stays_medium():
    # "Remove sync for PIECEWISE" changes vllm_ascend/compilation/: the files corroborate
    got = risks(tags_of(9025))
    assert got["graph-capture"] == ("medium", "risk:graph-capture/keyword")


def test_a_graph_word_without_graph_files_is_low():
    # "[BugFix] Fix aclgraph accu problem in A2.": no compilation or graph file changed
    got = risks(tags_of(3163))
    assert got["graph-capture"] == ("low", "risk:graph-capture/keyword")


def test_a_title_prefix_is_the_authors_statement_and_keeps_its_severity():
    # "[Graph]" is how the author filed the change, not a word it happens to use
    got = risks(tags_of(2707))
    assert got["graph-capture"] == ("medium", "risk:graph-capture/title-prefix")


def test_no_risk_of_the_history_reaches_above_low_on_a_word_alone():
    """Over all 4,734 changes: every risk a title keyword fired above low has files (of its own
    rule) behind it, and none of them is high."""
    rs = ruleset()
    seen = above_low = 0
    for row in rows().values():
        item = to_item(row)
        v = rs.view(item)
        for risk in rs.classify(item).risks:
            if not risk.rule.endswith("/keyword"):
                continue
            seen += 1
            if risk.severity == "low":
                continue
            above_low += 1
            assert risk.severity != "high", (row["pr_number"], risk)
            match = next(m for r, m in rs.risks if r.name == risk.name)
            assert v.file_facts.files_hit(match, None, None) is not None, row["pr_number"]
    assert seen > 250 and above_low > 20


# -- only logging, comments or docstrings


def test_only_adding_log_lines_carries_no_behaviour_risk():
    # "[Feat] Add npugraph_ex enablement logging", +5/-3 in compilation/compiler_interface.py
    assert risks(tags_of(7574)) == {}
    # "[BugFix][P/D] Lower Mooncake KV metadata mismatch log level", +3/-3
    assert risks(tags_of(13542)) == {}
    # "[Refactor] Add comments for Metadata classes in attention module": core files, comments
    assert risks(tags_of(5789)) == {}


@pytest.mark.parametrize(
    "number, kept",
    [
        (3505, "core-change"),  # "fix logging and d2h bug for flash comm1": a second change
        (7186, "core-change"),  # "add a check before layer_sharding logging": the check is new
        (2024, "code-without-tests"),  # "[Misc] Fix logger bug"
        (1112, "interface-change"),  # "Fix typo of VLLM_ASCEND_ENABLE_TOPK_OPTIMIZE": a rename
        (10306, "interface-change"),  # "[Logger] Add file logging with daily rotation …", 241 lines
        (2092, "ci-build-change"),  # "Add reminder comment when PR submitted": a CI bot's comment
    ],
)
def test_a_logging_word_is_not_enough(number, kept):
    assert kept in risks(tags_of(number))


def test_a_log_title_over_the_size_limit_keeps_its_risks():
    # "[Misc][Ops]add trion ops log": 209 lines in 17 files, over quiet_lines
    row = rows()[10069]
    assert sum(f["additions"] + f["deletions"] for f in row["files"]) > ruleset().quiet_lines
    assert "code-without-tests" in risks(tags_of(10069))


# -- dependency bumps


@pytest.mark.parametrize("number", [11294, 9843, 85])
def test_update_without_a_version_is_no_dependency_bump(number):
    # "Update num_layers to include MTP/spec-decode draft layers", "update discard_request_mask
    # to fix …", "Update doc to work with release"
    assert "dependency-bump" not in risks(tags_of(number))


@pytest.mark.parametrize("number", [6222, 6452, 528, 11914, 12427, 10891])
def test_a_version_bump_stays_a_dependency_bump(number):
    # "[CI] update vLLM to 0.14.1", "Update doctest from 0.9.1 to 0.13.0", "update 0.8.3 to
    # 0.8.4", "Update torch_npu to 2.10.0.post2.", "Upgrade vllm to v0.25.1", "Bump Mooncake to …"
    assert risks(tags_of(number))["dependency-bump"][0] == "low"
