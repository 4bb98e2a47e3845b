"""`Bus.publish_many` on a real nats-server: acks in order, Nats-Msg-Id de-duplication, the trace
context given with each event in its headers, and a broken batch raising instead of vanishing."""

from __future__ import annotations

from datetime import UTC, datetime

import nats
import nats.errors
import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

import shared.events as ev
from shared.config import CommonSettings
from shared.messaging import STREAM_GITHUB, Subjects
from shared.service import Runtime

REPO = "acme/batch"


def fact(n: int) -> ev.GithubFact:
    item = ev.ItemSnapshot(
        repo=REPO,
        number=n,
        kind="pull_request",
        title=f"PR {n}",
        author=ev.Actor(login="dev"),
        state="open",
        created_at=datetime(2026, 6, 8, tzinfo=UTC),
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="opened", item=item))


def context_of(trace_id: int):
    span = NonRecordingSpan(
        SpanContext(
            trace_id=trace_id,
            span_id=0xABC,
            is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
    )
    return trace.set_span_in_context(span)


async def test_publish_many_acks_dedupes_and_carries_each_trace(nats_server):
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "test")
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    try:
        bus = runtime.bus("test")
        subject = Subjects.fact("pull_request", "opened", REPO)
        facts = [fact(n) for n in range(1, 301)]
        batch = [(f, subject, context_of(1000 + i)) for i, f in enumerate(facts)]

        acks = await bus.publish_many(batch)
        assert [a.seq for a in acks] == sorted(a.seq for a in acks)
        assert len({a.seq for a in acks}) == len(facts)
        assert not any(a.duplicate for a in acks)

        again = await bus.publish_many(batch)  # a retried batch is de-duplicated, never doubled
        assert all(a.duplicate for a in again)
        assert (await nc.jetstream().stream_info(STREAM_GITHUB)).state.messages == len(facts)

        sub = await nc.jetstream().pull_subscribe(subject, stream=STREAM_GITHUB)
        msgs = await sub.fetch(len(facts), timeout=5)
        got = {m.headers["Nats-Msg-Id"]: m.headers.get("traceparent", "") for m in msgs}
        for i, f in enumerate(facts):
            # each message continues the trace it was given (not the batch's, not a new one)
            assert got[f.id].split("-")[1] == format(1000 + i, "032x"), got[f.id]
        assert all(m.data == f.to_bytes() for m, f in zip(msgs, facts))

        # no stream listens on this subject: retried (a stream may be coming back), then raised
        with pytest.raises(nats.errors.Error):
            await bus.publish_many([(facts[0], "rd.enriched", None)])
    finally:
        await nc.close()
        await runtime.stop()
