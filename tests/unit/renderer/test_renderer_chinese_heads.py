"""A Chinese report's highlight of one change is named in Chinese from the change's facts (its
kind, the area it is about); its English title stays beside its link, quoted (issue #15: 2026-W30
named two highlights "「Add Mega moe support for a3」" and "「Decouple ShortRequestFirst from
RecomputeScheduler」" where "MoE 方向的新功能" says it in the report's language)."""

from __future__ import annotations

import re

import pytest

from shared.events import Digest, KeyPR

from .explain_samples import MERGED, explained_summary
from .samples import pr
from .test_renderer_bursts_highlights import merged, text_of
from .test_renderer_explains import section

HEAD = re.compile(r"(?m)^- \*\*(.+?)\*\*(.*)$")
_QUOTED = re.compile(r"「[^」]*」|#\d+")


def _md(title: str) -> str:
    return title.replace("[", "\\[").replace("]", "\\]")


def _real(number: int, modules: tuple[str, ...], what: str):
    from tests.conftest import history_prs

    row = history_prs()[number]
    item = merged(pr(number, row["title"], row["author_name"], modules=modules), 10, 12)
    return item.model_copy(update={"digest": Digest(what=what)})


def _summary(*items):
    base = explained_summary()
    return base.model_copy(
        update={
            "key_prs": (
                *base.key_prs,
                *(
                    KeyPR(item=i, score=6.0 - k, reasons=("feature", "user_facing"))
                    for k, i in enumerate(items)
                ),
            ),
            "appendix": base.appendix.model_copy(update={"merged_prs": (*MERGED, *items)}),
        }
    )


def _heads(lang: str, *items) -> dict[str, str]:
    bullets = section(text_of(_summary(*items), lang), "亮点" if lang == "zh-CN" else "Highlights")
    return {m[1]: m[2] for m in HEAD.finditer(bullets)}


def test_a_change_of_an_english_title_is_named_in_chinese_from_its_facts() -> None:
    mega = _real(11701, ("moe", "quantization"), "Replace dispatchFFNcombine with mega_moe.")
    srf = _real(
        12719, ("scheduler/core",), "Decouples ShortRequestFirst from the recompute scheduler."
    )
    heads = _heads("zh-CN", mega, srf)
    named = {h: rest for h, rest in heads.items() if "方向的新功能" in h}
    assert set(named) == {"MoE 方向的新功能", "调度器与核心方向的新功能"}, heads
    for head, rest in named.items():
        assert not re.search(r"[A-Za-z]{3,}", head.replace("MoE", ""))  # the head is Chinese
        # the title stays, quoted, beside the change's link
        title = mega.title if "MoE" in head else srf.title
        assert "「" + _md(title) + "」" in rest, rest
    # no English title is a head of Chinese prose
    assert not any(h.startswith("「") and "Mega moe" in h for h in heads)


def test_two_changes_of_one_area_and_kind_are_told_apart_by_a_second_area() -> None:
    mega = _real(11701, ("moe", "quantization"), "Replace dispatchFFNcombine with mega_moe.")
    other = _real(10730, ("moe", "kernels"), "Adds a fusion pass for AddRMSNorm and MX quant.")
    heads = [h for h in _heads("zh-CN", mega, other) if "方向的" in h]
    assert len(heads) == len(set(heads)) == 2, heads
    assert "MoE 方向的新功能" in heads and "MoE 和算子方向的新功能" in heads, heads


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_title_in_the_report_s_language_stays_the_head(lang: str) -> None:
    # an English report keeps the English title; a Chinese title heads a Chinese report
    mega = _real(11701, ("moe",), "Replace dispatchFFNcombine with mega_moe.")
    zh = merged(pr(11702, "[Feature] 支持 A3 上的 Mega MoE", "dev", modules=("moe",)), 10, 12)
    zh = zh.model_copy(update={"digest": Digest(what="Replace dispatchFFNcombine.")})
    heads = _heads(lang, mega, zh)
    assert "支持 A3 上的 Mega MoE" in heads
    assert ("Add Mega moe support for a3" in heads) is (lang == "en")


def test_a_change_told_by_why_it_was_picked_does_not_repeat_the_head_s_kind() -> None:
    # no sentence says what it does (2025-W52's #5329): its reasons, without "新功能" again
    bare = _real(11701, ("moe",), "").model_copy(update={"digest": None, "body_excerpt": ""})
    heads = _heads("zh-CN", bare)
    rest = heads["MoE 方向的新功能"]
    said = rest.split("——")[0]
    assert "新功能" not in said and "面向用户的变更" in said, rest
    # an English head keeps every reason (the title says no kind)
    assert "new feature" in _heads("en", bare)["Add Mega moe support for a3"]
