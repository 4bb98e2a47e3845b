"""A GitHub REST emulator for tests: serves REAL recorded responses (PyGithub replay files in
`../shared/data/github-rest-replay`) over HTTP on a free port, with GitHub's semantics around them.

- Routes: every recorded `GET` exchange answered 200, keyed by (path, page); other query
  parameters are interpreted, not matched: `since` filters by `updated_at`, `sort`/`direction`
  order lists, `per_page` splits a single recorded page into pages with `Link` headers.
- Objects inside recorded lists (e.g. the pull requests of a `/pulls` listing) are also served at
  their own `url` path when that path was not recorded itself. Sub-listings of a known
  repository's items that were never recorded (`.../pulls/N/reviews`, `.../issues/N/comments`,
  `.../pulls/N/files`) and its unrecorded comment listings (`.../issues/comments`,
  `.../pulls/comments`) answer an empty page, as GitHub does where there is nothing.
- `https://api.github.com` in bodies and `Link` headers is rewritten to the emulator's base URL.
- ETags are computed from the served body (GitHub's are content hashes too); `If-None-Match`
  with the current ETag answers 304, which costs no quota. Every other answer costs one request
  of a 5000/hour budget, reported in `X-RateLimit-*` headers.
- `Authorization: token <token>` must match, or the answer is 401 Bad credentials.
- Faults per test: `fail(status, times=..., retry_after=..., message=...)` (502, secondary rate
  limit 403 with Retry-After, 429), `hold(seconds, times=...)` (the answer is held longer than
  the client's timeout: a timeout), and an exhausted primary budget via `remaining`.
- GraphQL: `POST /graphql` answers the backfill query (`repository.pullRequests` ordered by
  UPDATED_AT DESC with labels, files, comments, reviews, reactions; `rateLimit`). It is an
  emulator: the answers are SYNTHESIZED from the recorded REST objects it serves (pull request
  details, `/pulls/N/files`, `/pulls/N/reviews`, `/issues/N/comments`), not recorded GraphQL, and
  every node carries the whole field set whatever the query selects. Each query costs points on
  a separate 5000-point budget, computed as GitHub documents it: (1 + first x nested
  connections) / 100, at least 1 (`graphql_points`, `graphql_remaining`).
- `synthesize_pulls(repo, n)`: `n` renumbered copies of the recorded pull requests (with their
  files) under another repository name, for benchmarks.

Usage: `with GithubEmulator(files) as gh: PyGithubSource(gh.token, gh.base_url, ...)`.
"""

from __future__ import annotations

import ast
import base64
import copy
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

GITHUB = "https://api.github.com"
SUBLISTING = re.compile(
    r"^/repos/([^/]+)/([^/]+)/(?:(?:issues|pulls)/\d+/(?:files|reviews|comments)|(?:issues|pulls)/comments)$"
)


@dataclass
class Exchange:
    path: str
    query: dict[str, str]
    status: int
    headers: dict[str, str]
    body: Any


