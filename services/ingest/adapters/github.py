"""GitHub REST polling through PyGithub: conditional requests, rate limits, incremental sync.

`PyGithubSource` is the blocking HTTP side (PyGithub's `Requester`: auth, base URL, GitHub
Enterprise prefixes, rate-limit bookkeeping), run in a thread. `sync_repository` is the async use
case: list what changed since the cursor, fetch details of changed pull requests, derive facts
from the last known state (`domain.transitions`), publish them, and only then move the cursor.

Why PyGithub's `Requester.requestJson` instead of `repo.get_issues()`: `PaginatedList` cannot send
`If-None-Match` / `If-Modified-Since` nor report a 304, and conditional requests are what make an
unchanged repository cost nothing (GitHub does not count a 304 against the primary rate limit).
Raw JSON also lets the webhook path and the poll path share one mapping (`domain.mapping`).

Listings (pull requests, issues, issue comments, review comments of the whole repository) are
read newest-updated first with a URL that never changes between polls (`sort=updated&
direction=desc`), so page 1 answers 304 until something changes and reading stops at the cursor.
A `since=` parameter would change the URL after every change and cost one full request per poll.
Comments come from the repository-wide listings: one request per hundred new comments instead of
one per commented item.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any
import re
from urllib.parse import urlencode, urlsplit

import requests
from tenacity import (
    RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential,
)

from services.ingest.adapters.kv import KvIngestState, Validators
from services.ingest.domain.mapping import (
    comment_info, is_pull_request, parse_time, review_info, snapshot_from_issue, snapshot_from_pull,
)
from services.ingest.domain.transitions import ItemState, derive, merge_observed
from opentelemetry import context as otel_context, trace
from opentelemetry.trace import Link, SpanKind

from shared.bus import Subjects
from shared.http import retry_after_seconds
from shared.telemetry import meter, tracer
from shared.events import (
    CommentInfo, FactData, ItemSnapshot, ReviewInfo, SyncWatermark, WatermarkData, make_fact, utc,
)
from shared.events.github import FILES_CAP

if TYPE_CHECKING:
    from shared.bus import Bus

log = logging.getLogger("repodigest.ingest.github")

_tracer = tracer("ingest.github")
_rate_remaining = meter("ingest").create_gauge(
    "repodigest.github.ratelimit.remaining", unit="{request}",
    description="GitHub requests left in the rate-limit window, from the last response")


def _traced_request(method: str):
    """One CLIENT span per GitHub request attempt; the response adds status and rate limits."""
    def wrap(fn):
        def call(self, url: str, *args: Any, **kwargs: Any):
            with _tracer.start_as_current_span(
                    f"GitHub {method}", kind=SpanKind.CLIENT,
                    attributes={"http.request.method": method, "url.full": url}):
                return fn(self, url, *args, **kwargs)
        return call
    return wrap


def _traced_graphql(fn):
    """One CLIENT span per GraphQL query attempt (rate limits of the `graphql` resource)."""
    def call(self, query: str, variables: dict[str, Any]):
        with _tracer.start_as_current_span(
                "GitHub GraphQL", kind=SpanKind.CLIENT,
                attributes={"http.request.method": "POST",
                            "url.full": self._client().requester.graphql_url}):
            return fn(self, query, variables)
    return call


def _traced_sync(sync):
    """A span per repository sync: the GitHub requests it makes are its children."""
    async def call(bus: "Bus", state: Any, source: Any, repo: str, *args: Any, **kwargs: Any):
        with _tracer.start_as_current_span("GitHub sync", attributes={"repodigest.repo": repo}) as span:
            result = await sync(bus, state, source, repo, *args, **kwargs)
            span.set_attributes({"repodigest.facts_published": result.facts_published,
                                 "repodigest.items_changed": result.items_changed,
                                 "github.requests": result.requests,
                                 "github.not_modified": result.not_modified})
            return result
    call.__doc__, call.__name__ = sync.__doc__, sync.__name__
    return call


@contextlib.contextmanager
def _fact_trace(data: FactData):
    """Each fact begins its own trace (followed to the reports that count it), linked to the sync
    or webhook delivery that observed it: one poll can publish thousands of facts."""
    observed = trace.get_current_span().get_span_context()
    with _tracer.start_as_current_span(
            f"GitHub fact {data.kind}.{data.action}", context=otel_context.Context(),
            links=[Link(observed)] if observed.is_valid else None,
            attributes={"repodigest.repo": data.repo, "repodigest.number": data.item.number}):
        yield


def _observe_response(status: int, headers: dict[str, Any]) -> None:
    span = trace.get_current_span()
    span.set_attribute("http.response.status_code", status)
    resource = _header(headers, "x-ratelimit-resource") or "core"
    for name in ("remaining", "limit", "reset", "used"):
        value = _header(headers, f"x-ratelimit-{name}")
        if value is not None:
            span.set_attribute(f"github.ratelimit.{name}", int(float(value)))
            if name == "remaining":
                _rate_remaining.set(int(float(value)), {"resource": resource})

RETRY_STATUSES = {500, 502, 503, 504}


# ---------------------------------------------------------------- errors a person can act on


class GithubError(RuntimeError):
    """A GitHub failure with a message that says what to do."""

    transient = False


class GithubAuthError(GithubError):
    pass


class GithubNotFound(GithubError):
    pass


class GithubForbidden(GithubError):
    pass


class GithubUnavailable(GithubError):
    """Network unreachable or GitHub kept failing after the retries: try again later."""

    transient = True


class RateLimitExhausted(GithubError):
    """The primary rate limit is spent and resets later than we are willing to wait."""

    transient = True

    def __init__(self, message: str, reset_at: datetime) -> None:
        super().__init__(message)
        self.reset_at = reset_at


class _Retryable(Exception):
    """Internal: a response worth another attempt (5xx, secondary limit, network), with the
    server's `Retry-After` when it gave one."""

    def __init__(self, reason: str, retry_after: float | None = None, *,
                 secondary: bool = False, network: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.secondary = secondary
        self.network = network  # no answer at all: this side's network, not GitHub, is suspect


# ---------------------------------------------------------------- responses and budget


@dataclass(frozen=True)
class Response:
    status: int
    url: str
    data: Any
    validators: Validators
    next_url: str | None = None

    @property
    def not_modified(self) -> bool:
        return self.status == 304


@dataclass
class Budget:
    """Primary rate-limit state from the last response, and what this source spent and waited."""

    limit: int | None = None
    remaining: int | None = None
    reset_at: datetime | None = None
    requests: int = 0
    not_modified: int = 0
    retries: int = 0
    waited_seconds: float = 0.0
    waits: list[tuple[str, float]] = field(default_factory=list)


def _header(headers: dict[str, Any], name: str) -> str | None:
    value = headers.get(name.lower())
    return None if value is None else str(value)


def _retry_after(headers: dict[str, Any], now: float | None = None) -> float | None:
    """`Retry-After` in seconds (GitHub sends seconds; an HTTP date is understood too)."""
    return retry_after_seconds(_header(headers, "retry-after"), now)


def _next_link(headers: dict[str, Any]) -> str | None:
    link = _header(headers, "link")
    if not link:
        return None
    for item in requests.utils.parse_header_links(link):
        if item.get("rel") == "next" and item.get("url"):
            return item["url"]
    return None


class PyGithubSource:
    """Blocking GitHub REST client (PyGithub `Requester`) with conditional requests, pagination,
    retries (tenacity: exponential backoff with jitter, `Retry-After` honoured) and a primary
    rate-limit budget that waits for the reset when nearly spent. Call its methods in a thread.
    """

    def __init__(self, token: str | None, base_url: str = "https://api.github.com", *,
                 per_page: int = 100, timeout: int = 30, max_attempts: int = 6,
                 backoff_base: float = 1.0, backoff_max: float = 60.0, reserve: int = 20,
                 max_reset_wait: float = 900.0, secondary_min_wait: float = 60.0,
                 seconds_between_requests: float | None = 0.25,
                 files_cap: int = FILES_CAP, sleep: Callable[[float], None] | None = None,
                 clock: Callable[[], float] = time.time, workers: int = 4) -> None:
        self.base_url = base_url.rstrip("/")
        self.per_page = per_page
        self.files_cap = files_cap
        self.reserve = reserve
        self.max_reset_wait = max_reset_wait
        self.secondary_min_wait = secondary_min_wait
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._closed = threading.Event()
        self._sleep = sleep or self._wait_unless_closed
        self._clock = clock
        self.has_token = bool(token)
        self.workers = max(1, workers)
        self._token, self._timeout = token, timeout
        self._spacing = seconds_between_requests
        self.budget = Budget()
        # GraphQL has its own limit (points per hour): its own budget, so a spent one never
        # stops the other
        self.graphql_budget = Budget()
        self._lock = threading.Lock()  # the budget, and the wait for a reset
        self._local = threading.local()
        self._clients: list[Any] = []
        # PyGithub logs whole response bodies at DEBUG: never, even when the service runs at DEBUG
        quiet = logging.getLogger("github.Requester")
        if quiet.getEffectiveLevel() < logging.INFO:
            quiet.setLevel(logging.INFO)
        self.gh = self._client()

    def _client(self) -> Any:
        """This thread's PyGithub client: a `Requester` keeps one connection object whose
        request() / getresponse() pair is not safe to share between threads."""
        gh = getattr(self._local, "gh", None)
        if gh is None:
            from github import Auth, Github

            # retry=None: no urllib3 retries underneath; retries are decided here, where 304s,
            # secondary limits and Retry-After are understood
            gh = Github(auth=Auth.Token(self._token) if self._token else None,
                        base_url=self.base_url, per_page=self.per_page, timeout=self._timeout,
                        retry=None, seconds_between_requests=self._spacing,
                        user_agent="repodigest (PyGithub)")
            self._local.gh = gh
            with self._lock:
                self._clients.append(gh)
        return gh

    def _wait_unless_closed(self, seconds: float) -> None:
        """Backoff and rate-limit waits end early when the source is closed (service stop)."""
        if self._closed.wait(max(0.0, seconds)):
            raise GithubUnavailable("the GitHub source was closed while waiting")

    def close(self) -> None:
        self._closed.set()
        for gh in list(self._clients):
            with contextlib.suppress(Exception):
                gh.close()

    # ------------------------------------------------------------ URLs

    def url_for(self, path: str, params: dict[str, Any] | None = None) -> str:
        """The absolute URL a path and parameters name (the key of its stored validators)."""
        url = path if path.startswith("http") else f"{self.base_url}{path}"
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        return url

    # ------------------------------------------------------------ requests

    def get(self, path: str, params: dict[str, Any] | None = None,
            validators: Validators | None = None) -> Response:
        """One GET, conditional when `validators` are given; retried when worth it."""
        url = self.url_for(path, params)
        return self._retried(lambda: self._get_once(url, validators))

    def graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """One GraphQL query (POST to PyGithub's GraphQL URL: `<api>/graphql`, or `/api/graphql`
        on GitHub Enterprise), retried and rate-limited like a GET; returns its `data`."""
        return self._retried(lambda: self._graphql_once(query, variables))

    def _retried(self, once: Callable[[], Any]) -> Any:
        retrying = Retrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception_type(_Retryable),
            sleep=self._sleep,
            before_sleep=self._before_sleep,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return once()
        except _Retryable as exc:
            if exc.network:
                raise GithubUnavailable(
                    f"GitHub at {self.base_url} did not answer ({exc.reason}) in "
                    f"{self.max_attempts} attempts: check this machine's network connection, "
                    "its proxy (HTTPS_PROXY) and REPODIGEST_GITHUB_API_URL, then try again") from None
            raise GithubUnavailable(
                f"GitHub at {self.base_url} kept failing ({exc.reason}) after "
                f"{self.max_attempts} attempts; it is probably degraded: try again later "
                "(https://www.githubstatus.com)") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def pages(self, path: str, params: dict[str, Any] | None = None,
              validators: Validators | None = None, *, limit: int | None = None
              ) -> Iterator[Response]:
        """The pages of a listing, following `Link: rel=next`; page 1 conditional.

        A 304 on page 1 yields that one response (nothing changed) and stops.
        """
        response = self.get(path, params, validators)
        yield response
        seen = len(response.data or ()) if not response.not_modified else 0
        while response.next_url and not response.not_modified:
            if limit is not None and seen >= limit:
                return
            response = self.get(response.next_url)
            seen += len(response.data or ())
            yield response

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return exc.retry_after
        backoff = wait_random_exponential(multiplier=self.backoff_base, max=self.backoff_max)(state)
        if isinstance(exc, _Retryable) and exc.secondary:
            # GitHub: without Retry-After, wait at least a minute after a secondary limit
            return max(self.secondary_min_wait, backoff)
        return backoff

    def _before_sleep(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        delay = state.next_action.sleep if state.next_action else 0.0
        reason = exc.reason if isinstance(exc, _Retryable) else type(exc).__name__
        self.budget.retries += 1
        self.budget.waited_seconds += delay
        self.budget.waits.append((reason, delay))
        log.warning("GitHub request failed (%s); retry %d in %.1fs", reason,
                    state.attempt_number, delay)

    def _respect_budget(self, b: Budget | None = None) -> None:
        b = b if b is not None else self.budget
        if b.remaining is None or b.reset_at is None or b.remaining > self.reserve:
            return
        delay = b.reset_at.timestamp() - self._clock() + 1.0
        if delay <= 0:
            return
        if delay > self.max_reset_wait:
            raise RateLimitExhausted(
                f"GitHub rate limit nearly spent ({b.remaining} of {b.limit} requests left) and it "
                f"resets at {b.reset_at:%Y-%m-%d %H:%M:%S} UTC; polling resumes then. Use a token "
                "with a higher limit (a GitHub App installation) or poll fewer repositories.",
                b.reset_at)
        log.warning("GitHub rate limit nearly spent (%s left); waiting %.0fs for the reset",
                    b.remaining, delay)
        b.waited_seconds += delay
        b.waits.append(("primary rate limit", delay))
        self._sleep(delay)
        b.remaining = None  # learn the new budget from the next response

    @_traced_request("GET")
    def _get_once(self, url: str, validators: Validators | None) -> Response:
        from github.GithubException import GithubException

        with self._lock:
            self._respect_budget()
        if self._closed.is_set():
            raise GithubUnavailable("the GitHub source was closed")
        headers = validators.headers() if validators else {}
        headers["Accept"] = "application/vnd.github+json"
        try:
            status, resp_headers, body = self._client().requester.requestJson(
                "GET", url, headers=headers)
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise _Retryable(f"cannot reach {self.base_url}: {type(exc).__name__}",
                             network=isinstance(exc, requests.ConnectionError)) from None
        except GithubException as exc:  # pragma: no cover - requestJson does not check
            raise GithubError(str(exc)) from None
        with self._lock:
            self._account(status, resp_headers)
        if status == 304:
            return Response(304, url, None, validators or Validators())
        if status >= 400:
            self._raise_for(status, resp_headers, body, url)
        try:
            import json

            data = json.loads(body) if body else None
        except ValueError:
            raise _Retryable(f"{url} answered {status} with a body that is not JSON") from None
        return Response(status, url, data,
                        Validators(_header(resp_headers, "etag"),
                                   _header(resp_headers, "last-modified")),
                        _next_link(resp_headers))

    @_traced_graphql
    def _graphql_once(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        import json

        with self._lock:
            self._respect_budget(self.graphql_budget)
        if self._closed.is_set():
            raise GithubUnavailable("the GitHub source was closed")
        requester = self._client().requester
        url = requester.graphql_url
        try:
            status, resp_headers, body = requester.requestJson(
                "POST", url, headers={"Accept": "application/json"},
                input={"query": query, "variables": variables})
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise _Retryable(f"cannot reach {url}: {type(exc).__name__}",
                             network=isinstance(exc, requests.ConnectionError)) from None
        with self._lock:
            self._account(status, resp_headers, self.graphql_budget)
        if status >= 400:
            self._raise_for(status, resp_headers, body, url)
        try:
            payload = json.loads(body) if body else None
        except ValueError:
            raise _Retryable(f"{url} answered {status} with a body that is not JSON") from None
        if not isinstance(payload, dict):
            raise _Retryable(f"{url} answered {status} without a JSON object")
        errors = [e for e in payload.get("errors") or () if isinstance(e, dict)]
        if errors:
            kinds = {str(e.get("type") or "") for e in errors}
            text = "; ".join(str(e.get("message") or e.get("type")) for e in errors[:3])
            if "RATE_LIMITED" in kinds:
                raise _Retryable(f"GraphQL rate limited ({text})", None, secondary=True)
            if kinds == {"NOT_FOUND"} and payload.get("data") is not None:
                return payload["data"]  # a null field: the caller says what was not found
            if "NOT_FOUND" in kinds:
                raise GithubNotFound(
                    f"GitHub GraphQL: {text}: check the spelling OWNER/NAME and, for a private "
                    "repository, that the token has access to it")
            if payload.get("data") is None:
                raise GithubError(f"GitHub GraphQL refused the query at {url}: {text}")
            log.warning("GitHub GraphQL answered with errors (partial data kept): %s", text)
        if payload.get("data") is None:
            raise _Retryable(f"{url} answered {status} without data")
        return payload["data"]

    def _account(self, status: int, headers: dict[str, Any], b: Budget | None = None) -> None:
        b = b if b is not None else self.budget
        b.requests += 1
        if status == 304:
            b.not_modified += 1
        remaining = _header(headers, "x-ratelimit-remaining")
        if remaining is not None:
            b.remaining = int(float(remaining))
        limit = _header(headers, "x-ratelimit-limit")
        if limit is not None:
            b.limit = int(float(limit))
        reset = _header(headers, "x-ratelimit-reset")
        if reset is not None:
            b.reset_at = datetime.fromtimestamp(int(float(reset)), timezone.utc)
        _observe_response(status, headers)

    def _raise_for(self, status: int, headers: dict[str, Any], body: str, url: str) -> None:
        import json

        try:
            message = str((json.loads(body) or {}).get("message") or "")
        except (ValueError, AttributeError):
            message = ""
        lower = message.lower()
        retry_after = _retry_after(headers, self._clock())
        if status in RETRY_STATUSES:
            raise _Retryable(f"HTTP {status} from {url}", retry_after)
        spent = _header(headers, "x-ratelimit-remaining") == "0"
        if status in (403, 429) and (status == 429 or spent or retry_after is not None
                                     or "rate limit" in lower):
            # GitHub's order: Retry-After if given; else the primary reset when the budget is
            # spent; else a secondary limit: at least a minute, growing exponentially
            if retry_after is not None:
                raise _Retryable(f"rate limited (HTTP {status}, Retry-After {retry_after:g}s)",
                                 retry_after, secondary=not spent)
            if spent or lower.startswith("api rate limit exceeded"):
                # the next attempt waits for X-RateLimit-Reset in _respect_budget (or gives up
                # with RateLimitExhausted when that is too far away)
                known = self.budget.reset_at is not None and self.budget.remaining == 0
                raise _Retryable("primary rate limit exceeded",
                                 0.0 if known else self.backoff_max)
            raise _Retryable(f"secondary rate limit (HTTP {status})", None, secondary=True)
        if status == 401:
            hint = ("GITHUB_TOKEN was rejected" if self.has_token else
                    "GitHub requires a token for this request")
            raise GithubAuthError(
                f"{hint} by {self.base_url} (401 {message or 'Bad credentials'}): create a token "
                "with read access to Pull requests, Issues and Metadata and set "
                "REPODIGEST_GITHUB_TOKEN (or GITHUB_TOKEN for the CLI)")
        if status == 404:
            repo = _repo_of(url)
            if repo and re.match(r"^/repos/[^/]+/[^/]+(/(issues|pulls))?$", urlsplit(url).path
                                 .removeprefix(urlsplit(self.base_url).path)):
                raise GithubNotFound(
                    f"repository {repo} not found or the token cannot see it: check the "
                    "spelling OWNER/NAME and, for a private repository, that the token has "
                    "access to it")
            raise GithubNotFound(f"{url} not found (404): deleted or transferred on GitHub")
        if status == 403:
            raise GithubForbidden(
                f"GitHub refused {url} (403 {message}): the token lacks permission; grant it "
                "read access to Pull requests, Issues and Metadata for this repository")
        raise GithubError(f"GitHub answered {status} for {url}: {message or 'no message'}")


def _repo_of(url: str) -> str | None:
    marker = "/repos/"
    if marker not in url:
        return None
    rest = url.split(marker, 1)[1].split("?", 1)[0].split("/")
    return "/".join(rest[:2]) if len(rest) >= 2 else None


# ---------------------------------------------------------------- the sync use case


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
        return (f"{self.repo}: {self.facts_published} facts from {self.items_changed} changed "
                f"items; {self.requests} requests ({self.not_modified} answered 304, free); "
                f"rate limit left {self.rate_remaining if self.rate_remaining is not None else '?'}"
                f"; watermark {mark}")


# repository-wide listings read newest-updated first; comments come from the repository-wide
# comment listings (one request per 100 new comments instead of one per commented item)
LISTINGS = ("pulls", "issues", "issues/comments", "pulls/comments")
_NUMBER = re.compile(r"/(?:issues|pulls)/(\d+)$")


async def publish_facts(bus: "Bus", facts: Sequence[FactData]) -> list[str]:
    """Publish facts as typed events on their subjects; returns their ids."""
    return (await _publish(bus, facts))[0]


async def _publish(bus: "Bus", facts: Sequence[FactData]) -> tuple[list[str], int]:
    ids, duplicates = [], 0
    for data in facts:
        event = make_fact(data)
        with _fact_trace(data):
            ack = await bus.publish(event, Subjects.fact(data.kind, data.action, data.repo))
        duplicates += bool(getattr(ack, "duplicate", False))
        ids.append(event.id)
    return ids, duplicates


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


async def _read_listing(state: KvIngestState, source: PyGithubSource, repo: str, name: str, *,
                        since: datetime | None) -> _Listing:
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
async def sync_repository(bus: "Bus", state: KvIngestState, source: PyGithubSource, repo: str, *,
                          now: datetime, since: datetime | None = None,
                          on_item: Callable[[int], None] | None = None) -> SyncResult:
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
    listings = {name: await _read_listing(state, source, repo, name, since=since)
                for name in LISTINGS}
    result.listings_unchanged = sum(1 for x in listings.values() if not x.modified)

    comments: dict[int, list[CommentInfo]] = {}
    for name, on_review, link in (("issues/comments", False, "issue_url"),
                                  ("pulls/comments", True, "pull_request_url")):
        for obj in listings[name].objects:
            m = _NUMBER.search(str(obj.get(link) or ""))
            if m:
                comments.setdefault(int(m.group(1)), []).append(
                    comment_info(obj, on_review=on_review))

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
        if entry is not None and prev is not None and not fresh and prev.unchanged(
                parse_time(entry[1].get("updated_at"))):
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
            facts, new_state = derive(prev, item, comments=comments.get(number, ()),
                                      reviews=reviews, origin="poll")
            ids, duplicates = await _publish(bus, facts)
            result.facts.extend(ids)
            result.facts_published += len(facts)
            result.duplicates += duplicates
            result.items_changed += 1
            # after publishing: a crash before this re-derives (and re-publishes) the same facts
            await state.update_item(
                repo, number, lambda stored, polled=new_state: merge_observed(polled, stored))
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

    watermark = SyncWatermark.create(WatermarkData(
        repo=repo, watermark=now, origin="poll", facts_published=result.facts_published))
    await bus.publish(watermark, Subjects.watermark(repo))
    result.watermark = utc(now)
    result.requests = source.budget.requests - start_requests
    result.not_modified = source.budget.not_modified - start_304
    result.rate_remaining = source.budget.remaining
    log.info("polled %s", result.summary(),
             extra={"repo": repo, "facts": result.facts_published, "requests": result.requests,
                    "not_modified": result.not_modified, "rate_remaining": result.rate_remaining})
    return result


async def _fetch_item(source: PyGithubSource, repo: str, number: int
                      ) -> tuple[str, dict] | None:
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


async def _pull_fetch(state: KvIngestState, source: PyGithubSource, repo: str, listed: dict,
                      prev: ItemState | None
                      ) -> tuple[ItemSnapshot, list[ReviewInfo], list[tuple[Validators, str]]]:
    """A pull request's detail, files and reviews (each conditional), as a snapshot, its reviews
    and the validators to store once its facts are published."""
    number = int(listed["number"])
    base = f"/repos/{repo}/pulls/{number}"

    async def conditional(path: str, **kw) -> tuple[list[Any] | dict | None, Any]:
        """GET a resource or all pages of a listing, conditionally on its first page."""
        url = source.url_for(path, kw.get("params"))
        validators = await state.get_validators(url)

        def read():
            try:
                pages = list(source.pages(path, kw.get("params"), validators,
                                          limit=kw.get("limit")))
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

    files_data, files_v = await conditional(f"{base}/files", params={"per_page": source.per_page},
                                            limit=source.files_cap)
    reviews_data, reviews_v = await conditional(f"{base}/reviews",
                                                params={"per_page": source.per_page})

    reviews: list[ReviewInfo] = []
    if reviews_data is not None:
        reviews = [r for r in (review_info(x) for x in reviews_data) if r is not None]
    review_count = len(reviews) if reviews_data is not None else (prev.reviews if prev else 0)

    if files_data is not None:
        item = snapshot_from_pull(repo, pr, files=files_data, reviews=review_count)
    else:
        item = snapshot_from_pull(repo, pr, reviews=review_count)
        if prev is not None and prev.files:
            item = item.model_copy(update={"files": prev.file_changes(),
                                           "files_truncated": prev.files_truncated})
    pending = [pair for pair in (detail_v, files_v, reviews_v) if pair]
    return item, reviews, pending


async def sync_once(bus: "Bus", repo: str, *, token: str | None,
                    api_url: str = "https://api.github.com", since: datetime | None = None,
                    now: datetime | None = None, per_page: int = 100,
                    on_item: Callable[[int], None] | None = None,
                    seconds_between_requests: float | None = None,
                    workers: int = 4) -> SyncResult:
    """One sync of `repo` for a one-shot report: state in the bus's KV bucket (created by the
    runtime's topology), facts updated since `since` on a first sync. Raises `GithubError`
    subclasses with messages a person can act on."""
    state = await KvIngestState.open(bus.js)
    # serial GETs need no spacing (GitHub asks it of writes); `workers` requests at once stay
    # far below the secondary limits (100 concurrent, 900 points a minute)
    source = PyGithubSource(token, api_url, per_page=per_page,
                            seconds_between_requests=seconds_between_requests, workers=workers)
    try:
        return await sync_repository(bus, state, source, repo,
                                     now=now or datetime.now(timezone.utc), since=since,
                                     on_item=on_item)
    finally:
        await asyncio.to_thread(source.close)


# ---------------------------------------------------------------- the poller


class GithubPoller:
    """Polls each repository every `interval` seconds until stopped (one task, repositories in
    turn: ingest owns a repository in one replica at a time)."""

    def __init__(self, bus: "Bus", state: KvIngestState, source: PyGithubSource,
                 repos: Sequence[str], *, interval: float, since: datetime | None = None,
                 backfill: timedelta | None = timedelta(days=14), graphql_backfill: bool = False,
                 clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> None:
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
                    from services.ingest.adapters.github_graphql import graphql_backfill

                    await graphql_backfill(self.bus, self.state, self.source, repo, since=since)
                self.results[repo] = await sync_repository(self.bus, self.state, self.source,
                                                           repo, now=now, since=since)
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
        return [f"polling {repo}: {self.errors[repo]}" for repo, exc in self.failures.items()
                if not exc.transient]

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                await self.poll_once()
            except Exception:  # noqa: BLE001 - a poll loop must survive; the next round retries
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
