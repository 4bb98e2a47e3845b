"""The GraphQL backfill of a repository's pull requests (`adapters.github_graphql` reads the
pages), then the REST sync of everything else.

Each pull request goes through the same mapping, transitions and publishing step as a poll
(`publish.publish_item`): the same facts with the same ids, and item states in the same KV
bucket. A REST sync that follows (`graphql_then_rest`) finds those pull requests unchanged and
fetches nothing more for them; it adds the issues, the comments the GraphQL pages did not hold
(diff comments, comments past the first fifty), the cursors and the watermark. The GraphQL path
itself never publishes a watermark: it has not seen the issues.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from services.ingest.adapters.github import GithubError, PyGithubSource
from services.ingest.adapters.github_graphql import read_pulls_page, rest_files
from services.ingest.adapters.kv import KvIngestState
from services.ingest.domain.graphql import PAGE_SIZE, PullNode
from services.ingest.domain.mapping import comment_info, parse_time, review_info, snapshot_from_pull
from shared.events import utc

from .publish import publish_item
from .rest import SyncResult, sync_repository

if TYPE_CHECKING:
    from shared.messaging import Bus

log = logging.getLogger("repodigest.ingest.github.graphql")


@dataclass
class GraphqlBackfillResult:
    repo: str
    pulls: int = 0  # pull requests read
    items_changed: int = 0  # of which new or changed since the stored state
    facts_published: int = 0
    duplicates: int = 0
    requests: int = 0  # GraphQL requests (pages)
    points: int = 0  # GraphQL rate-limit points, as GitHub reported each query's cost
    rest_requests: int = 0  # file listings of pull requests with more than 100 files
    rate_remaining: int | None = None
    facts: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.repo}: {self.pulls} pull requests in {self.requests} GraphQL requests "
            f"({self.points} points, {self.rate_remaining if self.rate_remaining is not None else '?'}"
            f" left); {self.facts_published} facts from {self.items_changed} changed items"
        )


async def graphql_backfill(
    bus: Bus,
    state: KvIngestState,
    source: PyGithubSource,
    repo: str,
    *,
    since: datetime | None = None,
    page_size: int = PAGE_SIZE,
    limit: int | None = None,
    files_first: int = 100,
    on_item: Callable[[int], None] | None = None,
) -> GraphqlBackfillResult:
    """Publish the facts of `repo`'s pull requests updated since `since` (None: all of them, or
    the first `limit`), newest-updated pages first, oldest first within a page. Pull requests
    with more files than a page holds (`files_first`, GraphQL's maximum is 100) get the rest
    through REST, so both paths store the same file list.

    Item states are stored after their facts were published; pull requests whose stored state is
    as new as the page's are skipped. No watermark (see the module docstring). Raises
    `GithubError` subclasses with messages a person can act on.
    """
    result = GraphqlBackfillResult(repo=repo)
    floor = utc(since) if since is not None else None
    after: str | None = None
    while True:
        page, nodes = await asyncio.to_thread(
            read_pulls_page,
            source,
            repo,
            first=page_size,
            after=after,
            files=min(files_first, source.files_cap),
        )
        result.requests += 1
        result.points += page.cost or 0
        result.rate_remaining = (
            page.remaining if page.remaining is not None else result.rate_remaining
        )
        stop = False
        batch: list[tuple[PullNode, datetime | None]] = []
        for node in nodes:
            updated = parse_time(node.pull.get("updated_at"))
            if floor is not None and updated is not None and utc(updated) < floor:
                stop = True
                break
            if limit is not None and result.pulls + len(batch) >= limit:
                stop = True
                break
            batch.append((node, updated))
        result.pulls += len(batch)
        for node, updated in reversed(batch):
            number = int(node.pull["number"])
            prev = await state.get_item(repo, number)
            if prev is not None and prev.unchanged(updated):
                continue
            files, truncated = node.files, node.files_truncated
            if truncated and len(files) < source.files_cap:
                # GraphQL gives at most 100 files a connection: the rest through REST, capped
                # like the poll, so both paths store the same file list
                files, pages = await asyncio.to_thread(rest_files, source, repo, number)
                truncated = False  # as the poll: the mapping caps and flags what it leaves out
                result.rest_requests += pages
            reviews = [r for r in (review_info(x) for x in node.reviews) if r is not None]
            comments = [comment_info(c) for c in node.comments]
            item = snapshot_from_pull(
                repo, node.pull, files=files, files_truncated=truncated, reviews=len(reviews)
            )
            await publish_item(
                bus, state, result, repo, number, prev, item, comments=comments, reviews=reviews
            )
            if on_item is not None:
                on_item(number)
        if stop or not page.has_next or not page.end_cursor:
            break
        after = page.end_cursor
    log.info(
        "GraphQL backfill %s",
        result.summary(),
        extra={
            "repo": repo,
            "facts": result.facts_published,
            "requests": result.requests,
            "points": result.points,
        },
    )
    return result


@dataclass
class BackfillResult:
    """A GraphQL backfill of the pull requests followed by the REST sync of everything else."""

    graphql: GraphqlBackfillResult
    rest: SyncResult

    @property
    def facts_published(self) -> int:
        return self.graphql.facts_published + self.rest.facts_published

    @property
    def duplicates(self) -> int:
        return self.graphql.duplicates + self.rest.duplicates

    @property
    def facts(self) -> list[str]:
        return self.graphql.facts + self.rest.facts

    @property
    def watermark(self) -> datetime | None:
        return self.rest.watermark

    def summary(self) -> str:
        return f"{self.graphql.summary()}; then REST {self.rest.summary()}"


async def graphql_then_rest(
    bus: Bus,
    state: KvIngestState,
    source: PyGithubSource,
    repo: str,
    *,
    now: datetime,
    since: datetime | None = None,
    page_size: int = PAGE_SIZE,
    on_item: Callable[[int], None] | None = None,
) -> BackfillResult:
    """The `github-graphql` source: pull requests through GraphQL, then one REST sync (issues,
    comment listings, cursors, validators) that publishes the watermark at `now`."""
    first = await graphql_backfill(
        bus, state, source, repo, since=since, page_size=page_size, on_item=on_item
    )
    rest = await sync_repository(bus, state, source, repo, now=now, since=since, on_item=on_item)
    return BackfillResult(first, rest)


async def backfill_once(
    bus: Bus,
    repo: str,
    *,
    token: str | None,
    api_url: str = "https://api.github.com",
    since: datetime | None = None,
    now: datetime | None = None,
    page_size: int = PAGE_SIZE,
    on_item: Callable[[int], None] | None = None,
    workers: int = 4,
) -> BackfillResult:
    """`graphql_then_rest` for a one-shot run: state in the bus's KV bucket, its own source."""
    if not token:
        raise GithubError(
            "the GitHub GraphQL API needs a token: set GITHUB_TOKEN (or "
            "REPODIGEST_GITHUB_TOKEN), or use --source github (REST) instead"
        )
    state = await KvIngestState.open(bus.js)
    source = PyGithubSource(token, api_url, seconds_between_requests=None, workers=workers)
    try:
        return await graphql_then_rest(
            bus,
            state,
            source,
            repo,
            now=now or datetime.now(UTC),
            since=since,
            page_size=page_size,
            on_item=on_item,
        )
    finally:
        await asyncio.to_thread(source.close)
