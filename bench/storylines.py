"""Storylines CPU cost: `find_storylines` per item of real busy weeks, term counting over a whole
history, and the store's cached title history (cold, unchanged, one new item) at 100k items.

    .venv/bin/python -m bench.storylines [--weeks 8] [--items 100000] [--passes 3]

Items: the real vllm-ascend merged-PR history (../shared/data/vllm-ascend-history, skipped when
absent), weeks in Asia/Shanghai, history = every item merged before the week. For 100k items the
real titles are repeated with their numbers shifted. Times are process CPU time (the best of
`--passes`), except the store's, which are wall time (the database works too). Baselines in the
same run: the same titles tokenised with `str.split` (a set per title, counted the same way), the
floor under any tokeniser; for the store, reading (number, title) of every item, which a cache
miss pays anyway. Exits 0.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from services.summarizer.domain.storylines import StoryItem, find_storylines, term_counts_of

HISTORY = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "vllm-ascend-history"
    / "merged_prs_with_bodies.jsonl"
)
SHANGHAI = ZoneInfo("Asia/Shanghai")


def load() -> list[StoryItem]:
    items = []
    for line in HISTORY.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["pr_number"] is None:
            continue
        files = r["files"] or []
        items.append(
            StoryItem(
                number=r["pr_number"],
                title=r["title"],
                merged_at=datetime.fromisoformat(r["merged_at"]),
                digest=None,
                files=tuple(f["path"] for f in files),
                categories=(),
                modules=(),
                additions=sum(f["additions"] or 0 for f in files),
                deletions=sum(f["deletions"] or 0 for f in files),
                bot="[bot]" in (r["author_email"] or ""),
            )
        )
    return items


def cpu(fn, passes: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(passes):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def split_counts(titles) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for title in titles:
        counts.update(set(title.lower().split()))
    return dict(counts)


def merged_at(item: StoryItem) -> datetime:
    assert item.merged_at is not None  # load() reads merged pull requests only
    return item.merged_at


def bench_weeks(items: list[StoryItem], n_weeks: int, passes: int) -> None:
    weeks = Counter(merged_at(i).astimezone(SHANGHAI).isocalendar()[:2] for i in items)
    print(
        f"find_storylines on the {n_weeks} busiest weeks (history counted once per week, not timed here)"
    )
    print(
        f"{'week':>9} {'items':>6} {'history':>8} {'lines':>6} {'µs/item':>9} {'split µs/item':>14} {'ratio':>6}"
    )
    total_items = total_t = total_base = 0.0
    for (year, week), _n in weeks.most_common(n_weeks):
        start = datetime.combine(date.fromisocalendar(year, week, 1), datetime.min.time(), SHANGHAI)
        end, before = start + timedelta(days=7), start - timedelta(days=7)
        current = [i for i in items if start <= merged_at(i) < end]
        previous = [i for i in items if before <= merged_at(i) < start]
        hist = [i.title for i in items if merged_at(i) < start]
        counts = term_counts_of(hist)
        t, lines = cpu(
            lambda current=current, previous=previous, counts=counts, hist=hist: find_storylines(
                current, previous, counts, len(hist)
            ),
            passes,
        )
        base, _ = cpu(
            lambda current=current, previous=previous: split_counts(
                i.title for i in current + previous
            ),
            passes,
        )
        k = len(current)
        total_items, total_t, total_base = total_items + k, total_t + t, total_base + base
        print(
            f"{year}-W{week:02d} {k:>6} {len(hist):>8} {len(lines):>6} {t / k * 1e6:>9.0f} "
            f"{base / k * 1e6:>14.1f} {t / base:>6.0f}"
        )
    print(
        f"{'all':>9} {int(total_items):>6} {'':>8} {'':>6} {total_t / total_items * 1e6:>9.0f} "
        f"{total_base / total_items * 1e6:>14.1f} {total_t / total_base:>6.0f}"
    )


def scaled_titles(items: list[StoryItem], n: int) -> list[tuple[int, str]]:
    out = []
    for k in range(n):
        item = items[k % len(items)]
        out.append((k + 1, item.title if k < len(items) else f"{item.title} (#{k + 1})"))
    return out


def bench_counting(items: list[StoryItem], n: int, passes: int) -> None:
    print("\nterm counting over a whole history (term_counts_of) against str.split")
    print(
        f"{'titles':>8} {'terms':>8} {'ms':>8} {'µs/title':>9} {'split ms':>9} {'split µs/title':>15} {'ratio':>6}"
    )
    for size in (len(items), n):
        titles = [t for _n, t in scaled_titles(items, size)]
        t, counts = cpu(lambda titles=titles: term_counts_of(titles), passes)
        base, _ = cpu(lambda titles=titles: split_counts(titles), passes)
        print(
            f"{size:>8} {len(counts):>8} {t * 1e3:>8.0f} {t / size * 1e6:>9.1f} {base * 1e3:>9.0f} "
            f"{base / size * 1e6:>15.2f} {t / base:>6.1f}"
        )


def bench_store(items: list[StoryItem], n: int) -> None:
    import sqlalchemy as sa

    from services.summarizer.adapters.store import SqlProjections
    from services.summarizer.adapters.tables import items as items_table

    repo = "bench/storylines"
    print(f"\nthe store's title history (SQLite, {n} items; wall time)")
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlProjections(f"sqlite:///{tmp}/bench.db")
        store.migrate()
        at = datetime(2026, 1, 1, tzinfo=UTC)
        rows = [
            dict(
                repo=repo,
                number=number,
                kind="pull_request",
                title=title,
                author="a",
                state="closed",
                created_at=at,
                snapshot_time=at + timedelta(seconds=number),
                snapshot="{}",
                tags="{}",
                first_seen=at,
            )
            for number, title in scaled_titles(items, n)
        ]
        with store.engine.begin() as conn:
            for k in range(0, len(rows), 5000):
                conn.execute(items_table.insert(), rows[k : k + 5000])

        def timed(fn) -> float:
            t = time.perf_counter()
            with store.engine.connect() as conn:
                fn(conn)
            return time.perf_counter() - t

        read = timed(
            lambda c: c.execute(
                sa.select(items_table.c.number, items_table.c.title).where(
                    items_table.c.repo == repo
                )
            ).all()
        )
        cold = timed(lambda c: store._title_history(c, repo))
        warm = timed(lambda c: store._title_history(c, repo))
        with store.engine.begin() as conn:
            conn.execute(
                items_table.insert(),
                [
                    dict(
                        rows[0],
                        number=n + 1,
                        title="[Feature] one more item",
                        snapshot_time=at + timedelta(days=400),
                    )
                ],
            )
        one_new = timed(lambda c: store._title_history(c, repo))
        store.close()
    print(f"{'baseline: read (number, title)':<40} {read * 1e3:>8.0f} ms")
    print(f"{'cold: read + tokenise + count':<40} {cold * 1e3:>8.0f} ms")
    print(f"{'unchanged: the version query only':<40} {warm * 1e3:>8.1f} ms")
    print(f"{'one new item: read, tokenise one':<40} {one_new * 1e3:>8.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weeks", type=int, default=8)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--passes", type=int, default=3)
    args = ap.parse_args()
    if not HISTORY.exists():
        print(f"skipped: {HISTORY} is absent (the real history lives beside the repository)")
        return
    items = load()
    bench_weeks(items, args.weeks, args.passes)
    bench_counting(items, args.items, args.passes)
    bench_store(items, args.items)


if __name__ == "__main__":
    main()
