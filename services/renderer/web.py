"""`repodigest serve web`: the report archive, read-only over HTTP (Starlette on uvicorn).

It serves what the archive publishes from the object store the renderer writes (its pages and
each revision's artifacts, `domain/archive.is_public_key`) and nothing else: any other key
(index.json, index entries with the store's URIs, report-ready.json, the narrator's cache), a
path that is not a clean relative key (`..`, `%2e%2e`, backslashes, NUL) and a folder without
its page answer 404, never a listing. GET and HEAD only (405 otherwise). Caching: a revision's
artifacts never change once announced (`Cache-Control: public, max-age=31536000, immutable`);
pages change with every report (`no-cache`: revalidated with their ETag, 304 when unchanged).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import mimetypes
import signal
from typing import TYPE_CHECKING, Any

from pydantic import Field

from services.renderer.config import RendererSettings
from services.renderer.domain.archive import is_artifact_key, is_page_key, is_public_key
from services.renderer.domain.keys import UnsafeKey, check_key
from services.renderer.ports import ObjectNotFound, ObjectStore

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

log = logging.getLogger("repodigest.web")

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
METHODS = ("GET", "HEAD")
# the pages and the reports carry no script and load nothing from elsewhere (inline CSS and SVG)
PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".json": "application/json",
    ".pdf": "application/pdf",
}


class WebSettings(RendererSettings):
    """`REPODIGEST_*` for `repodigest serve web` (the renderer's artifact store settings too)."""

    web_host: str = Field(
        "127.0.0.1", description="interface the archive is served on (0.0.0.0 in a container)"
    )
    web_port: int = Field(
        8088, ge=0, le=65535, description="port of the archive (0: one the system picks, logged)"
    )


def key_of(path: str) -> str | None:
    """The object key a request path names (a folder: its page), or None when the path is not a
    clean key inside the archive."""
    if "\\" in path or "\x00" in path or not path.startswith("/"):
        return None
    key = path[1:]
    if key == "" or key.endswith("/"):
        key += "index.html"
    try:
        check_key(key)
    except UnsafeKey:
        return None
    return key


def _etag(data: bytes) -> str:
    return '"' + hashlib.sha256(data).hexdigest()[:40] + '"'


def _matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" in tags or etag in tags or f"W/{etag}" in tags


def build_app(store: ObjectStore) -> Starlette:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route

    def refused(status: int, text: str, **headers: str) -> Response:
        return PlainTextResponse(
            text + "\n",
            status,
            headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", **headers},
        )

    async def serve(request: Request) -> Response:
        if request.method not in METHODS:
            return refused(
                405, "method not allowed: the archive is read-only", Allow=", ".join(METHODS)
            )
        path = request.url.path
        key = key_of(path)
        if key is None or not is_public_key(key):
            # a folder named without its slash: to its page, as static hosts do
            folder = key_of(path + "/") if not path.endswith("/") else None
            if folder is not None and is_page_key(folder):
                try:
                    await store.get(folder)
                except Exception:  # noqa: BLE001 - absent or unreadable: nothing to point at
                    return refused(404, "not found")
                return RedirectResponse(path.rsplit("/", 1)[-1] + "/", 301)
            return refused(404, "not found")
        try:
            data = await store.get(key)
        except ObjectNotFound:
            return refused(404, "not found")
        except Exception as exc:  # noqa: BLE001 - the store's outage, whatever its client raises
            # the type only: a client's message can name the store's address or credentials
            log.warning("the archive's store did not answer for %s (%s)", key, type(exc).__name__)
            return refused(
                503, "the archive's store is unavailable; try again shortly", **{"Retry-After": "5"}
            )
        etag = _etag(data)
        ext = "." + key.rsplit(".", 1)[-1]
        headers = {
            "ETag": etag,
            "Cache-Control": IMMUTABLE if is_artifact_key(key) else REVALIDATE,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        }
        media = TYPES.get(ext) or mimetypes.guess_type(key)[0] or "application/octet-stream"
        if ext == ".html":
            headers["Content-Security-Policy"] = PAGE_POLICY
        if _matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers=headers)
        headers["Content-Length"] = str(len(data))
        headers["Content-Type"] = media
        return Response(b"" if request.method == "HEAD" else data, 200, headers=headers)

    # every method reaches the handler, which answers 405 itself (with Allow) for the others
    every = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]
    return Starlette(routes=[Route("/{path:path}", serve, methods=every)])


async def open_archive(settings: RendererSettings) -> tuple[ObjectStore, Any]:
    """The store the renderer writes, and the NATS connection it needs (None for S3 or a
    directory): the caller closes it."""
    from services.renderer.adapters.stores import open_store

    url = (settings.artifacts_url or "nats").strip()
    nc = None
    if url.split(":", 1)[0] == "nats":
        from shared.natsclient import connect

        nc = await connect(settings, "repodigest-web", reconnects=-1)
    from services.renderer.app import s3_options

    return open_store(url, nc.jetstream() if nc is not None else None, s3=s3_options(settings)), nc


async def serve_web(settings: WebSettings) -> None:
    """Serve the archive until cancelled (SIGINT/SIGTERM: uvicorn's own handling)."""
    import uvicorn

    from shared.http import listening_socket

    store, nc = await open_archive(settings)
    try:
        try:
            sock = listening_socket(settings.web_host, settings.web_port)
        except OSError as exc:  # the port taken, the address unknown
            raise ListenError(
                f"cannot listen on {settings.web_host}:{settings.web_port}: "
                f"{exc.strerror or exc}; set REPODIGEST_WEB_PORT / "
                "REPODIGEST_WEB_HOST"
            ) from None
        host, port = sock.getsockname()[:2]
        server = uvicorn.Server(
            uvicorn.Config(
                build_app(store),
                log_level="warning",
                access_log=False,
                server_header=False,
                lifespan="off",
            )
        )
        log.info("archive served read-only on http://%s:%d", host, port)
        # uvicorn stops gracefully on SIGINT/SIGTERM, then raises the signal again to the
        # handler it found: a no-op one, so a requested stop exits 0 (as `serve` does)
        quiet = {
            sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)
        }
        try:
            await server.serve(sockets=[sock])
        finally:
            for sig, handler in quiet.items():
                signal.signal(sig, handler)
        log.info("archive no longer served")
    finally:
        if nc is not None:
            with contextlib.suppress(Exception):  # NATS may be gone already: nothing to flush
                await nc.close()


class ListenError(Exception):
    """The archive cannot be served on the address its settings name."""
