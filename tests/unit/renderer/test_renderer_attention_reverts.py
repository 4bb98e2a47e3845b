"""A revert in a day's "problems worth attention" is told as a revert — what it undid and, when
its description gives one, why — never as a removal users may rely on (2026-03-24: real #7557
'Revert "GMM custom operator optimization in small batch scenarios (vllm-project#7100)"' read
"removes something users may rely on: The commit cause accuracy decrease …")."""

from __future__ import annotations

from shared.events import Incident

from .samples import pr
from .test_renderer_attention import ACCURACY, daily, numbers

# real #7557 of vllm-project/vllm-ascend: its title and the reason its body gives
GMM_TITLE = 'Revert "GMM custom operator optimization in small batch scenarios (vllm-project#7100)"'
GMM_SUBJECT = "GMM custom operator optimization in small batch scenarios (vllm-project#7100)"
GMM_WHY = "The commit cause accuracy decrease of qwen3Next, 150 items of gsm8k, 98 -> 91."
GMM_REVERT = pr(7557, GMM_TITLE, "dev")


def test_a_revert_of_a_change_the_data_lacks_is_told_as_a_revert_with_its_reason():
    text = daily(
        [GMM_REVERT],
        [
            Incident(
                kind="revert",
                items=(7557,),
                roles=("revert",),
                subject=GMM_SUBJECT,
                reason=GMM_WHY,
            )
        ],
    )
    assert numbers(text) == ["#7557"]
    assert "removes something users may rely on" not in text
    assert "reverts GMM custom operator optimization in small batch scenarios" in text
    assert "The commit cause accuracy decrease of qwen3Next, 150 items of gsm8k" in text


def test_a_revert_of_a_known_change_says_why_when_it_can_and_what_it_undid_else():
    with_why = daily(
        [GMM_REVERT, ACCURACY],
        [
            Incident(
                kind="revert",
                items=(7557, 7100),
                roles=("revert", "reverted_change"),
                subject=GMM_SUBJECT,
                reason=GMM_WHY,
            )
        ],
    )
    assert numbers(with_why) == ["#7557", "#11195"]  # a revert before a wrong-output fix
    assert "reverts #7100: The commit cause accuracy decrease" in with_why
    assert "what it undid is gone from the code" not in with_why
    no_why = daily(
        [GMM_REVERT],
        [Incident(kind="revert", items=(7557, 7100), roles=("revert", "reverted_change"))],
    )
    assert "reverts #7100: what it undid is gone from the code" in no_why
    unnamed = daily([GMM_REVERT], [Incident(kind="revert", items=(7557,), roles=("revert",))])
    assert "reverts an earlier change" in unnamed
    assert "removes something" not in unnamed
