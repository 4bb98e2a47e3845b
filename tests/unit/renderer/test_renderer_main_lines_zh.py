"""Two readings of real windows (issue #15), in English and Chinese:

- a line of work made only of docs, CI or test changes is no main line of the work (2026-07-09:
  "The main line of work was CN" — three fixes of the Chinese docs' translation, #11652, #11664,
  #11688); it keeps its highlight, and with no line of code the lead names the busiest modules;
- Chinese reads as Chinese: a proper name from the data is written as it is, not in corner
  brackets (2026-W22: "「Ascend 950 (A5)」"), one translation per module (算子, not "Kernel 方向"
  beside 注意力), no "跟进 X", a PR's notes read as a phrase ("新功能，附基准和精度测试", not
  "新功能 · 测试：基准测试、精度测试"), and logins are spaced ("@a 和 @b")."""

from __future__ import annotations

import re

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import render_markdown
from shared.events import Digest, KeyPR, Storyline, StorylineItem
from shared.events.summary import LineCount

from .explain_samples import explained_summary
from .samples import pr
from .test_renderer_explains import section

LINK = re.compile(r"\[(#\d+)\]\([^)]*\)")

# real 2026-07-09 changes, with the kinds the classifier gave them
CN_DOCS = (
    pr(
        11652,
        "[DOC] Fix wrong CN translate",
        "wangxiyuan",
        categories=("docs", "bugfix", "platform-ci"),
    ),
    pr(
        11664,
        "[Doc] Fix CN doc problem",
        "wangxiyuan",
        categories=("docs", "bugfix", "platform-ci"),
    ),
    pr(11688, "[CI] Fix po translate bug", "wangxiyuan", categories=("platform-ci", "bugfix")),
)
# a real code change of the same day
LORA = pr(
    10977,
    "[Feature][LoRA][MoE] Support LoRA with unquantified MoE models",
    "yupeng",
    modules=("lora", "moe", "kernels"),
    categories=("feature",),
    additions=572,
)


def text_of(s, lang: str) -> str:
    return LINK.sub(r"\1", render_markdown(s, lang))


def lead(text: str) -> str:
    """The paragraph before the first section."""
    return re.split(r"\n## ", text, maxsplit=1)[0].rstrip().rsplit("\n\n", 1)[-1]


def cn_line(roles: tuple[str, ...]) -> Storyline:
    return Storyline(
        key="cn",
        name="CN",
        items=tuple(
            StorylineItem(number=i.number, role=r) for i, r in zip(CN_DOCS, roles, strict=True)
        ),
        lead=11652,
        merged=3,
    )


def with_lines(*lines: Storyline, extra=()):
    base = explained_summary()
    return base.model_copy(
        update={"storylines": lines, "referenced": (*base.referenced, *CN_DOCS, *extra)}
    )


@pytest.mark.parametrize(
    "roles",
    [
        ("docs", "docs", "ci"),  # the roles the storylines gave them
        ("fix", "fix", "fix"),  # fixes by role, docs and CI by kind: still no code
    ],
)
def test_a_line_of_docs_and_ci_changes_is_no_main_line(roles):
    s = with_lines(cn_line(roles))
    en, zh = text_of(s, "en"), text_of(s, "zh-CN")
    assert "main line" not in lead(en) and "CN" not in lead(en)
    assert "Most of the work went into" in lead(en)
    assert "主线" not in lead(zh)
    summary = section(en, "1. Executive summary")
    assert "main line" not in summary and "Most of the work went into" in summary
    assert "主线" not in section(zh, "1. 执行摘要")
    # the line is still told
    assert "**CN**" in section(en, "Highlights") and "**CN**" in section(zh, "亮点")


def test_a_line_with_code_stays_a_main_line():
    code = Storyline(
        key="lora",
        name="LoRA",
        items=(
            StorylineItem(number=10977, role="feature"),
            StorylineItem(number=11652, role="docs"),
        ),
        lead=10977,
        merged=2,
    )
    s = with_lines(code, cn_line(("docs", "docs", "ci")), extra=(LORA,))
    en, zh = text_of(s, "en"), text_of(s, "zh-CN")
    assert "The main line of work was LoRA." in lead(en) + "."
    assert "本期主线包括 LoRA" in lead(zh)
    assert "The main line of work was LoRA (2 merged PRs)." in section(en, "1. Executive summary")