def read_replay(path: Path) -> list[Exchange]:
    """The exchanges of one PyGithub replay file (10 lines each, then an empty line)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for i in range(0, len(lines) - 9, 11):
        block = lines[i : i + 10]
        if block[1] != "GET":
            continue
        parts = urlsplit(block[4])
        headers = {k.lower(): v for k, v in ast.literal_eval(block[8])}
        body = json.loads(block[9]) if block[9].strip() else None
        out.append(Exchange(parts.path, dict(parse_qsl(parts.query)), int(block[7]), headers, body))
    return out


@dataclass
class Fault:
    status: int
    times: int
    path_contains: str | None
    headers: dict[str, str]
    message: str
    hold: float = 0.0  # > 0: answer nothing for this long (longer than the client's timeout)


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    status: int
    conditional: bool


@dataclass
class _Route:
    body: Any
    link: str | None = None
    paged: bool = False  # recorded with a page parameter: serve pages as recorded


class GithubEmulator:
    def __init__(
        self, files: Iterable[Path] = (), *, token: str = "emulator-token", limit: int = 5000
    ) -> None:
        self.token = token
        self.limit = limit
        self.remaining = limit
        self.reset = int(time.time()) + 3600
        self.routes: dict[tuple[str, int], _Route] = {}
        self.objects: dict[str, Any] = {}
        self.repos: set[str] = set()
        self.seen: list[Seen] = []
        self.faults: list[Fault] = []
        self.quota_used = 0
        self.graphql_limit = 5000
        self.graphql_remaining = self.graphql_limit
        self.graphql_points = 0
        # what clients wrote: (repo, "issue" | "discussion", number, body), in order
        self.comments: list[tuple[str, str, int, str]] = []
        self.discussions: dict[tuple[str, int], str] = {}  # (repo, number) -> node id
        self._released = threading.Event()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        for f in files:
            self.load(f)

    # ------------------------------------------------------------ data

    def load(self, path: Path) -> None:
        for ex in read_replay(path):
            if ex.status != 200 or ex.body is None:
                continue
            page = int(ex.query.get("page", "1"))
            key = (ex.path, page)
            if key not in self.routes:
                self.routes[key] = _Route(ex.body, ex.headers.get("link"), paged="page" in ex.query)
            m = re.match(r"^/repos/([^/]+)/([^/]+)", ex.path)
            if m:
                self.repos.add(f"{m.group(1)}/{m.group(2)}")
            for obj in ex.body if isinstance(ex.body, list) else ():
                if isinstance(obj, dict) and isinstance(obj.get("url"), str):
                    self.objects.setdefault(urlsplit(obj["url"]).path, obj)

    def add(self, path: str, body: Any) -> None:
        """Serve `body` at `path` (page 1): compose a scenario out of recorded objects."""
        self.routes[(path, 1)] = _Route(body)
        for obj in body if isinstance(body, list) else ():
            if isinstance(obj, dict) and isinstance(obj.get("url"), str):
                self.objects.setdefault(urlsplit(obj["url"]).path, obj)
        m = re.match(r"^/repos/([^/]+)/([^/]+)", path)
        if m:
            self.repos.add(f"{m.group(1)}/{m.group(2)}")

    def body(self, path: str, page: int = 1) -> Any:
        return self.routes[(path, page)].body

    def mutate(self, path: str, change: Callable[[Any], None], page: int = 1) -> None:
        """Change what GitHub would answer at `path` from now on (thread-safe)."""
        with self._lock:
            change(self.routes[(path, page)].body)

    def fail(
        self,
        status: int,
        *,
        times: int = 1,
        path_contains: str | None = None,
        retry_after: float | None = None,
        message: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        headers = dict(headers or {})
        if retry_after is not None:
            headers["Retry-After"] = str(int(retry_after))
        default = {
            502: "Server Error",
            429: "Too Many Requests",
            403: "You have exceeded a secondary rate limit. Please wait a few minutes "
            "before you try again.",
        }.get(status, "error")
        with self._lock:
            self.faults.append(Fault(status, times, path_contains, headers, message or default))

    def hold(self, seconds: float, *, times: int = 1, path_contains: str | None = None) -> None:
        """The next `times` matching requests get no answer for `seconds` (make it longer than
        the client's timeout); they are recorded in `seen` with status 0."""
        with self._lock:
            self.faults.append(Fault(0, times, path_contains, {}, "held", hold=seconds))

    def synthesize_pulls(
        self,
        repo: str,
        n: int,
        *,
        template_repo: str = "PyGithub/PyGithub",
        start: datetime = datetime(2025, 1, 1, tzinfo=UTC),
    ) -> None:
        """Serve `n` pull requests under `repo`: renumbered copies (1..n) of `template_repo`'s
        recorded pull requests with their recorded files, updated a minute apart, plus empty
        issue and comment listings. Load the recorded files first."""
        templates = []
        for number in sorted(self._pull_numbers(template_repo)):
            found = self._resolve(f"/repos/{template_repo}/pulls/{number}", {})
            if found is None or not isinstance(found[0], dict):
                continue
            files = self._resolve(
                f"/repos/{template_repo}/pulls/{number}/files", {"per_page": "100"}
            )
            templates.append((found[0], files[0] if files else []))
        if not templates:
            raise ValueError(f"no recorded pull requests of {template_repo} to copy")
        api, web = f"{GITHUB}/repos/{repo}", f"https://github.com/{repo}"
        listing = []
        for i in range(1, n + 1):
            pr, files = templates[(i - 1) % len(templates)]
            pr = copy.deepcopy(pr)
            created = start + timedelta(minutes=i)
            pr.update(
                number=i,
                url=f"{api}/pulls/{i}",
                html_url=f"{web}/pull/{i}",
                issue_url=f"{api}/issues/{i}",
                created_at=_iso(created),
                updated_at=_iso(created + timedelta(hours=1)),
            )
            if pr.get("closed_at"):
                pr["closed_at"] = _iso(created + timedelta(minutes=30))
            if pr.get("merged_at"):
                pr["merged_at"] = _iso(created + timedelta(minutes=30))
            listing.append(pr)
            self.routes[(f"/repos/{repo}/pulls/{i}", 1)] = _Route(pr)
            self.routes[(f"/repos/{repo}/pulls/{i}/files", 1)] = _Route(copy.deepcopy(files))
        self.routes[(f"/repos/{repo}/pulls", 1)] = _Route(listing)
        self.routes[(f"/repos/{repo}/issues", 1)] = _Route([])
        self.repos.add(repo)

    # ------------------------------------------------------------ observations

    def count(self, path_contains: str = "", status: int | None = None) -> int:
        return sum(
            1
            for s in self.seen
            if path_contains in s.path and (status is None or s.status == status)
        )

    # ------------------------------------------------------------ server

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() the emulator first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> GithubEmulator:
        emulator = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                status, headers, payload = emulator.answer("GET", self.path, dict(self.headers))
                self._send(status, headers, payload)

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(size) if size else b""
                status, headers, payload = emulator.answer(
                    "POST", self.path, dict(self.headers), body
                )
                self._send(status, headers, payload)

            def _send(self, status: int, headers: dict[str, str], payload: bytes) -> None:
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a held answer)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="github-emulator"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()  # held answers end now
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> GithubEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ GitHub semantics

    def _rate_headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
            "X-RateLimit-Used": str(self.limit - self.remaining),
            "X-RateLimit-Resource": "core",
        }

    def _json(
        self, status: int, body: Any, extra: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            **self._rate_headers(),
            **(extra or {}),
        }
        return status, headers, json.dumps(body).encode()

    def answer(
        self, method: str, raw_path: str, headers: dict[str, str], body: bytes = b""
    ) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(raw_path)
        path, query = parts.path, dict(parse_qsl(parts.query))
        lower = {k.lower(): v for k, v in headers.items()}
        with self._lock:
            held = self._held(path, lower)
            if held:
                self.seen.append(Seen(method, path, query, 0, "if-none-match" in lower))
            else:
                status, out_headers, payload = (
                    self._graphql(body, lower)
                    if method == "POST" and path == "/graphql"
                    else self._answer(path, query, lower)
                    if method == "GET"
                    else self._create_comment(path, lower, body)
                    if method == "POST"
                    else self._json(404, {"message": "Not Found"})
                )
                self.seen.append(Seen(method, path, query, status, "if-none-match" in lower))
        if held:
            self._released.wait(held)
            return self._json(504, {"message": "held past the client's timeout"})
        return status, out_headers, payload

    def _authorized(self, headers: dict[str, str]) -> bool:
        return headers.get("authorization", "") in (f"token {self.token}", f"Bearer {self.token}")

    def _held(self, path: str, headers: dict[str, str]) -> float:
        if not self._authorized(headers):
            return 0.0
        for fault in self.faults:
            if (
                fault.hold
                and fault.times > 0
                and (fault.path_contains is None or fault.path_contains in path)
            ):
                fault.times -= 1
                return fault.hold
        return 0.0

    def _fault(self, path: str) -> tuple[int, dict[str, str], bytes] | None:
        for fault in self.faults:
            if (
                not fault.hold
                and fault.times > 0
                and (fault.path_contains is None or fault.path_contains in path)
            ):
                fault.times -= 1
                return self._json(fault.status, {"message": fault.message}, fault.headers)
        return None

    def _answer(
        self, path: str, query: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        if not self._authorized(headers):
            return self._json(
                401,
                {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"},
            )
        failed = self._fault(path)
        if failed is not None:
            return failed
        if self.remaining <= 0:
            return self._json(403, {"message": "API rate limit exceeded for user."})

        found = self._resolve(path, query)
        if found is None:
            return self._json(
                404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
            )
        body, link = found
        text = json.dumps(body, separators=(",", ":")).replace(GITHUB, self.base_url)
        etag = 'W/"' + hashlib.sha256(text.encode()).hexdigest() + '"'
        extra = {"ETag": etag}
        if link:
            extra["Link"] = link.replace(GITHUB, self.base_url)
        if headers.get("if-none-match") == etag:
            return 304, {**self._rate_headers(), **extra}, b""
        self.remaining -= 1
        self.quota_used += 1
        status, out, _ = self._json(200, None, extra)
        return status, out, text.encode()

    def _resolve(self, path: str, query: dict[str, str]) -> tuple[Any, str | None] | None:
        page = int(query.get("page", "1"))
        route = self.routes.get((path, page))
        if route is not None and (route.paged or page == 1):
            body = route.body
            if isinstance(body, list) and not route.paged:
                return self._listing(path, query, body, page)
            return json.loads(json.dumps(body)), route.link
        route1 = self.routes.get((path, 1))
        if route1 is not None and isinstance(route1.body, list) and not route1.paged:
            return self._listing(path, query, route1.body, page)
        if path in self.objects:
            return json.loads(json.dumps(self.objects[path])), None
        m = SUBLISTING.match(path)
        if m and f"{m.group(1)}/{m.group(2)}" in self.repos:
            return [], None
        return None

    def _listing(
        self, path: str, query: dict[str, str], body: list, page: int
    ) -> tuple[list, str | None]:
        items = json.loads(json.dumps(body))
        since = query.get("since")
        if since:
            floor = _time(since)
            items = [i for i in items if _time(i.get("updated_at")) >= floor]
        sort = query.get("sort")
        if sort in ("updated", "created"):
            key = f"{sort}_at"
            items.sort(
                key=lambda i: (_time(i.get(key)), i.get("number") or 0),
                reverse=query.get("direction", "desc") == "desc",
            )
        per_page = int(query.get("per_page", "30"))
        pages = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        base = {k: v for k, v in query.items() if k != "page"}

        def url(n: int) -> str:
            return f"{GITHUB}{path}?{urlencode({**base, 'page': n})}"

        if page < pages:
            links += [f'<{url(page + 1)}>; rel="next"', f'<{url(pages)}>; rel="last"']
        if page > 1:
            links += [f'<{url(1)}>; rel="first"', f'<{url(page - 1)}>; rel="prev"']
        return chunk, ", ".join(links) or None

    # ------------------------------------------------------------ GraphQL (synthesized)

    def _pull_numbers(self, repo: str) -> set[int]:
        pattern = re.compile(rf"^/repos/{re.escape(repo)}/pulls/(\d+)$")
        numbers = {int(m.group(1)) for m in (pattern.match(p) for p in self.objects) if m}
        numbers |= {int(m.group(1)) for m in (pattern.match(p) for p, _ in self.routes) if m}
        listing = self.routes.get((f"/repos/{repo}/pulls", 1))
        for obj in listing.body if listing and isinstance(listing.body, list) else ():
            if isinstance(obj, dict) and obj.get("number") is not None:
                numbers.add(int(obj["number"]))
        return numbers

    def _graphql_headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.graphql_limit),
            "X-RateLimit-Remaining": str(self.graphql_remaining),
            "X-RateLimit-Reset": str(self.reset),
            "X-RateLimit-Used": str(self.graphql_limit - self.graphql_remaining),
            "X-RateLimit-Resource": "graphql",
        }

    def _graphql(self, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        def reply(status: int, payload: Any) -> tuple[int, dict[str, str], bytes]:
            return (
                status,
                {"Content-Type": "application/json; charset=utf-8", **self._graphql_headers()},
                json.dumps(payload).encode(),
            )

        if not self._authorized(headers):
            return reply(
                401,
                {
                    "message": "This endpoint requires you to be authenticated.",
                    "documentation_url": "https://docs.github.com/graphql",
                },
            )
        failed = self._fault("/graphql")
        if failed is not None:
            return failed
        try:
            request = json.loads(body)
            query, variables = request["query"], request.get("variables") or {}
        except (ValueError, KeyError, TypeError):
            return reply(400, {"message": "Problems parsing JSON"})
        if "addDiscussionComment" in query or "discussion(number" in query:
            return reply(200, self._discussion(query, variables))
        if "pullRequests" not in query:
            return reply(
                200,
                {
                    "errors": [
                        {
                            "message": "the emulator answers only the backfill "
                            "query (repository.pullRequests)"
                        }
                    ]
                },
            )
        first = int(variables.get("first") or 0)
        if not 1 <= first <= 100:
            return reply(
                200,
                {
                    "errors": [
                        {
                            "type": "MAX_NODE_LIMIT_EXCEEDED",
                            "message": "first must be between 1 and 100",
                        }
                    ]
                },
            )
        nested = len(re.findall(r"\b(?:labels|files|comments|reviews)\s*\(", query))
        cost = max(1, round((1 + first * nested) / 100))
        if self.graphql_remaining < cost:
            return reply(
                200, {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}
            )
        self.graphql_remaining -= cost
        self.graphql_points += cost
        rate = {
            "cost": cost,
            "remaining": self.graphql_remaining,
            "resetAt": datetime.fromtimestamp(self.reset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        repo = f"{variables.get('owner')}/{variables.get('name')}"
        if repo not in self.repos:
            return reply(
                200,
                {
                    "data": {"rateLimit": rate, "repository": None},
                    "errors": [
                        {
                            "type": "NOT_FOUND",
                            "path": ["repository"],
                            "message": f"Could not resolve to a Repository with the name '{repo}'.",
                        }
                    ],
                },
            )
        pulls = []
        for number in self._pull_numbers(repo):
            found = self._resolve(f"/repos/{repo}/pulls/{number}", {})
            if found is not None and isinstance(found[0], dict):
                pulls.append(found[0])
        pulls.sort(key=lambda p: (_time(p.get("updated_at")), p.get("number") or 0), reverse=True)
        offset = 0
        if variables.get("after"):
            offset = int(base64.b64decode(variables["after"]).decode().split(":", 1)[1])
        chunk = pulls[offset : offset + first]
        end = offset + len(chunk)
        files_first = int(variables.get("files") or 100)
        data = {
            "rateLimit": rate,
            "repository": {
                "pullRequests": {
                    "nodes": [self._pull_node(repo, p, files_first) for p in chunk],
                    "pageInfo": {
                        "hasNextPage": end < len(pulls),
                        "endCursor": base64.b64encode(f"cursor:{end}".encode()).decode()
                        if chunk
                        else None,
                    },
                }
            },
        }
        return reply(200, {"data": data})

    def add_discussion(self, repo: str, number: int) -> None:
        """A Discussion that comments can be added to (GraphQL addDiscussionComment)."""
        self.repos.add(repo)
        self.discussions[(repo, number)] = base64.b64encode(f"D_{repo}#{number}".encode()).decode()

    def _create_comment(
        self, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """`POST /repos/{owner}/{repo}/issues/{number}/comments` on a known repository (201)."""
        if not self._authorized(headers):
            return self._json(401, {"message": "Bad credentials"})
        failed = self._fault(path)
        if failed is not None:
            return failed
        m = re.match(r"^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$", path)
        if not m or f"{m.group(1)}/{m.group(2)}" not in self.repos:
            return self._json(
                404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
            )
        try:
            text = json.loads(body)["body"]
        except (ValueError, KeyError, TypeError):
            return self._json(422, {"message": 'Invalid request.\n\n"body" wasn\'t supplied.'})
        repo, number = f"{m.group(1)}/{m.group(2)}", int(m.group(3))
        self.comments.append((repo, "issue", number, text))
        cid = len(self.comments)
        self.remaining -= 1
        comment = {
            "id": cid,
            "node_id": f"IC_{cid}",
            "body": text,
            "url": f"{self.base_url}/repos/{repo}/issues/comments/{cid}",
            "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{cid}",
            "issue_url": f"{self.base_url}/repos/{repo}/issues/{number}",
            "created_at": _iso(datetime.now(UTC)),
            "updated_at": _iso(datetime.now(UTC)),
        }
        # listed from now on at GET .../issues/N/comments, as GitHub lists it
        self.routes.setdefault((path, 1), _Route([])).body.append(comment)
        return self._json(201, comment)

    def _discussion(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The discussion query (`repository.discussion(number:)`) and `addDiscussionComment`."""
        if "addDiscussionComment" in query:
            data = variables.get("input") or {}
            found = [k for k, v in self.discussions.items() if v == data.get("discussionId")]
            if not found or not data.get("body"):
                return {
                    "data": {"addDiscussionComment": None},
                    "errors": [
                        {
                            "type": "NOT_FOUND",
                            "path": ["addDiscussionComment"],
                            "message": "Could not resolve to a node with the global id.",
                        }
                    ],
                }
            repo, number = found[0]
            self.comments.append((repo, "discussion", number, data["body"]))
            return {
                "data": {"addDiscussionComment": {"comment": {"id": f"DC_{len(self.comments)}"}}}
            }
        repo = f"{variables.get('owner')}/{variables.get('repo')}"
        node = self.discussions.get((repo, int(variables.get("number") or 0)))
        if node is None:
            return {
                "data": {"repository": {"discussion": None}},
                "errors": [
                    {
                        "type": "NOT_FOUND",
                        "path": ["repository", "discussion"],
                        "message": f"Could not resolve to a Discussion with the number of "
                        f"{variables.get('number')}.",
                    }
                ],
            }
        return {"data": {"repository": {"discussion": {"id": node, "number": variables["number"]}}}}

    def _sub(self, path: str) -> list:
        found = self._resolve(path, {"per_page": "100"})
        return found[0] if found is not None and isinstance(found[0], list) else []

    def _pull_node(self, repo: str, pr: dict, files_first: int) -> dict:
        """A GraphQL PullRequest built from the REST pull request and its sub-listings."""
        number = pr["number"]
        base = f"/repos/{repo}"

        def actor(user: Any) -> dict | None:
            if not isinstance(user, dict) or not user.get("login"):
                return None
            bot = user.get("type") == "Bot"
            login = str(user["login"])
            return {
                "login": login.removesuffix("[bot]") if bot else login,
                "__typename": "Bot" if bot else "User",
            }

        files = self._sub(f"{base}/pulls/{number}/files")
        reviews = self._sub(f"{base}/pulls/{number}/reviews")
        comments = self._sub(f"{base}/issues/{number}/comments")
        merged = bool(pr.get("merged_at") or pr.get("merged"))
        state = "MERGED" if merged else "CLOSED" if pr.get("state") == "closed" else "OPEN"
        status = {
            "added": "ADDED",
            "removed": "DELETED",
            "modified": "MODIFIED",
            "renamed": "RENAMED",
            "copied": "COPIED",
            "changed": "CHANGED",
        }
        return {
            "number": number,
            "title": pr.get("title"),
            "body": pr.get("body"),
            "url": pr.get("html_url"),
            "author": actor(pr.get("user")),
            "authorAssociation": pr.get("author_association") or "NONE",
            "createdAt": pr.get("created_at"),
            "updatedAt": pr.get("updated_at"),
            "closedAt": pr.get("closed_at"),
            "mergedAt": pr.get("merged_at") or (pr.get("closed_at") if merged else None),
            "mergedBy": actor(pr.get("merged_by")),
            "isDraft": bool(pr.get("draft")),
            "state": state,
            "labels": {
                "nodes": [
                    {"name": lb["name"]} for lb in pr.get("labels") or () if isinstance(lb, dict)
                ][:20]
            },
            "additions": pr.get("additions"),
            "deletions": pr.get("deletions"),
            "changedFiles": pr.get("changed_files", len(files)),
            "baseRefName": (pr.get("base") or {}).get("ref"),
            "headRefName": (pr.get("head") or {}).get("ref"),
            "files": {
                "totalCount": len(files),
                "nodes": [
                    {
                        "path": f["filename"],
                        "additions": f.get("additions", 0),
                        "deletions": f.get("deletions", 0),
                        "changeType": status.get(f.get("status"), "MODIFIED"),
                    }
                    for f in files[:files_first]
                ],
            },
            "comments": {
                "totalCount": max(len(comments), int(pr.get("comments") or 0)),
                "nodes": [
                    {
                        "databaseId": c["id"],
                        "body": c.get("body"),
                        "createdAt": c.get("created_at"),
                        "author": actor(c.get("user")),
                        "authorAssociation": c.get("author_association") or "NONE",
                    }
                    for c in comments[:50]
                ],
            },
            "reviews": {
                "totalCount": len(reviews),
                "nodes": [
                    {
                        "databaseId": r["id"],
                        "state": r.get("state"),
                        "submittedAt": r.get("submitted_at"),
                        "author": actor(r.get("user")),
                        "authorAssociation": r.get("author_association") or "NONE",
                    }
                    for r in reviews[:50]
                ],
            },
            "reactions": {"totalCount": int((pr.get("reactions") or {}).get("total_count") or 0)},
        }


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _time(value: Any) -> datetime:
    if not value:
        return datetime.min
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).replace(tzinfo=None)
