"""Pipeline throughput beside raw JetStream, measured in the same run on the same server.

    .venv/bin/python -m bench.pipeline --events 20000 [--database postgres|both] [--mode both]

The same N realistic (~1.5 KB) PR and issue facts go through four set-ups on one nats-server:
1. the baseline: raw nats-py `publish_async` plus a pull consumer fetching 500 at a time with ack;
2. the same publishing, consumed the way the services consume (`shared.messaging.pull.StreamingPull`), so
   the ratio is not flattered by nats-py's slower fetch;
3. both stages with no work in them (pull, republish to RD_ENRICHED with the services' headers,
   ack; pull, ack): the most this topology carries on this machine;
4. the pipeline: published to RD_GITHUB the way ingest publishes (`Bus.publish_many`, windows of
   256) and timed until the summarizer has folded every one of them (real classifier, real summarizer, SQLite or PostgreSQL). `--mode processes` (default)
   runs each service as deployed, `python -m services.<name>` in its own process, and prints the
   CPU each process (nats-server and this publisher included) spent per event; `inprocess` runs
   both in this process on one event loop (as `repodigest report` does).
Prints events/s and the ratio to the baseline for each; exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import nats

from services.classifier.messaging import CONSUMER as CLASSIFIER
from shared.config import CommonSettings
from shared.events import Actor, FactData, FileChange, ItemSnapshot, make_fact
from shared.messaging import (
    DURABLE_CLASSIFIER,
    DURABLE_SUMMARIZER,
    STREAM_ENRICHED,
    STREAM_GITHUB,
    Subjects,
    ensure_topology,
)
from shared.natsserver import EmbeddedNats
from shared.service import Runtime

REPO = "bench-org/llm-serve"
SERVICE_BATCH = CLASSIFIER.batch_size  # the baselines pull as the services do

PREFIXES = ["[Bugfix]", "[Perf]", "[ROCm]", "[Spec Decode]", "[MoE]", "[Kernel]", "[CI]", "[Doc]"]
PATHS = [
    "vllm/v1/core/sched/scheduler.py",
    "vllm/attention/backends/flash_attn.py",
    "vllm/model_executor/layers/fused_moe/layer.py",
    "csrc/rocm/attention.cu",
    "tests/v1/test_scheduler.py",
    "docs/usage/faq.md",
    ".buildkite/test-pipeline.yaml",
]


def payloads(n: int, seed: int = 1, first: int = 0) -> list[tuple[str, bytes, str]]:
    """(subject, bytes, id) for n realistic facts of about 1.5 KB each, numbered from first + 1."""
    rnd = random.Random(seed)
    t0 = datetime(2026, 6, 8, tzinfo=UTC)
    out = []
    for i in range(first, first + n):
        kind = "pull_request" if rnd.random() < 0.7 else "issue"
        action = rnd.choice(
            ["opened", "merged", "closed"] if kind == "pull_request" else ["opened", "closed"]
        )
        created = t0 + timedelta(seconds=rnd.randrange(7 * 86400))
        files = (
            tuple(
                FileChange(path=p, additions=rnd.randrange(200), deletions=rnd.randrange(80))
                for p in rnd.sample(PATHS, 3)
            )
            if kind == "pull_request"
            else ()
        )
        item = ItemSnapshot(
            repo=REPO,
            number=i + 1,
            kind=kind,
            title=f"{rnd.choice(PREFIXES)} synthetic change number {i} to the serving engine",
            author=Actor(login=f"dev{rnd.randrange(400)}", association="CONTRIBUTOR"),
            labels=("ready",),
            state="open" if action == "opened" else "closed",
            created_at=created,
            merged_at=created + timedelta(hours=5) if action == "merged" else None,
            closed_at=created + timedelta(hours=5) if action != "opened" else None,
            additions=sum(f.additions for f in files),
            deletions=sum(f.deletions for f in files),
            changed_files=len(files),
            files=files,
            body_excerpt="x" * rnd.randrange(200, 500),
        )
        fact = make_fact(FactData(repo=REPO, kind=kind, action=action, item=item, origin="replay"))
        out.append((Subjects.fact(kind, action, REPO), fact.to_bytes(), fact.id))
    return out


async def publish_all(js, items, window: int = 2000, id_prefix: str = "") -> None:
    for start in range(0, len(items), window):
        futures = [
            await js.publish_async(subj, data, headers={"Nats-Msg-Id": id_prefix + mid})
            for subj, data, mid in items[start : start + window]
        ]
        await asyncio.gather(*futures)
    await js.publish_async_completed()


class IngestPublisher:
    """Publishes the facts the way ingest does (`Bus.publish_many`, windows of
    `services.ingest.handlers.PUBLISH_WINDOW`, acks gathered per window), on its own broker."""

    def __init__(self, url: str, items) -> None:
        from shared.events import GITHUB_EVENT_ADAPTER

        self.runtime = Runtime(CommonSettings(nats_url=url), "bench-ingest")
        # decoded before the clock starts: ingest holds facts, not bytes
        self.events = [
            (GITHUB_EVENT_ADAPTER.validate_json(data), subject) for subject, data, _ in items
        ]

    async def __aenter__(self) -> IngestPublisher:
        await self.runtime.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.runtime.stop()

    async def publish(self) -> None:
        from services.ingest.handlers import PUBLISH_WINDOW

        bus = self.runtime.bus("ingest")
        for start in range(0, len(self.events), PUBLISH_WINDOW):
            await bus.publish_many(
                [(e, subject, None) for e, subject in self.events[start : start + PUBLISH_WINDOW]]
            )


async def baseline(url: str, items) -> float:
    nc = await nats.connect(url)
    js = nc.jetstream(publish_async_max_pending=4000)
    await ensure_topology(js, consumers=())
    await js.purge_stream(STREAM_GITHUB)
    sub = await js.pull_subscribe("rd.github.>", durable="bench-baseline", stream=STREAM_GITHUB)
    start = time.perf_counter()
    # other ids than the pipeline's run: JetStream's de-duplication window outlives a purge
    await publish_all(js, items, id_prefix="baseline-")
    got = 0
    while got < len(items):
        msgs = await sub.fetch(500, timeout=10)
        for m in msgs:
            await m.ack()
        got += len(msgs)
    elapsed = time.perf_counter() - start
    await js.delete_consumer(STREAM_GITHUB, "bench-baseline")
    await js.purge_stream(STREAM_GITHUB)
    await nc.close()
    return len(items) / elapsed


async def baseline_streaming(url: str, items) -> float:
    """The same, consumed the way the services consume (`shared.messaging.pull.StreamingPull`, batches of
    the services' size requested two ahead) instead of nats-py's fetch."""
    from nats.js.api import AckPolicy, ConsumerConfig

    from shared.messaging.pull import StreamingPull

    nc = await nats.connect(url)
    js = nc.jetstream(publish_async_max_pending=4000)
    await ensure_topology(js, consumers=())
    await js.purge_stream(STREAM_GITHUB)
    await js.add_consumer(
        STREAM_GITHUB,
        ConsumerConfig(
            durable_name="bench-streaming", ack_policy=AckPolicy.EXPLICIT, max_ack_pending=20_000
        ),
    )
    pull = StreamingPull(nc, STREAM_GITHUB, "bench-streaming", batch=SERVICE_BATCH)
    await pull.start()
    start = time.perf_counter()
    await publish_all(js, items, id_prefix="streaming-")
    await pull_and_ack(pull, len(items), "streaming baseline")
    elapsed = time.perf_counter() - start
    await pull.stop()
    await js.delete_consumer(STREAM_GITHUB, "bench-streaming")
    await js.purge_stream(STREAM_GITHUB)
    await nc.close()
    return len(items) / elapsed


async def pull_and_ack(pull, n: int, what: str) -> None:
    """Take and acknowledge n messages from a StreamingPull."""
    got = 0
    while got < n:
        msgs = await pull.next(timeout=10)
        if not msgs:
            raise RuntimeError(f"{what} stalled after {got} of {n} messages")
        for m in msgs:
            await m.ack()
        got += len(msgs)


async def baseline_transport(url: str, items) -> float:
    """Both stages with no work in them: a stand-in classifier pulls each fact, publishes it
    (padded to an enriched event's size, the same headers, acks gathered on one inbox) to
    RD_ENRICHED and acks it; a stand-in summarizer pulls and acks. No decoding, rules or
    database: the most this bus topology carries on this machine (all in this process)."""
    from nats.js.api import AckPolicy, ConsumerConfig

    from shared.messaging.pull import StreamingPull

    pad = b" " * ENRICHED_OVERHEAD
    conns = [await nats.connect(url) for _ in range(3)]
    publisher, middle, last = conns
    js = publisher.jetstream(publish_async_max_pending=4000)
    await ensure_topology(js, consumers=())
    for stream, durable in ((STREAM_GITHUB, "bench-t1"), (STREAM_ENRICHED, "bench-t2")):
        await js.purge_stream(stream)
        await js.add_consumer(
            stream,
            ConsumerConfig(
                durable_name=durable, ack_policy=AckPolicy.EXPLICIT, max_ack_pending=20_000
            ),
        )
    first = StreamingPull(middle, STREAM_GITHUB, "bench-t1", batch=SERVICE_BATCH)
    second = StreamingPull(last, STREAM_ENRICHED, "bench-t2", batch=SERVICE_BATCH)
    await first.start()
    await second.start()
    inbox, counter = middle.new_inbox(), 0
    waiting: dict[str, list[Any]] = {}  # reply token -> [acks outstanding, event], per batch

    async def on_ack(msg) -> None:
        batch = waiting.pop(msg.subject.rpartition(".")[2], None)
        if batch is not None:
            batch[0] -= 1
            if batch[0] == 0:
                batch[1].set()

    await middle.subscribe(f"{inbox}.*", cb=on_ack, pending_msgs_limit=0, pending_bytes_limit=0)

    async def classify_nothing() -> None:
        nonlocal counter
        while True:
            msgs = await first.next(timeout=1.0)
            if not msgs:
                continue
            batch: list[Any] = [len(msgs), asyncio.Event()]
            for m in msgs:
                counter += 1
                waiting[str(counter)] = batch
                mid = "t-" + (m.headers or {})["Nats-Msg-Id"]
                await middle.publish(
                    "rd.enriched" + m.subject[len("rd.github") :],
                    m.data + pad,
                    reply=f"{inbox}.{counter}",
                    headers={
                        "Nats-Msg-Id": mid,
                        "Ce-Id": mid,
                        "Ce-Type": "t",
                        "Nats-Expected-Stream": STREAM_ENRICHED,
                    },
                )
            await batch[1].wait()
            for m in msgs:
                await m.ack()

    middle_task = asyncio.create_task(classify_nothing())
    start = time.perf_counter()
    await asyncio.gather(
        publish_all(js, items, id_prefix="transport-"),
        pull_and_ack(second, len(items), "transport baseline"),
    )
    elapsed = time.perf_counter() - start
    middle_task.cancel()
    for pull in (first, second):
        await pull.stop()
    for stream, durable in ((STREAM_GITHUB, "bench-t1"), (STREAM_ENRICHED, "bench-t2")):
        await js.delete_consumer(stream, durable)
        await js.purge_stream(stream)
    for nc in conns:
        await nc.close()
    return len(items) / elapsed


# an enriched event is its fact plus tags, rule set and envelope: about this many bytes more
ENRICHED_OVERHEAD = 600


async def pipeline(url: str, items, database_url: str) -> float:
    from services.classifier.app import build_service as build_classifier
    from services.classifier.config import ClassifierSettings
    from services.summarizer.app import build_service as build_summarizer
    from services.summarizer.config import SummarizerSettings

    settings = CommonSettings(nats_url=url)
    runtime = Runtime(settings, "bench")
    runtime.add(build_classifier(ClassifierSettings(nats_url=url), runtime))
    runtime.add(
        build_summarizer(SummarizerSettings(nats_url=url, database_url=database_url), runtime)
    )
    nc = await nats.connect(url)
    js = nc.jetstream(publish_async_max_pending=4000)
    await runtime.start()
    async with IngestPublisher(url, items) as ingest:
        start = time.perf_counter()
        await ingest.publish()
        # the summarizer has folded everything when both durables have nothing pending or unacked
        await until_folded(js, len(items))
        elapsed = time.perf_counter() - start
    await runtime.stop()
    await nc.close()
    return len(items) / elapsed


async def pipeline_processes(
    url: str, items, database_url: str, tmp: Path, server_pid: int
) -> tuple[float, dict, dict]:
    """The services as subprocesses; returns events/s, peak RSS (MiB) per service, and CPU µs
    per event of each process (the services, nats-server, this publishing process, and a
    PostgreSQL server running on this machine)."""
    import sqlalchemy as sa

    from bench.procs import (
        ServiceProcess,
        cpu_seconds,
        cpu_since,
        local_postgres_cpu,
        wait_consuming,
    )

    def live_cpu(pid: int) -> float:
        seconds = cpu_seconds(pid)
        if seconds is None:
            raise RuntimeError(f"process {pid} ended during the bench")
        return seconds

    db = sa.engine.make_url(database_url)
    postgres = db.get_backend_name() == "postgresql" and db.host in (
        None,
        "",
        "127.0.0.1",
        "localhost",
        "::1",
    )  # its CPU is ours to read

    env = {"REPODIGEST_NATS_URL": url, "REPODIGEST_DATABASE_URL": database_url}
    procs = [
        ServiceProcess("classifier", env, tmp / "classifier.log"),
        ServiceProcess("summarizer", env, tmp / "summarizer.log"),
    ]
    nc = await nats.connect(url)
    js = nc.jetstream(publish_async_max_pending=4000)
    try:
        for p in procs:
            await p.start()
        await wait_consuming(
            js, [(STREAM_GITHUB, DURABLE_CLASSIFIER), (STREAM_ENRICHED, DURABLE_SUMMARIZER)], procs
        )
        for p in procs:
            p.sample()
        async with IngestPublisher(url, items) as ingest:
            cpu0 = {p.name: p.cpu for p in procs}
            others0 = {"nats-server": live_cpu(server_pid), "publisher": live_cpu(os.getpid())}
            pg0 = local_postgres_cpu() if postgres else {}
            start = time.perf_counter()
            await ingest.publish()
            await until_folded(js, len(items), procs)
            elapsed = time.perf_counter() - start
            pg = cpu_since(pg0, local_postgres_cpu()) if pg0 else None  # backends still open
        cpu = {p.name: (p.cpu - cpu0[p.name]) / len(items) * 1e6 for p in procs}
        cpu["nats-server"] = (live_cpu(server_pid) - others0["nats-server"]) / len(items) * 1e6
        cpu["publisher"] = (live_cpu(os.getpid()) - others0["publisher"]) / len(items) * 1e6
        if pg is not None:
            cpu["postgresql"] = pg / len(items) * 1e6
    finally:
        for p in procs:
            await p.stop()
        await nc.close()
    return len(items) / elapsed, {p.name: p.peak_kib / 1024 for p in procs}, cpu


async def until_folded(js, n: int, procs=()) -> None:
    """Until both durables have nothing pending or unacked and RD_ENRICHED holds n events."""
    start, classified = time.perf_counter(), None
    while True:
        for p in procs:
            p.sample()
            if not p.alive():
                raise RuntimeError(f"{p.name} exited:\n{p.log_tail()}")
        c = await js.consumer_info(STREAM_GITHUB, DURABLE_CLASSIFIER)
        s = await js.consumer_info(STREAM_ENRICHED, DURABLE_SUMMARIZER)
        enriched = (await js.stream_info(STREAM_ENRICHED)).state.messages
        if classified is None and enriched >= n:
            classified = time.perf_counter() - start
        if (
            c.num_pending == 0
            and c.num_ack_pending == 0
            and enriched >= n
            and s.num_pending == 0
            and s.num_ack_pending == 0
        ):
            print(
                f"  classifier done after {classified:.1f} s, summarizer after "
                f"{time.perf_counter() - start:.1f} s",
                file=sys.stderr,
            )
            return
        await asyncio.sleep(0.05)  # polling server state, not waiting for a result of ours


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument(
        "--postgres-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test"
    )
    parser.add_argument(
        "--mode",
        choices=["processes", "inprocess", "both"],
        default="processes",
        help="services as subprocesses (as deployed), in this process, or both",
    )
    args = parser.parse_args(argv)
    print(f"generating {args.events:,} facts ...", file=sys.stderr)
    items = payloads(args.events)
    size = statistics.mean(len(d) for _, d, _ in items)
    databases = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    modes = ["processes", "inprocess"] if args.mode == "both" else [args.mode]
    out = [
        f"{args.events:,} events, mean payload {size:.0f} B, 1 nats-server, {os.cpu_count()} CPUs"
    ]
    for db in databases:
        for mode in modes:
            with tempfile.TemporaryDirectory() as tmp:
                async with EmbeddedNats(store_dir=Path(tmp) / "js") as server:
                    print(f"{db}, {mode}: baselines ...", file=sys.stderr)
                    base = await baseline(server.url, items)
                    streaming = await baseline_streaming(server.url, items)
                    transport = await baseline_transport(server.url, items)
                    if db == "sqlite":
                        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
                    else:
                        url = await fresh_postgres_schema(args.postgres_url)
                    print(f"{db}, {mode}: pipeline ...", file=sys.stderr)
                    rss: dict = {}
                    cpu: dict = {}
                    if mode == "processes":
                        assert server.proc is not None  # started above
                        pipe, rss, cpu = await pipeline_processes(
                            server.url, items, url, Path(tmp), server.proc.pid
                        )
                    else:
                        pipe = await pipeline(server.url, items, url)
            out += [
                "",
                f"{db}, services as {mode}",
                *table(
                    [
                        ("raw JetStream: publish_async + fetch(500) + ack (the baseline)", base),
                        (
                            "raw JetStream consumed as the services consume (StreamingPull)",
                            streaming,
                        ),
                        ("both stages, no work in them (transport ceiling)", transport),
                        ("pipeline: real classifier + summarizer", pipe),
                    ],
                    base,
                ),
            ]
            if cpu:
                # how much of the machine the run kept busy: CPU seconds over cores x seconds
                busy = sum(cpu.values()) * pipe / 1e6 / (os.cpu_count() or 1)
                out.append(
                    "  CPU per event: "
                    + ", ".join(f"{k} {v:.0f} µs" for k, v in cpu.items())
                    + f" (sum {sum(cpu.values()):.0f} µs on {os.cpu_count()} CPUs, "
                    f"busy {busy:.0%} of the run)"
                )
            if rss:
                out.append("  peak RSS: " + ", ".join(f"{k} {v:.0f} MiB" for k, v in rss.items()))
    print("\n" + "\n".join(out))
    return 0


def table(rows: list[tuple[str, float]], base: float) -> list[str]:
    return [f"  {label:<66} {rate:>9,.0f} ev/s  ratio {rate / base:4.2f}" for label, rate in rows]


async def fresh_postgres_schema(url: str) -> str:
    import uuid

    import sqlalchemy as sa

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'create schema "{schema}"'))
    engine.dispose()
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
