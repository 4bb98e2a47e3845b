"""A profile's topic is named in the report's language and written as the report's own words
(issue #15 item 6: 2026-W27's Chinese report wrote "本期主线包括 Qwen3.5、「310P (Atlas 300I
inference cards)」和 vLLM 版本同步", the profile's English words in corner brackets as if quoted
from a title); the English report keeps the profile's `name`; a name the data gives keeps being
quoted in Chinese when it reads as a title."""

from __future__ import annotations

import re

from services.renderer.adapters.documents import render_markdown
from shared.events import Storyline

from .explain_samples import explained_summary
from .test_renderer_explains import section

LINK = re.compile(r"\[(#\d+)\]\([^)]*\)")
NAME = "310P (Atlas 300I inference cards)"
NAME_ZH = "310P（Atlas 300I 推理卡）"
KEY = "topic:310patlas300iinferencecards"  # storylines.topic_term(NAME)
PHRASE = "Rewrite Qwen3-30B-A3B and Qwen3-Coder-30B-A3B tutorials"  # 2026-W27, from a title


def text_of(s, lang: str) -> str:
    return LINK.sub(r"\1", render_markdown(s, lang))


def with_second(**update) -> tuple:
    base = explained_summary()
    first, second = base.storylines[:2]
    st: Storyline = second.model_copy(update=update)
    s = base.model_copy(update={"storylines": (first, st)})
    return text_of(s, "en"), text_of(s, "zh-CN")


def test_a_topic_is_named_in_chinese_by_its_profile_and_not_quoted():
    en, zh = with_second(key=KEY, name=NAME, names={"zh-CN": NAME_ZH})
    assert f"**{NAME_ZH}**" in section(zh, "亮点")
    assert f"### 2.2 {NAME_ZH}" in zh
    assert "「310P" not in zh and "inference cards" not in zh
    # English: the profile's name, no Chinese
    assert f"**{NAME}**" in section(en, "Highlights")
    assert f"### 2.2 {NAME}" in en and NAME_ZH not in en


def test_a_topic_without_a_chinese_name_is_still_the_reports_own_words():
    _, zh = with_second(key=KEY, name=NAME)
    assert f"**{NAME}**" in section(zh, "亮点") and f"「{NAME}」" not in zh


def test_a_name_the_data_gives_is_quoted_as_before():
    # the same words as a line the titles named: a phrase of a title, quoted
    _, zh = with_second(name=NAME)
    assert f"**「{NAME}」**" in section(zh, "亮点")
    _, zh = with_second(name=PHRASE)
    assert f"**「{PHRASE}」**" in section(zh, "亮点")
    # names of another language never name a line the data named
    _, zh = with_second(name=PHRASE, names={"zh-CN": "改写教程"})
    assert "改写教程" not in zh and f"「{PHRASE}」" in zh
