"""kill -9 of ingest in the middle of a backfill: after a restart the event log holds every fact
exactly once and one watermark — nothing lost, nothing doubled.

Ingest runs as `python -m services.ingest` with the demo backfill (`REPODIGEST_BACKFILL_SOURCE`);
it is killed twice at random points of its publishing (counted on a plain subscription, which
also sees the re-published copies JetStream drops; frozen with SIGSTOP the moment the count is
reached, then killed) and started again. A restarted backfill publishes everything again under the same
deterministic ids, and JetStream's de-duplication drops what had landed; downstream consumers drop
by id whatever a later window would let through (see test_duplicates.py).
"""

from __future__ import annotations

import random
from collections import Counter

from services.ingest.adapters.demo import DEMO_REPO, generate_demo
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark, make_fact
from shared.messaging import STREAM_DEAD, STREAM_GITHUB
from tests.signals import Signal, StreamWatch

from .harness import ServiceProcess, connect, prepare_topology, stream_count


async def test_ingest_killed_mid_backfill_publishes_each_fact_once(nats_server, tmp_path):
    demo = generate_demo("2026-W24", seed=7)
    expected = {make_fact(f).id for f in demo.facts}
    total = len(expected)
    nc, js = await connect(nats_server.url)
    await prepare_topology(js)
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    print(f"ingest crash seed {seed}; {total} facts")
    proc = ServiceProcess(
        "ingest",
        {
            "REPODIGEST_NATS_URL": nats_server.url,
            "REPODIGEST_BACKFILL_SOURCE": "demo",
            "REPODIGEST_DEMO_WEEK": "2026-W24",
            "REPODIGEST_WEBHOOK_ENABLED": "false",
        },
        tmp_path,
    )
    try:
        seen = [0]  # messages this incarnation has published so far (duplicates included)
        freeze_at = [0]
        published = Signal()

        async def count(_msg) -> None:
            seen[0] += 1
            if seen[0] == freeze_at[0]:
                # frozen here, in the callback: ingest publishes faster than this subscription
                # reads, so by the time a waiter woke it could have finished the backfill
                proc.freeze()
            published.notify()

        await nc.subscribe("rd.github.>", cb=count)
        # points in the first half: what ingest published before the freeze and this
        # subscription had not read yet (its lag) must not reach the end
        for point in (rng.randrange(total // 10, total // 2) for _ in range(2)):
            seen[0], freeze_at[0] = 0, point
            proc.start()
            what = f"ingest to publish {point} facts"
            await proc.while_alive(
                published.until(lambda point=point: seen[0] >= point, 120, what), what
            )
            stored = await stream_count(js, STREAM_GITHUB)  # frozen: nothing more is stored
            proc.kill(published=seen[0], stored=stored)
        print(
            "killed after publishing",
            [k["published"] for k in proc.kills],
            "with",
            [k["stored"] for k in proc.kills],
            "stored",
        )
        assert all(k["stored"] < total for k in proc.kills)  # the kills interrupted the backfill
        stored = await StreamWatch.start(js, STREAM_GITHUB)
        proc.start()
        what = "every fact and the watermark"
        await proc.while_alive(stored.at_least(total + 1, 180, what), what)
        await stored.stop()
        assert proc.stop() == 0, proc.logs()

        sub = await js.pull_subscribe("rd.github.>", stream=STREAM_GITHUB)
        ids: Counter = Counter()
        watermarks = 0
        while sum(ids.values()) + watermarks < await stream_count(js, STREAM_GITHUB):
            for msg in await sub.fetch(500, timeout=10):
                event = GITHUB_EVENT_ADAPTER.validate_json(msg.data)
                if isinstance(event, SyncWatermark):
                    watermarks += 1
                    assert event.data.repo == DEMO_REPO
                else:
                    ids[event.id] += 1
                await msg.ack()
        assert set(ids) == expected  # nothing lost
        assert max(ids.values()) == 1  # nothing doubled
        assert watermarks == 1
        assert await stream_count(js, STREAM_DEAD) == 0
    finally:
        proc.stop()
        await nc.close()
