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
  limit 403 with Retry-After, 429), and an exhausted primary budget via `remaining`.

Usage: `with GithubEmulator(files) as gh: PyGithubSource(gh.token, gh.base_url, ...)`.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

GITHUB = "https://api.github.com"
SUBLISTING = re.compile(
    r"^/repos/([^/]+)/([^/]+)/(?:(?:issues|pulls)/\d+/(?:files|reviews|comments)|(?:issues|pulls)/comments)$")


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
        block = lines[i:i + 10]
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
    def __init__(self, files: Iterable[Path] = (), *, token: str = "emulator-token",
                 limit: int = 5000) -> None:
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

    def fail(self, status: int, *, times: int = 1, path_contains: str | None = None,
             retry_after: float | None = None, message: str | None = None,
             headers: dict[str, str] | None = None) -> None:
        headers = dict(headers or {})
        if retry_after is not None:
            headers["Retry-After"] = str(int(retry_after))
        default = {502: "Server Error", 429: "Too Many Requests",
                   403: "You have exceeded a secondary rate limit. Please wait a few minutes "
                        "before you try again."}.get(status, "error")
        with self._lock:
            self.faults.append(Fault(status, times, path_contains, headers, message or default))

    # ------------------------------------------------------------ observations

    def count(self, path_contains: str = "", status: int | None = None) -> int:
        return sum(1 for s in self.seen if path_contains in s.path
                   and (status is None or s.status == status))

    # ------------------------------------------------------------ server

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() the emulator first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "GithubEmulator":
        emulator = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - http.server naming
                status, headers, payload = emulator.answer("GET", self.path, dict(self.headers))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="github-emulator")
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "GithubEmulator":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ GitHub semantics

    def _rate_headers(self) -> dict[str, str]:
        return {"X-RateLimit-Limit": str(self.limit), "X-RateLimit-Remaining": str(self.remaining),
                "X-RateLimit-Reset": str(self.reset), "X-RateLimit-Used": str(self.limit - self.remaining),
                "X-RateLimit-Resource": "core"}

    def _json(self, status: int, body: Any, extra: dict[str, str] | None = None
              ) -> tuple[int, dict[str, str], bytes]:
        headers = {"Content-Type": "application/json; charset=utf-8", **self._rate_headers(),
                   **(extra or {})}
        return status, headers, json.dumps(body).encode()

    def answer(self, method: str, raw_path: str, headers: dict[str, str]
               ) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(raw_path)
        path, query = parts.path, dict(parse_qsl(parts.query))
        lower = {k.lower(): v for k, v in headers.items()}
        with self._lock:
            status, out_headers, payload = self._answer(path, query, lower)
            self.seen.append(Seen(method, path, query, status, "if-none-match" in lower))
        return status, out_headers, payload

    def _answer(self, path: str, query: dict[str, str], headers: dict[str, str]
                ) -> tuple[int, dict[str, str], bytes]:
        auth = headers.get("authorization", "")
        if auth not in (f"token {self.token}", f"Bearer {self.token}"):
            return self._json(401, {"message": "Bad credentials",
                                    "documentation_url": "https://docs.github.com/rest"})
        for fault in self.faults:
            if fault.times > 0 and (fault.path_contains is None or fault.path_contains in path):
                fault.times -= 1
                return self._json(fault.status, {"message": fault.message}, fault.headers)
        if self.remaining <= 0:
            return self._json(403, {"message": "API rate limit exceeded for user."})

        found = self._resolve(path, query)
        if found is None:
            return self._json(404, {"message": "Not Found",
                                    "documentation_url": "https://docs.github.com/rest"})
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

    def _listing(self, path: str, query: dict[str, str], body: list, page: int
                 ) -> tuple[list, str | None]:
        items = json.loads(json.dumps(body))
        since = query.get("since")
        if since:
            floor = _time(since)
            items = [i for i in items if _time(i.get("updated_at")) >= floor]
        sort = query.get("sort")
        if sort in ("updated", "created"):
            key = f"{sort}_at"
            items.sort(key=lambda i: (_time(i.get(key)), i.get("number") or 0),
                       reverse=query.get("direction", "desc") == "desc")
        per_page = int(query.get("per_page", "30"))
        pages = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page: page * per_page]
        links = []
        base = {k: v for k, v in query.items() if k != "page"}

        def url(n: int) -> str:
            return f"{GITHUB}{path}?{urlencode({**base, 'page': n})}"

        if page < pages:
            links += [f'<{url(page + 1)}>; rel="next"', f'<{url(pages)}>; rel="last"']
        if page > 1:
            links += [f'<{url(1)}>; rel="first"', f'<{url(page - 1)}>; rel="prev"']
        return chunk, ", ".join(links) or None


def _time(value: Any) -> datetime:
    if not value:
        return datetime.min
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).replace(tzinfo=None)
