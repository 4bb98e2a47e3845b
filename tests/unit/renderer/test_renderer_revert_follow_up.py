"""A reverted change's follow-up says what is left to do: when every revert says why (a failed
build, the tests it broke), fix that and land it again; otherwise find out what broke first
(2026-W27: both reverts named their cause and the report still asked to find it)."""

from __future__ import annotations

from services.renderer.adapters.documents import render_markdown

from .explain_samples import explained_summary
from .test_renderer_explains import section


def follow_ups(reason: str, lang: str = "en") -> str:
    s = explained_summary()
    incidents = tuple(
        i.model_copy(update={"reason": reason}) if i.kind == "revert" else i for i in s.incidents
    )
    title = "Follow-up" if lang == "en" else "后续"
    return section(render_markdown(s.model_copy(update={"incidents": incidents}), lang), title)


def test_a_revert_that_says_why_asks_to_fix_that_and_land_again():
    text = follow_ups("break CI: tests/ut/test_ascend_forward_context.py failed")
    assert "Reverted change: fix what its revert names, then land it again" in text
    assert "find out what broke" not in text
    assert "应先修复回滚说明中指出的问题再重新合入" in follow_ups("image build failed", "zh-CN")


def test_a_revert_without_a_reason_asks_to_find_what_broke():
    text = follow_ups("")
    assert "Reverted change: find out what broke before it lands again" in text
    assert "fix what its revert names" not in text
