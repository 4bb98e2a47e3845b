"""Property: however a log is cut into batches, shuffled within them or redelivered, the
projections (and so every figure) come out the same as folding it once in order."""

from __future__ import annotations

import random
from hypothesis import HealthCheck, given, settings, strategies as st

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.report import build_summary, figures
from services.summarizer.domain.windows import previous_window
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario, utc, watermark

WINDOW = day_window(utc(2026, 3, 26).date(), "UTC")
LOG = [*random_scenario(17, WINDOW.start, 1.0, n_items=40).events(), watermark(WINDOW.end)]


def fold_all(url: str, batches) -> tuple[dict, dict]:
    store = SqlProjections(url)
    try:
        store.migrate()
        for batch in batches:
            store.fold(batch, now=WINDOW.end)
        summary = build_summary(store.load_window(REPO, WINDOW, previous_window(WINDOW)), now=WINDOW.end)
        return store.counts(), figures(summary)
    finally:
        store.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), cuts=st.integers(1, 12), redeliver=st.floats(0, 0.5))
def test_any_batching_and_redelivery_folds_to_the_same_figures(tmp_path_factory, seed, cuts, redeliver):
    rnd = random.Random(seed)
    reference = fold_all(f"sqlite:///{tmp_path_factory.mktemp('ref') / 'p.db'}", [LOG])
    # cut into batches (keeping the watermark after the facts, as the bus delivers), shuffle
    # facts inside each batch, then re-send a random share of what was already delivered
    facts, mark = LOG[:-1], LOG[-1]
    points = sorted(rnd.sample(range(1, len(facts)), min(cuts, len(facts) - 1)))
    batches = [list(facts[a:b]) for a, b in zip([0, *points], [*points, len(facts)])]
    for batch in batches:
        rnd.shuffle(batch)
    delivered = [e for b in batches for e in b]
    again = [e for e in delivered if rnd.random() < redeliver]
    batches += [again, [mark], [mark, *again[:3]]]
    got = fold_all(f"sqlite:///{tmp_path_factory.mktemp('got') / 'p.db'}", batches)
    assert got[0]["activity"] == reference[0]["activity"] == len(facts)
    assert got[0]["processed"] == reference[0]["processed"] == len(LOG)
    assert got[0]["items"] == reference[0]["items"]
    assert got[1] == reference[1]
