"""Fixes the readers saw go untold (issue #15, 2026-W34 and the day 2026-06-10): a fix that names
no change but follows one of its files within 48 hours and names the change's subject in its title
("Support DSV4 Dspark" #12968, then "Fix DSpark spec decoding on model runner v2" #14696 the next
day, dsa_v1.py); a description that says a change is rolled back ("the content of #9656 is rolled
back", #10205) or that a change introduced what it fixes. Real titles, bodies, files and merge
gaps; negatives: a logging change followed by an unrelated fix of one of its files (#10201 then
#10043), a fix opened before the change (#11929 before #12662), a typo fix of a new example (#6221
then #7199)."""

from __future__ import annotations

from dataclasses import replace

from services.summarizer.domain.report import ItemRow

from .summarizer_builders import Scenario, window_input
from .test_summarizer_explained import NOW, WEEK, build_summary
from .test_summarizer_fix_burst import FILLER, summarize
from .test_summarizer_fixup_refs import chains, gap, real
from .test_summarizer_line_kinds import snap_tags


def summarize_with(items, **extra):
    events = Scenario(items=list(items)).events()
    return build_summary(window_input(events, WEEK, **extra), now=NOW)


def test_a_fix_soon_after_a_change_of_its_files_naming_its_subject_fixes_it():
    s = summarize([*FILLER, real(12968, 0.3, ("feature",)), real(14696, 0.3 + gap(12968, 14696))])
    assert chains(s)[(12968, 14696)] == ("added", "fixed")


def test_a_fix_of_a_file_a_change_touched_on_another_subject_fixes_nothing():
    s = summarize([*FILLER, real(10201, 0.3), real(10043, 0.3 + gap(10201, 10043))])
    assert (10201, 10043) not in chains(s)


def test_a_fix_opened_before_the_change_fixes_nothing():
    s = summarize([*FILLER, real(12662, 0.3, ("feature",)), real(11929, 0.3 + gap(12662, 11929))])
    assert not any({12662, 11929} <= set(c) for c in chains(s))


def test_a_typo_fix_soon_after_a_change_fixes_nothing():
    s = summarize([*FILLER, real(6221, 0.3, ("documentation",)), real(7199, 0.3 + gap(6221, 7199))])
    assert (6221, 7199) not in chains(s)


def test_a_change_a_description_says_is_rolled_back_is_reverted():
    # #10205 "Fix MTP copy_valid_sampled_token_count sync": "the content of #9656 is rolled back"
    s = summarize([*FILLER, real(9656, 0.2, ("performance",)), real(10205, 0.2 + 5)])
    (rev,) = [i for i in s.incidents if i.kind == "revert"]
    assert rev.items[:2] == (10205, 9656)


def test_a_change_said_to_have_introduced_the_problem_is_fixed_whenever_merged():
    # #3675 "[BugFix][Core] Fix a bug running multi-modal with ascend_scheduler": "This bug was
    # introduced by PR #2372", merged a month before (the store brings it as a referenced item)
    snap, tags = snap_tags(2372)
    old = {2372: ItemRow(snapshot=snap, tags=tags, first_seen=snap.created_at)}
    s = summarize_with([*FILLER, real(3675, 0.4)], referenced=old)
    assert chains(s)[(2372, 3675)] == ("added", "fixed")
    # the same change named in passing, with no cause, is no fix of so old a change
    said = real(3675, 0.4)
    plain = replace(said, body=said.body.replace("introduced by", "see also"), digest=None)
    assert (2372, 3675) not in chains(summarize_with([*FILLER, plain], referenced=old))


def test_a_fix_driven_by_an_issue_it_names_fixes_no_change_of_its_files():
    # 2025-W52: #5196 "[Bugfix] Implement multimodal_cpu_fields in model runner", "Related to
    # https://github.com/vllm-project/vllm-ascend/issues/4084", 45 hours after #4501 "Add async
    # exponential while model executing" (model_runner_v1.py, "model"): a fix of the issue it
    # names, not of #4501
    s = summarize([*FILLER, real(4501, 0.3, ("performance",)), real(5196, 0.3 + gap(4501, 5196))])
    assert (4501, 5196) not in chains(s)


def test_a_fix_naming_only_a_common_topic_word_of_the_change_fixes_nothing():
    # 2026-W02: #5647 "[bugfix (pcp)] fix chunked prefill accurancy issue", 46 hours after #5456
    # "MLA prefill preformance optimization" (both pcp_utils.py), says nothing of it: "prefill"
    # is in 69 of vllm-ascend's 4,734 titles, a topic and not the thing #5456 changed
    pair = [*FILLER, real(5456, 0.3, ("performance",)), real(5647, 0.3 + gap(5456, 5647))]
    common = summarize_with(pair, term_counts={"prefill": 69}, history_items=4734)
    assert (5456, 5647) not in chains(common)
    # a word that few titles carry names the thing (the positive: the same pair, "prefill" rare)
    rare = summarize_with(pair, term_counts={"prefill": 3}, history_items=4734)
    assert chains(rare)[(5456, 5647)] == ("added", "fixed")
