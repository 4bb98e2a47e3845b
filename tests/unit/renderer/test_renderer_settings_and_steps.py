"""Settings users will notice (one line at the top, a line per change in section 4 with its own
words, a follow-up to tell users of a removal or a new default, a day's problems worth attention
for those two only) and what changes announce as temporary or next (a follow-up each, quoted) —
in English and Chinese, the quoted English kept as written."""

from __future__ import annotations

import re

import pytest

from services.renderer.adapters.documents import render_markdown
from shared.events import Appendix, FollowUp, Incident

from .explain_samples import MERGED, explained_summary
from .test_renderer_attention import DAY, numbers
from .test_renderer_explains import section

LINK = re.compile(r"\[(#\d+)\]\([^)]*\)")
REMOVED = "remove sp_threshold in additional config and reuse sp_min_token_num from vLLM."
STEP = "This will be discard after Eagle3 weight for MiniMax-M2.5 releases"
A, B, C = (r.number for r in MERGED[:3])


def settings(**kw) -> list[Incident]:
    return [
        Incident(kind="interface", items=(A,), roles=("removed",), subject="sp_threshold", reason=REMOVED),
        Incident(kind="interface", items=(B,), roles=("added",), subject="VLLM_X_BALANCE", reason=""),
        Incident(kind="interface", items=(C,), roles=("default",), subject="max_capture_size"),
    ]  # fmt: skip


def summary():
    base = explained_summary()
    refs = {r.number: r for r in MERGED}
    follow = (
        FollowUp(kind="interface", item=refs[A], items=(A, C), reason="tell users"),
        FollowUp(kind="next_step", item=refs[B], reason=STEP),
    )
    return base.model_copy(
        update={
            "incidents": (*base.incidents, *settings()),
            "follow_ups": (*base.follow_ups, *follow),
        }
    )


@pytest.mark.parametrize(
    "lang,top,detail,tell,step",
    [
        (
            "en",
            f"Configuration changes users will notice: sp_threshold removed (#{A}), "
            f"VLLM_X_BALANCE added (#{B}), new default for max_capture_size (#{C})",
            f"#{A} changes what users set: sp_threshold removed; it says “{REMOVED[:-1]}”"
            "; tell users in the release notes how to adapt.",
            "tell users in the release notes",
            f"Announced as temporary or to come next: “{STEP}”",
        ),
        (
            "zh-CN",
            f"用户会注意到的配置变化：移除 sp_threshold（#{A}），新增 VLLM_X_BALANCE（#{B}），"
            f"max_capture_size 默认值变更（#{C}）",
            f"#{A} 改变了用户的配置：移除 sp_threshold；说明中写道「{REMOVED[:-1]}」"
            "；应在发布说明中告诉用户如何调整。",
            "在发布说明中告诉用户",
            f"描述中说明为临时或后续工作，原文为「{STEP}」",
        ),
    ],
)
def test_settings_and_steps_at_the_top_in_section_4_and_in_the_follow_ups(
    lang, top, detail, tell, step
):
    text = LINK.sub(r"\1", render_markdown(summary(), lang))
    parts = text.split("\n## ")
    head = "\n## ".join(parts[:4])
    assert head.count(top) == 1
    assert REMOVED[:-1] not in head  # the top is short: the words are for section 4
    four = next(p for p in parts if p.startswith("4."))
    assert detail in four
    # one home per finding: section 4 says what to do about a setting users must adapt to, the
    # follow-ups do not ask it again; an announced next step is asked there only
    follow = section(text, "Follow-up" if lang == "en" else "后续建议")
    assert tell not in follow and step in follow
    # the added setting is news, not something to tell users to adapt to
    line = next(ln for ln in four.splitlines() if f"#{B}" in ln or "VLLM_X_BALANCE" in ln)
    assert tell not in line


def test_a_day_tells_a_removed_setting_or_a_new_default_not_an_added_one():
    s = explained_summary(
        window=DAY,
        appendix=Appendix(merged_prs=tuple(MERGED[:3])),
        incidents=tuple(settings()),
        follow_ups=(),
        discussions=(),
    )
    text = section(render_markdown(s, "en"), "worth attention")
    assert numbers(text) == [f"#{A}", f"#{C}"]
    assert f"changes a setting users rely on: sp_threshold removed — {REMOVED[:-1]}" in text
    assert "changes a setting users rely on: new default for max_capture_size" in text
    zh = section(render_markdown(s, "zh-CN"), "值得关注")
    assert "改变了用户依赖的配置：移除 sp_threshold——「" in zh


@pytest.mark.parametrize(
    "lang,said", [("en", "dump_config takes another type"), ("zh-CN", "dump_config 类型变更")]
)
def test_a_setting_given_another_type_is_a_change_users_must_adapt_to(lang, said):
    # real #5296: "dump_config is changed from dict to string" (InterfaceChange kind "type"):
    # at the top and in section 4, where users are told how to adapt, as for a removal
    typed = Incident(
        kind="interface",
        items=(A,),
        roles=("type",),
        subject="dump_config",
        reason="dump_config is changed from dict to string.",
    )
    s = explained_summary().model_copy(update={"incidents": (typed,)})
    text = LINK.sub(r"\1", render_markdown(s, lang))
    parts = text.split("\n## ")
    assert said in "\n## ".join(parts[:4])
    four = next(p for p in parts if p.startswith("4."))
    assert said in four and ("release notes" in four or "发布说明" in four)
