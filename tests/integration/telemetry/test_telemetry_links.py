"""The fact -> trace index behind a report's span links: bounded in memory and in links."""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from shared import telemetry


def context_of(n: int):
    ctx = SpanContext(trace_id=n, span_id=n, is_remote=True, trace_flags=TraceFlags(1))
    return trace.set_span_in_context(NonRecordingSpan(ctx))


def test_index_forgets_the_oldest_beyond_its_capacity():
    index = telemetry.TraceIndex(capacity=3)
    for n in range(1, 6):
        index.remember(f"fact-{n}", trace.get_current_span(context_of(n)).get_span_context())
    assert len(index) == 3
    assert index.get("fact-1") is None and index.get("fact-2") is None
    assert index.get("fact-5").trace_id == 5
    index.remember("invalid", trace.INVALID_SPAN_CONTEXT)
    assert index.get("invalid") is None


def test_links_follow_consumed_contexts_and_are_bounded(finished_spans):
    consumed = {f"enriched-{n}": context_of(n) for n in range(1, 51)}
    with telemetry.consuming(consumed):
        telemetry.remember_traces((f"fact-{n}", f"enriched-{n}") for n in range(1, 51))
        # an event that did not arrive through a consumer has nothing to remember
        telemetry.remember_traces([("fact-unknown", "enriched-unknown")])
    with trace.get_tracer("test").start_as_current_span("summarize") as span:
        linked = telemetry.link_traces(span, [f"fact-{n}" for n in range(1, 51)] + ["fact-unknown"])
    assert linked == telemetry.MAX_LINKS
    (done,) = [s for s in finished_spans.get_finished_spans() if s.name == "summarize"]
    assert [link.context.trace_id for link in done.links] == list(range(1, telemetry.MAX_LINKS + 1))
    assert done.attributes["repodigest.linked_facts"] == telemetry.MAX_LINKS
    assert {link.attributes["repodigest.fact_id"] for link in done.links} == {
        f"fact-{n}" for n in range(1, telemetry.MAX_LINKS + 1)
    }
