"""FastStream's own paths against ours, on the same payloads and the same embedded nats-server.

Consuming a durable: FastStream's pull subscriber (`PullSub(batch_size=1024, batch=True,
timeout=0.5)`: a batch waits up to 0.5 s to fill, 5 s by default; its
acks) against `shared.messaging.pull.StreamingPull` + ack, the stream filled beforehand.
Publishing events with JetStream's ack awaited: FastStream's `broker.publish` (one
request/response per event, what `Bus.publish_raw` did) against `Bus.publish_many` (windows of
ingest's size, acks gathered on one inbox). Events/s and this process's CPU µs per event (the
nats-server's work is the same on both sides).

    python -m bench.messaging [--events N]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import nats

from bench.pipeline import SERVICE_BATCH, payloads, publish_all
from shared.config import CommonSettings
from shared.messaging import STREAM_GITHUB, ensure_topology
from shared.natsserver import EmbeddedNats
from shared.service import Runtime


class Clock:
    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


async def fill(url: str, items) -> None:
    nc = await nats.connect(url)
    js = nc.jetstream(publish_async_max_pending=4000)
    await ensure_topology(js)
    await js.purge_stream(STREAM_GITHUB)
    await publish_all(js, items, id_prefix=f"{time.monotonic_ns()}-")
    await nc.close()


async def consume_faststream(url: str, items) -> Clock:
    from faststream.nats import NatsBroker, PullSub
    from nats.js.api import ConsumerConfig

    await fill(url, items)
    broker = NatsBroker(url)
    done, seen = asyncio.Event(), [0]

    async def raw(msg, original):  # the bodies as they are: decoding is the handler's (as ours)
        return msg.body

    @broker.subscriber(
        "rd.github.>",
        stream=STREAM_GITHUB,
        durable="bench-faststream",
        pull_sub=PullSub(batch_size=SERVICE_BATCH, batch=True, timeout=0.5),
        decoder=raw,
        # as the services' durables (nats' default, 1000, stalls a 1024 batch)
        config=ConsumerConfig(max_ack_pending=20_000),
    )
    async def handle(body) -> None:
        seen[0] += len(body)
        if seen[0] >= len(items):
            done.set()

    with Clock() as clock:
        await broker.start()
        await asyncio.wait_for(done.wait(), 600)
    await broker.stop()
    return clock


async def consume_streaming(url: str, items) -> Clock:
    from nats.js.api import AckPolicy, ConsumerConfig

    from bench.pipeline import pull_and_ack
    from shared.messaging.pull import StreamingPull

    await fill(url, items)
    nc = await nats.connect(url)
    js = nc.jetstream()
    await js.add_consumer(
        STREAM_GITHUB,
        ConsumerConfig(
            durable_name="bench-streaming2", ack_policy=AckPolicy.EXPLICIT, max_ack_pending=20_000
        ),
    )
    pull = StreamingPull(nc, STREAM_GITHUB, "bench-streaming2", batch=SERVICE_BATCH)
    with Clock() as clock:
        await pull.start()
        await pull_and_ack(pull, len(items), "StreamingPull")
    await pull.stop()
    await nc.close()
    return clock


async def publish(url: str, items, how: str) -> Clock:
    from services.ingest.handlers import PUBLISH_WINDOW
    from shared.events import GITHUB_EVENT_ADAPTER
    from shared.messaging import event_headers, stream_of

    runtime = Runtime(CommonSettings(nats_url=url), "bench-publish")
    await runtime.start()
    js = runtime.js
    await ensure_topology(js)
    await js.purge_stream(STREAM_GITHUB)
    events = [(GITHUB_EVENT_ADAPTER.validate_json(data), subject) for subject, data, _ in items]
    bus = runtime.bus("ingest")
    with Clock() as clock:
        if how == "faststream":
            for event, subject in events:
                await runtime.broker.publish(
                    event.to_bytes(),
                    subject,
                    headers=event_headers(event),
                    stream=stream_of(subject),
                    timeout=15.0,
                )
        else:
            for start in range(0, len(events), PUBLISH_WINDOW):
                await bus.publish_many(
                    [(e, s, None) for e, s in events[start : start + PUBLISH_WINDOW]]
                )
    stored = (await js.stream_info(STREAM_GITHUB)).state.messages
    await runtime.stop()
    assert stored == len(items), (how, stored)
    return clock


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=50_000)
    args = parser.parse_args(argv)
    items = payloads(args.events)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedNats(store_dir=Path(tmp) / "js") as server:
            for label, run in (
                (
                    "consume: FastStream pull subscriber, batches of 1024 (0.5 s)",
                    consume_faststream,
                ),
                ("consume: StreamingPull + ack (the services')", consume_streaming),
                (
                    "publish: FastStream broker.publish per event",
                    lambda u, i: publish(u, i, "faststream"),
                ),
                # other events (ids): JetStream's de-duplication window outlives a purge
                (
                    "publish: Bus.publish_many, acks gathered (the services')",
                    lambda u, i: publish(u, payloads(len(i), first=len(i)), "ours"),
                ),
            ):
                print(f"{label} ...", file=sys.stderr)
                clock = await run(server.url, items)
                rows.append(
                    f"  {label:<58} {len(items) / clock.wall:>9,.0f} ev/s  "
                    f"{clock.cpu / len(items) * 1e6:5.1f} µs CPU/event"
                )
    print(f"\n{args.events:,} events (bench.pipeline's payloads), 1 embedded nats-server")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
