"""PyGithub polling against the GitHub emulator (real recorded responses) into a real nats-server:
facts, ETag 304s at zero quota, incremental changes, retries, rate limits, actionable errors."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from services.ingest.adapters.github import (
    GithubAuthError,
    GithubNotFound,
    GithubUnavailable,
    PyGithubSource,
    RateLimitExhausted,
)
from services.ingest.adapters.kv import KvIngestState
from services.ingest.sync import GithubPoller, sync_repository
from shared.config import CommonSettings
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark
from shared.messaging import STREAM_GITHUB
from shared.service import Runtime
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator, read_replay

pytestmark = pytest.mark.shared_data

REPO = "PyGithub/PyGithub"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
FILES = [
    "Repository.testGetIssues.txt",
    "Repository.testGetPullsWithArguments.txt",
    "PullRequest.setUp.txt",
    "PullRequest.testGetFiles.txt",
    "PullRequest.testGetReviewComments.txt",
]


def replay(name: str):
    return read_replay(require_shared_data("github-rest-replay", name))


def recorded_body(name: str, path: str):
    return next(e.body for e in replay(name) if e.path == path)


def expected_first_sync() -> Counter:
    """What a first sync must publish, derived from the recorded JSON (not from the emulator)."""
    expected: Counter = Counter()
    for issue in recorded_body("Repository.testGetIssues.txt", f"/repos/{REPO}/issues"):
        expected["issue.opened"] += 1
        if issue.get("closed_at"):
            expected["issue.closed"] += 1
    for pr in recorded_body("Repository.testGetPullsWithArguments.txt", f"/repos/{REPO}/pulls"):
        expected["pull_request.opened"] += 1
        if pr.get("merged_at"):
            expected["pull_request.merged"] += 1
        elif pr.get("closed_at"):
            expected["pull_request.closed"] += 1
    # served as the repository's review-comment listing (see the fixture)
    expected["comment.created"] += len(
        recorded_body("PullRequest.testGetReviewComments.txt", f"/repos/{REPO}/pulls/31/comments")
    )
    return expected


@pytest.fixture
def emulator():
    files = [require_shared_data("github-rest-replay", f) for f in FILES]
    with GithubEmulator(files) as gh:
        # the review comments recorded for PR 31 are what /pulls/comments lists for the repository
        gh.add(f"/repos/{REPO}/pulls/comments", gh.body(f"/repos/{REPO}/pulls/31/comments"))
        yield gh


class Harness:
    def __init__(self, url: str) -> None:
        self.runtime = Runtime(CommonSettings(nats_url=url), "test-ingest-github")
        self.bus = self.runtime.bus("ingest")

    @property
    def js(self):
        return self.runtime.js

    async def __aenter__(self) -> Harness:
        await self.runtime.start()
        self.state = await KvIngestState.open(self.js)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.runtime.stop()

    async def published(self) -> list:
        info = await self.js.stream_info(STREAM_GITHUB)
        out = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            msg = await self.js.get_msg(STREAM_GITHUB, seq)
            out.append(GITHUB_EVENT_ADAPTER.validate_json(msg.data))
        return out


def source_for(gh: GithubEmulator, **kw) -> PyGithubSource:
    kw.setdefault("seconds_between_requests", None)
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("backoff_max", 0.05)
    kw.setdefault("secondary_min_wait", 0.02)
    return PyGithubSource(kw.pop("token", gh.token), gh.base_url, **kw)


def kinds(events) -> Counter:
    return Counter(
        f"{e.data.kind}.{e.data.action}" for e in events if not isinstance(e, SyncWatermark)
    )


async def test_first_sync_publishes_history_then_unchanged_costs_nothing(nats_server, emulator):
    source = source_for(emulator, per_page=5)  # 16 issues: four pages
    async with Harness(nats_server.url) as h:
        first = await sync_repository(h.bus, h.state, source, REPO, now=NOW)
        events = await h.published()
        assert kinds(events) == expected_first_sync()
        assert first.facts_published == sum(expected_first_sync().values())
        assert emulator.count(f"/repos/{REPO}/issues", 200) >= 4  # it paginated
        merged = [
            e
            for e in events
            if not isinstance(e, SyncWatermark)
            and e.data.action == "merged"
            and e.data.item.number == 31
        ]
        assert merged and merged[0].data.item.changed_files == len(merged[0].data.item.files) == 45
        assert merged[0].time == datetime(2012, 5, 27, 10, 29, 7, tzinfo=UTC)
        marks = [e for e in events if isinstance(e, SyncWatermark)]
        assert [m.data.watermark for m in marks] == [NOW] and events[-1] == marks[0]
        # fetched concurrently, published in the listings' order (oldest update first)
        updated = {
            o["number"]: o["updated_at"]
            for o in (
                recorded_body("Repository.testGetIssues.txt", f"/repos/{REPO}/issues")
                + recorded_body("Repository.testGetPullsWithArguments.txt", f"/repos/{REPO}/pulls")
            )
        }
        opened = [
            e.data.item.number
            for e in events
            if not isinstance(e, SyncWatermark) and e.data.action == "opened"
        ]
        assert opened == sorted(updated, key=lambda n: (updated[n], n))

        spent = emulator.quota_used
        second = await sync_repository(h.bus, h.state, source, REPO, now=NOW + timedelta(minutes=5))
        assert emulator.quota_used == spent, "an unchanged repository must cost no quota"
        assert second.facts_published == 0 and second.listings_unchanged == 4
        assert second.requests == second.not_modified == 4
        assert source.budget.remaining == emulator.remaining


async def test_a_change_is_picked_up_incrementally(nats_server, emulator):
    source = source_for(emulator)
    async with Harness(nats_server.url) as h:
        await sync_repository(h.bus, h.state, source, REPO, now=NOW)
        before = len(await h.published())

        def close_issue_30(issues: list) -> None:
            issue = next(i for i in issues if i["number"] == 30)
            issue.update(
                state="closed", closed_at="2012-05-28T08:00:00Z", updated_at="2012-05-28T08:00:00Z"
            )
            issue["labels"].append({"name": "Bug", "url": "x", "color": "ff0000"})

        emulator.mutate(f"/repos/{REPO}/issues", close_issue_30)
        spent = emulator.quota_used
        result = await sync_repository(h.bus, h.state, source, REPO, now=NOW + timedelta(hours=1))
        new = (await h.published())[before:]
        assert kinds(new) == Counter({"issue.closed": 1, "issue.labeled": 1})
        closed = next(
            e for e in new if not isinstance(e, SyncWatermark) and e.data.action == "closed"
        )
        assert closed.time == datetime(2012, 5, 28, 8, tzinfo=UTC)
        assert result.items_changed == 1
        assert emulator.quota_used - spent == 1  # the issue listing; the others answered 304


async def test_restart_resumes_from_kv_state(nats_server, emulator):
    async with Harness(nats_server.url) as h:
        await sync_repository(h.bus, h.state, source_for(emulator), REPO, now=NOW)
    spent = emulator.quota_used
    async with Harness(nats_server.url) as h:  # a new process: state only in the KV bucket
        again = await sync_repository(
            h.bus, h.state, source_for(emulator), REPO, now=NOW + timedelta(minutes=1)
        )
    assert again.facts_published == 0 and emulator.quota_used == spent


async def test_first_sync_since_limits_the_backfill(nats_server, emulator):
    since = datetime(2012, 5, 1, tzinfo=UTC)
    issues = recorded_body("Repository.testGetIssues.txt", f"/repos/{REPO}/issues")
    pulls = recorded_body("Repository.testGetPullsWithArguments.txt", f"/repos/{REPO}/pulls")
    recent = sum(1 for i in issues + pulls if i["updated_at"] >= "2012-05-01T00:00:00Z")
    async with Harness(nats_server.url) as h:
        result = await sync_repository(
            h.bus, h.state, source_for(emulator), REPO, now=NOW, since=since
        )
        opened = [
            e
            for e in await h.published()
            if not isinstance(e, SyncWatermark) and e.data.action == "opened"
        ]
    assert result.items_changed == recent == len(opened)
    assert 0 < recent < len(issues) + len(pulls)


@pytest.mark.parametrize("status,retry_after", [(502, None), (403, 1), (429, None)])
async def test_transient_failures_are_retried(nats_server, emulator, status, retry_after):
    emulator.fail(status, times=2, path_contains="/pulls", retry_after=retry_after)
    source = source_for(emulator)
    async with Harness(nats_server.url) as h:
        result = await sync_repository(h.bus, h.state, source, REPO, now=NOW)
    assert result.facts_published == sum(expected_first_sync().values())
    assert emulator.count("/pulls", status) == 2
    assert source.budget.retries == 2
    waits = [w for _, w in source.budget.waits]
    if retry_after:
        assert waits == [retry_after, retry_after]  # the server's Retry-After, not our backoff
    elif status == 429:
        assert all(w >= 0.02 for w in waits)  # a secondary limit waits at least the minimum


async def test_github_that_keeps_failing_is_reported_as_unavailable(nats_server, emulator):
    emulator.fail(502, times=100)
    source = source_for(emulator, max_attempts=3)
    async with Harness(nats_server.url) as h:
        with pytest.raises(GithubUnavailable, match="kept failing.*try again later"):
            await sync_repository(h.bus, h.state, source, REPO, now=NOW)
        assert await h.state.get_cursor(REPO, "pulls") is None  # nothing advanced


async def test_bad_token_and_unknown_repository_give_actionable_errors(nats_server, emulator):
    async with Harness(nats_server.url) as h:
        with pytest.raises(
            GithubAuthError, match="GITHUB_TOKEN was rejected.*REPODIGEST_GITHUB_TOKEN"
        ):
            await sync_repository(
                h.bus, h.state, source_for(emulator, token="wrong"), REPO, now=NOW
            )
        with pytest.raises(
            GithubNotFound, match="repository nobody/nothing not found or the token cannot see it"
        ):
            await sync_repository(h.bus, h.state, source_for(emulator), "nobody/nothing", now=NOW)


async def test_nearly_spent_budget_waits_for_the_reset(nats_server, emulator):
    waits: list[float] = []

    def reset_while_waiting(seconds: float) -> None:  # the source's injected clock: no time passes
        waits.append(seconds)
        emulator.remaining = emulator.limit

    emulator.remaining = 3  # below the reserve after the first answer
    source = source_for(emulator, reserve=5, sleep=reset_while_waiting, max_reset_wait=7200)
    async with Harness(nats_server.url) as h:
        result = await sync_repository(h.bus, h.state, source, REPO, now=NOW)
    assert result.facts_published == sum(expected_first_sync().values())
    assert len(waits) == 1 and waits[0] > 3000  # until X-RateLimit-Reset (an hour ahead)
    assert source.budget.waits[0][0] == "primary rate limit"


async def test_budget_resetting_too_late_stops_the_sync_with_the_reset_time(nats_server, emulator):
    emulator.remaining = 3
    source = source_for(emulator, reserve=5, max_reset_wait=60)
    async with Harness(nats_server.url) as h:
        with pytest.raises(RateLimitExhausted, match="resets at .* UTC") as info:
            await sync_repository(h.bus, h.state, source, REPO, now=NOW)
        assert info.value.reset_at.timestamp() == emulator.reset
        assert await h.state.get_cursor(REPO, "pulls") is None


async def test_unreachable_github(nats_server):
    source = PyGithubSource(
        "t",
        "http://127.0.0.1:9",
        seconds_between_requests=None,
        max_attempts=2,
        backoff_base=0.01,
        backoff_max=0.02,
    )
    async with Harness(nats_server.url) as h:
        with pytest.raises(GithubUnavailable, match="cannot reach http://127.0.0.1:9"):
            await sync_repository(h.bus, h.state, source, REPO, now=NOW)


async def test_poller_polls_until_stopped(nats_server, emulator):
    import asyncio

    async with Harness(nats_server.url) as h:
        poller = GithubPoller(
            h.bus,
            h.state,
            source_for(emulator),
            [REPO, "nobody/nothing"],
            interval=3600,
            backfill=None,
            clock=lambda: NOW,
        )
        await poller.start()
        await asyncio.wait_for(poller.polled.wait(), 30)
        await poller.stop()
        assert poller.results[REPO].facts_published == sum(expected_first_sync().values())
        assert "not found" in poller.errors["nobody/nothing"]


def test_closing_the_source_ends_a_rate_limit_wait():
    import threading

    source = PyGithubSource("t", "http://127.0.0.1:9", seconds_between_requests=None)
    outcome: list[BaseException] = []
    started = threading.Event()

    def wait() -> None:
        started.set()
        try:
            source._wait_unless_closed(3600)  # the wait a rate limit makes by default
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            outcome.append(exc)

    worker = threading.Thread(target=wait)
    worker.start()
    assert started.wait(5)
    source.close()
    worker.join(10)
    assert not worker.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], GithubUnavailable)


async def test_comments_come_from_the_repository_comment_listing(nats_server, emulator):
    """Issue #3372 is absent from the issue listing but its four recorded comments are listed:
    the sync fetches the issue itself, publishes its history and each comment once."""
    emulator.load(
        require_shared_data(
            "github-rest-replay", "PaginatedList.testCustomPerPageReversedIterationSinglePage.txt"
        )
    )
    recorded = emulator.body(f"/repos/{REPO}/issues/3372/comments")
    issue = emulator.body(f"/repos/{REPO}/issues/3372")
    emulator.add(f"/repos/{REPO}/issues/comments", recorded)
    source = source_for(emulator)
    async with Harness(nats_server.url) as h:
        await sync_repository(h.bus, h.state, source, REPO, now=NOW)
        mine = [
            e
            for e in await h.published()
            if not isinstance(e, SyncWatermark) and e.data.item.number == 3372
        ]
        assert sorted(e.data.comment.id for e in mine if e.data.kind == "comment") == sorted(
            c["id"] for c in recorded
        )
        assert [e.data.action for e in mine if e.data.kind == "issue"] == (
            ["opened", "closed"] if issue["closed_at"] else ["opened"]
        )
        assert emulator.count(f"/repos/{REPO}/issues/3372", 200) == 1
        again = await sync_repository(h.bus, h.state, source, REPO, now=NOW + timedelta(hours=1))
        assert again.facts_published == 0 and again.listings_unchanged == 4


async def test_debug_logs_carry_neither_the_token_nor_payloads(nats_server, emulator, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="github.Requester")  # as a DEBUG service would
    async with Harness(nats_server.url) as h:
        await sync_repository(h.bus, h.state, source_for(emulator), REPO, now=NOW)
    body = recorded_body("Repository.testGetIssues.txt", f"/repos/{REPO}/issues")[0]["body"]
    assert "polled PyGithub/PyGithub" in caplog.text  # the summary line is there
    assert emulator.token not in caplog.text
    assert body not in caplog.text


@pytest.mark.parametrize("status", [403, 429])
async def test_spent_primary_budget_waits_for_the_reset_not_a_backoff(
    nats_server, emulator, status
):
    waits: list[float] = []
    emulator.fail(
        status,
        times=1,
        path_contains="/pulls",
        message="API rate limit exceeded",
        headers={"X-RateLimit-Remaining": "0"},
    )
    source = source_for(emulator, sleep=waits.append, max_reset_wait=7200)
    async with Harness(nats_server.url) as h:
        result = await sync_repository(h.bus, h.state, source, REPO, now=NOW)
    assert result.facts_published == sum(expected_first_sync().values())
    real = [w for w in waits if w > 0]
    assert len(real) == 1 and real[0] > 3000  # once, until X-RateLimit-Reset (an hour ahead)
