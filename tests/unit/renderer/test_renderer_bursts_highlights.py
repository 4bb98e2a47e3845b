"""Three readings of real weeks (issue #15), in English and Chinese:

- a burst of fixes after a big change is one risk line and one follow-up (2026-W21: "Support
  DeepseekV4", #9270, then fixes of the same line for four days);
- highlights are lines of work and standout changes, never a module's leftovers (2026-W13:
  "Other work in Kernels" made the list, #7392 "Add rfork support for fast model loading" not);
- a revert names what it undid by number, title and merge day (2026-W13: "#7557 reverts GMM
  custom operator optimization in small batch scenarios (vllm-project#7100)")."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from services.renderer.adapters.documents import render_markdown
from shared.events import Digest, FollowUp, Incident, KeyPR, Storyline, StorylineItem

from .explain_samples import MERGED, explained_summary
from .samples import pr
from .test_renderer_explains import section

LINK = re.compile(r"\[(#\d+)\]\([^)]*\)")


def merged(item, day: int, hour: int):
    """An item merged on 2026-06-<day> at <hour>:00 in Shanghai (UTC+8)."""
    return item.model_copy(update={"merged_at": datetime(2026, 6, day, hour - 8, tzinfo=UTC)})


def text_of(s, lang: str) -> str:
    return LINK.sub(r"\1", render_markdown(s, lang))


def top(text: str) -> str:
    """The lead, highlights and short risks: everything before section 1."""
    return re.split(r"\n## (?:1\.|1．)", text, maxsplit=1)[0]


# ---------------------------------------------------------------- a burst of fixes

SUPPORT = merged(pr(9270, "[Feature] Support DeepseekV4", "GDzhu01", additions=9000), 9, 15)
FIXES = (
    merged(
        pr(9367, "[BugFix][KVCache] Separate Deepseek-V4 MTP layer KVCache sharding", "a"), 9, 23
    ),
    merged(
        pr(9389, "[BugFix][A2]Avoid duplicate MoE all-reduce for DeepSeek V4 tensor outputs", "b"),
        10,
        22,
    ),
    merged(pr(9456, "[BugFix]Fix Deepseek-V4 async scheduling with MTP", "c"), 11, 23),
    merged(pr(9487, "[BugFix] Fix serial inference anomaly of DeepSeek-V4", "d"), 12, 18),
)


def burst_summary():
    base = explained_summary()
    numbers = (9270, *(f.number for f in FIXES))
    line = Storyline(
        key="deepseekv4",
        name="DeepSeek V4",
        items=tuple(
            StorylineItem(number=n, role="feature" if n == 9270 else "fix") for n in numbers
        ),
        lead=9270,
        merged=len(numbers),
    )
    burst = Incident(
        kind="fix_burst",
        items=numbers,
        roles=("added", "fixed", "fixed", "fixed", "fixed"),
        subject="DeepSeek V4",
    )
    follow = FollowUp(kind="fix_burst", item=SUPPORT, items=numbers[1:], reason="stabilise")
    return base.model_copy(
        update={
            "storylines": (line, *base.storylines),
            "incidents": (burst, *base.incidents),
            "follow_ups": (*base.follow_ups, follow),
            "appendix": base.appendix.model_copy(update={"merged_prs": (*MERGED, SUPPORT, *FIXES)}),
        }
    )


@pytest.mark.parametrize(
    "lang,line,follow",
    [
        (
            "en",
            "“Support DeepseekV4” (#9270, merged 2026-06-09) was followed by 4 fixes in the same "
            "line of work (DeepSeek V4): #9367, #9389, #9456 and #9487 (2026-06-09 to 2026-06-12).",
            "Stabilise DeepSeek V4: 4 fixes followed “Support DeepseekV4” (#9270) within 4 days",
        ),
        (
            "zh-CN",
            "「Support DeepseekV4」（#9270，合并于 2026-06-09）之后，同一工作线（DeepSeek V4）陆续"
            "出现 4 个修复：#9367、#9389、#9456 和 #9487（2026-06-09 至 2026-06-12）。",
            "稳定 DeepSeek V4：「Support DeepseekV4」（#9270）合入后 4 天内出现 4 个修复",
        ),
    ],
)
def test_a_burst_of_fixes_is_one_risk_line_and_one_follow_up(lang, line, follow):
    text = text_of(burst_summary(), lang)
    assert top(text).count(line) == 1  # at the top, once
    assert text.count(line) == 2  # ... and in section 4
    follows = [ln for ln in text.splitlines() if follow in ln]
    assert len(follows) == 1
    assert all(f"#{f.number}" in follows[0] for f in FIXES)


def test_without_a_burst_nothing_is_said():
    text = text_of(explained_summary(), "en")
    assert "fixes in the same line of work" not in text and "Stabilise" not in text


# ---------------------------------------------------------------- highlights

RFORK = merged(
    pr(
        7392,
        "[ModelLoader][Feature] Add rfork support for fast model loading",
        "GoMarck",
        modules=("model-loading",),
        additions=1510,
    ),
    9,
    12,
).model_copy(update={"digest": Digest(what="Support an new load format: RFORK.")})


OCR = merged(
    pr(
        7380,
        "[Feature] Optimize DeepSeekOCR2 RelPosAttention and CustomQwen2Decoder and add doc for "
        "DeepSeekOCR2.md",
        "ocr-dev",
        additions=900,
    ),
    10,
    12,
)


def leftovers_summary():
    base = explained_summary()
    leftovers = Storyline(
        key="module:kernels",
        name="kernels",
        evidence="module",
        items=tuple(StorylineItem(number=n, role="fix") for n in (10700, 10701, 10320, 10333)),
        lead=10700,
        merged=4,
    )
    return base.model_copy(
        update={
            # the leftovers rank before the named line, as a module line of many changes may
            "storylines": (leftovers, *base.storylines),
            "key_prs": (
                *base.key_prs,
                KeyPR(item=RFORK, score=6.0, reasons=("feature", "user_facing", "large")),
                # better scored, but nothing says what it is: after the one that says it
                KeyPR(item=OCR, score=7.5, reasons=("feature", "measured_claim", "large")),
            ),
            "appendix": base.appendix.model_copy(update={"merged_prs": (*MERGED, RFORK, OCR)}),
        }
    )


@pytest.mark.parametrize(
    "lang,head,title,leftover,highlights",
    [
        (
            "en",
            "Add rfork support for fast model loading",
            "Add rfork support for fast model loading",
            "Other work in",
            "Highlights",
        ),
        # Chinese prose names the change from its facts; its English title stays, quoted
        (
            "zh-CN",
            "模型加载方向的新功能",
            "「\\[ModelLoader\\]\\[Feature\\] Add rfork support for fast model loading」",
            "其他工作",
            "亮点",
        ),
    ],
)
def test_highlights_are_lines_and_standout_changes_never_a_module_s_leftovers(
    lang, head, title, leftover, highlights
):
    text = text_of(leftovers_summary(), lang)
    bullets = section(text, highlights)
    assert leftover not in bullets and "Kernels" not in bullets
    # the named lines first, then the standout change of no line with its sentence
    heads = re.findall(r"(?m)^- \*\*(.+?)\*\*", bullets)
    assert heads[-2] == head and len(heads) == 4
    assert "DeepSeekOCR2" in heads[-1] or lang != "en"
    rfork = next(ln for ln in bullets.splitlines() if title in ln)
    assert "Support an new load format: RFORK" in rfork and "#7392" in rfork
    # a key change picked for its size alone is no highlight
    assert "#10600" not in bullets
    # the lead's main lines are named lines only
    lead = top(text).split("\n## ")[0]
    assert leftover not in lead
    # section 2 names the change by title, its sentence told once (in the highlight)
    assert text.count("Support an new load format: RFORK") == 1


# ---------------------------------------------------------------- what a revert undid

GMM = "GMM custom operator optimization in small batch scenarios"
WHY = "The commit cause accuracy decrease of qwen3Next, 150 items of gsm8k, 98 -> 91."
REVERT = merged(pr(7557, f'Revert "{GMM} (vllm-project#7100)"', "SunnyLee151064"), 10, 14)


def revert_summary(known: bool):
    base = explained_summary()
    reverted = merged(pr(7100, GMM, "chenxi-hh"), 3, 16)
    inc = Incident(
        kind="revert",
        items=(7557, 7100) if known else (7557,),
        roles=("revert", "reverted_change") if known else ("revert",),
        subject=GMM if known else f"{GMM} (vllm-project#7100)",
        across_windows=known,
        reason=WHY,
    )
    return base.model_copy(
        update={
            "incidents": (inc,),
            "follow_ups": (),
            "referenced": (reverted,) if known else (),
            "appendix": base.appendix.model_copy(update={"merged_prs": (*MERGED, REVERT)}),
        }
    )


@pytest.mark.parametrize(
    "lang,known,said",
    [
        ("en", True, f"#7557 reverts #7100 ({GMM}, merged 2026-06-03)."),
        ("zh-CN", True, f"#7557 回滚了 #7100（「{GMM}」，合并于 2026-06-03）。"),
        # not in the data: the number its title gives, then what it was
        ("en", False, f"#7557 reverts #7100 ({GMM})."),
        ("zh-CN", False, f"#7557 回滚了 #7100（「{GMM}」）。"),
    ],
)
def test_a_revert_names_what_it_undid_by_number_title_and_day(lang, known, said):
    text = text_of(revert_summary(known), lang).replace("\\>", ">")
    assert said in top(text)  # the top's line refers to it: number, title and day
    assert "vllm-project#7100" not in top(text)
    assert "a change merged before this window" not in text  # its day says it
    # its reason is quoted once, where the revert is told in full (section 4), not at the top
    assert WHY[:-1] not in top(text)
    assert text.count(WHY[:-1]) == 1
    assert WHY[:-1] in text[text.index("\n## 4") :]


# ---------------------------------------------------------------- one set of lines


def many_lines_summary():
    """Eight named lines and a module's leftovers ranked among them: more lines than section 2
    has themes (2025-W51: "PP" and "Keeping up with vllm" were highlights, not themes)."""
    base = explained_summary()
    singles = [n for n in (m.number for m in MERGED) if n not in (10501, 10502, 10510)]
    lines = [
        Storyline(
            key=f"line{i}",
            name=f"Line number {i}",
            evidence="term",
            items=(StorylineItem(number=n, role="feature"),),
            lead=n,
            merged=1,
        )
        for i, n in enumerate(singles[:7])
    ]
    leftovers = Storyline(
        key="module:kernels",
        name="kernels",
        evidence="module",
        items=tuple(StorylineItem(number=n, role="fix") for n in singles[7:9]),
        lead=singles[7],
        merged=2,
    )
    storylines = (base.storylines[0], *lines[:2], leftovers, *lines[2:])
    return base.model_copy(update={"storylines": storylines})


@pytest.mark.parametrize(
    "lang,highlights,themes", [("en", "Highlights", "2."), ("zh-CN", "亮点", "2.")]
)
def test_every_line_a_highlight_names_is_a_theme_of_section_two(lang, highlights, themes):
    s = many_lines_summary()
    text = text_of(s, lang)
    heads = re.findall(r"(?m)^- \*\*(.+?)\*\*", section(text, highlights))
    named = [h.strip("「」“”") for h in heads if "Line number" in h or "DeepSeek" in h]
    assert len(named) >= 4, heads
    body = text.split(f"\n## {themes}", 1)[1].split("\n## ", 1)[0]
    titles = [t.strip("「」“”") for t in re.findall(r"(?m)^### [\d.．]+\s*(.+?)\s*$", body)]
    assert set(named) <= set(titles), (named, titles)
    # a line past section 2's themes is no highlight (section 2 names it in its last line)
    assert "Line number 4" not in named and "Line number 4" in body
