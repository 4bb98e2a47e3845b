"""GitHub requests as CLIENT spans carrying the rate-limit headers, and the remaining budget as a
metric, against the GitHub emulator (GitHub's headers and 304 semantics, a real HTTP server)."""

from __future__ import annotations

import asyncio

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
            again = await asyncio.to_thread(source.get, "/repos/acme/widgets", None,
                                            first.validators)
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
