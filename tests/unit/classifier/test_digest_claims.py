"""Measured claims of real vllm-ascend descriptions (each body read by hand): a change stated as a
pair ("from 26us to 11 us", "141ms49us620ns --> … 1ms227us780ns", "TPOT：21.75ms -> 21.09ms"), a
trend with its figure ("reducing KV cache memory by ~50%"), a results table against a baseline
column or row — and what is no claim: settings, versions, counts and operators written with
arrows or "from X to Y"."""

from __future__ import annotations

import pytest

from services.classifier.domain.digest import digest_of, is_span
from shared.events.enriched import Claim, Digest
from tests.conftest import history_prs

REPO = "vllm-project/vllm-ascend"


_rows = history_prs  # the real history, by number (tests/conftest.py)


def real(number: int) -> tuple[dict, Digest]:
    r = _rows()[number]
    return r, digest_of(r["title"], r["body"], repo=REPO, number=number)


# number -> a claim the body states: (metric, before, after, trend, a figure, header substring);
# None where the body names no such field
POSITIVE = [
    # "- when bs = 256, time cost reduce from 26us to 11 us;"
    (7496, ("time cost", "26us", "11 us", "reduced", "26us to 11 us", None)),
    # "1. _create_custom_4d_mask during 141ms49us620ns -->\n_create_npu_optimized_mask during
    # 1ms227us780ns": a time in parts, the pair across the words of the other side
    (7380, ("_create_custom_4d_mask", "141ms49us620ns", "1ms227us780ns", "", None, None)),
    # "2. convd2d : 27ms --> matmul <1ms": the label before the colon
    (7380, ("convd2d", "27ms", "<1ms", "", None, None)),
    # a table: "| Seq length | Mean TTFT (ms) main | Mean TTFT (ms) this PR |" / "| 4k | 429.40 |
    # 323.3 |": the row, told by its header's shared words
    (7044, ("Mean TTFT (ms)", "429.40", "323.3", "", None, "Mean TTFT (ms) main")),
    # "… reducing KV cache memory by ~50% compared to BF16 …"
    (7474, ("KV cache memory", None, None, "reduced", "~50%", None)),
    # "mapping decreased from 12.69 ms to 235.479 us" after a colon
    (12804, ("mapping", "12.69 ms", "235.479 us", "reduced", None, None)),
    # "| Metric | Before this PR | After this PR | Comparison |": the row's label is the metric,
    # the comparison column's cell a figure (of the table's rows, its largest changes)
    (7104, ("P99 TPOT (ms)", "334.38", "313.15", "", "-6.35% ↓", "| Metric |")),
    # "| scenario | before | after | speedup |": no metric, the speedup cell
    (13191, (None, "2189", "79", "", "27.8x", "| scenario | before |")),
    # "The input throughput increases from 10,000 tps to 13,300 tps on 950."
    (9900, ("input throughput", "10,000 tps", "13,300 tps", "improved", None, None)),
    # "TTFT decreased from 728.66s to 398.31s, delivering approximately 45% improvement."
    (8050, ("TTFT", "728.66s", "398.31s", "reduced", "45%", None)),
    # "Prefix-cache hit rate on an agent-scenario dataset: 33%(main) → 86%(this pr)": the thing,
    # not where it was measured
    (11383, ("Prefix-cache hit rate", "33%", "86%", "", None, None)),
    # a baseline row and this change's: "|main |733.98 | …" / "|main+fusedop | 740.33 | …"
    (2689, ("tps", "733.98", "740.33", "", None, "| branch| tps|")),
    # "|Without this PR|96.28|108.83|" / "|With this PR|96.06|107.90|"
    (5755, (None, "96.28", "96.06", "", None, None)),
    # "TPOT：21.75ms -> 21.09ms (-3.03%)"
    (10492, ("TPOT", "21.75ms", "21.09ms", "", None, None)),
    # "total token throughput improves by 16.54%"
    (8398, ("token throughput", None, None, "improved", "16.54%", None)),
]


def _matches(c: Claim, want: tuple) -> bool:
    metric, before, after, trend, figure, header = want
    return (
        (metric is None or c.metric == metric)
        and (before is None or c.before == before)
        and (after is None or c.after == after)
        and c.trend == trend
        and (figure is None or figure in c.figures)
        and (header is None or header in c.header)
    )


