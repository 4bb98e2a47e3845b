"""The GraphQL backfill path against the GitHub emulator (GraphQL answers synthesized from the
recorded REST objects) into real nats-servers: the same facts and ids as the REST path, far fewer
requests, points counted, and the REST sync that follows fetches nothing more for those PRs."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime

import pytest

from services.ingest.adapters.github import GithubAuthError, GithubNotFound
from services.ingest.handlers import ingest_source
from services.ingest.sync import graphql_backfill, graphql_then_rest, sync_repository
from shared.events import SyncWatermark
from shared.natsserver import EmbeddedNats
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator
from tests.integration.ingest_github.test_github_sync import FILES, REPO, Harness, source_for

pytestmark = pytest.mark.shared_data

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def emulator():
    files = [
        require_shared_data("github-rest-replay", f)
        for f in FILES + ["PullRequestReview.testAttributes.txt"]
    ]
    with GithubEmulator(files) as gh:
        gh.add(f"/repos/{REPO}/pulls/comments", gh.body(f"/repos/{REPO}/pulls/31/comments"))
        # recorded reviews (of another PR) served as PR 31's: review facts on both paths
        gh.add(f"/repos/{REPO}/pulls/31/reviews", gh.body(f"/repos/{REPO}/pulls/538/reviews"))
        yield gh


def facts_of(events) -> list:
    return [e for e in events if not isinstance(e, SyncWatermark)]


async def test_graphql_backfill_publishes_the_rest_paths_pull_request_facts_with_equal_ids(
    nats_server, emulator, tmp_path
):
    # the REST path on one broker ...
    async with Harness(nats_server.url) as h:
        await sync_repository(h.bus, h.state, source_for(emulator), REPO, now=NOW)
        rest = facts_of(await h.published())
    rest_pull_facts = {
        e.id: e
        for e in rest
        if e.data.item.kind == "pull_request"
        and not (e.data.kind == "comment" and e.data.comment.on_review)
    }
    assert any(e.data.kind == "review" for e in rest_pull_facts.values())

    # ... and GraphQL on another, with fresh state
    other = EmbeddedNats(store_dir=tmp_path / "nats-graphql")
    await other.start()
    try:
        source = source_for(emulator)
        posts = emulator.count("/graphql")
        async with Harness(other.url) as h:
            result = await graphql_backfill(h.bus, h.state, source, REPO, page_size=2)
            published = facts_of(await h.published())
            assert not any(isinstance(e, SyncWatermark) for e in await h.published()), (
                "the GraphQL pass has not seen the issues: no watermark"
            )
    finally:
        await other.stop()

    assert {e.id for e in published} == set(rest_pull_facts)
    assert result.facts == [e.id for e in published]
    pulls = {e.data.item.number for e in published}
    assert result.requests == emulator.count("/graphql") - posts == -(-len(pulls) // 2)
    assert result.points == emulator.graphql_points >= result.requests
    # the snapshots agree with REST's where both say something
    for e in published:
        r = rest_pull_facts[e.id].data.item
        g = e.data.item
        assert (
            g.number,
            g.title,
            g.state,
            g.merged_at,
            g.merged_by,
            g.labels,
            g.base_branch,
            g.head_branch,
            g.author.login,
            g.files,
        ) == (
            r.number,
            r.title,
            r.state,
            r.merged_at,
            r.merged_by,
            r.labels,
            r.base_branch,
            r.head_branch,
            r.author.login,
            r.files,
        )
        assert g.head_branch  # every recorded pull request has a head ref
    merged31 = next(e for e in published if e.data.action == "merged" and e.data.item.number == 31)
    assert len(merged31.data.item.files) == merged31.data.item.changed_files == 45


async def test_github_graphql_source_equals_the_rest_source_and_costs_fewer_requests(
    nats_server, emulator, tmp_path
):
    async with Harness(nats_server.url) as h:
        rest = await sync_repository(h.bus, h.state, source_for(emulator), REPO, now=NOW)
    rest_requests = len(emulator.seen)

    other = EmbeddedNats(store_dir=tmp_path / "nats-graphql")
    await other.start()
    try:
        source = source_for(emulator)
        before = len(emulator.seen)
        async with Harness(other.url) as h:
            both = await graphql_then_rest(h.bus, h.state, source, REPO, now=NOW)
            events = await h.published()
    finally:
        await other.stop()
    assert set(both.facts) == set(rest.facts)
    assert Counter(both.facts) == Counter(rest.facts), "nothing published twice"
    assert [e for e in events if isinstance(e, SyncWatermark)][-1].data.watermark == NOW
    assert both.rest.items_changed < rest.items_changed  # PRs already handled by GraphQL
    spent = emulator.seen[before:]
    pr_gets = [
        s
        for s in spent
        if s.method == "GET" and "/pulls/" in s.path and not s.path.endswith("/pulls/comments")
    ]
    # only PR 31 has diff comments (not in the GraphQL page): REST looks at it again
    assert {s.path.split("/pulls/")[1].split("/")[0] for s in pr_gets} <= {"31"}
    assert len(spent) < rest_requests


async def test_github_graphql_source_through_ingest_source(nats_server, emulator):
    async with Harness(nats_server.url) as h:
        result = await ingest_source(
            h.bus, "github-graphql", REPO, token=emulator.token, github_api_url=emulator.base_url
        )
        assert result.facts_published > 0 and result.watermark_published
        assert emulator.count("/graphql", 200) >= 1


async def test_graphql_errors_are_actionable(nats_server, emulator):
    async with Harness(nats_server.url) as h:
        with pytest.raises(GithubNotFound, match="nobody/nothing not found or the token cannot"):
            await graphql_backfill(h.bus, h.state, source_for(emulator), "nobody/nothing")
        with pytest.raises(GithubAuthError, match="REPODIGEST_GITHUB_TOKEN"):
            await graphql_backfill(h.bus, h.state, source_for(emulator, token="wrong"), REPO)


async def test_graphql_retries_a_502_and_a_secondary_limit(nats_server, emulator):
    emulator.fail(502, times=1, path_contains="/graphql")
    emulator.fail(403, times=1, path_contains="/graphql", retry_after=0)
    source = source_for(emulator)
    async with Harness(nats_server.url) as h:
        result = await graphql_backfill(h.bus, h.state, source, REPO)
    assert result.facts_published > 0
    assert source.budget.retries == 2
    assert emulator.count("/graphql", 502) == emulator.count("/graphql", 403) == 1


async def test_since_stops_at_older_pull_requests(nats_server, emulator):
    since = datetime(2012, 5, 28, tzinfo=UTC)  # PR 32 was last updated before it
    async with Harness(nats_server.url) as h:
        result = await graphql_backfill(
            h.bus, h.state, source_for(emulator), REPO, since=since, page_size=1
        )
        events = facts_of(await h.published())
    assert events and all(e.data.item.updated_at >= since for e in events)
    everything = emulator._pull_numbers(REPO)
    assert 0 < result.pulls < len(everything)
    assert 32 not in {e.data.item.number for e in events}
    assert result.requests == result.pulls + 1  # the page holding PR 32 ended the backfill


async def test_pull_requests_with_more_files_than_a_page_get_the_rest_through_rest(
    nats_server, emulator
):
    async with Harness(nats_server.url) as h:
        result = await graphql_backfill(h.bus, h.state, source_for(emulator), REPO, files_first=20)
        merged = [
            e
            for e in facts_of(await h.published())
            if e.data.action == "merged" and e.data.item.number == 31
        ]
    files = emulator.body(f"/repos/{REPO}/pulls/31/files")
    assert [f.path for f in merged[0].data.item.files] == [f["filename"] for f in files]
    assert not merged[0].data.item.files_truncated
    assert result.rest_requests == emulator.count(f"/repos/{REPO}/pulls/31/files", 200) == 1


async def test_poller_first_sync_through_graphql_then_rest_only(nats_server, emulator, tmp_path):
    from services.ingest.sync import GithubPoller

    async def poll_twice(url: str, graphql: bool) -> tuple[list, int]:
        async with Harness(url) as h:
            poller = GithubPoller(
                h.bus,
                h.state,
                source_for(emulator),
                [REPO],
                interval=3600,
                backfill=None,
                graphql_backfill=graphql,
                clock=lambda: NOW,
            )
            before = emulator.count("/graphql")
            first = await poller.poll_once()
            posts = emulator.count("/graphql") - before
            await poller.poll_once()
            assert emulator.count("/graphql") - before == posts, "GraphQL only for the first sync"
            assert first[REPO].watermark == NOW
            return facts_of(await h.published()), posts

    rest, rest_posts = await poll_twice(nats_server.url, graphql=False)
    other = EmbeddedNats(store_dir=tmp_path / "nats-graphql")
    await other.start()
    try:
        both, graphql_posts = await poll_twice(other.url, graphql=True)
    finally:
        await other.stop()
    assert rest_posts == 0 and graphql_posts > 0
    assert sorted(e.id for e in both) == sorted(e.id for e in rest)  # same facts, each once


async def test_graphql_and_rest_budgets_are_separate(nats_server, emulator):
    waits: list[float] = []

    def reset_while_waiting(seconds: float) -> None:  # the injected clock: no time passes
        waits.append(seconds)
        emulator.graphql_remaining = emulator.graphql_limit

    emulator.remaining = 3  # the REST budget is nearly spent: GraphQL does not care
    source = source_for(emulator, reserve=5, sleep=reset_while_waiting, max_reset_wait=7200)
    async with Harness(nats_server.url) as h:
        await asyncio.to_thread(source.get, f"/repos/{REPO}/issues")
        assert source.budget.remaining == 2
        await graphql_backfill(h.bus, h.state, source, REPO, page_size=1)
        assert waits == [] and source.graphql_budget.remaining > 5
        emulator.graphql_remaining = 6  # nearly spent after the next page
        await graphql_backfill(h.bus, h.state, source, REPO, page_size=1)
    assert len(waits) == 1 and waits[0] > 3000  # until the reset, an hour ahead
    assert source.graphql_budget.waits[0][0] == "primary rate limit"
    assert source.budget.waits == []
