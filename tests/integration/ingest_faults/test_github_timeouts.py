"""Timeouts: the emulator holds answers longer than the client's timeout; the source retries with
backoff and succeeds, or gives up after its attempts with an actionable error (never a tight loop)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.adapters.github import GithubUnavailable
from services.ingest.sync import graphql_backfill, sync_repository
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator
from tests.integration.ingest_github.test_github_sync import (
    FILES,
    REPO,
    Harness,
    expected_first_sync,
    source_for,
)

pytestmark = pytest.mark.shared_data

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def emulator():
    with GithubEmulator([require_shared_data("github-rest-replay", f) for f in FILES]) as gh:
        gh.add(f"/repos/{REPO}/pulls/comments", gh.body(f"/repos/{REPO}/pulls/31/comments"))
        yield gh


async def test_timeouts_are_retried_with_backoff_and_the_sync_succeeds(nats_server, emulator):
    emulator.hold(5, times=2, path_contains=f"/repos/{REPO}/pulls/31/files")
    slept: list[float] = []
    source = source_for(emulator, timeout=1, sleep=slept.append, backoff_base=0.5, backoff_max=4)
    async with Harness(nats_server.url) as h:
        result = await sync_repository(h.bus, h.state, source, REPO, now=NOW)
    assert result.facts_published == sum(expected_first_sync().values())
    attempts = [s for s in emulator.seen if s.path.endswith("/pulls/31/files")]
    assert [s.status for s in attempts] == [0, 0, 200]  # two held past the timeout, then served
    assert source.budget.retries == 2 and len(slept) == 2 and all(w > 0 for w in slept)
    assert all("Timeout" in reason for reason, _ in source.budget.waits)


async def test_a_github_that_always_times_out_is_given_up_after_the_attempts(nats_server, emulator):
    emulator.hold(5, times=100, path_contains="/graphql")
    slept: list[float] = []
    source = source_for(emulator, timeout=1, max_attempts=3, sleep=slept.append)
    async with Harness(nats_server.url) as h:
        with pytest.raises(GithubUnavailable, match="kept failing.*ReadTimeout.*try again later"):
            await graphql_backfill(h.bus, h.state, source, REPO)
    assert emulator.count("/graphql") == 3  # exactly max_attempts, no tight loop
    assert len(slept) == 2
