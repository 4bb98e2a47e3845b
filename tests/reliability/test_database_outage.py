"""The summarizer's PostgreSQL goes away mid-run and comes back: folding is retried with backoff
(counted: no tight loop), nothing is lost or doubled, and the report equals the undisturbed run's
(which used SQLite: one body, two databases).

The outage is a TCP proxy in front of the real PostgreSQL that, while "down", cuts every open
connection and accepts new ones only to close them at once (what a restarting server looks like to
a client), counting each connection attempt. Restarting the shared PostgreSQL itself would disturb
every other test using it.
"""

from __future__ import annotations

import asyncio
import contextlib

import sqlalchemy as sa

from services.classifier.app import build_service as build_classifier
from services.classifier.config import ClassifierSettings
from services.ingest.handlers import ingest_facts
from services.summarizer.app import build_service as build_summarizer
from services.summarizer.config import SummarizerSettings
from shared.config import CommonSettings
from shared.messaging import (
    DURABLE_CLASSIFIER,
    DURABLE_SUMMARIZER,
    STREAM_DEAD,
    STREAM_ENRICHED,
    Subjects,
)
from shared.service import Runtime
from tests.conftest import POSTGRES_URL
from tests.signals import stats_reach

from .harness import (
    JsPublisher,
    Summaries,
    assert_matches_plan,
    baseline,
    comparable,
    connect,
    demo_inputs,
    report_request,
    settled,
    stream_count,
    summary_part,
    watch_acks,
)

OUTAGE_SECONDS = 6.0


class FlakyProxy:
    """A TCP proxy to host:port that can be taken down (and counts connection attempts)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.down = False
        self.up = asyncio.Event()  # set when the proxy is brought back up
        self.attempts_while_down = 0
        self.connections = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self.server: asyncio.base_events.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _pipe(self, reader, writer) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()

    async def _client(self, reader, writer) -> None:
        if self.down:
            self.attempts_while_down += 1
            writer.transport.abort()
            return
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        self._writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self._writers -= {writer, up_writer}

    def take_down(self) -> None:
        self.down = True
        self.up.clear()
        for w in list(self._writers):
            w.transport.abort()  # the server went away under every open connection
        self._writers.clear()

    def bring_up(self) -> None:
        self.down = False
        self.up.set()

    async def close(self) -> None:
        self.take_down()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def test_database_outage_is_retried_with_backoff_and_loses_nothing(
    nats_server, postgres_schema
):
    inputs = demo_inputs(1)
    inp = inputs[0]
    undisturbed = await baseline(inputs)
    target = sa.engine.make_url(POSTGRES_URL)
    proxy = FlakyProxy(target.host or "127.0.0.1", target.port or 5432)
    port = await proxy.start()
    url = target.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
    url += ("&" if "?" in url else "?") + f"options=-csearch_path%3D{postgres_schema}"
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "reliability-db")
    runtime.add(build_classifier(ClassifierSettings(nats_url=nats_server.url), runtime))
    summarizer = runtime.add(
        build_summarizer(SummarizerSettings(nats_url=nats_server.url, database_url=url), runtime)
    )
    await runtime.start()
    nc, js = await connect(nats_server.url)
    try:
        summaries = await Summaries().subscribe(nc)
        acks = await watch_acks(nc, (DURABLE_CLASSIFIER, DURABLE_SUMMARIZER))
        pub = JsPublisher(js)
        half = len(inp.facts) // 2
        await ingest_facts(pub, inp.repo, inp.facts[:half], origin="replay")

        async def folded(n: int, what: str) -> None:
            """Every fact classified, then folded (the acks seen as they are sent), n of them
            enriched."""
            await settled(js, acks, (DURABLE_CLASSIFIER, DURABLE_SUMMARIZER), 120, what)
            stored = await stream_count(js, STREAM_ENRICHED)
            assert stored >= n, f"{what}: {stored} enriched facts, {n} expected"

        await folded(half + 1, "the first half to be folded")
        retried_before = summarizer.fold_consumer.stats.retried
        proxy.take_down()
        await ingest_facts(
            pub, inp.repo, inp.facts[half:], origin="replay", watermark=inp.watermark
        )
        # the summarizer meets the outage: its fold is nacked with backoff (its counter says so)
        await stats_reach(
            summarizer.fold_consumer.stats,
            lambda stats: stats.retried > retried_before,
            60,
            "the summarizer to meet the outage",
        )
        loop = asyncio.get_running_loop()
        # the outage lasts OUTAGE_SECONDS (a condition of the test, kept by the loop's timer);
        # the test waits for the proxy to say it is back up
        loop.call_later(OUTAGE_SECONDS, proxy.bring_up)
        await asyncio.wait_for(proxy.up.wait(), OUTAGE_SECONDS + 30)
        retries = summarizer.fold_consumer.stats.retried - retried_before
        attempts = proxy.attempts_while_down
        await folded(len(inp.facts) + 2, "the rest to be folded")
        request = report_request(inp)
        await pub.publish(request, Subjects.report_requested(inp.repo))
        summary = await summaries.get(request.id, timeout=60)
        messages = len(inp.facts) - half + 1
        print(
            f"\ndatabase outage of {OUTAGE_SECONDS:.0f}s: {retries} message naks for {messages} "
            f"messages ({retries / messages:.1f} each), {attempts} connection attempts while "
            f"down; dead letters: {await stream_count(js, STREAM_DEAD)}"
        )
        assert retries >= 1
        # backoff, not a tight loop: 0.5s doubling per delivery (0.5+1+2+4 > 6s) allows at most
        # five failed deliveries of a message in the outage; a tight loop would make hundreds
        assert retries <= messages * 5, f"{retries} naks in {OUTAGE_SECONDS}s"
        # the outage was met, not slept through: connections were attempted and refused while
        # it lasted (the proxy counts them), and not in a tight loop
        assert 1 <= attempts <= 60, f"{attempts} connection attempts in {OUTAGE_SECONDS}s"
        assert await stream_count(js, STREAM_DEAD) == 0
        assert_matches_plan(summary, inp)
        assert comparable(summary) == summary_part(undisturbed[inp.repo])
    finally:
        await nc.close()
        await runtime.stop()
        await proxy.close()
