"""The classifier's handlers on the in-memory bus (shared/messaging/testing.py): no nats-server,
the consumer's own ack / dead-letter rules. The same scenario runs on a real server in
tests/integration/classifier/test_classifier_service.py."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import shared.events as ev
from services.registry import bootstrap
from shared.messaging import Subjects
from shared.messaging.testing import MemoryBroker

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


async def test_facts_tagged_in_order_a_bad_one_dead_the_watermark_last():
    broker = MemoryBroker()
    boot = bootstrap("classifier")
    service = boot.build(boot.settings(), broker)  # the memory broker as its runtime
    ingest = broker.bus("ingest")
    rocm = merged(
        1, "[ROCm] Enable AITER MLA decode on MI300X", ["csrc/rocm/attention.cu"], "jtan-amd"
    )
    core = merged(
        2, "[Core] Preempt lowest-priority requests first", ["vllm/v1/core/sched/scheduler.py"]
    )
    await ingest.publish(rocm, Subjects.fact("pull_request", "merged", REPO))
    bad = json.loads(core.to_bytes())
    bad["id"], bad["data"]["item"]["number"] = "bad-event-0001", -5
    broker.append(
        Subjects.fact("pull_request", "merged", REPO),
        json.dumps(bad).encode(),
        {"Nats-Msg-Id": "bad-event-0001"},
    )
    await ingest.publish(core, Subjects.fact("pull_request", "merged", REPO))
    mark = ev.SyncWatermark.create(
        ev.WatermarkData(repo=REPO, watermark=T0 + timedelta(hours=1), facts_published=2)
    )
    await ingest.publish(mark, Subjects.watermark(REPO))

    await broker.run(service.consumer)

    out = broker.messages("rd.enriched.>")
    events = [ev.ENRICHED_EVENT_ADAPTER.validate_json(m.data) for m in out]
    assert [type(e).__name__ for e in events] == [
        "EnrichedFact",
        "EnrichedFact",
        "WatermarkForwarded",
    ]
    assert [m.subject for m in out] == [Subjects.enriched("pull_request", "merged", REPO)] * 2 + [
        Subjects.enriched_watermark(REPO)
    ]
    first, second = events[0].data, events[1].data
    assert first.fact_id == rocm.id and second.fact_id == core.id
    assert first.tags.modules[0].rule == "module:rocm/title-prefix"
    assert [a.name for a in first.tags.affiliations] == ["AMD"]
    assert "scheduler/core" in second.tags.module_names()
    assert events[2].data.watermark == mark.data.watermark
    (dead,) = broker.dead_letters("classifier")
    assert json.loads(dead.data)["id"] == "bad-event-0001"  # the original bytes
    assert "number" in dead.headers["Rd-Dead-Reason"]
    assert service.consumer.stats.dead == 1 and service.consumer.stats.processed == 3


async def test_a_fact_the_rules_cannot_classify_is_dead_the_batch_goes_on():
    broker = MemoryBroker()
    boot = bootstrap("classifier")
    service = boot.build(boot.settings(), broker)
    ruleset = service.registry.for_repo(REPO)
    original = ruleset.classify

    def fragile(item, trace=None):
        if item.number == 2:
            raise RuntimeError("rule engine bug")
        return original(item, trace)

    ruleset.classify = fragile  # type: ignore[method-assign]
    ingest = broker.bus("ingest")
    for n in (1, 2, 3):
        await ingest.publish(
            merged(n, f"[Core] change {n}", ["vllm/engine/x.py"]),
            Subjects.fact("pull_request", "merged", REPO),
        )
    await broker.run(service.consumer)
    numbers = [
        e.data.fact.item.number
        for e in broker.events("rd.enriched.>", ev.ENRICHED_EVENT_ADAPTER.validate_json)
    ]
    assert numbers == [1, 3]
    (dead,) = broker.dead_letters("classifier")
    assert "rule engine bug" in dead.headers["Rd-Dead-Reason"]
    assert ev.GITHUB_EVENT_ADAPTER.validate_json(dead.data).data.item.number == 2
