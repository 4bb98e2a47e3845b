"""The REST sync of a repository: what changed since the cursors, published as facts.

List what changed since the cursor (`adapters.github.PyGithubSource`: conditional requests, rate
limits), fetch details of changed pull requests, derive facts from the last known state
(`domain.transitions`), publish them (`publish.publish_item`), and only then move the cursor.

Listings (pull requests, issues, issue comments, review comments of the whole repository) are
read newest-updated first with a URL that never changes between polls (`sort=updated&
direction=desc`), so page 1 answers 304 until something changes and reading stops at the cursor.
A `since=` parameter would change the URL after every change and cost one full request per poll.
Comments come from the repository-wide listings: one request per hundred new comments instead of
one per commented item.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from services.ingest.adapters.github import GithubError, GithubNotFound, PyGithubSource
from services.ingest.adapters.kv import KvIngestState, Validators
from services.ingest.domain.mapping import (
    comment_info,
    is_pull_request,
    parse_time,
    review_info,
    snapshot_from_issue,
    snapshot_from_pull,
)
from services.ingest.domain.transitions import ItemState
from shared.events import CommentInfo, ItemSnapshot, ReviewInfo, SyncWatermark, WatermarkData, utc
from shared.messaging import Subjects
from shared.telemetry import tracer

from .publish import publish_item

if TYPE_CHECKING:
    from shared.messaging import Bus

log = logging.getLogger("repodigest.ingest.github")

_tracer = tracer("ingest.github")


def _traced_sync(sync):
    """A span per repository sync: the GitHub requests it makes are its children."""

    async def call(bus: Bus, state: Any, source: Any, repo: str, *args: Any, **kwargs: Any):
        with _tracer.start_as_current_span(
            "GitHub sync", attributes={"repodigest.repo": repo}
        ) as span:
            result = await sync(bus, state, source, repo, *args, **kwargs)
            span.set_attributes(
                {
                    "repodigest.facts_published": result.facts_published,
                    "repodigest.items_changed": result.items_changed,
                    "github.requests": result.requests,
                    "github.not_modified": result.not_modified,
                }
            )
            return result

    call.__doc__, call.__name__ = sync.__doc__, sync.__name__
    return call


@dataclass
class SyncResult:
    repo: str
    facts_published: int = 0
    items_changed: int = 0
    listings_unchanged: int = 0
    watermark: datetime | None = None
    requests: int = 0
    not_modified: int = 0
    rate_remaining: int | None = None
    facts: list[str] = field(default_factory=list)  # ids, in publication order
    duplicates: int = 0  # of facts_published, already in the stream (JetStream de-duplicated)

    def summary(self) -> str:
        mark = self.watermark.isoformat() if self.watermark else "none"
        return (
            f"{self.repo}: {self.facts_published} facts from {self.items_changed} changed "
            f"items; {self.requests} requests ({self.not_modified} answered 304, free); "
            f"rate limit left {self.rate_remaining if self.rate_remaining is not None else '?'}"
            f"; watermark {mark}"
        )


# repository-wide listings read newest-updated first; comments come from the repository-wide
# comment listings (one request per 100 new comments instead of one per commented item)
LISTINGS = ("pulls", "issues", "issues/comments", "pulls/comments")
_NUMBER = re.compile(r"/(?:issues|pulls)/(\d+)$")


@dataclass
class _Listing:
    name: str
    url: str
    modified: bool
    validators: Validators
    objects: list[dict]
    floor: datetime | None

    @property
    def newest(self) -> datetime | None:
        times = [utc(t) for t in (parse_time(o.get("updated_at")) for o in self.objects) if t]
        return max(times, default=None)


async def _read_listing(
    state: KvIngestState, source: PyGithubSource, repo: str, name: str, *, since: datetime | None
) -> _Listing:
    """What changed in one listing since its cursor: page 1 conditional, newest first, stopping
    at the first object older than the cursor (or than `since` on a first sync)."""
    path = f"/repos/{repo}/{name}"
    params: dict[str, Any] = {"sort": "updated", "direction": "desc", "per_page": source.per_page}
    if name in ("pulls", "issues"):
        params = {"state": "all", **params}
    url = source.url_for(path, params)
    cursor = await state.get_cursor(repo, name)
    floor = cursor or (utc(since) if since else None)
    validators = await state.get_validators(url)

    def read() -> _Listing:
        changed: list[dict] = []
        first: Validators | None = None
        for page in source.pages(path, params, validators):
            if page.not_modified:
                return _Listing(name, url, False, validators, [], floor)
            if first is None:
                first = page.validators
            if not isinstance(page.data, list):
                raise GithubError(f"{page.url} did not return a list")
            for obj in page.data:
                updated = parse_time(obj.get("updated_at"))
                if floor is not None and updated is not None and utc(updated) < floor:
                    return _Listing(name, url, True, first, changed, floor)
                changed.append(obj)
        return _Listing(name, url, True, first or Validators(), changed, floor)

    return await asyncio.to_thread(read)


@_traced_sync
async def sync_repository(
    bus: Bus,
    state: KvIngestState,
    source: PyGithubSource,
    repo: str,
    *,
    now: datetime,
    since: datetime | None = None,
    on_item: Callable[[int], None] | None = None,
) -> SyncResult:
    """Poll `repo` once: publish the facts of everything changed since the stored cursors (or
    since `since` on the first sync; None: the whole history), then a `SyncWatermark` at `now`.

    Four conditional listings (pull requests, issues, issue comments, review comments); an
    unchanged repository answers 304 to all four and costs nothing. Each changed pull request
    costs its detail, files and reviews (the last two conditional as well).

    Each item's state is stored right after its facts were published, and the cursors and
    listing validators only after every item was handled, so an interrupted sync resumes without
    loss (JetStream and the consumers de-duplicate what is published twice).
    """
    result = SyncResult(repo=repo)
    start_requests, start_304 = source.budget.requests, source.budget.not_modified
    listings = {
        name: await _read_listing(state, source, repo, name, since=since) for name in LISTINGS
    }
    result.listings_unchanged = sum(1 for x in listings.values() if not x.modified)

    comments: dict[int, list[CommentInfo]] = {}
    for name, on_review, link in (
        ("issues/comments", False, "issue_url"),
        ("pulls/comments", True, "pull_request_url"),
    ):
        for obj in listings[name].objects:
            m = _NUMBER.search(str(obj.get(link) or ""))
            if m:
                comments.setdefault(int(m.group(1)), []).append(
                    comment_info(obj, on_review=on_review)
                )

    # pull requests from /pulls (with their merge state); /issues lists them too, skipped there
    listed: dict[int, tuple[str, dict]] = {}
    for obj in listings["issues"].objects:
        if not is_pull_request(obj):
            listed[int(obj["number"])] = ("issue", obj)
    for obj in listings["pulls"].objects:
        listed[int(obj["number"])] = ("pull", obj)

    def order(number: int) -> tuple[str, int]:
        entry = listed.get(number)
        return ((entry[1].get("updated_at") or "") if entry else "~", number)

    # what to look at, oldest first: facts go out roughly in GitHub order
    work: list[tuple[int, tuple[str, dict] | None, ItemState | None]] = []
    for number in sorted(set(listed) | set(comments), key=order):
        prev = await state.get_item(repo, number)
        fresh = prev is None or prev.has_new_comments(comments.get(number, ()))
        entry = listed.get(number)
        if (
            entry is not None
            and prev is not None
            and not fresh
            and prev.unchanged(parse_time(entry[1].get("updated_at")))
        ):
            continue
        if entry is None and not fresh:
            continue
        work.append((number, entry, prev))

    # fetch up to `source.workers` items at once; publish strictly in order
    gate = asyncio.Semaphore(source.workers)

    async def fetch(number: int, entry: tuple[str, dict] | None, prev: ItemState | None):
        async with gate:
            if entry is None:
                # a comment newer than the item listing we read: fetch the item itself
                entry = await _fetch_item(source, repo, number)
                if entry is None:
                    return None
            kind, obj = entry
            if kind == "pull":
                return await _pull_fetch(state, source, repo, obj, prev)
            return snapshot_from_issue(repo, obj), [], []

    tasks = [asyncio.create_task(fetch(*w)) for w in work]
    try:
        for (number, _, prev), task in zip(work, tasks):
            fetched = await task
            if fetched is None:
                continue
            item, reviews, pending = fetched
            await publish_item(
                bus,
                state,
                result,
                repo,
                number,
                prev,
                item,
                comments=comments.get(number, ()),
                reviews=reviews,
            )
            for item_validators, item_url in pending:
                await state.put_validators(item_url, item_validators)
            if on_item is not None:
                on_item(number)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    for listing in listings.values():
        if not listing.modified:
            continue
        newest = listing.newest
        if newest is not None and (listing.floor is None or newest > listing.floor):
            await state.put_cursor(repo, listing.name, newest)
        await state.put_validators(listing.url, listing.validators)

    watermark = SyncWatermark.create(
        WatermarkData(
            repo=repo, watermark=now, origin="poll", facts_published=result.facts_published
        )
    )
    await bus.publish(watermark, Subjects.watermark(repo))
    result.watermark = utc(now)
    result.requests = source.budget.requests - start_requests
    result.not_modified = source.budget.not_modified - start_304
    result.rate_remaining = source.budget.remaining
    log.info(
        "polled %s",
        result.summary(),
        extra={
            "repo": repo,
            "facts": result.facts_published,
            "requests": result.requests,
            "not_modified": result.not_modified,
            "rate_remaining": result.rate_remaining,
        },
    )
    return result


async def _fetch_item(source: PyGithubSource, repo: str, number: int) -> tuple[str, dict] | None:
    def read() -> tuple[str, dict] | None:
        try:
            issue = source.get(f"/repos/{repo}/issues/{number}").data
            if not is_pull_request(issue):
                return "issue", issue
            return "pull", source.get(f"/repos/{repo}/pulls/{number}").data
        except GithubNotFound as exc:
            log.warning("%s", exc)
            return None

    return await asyncio.to_thread(read)


async def _pull_fetch(
    state: KvIngestState, source: PyGithubSource, repo: str, listed: dict, prev: ItemState | None
) -> tuple[ItemSnapshot, list[ReviewInfo], list[tuple[Validators, str]]]:
    """A pull request's detail, files and reviews (each conditional), as a snapshot, its reviews
    and the validators to store once its facts are published."""
    number = int(listed["number"])
    base = f"/repos/{repo}/pulls/{number}"

    async def conditional(path: str, **kw) -> tuple[list[Any] | dict | None, Any]:
        """GET a resource or all pages of a listing, conditionally on its first page."""
        url = source.url_for(path, kw.get("params"))
        validators = await state.get_validators(url)

        def read() -> tuple[Any, Any]:
            try:
                pages = list(
                    source.pages(path, kw.get("params"), validators, limit=kw.get("limit"))
                )
            except GithubNotFound as exc:
                # the item went away between the listing and now; keep what we know of it
                log.warning("%s", exc)
                return None, None
            if pages[0].not_modified:
                return None, None
            if isinstance(pages[0].data, list):
                data: list[Any] = []
                for p in pages:
                    data.extend(p.data or ())
                return data, pages[0].validators
            return pages[0].data, pages[0].validators

        data, new = await asyncio.to_thread(read)
        return data, ((new, url) if new is not None else None)

    detail, detail_v = await conditional(base)
    pr = detail if isinstance(detail, dict) else listed  # a 304 leaves the listing's view

    files_data, files_v = await conditional(
        f"{base}/files", params={"per_page": source.per_page}, limit=source.files_cap
    )
    reviews_data, reviews_v = await conditional(
        f"{base}/reviews", params={"per_page": source.per_page}
    )

    reviews: list[ReviewInfo] = []
    if reviews_data is not None:
        reviews = [r for r in (review_info(x) for x in reviews_data) if r is not None]
    review_count = len(reviews) if reviews_data is not None else (prev.reviews if prev else 0)

    if files_data is not None:
        item = snapshot_from_pull(repo, pr, files=files_data, reviews=review_count)
    else:
        item = snapshot_from_pull(repo, pr, reviews=review_count)
        if prev is not None and prev.files:
            item = item.model_copy(
                update={"files": prev.file_changes(), "files_truncated": prev.files_truncated}
            )
    pending = [pair for pair in (detail_v, files_v, reviews_v) if pair]
    return item, reviews, pending


async def sync_once(
    bus: Bus,
    repo: str,
    *,
    token: str | None,
    api_url: str = "https://api.github.com",
    since: datetime | None = None,
    now: datetime | None = None,
    per_page: int = 100,
    on_item: Callable[[int], None] | None = None,
    seconds_between_requests: float | None = None,
    workers: int = 4,
) -> SyncResult:
    """One sync of `repo` for a one-shot report: state in the bus's KV bucket (created by the
    runtime's topology), facts updated since `since` on a first sync. Raises `GithubError`
    subclasses with messages a person can act on."""
    state = await KvIngestState.open(bus.js)
    # serial GETs need no spacing (GitHub asks it of writes); `workers` requests at once stay
    # far below the secondary limits (100 concurrent, 900 points a minute)
    source = PyGithubSource(
        token,
        api_url,
        per_page=per_page,
        seconds_between_requests=seconds_between_requests,
        workers=workers,
    )
    try:
        return await sync_repository(
            bus, state, source, repo, now=now or datetime.now(UTC), since=since, on_item=on_item
        )
    finally:
        await asyncio.to_thread(source.close)
