"""kill -9 of the classifier, the summarizer and the renderer at random points: the reports are
unchanged.

The input is at least `REPODIGEST_RELIABILITY_EVENTS` facts (default 20,000, the issue's size:
nine synthetic fortnights from `generate_demo`, about 21,000 facts, each in its own repository)
published through ingest's own `ingest_facts`. Both services run as `python -m services.<name>` processes against a real
nats-server and a SQLite file; a killer per service waits for random points of its consumer's
progress where messages are delivered but not acknowledged (for the classifier: while their
enriched copies are being published downstream, i.e. between publishing downstream and
acknowledging upstream) and kills the process with SIGKILL, then starts it again. After the last
kill a report is requested per repository (Markdown and JSON), the summarizer is killed once more
right after the requests and the renderer once while it renders (its message unacknowledged). The
summaries and the report artifacts' keys must equal those of an undisturbed run over the same
input, the figures match the synthetic plan's, and RD_DEAD must stay empty.

Full size takes about 20 s here including the undisturbed run (which the broker and duplicate
tests share); REPODIGEST_RELIABILITY_EVENTS=2000 (one repository) is a quick run.
REPODIGEST_RELIABILITY_KILLS (default 3) kills per service;
REPODIGEST_RELIABILITY_SEED replays a run's random points (the seed is printed).
"""

from __future__ import annotations

import asyncio
import os
import random

from services.registry import consumers
from shared.messaging import (
    DURABLE_CLASSIFIER,
    DURABLE_RENDERER,
    DURABLE_SUMMARIZER,
    STREAM_ENRICHED,
)
from tests.signals import StreamWatch

from .harness import (
    EVENTS,
    Run,
    ServiceProcess,
    baseline,
    demo_inputs,
    run_pipeline,
    shorten_ack_wait,
    stream_count,
)

KILLS = int(os.environ.get("REPODIGEST_RELIABILITY_KILLS", "3"))


async def killer(run: Run, proc: ServiceProcess, durable: str, kills: int) -> None:
    """Kill `proc` `kills` times, each at a random point of the durable's progress where some
    delivered messages are still unacknowledged; restart it each time.

    The points are signals, not polls: for the summarizer an ack past the point (the batch in
    hand and the one requested ahead are delivered and not yet acknowledged); for the classifier
    an enriched copy stored downstream while the acks seen upstream are fewer than the copies
    (the gap between publishing downstream and acknowledging upstream). What the kill left is
    read from the consumer's state once, after it."""
    js, total = run.js, run.total
    acks = run.acks[durable]
    targets = sorted(run.rng.uniform(0.05, 0.9) * total for _ in range(kills))
    enriched = run.enriched
    for target in targets:
        seen = acks.seen()
        if durable == DURABLE_CLASSIFIER:
            stored = enriched.messages

            def point(target=target, stored=stored) -> bool:
                return (
                    enriched.messages > stored  # a copy stored since this wait began
                    and enriched.messages >= target
                    and enriched.messages > len(acks.settled)
                )
        else:

            def point(target=target, seen=seen) -> bool:
                return acks.seen() > seen and acks.highest >= target  # a fresh ack past it

        def finished() -> bool:
            return len(acks.settled) >= total

        what = f"{proc.name} to reach {target:.0f} messages"
        await proc.while_alive(run.changed.until(lambda: point() or finished(), 120, what), what)
        if finished():
            return  # it finished before this point: fewer kills this run
        proc.kill()
        proc.kills[-1].update(await left_by_kill(run, durable))
        proc.start()
        await shorten_ack_wait(js, proc.name)


async def left_by_kill(run: Run, durable: str) -> dict[str, int]:
    """What a kill left of the durable: delivered, unacknowledged, acknowledged (the ack floor)
    and, for the classifier, enriched copies stored beyond the upstream ack floor."""
    info = await run.js.consumer_info({c.durable: c for c in consumers()}[durable].stream, durable)
    acked = int(info.ack_floor.stream_seq)
    state = {
        "delivered": int(info.delivered.stream_seq),
        "ack_pending": int(info.num_ack_pending),
        "acked": acked,
    }
    if durable == DURABLE_CLASSIFIER:
        state["downstream_ahead"] = max(0, await stream_count(run.js, STREAM_ENRICHED) - acked)
    return state


async def test_kill_dash_nine_changes_no_report(tmp_path):
    inputs = demo_inputs(EVENTS)
    n_facts = sum(len(i.facts) for i in inputs)
    undisturbed = await baseline(inputs)
    seed = int(os.environ.get("REPODIGEST_RELIABILITY_SEED", random.randrange(1 << 30)))

    async def disturb(run: Run) -> None:
        # the enriched copies as they are stored (the classifier's kill points)
        run.enriched = await StreamWatch.start(run.js, STREAM_ENRICHED, run.changed)
        await asyncio.gather(
            killer(run, run.procs["classifier"], DURABLE_CLASSIFIER, KILLS),
            killer(run, run.procs["summarizer"], DURABLE_SUMMARIZER, KILLS),
        )

    async def kill_after_requests(run: Run) -> None:
        run.procs["summarizer"].kill(after_requests=len(inputs))
        run.procs["summarizer"].start()
        await shorten_ack_wait(run.js, "summarizer")
        # the renderer, while it renders a summary: one delivered to it and not yet acknowledged
        renderer = run.deliveries[DURABLE_RENDERER]
        acks = run.acks[DURABLE_RENDERER]
        await run.changed.until(
            lambda: renderer.delivered - acks.settled, 120, "the renderer to render"
        )
        run.procs["renderer"].kill()
        run.procs["renderer"].kills[-1].update(await left_by_kill(run, DURABLE_RENDERER))
        run.procs["renderer"].start()
        await shorten_ack_wait(run.js, "renderer")

    crashed, run = await run_pipeline(
        tmp_path, inputs, seed=seed, disturb=disturb, after_requests=kill_after_requests
    )
    stats = {n: {"starts": p.starts, "kills": p.kills} for n, p in run.procs.items()}
    kills = [k for p in run.procs.values() for k in p.kills]
    print(f"\ncrash run (seed {seed}): {n_facts} facts in {len(inputs)} repositories; {stats}")
    # the kills did happen, at least one with delivered-but-unacknowledged messages
    assert len(kills) >= 3
    assert len(run.procs["renderer"].kills) == 1
    assert any(k.get("ack_pending", 0) > 0 for k in kills)
    gap = sum(k.get("downstream_ahead", 0) > 0 for k in run.procs["classifier"].kills)
    print(f"classifier kills between publishing downstream and acknowledging upstream: {gap}")
    assert gap >= 1
    assert crashed.keys() == undisturbed.keys()
    for repo in undisturbed:
        assert crashed[repo] == undisturbed[repo], f"{repo}: the crashed run's report differs"