def test_a_proper_name_is_not_quoted_in_chinese_a_phrase_is():
    base = explained_summary()
    first, second = base.storylines[:2]
    for name, quoted in (
        ("Ascend 950 (A5)", False),  # 2026-W22's line of the A5 hardware
        ("DeepSeek V4", False),
        ("Qwen3.5 MTP (Eagle3)", False),
        ("Rewrite Qwen3-30B-A3B and Qwen3-Coder-30B-A3B tutorials", True),  # 2026-W27
    ):
        st = second.model_copy(update={"name": name})
        s = base.model_copy(update={"storylines": (first, st)})
        zh = text_of(s, "zh-CN")
        assert (f"「{name}」" in zh) is quoted, name
        assert f"**{name}**" in section(zh, "亮点") or f"**「{name}」**" in section(zh, "亮点")


def test_chinese_module_names_lines_and_notes_read_as_chinese():
    zh = messages("zh-CN")
    assert zh.name("module_names", "kernels") == "算子"
    assert zh.t("story.module_line", module="算子") == "其他算子变更"
    assert zh.t("storyline_names.upgrades", name="vLLM") == "vLLM 版本同步"
    assert zh.tn("story.continuing_n", 13, previous="13") == "上期已有 13 个相关 PR，本期继续推进"
    assert (
        zh.join(["@zzzzwwjj", "@realliujiaxu", "@LCAIZJ"]) == "@zzzzwwjj、@realliujiaxu 和 @LCAIZJ"
    )
    # a PR's notes: the sample's lead, a feature its description says was unit and e2e tested
    s = explained_summary()
    themes = section(text_of(s, "zh-CN"), "2. 重点变化")
    assert "新功能，附基准测试" in themes and "附单元和端到端测试" in themes
    assert "测试：" not in themes
    assert "feature · tested: benchmark" in section(text_of(s, "en"), "2. Key changes")


# ---------------------------------------------------------------- why a key change matters

# real 2026-W22 changes, their digests as the classifier reads their descriptions
FULL_AND_PIECEWISE = pr(
    9572,
    "[1/N][Feature] Support `FULL_AND_PIECEWISE`",
    "yiz-liu",
    modules=("compilation/graphs",),
    categories=("feature",),
).model_copy(
    update={
        "digest": Digest(
            what="This is the initial support of FULL_AND_PIECEWISE and there are several issues "
            "remain to be resolved: Mixed batch and uniform batch should have seperated sizes "
            "for capturint;",
            user_facing="yes",
            user_facing_text="the default graph mode is changed to FULL_AND_PIECEWISE which "
            "aligns to upstream defaults.",
        )
    }
)
ROTARY = pr(
    9363,
    "[BugFix][Ops] Support mixed precision rotary mul",
    "Qi Mao",
    modules=("kernels",),
    categories=("bugfix",),
    additions=1848,
).model_copy(
    update={
        "digest": Digest(
            what="Ports the mixed precision inplace_partial_rotary_mul changes from "
            "cann-recipes-infer PR 456 into the vLLM Ascend operator layout.",
            user_facing="no",
        )
    }
)


def with_keys():
    base = explained_summary()
    keys = (
        KeyPR(item=FULL_AND_PIECEWISE, score=9.9, reasons=("feature", "user_facing", "core")),
        KeyPR(item=ROTARY, score=0.5, reasons=("large",)),  # last: not told above
    )
    return base.model_copy(update={"key_prs": (*keys, *base.key_prs)})


