"""GitHub REST through PyGithub: conditional requests, rate limits, retries, errors a person can
act on.

`PyGithubSource` is the blocking HTTP side (PyGithub's `Requester`: auth, base URL, GitHub
Enterprise prefixes, rate-limit bookkeeping), run in a thread. The sync use case that reads
through it (list what changed, fetch details, derive and publish facts, move the cursor) and the
poller are `services.ingest.sync`.

Why PyGithub's `Requester.requestJson` instead of `repo.get_issues()`: `PaginatedList` cannot send
`If-None-Match` / `If-Modified-Since` nor report a 304, and conditional requests are what make an
unchanged repository cost nothing (GitHub does not count a 304 against the primary rate limit).
Raw JSON also lets the webhook path and the poll path share one mapping (`domain.mapping`).
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

import requests
from opentelemetry import trace
from opentelemetry.trace import SpanKind
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from services.ingest.adapters.kv import Validators
from shared.events.github import FILES_CAP
from shared.http import retry_after_seconds
from shared.telemetry import meter, tracer

log = logging.getLogger("repodigest.ingest.github")

_tracer = tracer("ingest.github")
_rate_remaining = meter("ingest").create_gauge(
    "repodigest.github.ratelimit.remaining",
    unit="{request}",
    description="GitHub requests left in the rate-limit window, from the last response",
)


def _traced_request(method: str):
    """One CLIENT span per GitHub request attempt; the response adds status and rate limits."""

    def wrap(fn):
        def call(self, url: str, *args: Any, **kwargs: Any):
            with _tracer.start_as_current_span(
                f"GitHub {method}",
                kind=SpanKind.CLIENT,
                attributes={"http.request.method": method, "url.full": url},
            ):
                return fn(self, url, *args, **kwargs)

        return call

    return wrap


def _traced_graphql(fn):
    """One CLIENT span per GraphQL query attempt (rate limits of the `graphql` resource)."""

    def call(self, query: str, variables: dict[str, Any]):
        with _tracer.start_as_current_span(
            "GitHub GraphQL",
            kind=SpanKind.CLIENT,
            attributes={
                "http.request.method": "POST",
                "url.full": self._client().requester.graphql_url,
            },
        ):
            return fn(self, query, variables)

    return call


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

    def __init__(
        self,
        reason: str,
        retry_after: float | None = None,
        *,
        secondary: bool = False,
        network: bool = False,
    ) -> None:
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

    def __init__(
        self,
        token: str | None,
        base_url: str = "https://api.github.com",
        *,
        per_page: int = 100,
        timeout: int = 30,
        max_attempts: int = 6,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        reserve: int = 20,
        max_reset_wait: float = 900.0,
        secondary_min_wait: float = 60.0,
        seconds_between_requests: float | None = 0.25,
        files_cap: int = FILES_CAP,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.time,
        workers: int = 4,
    ) -> None:
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
            gh = Github(
                auth=Auth.Token(self._token) if self._token else None,
                base_url=self.base_url,
                per_page=self.per_page,
                timeout=self._timeout,
                retry=None,
                seconds_between_requests=self._spacing,
                user_agent="repodigest (PyGithub)",
            )
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

    def get(
        self, path: str, params: dict[str, Any] | None = None, validators: Validators | None = None
    ) -> Response:
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
                    "its proxy (HTTPS_PROXY) and REPODIGEST_GITHUB_API_URL, then try again"
                ) from None
            raise GithubUnavailable(
                f"GitHub at {self.base_url} kept failing ({exc.reason}) after "
                f"{self.max_attempts} attempts; it is probably degraded: try again later "
                "(https://www.githubstatus.com)"
            ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def pages(
        self,
        path: str,
        params: dict[str, Any] | None = None,
        validators: Validators | None = None,
        *,
        limit: int | None = None,
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
        log.warning(
            "GitHub request failed (%s); retry %d in %.1fs", reason, state.attempt_number, delay
        )

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
                b.reset_at,
            )
        log.warning(
            "GitHub rate limit nearly spent (%s left); waiting %.0fs for the reset",
            b.remaining,
            delay,
        )
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
                "GET", url, headers=headers
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise _Retryable(
                f"cannot reach {self.base_url}: {type(exc).__name__}",
                network=isinstance(exc, requests.ConnectionError),
            ) from None
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
        return Response(
            status,
            url,
            data,
            Validators(_header(resp_headers, "etag"), _header(resp_headers, "last-modified")),
            _next_link(resp_headers),
        )

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
                "POST",
                url,
                headers={"Accept": "application/json"},
                input={"query": query, "variables": variables},
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise _Retryable(
                f"cannot reach {url}: {type(exc).__name__}",
                network=isinstance(exc, requests.ConnectionError),
            ) from None
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
                    "repository, that the token has access to it"
                )
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
            b.reset_at = datetime.fromtimestamp(int(float(reset)), UTC)
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
        if status in (403, 429) and (
            status == 429 or spent or retry_after is not None or "rate limit" in lower
        ):
            # GitHub's order: Retry-After if given; else the primary reset when the budget is
            # spent; else a secondary limit: at least a minute, growing exponentially
            if retry_after is not None:
                raise _Retryable(
                    f"rate limited (HTTP {status}, Retry-After {retry_after:g}s)",
                    retry_after,
                    secondary=not spent,
                )
            if spent or lower.startswith("api rate limit exceeded"):
                # the next attempt waits for X-RateLimit-Reset in _respect_budget (or gives up
                # with RateLimitExhausted when that is too far away)
                known = self.budget.reset_at is not None and self.budget.remaining == 0
                raise _Retryable("primary rate limit exceeded", 0.0 if known else self.backoff_max)
            raise _Retryable(f"secondary rate limit (HTTP {status})", None, secondary=True)
        if status == 401:
            hint = (
                "GITHUB_TOKEN was rejected"
                if self.has_token
                else "GitHub requires a token for this request"
            )
            raise GithubAuthError(
                f"{hint} by {self.base_url} (401 {message or 'Bad credentials'}): create a token "
                "with read access to Pull requests, Issues and Metadata and set "
                "REPODIGEST_GITHUB_TOKEN (or GITHUB_TOKEN for the CLI)"
            )
        if status == 404:
            repo = _repo_of(url)
            if repo and re.match(
                r"^/repos/[^/]+/[^/]+(/(issues|pulls))?$",
                urlsplit(url).path.removeprefix(urlsplit(self.base_url).path),
            ):
                raise GithubNotFound(
                    f"repository {repo} not found or the token cannot see it: check the "
                    "spelling OWNER/NAME and, for a private repository, that the token has "
                    "access to it"
                )
            raise GithubNotFound(f"{url} not found (404): deleted or transferred on GitHub")
        if status == 403:
            raise GithubForbidden(
                f"GitHub refused {url} (403 {message}): the token lacks permission; grant it "
                "read access to Pull requests, Issues and Metadata for this repository"
            )
        raise GithubError(f"GitHub answered {status} for {url}: {message or 'no message'}")


def _repo_of(url: str) -> str | None:
    marker = "/repos/"
    if marker not in url:
        return None
    rest = url.split(marker, 1)[1].split("?", 1)[0].split("/")
    return "/".join(rest[:2]) if len(rest) >= 2 else None
