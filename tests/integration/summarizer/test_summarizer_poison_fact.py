"""One fact the database refuses, in a batch of good ones (real nats-server, SQLite and PostgreSQL):
only it is dead-lettered, with the database's reason; every good fact is folded and counted.

The contract refuses such facts at the edge now, so the poison is smuggled past it the way an
older producer or a contract gap would: the consumer's decoder builds it with `model_construct`.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta

import nats
import pytest
from pydantic import ValidationError

from services.registry import consumers
from services.summarizer.app import build_service
from services.summarizer.config import SummarizerSettings
from shared.config import CommonSettings
from shared.events import (
    ENRICHED_EVENT_ADAPTER,
    EnrichedFact,
    ReportRequestData,
    ReportRequested,
    WindowRef,
)
from shared.messaging import DURABLE_SUMMARIZER, STREAM_DEAD, Subjects, ensure_topology
from shared.service import Runtime
from shared.windows import week_window
from tests.integration.summarizer.test_summarizer_service import next_summary
from tests.signals import AckWatch
from tests.unit.summarizer.summarizer_builders import REPO, random_scenario, watermark

WEEK = week_window(2026, 24, "UTC")


def smuggled(event: EnrichedFact, **item: object) -> EnrichedFact:
    """`event` with item fields the contract would refuse, built without validation."""
    data = event.data
    snap = data.fact.item.model_construct(**{**dict(data.fact.item), **item})
    fact = data.fact.model_construct(**{**dict(data.fact), "item": snap})
    return event.model_construct(
        **{**dict(event), "data": data.model_construct(**{**dict(data), "fact": fact})}
    )


def lenient_decode(raw: bytes):
    """The service's decoder, except that an item the contract refuses is smuggled through."""
    try:
        return ENRICHED_EVENT_ADAPTER.validate_json(raw)
    except ValidationError:
        doc = json.loads(raw)
        item = doc["data"]["fact"]["item"]
        bad = {k: item[k] for k in ("number", "title")}
        item.update(number=99_999, title="stand-in")
        return smuggled(ENRICHED_EVENT_ADAPTER.validate_python(doc), **bad)


@pytest.mark.parametrize("poison", ["number", "nul"])
async def test_one_refused_fact_is_dead_lettered_alone_and_the_good_ones_are_folded(
    poison, database_url, nats_server
):
    if poison == "nul" and database_url.startswith("sqlite"):
        pytest.skip("SQLite stores a NUL; only PostgreSQL refuses it")
    events = random_scenario(16, WEEK.start, 7.0, n_items=40).events()
    in_week = [e for e in events if WEEK.contains(e.data.fact_time)]
    victim = in_week[len(in_week) // 2]
    # (a NUL title is refused where it is a column: in the items row of the item's latest
    # snapshot, so the poison is an item of its own)
    bad = {"number": 2**70} if poison == "number" else {"number": 4242, "title": "a\x00b"}
    doc = json.loads(victim.to_bytes())
    doc["id"] = "poison-" + victim.id[:20]
    doc["data"]["fact_id"] = "poison-fact"
    doc["data"]["fact"]["item"].update(bad)
    poison_raw = json.dumps(doc).encode()
    with pytest.raises(ValidationError):  # the contract refuses it now
        ENRICHED_EVENT_ADAPTER.validate_json(poison_raw)
    mark = WEEK.end + timedelta(hours=1)
    request = ReportRequested.create(
        ReportRequestData(repo=REPO, window=WindowRef.of(WEEK), as_of=mark),
        nonce=uuid.uuid4().hex,
        at=datetime.now(UTC),
    )

    # everything is in the stream before the summarizer starts: the poison arrives in one batch
    # with the good facts and the watermark that closes the window
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    await ensure_topology(js, consumers=consumers())
    half = len(events) // 2
    order = [*events[:half], None, *events[half:]]
    for e in order:
        if e is None:
            subject = Subjects.enriched("pull_request", "opened", REPO)
            await js.publish(subject, poison_raw, headers={"Nats-Msg-Id": doc["id"]})
        else:
            await js.publish(
                Subjects.enriched(e.data.fact.kind, e.data.fact.action, REPO),
                e.to_bytes(),
                headers={"Nats-Msg-Id": e.id},
            )
    await js.publish(
        Subjects.enriched_watermark(REPO),
        watermark(mark).to_bytes(),
        headers={"Nats-Msg-Id": watermark(mark).id},
    )
    await js.publish(
        Subjects.report_requested(REPO), request.to_bytes(), headers={"Nats-Msg-Id": request.id}
    )

    settings = SummarizerSettings(nats_url=nats_server.url, database_url=database_url)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "summarizer-test")
    service = runtime.add(build_service(settings, runtime))
    service.fold_consumer.decode = lenient_decode
    summaries: asyncio.Queue = asyncio.Queue()

    async def on_summary(msg) -> None:
        await summaries.put(msg.data)

    sub = await nc.subscribe(Subjects.summary_ready(REPO), cb=on_summary)
    acks = await AckWatch.start(nc, "RD_ENRICHED", DURABLE_SUMMARIZER)
    stored = (await js.stream_info("RD_ENRICHED")).state.messages
    await runtime.start()
    try:
        summary = (await next_summary(summaries, request.id, timeout=60)).data
        await acks.drained(js, stored, 30, "the fold consumer to settle everything")
        # every good fact of the week is counted; the poison is not
        assert summary.facts_counted == len(in_week)
        assert service.store.counts()["activity"] == len({e.data.fact_id for e in events})
        stats = service.fold_consumer.stats
        assert stats.dead == 1 and stats.retried == 0
        total = (await js.stream_info("RD_ENRICHED")).state.messages
        assert total == len({e.id for e in events}) + 2  # the poison and the watermark
        assert stats.processed == total - 1
        info = await js.stream_info(STREAM_DEAD)
        assert info.state.messages == 1
        letter = await js.get_msg(STREAM_DEAD, info.state.first_seq)
        assert letter.data == poison_raw  # the original bytes, to inspect and fix
        reason = letter.headers["Rd-Dead-Reason"]
        assert reason.startswith(f"the projections refuse {victim.data.fact.kind}.")
        assert f"{REPO}#" in reason
        expected = {
            "number": (
                "OverflowError" if database_url.startswith("sqlite") else "NumericValueOutOfRange"
            ),
            "nul": "CharacterNotInRepertoire",
        }[poison]
        assert expected in reason and "gave up" not in reason
    finally:
        await sub.unsubscribe()
        await runtime.stop()
        await nc.close()