def test_a_key_change_is_told_by_what_it_means_then_why_it_was_picked():
    s = with_keys()
    en, zh = text_of(s, "en"), text_of(s, "zh-CN")
    # a highlight with no what-sentence that fits says what users get, not tags
    highlights = section(en, "Highlights")
    assert (
        "**Support `FULL_AND_PIECEWISE`**: The default graph mode is changed to "
        "FULL_AND_PIECEWISE which aligns to upstream defaults — #9572"
    ) in highlights.replace("\\`", "`")
    assert "new feature; user-facing change" not in highlights
    assert "「The default graph mode is changed to FULL_AND_PIECEWISE" in section(zh, "亮点")
    rows = {
        int(m.group(1)): ln
        for ln in section(en, "Key PR quick view").splitlines()
        if (m := re.match(r"\| #(\d+) ", ln))
    }
    # what it means for users, then the selection's reasons
    assert (
        "| The default graph mode is changed to FULL_AND_PIECEWISE which aligns to "
        "upstream defaults (new feature; user-facing change; touches core paths) |"
    ) in rows[9572]
    # a change with no user-facing sentence: what it does, told once (here, not beside the title)
    assert (
        rows[9363]
        .replace("\\", "")
        .startswith("| #9363 [BugFix][Ops] Support mixed precision rotary mul | Ports")
    )
    assert "operator layout (large change) |" in rows[9363]
    assert en.count("Ports the mixed precision") == 1
    # section 2 does not tell again what the highlight said: its reasons there
    themes = section(en, "2. Key changes by theme")
    assert "_new feature; user-facing change; touches core paths_" in themes
    assert "The default graph mode" not in themes
    zh_rows = [ln for ln in section(zh, "重点 PR 速览").splitlines() if ln.startswith("| #9572")]
    assert "| 「The default graph mode is changed to" in zh_rows[0]
    assert "」（新功能；面向用户的变更；涉及核心路径） |" in zh_rows[0]


def test_what_section_2_and_3_leave_out_is_said_by_kind():
    """2026-W22: "Also:" before eleven bare numbers, "Also active: Other work in Kernels.", a
    trend cell "up; main line: DSA" and a hanging "… and 19 more" under the trend table."""
    s = explained_summary()
    en, zh = text_of(s, "en"), text_of(s, "zh-CN")
    assert "Also 1 fix: #10333; 1 revert: #10340" in en
    assert "另有 1 个修复：#10333；1 个回滚：#10340" in zh
    assert "| up; 2 of them DeepSeek-V4 work |" in en
    assert "| 上升（其中 2 项属于 DeepSeek-V4） |" in zh
    zh_m = messages("zh-CN")
    assert zh_m.tn("modules_table.more", 19, count="19") == "……另有 19 个变更较少的模块"
    assert messages("en").tn("modules_table.more", 19, count="19") == (
        "… and 19 more modules with fewer changes"
    )


def test_line_totals_are_split_by_kind_of_file():
    """2026-07-09's "a net reduction of 73 lines" hid docs and translations, net -12.5k, behind
    code +12.4k: section 1 gives each kind of file (the summarizer's Counts.lines_by_kind, here
    2026-W22's)."""
    base = explained_summary()
    kinds = (
        LineCount(kind="code", added=9625, removed=3758),
        LineCount(kind="tests", added=6689, removed=677),
        LineCount(kind="docs", added=1688, removed=1232),
        LineCount(kind="imported", added=1848, removed=0),
    )
    s = base.model_copy(update={"counts": base.counts.model_copy(update={"lines_by_kind": kinds})})
    en = section(text_of(s, "en"), "1. Executive summary")
    assert (
        "a net growth of 2,332 lines: code +9,625 / -3,758; tests +6,689 / -677; docs and "
        "translations +1,688 / -1,232; code ported in from elsewhere +1,848 / -0."
    ) in en
    zh = section(text_of(s, "zh-CN"), "1. 执行摘要")
    assert (
        "净增加 2,332 行，其中代码 +9,625 / -3,758；测试 +6,689 / -677；文档与翻译 "
        "+1,688 / -1,232；从其他项目迁入的代码 +1,848 / -0。"
    ) in zh
    # one kind, a summary made before the split, or lines mostly of files the source did not
    # list (events without file lists): the totals alone
    unlisted = (kinds[0], LineCount(kind="unlisted", added=20000, removed=0))
    for alone in ((kinds[0],), (), unlisted):
        s = base.model_copy(
            update={"counts": base.counts.model_copy(update={"lines_by_kind": alone})}
        )
        en = section(text_of(s, "en"), "1. Executive summary")
        assert "a net growth of 2,332 lines." in en and "code +" not in en


