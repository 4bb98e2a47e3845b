"""The poller: each repository synced in turn every `interval` seconds (`rest.sync_repository`;
a first sync through the GraphQL backfill where enabled)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from services.ingest.adapters.github import GithubError, PyGithubSource
from services.ingest.adapters.kv import KvIngestState

from .graphql import graphql_backfill
from .rest import SyncResult, sync_repository

if TYPE_CHECKING:
    from shared.messaging import Bus

log = logging.getLogger("repodigest.ingest.github")


class GithubPoller:
    """Polls each repository every `interval` seconds until stopped (one task, repositories in
    turn: ingest owns a repository in one replica at a time)."""

    def __init__(
        self,
        bus: Bus,
        state: KvIngestState,
        source: PyGithubSource,
        repos: Sequence[str],
        *,
        interval: float,
        since: datetime | None = None,
        backfill: timedelta | None = timedelta(days=14),
        graphql_backfill: bool = False,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.bus, self.state, self.source = bus, state, source
        # the first sync of a repository reads its pull requests through GraphQL (50 with their
        # files per request instead of 3 REST requests each); needs a token
        self.graphql_backfill = graphql_backfill and source.has_token
        self.repos = list(repos)
        self.interval = interval
        self.since = since
        self.backfill = backfill
        self.clock = clock
        self.results: dict[str, SyncResult] = {}
        self.errors: dict[str, str] = {}  # repo -> why its last poll failed
        self.failures: dict[str, GithubError] = {}
        self.polled = asyncio.Event()  # set after each full round (tests wait on it)
        self._task: asyncio.Task | None = None
        self._stop = asyncio.Event()

    async def poll_once(self) -> dict[str, SyncResult]:
        for repo in self.repos:
            now = self.clock()
            since = self.since or (now - self.backfill if self.backfill else None)
            try:
                if self.graphql_backfill and await self.state.get_cursor(repo, "pulls") is None:
                    await graphql_backfill(self.bus, self.state, self.source, repo, since=since)
                self.results[repo] = await sync_repository(
                    self.bus, self.state, self.source, repo, now=now, since=since
                )
                self.errors.pop(repo, None)
                self.failures.pop(repo, None)
            except GithubError as exc:
                self.errors[repo] = str(exc)
                self.failures[repo] = exc
                level = logging.WARNING if exc.transient else logging.ERROR
                log.log(level, "polling %s failed: %s", repo, exc, extra={"repo": repo})
        self.polled.set()
        return dict(self.results)

    def problems(self) -> list[str]:
        """What keeps repositories from being polled and needs a person (a rejected token, a
        repository not found, a permission): the service's readiness reports them. Transient
        failures (GitHub unavailable, a rate limit) are retried by the next round and not listed."""
        return [
            f"polling {repo}: {self.errors[repo]}"
            for repo, exc in self.failures.items()
            if not exc.transient
        ]

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                await self.poll_once()
            except Exception:
                log.exception("poll round failed; retrying in %.0fs", self.interval)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.interval)

    async def start(self) -> None:
        self._stop.clear()
        self._task = asyncio.create_task(self._run(), name="github-poller")

    async def stop(self) -> None:
        self._stop.set()
        self.source._closed.set()  # ends a backoff or rate-limit wait in the worker thread
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        await asyncio.to_thread(self.source.close)
