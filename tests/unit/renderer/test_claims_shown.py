"""How a change's measured claims are shown (issue #15, renderer), on real vllm-ascend
descriptions digested as the classifier digests them:

- a table row is no sentence: it is told as what it measured (the header's column), which case
  (the row's first cell), before → after and the relative change when both figures are numbers
  of one unit ("Mean TTFT (ms), 16k: 1297.01 → 911.74 (−30%)"), never as raw cells and pipes;
- a sentence stays quoted as written;
- the figure beside a highlight follows the digest's order: its first claim that states a
  change heads, a trend is not passed over for a smaller pair.
"""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import digest_of
from services.renderer.adapters.catalogs import messages
from services.renderer.domain.view import _Writer
from shared.events import Claim, ItemRef
from shared.events.enriched import Digest
from tests.conftest import history_prs
from tests.unit.renderer.samples import pr, weekly_summary

REPO = "vllm-project/vllm-ascend"


def writer(lang: str = "en") -> _Writer:
    return _Writer(weekly_summary(), messages(lang))


def real_digest(number: int) -> Digest:
    r = history_prs()[number]
    d = digest_of(r["title"], r["body"] or "", repo=REPO, number=number)
    assert d is not None
    return d


def item_with(d: Digest) -> ItemRef:
    return pr(1, "A change", "someone").model_copy(update={"digest": d})


def item_of(number: int) -> ItemRef:
    return item_with(real_digest(number))


# ---------------------------------------------------------------- a table row, told


@pytest.mark.parametrize(
    "lang,first,second,measured",
    [
        (
            "en",
            "Mean TTFT (ms), 16k: 1297.01 → 911.74 (−30%)",
            "Mean TTFT (ms), 4k: 429.40 → 323.3 (−25%)",
            "Mean TTFT (ms), 16k: 1297.01 → 911.74, −30%",
        ),
        (
            "zh-CN",
            "「Mean TTFT (ms)」，16k：1297.01 → 911.74（−30%）",
            "「Mean TTFT (ms)」，4k：429.40 → 323.3（−25%）",
            "「Mean TTFT (ms)」，16k：1297.01 → 911.74，−30%",
        ),
    ],
)
def test_a_results_row_is_told_by_its_column_and_case(
    lang: str, first: str, second: str, measured: str
) -> None:
    # #7044: "| Seq length | Mean TTFT (ms) main | Mean TTFT (ms) this PR |" / "| 16k | 1297.01 |
    # 911.74 |" / "| 4k | 429.40 | 323.3 |" (the day 2026-03-24 quoted the raw header and row)
    w, item = writer(lang), item_of(7044)
    assert w.claims(item) == (first, second)
    assert w.measured(item) == measured
    assert all("|" not in q for q in w.claims(item))


def test_a_row_that_names_its_metric_is_told_once_with_its_change() -> None:
    # #10548: "| Metric | Baseline | Current | Change |" / "| queue p99 | 603.63ms | 2.64ms |
    # -99.56% |": the metric is the row's first cell, not repeated as a case
    w, item = writer(), item_of(10548)
    assert w.claims(item)[0] == "queue p99 603.63ms → 2.64ms (−99.6%)"
    assert w.measured(item) == "queue p99 603.63ms → 2.64ms, −99.6%"
    zh = writer("zh-CN")
    assert zh.measured(item) == "「queue p99」603.63ms → 2.64ms，−99.6%"


def test_what_the_columns_share_is_what_they_measured() -> None:
    # #11211: "|Shape|Averave Time Before(us)|Averave Time After(us)|", no metric from the digest:
    # the words both columns share, without a side's word; the time went up (+14%)
    w = writer()
    assert w.claims(item_of(11211))[0] == "Averave Time (us), [704, 512]: 11.0 → 12.560 (+14%)"


def test_percentages_change_by_points() -> None:
    # #12262: "| Token acceptance | 1.18% | 56.47% | +55.29 pp (≈48×) |": not "+4686%"
    w = writer()
    assert w.claims(item_of(12262))[0] == "Token acceptance 1.18% → 56.47% (+55 pp)"
    assert writer("zh-CN").claims(item_of(12262))[0].endswith("（+55 个百分点）")


def test_a_case_without_a_metric_is_told_by_its_first_cell() -> None:
    # #13191: "| scenario | before | after | speedup |": the columns name only the sides
    w = writer()
    assert w.claims(item_of(13191))[0] == "prefill B=4, ctx=4096: 2189 → 79 (−96%)"