@pytest.mark.parametrize(
    "text,limit,expected",
    [
        # real #9739's title (the source cut it at "rota…"; our cuts end at a word's end)
        (
            "[BugFix][A2/A3]Preserve fp32 RoPE sin/cos for DSA compressor and rotary embedding",
            70,
            "[BugFix][A2/A3]Preserve fp32 RoPE sin/cos for DSA compressor and…",
        ),
        # a long word near the start is not cut into either (real #9530's title)
        (
            "[BugFix] Fixed the issue where cv_indexer_qkv_prepare's multistream parallel capability",
            40,
            "[BugFix] Fixed the issue where…",
        ),
        # Chinese: every character is a word's edge
        ("修复中文文档翻译中的错误并更新术语表", 8, "修复中文文档翻译…"),
        # one unbroken run (a digest) is cut where it must be
        ("0123456789abcdef0123456789abcdef", 10, "0123456789…"),
        ("fits as it is", 40, "fits as it is"),
    ],
)
def test_a_cut_ends_at_a_words_end(text, limit, expected):
    from services.renderer.domain.text import cut_words

    assert cut_words(text, limit) == expected


def test_a_change_told_by_a_title_phrase_is_quoted_in_chinese_a_name_is_not():
    """An instability opens with its subject: a title of ordinary words is quoted in Chinese as
    titles are (real #8308's line, its title as it might be longer), a name is not."""
    base = explained_summary()
    for subject, quoted in (
        ("Support mixed precision rotary mul", True),  # real #9363's title
        ("Ascend 950 (A5)", False),
        ("build cache", False),
    ):
        incidents = tuple(
            i.model_copy(update={"subject": subject}) if i.kind == "instability" else i
            for i in base.incidents
        )
        zh = text_of(base.model_copy(update={"incidents": incidents}), "zh-CN")
        head = subject[0].upper() + subject[1:]
        assert (f"- 「{head}」：#10301 引入" in zh) is quoted, subject
        assert (f"- {head}：#10301 引入" in zh) is not quoted, subject


def test_a_key_change_told_by_its_what_in_a_highlight_says_what_it_means_in_section_2():
    """2026-W22: the highlight of #9572 says what it is ("This is the initial support of
    FULL_AND_PIECEWISE"); section 2 then says what it means for users before why it was picked,
    not the tags alone."""
    short = FULL_AND_PIECEWISE.model_copy(
        update={
            "digest": FULL_AND_PIECEWISE.digest.model_copy(
                update={"what": "This is the initial support of FULL_AND_PIECEWISE."}
            )
        }
    )
    base = with_keys()
    keys = tuple(
        k.model_copy(update={"item": short}) if k.item.number == 9572 else k for k in base.key_prs
    )
    en = text_of(base.model_copy(update={"key_prs": keys}), "en")
    assert "FULL_AND_PIECEWISE`**: This is the initial support of FULL_AND_PIECEWISE — #9572" in (
        section(en, "Highlights").replace("\\`", "`")
    )
    themes = section(en, "2. Key changes by theme")
    assert (
        "_The default graph mode is changed to FULL_AND_PIECEWISE which aligns to upstream "
        "defaults (new feature; user-facing change; touches core paths)_"
    ) in themes


# ---------------------------------------------------------------- a day's hot topics

