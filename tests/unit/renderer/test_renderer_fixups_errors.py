"""A change's quick fix-ups told as a chain with their time (2025-W51: "#4993 … needed 4 fix-ups
within 53 hours: #5093, #5122, #5136 and #5165"), and a day's problems worth attention that
hold fixes of errors users hit, after the grave ones (2025-12-18 said "none" beside #4973's
assert error with PP + PD, #5147's "no attr" error and #5165's enable_force_load_balance
failure); CI and test fixes are not user problems. Real titles and sentences, en and zh-CN."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.renderer.adapters.documents import render_markdown
from shared.events import Appendix, Digest, Incident

from .explain_samples import MERGED, explained_summary
from .samples import pr
from .test_renderer_attention import DAY, DEADLOCK, daily, fix, numbers
from .test_renderer_bursts_highlights import text_of, top


def merged(item, day: int, hour: int, minute: int = 0):
    """Merged on 2025-12-<day> at <hour>:<minute> in Shanghai (UTC+8)."""
    at = datetime(2025, 12, day, hour, minute, tzinfo=UTC) - timedelta(hours=8)
    return item.model_copy(update={"merged_at": at})


LEAD = merged(pr(4993, "【Feature】refactor npu_modelrunner for profile_run", "z"), 16, 17, 44)
FIXUPS = (
    merged(pr(5093, "[bugfix] fix mtp accept rate", "z"), 17, 1, 35),
    merged(pr(5122, "[Bugfix]delele profile_run in model_runner", "z"), 17, 23, 48),
    merged(pr(5136, "fix profile run for vl model", "l"), 17, 23, 51),
    merged(pr(5165, "[Bugfix] Fix in_profile_run in mtp_proposer dummy_run", "s"), 18, 22, 27),
)


def chain_summary(last_day: int = 18):
    base = explained_summary()
    fixes = (*FIXUPS[:-1], merged(FIXUPS[-1], last_day, 22, 27))
    numbers = (4993, *(f.number for f in fixes))
    burst = Incident(
        kind="fix_burst", items=numbers, roles=("added", *("fixed",) * 4), subject="profile run"
    )
    return base.model_copy(
        update={
            "incidents": (burst, *base.incidents),
            "appendix": base.appendix.model_copy(update={"merged_prs": (*MERGED, LEAD, *fixes)}),
        }
    )


@pytest.mark.parametrize(
    "lang,line",
    [
        (
            "en",
            "“【Feature】refactor npu_modelrunner for profile_run” (#4993) needed 4 fix-ups within "
            "53 hours: #5093, #5122, #5136 and #5165.",
        ),
        (
            "zh-CN",
            "「【Feature】refactor npu_modelrunner for profile_run」（#4993）合入后 53 小时内接连需要 "
            "4 个修复：#5093、#5122、#5136 和 #5165。",
        ),
    ],
)
def test_quick_fix_ups_are_a_chain_with_their_time(lang, line):
    text = text_of(chain_summary(), lang)
    assert top(text).count(line) == 1
    # four days later they are a burst of fixes, told as before
    slow = text_of(chain_summary(last_day=20), lang)
    assert "fix-ups within" not in slow and "小时内接连" not in slow
    assert "#5165" in top(slow)


PP_ASSERT = fix(
    4973,
    "[Bugfix] fix pipeline parallelism bug introduced by async-scheduling refactor work",
    hour=7,
)
PP_ASSERT = PP_ASSERT.model_copy(
    update={
        "digest": Digest(
            what="x",
            error="Currently, when using pipeline parallel and pd disaggregate, model_runner will "
            "return None on non-last-pp-rank stages in sample_tokens, which will cause assert "
            "error in vllm KVOutputAggregator on this line.",
        )
    }
)
NO_ATTR = fix(5147, '[Fix] Fix DeepSeek V3.2 "no attr" error', hour=6)
SMOKE = fix(5103, "fix vl pd smoke error", hour=8)
UT = fix(5200, "[UT] Fix AttributeError in test_mtp_proposer", hour=9)
CI_ERR = fix(5201, "[CI] Fix nightly error", hour=9, categories=("ci",))
PLAIN = fix(5121, "[BugFix]Fix incorrect get_current_vllm_config", hour=3)


def test_fixes_of_errors_users_hit_come_after_the_grave_ones():
    text = daily([PP_ASSERT, NO_ATTR, SMOKE, UT, CI_ERR, PLAIN, DEADLOCK])
    assert numbers(text) == ["#12237", "#5147", "#4973"]
    assert "fixes a user-facing error: Currently, when using pipeline parallel" in text
    assert 'no attr" error — fixes a user-facing error' in text.replace("\\", "")
    s = explained_summary(
        window=DAY,
        appendix=Appendix(merged_prs=(PP_ASSERT,)),
        incidents=(),
        follow_ups=(),
        discussions=(),
    )
    zh = render_markdown(s, "zh-CN")
    assert "修复用户会遇到的报错：「Currently, when using pipeline parallel" in zh


def test_no_error_fix_says_none_and_names_errors_among_what_it_looked_for():
    quiet = daily([PLAIN, SMOKE, UT, CI_ERR])
    assert numbers(quiet) == []
    assert "or an error users hit" in quiet


def test_at_most_five_problems():
    many = [
        fix(6000 + k, f"[Bugfix] Fix KeyError when loading model {k}", hour=k) for k in range(8)
    ]
    assert len(numbers(daily(many))) == 5
