"""nats-server stopped and restarted (and once killed -9) mid-run on the same store directory:
the services reconnect by themselves and the reports equal the undisturbed run's.

Input size as in test_crash (REPODIGEST_RELIABILITY_EVENTS)."""

from __future__ import annotations

from shared.messaging import DURABLE_CLASSIFIER, DURABLE_SUMMARIZER

from .harness import EVENTS, Run, baseline, demo_inputs, run_pipeline


async def progressed(run: Run, durable: str, fraction: float) -> None:
    """Until the durable's consumers have acknowledged a message past `fraction` of the input
    (its acks seen as they are sent)."""
    await run.acks[durable].until(
        lambda w: w.highest >= fraction * run.total, 120, f"{durable} past {fraction:.0%}"
    )


async def test_broker_restarts_mid_run_change_no_report(tmp_path):
    inputs = demo_inputs(EVENTS)
    undisturbed = await baseline(inputs)
    restarts: list[str] = []

    async def disturb(run: Run) -> None:
        # a graceful restart while the classifier is busy (ingest still publishing) ...
        await progressed(run, DURABLE_CLASSIFIER, 0.3)
        await run.server.restart()
        restarts.append("SIGTERM + start")
        # ... and a crash of the broker while the summarizer folds (kill -9: data written but not
        # yet fsynced survives in the page cache; only a machine crash would lose it)
        await progressed(run, DURABLE_SUMMARIZER, 0.6)
        await run.server.kill()
        await run.server.start()
        restarts.append("SIGKILL + start")

    disturbed, run = await run_pipeline(tmp_path, inputs, disturb=disturb)
    print(
        f"\nbroker restarts: {restarts}; service starts: "
        f"{ {n: p.starts for n, p in run.procs.items()} }"
    )
    assert len(restarts) == 2
    # the services reconnected: nobody restarted them
    assert all(p.starts == 1 for p in run.procs.values())
    assert disturbed == undisturbed
