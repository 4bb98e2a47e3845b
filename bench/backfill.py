"""Backfill at scale: N facts already in RD_GITHUB, through the classifier and the summarizer running
as their own processes, then a full rebuild of the projections; wall time and peak RSS of each.

    .venv/bin/python -m bench.backfill --events 1000000 [--database postgres]

The facts (the pipeline benchmark's realistic ~1.5 KB PR and issue facts, generated and published
in chunks so this process stays small) are published to RD_GITHUB first, as a backfill by ingest
leaves them; then `python -m services.classifier` and `python -m services.summarizer` start
against the same embedded nats-server and drain them. Peak RSS is the kernel's high-water mark
(VmHWM in /proc/<pid>/status) of each service process, also read at 25/50/75% of the run: it
must not grow with N beyond the bounded caches. Then the summarizer stops and `repodigest
rebuild` (services.summarizer.rebuild, its own process) replays RD_ENRICHED into the dropped
projections. Baseline in the same run: a bare nats-py pull consumer reading (fetch 500, ack) the
same N facts from the same server. Wall times of the services count from their launch (start-up
included). Prints a table; exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import nats
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench.pipeline import fresh_postgres_schema, payloads, until_folded
from bench.procs import ServiceProcess
from services.classifier.messaging import CONSUMER as CLASSIFIER
from services.summarizer.messaging import FOLD
from shared.messaging import (
    DURABLE_SUMMARIZER,
    STREAM_ENRICHED,
    STREAM_GITHUB,
    Topology,
    ensure_topology,
)
from shared.natsserver import EmbeddedNats

CHUNK = 10_000


async def publish_facts(js, n: int) -> float:
    """Publish n facts to RD_GITHUB in chunks (numbers and ids distinct across chunks)."""
    start = time.perf_counter()
    for offset in range(0, n, CHUNK):
        items = payloads(min(CHUNK, n - offset), seed=offset + 1, first=offset)
        futures = [
            await js.publish_async(subject, data, headers={"Nats-Msg-Id": mid})
            for subject, data, mid in items
        ]
        await asyncio.gather(*futures)
        print(f"  published {offset + len(items):,} / {n:,}", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    return time.perf_counter() - start


async def raw_read(js, n: int) -> float:
    """Baseline: a bare pull consumer reading and acking the same n facts."""
    sub = await js.pull_subscribe(
        "rd.github.>",
        stream=STREAM_GITHUB,
        config=ConsumerConfig(
            deliver_policy=DeliverPolicy.ALL,
            ack_policy=AckPolicy.EXPLICIT,
            mem_storage=True,
            inactive_threshold=60.0,
        ),
    )
    start, got = time.perf_counter(), 0
    while got < n:
        msgs = await sub.fetch(500, timeout=10)
        for m in msgs:
            await m.ack()
        got += len(msgs)
    elapsed = time.perf_counter() - start
    await sub.unsubscribe()
    return elapsed


async def drain(
    js, n: int, env: dict[str, str], tmp: Path
) -> tuple[float, list[ServiceProcess], list[tuple[int, list[int]]]]:
    procs = [
        ServiceProcess("classifier", env, tmp / "classifier.log"),
        ServiceProcess("summarizer", env, tmp / "summarizer.log"),
    ]
    checkpoints: list[tuple[int, list[int]]] = []
    try:
        # from the services' launch (start-up included): the backlog is there before they are
        start = time.perf_counter()
        for p in procs:
            await p.start()
        marks = [n // 4, n // 2, 3 * n // 4]

        async def watch() -> None:
            while marks:
                info = await js.consumer_info(STREAM_ENRICHED, DURABLE_SUMMARIZER)
                done = info.delivered.stream_seq - info.num_ack_pending
                while marks and done >= marks[0]:
                    checkpoints.append((marks.pop(0), [p.sample() for p in procs]))
                await asyncio.sleep(0.5)  # sampling a server state and /proc, not a result

        watcher = asyncio.create_task(watch())
        try:
            await until_folded(js, n, procs)
        finally:
            watcher.cancel()
        elapsed = time.perf_counter() - start
    finally:
        for p in procs:
            await p.stop()
    return elapsed, procs, checkpoints


async def rebuild(url: str, database_url: str, tmp: Path) -> tuple[float, int, int]:
    """A full rebuild in its own process: seconds, exit code, peak RSS (KiB)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "REPODIGEST_"))}
    env.update(
        {
            "REPODIGEST_NATS_URL": url,
            "REPODIGEST_DATABASE_URL": database_url,
            "REPODIGEST_LOG_LEVEL": "WARNING",
            "OTEL_SDK_DISABLED": "true",
        }
    )
    code = (
        "import sys; from services.summarizer.rebuild import rebuild_command; "
        f"sys.exit(rebuild_command({url!r}, {database_url!r}, None, progress=False))"
    )
    start = time.perf_counter()
    with open(tmp / "rebuild.log", "ab") as log:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            code,
            env=env,
            stdout=log,
            stderr=log,
            cwd=str(Path(__file__).resolve().parents[1]),
        )
        sampler = ServiceProcess("rebuild", {}, tmp / "rebuild.log", proc=proc)
        while proc.returncode is None:
            sampler.sample()
            try:
                await asyncio.wait_for(proc.wait(), 0.5)
            except TimeoutError:
                pass
    return time.perf_counter() - start, proc.returncode or 0, sampler.peak_kib


