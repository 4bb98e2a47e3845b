"""The classifier on a real nats-server: facts in on RD_GITHUB, tagged facts out on RD_ENRICHED,
a malformed message dead-lettered without stopping the others, the watermark after the facts."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import nats
import pytest

import shared.events as ev
from services.classifier.app import build_service
from services.classifier.config import ClassifierSettings
from shared.config import CommonSettings
from shared.messaging import STREAM_DEAD, Subjects
from shared.service import Runtime

pytestmark = pytest.mark.timeout(120)

REPO = "vllm-project/vllm"
T0 = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)


def merged(n: int, title: str, files: list[str], login: str = "dev") -> ev.GithubFact:
    at = T0 + timedelta(minutes=n)
    item = ev.ItemSnapshot(
        repo=REPO,
        number=n,
        kind="pull_request",
        title=title,
        author=ev.Actor(login=login),
        state="closed",
        created_at=T0,
        closed_at=at,
        merged_at=at,
        files=tuple(ev.FileChange(path=p, additions=10, deletions=2) for p in files),
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="merged", item=item))


async def read_all(js, stream: str, subject: str, count: int, timeout: float = 30.0) -> list:
    """`count` messages from `stream` in stream order (an ephemeral ordered pull)."""
    sub = await js.pull_subscribe(subject, stream=stream)
    out: list = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(out) < count:
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(
                f"only {len(out)} of {count} messages on {subject} within {timeout}s"
            )
        try:
            msgs = await sub.fetch(count - len(out), timeout=min(remaining, 2.0))
        except nats.errors.TimeoutError:
            continue
        for m in msgs:
            await m.ack()
        out.extend(msgs)
    await sub.unsubscribe()
    return out


async def test_facts_are_tagged_bad_message_dead_lettered_watermark_last(nats_server):
    settings = ClassifierSettings(nats_url=nats_server.url)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "classifier-test")
    service = runtime.add(build_service(settings, runtime))
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        facts = [
            merged(
                1,
                "[ROCm] Enable AITER MLA decode on MI300X",
                ["csrc/rocm/attention.cu"],
                "jtan-amd",
            ),
            merged(
                2,
                "[Core] Preempt lowest-priority requests first",
                ["vllm/v1/core/sched/scheduler.py"],
            ),
        ]
        for f in facts[:1]:
            await js.publish(Subjects.fact("pull_request", "merged", REPO), f.to_bytes())
        # malformed: a fact whose data violates the contract, between two good ones
        bad = json.loads(facts[1].to_bytes())
        bad["id"] = "bad-event-0001"
        bad["data"]["item"]["number"] = -5
        await js.publish(Subjects.fact("pull_request", "merged", REPO), json.dumps(bad).encode())
        await js.publish(Subjects.fact("pull_request", "merged", REPO), facts[1].to_bytes())
        watermark = ev.SyncWatermark.create(
            ev.WatermarkData(repo=REPO, watermark=T0 + timedelta(hours=1), facts_published=2)
        )
        await js.publish(Subjects.watermark(REPO), watermark.to_bytes())

        out = await read_all(js, "RD_ENRICHED", "rd.enriched.>", 3)
        events = [ev.ENRICHED_EVENT_ADAPTER.validate_json(m.data) for m in out]
        assert [type(e).__name__ for e in events] == [
            "EnrichedFact",
            "EnrichedFact",
            "WatermarkForwarded",
        ]
        assert out[-1].subject == Subjects.enriched_watermark(REPO)
        assert out[0].subject == Subjects.enriched("pull_request", "merged", REPO)

        rocm, core = events[0].data, events[1].data
        assert rocm.fact_id == facts[0].id and core.fact_id == facts[1].id
        assert rocm.tags.modules[0].name == "rocm"
        assert rocm.tags.modules[0].rule == "module:rocm/title-prefix"
        assert [a.name for a in rocm.tags.affiliations] == ["AMD"]
        assert [e.name for e in rocm.tags.ecosystems][:1] == ["ROCm"]
        assert rocm.ruleset.profile == "vllm" and len(rocm.ruleset.version) == 64
        assert "scheduler/core" in core.tags.module_names()
        risk = {r.name: r for r in core.tags.risks}["core-without-tests"]
        assert "vllm/v1/core/sched/scheduler.py" in risk.reason and "tests/" in risk.reason
        assert events[2].data.watermark == watermark.data.watermark

        dead = await read_all(js, STREAM_DEAD, "rd.dead.>", 1)
        assert dead[0].subject == Subjects.dead("classifier")
        assert json.loads(dead[0].data)["id"] == "bad-event-0001"  # original bytes intact
        reason = dead[0].headers or {}
        assert any("number" in str(v) for v in reason.values()), reason
        assert service.consumer.stats.dead == 1
    finally:
        await nc.close()
        await runtime.stop()


async def test_poison_in_a_batch_does_not_lose_the_other_facts(nats_server):
    """A fact the rules cannot classify is dead-lettered; the rest of the batch still comes out."""
    settings = ClassifierSettings(nats_url=nats_server.url)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "classifier-test")
    service = runtime.add(build_service(settings, runtime))
    ruleset = service.registry.for_repo(REPO)
    original = ruleset.classify

    def fragile(item, trace=None):
        if item.number == 2:
            raise RuntimeError("rule engine bug")
        return original(item, trace)

    ruleset.classify = fragile  # type: ignore[method-assign]
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        # published before the service starts, so that they are fetched together as one batch
        from services.registry import consumers
        from shared.messaging import ensure_topology

        await ensure_topology(js, consumers=consumers())
        for n in (1, 2, 3):
            await js.publish(
                Subjects.fact("pull_request", "merged", REPO),
                merged(n, f"[Doc] page {n}", [f"docs/p{n}.md"]).to_bytes(),
            )
        await runtime.start()
        out = await read_all(js, "RD_ENRICHED", "rd.enriched.>", 2)
        numbers = sorted(
            ev.ENRICHED_EVENT_ADAPTER.validate_json(m.data).data.fact.item.number for m in out
        )
        assert numbers == [1, 3]
        dead = await read_all(js, STREAM_DEAD, "rd.dead.>", 1)
        assert "rule engine bug" in json.dumps(dict(dead[0].headers or {}))
    finally:
        await nc.close()
        await runtime.stop()


async def test_a_redelivered_fact_is_enriched_once(nats_server):
    """The enriched id is deterministic (fact id + rule-set version): JetStream keeps one copy."""
    settings = ClassifierSettings(nats_url=nats_server.url)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "classifier-test")
    runtime.add(build_service(settings, runtime))
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        fact = merged(
            7, "[MoE] Tune configs", ["vllm/model_executor/layers/fused_moe/configs/x.json"]
        )
        for _ in range(2):  # no Nats-Msg-Id: RD_GITHUB keeps both copies
            await js.publish(Subjects.fact("pull_request", "merged", REPO), fact.to_bytes())
        marker = ev.SyncWatermark.create(
            ev.WatermarkData(repo=REPO, watermark=T0 + timedelta(hours=2))
        )
        await js.publish(Subjects.watermark(REPO), marker.to_bytes())
        out = await read_all(
            js, "RD_ENRICHED", "rd.enriched.>", 2
        )  # the fact once, then the watermark
        kinds = [type(ev.ENRICHED_EVENT_ADAPTER.validate_json(m.data)).__name__ for m in out]
        assert kinds == ["EnrichedFact", "WatermarkForwarded"]
        assert (await js.stream_info("RD_ENRICHED")).state.messages == 2
    finally:
        await nc.close()
        await runtime.stop()