@pytest.mark.parametrize("number,want", POSITIVE, ids=[f"#{n}" for n, _ in POSITIVE])
def test_a_measured_claim_is_found_with_what_it_measured(number: int, want: tuple) -> None:
    r, d = real(number)
    assert any(_matches(c, want) for c in d.claims), d.claims
    for c in d.claims:  # every quoted text is a span of the body
        for text in (c.sentence, c.metric, c.header, c.before, c.after, *c.figures):
            assert is_span(text, r["body"]), (number, text)


# number -> why the body's arrows, "from X to Y" or tables state no measured change
NEGATIVE = [
    (7119, "settings: 'HCCL_BUFFSIZE: 1024 → 256', '--max-model-len: 68000 → 90000'"),
    (12929, "a count set: 'increase the number of operations from 200 to 1,000'"),
    (12710, "a setting: 'increasing the parameter from 30 to 200'"),
    (11236, "a constant: 'MAX_MTP … from **8 → 16**'"),
    (11294, "a log line of a count: 'updated num_layers 47 -> 48'"),
    (9560, "a test's arithmetic: 'verify padding arithmetic (20 -> 32)'"),
    (10895, "an operator: 'remainder = 512 % 128 = 0 -> seq_lens_from_hamming = 128 x 2'"),
    (8034, "a timeout set: 'reduce single-node job timeout from 600 to 120 minutes'"),
    (14671, "test coverage: 'went from 46% to 98%'"),
    (13901, "a version: 'from 9.0.1 to 9…'"),
    (9176, "a table of versions: '| Aspect | 0.20.2 | main |'"),
    (9035, "a table of files: '| File | Responsibility | Main caller |'"),
    (6503, "a table of file kinds: '| Original PR | Python (`.py`) | YAML (`.yaml`) |'"),
    (12368, "figures in a code block are output pasted, not told"),
]


@pytest.mark.parametrize("number,why", NEGATIVE, ids=[f"#{n}" for n, _ in NEGATIVE])
def test_a_setting_a_version_or_a_count_is_no_claim(number: int, why: str) -> None:
    _, d = real(number)
    assert d.claims == (), (why, d.claims)


def test_a_pair_keeps_apart_figures_of_other_clauses() -> None:
    # "ttft +5.4%( 221-> 233)， tpot +10% (40 -> 44)": the percentages of two metrics are no pair
    _, d = real(11925)
    assert d.claims and all(not c.before and not c.after for c in d.claims), d.claims


def test_a_level_alone_has_no_trend_and_a_named_thing_only() -> None:
    # "Performance microbench (Ascend 910, HCCL): view version is 1.2x–1.4x faster than the
    # list version.": the trend is said, "view version" is no measured thing
    _, d = real(12923)
    (c,) = [c for c in d.claims if "view version" in c.sentence]
    assert c.metric == "" and c.trend == "improved" and "1.2x–1.4x" in c.figures


# (number, the metric named after the figure, its trend): "~52% reduction in scalar pipe cycles",
# "nearly 2x higher prefill throughput" — the thing the figure measures, as the body says it
AFTER = [
    (9264, "scalar pipe cycles", "reduced"),
    (9473, "prefill throughput", "improved"),
]


@pytest.mark.parametrize("number,metric,trend", AFTER, ids=[str(n) for n, *_ in AFTER])
def test_a_metric_named_after_its_figure(number: int, metric: str, trend: str) -> None:
    r, d = real(number)
    (claim,) = [c for c in d.claims if metric in c.sentence]
    assert (claim.metric, claim.trend) == (metric, trend)
    assert is_span(claim.sentence, r["body"])


def test_a_figure_followed_by_no_trend_names_no_metric_after_it() -> None:
    # "3x smaller" names no thing measured after it; "2 more requests" is no trend of a metric
    body = "### What this PR does / why we need it?\nThis makes the cache 3x smaller, and 20% more requests fit.\n"
    d = digest_of("Shrink the cache", body)
    assert all(c.metric == "" for c in d.claims), d.claims