# real 2026-07-09 changes with the kinds the classifier gave them: (number, kinds, support?)
KINDS = [
    (11528, ("platform-ci", "performance", "test"), True),  # Optimize 310P E2E test duration
    (11087, ("feature", "test", "platform-ci"), True),  # Add new models for moe lora e2e tests
    (11652, ("docs", "bugfix", "platform-ci"), True),  # Fix wrong CN translate
    (11654, ("refactor", "docs"), True),  # Clean up uesless babel tip in po
    (11541, ("test", "platform-ci"), True),  # Modify the 310p configuration file
    (11451, ("feature", "test"), False),  # Enable c8_enable_reshape_optim for A5 and add ut
    (10977, ("feature",), False),  # Support LoRA with unquantified MoE models
    (11282, ("bugfix",), False),  # Split unquant fused MC2 weights
    (11462, ("platform-ci", "performance", "test"), True),  # optimize e2e test of test_uva.py
]


@pytest.mark.parametrize("number,kinds,support", KINDS)
def test_a_change_of_ci_docs_or_tests_only_is_told_apart_from_code(number, kinds, support):
    from services.renderer.domain.view import _support_item

    assert _support_item(pr(number, "t", "a", categories=kinds)) is support


def test_a_day_is_not_compared_with_the_day_before_and_a_module_is_told_by_its_code():
    """2026-07-09: "Activity rose most in Kernels: 8 items, 8 more than the previous window" and
    "MoE (… This area was quiet in the previous window …): #11528 Optimize 310P E2E test
    duration; #11087 Add new models for moe lora e2e tests"."""
    from .samples import daily_summary

    s = daily_summary()
    moe = [t for t in s.modules if t.module == "moe"][0]
    ci = (
        pr(
            11528,
            "[CI][310p]: Optimize 310P E2E test duration",
            "a",
            modules=("moe",),
            categories=KINDS[0][1],
            additions=5000,  # the biggest of the module: first by size
        ),
        pr(
            11087,
            "[Misc] Add new models for moe lora e2e tests.",
            "b",
            modules=("moe",),
            categories=KINDS[1][1],
            additions=4000,
        ),
    )
    merged = (
        tuple(i.model_copy(update={"merged_at": s.window.start}) for i in ci)
        + s.appendix.merged_prs
    )
    s = s.model_copy(update={"appendix": s.appendix.model_copy(update={"merged_prs": merged})})
    for lang in ("en", "zh-CN"):
        text = text_of(s, lang)
        assert "rose most" not in text and "增加最多" not in text
        topics = section(text, "2.")
        assert (
            "previous window" not in topics and "上一窗口" not in topics and "上升到" not in topics
        )
        # the MoE topic names MoE code, never the CI job or the test list tagged MoE
        assert "#11528" not in topics and "#11087" not in topics
        assert moe.total >= 2


STORE_KV = pr(
    10292,
    "[Feature] add ascendc ops store_kv_block",
    "ZT-AIA",
    modules=("kernels",),
    categories=("feature",),
).model_copy(
    update={
        "digest": Digest(
            what="Control whether to use the operator by using additional-config "
            '\'{"enable_sparse_c8":true,"c8_enable_reshape_optim":true}\'.',
            user_facing="yes",
            user_facing_text="By enabling c8_enable_reshape_optim on the P node",
        )
    }
)


def test_a_key_change_says_what_it_does_before_a_fragment_of_its_user_facing_answer():
    # real 2026-W24 #10292: its user-facing answer is a fragment ("By enabling … on the P node");
    # the quick view told only that, and the change's what was nowhere in the report
    base = explained_summary()
    s = base.model_copy(
        update={"key_prs": (*base.key_prs, KeyPR(item=STORE_KV, score=0.4, reasons=("feature",)))}
    )
    en = text_of(s, "en")
    assert en.count("Control whether to use the operator") == 1, en
    # a new default is what users get: said beside what the change does
    d = STORE_KV.digest.model_copy(update={"default_change": "c8_enable_reshape_optim is on"})
    item = STORE_KV.model_copy(update={"digest": d})
    s = base.model_copy(
        update={"key_prs": (*base.key_prs, KeyPR(item=item, score=0.4, reasons=("feature",)))}
    )
    en = text_of(s, "en")
    assert en.count("Control whether to use the operator") == 1
    assert "By enabling c8_enable_reshape_optim" in en
