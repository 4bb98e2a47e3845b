"""Per-item results worked out as merged changes fold (domain/memo.py): the store hands a report
the very objects the fold parsed, so the report finds every merged change's results already
there — and a report made that way is the report made from scratch."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime, timedelta

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain import memo
from services.summarizer.domain.memo import ItemMemo, TwoGenerations
from services.summarizer.domain.report import build_summary, warm_items
from services.summarizer.domain.windows import previous_window
from shared.windows import week_window

from .summarizer_builders import MODULES, PEOPLE, ItemSpec, Scenario, watermark

POLICY = inspect.signature(build_summary).parameters["policy"].default


def test_two_generations_keep_the_recently_used_and_drop_the_rest():
    cache: TwoGenerations[str, int] = TwoGenerations(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)  # the young generation was full: a and b are now the old one
    assert cache.get("a") == 1  # used again: moved to the young generation
    cache.put("d", 4)  # full again (c, a): b is dropped with the old generation
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c"), cache.get("d")) == (1, 3, 4)
    assert len(cache) <= 4
    assert cache.intern("d", 40) == 4  # the first value stays
    assert cache.intern("e", 5) == 5


def test_item_memo_answers_per_object_not_per_equal_value():
    m = ItemMemo()
    calls = []
    first, other = ["x"], ["x"]  # equal, not the same object
    for obj in (first, first, other):
        m.get("k", obj, None, lambda obj=obj: calls.append(obj) or len(calls))
    assert calls == [first, other]  # computed once per object
    assert (m.hits, m.misses) == (1, 2)


def _week_folded(tmp_path, merged: int = 60):
    week = week_window(2026, 24, "UTC")
    store = SqlProjections(f"sqlite:///{tmp_path / 'p.db'}")
    store.migrate()
    repo = "acme/memo"
    step = timedelta(days=6) / merged
    items = [
        ItemSpec(
            number=i + 1,
            kind="pull_request",
            opened=week.start + step * i,
            merged=week.start + step * i + timedelta(hours=2),
            author=PEOPLE[i % len(PEOPLE)],
            modules=(MODULES[i % len(MODULES)],),
            additions=5 + i * 7,
            files=(f"pkg/{MODULES[i % len(MODULES)]}/f{i}.py", f"tests/test_{i}.py"),
            title=f"[{MODULES[i % len(MODULES)]}] change {i}",
        )
        for i in range(merged)
    ]
    now = datetime(2026, 7, 1, tzinfo=UTC)
    result = store.fold(Scenario(repo=repo, items=items).events(), now=now)
    store.fold([watermark(week.end + timedelta(hours=1), repo)], now=now)
    return store, repo, week, result, now


def test_a_report_finds_what_the_fold_worked_out(tmp_path):
    store, repo, week, result, now = _week_folded(tmp_path)
    assert len(result.merged) == 60  # every merged change comes back from the fold
    memo.ITEMS.clear()
    assert warm_items(result.merged, POLICY) == 60
    worked_out = memo.ITEMS.misses
    memo.ITEMS.missed.clear()
    inp = store.load_window(repo, week, previous_window(week))
    warm = build_summary(inp, now=now)
    # nothing the fold worked out is worked out again: only what is not per merged change
    # (the key PRs' longer lines) is new
    new = memo.ITEMS.misses - worked_out
    assert new < 10, f"{new} per-item results worked out again: {memo.ITEMS.missed}"
    memo.ITEMS.clear()
    cold = build_summary(store.load_window(repo, week, previous_window(week)), now=now)
    assert memo.ITEMS.misses > 200  # from scratch: every merged change's results
    assert warm == cold


def test_without_warming_the_report_works_everything_out(tmp_path):
    store, repo, week, _result, now = _week_folded(tmp_path, merged=20)
    memo.ITEMS.clear()
    build_summary(store.load_window(repo, week, previous_window(week)), now=now)
    assert memo.ITEMS.misses >= 20 * 4  # story item, score, report line, lines by kind
