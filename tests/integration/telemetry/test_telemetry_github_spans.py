"""GitHub requests as CLIENT spans carrying the rate-limit headers, and the remaining budget as a
metric, against the GitHub emulator (GitHub's headers and 304 semantics, a real HTTP server)."""

from __future__ import annotations

import asyncio
from datetime import UTC

import pytest
from opentelemetry import trace
from opentelemetry.trace import SpanKind
from prometheus_client.parser import text_string_to_metric_families

from services.ingest.adapters.github import PyGithubSource
from shared.telemetry import prometheus_text, setup_telemetry
from tests.github_emulator import GithubEmulator

pytestmark = pytest.mark.timeout(60)


def gauge(name: str, **labels: str) -> float | None:
    body, _ = prometheus_text()
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            if s.name == name and set(labels.items()) <= set(s.labels.items()):
                return s.value
    return None


async def test_github_requests_are_client_spans_with_rate_limits(finished_spans):
    setup_telemetry("repodigest-test")
    with GithubEmulator() as gh:
        gh.add("/repos/acme/widgets", {"full_name": "acme/widgets", "id": 1})
        source = PyGithubSource(gh.token, gh.base_url)
        with trace.get_tracer("test").start_as_current_span("poll acme/widgets") as poll:
            first = await asyncio.to_thread(source.get, "/repos/acme/widgets")
            after_first = source.budget.remaining
            again = await asyncio.to_thread(
                source.get, "/repos/acme/widgets", None, first.validators
            )
        source.close()

    assert first.status == 200 and again.not_modified
    spans = [s for s in finished_spans.get_finished_spans() if s.name == "GitHub GET"]
    assert len(spans) == 2
    for s in spans:
        assert s.kind is SpanKind.CLIENT
        assert s.parent is not None and s.parent.span_id == poll.get_span_context().span_id
        assert s.attributes["url.full"].endswith("/repos/acme/widgets")
        assert s.attributes["github.ratelimit.limit"] == 5000
    assert [s.attributes["http.response.status_code"] for s in spans] == [200, 304]
    assert spans[0].attributes["github.ratelimit.remaining"] == after_first < 5000
    # a 304 costs nothing: the budget the second answer reports is the one after the first
    assert spans[1].attributes["github.ratelimit.remaining"] == after_first
    assert gauge("repodigest_github_ratelimit_remaining", resource="core") == after_first


async def test_a_sync_is_a_span_and_each_fact_its_own_linked_trace(nats_server, finished_spans):
    from datetime import datetime

    import shared.events as ev
    from services.ingest.adapters.kv import KvIngestState
    from services.ingest.sync import publish_facts, sync_repository
    from shared.config import CommonSettings
    from shared.service import Runtime

    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "ingest-test")
    await runtime.start()
    try:
        bus = runtime.bus("ingest")
        state = await KvIngestState.open(bus.js)
        with GithubEmulator() as gh:
            for name in ("pulls", "issues", "issues/comments", "pulls/comments"):
                gh.add(f"/repos/acme/quiet/{name}", [])
            source = PyGithubSource(gh.token, gh.base_url)
            result = await sync_repository(
                bus, state, source, "acme/quiet", now=datetime(2026, 6, 9, tzinfo=UTC)
            )
            source.close()

        at = datetime(2026, 6, 8, 12, tzinfo=UTC)
        facts = [
            ev.FactData(
                repo="acme/widgets",
                kind="pull_request",
                action="merged",
                item=ev.ItemSnapshot(
                    repo="acme/widgets",
                    number=n,
                    kind="pull_request",
                    title=f"change {n}",
                    author=ev.Actor(login="dev"),
                    state="closed",
                    created_at=at,
                    closed_at=at,
                    merged_at=at,
                ),
            )
            for n in (1, 2)
        ]
        with trace.get_tracer("test").start_as_current_span("webhook delivery") as delivery:
            await publish_facts(bus, facts)
    finally:
        await runtime.stop()

    spans = finished_spans.get_finished_spans()
    (sync,) = [s for s in spans if s.name == "GitHub sync"]
    assert sync.attributes["repodigest.repo"] == "acme/quiet"
    gets = [
        s
        for s in spans
        if s.name == "GitHub GET" and s.parent and s.parent.span_id == sync.context.span_id
    ]
    assert len(gets) == result.requests == sync.attributes["github.requests"] >= 4

    roots = [s for s in spans if s.name == "GitHub fact pull_request.merged"]
    assert len(roots) == 2 and all(s.parent is None for s in roots)
    assert len({s.context.trace_id for s in roots}) == 2
    for root in roots:
        assert [link.context.span_id for link in root.links] == [
            delivery.get_span_context().span_id
        ]
        published = [
            s
            for s in spans
            if s.context.trace_id == root.context.trace_id
            and s.name.startswith("rd.github.pull_request.merged.")
        ]
        assert published, "the publish to RD_GITHUB continues the fact's trace"


async def test_graphql_queries_are_client_spans_too(finished_spans):
    from opentelemetry.trace import StatusCode

    from services.ingest.adapters.github import GithubError

    with GithubEmulator() as gh:
        source = PyGithubSource(gh.token, gh.base_url)
        # the emulator answers only the backfill query: a refused query is an error span
        with pytest.raises(GithubError):
            await asyncio.to_thread(source.graphql, "query { viewer { login } }", {})
        source.close()
    (span,) = [s for s in finished_spans.get_finished_spans() if s.name == "GitHub GraphQL"]
    assert span.kind is SpanKind.CLIENT and span.attributes["url.full"].endswith("/graphql")
    assert span.attributes["http.response.status_code"] == 200
    assert (
        span.attributes["github.ratelimit.remaining"] <= span.attributes["github.ratelimit.limit"]
    )
    assert span.status.status_code is StatusCode.ERROR
