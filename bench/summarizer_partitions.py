"""Summarizer partitions: enriched facts folded by N summarizer processes, one per partition,
beside one summarizer (N=1, today's topology) folding the same facts in the same run.

    .venv/bin/python -m bench.summarizer_partitions [--events 40000] [--repos 60] [--counts 1,2,3]

For each count N: a fresh embedded nats-server and a fresh PostgreSQL schema (migrated first),
the streams declared with N partitions; N `python -m services.summarizer` processes (indexes
0..N-1, PostgreSQL) started and waiting on their durables; then `--events` enriched facts of
`--repos` repositories (the summarizer tests' seeded scenario) and a watermark per repository
published to RD_ENRICHED as fast as JetStream takes them, the replicas folding meanwhile (as they
would behind a classifier); the clock runs from the first message published to the last
partition drained (start-up excluded, the publishing included: this process takes its share of
the cores in every run alike). Every count runs `--rounds` times, interleaved; prints each
count's best events/s and every round's, the summarizer processes' and the local PostgreSQL's CPU
µs per event, how the hash dealt the messages, and the speed-up against N=1 of the same run.
Needs PostgreSQL (REPODIGEST_TEST_POSTGRES_URL, as the tests; each run's schema is dropped
after it); exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import nats

from bench.pipeline import fresh_postgres_schema
from bench.procs import ServiceProcess, cpu_since, local_postgres_cpu, wait_consuming
from services.summarizer.adapters.store import SqlProjections
from services.summarizer.messaging import fold_spec, requests_spec
from shared.messaging import STREAM_ENRICHED, Subjects, Topology, ensure_topology
from shared.messaging.partitions import all_partitions
from shared.natsserver import EmbeddedNats
from shared.windows import week_window
from tests.conftest import POSTGRES_URL
from tests.unit.summarizer.summarizer_builders import random_scenario, watermark

WEEK = week_window(2026, 24, "UTC")


def facts(events: int, repos: int) -> list[tuple[str, bytes, str]]:
    """(subject, bytes, id) of about `events` enriched facts over `repos` repositories, and a
    watermark per repository after its facts."""
    per_repo = max(1, events // repos)
    out = []
    for i in range(repos):
        repo = f"bench-org{i % 7}/project-{i}"
        # the scenario makes ~2.6 events per item (opened, merged or closed, comments, reviews)
        scenario = random_scenario(
            1000 + i, WEEK.start, 7.0, n_items=max(1, int(per_repo / 2.6)), repo=repo
        )
        for e in scenario.events():
            subject = Subjects.enriched(e.data.fact.kind, e.data.fact.action, repo)
            out.append((subject, e.to_bytes(), e.id))
        mark = watermark(WEEK.end + timedelta(hours=1), repo)
        out.append((Subjects.enriched_watermark(repo), mark.to_bytes(), mark.id))
    return out


async def run_count(count: int, items: list, tmp: Path) -> dict:
    tmp.mkdir(parents=True, exist_ok=True)
    server = EmbeddedNats(store_dir=tmp / f"nats-{count}")
    await server.start()
    database_url = await fresh_postgres_schema(POSTGRES_URL)
    store = SqlProjections(database_url)
    await asyncio.to_thread(store.migrate)
    store.close()
    nc = await nats.connect(server.url)
    procs: list[ServiceProcess] = []
    try:
        js = nc.jetstream()
        partitions = all_partitions(count)
        folds = [fold_spec(p) for p in partitions]
        await ensure_topology(
            js, Topology(partitions=count), [*folds, *(requests_spec(p) for p in partitions)]
        )
        for p in partitions:
            env = {
                "REPODIGEST_NATS_URL": server.url,
                "REPODIGEST_DATABASE_URL": database_url,
                "REPODIGEST_DATABASE_MIGRATE": "false",
                "REPODIGEST_SUMMARIZER_PARTITIONS": str(count),
                "REPODIGEST_SUMMARIZER_PARTITION_INDEX": str(p.index),
            }
            log = tmp / f"s{count}-{p.index}.log"
            procs.append(await ServiceProcess("summarizer", env, log).start())
        await wait_consuming(js, [(STREAM_ENRICHED, s.durable) for s in folds], procs)
        for proc in procs:
            proc.sample()
        cpu_before = {id(p): p.cpu for p in procs}
        pg_before = local_postgres_cpu()
        # the clock runs from the first message published to the last partition drained: the
        # replicas fold while this process publishes (as they would behind a classifier)
        started = time.perf_counter()
        for start in range(0, len(items), 2000):
            acks = [
                await js.publish_async(subject, data, headers={"Nats-Msg-Id": mid})
                for subject, data, mid in items[start : start + 2000]
            ]
            await asyncio.gather(*acks)
        published = time.perf_counter() - started
        left = set(range(count))
        while left:
            for i in sorted(left):
                info = await js.consumer_info(STREAM_ENRICHED, folds[i].durable)
                if not info.num_pending and not info.num_ack_pending:
                    left.discard(i)
            for proc in procs:
                proc.sample()
                if not proc.alive():
                    raise RuntimeError(f"a summarizer exited:\n{proc.log_tail()}")
            if left:
                await asyncio.sleep(0.05)  # sampling a server's state, not waiting for a result
        seconds = time.perf_counter() - started
        share = [
            int((await js.consumer_info(STREAM_ENRICHED, s.durable)).delivered.consumer_seq or 0)
            for s in folds
        ]
        pg = cpu_since(pg_before, local_postgres_cpu())
        for proc in procs:
            proc.sample()
        cpu = sum(p.cpu - cpu_before[id(p)] for p in procs)
        return {
            "count": count,
            "seconds": seconds,
            "rate": len(items) / seconds,
            "cpu_us": cpu / len(items) * 1e6,
            "pg_us": pg / len(items) * 1e6,
            "share": share,
            "published": published,
        }
    finally:
        for proc in procs:
            await proc.stop()
        await nc.close()
        await server.stop()
        await asyncio.to_thread(drop_schema, database_url)


def drop_schema(database_url: str) -> None:
    import sqlalchemy as sa

    schema = database_url.rsplit("search_path%3D", 1)[1]
    engine = sa.create_engine(POSTGRES_URL)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f'drop schema "{schema}" cascade'))
    finally:
        engine.dispose()


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=40_000)
    parser.add_argument("--repos", type=int, default=60)
    parser.add_argument("--counts", default="1,2,3", help="partition counts; 1 is the baseline")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of every count, interleaved; the best run of each count is reported "
        "(a shared machine's load moves single runs by tens of percent)",
    )
    args = parser.parse_args(argv)
    counts = [int(c) for c in args.counts.split(",")]
    if 1 not in counts:
        counts.insert(0, 1)
    items = facts(args.events, args.repos)
    print(f"{len(items):,} messages ({args.repos} repositories) per run", file=sys.stderr)
    runs: dict[int, list[dict]] = {c: [] for c in counts}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            # each round in another order, so that no count always runs first (or last)
            order = counts[round_ % len(counts) :] + counts[: round_ % len(counts)]
            for count in order:
                r = await run_count(count, items, Path(tmp) / f"round{round_}")
                runs[count].append(r)
                print(
                    f"  round {round_ + 1}, N={count}: {r['rate']:,.0f} events/s (published in "
                    f"{r['published']:.1f} s, drained after {r['seconds']:.1f} s)",
                    file=sys.stderr,
                )
    best = {c: max(rs, key=lambda r: r["rate"]) for c, rs in runs.items()}
    base = best[1]
    print(
        "| summarizers (partitions) | events/s, best of the rounds | every round | speed-up | "
        "summarizer CPU µs/event | PostgreSQL CPU µs/event | messages per partition |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for count in counts:
        r = best[count]
        every = ", ".join(f"{x['rate']:,.0f}" for x in runs[count])
        print(
            f"| {count}{' (baseline)' if count == 1 else ''} | {r['rate']:,.0f} | {every} | "
            f"{r['rate'] / base['rate']:.2f}x | {r['cpu_us']:.0f} | {r['pg_us']:.0f} | "
            f"{', '.join(f'{n:,}' for n in r['share'])} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