def test_a_row_of_this_change_beside_a_baseline_row_names_no_case() -> None:
    # #7756: "| State | TTFT | TPS |" with a baseline row and "| current (8000a085) | 978.58 ms |
    # 164.67 |": the first cell names the change, not a case
    w = writer()
    first = w.claims(item_of(7756))[0]
    assert first == "TTFT 1048.64 ms → 978.58 ms (−6.7%)"
    assert "current" not in first


def test_no_change_is_worked_out_from_approximate_figures() -> None:
    # #9830: "| _split_qkv_and_compute_local_qk_var_kernel | ~0.67ms | ~0.134ms |"
    w = writer()
    first = w.claims(item_of(9830))[0]
    assert first == "_split_qkv_and_compute_local_qk_var_kernel: ~0.67ms → ~0.134ms"


def row(before: str, after: str, figures: tuple[str, ...] = ()) -> Claim:
    return Claim(
        kind="performance",
        sentence=f"| latency | {before} | {after} |",
        figures=figures or (before, after),
        metric="latency",
        before=before,
        after=after,
        header="| Metric | Before | After |",
    )


@pytest.mark.parametrize(
    "claim,told",
    [
        # one unit on both sides: worked out
        (row("10,000 tps", "13,000 tps"), "latency 10,000 tps → 13,000 tps (+30%)"),
        (row("12.6s", "12.5s"), "latency 12.6s → 12.5s (−0.8%)"),
        # two units: not worked out, nor a baseline of zero
        (row("1.5 s", "750 ms"), "latency 1.5 s → 750 ms"),
        (row("0", "12"), "latency 0 → 12"),
        # the table's own column of the change stands where none is worked out
        (row("1.5 s", "750 ms", ("1.5 s", "750 ms", "2.0x")), "latency 1.5 s → 750 ms (2.0x)"),
    ],
)
def test_a_change_is_worked_out_only_from_two_numbers_of_one_unit(claim: Claim, told: str) -> None:
    d = Digest(what="Speeds up the decode.", claims=(claim,))
    assert writer().claims(item_with(d)) == (told,)


def test_no_real_table_claim_is_shown_as_cells() -> None:
    # every description of the history whose digest keeps a table row (27 rows of 12 PRs):
    # none is shown with a pipe, each says before → after
    seen = 0
    w = writer()
    for n, r in history_prs().items():
        d = digest_of(r["title"], r["body"] or "", repo=REPO, number=n)
        if d is None or not any(c.header for c in d.claims):
            continue
        shown = w.claims(item_with(d))
        for c, text in zip(d.claims, shown, strict=False):
            if c.header:
                seen += 1
                assert "|" not in text and f"{c.before} → {c.after}" in text, (n, text)
    assert seen >= 15


# ---------------------------------------------------------------- a sentence, quoted


def test_a_sentence_stays_quoted_as_written() -> None:
    # #10730: "After replacing the fusion operators, the avg execution time drops from 7.541 µs to
    # 3.525 µs …": a sentence is evidence as written
    w, item = writer(), item_of(10730)
    first = w.claims(item)[0]
    assert first.startswith("“After replacing the fusion operators") and first.endswith("”")
    assert w.measured(item) == "avg execution time 7.541 µs → 3.525 µs"


# ---------------------------------------------------------------- the digest's order heads


TREND = Claim(
    kind="performance",
    sentence="It reduces KV cache memory by ~50% compared to BF16.",
    figures=("~50%",),
    metric="KV cache memory",
    trend="reduced",
)
PAIR = Claim(
    kind="performance",
    sentence="TTFT went from 200ms to 190ms.",
    figures=("200ms", "190ms"),
    metric="TTFT",
    before="200ms",
    after="190ms",
)
LEVEL = Claim(kind="performance", sentence="ngram+async: ttft 136ms tpot 33ms", figures=("136ms",))


def test_the_digests_first_claim_heads_not_a_smaller_pair() -> None:
    # the digest put the 50% trend first: a pair with its metric (5%) does not take its place
    w = writer()
    assert w.measured(item_with(Digest(claims=(TREND, PAIR)))) == "KV cache memory reduced by ~50%"
    assert w.measured(item_with(Digest(claims=(PAIR, TREND)))) == "TTFT 200ms → 190ms"


def test_a_claim_that_states_no_change_gives_way() -> None:
    # a level alone ("ttft 136ms") heads nothing: the next claim that states a change does
    w = writer()
    assert w.measured(item_with(Digest(claims=(LEVEL, PAIR)))) == "TTFT 200ms → 190ms"
    assert w.measured(item_with(Digest(claims=(LEVEL,)))) == ""
