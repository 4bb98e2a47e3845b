"""/healthz, /readyz and /metrics of a runtime on a real nats-server.

Ready follows NATS (503 while the server is down, 200 after it is back) and each service's own
check; /metrics shows the consumer lag read from JetStream, and the bus counters moving as the
classifier consumes, publishes and dead-letters.
"""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import UTC, datetime, timedelta

import httpx
import nats
import pytest
from prometheus_client.parser import text_string_to_metric_families

import shared.events as ev
from services.classifier.messaging import CONSUMER as CLASSIFIER
from shared.config import CommonSettings
from shared.health import HealthServer
from shared.messaging import DURABLE_CLASSIFIER, Subjects
from shared.service import Runtime
from shared.telemetry import prometheus_text, setup_telemetry
from tests.signals import LogWatch

pytestmark = pytest.mark.timeout(120)

REPO = "acme/telemetry"
T0 = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)


class Probe:
    """A service whose readiness the test decides; it declares a durable but consumes nothing."""

    name = "probe"

    def __init__(self, consumers: tuple = ()) -> None:
        self.consumers = consumers
        self.problem: str | None = None

    def register(self, router) -> None:
        return None

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def ready(self) -> None:
        if self.problem:
            raise RuntimeError(self.problem)


def fact(n: int) -> ev.GithubFact:
    at = T0 + timedelta(minutes=n)
    item = ev.ItemSnapshot(
        repo=REPO,
        number=n,
        kind="pull_request",
        title=f"[Core] change {n}",
        author=ev.Actor(login="dev"),
        state="closed",
        created_at=T0,
        closed_at=at,
        merged_at=at,
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="merged", item=item))


async def test_readyz_follows_nats_and_service_checks(nats_server, caplog):
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "probe")
    probe = runtime.add(Probe())
    await runtime.start()
    health = HealthServer(runtime, 0, host="127.0.0.1")  # a port of its own
    await health.start()
    port = health.port
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            live = await client.get("/healthz")
            assert live.status_code == 200 and live.json()["service"] == "probe"
            ready = await client.get("/readyz")
            assert ready.status_code == 200, ready.text
            checks = ready.json()["checks"]
            assert checks["nats"] == "ok" and checks["probe"] == "ok"
            assert {k for k in checks if k.startswith("stream:")} == {
                "stream:RD_GITHUB",
                "stream:RD_ENRICHED",
                "stream:RD_REPORTS",
                "stream:RD_DEAD",
            }

            probe.problem = "database at db.internal:5432 unreachable: connection refused"
            with caplog.at_level(logging.WARNING, logger="repodigest.health"):
                failing = await client.get("/readyz")
                again = await client.get("/readyz")
            assert failing.status_code == 503
            # ok/failing only: an unauthenticated probe learns no host, port or error text;
            # the reason is logged once, not at every probe
            assert failing.json()["checks"]["probe"] == "failing"
            assert "db.internal" not in failing.text and again.json() == failing.json()
            reasons = [r.getMessage() for r in caplog.records if r.name == "repodigest.health"]
            assert len(reasons) == 1 and "db.internal:5432 unreachable" in reasons[0]
            probe.problem = None

            # the runtime says when its connection goes and comes back (nats-py's callbacks)
            with LogWatch("repodigest.service") as service_log:
                await nats_server.stop()
                await service_log.message(
                    "^disconnected from NATS", 30, "the runtime to see NATS stopped"
                )
                r = await client.get("/readyz")
                assert r.status_code == 503 and r.json()["checks"]["nats"] == "failing", r.text
                assert (await client.get("/healthz")).status_code == 200  # alive all the same

                await nats_server.start()
                await service_log.message(
                    "^reconnected to NATS", 60, "the runtime to reconnect to the restarted NATS"
                )
            r = await client.get("/readyz")
            assert r.status_code == 200 and r.json()["checks"]["stream:RD_GITHUB"] == "ok", r.text
    finally:
        await health.stop()
        await runtime.stop()


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(metrics: dict, name: str, **labels: str) -> float:
    """Sum of the samples of `name` whose labels include `labels` (0 when none)."""
    want = set(labels.items())
    return sum(v for (n, lab), v in metrics.items() if n == name and want <= set(lab))


