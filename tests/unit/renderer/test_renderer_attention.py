"""A day's "problems worth attention" from the merged changes themselves when the source has no
issues (seed 003's section named an OOM and a deadlock; 2026-07-17 fixed a deadlock and a PD hang
and our report said neither): grave fixes in their own words, removals, reverts, then fixes of
wrong output, fixes of errors users hit and reverts of CI changes, five at most."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from services.renderer.adapters.documents import render_markdown
from shared.events import Appendix, Digest, Incident, WindowRef

from .explain_samples import explained_summary
from .samples import pr
from .test_renderer_explains import MD_LINK, section

DAY = WindowRef(
    kind="day",
    label="2026-07-17",
    start=datetime(2026, 7, 17, 3, 45, tzinfo=UTC),
    end=datetime(2026, 7, 18, 3, 45, tzinfo=UTC),
    tz="Asia/Shanghai",
)


def fix(number: int, title: str, symptom: str = "", hour: int = 1, categories=("bugfix",)):
    item = pr(number, title, "dev", modules=("kernels",))
    return item.model_copy(
        update={
            "digest": Digest(what="x", symptom=symptom),
            "categories": categories,
            "merged_at": DAY.start + timedelta(hours=hour),
        }
    )


DEADLOCK = fix(
    12237,
    "[BugFix] Disable multistream_overlap_shared_expert when enable_fused_mc2 is enabled",
    "If one card enters the MOE large fusion operator and the other card enters the TP "
    "communication, the two operators will be deadlocked.",
    hour=5,
)
HANG = fix(
    11917,
    "[BugFix] Move KV layer saving to _forward_core for compilation support",
    "With a layerwise KV connector, this can leave the GDN/Mamba cache group unsubmitted and "
    "cause the decode request to wait indefinitely.",
    hour=2,
)
ACCURACY = fix(11195, "[BugFix] fix qwen3.5+pcp accuracy error", hour=1)
PLAIN = fix(12012, "[Bugfix] Fix AscendStore parent-hash chain", hour=3)
FEATURE = fix(
    12240, "[Feature] Batch-job-aware scheduler that never hangs", hour=4, categories=("feature",)
)
CI_DROP = pr(12217, "[CI] Drop vllm main e2e test for v0.24.0rc", "dev").model_copy(
    update={"categories": ("ci",)}
)
CI_REVERT = pr(12229, 'Revert "[CI] Drop vllm main e2e test for v0.24.0rc" (#12217)', "bot")


def daily(merged, incidents=()) -> str:
    s = explained_summary(
        window=DAY,
        appendix=Appendix(merged_prs=tuple(merged)),
        incidents=tuple(incidents),
        follow_ups=(),
        discussions=(),
    )
    return section(render_markdown(s, "en"), "worth attention")


def numbers(text: str) -> list[str]:
    """The problems' links, one per numbered line (the risks the lead names follow as bullets)."""
    return [
        MD_LINK.search(ln).group(1)
        for ln in text.splitlines()
        if re.match(r"\d+\. ", ln) and MD_LINK.search(ln)
    ]


def test_grave_fixes_come_first_in_their_own_words_then_reverts_then_wrong_output():
    text = daily(
        [ACCURACY, HANG, PLAIN, DEADLOCK, FEATURE, CI_DROP, CI_REVERT],
        [Incident(kind="revert", items=(12229, 12217), roles=("reverted", "reverted_change"))],
    )
    # hangs and deadlocks in merge order; a plain fix and a feature whose title says "hangs" are not
    # (the revert of a CI change last: five at most leave it room)
    assert numbers(text) == ["#11917", "#12237", "#11195", "#12229"]
    assert "fixes a hang or deadlock: If one card enters the MOE large fusion operator" in text
    assert "fixes a wrong-output or accuracy problem" in text
    assert "#12012" not in text and "#12240" not in text
    # a revert of a CI change comes after a fix of wrong output, and only when there is room
    assert "#12229" in daily(
        [CI_REVERT, ACCURACY],
        [Incident(kind="revert", items=(12229, 12217), roles=("reverted", "reverted_change"))],
    )


def test_a_removal_users_see_outranks_a_revert_and_a_wrong_output_fix():
    removal = pr(12119, "[Refactor] Remove matmulallreduce", "dev")
    text = daily(
        [ACCURACY, removal, CI_REVERT],
        [
            Incident(
                kind="removal",
                items=(12119,),
                roles=("removal",),
                subject=removal.title,
                reason="VLLM_ASCEND_ENABLE_MATMUL_ALLREDUCE is removed",
            ),
            Incident(kind="revert", items=(12229, 12217), roles=("reverted", "reverted_change")),
        ],
    )
    assert numbers(text) == ["#12119", "#11195", "#12229"]
    assert (
        "removes something users may rely on: VLLM_ASCEND_ENABLE_MATMUL_ALLREDUCE is removed"
        in text
    )


def test_a_quiet_day_says_so_and_chinese_names_the_problem():
    quiet = daily([PLAIN])
    assert (
        "No merged change of the window fixes a hang" in quiet
        and "does not provide issues" in quiet
    )
    s = explained_summary(
        window=DAY,
        appendix=Appendix(merged_prs=(DEADLOCK,)),
        incidents=(),
        follow_ups=(),
        discussions=(),
    )
    zh = section(render_markdown(s, "zh-CN"), "值得关注")
    assert "修复卡死或死锁问题：「If one card enters" in zh


def test_what_a_change_says_of_itself_is_worth_attention_too():
    """2026-07-01 relaxed the gsm8k-lite accuracy threshold in 18 nightly and weekly configs
    (#11247) and the daily said nothing of it; a change merged with problems its description
    admits open comes first, in its own words; both come before a fix of wrong output."""
    loose = pr(11247, "[CI] Modify the threshold of the gsm8k lite dataset to 3 questions", "ci")
    open_ = pr(10487, "[Feature] qwen3.5 support pcp+mtp", "dev")
    text = daily(
        [ACCURACY, loose, open_],
        [
            Incident(kind="loosened", items=(11247,), roles=("loosened",), subject=loose.title),
            Incident(
                kind="unfinished",
                items=(10487,),
                roles=("unfinished",),
                subject=open_.title,
                reason="However, several critical issues were identified during the review.",
            ),
        ],
    )
    assert numbers(text) == ["#10487", "#11247", "#11195"]  # concerns before a fix
    assert "loosens tests or checks: a regression here may now go unseen" in text
    assert (
        "was merged with problems its description says are open: However, several critical "
        "issues were identified during the review" in text
    )
