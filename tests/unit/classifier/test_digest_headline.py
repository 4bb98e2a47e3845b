"""The claim that matters comes first, tool output is no claim, a long sentence is cut where a
clause ends (issue #15 item 1, on real vllm-ascend descriptions):

- every before/after pair is read, and the first claim is the change of the metric the title or
  what-sentence names, else the largest relative change; a change under 2% never heads when the
  same body states a larger one;
- a result a tool printed (a log line with its timestamp, a table aligned by spaces) with no
  baseline beside it is no claim;
- a what/why sentence over the limit is cut where a clause ends, never inside a word.
"""

from __future__ import annotations

import re

import pytest

from services.classifier.domain.digest import (
    ELLIPSIS,
    MAX_TEXT,
    SMALL_CHANGE,
    _change,
    clip,
    digest_of,
    is_span,
    normalized,
)
from shared.events.enriched import Digest
from tests.conftest import history_prs

REPO = "vllm-project/vllm-ascend"


def digest(title: str, body: str, number: int | None = None) -> Digest:
    d = digest_of(title, body, repo=REPO if number else None, number=number)
    assert d is not None  # (always a Digest: `| None` is the type of Tags.digest)
    return d


def real(number: int) -> tuple[dict, Digest]:
    r = history_prs()[number]
    return r, digest(r["title"], r["body"], number)


# ---------------------------------------------------------------- the claim that matters first


def test_the_largest_change_heads_not_the_first_row() -> None:
    # "| Total time | 12.6s | 12.5s | -0.8% |" is the first row; "| queue p99 | 603.63ms |
    # 2.64ms | -99.56% |" (a row whose cells carry the unit, ms) is what the change did
    r, d = real(10548)
    first = d.claims[0]
    assert (first.metric, first.before, first.after) == ("queue p99", "603.63ms", "2.64ms")
    assert all(is_span(c.sentence, r["body"]) for c in d.claims)
    # the near-flat total time never heads
    assert all(c.metric != "Total time" for c in d.claims[:1])


def test_the_larger_row_of_a_results_table_heads() -> None:
    # "| 4k | 429.40 | 323.3 |" (-25%) and "| 16k | 1297.01 | 911.74 |" (-30%): both kept, 16k first
    _, d = real(7044)
    assert [(c.before, c.after) for c in d.claims] == [("1297.01", "911.74"), ("429.40", "323.3")]
    assert d.claims[0].metric == "Mean TTFT (ms)"


def test_a_change_under_two_percent_never_heads_a_larger_one_on_real_bodies() -> None:
    # every description of the history: the first claim's change is at least 2% whenever another
    # claim states a larger one (a scan of all 4,734; 20 state two changes or more)
    checked = 0
    for n, r in history_prs().items():
        body = r["body"] or ""
        if "->" not in body and "→" not in body and "|" not in body and " to " not in body:
            continue
        d = digest(r["title"], body, n)
        changes = [x for x in map(_change, d.claims) if x is not None]
        if len(changes) < 2:
            continue
        checked += 1
        head = _change(d.claims[0])
        assert head is not None, (n, d.claims[0])
        assert head >= SMALL_CHANGE or head >= max(changes), (n, d.claims)
    assert checked >= 15


def _body(*lines: str) -> str:
    return (
        "### What this PR does / why we need it?\nOverlap the prefill.\n\n### How was this patch"
        " tested?\n" + "\n\n".join(lines) + "\n"
    )


def test_the_metric_the_title_names_heads() -> None:
    body = _body(
        "Throughput went from 100 tok/s -> 130 tok/s.",
        "TTFT decreased from 200ms to 180ms.",
    )
    # the title names TTFT: its change (10%) heads the larger throughput change (30%)
    d = digest("[Perf] Lower TTFT of the prefill", body)
    assert [c.metric for c in d.claims] == ["TTFT", "Throughput"]
    # a title that names neither: the larger change heads
    d = digest("[Perf] Overlap the prefill", body)
    assert [c.metric for c in d.claims] == ["Throughput", "TTFT"]


def test_a_named_metric_that_barely_moved_does_not_head() -> None:
    body = _body(
        "TTFT decreased from 200ms to 199ms.",
        "Throughput went from 100 tok/s -> 130 tok/s.",
    )
    d = digest("[Perf] Lower TTFT of the prefill", body)
    assert d.claims[0].metric == "Throughput"