async def test_metrics_show_lag_and_bus_counters(nats_server):
    from services.classifier.app import build_service
    from services.classifier.config import ClassifierSettings

    setup_telemetry("repodigest-test")
    assert prometheus_text() is not None, "the process's meter provider has no Prometheus reader"
    facts = [fact(n) for n in range(1, 4)]

    # 1. the durable exists, nothing consumes it: the lag gauge reads JetStream's pending count
    idle = Runtime(CommonSettings(nats_url=nats_server.url), "probe")
    idle.add(Probe((CLASSIFIER,)))
    await idle.start()
    health = HealthServer(idle, 0, host="127.0.0.1")  # a port of its own
    await health.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        for f in facts:
            await js.publish(Subjects.fact("pull_request", "merged", REPO), f.to_bytes())
        bad = json.loads(fact(9).to_bytes())
        bad["data"]["item"]["number"] = -1
        await js.publish(Subjects.fact("pull_request", "merged", REPO), json.dumps(bad).encode())
        async with httpx.AsyncClient(timeout=10) as client:
            scrape = await client.get(f"http://127.0.0.1:{health.port}/metrics")
        assert scrape.status_code == 200 and scrape.headers["content-type"].startswith("text/plain")
        before = samples(scrape.text)
        assert (
            value(before, "repodigest_consumer_lag", consumer=DURABLE_CLASSIFIER, state="pending")
            == len(facts) + 1
        )
    finally:
        await health.stop()
        await idle.stop()

    # 2. the classifier drains it: consumed, published and dead-lettered counters, latency, lag 0
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "classifier")
    service = runtime.add(build_service(ClassifierSettings(nats_url=nats_server.url), runtime))
    await runtime.start()
    health = HealthServer(runtime, 0, host="127.0.0.1")  # a port of its own
    await health.start()
    try:
        await asyncio.wait_for(service.consumer.idle.wait(), 60)
        async with httpx.AsyncClient(timeout=10) as client:
            after = samples((await client.get(f"http://127.0.0.1:{health.port}/metrics")).text)
    finally:
        await health.stop()
        await runtime.stop()
        await nc.close()

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta(
        "repodigest_events_consumed_total", consumer=DURABLE_CLASSIFIER, outcome="ok"
    ) == len(facts)
    assert (
        delta("repodigest_events_consumed_total", consumer=DURABLE_CLASSIFIER, outcome="dead") == 1
    )
    assert delta(
        "repodigest_events_published_total", service="classifier", stream="RD_ENRICHED"
    ) == len(facts)
    assert delta("repodigest_events_dead_lettered_total", service="classifier") == 1
    assert delta("repodigest_handler_duration_seconds_count", consumer=DURABLE_CLASSIFIER) >= 1
    assert (
        value(after, "repodigest_consumer_lag", consumer=DURABLE_CLASSIFIER, state="pending") == 0
    )


async def test_readyz_reports_a_consumer_whose_pull_requests_are_refused(nats_server):
    from shared.health import readiness
    from shared.messaging import DURABLE_CLASSIFIER, STREAM_GITHUB, Consumer

    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "probe")
    consumer = Consumer(
        runtime.bus("probe"),
        CLASSIFIER,
        ev.GITHUB_EVENT_ADAPTER.validate_json,
        handle_batch=lambda events: None,
    )

    class Consuming(Probe):
        def register(self, router) -> None:
            consumer.register(router)

    runtime.add(Consuming((CLASSIFIER,)))
    await runtime.start()
    try:
        checks = await readiness(runtime)
        assert checks[f"consumer:{DURABLE_CLASSIFIER}"] == "ok"
        # an operator deletes the durable under a running service: it says so, it does not spin
        with LogWatch("repodigest.bus.pull") as pull_log:
            await runtime.js.delete_consumer(STREAM_GITHUB, DURABLE_CLASSIFIER)
            # the puller logs the server's refusal as it takes it
            await pull_log.message(
                "pull requests refused", 30, "the server to refuse the pull requests"
            )
        state = (await readiness(runtime))[f"consumer:{DURABLE_CLASSIFIER}"]
        assert "refused" in state and DURABLE_CLASSIFIER in state
    finally:
        await runtime.stop()
    assert (await readiness(runtime)).get(f"consumer:{DURABLE_CLASSIFIER}") == "not consuming"
