"""A change's measured effect beside it (2026-W13: "every highlight needs … a number from the
body"): a highlight and the lead of a line of work in section 2 carry the lead's measured figure
in a few words, taken from its first claim that states a change; the key-PR quick view says it
instead of "measured results"; a table row is told by its column and case. A level alone ("TTFT
330ms") states no change and is not shown."""

from __future__ import annotations

import pytest

from services.renderer.adapters.documents import render_markdown, view_for
from shared.events import Claim, SummaryData

from .explain_samples import explained_summary

PAIR = Claim(
    kind="performance",
    sentence="| 4k | 429.40 | 323.3 |",
    figures=("429.40", "323.3"),
    metric="Mean TTFT (ms)",
    before="429.40",
    after="323.3",
    header="| Seq length | Mean TTFT (ms) main | Mean TTFT (ms) this PR |",
)
TREND = Claim(
    kind="performance",
    sentence="It reduces KV cache memory by ~50% compared to BF16.",
    figures=("~50%",),
    metric="KV cache memory",
    trend="reduced",
)
LEVEL = Claim(kind="performance", sentence="ngram+async: ttft 136ms tpot 33ms", figures=("136ms",))


def with_lead_claims(*claims: Claim) -> SummaryData:
    """The sample week with the DeepSeek-V4 line's lead (#10501, a key PR) stating `claims`."""
    s = explained_summary()
    first = s.key_prs[0]
    assert first.item.number == s.storylines[0].lead and first.item.digest is not None
    digest = first.item.digest.model_copy(update={"claims": claims})
    item = first.item.model_copy(update={"digest": digest})
    keys = (first.model_copy(update={"item": item}), *s.key_prs[1:])
    return s.model_copy(update={"key_prs": keys})


def section(text: str, title: str) -> str:
    head = next(ln for ln in text.splitlines() if ln.startswith("## ") and title in ln)
    return text.split(head, 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize(
    "lang,paren,line,why",
    [
        (
            "en",
            " (Mean TTFT (ms), 4k: 429.40 → 323.3, −25%)",
            "measured: Mean TTFT (ms), 4k: 429.40 → 323.3, −25%",
            "measured: Mean TTFT (ms), 4k: 429.40 → 323.3, −25%",
        ),
        (
            # what it measured, in the description's English words, is quoted in Chinese prose
            "zh-CN",
            "（「Mean TTFT (ms)」，4k：429.40 → 323.3，−25%）",
            "实测「Mean TTFT (ms)」，4k：429.40 → 323.3，−25%",
            "实测「Mean TTFT (ms)」，4k：429.40 → 323.3，−25%",
        ),
    ],
)
def test_the_first_measured_figure_stands_beside_the_highlight_and_the_lead(
    lang: str, paren: str, line: str, why: str
) -> None:
    s = with_lead_claims(PAIR, TREND)  # the digest's first claim (a table row: its case, -25%)
    v = view_for(s, lang)
    bullet = next(b for b in v.highlights if b.key == "deepseek-v4")
    assert bullet.text.endswith(paren), bullet.text
    theme = next(t for t in v.themes if t.key == "deepseek-v4")
    lead = next(ln for ln in theme.lines if ln.link.number == 10501)
    assert lead.text == line  # its sentence went up to the highlight; the figure stays
    other = next(ln for ln in theme.lines if ln.link.number == 10502)
    assert "→" not in other.text  # the lead's, not every line's
    key = next(k for k in v.key_prs if k.link.number == 10501)
    assert why in key.why


def test_a_trend_is_said_with_what_it_measured() -> None:
    v = view_for(with_lead_claims(TREND), "en")
    bullet = next(b for b in v.highlights if b.key == "deepseek-v4")
    assert bullet.text.endswith(" (KV cache memory reduced by ~50%)")
    zh = view_for(with_lead_claims(TREND), "zh-CN")
    assert next(b for b in zh.highlights if b.key == "deepseek-v4").text.endswith(
        "（「KV cache memory」降低 ~50%）"
    )


@pytest.mark.parametrize(
    "number,metric,said",
    [
        # real metrics of the history's descriptions (2025-W52's #5212, 2026-W27's #10730)
        (5212, "throughput performance", "（「throughput performance」提升 18%）"),
        (10730, "avg execution time", "（「avg execution time」提升 18%）"),
        # a name or an acronym is written as it is, spaced from the Chinese around it
        (None, "TTFT", "（TTFT 提升 18%）"),
        (None, "TTFT (ms)", "（TTFT (ms) 提升 18%）"),
        # a code name of the description is quoted too (2026-W27's "_create_custom_4d_mask")
        (None, "_create_custom_4d_mask", "（「_create_custom_4d_mask」提升 18%）"),
        (None, "HBM 峰值占用", "（HBM 峰值占用提升 18%）"),
    ],
)
def test_a_chinese_report_quotes_what_was_measured_in_english_words(number, metric, said) -> None:
    if number is not None:
        from tests.conftest import history_prs

        assert metric in " ".join(history_prs()[number]["body"].split())
    claim = TREND.model_copy(update={"metric": metric, "figures": ("18%",), "trend": "improved"})
    zh = view_for(with_lead_claims(claim), "zh-CN")
    assert next(b for b in zh.highlights if b.key == "deepseek-v4").text.endswith(said)
    # English prose keeps the words as they are
    en = view_for(with_lead_claims(claim), "en")
    assert next(b for b in en.highlights if b.key == "deepseek-v4").text.endswith(
        f" ({metric} improved by 18%)"
    )


def test_a_level_alone_states_no_change_and_is_not_shown() -> None:
    v = view_for(with_lead_claims(LEVEL), "en")
    bullet = next(b for b in v.highlights if b.key == "deepseek-v4")
    assert "136ms" not in bullet.text and "(" not in bullet.text[-3:]
    key = next(k for k in v.key_prs if k.link.number == 10501)
    assert "measured results" in key.why and "136ms" not in key.why


def test_a_table_row_is_told_by_its_column_and_case() -> None:
    # a row is no sentence: what it measured, its case, before → after and the change, no pipes
    text = render_markdown(with_lead_claims(PAIR), "en")
    themes = section(text, "Key changes by theme")
    assert "  > Mean TTFT (ms), 4k: 429.40 → 323.3 (−25%)\n" in themes
    assert "\\|" not in themes
