"""Summarizer rebuild speed: replaying RD_ENRICHED into fresh projections, beside a plain read.

    .venv/bin/python -m bench.summarizer_rebuild --items 3000 [--database sqlite|postgres]

Rebuild: `services.summarizer.rebuild.rebuild` over an embedded nats-server holding the events
(ephemeral consumer, fetch(500), decode, `fold_batch` per batch, then window re-summarizing).
Baseline: the same messages read from the same server by a bare ephemeral pull consumer with
fetch(500) and JSON decoding only (what any replay costs before it writes anything).
Prints events/s for both and their ratio; exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time

import nats
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench.summarizer_fold import database
from services.summarizer.adapters.store import SqlProjections
from services.summarizer.handlers import Deps
from services.summarizer.rebuild import rebuild
from shared.messaging import STREAM_ENRICHED, Subjects, Topology, ensure_topology
from shared.natsserver import EmbeddedNats
from shared.windows import week_window
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario, watermark


async def run(items: int, kind: str) -> None:
    week = week_window(2026, 24, "UTC")
    events = [*random_scenario(1, week.start, 7.0, items).events(), watermark(week.end)]
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedNats(store_dir=f"{tmp}/nats")
        await server.start()
        url, drop = database(kind, tmp)
        nc = await nats.connect(server.url)
        try:
            js = nc.jetstream()
            await ensure_topology(js, Topology(), consumers=())
            acks = []
            for e in events:
                subject = (
                    Subjects.enriched(e.data.fact.kind, e.data.fact.action, REPO)
                    if hasattr(e.data, "fact")
                    else Subjects.enriched_watermark(REPO)
                )
                acks.append(
                    await js.publish_async(subject, e.to_bytes(), headers={"Nats-Msg-Id": e.id})
                )
            await asyncio.gather(*acks)

            sub = await js.pull_subscribe(
                "rd.enriched.>",
                stream=STREAM_ENRICHED,
                config=ConsumerConfig(deliver_policy=DeliverPolicy.ALL, ack_policy=AckPolicy.NONE),
            )
            t0, seen = time.perf_counter(), 0
            while seen < len(events):
                for msg in await sub.fetch(500, timeout=5):
                    json.loads(msg.data)
                    seen += 1
            raw = seen / (time.perf_counter() - t0)
            await sub.unsubscribe()

            store = SqlProjections(url)

            async def publish(event) -> None:
                pass

            deps = Deps(store=store, publish=publish)
            t0 = time.perf_counter()
            result = await rebuild(js, deps)
            rebuilt = result.messages / (time.perf_counter() - t0)
            await deps.close()
            store.close()
        finally:
            await nc.close()
            drop()
            await server.stop()
    print(f"{kind}: {len(events)} events")
    print(
        f"  {'rebuild':<28} {rebuilt:>10,.0f} events/s   ({result.facts} facts, "
        f"{result.watermarks} watermarks)"
    )
    print(
        f"  {'baseline fetch + decode':<28} {raw:>10,.0f} events/s   (rebuild = {rebuilt / raw:.0%} of baseline)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="sqlite")
    args = parser.parse_args()
    for kind in ("sqlite", "postgres") if args.database == "both" else (args.database,):
        asyncio.run(run(args.items, kind))


if __name__ == "__main__":
    main()
