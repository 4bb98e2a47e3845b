"""Summarizer folding and summarizing speed beside a raw bulk insert into the same database.

    .venv/bin/python -m bench.summarizer_fold --items 3000 [--database sqlite|postgres|both]
    .venv/bin/python -m bench.summarizer_fold --corpus real --events 20000 --database both

Folding: decoded EnrichedFacts folded in batches of the consumer's batch size (1024) through
`fold_events` (dedupe, activity, items, watermark, window flags; one transaction per batch).
`--corpus scenario` (default) folds the hand-built random scenario of `--items` items;
`--corpus real` folds `--events` realistic facts (bench.pipeline payloads, classified by the
classifier with its configured profiles), each touching its own item. CPU time is printed as µs
per event, overall and over the first and the last `--edge` batches (does it grow with the
database?): of `fold_events` (process time: the handler, its publishing check and the store)
and of `SqlProjections.fold` alone (thread time of the worker thread running it). The database
server's work is not in either on PostgreSQL.
Baseline: the same number of rows (id + the event's JSON) bulk-inserted with executemany, one
transaction per batch, into a bare table in the same database. Then one weekly summary of
the whole data set (load + report model). Prints events/s for both, their ratio, and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from collections.abc import Callable

import sqlalchemy as sa

from bench.pipeline import REPO as PIPELINE_REPO
from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.report import RequestMeta
from services.summarizer.handlers import Deps, fold_events, summarize_window
from services.summarizer.messaging import FOLD
from shared.windows import week_window
from tests.conftest import POSTGRES_URL
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario, watermark

BATCH = FOLD.batch_size  # what the service folds at once


def database(kind: str, tmp: str) -> tuple[str, Callable[[], None]]:
    if kind == "sqlite":
        return f"sqlite:///{tmp}/bench.db", lambda: None
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'create schema "{schema}"'))

    def drop() -> None:
        with engine.begin() as conn:
            conn.execute(sa.text(f'drop schema "{schema}" cascade'))
        engine.dispose()

    sep = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}", drop


def real_events(n: int) -> list:
    """n realistic facts (about 1.5 kB each) classified as the classifier does, then a watermark."""
    from bench.pipeline import payloads
    from services.classifier.adapters.profiles import load_registry
    from services.classifier.config import ClassifierSettings
    from services.classifier.handlers import classify_fact
    from shared.events import GITHUB_EVENT_ADAPTER

    s = ClassifierSettings()
    registry = load_registry(s.profiles_dir, s.codeowners_files(), s.profile_overrides)
    facts = [
        classify_fact(GITHUB_EVENT_ADAPTER.validate_json(b), registry) for _, b, _ in payloads(n)
    ]
    return [*facts, watermark(max(f.data.fact_time for f in facts), PIPELINE_REPO)]


def per_event(cpu: list[tuple[float, int]]) -> float:
    """µs of CPU per event over (seconds, events) batches."""
    return 1e6 * sum(c for c, _ in cpu) / max(1, sum(n for _, n in cpu))


async def run(
    items: int, kind: str, events: list | None = None, edge: int = 10, repo: str = REPO
) -> None:
    week = week_window(2026, 24, "UTC")
    if events is None:
        events = [*random_scenario(1, week.start, 7.0, items).events(), watermark(week.end)]
    with tempfile.TemporaryDirectory() as tmp:
        url, drop = database(kind, tmp)
        try:
            store = SqlProjections(url)
            store.migrate()
            baseline_table = sa.Table(
                "bench_raw",
                sa.MetaData(),
                sa.Column("id", sa.String(64), primary_key=True),
                sa.Column("body", sa.Text),
            )
            baseline_table.create(store.engine)
            payloads = [{"id": e.id, "body": e.model_dump_json()} for e in events]
            t0 = time.perf_counter()
            for i in range(0, len(payloads), BATCH):
                with store.engine.begin() as conn:
                    conn.execute(baseline_table.insert(), payloads[i : i + BATCH])
            raw = len(payloads) / (time.perf_counter() - t0)

            async def publish(event) -> None:
                pass

            deps = Deps(store=store, publish=publish)
            cpu: list[tuple[float, int]] = []
            store_cpu: list[tuple[float, int]] = []
            fold = store.fold

            def timed_fold(events, **kwargs):
                # the store's own share, on the worker thread that runs it
                t = time.thread_time()
                try:
                    return fold(events, **kwargs)
                finally:
                    store_cpu.append((time.thread_time() - t, len(events)))

            store.fold = timed_fold  # type: ignore[method-assign]  # timing the store's own fold
            t0 = time.perf_counter()
            for i in range(0, len(events), BATCH):
                c0 = time.process_time()
                await fold_events(deps, events[i : i + BATCH])
                cpu.append((time.process_time() - c0, len(events[i : i + BATCH])))
            folded = len(events) / (time.perf_counter() - t0)
            t0 = time.perf_counter()
            summary = await summarize_window(deps, repo, week, RequestMeta(request_id="bench"))
            took = time.perf_counter() - t0
            assert summary is not None, "the bench's week has facts"
            store.close()
        finally:
            drop()
    print(f"{kind}: {len(events)} events")
    print(f"  {'fold_events':<28} {folded:>10,.0f} events/s")
    edge = min(edge, len(cpu))
    for name, spent in (("fold_events CPU", cpu), ("  of which store.fold", store_cpu)):
        print(
            f"  {name:<28} {per_event(spent):>10.1f} µs/event   (first {edge} batches "
            f"{per_event(spent[:edge]):.1f}, last {edge} {per_event(spent[-edge:]):.1f})"
        )
    print(
        f"  {'baseline executemany':<28} {raw:>10,.0f} rows/s   (fold = {folded / raw:.0%} of baseline)"
    )
    print(
        f"  {'weekly summary':<28} {took:>10.2f} s for {summary.data.facts_counted} facts, "
        f"{len(summary.to_bytes()) / 1000:.0f} kB event"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--corpus", choices=("scenario", "real"), default="scenario")
    parser.add_argument("--events", type=int, default=20000, help="facts in the real corpus")
    parser.add_argument("--edge", type=int, default=10, help="batches averaged at each end")
    args = parser.parse_args()
    kinds = ("sqlite", "postgres") if args.database == "both" else (args.database,)
    events, repo = (
        (real_events(args.events), PIPELINE_REPO) if args.corpus == "real" else (None, REPO)
    )
    for kind in kinds:
        asyncio.run(run(args.items, kind, events, args.edge, repo))


if __name__ == "__main__":
    main()