def test_a_relative_change_reads_units_and_separators() -> None:
    body = _body(
        "Latency went from 1.5 s -> 750 ms.",  # -50%, across units
        "Throughput went from 10,000 tps to 13,000 tps.",  # +30%, thousands
        "TPOT improves by 8%.",  # a trend with its figure
    )
    d = digest("Speed up decode", body)
    assert [round(_change(c) or 0, 2) for c in d.claims] == [0.5, 0.3, 0.08]


# ---------------------------------------------------------------- tool output is no claim


@pytest.mark.parametrize(
    "number",
    [
        11195,  # "[2026-06-29 11:59:55,012] [ais_bench] [INFO] …" / "GPQA_diamond  b1ed2c  … 86.00"
        5682,  # "gsm8k      7cd45e     accuracy  gen     96.88" under an aligned header
        4802,  # "Test result:" then the same printed table
    ],
)
def test_a_printed_result_without_a_baseline_is_no_claim(number: int) -> None:
    _, d = real(number)
    assert d.claims == (), d.claims


def test_a_prose_claim_beside_printed_output_stays() -> None:
    # "After the repair, 50 GPQA runs were performed, with an accuracy of 90%" stays; the printed
    # "GPQA_diamond  b1ed2c  accuracy  gen  90.00" goes
    _, d = real(10907)
    assert [c.figures for c in d.claims] == [("90%",)]
    # "dataset: gsm8k-lite，without set MTP, FULL GRAPH, has 19% promote：" above a box-drawn table
    _, d = real(5952)
    assert any("19%" in c.figures for c in d.claims), d.claims


def test_a_printed_result_beside_its_baseline_stays() -> None:
    # "main :    TTFT 307 ms         TPOT 49.96ms" / "this pr :  TTFT 272.82ms    TPOT 41.04ms"
    _, d = real(7819)
    assert d.claims and "307 ms" in d.claims[0].figures


def test_a_timestamped_log_line_is_no_claim() -> None:
    body = _body("[2026-06-29 11:59:55,012] throughput improved from 100 tok/s -> 200 tok/s")
    assert digest("Speed up", body).claims == ()
    # the same words said by the author are one
    body = _body("The throughput improved from 100 tok/s -> 200 tok/s.")
    assert len(digest("Speed up", body).claims) == 1


# ---------------------------------------------------------------- a long sentence, cut at a clause


@pytest.mark.parametrize(
    "number,ends",
    [
        # "… padded to the max capture size, with dist.all_to_all_single + raw …"
        (10586, "padded to the max capture size…"),
        # "… in the fused_recurrent_gated_delta_rule operator, which checks whether …"
        (7506, "fused_recurrent_gated_delta_rule operator…"),
    ],
)
def test_a_long_what_is_cut_where_a_clause_ends(number: int, ends: str) -> None:
    r, d = real(number)
    assert d.what.endswith(ends), d.what
    assert len(d.what) <= MAX_TEXT and is_span(d.what, r["body"])


def test_a_cut_is_never_inside_brackets_or_early() -> None:
    text = "Word " * 20 + "(a, b, c, d) " + "more words " * 30
    cut = clip(text)
    assert cut.endswith(ELLIPSIS) and cut.count("(") == cut.count(")")
    # no clause end in the last 40% of the limit: cut at a word
    text = "Short, then " + "a long run of words without any clause mark " * 8
    cut = clip(text)
    assert len(cut) > MAX_TEXT // 2 and cut.endswith(ELLIPSIS)


def test_no_cut_what_ends_inside_a_word_on_real_bodies() -> None:
    cut = 0
    for n, r in history_prs().items():
        body = r["body"] or ""
        if len(body) < MAX_TEXT:
            continue
        d = digest(r["title"], body, n)
        if not d.what.endswith(ELLIPSIS):
            continue
        cut += 1
        head = normalized(d.what.removesuffix(ELLIPSIS))
        text = normalized(body)
        at = text.find(head)
        assert at >= 0, (n, d.what)
        after = text[at + len(head) : at + len(head) + 1]
        assert not re.match(r"\w", after) or not re.match(r"\w", head[-1:]), (n, d.what)
    assert cut >= 20
