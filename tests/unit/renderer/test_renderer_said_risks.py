"""What changes say of themselves (tests or checks loosened, support narrowed, problems admitted
open) at the top of the report in one line per kind, in section 4 with the open problems in the
description's words, and once each in the follow-ups — in English and Chinese."""

from __future__ import annotations

import re

import pytest

from services.renderer.adapters.documents import render_markdown
from shared.events import FollowUp, Incident

from .explain_samples import MERGED, explained_summary

LINK = re.compile(r"\[(#\d+)\]\([^)]*\)")
OPEN = "However, several critical issues were identified during the review."


def said_summary():
    base = explained_summary()
    refs = {r.number: r for r in MERGED}
    loosened = [
        Incident(kind="loosened", items=(n,), roles=("loosened",), subject=refs[n].title)
        for n in (10700, 10701)
    ]
    unfinished = Incident(
        kind="unfinished",
        items=(10501,),
        roles=("unfinished",),
        subject=refs[10501].title,
        reason=OPEN,
    )
    follow = (
        FollowUp(kind="loosened", item=refs[10700], items=(10700, 10701), reason="loosened"),
        FollowUp(kind="unfinished", item=refs[10501], items=(10501,), reason="open"),
    )
    return base.model_copy(
        update={
            "incidents": (*base.incidents, *loosened, unfinished),
            "follow_ups": (*base.follow_ups, *follow),
        }
    )


@pytest.mark.parametrize(
    "lang,many,one",
    [
        (
            "en",
            "2 changes loosen tests or checks: #10700 and #10701",
            "#10501 was merged with problems its description says are open",
        ),
        (
            "zh-CN",
            "2 项变更放宽了测试或检查：#10700 和 #10701",
            "#10501 合入时其描述仍列有未解决的问题",
        ),
    ],
)
def test_said_risks_are_one_line_per_kind_with_the_open_problems_in_their_words(lang, many, one):
    text = LINK.sub(r"\1", render_markdown(said_summary(), lang))
    main = text.split("\n## ")  # the top (lead, highlights, risks) and each section
    top = "\n## ".join(main[:4])
    assert top.count(many) == 1 and one in top
    # the top is short: the quote is for the detailed section
    detail = next(
        s
        for s in main
        # (by its heading: the top's closing line names the section too)
        if s.split("\n", 1)[0].endswith(("Risk observations in detail", "风险观察详情"))
    )
    assert many.split(":")[0].split("：")[0] in detail and "#10700 " in detail
    line = next(ln for ln in detail.splitlines() if one in ln)
    assert "several critical issues were identified during the review" in line
    follow = [ln for ln in text.splitlines() if "10700" in ln and "10701" in ln]
    assert len(follow) >= 2  # the top and section 4
    assert len(set(follow)) == len(follow)
    # one home per finding: section 4's lines say what to do, the follow-ups do not ask it again
    act = {
        "en": ("; say why, and when they come back.", "; check they are fixed."),
        "zh-CN": ("；应说明原因以及何时恢复。", "；应确认其已修复。"),
    }[lang]
    loosened = next(ln for ln in detail.splitlines() if "#10700 " in ln)
    assert loosened.endswith(act[0]) and line.endswith(act[1])
    last = main[-2] if "ppendix" in main[-1] or "附录" in main[-1] else main[-1]
    assert "Follow-up" in last.split("\n", 1)[0] or "后续建议" in last.split("\n", 1)[0]
    assert "10700" not in last and "10501" not in last
    assert act[0].strip("; 。；") not in top  # the top is the counted summary