async def run(n: int, db: str, postgres_url: str) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        async with EmbeddedNats(store_dir=tmp / "js") as server:
            database_url = (
                f"sqlite:///{tmp / 'backfill.db'}"
                if db == "sqlite"
                else await fresh_postgres_schema(postgres_url)
            )
            nc = await nats.connect(server.url)
            js = nc.jetstream(publish_async_max_pending=4000)
            try:
                # the durables exist before the services do, so their progress can be read
                await ensure_topology(js, Topology(), consumers=(CLASSIFIER, FOLD))
                published = await publish_facts(js, n)
                rows.append(
                    ("publish to RD_GITHUB", f"{published:,.1f} s", f"{n / published:,.0f} ev/s")
                )
                print("  baseline read ...", file=sys.stderr)
                raw = await raw_read(js, n)
                rows.append(
                    (
                        "baseline: bare pull consumer, fetch 500 + ack",
                        f"{raw:,.1f} s",
                        f"{n / raw:,.0f} ev/s",
                    )
                )
                print("  classifier + summarizer ...", file=sys.stderr)
                env = {"REPODIGEST_NATS_URL": server.url, "REPODIGEST_DATABASE_URL": database_url}
                wall, procs, checkpoints = await drain(js, n, env, tmp)
                rows.append(
                    (
                        "classifier + summarizer (processes)",
                        f"{wall:,.1f} s",
                        f"{n / wall:,.0f} ev/s, ratio {raw / wall:.2f}",
                    )
                )
                for p in procs:
                    seen = " / ".join(
                        f"{kib[i] / 1024:.0f}" for _, kib in checkpoints for i in [procs.index(p)]
                    )
                    rows.append(
                        (
                            f"  peak RSS {p.name}",
                            f"{p.peak_kib / 1024:,.0f} MiB",
                            f"at 25/50/75%: {seen or '-'} MiB; CPU {p.cpu:,.0f} s",
                        )
                    )
                print("  rebuild ...", file=sys.stderr)
                seconds, code, peak = await rebuild(server.url, database_url, tmp)
                rows.append(
                    (
                        "full rebuild (repodigest rebuild)",
                        f"{seconds:,.1f} s",
                        f"{n / seconds:,.0f} ev/s, peak RSS {peak / 1024:,.0f} MiB"
                        + ("" if code == 0 else f", EXIT {code}: see {tmp}/rebuild.log"),
                    )
                )
            finally:
                await nc.close()
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument(
        "--postgres-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test"
    )
    args = parser.parse_args(argv)
    rows = asyncio.run(run(args.events, args.database, args.postgres_url))
    print(
        f"\nbackfill of {args.events:,} facts, {args.database}, 1 nats-server, "
        f"{os.cpu_count()} CPUs\n"
    )
    width = max(len(r[0]) for r in rows)
    for what, seconds, rate in rows:
        print(f"{what:<{width}}  {seconds:>12}  {rate}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
