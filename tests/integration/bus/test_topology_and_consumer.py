"""The bus on a real nats-server: idempotent topology, de-duplication, ordered consumption,
dead-lettering with the reason and the original bytes, retries with backoff, broker restarts."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import shared.events as ev
from services.classifier.messaging import CONSUMER as CLASSIFIER
from services.registry import consumers as all_consumers
from shared.config import CommonSettings
from shared.messaging import (
    DURABLE_CLASSIFIER,
    KV_INGEST_STATE,
    OBJECT_BUCKET,
    STREAM_DEAD,
    STREAM_GITHUB,
    Consumer,
    Poison,
    Subjects,
    Topology,
    ensure_topology,
    repo_from_subject,
    token,
)
from shared.service import Runtime

REPO = "acme/widgets.io"


def fact(n: int, action: str = "opened") -> ev.GithubFact:
    item = ev.ItemSnapshot(
        repo=REPO,
        number=n,
        kind="pull_request",
        title=f"PR {n}",
        author=ev.Actor(login="dev"),
        state="open",
        created_at=datetime(2026, 6, 8, tzinfo=UTC),
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action=action, item=item))


class Harness:
    def __init__(self, url: str, handle) -> None:
        self.runtime = Runtime(CommonSettings(nats_url=url), "test")
        self.bus = self.runtime.bus("test")
        self.consumer = Consumer(
            self.bus, CLASSIFIER, ev.GITHUB_EVENT_ADAPTER.validate_json, handle
        )

        class _Svc:
            name = "test"
            consumers = (CLASSIFIER,)
            register = self.consumer.register

            async def start(self) -> None: ...

            async def stop(self) -> None: ...

        self.runtime.add(_Svc())

    @property
    def js(self):
        return self.runtime.js


def test_subject_tokens_round_trip_dotted_names():
    subject = Subjects.fact("pull_request", "merged", REPO)
    assert subject == "rd.github.pull_request.merged.acme.widgets%2Eio"
    assert repo_from_subject(subject) == REPO
    assert "." not in token("a.b*c>d e")


async def test_topology_is_idempotent(nats_server):
    import nats

    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    await ensure_topology(js, consumers=all_consumers())
    await ensure_topology(js, Topology(duplicate_window=300), all_consumers())
    names = {s.config.name for s in await js.streams_info()}
    assert {"RD_GITHUB", "RD_ENRICHED", "RD_REPORTS", "RD_DEAD"} <= names
    assert (await js.stream_info(STREAM_GITHUB)).config.duplicate_window == 300
    assert (await js.consumer_info(STREAM_GITHUB, DURABLE_CLASSIFIER)).config.durable_name
    await js.key_value(KV_INGEST_STATE)
    await js.object_store(OBJECT_BUCKET)
    await nc.close()


async def test_in_order_dedupe_and_dead_letter(nats_server):
    seen: list[int] = []
    enough = asyncio.Event()

    async def handle(event) -> None:
        if event.data.item.number == 13:
            raise Poison("number 13 violates the test's contract")
        seen.append(event.data.item.number)
        if len(seen) == 20:
            enough.set()

    h = Harness(nats_server.url, handle)
    await h.runtime.start()
    try:
        for n in range(1, 22):
            acks = [
                await h.bus.publish(fact(n), Subjects.fact("pull_request", "opened", REPO))
                for _ in range(2)
            ]
            assert acks[1].duplicate and not acks[0].duplicate
            if n == 5:
                await h.runtime.broker.publish(
                    b"\xff not json", "rd.github.pull_request.opened.x.y", stream=STREAM_GITHUB
                )
        await asyncio.wait_for(enough.wait(), 30)
        assert seen == [n for n in range(1, 22) if n != 13]
        dead = await h.js.pull_subscribe("rd.dead.>", durable="inspect", stream=STREAM_DEAD)
        letters = await dead.fetch(2, timeout=10)
        reasons = sorted(m.headers["Rd-Dead-Reason"] for m in letters)
        assert any("invalid event" in r for r in reasons)
        assert any("number 13" in r for r in reasons)
        raw = {m.data for m in letters}
        assert b"\xff not json" in raw  # original bytes intact
    finally:
        await h.runtime.stop()


async def test_transient_failure_is_retried_then_succeeds(nats_server):
    attempts: list[int] = []
    done = asyncio.Event()

    async def handle(event) -> None:
        attempts.append(event.data.item.number)
        if len(attempts) < 3:
            raise ConnectionError("database is restarting")
        done.set()

    h = Harness(nats_server.url, handle)
    await h.runtime.start()
    try:
        await h.bus.publish(fact(1), Subjects.fact("pull_request", "opened", REPO))
        await asyncio.wait_for(done.wait(), 30)
        assert attempts == [1, 1, 1] and h.consumer.stats.retried == 2
        assert (await h.js.stream_info(STREAM_DEAD)).state.messages == 0
    finally:
        await h.runtime.stop()


async def test_consumer_survives_a_broker_restart(nats_server):
    got: list[int] = []
    first, second = asyncio.Event(), asyncio.Event()

    async def handle(event) -> None:
        got.append(event.data.item.number)
        (first if event.data.item.number == 1 else second).set()

    h = Harness(nats_server.url, handle)
    await h.runtime.start()
    try:
        await h.bus.publish(fact(1), Subjects.fact("pull_request", "opened", REPO))
        await asyncio.wait_for(first.wait(), 30)
        await nats_server.restart()  # same port, same store directory
        # published while the client is still reconnecting: nats-py buffers it and JetStream's
        # ack arrives once the connection is back
        f2 = fact(2)
        await h.runtime.broker.publish(
            f2.to_bytes(),
            Subjects.fact("pull_request", "opened", REPO),
            headers={"Nats-Msg-Id": f2.id},
            stream=STREAM_GITHUB,
            timeout=30,
        )
        await asyncio.wait_for(second.wait(), 60)
        assert got == [1, 2]
    finally:
        await h.runtime.stop()


async def test_existing_durables_keep_what_an_operator_tuned(nats_server, caplog):
    import dataclasses
    import logging

    import nats

    caplog.set_level(logging.INFO, logger="repodigest.bus")

    def kept_settings() -> list[str]:
        return [
            r.getMessage()
            for r in caplog.records
            if r.name == "repodigest.bus" and "keeps its own settings" in r.getMessage()
        ]

    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    await ensure_topology(js, consumers=all_consumers())
    await ensure_topology(
        js, consumers=all_consumers()
    )  # the code's own settings: nothing to report
    assert kept_settings() == []
    spec = CLASSIFIER
    tuned = dataclasses.replace(spec, ack_wait=30.0, max_deliver=3)
    await js.add_consumer(spec.stream, config=tuned.config())  # the operator's update
    await ensure_topology(js, consumers=all_consumers())  # a service (re)starts
    info = await js.consumer_info(spec.stream, DURABLE_CLASSIFIER)
    assert info.config.ack_wait == 30.0 and info.config.max_deliver == 3
    # the difference is logged: which consumer, each setting with the code's value beside it
    (line,) = kept_settings()
    assert line.startswith(f"consumer {DURABLE_CLASSIFIER} keeps its own settings: "), line
    assert f"max_deliver=3 (code: {spec.max_deliver})" in line
    assert f"ack_wait=30.0 (code: {spec.ack_wait})" in line
    assert "filter_subject" not in line and "max_ack_pending" not in line  # unchanged: not listed
    await nc.close()
