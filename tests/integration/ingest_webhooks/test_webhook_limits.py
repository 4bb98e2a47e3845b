"""What unauthenticated clients can make the served webhook endpoint hold (uvicorn over real
sockets): headers that trickle in and bodies that never finish are cut off after their timeouts,
bodies beyond the concurrent limit and connections beyond the cap are refused at once, a client
that disconnects mid-body leaves one short line and no traceback, and repeated errors are
rate-limited in the log. After each abuse a good delivery is still accepted.

No sleeps: each test waits on the socket (EOF, an answer) or on the server's own state, which
tells the test when it changes (the app's counters, uvicorn's connections and tasks)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

import httpx
import pytest

from services.ingest.adapters.webhooks import (
    QUIET,
    WebhookLimits,
    WebhookServer,
    build_webhook_app,
)
from tests.conftest import require_shared_data
from tests.signals import ObservedSet, Signal
from tests.webhook_signing import github_signature

pytestmark = pytest.mark.shared_data

SECRET = "limits-of-the-webhook-endpoint"
PATH = "/webhooks/github"


def good_body() -> bytes:
    return require_shared_data("github-webhooks", "issues", "opened.payload.json").read_bytes()


def signed(body: bytes) -> dict:
    return {
        "X-GitHub-Event": "issues",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": github_signature(SECRET.encode(), body),
        "Content-Type": "application/json",
    }


def head(body_length: int) -> bytes:
    lines = [
        f"POST {PATH} HTTP/1.1",
        "Host: hook",
        f"Content-Length: {body_length}",
        *(f"{k}: {v}" for k, v in signed(b"x" * body_length).items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@contextlib.asynccontextmanager
async def served(**limits):
    published: list = []

    async def publish(repo, facts):
        published.extend(facts)

    cfg = WebhookLimits(**limits)
    app = build_webhook_app(SECRET, publish, limits=cfg)
    server = WebhookServer(app, "127.0.0.1", 0, limits=cfg)
    await server.start()
    # one signal for every change a test waits on: a counter, a connection, a request's task
    changed = Signal()
    app.state.stats.observers.append(changed.notify)
    st = state(server)
    st.connections = ObservedSet(st.connections, changed=changed)
    st.tasks = ObservedSet(st.tasks, changed=changed)
    server.changed = changed  # type: ignore[attr-defined]
    try:
        yield server, app, published
    finally:
        await server.stop()


def state(server: WebhookServer):
    return server._server.server.server_state  # uvicorn's connections and tasks


async def until(server: WebhookServer, check, what: str, timeout: float = 10) -> None:
    """Until `check()` holds, checked at each change of the server's counters, connections and
    request tasks."""
    await server.changed.until(check, timeout, what)  # type: ignore[attr-defined]


async def still_accepts(server: WebhookServer, published: list) -> None:
    body = good_body()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=10) as c:
        r = await c.post(PATH, content=body, headers=signed(body))
    assert r.status_code == 202, r.text
    assert published


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """Everything the server sends until it closes the connection; fails if it is still open
    after `seconds`."""
    data = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        left = deadline - loop.time()
        if left <= 0:
            raise AssertionError(f"the connection was still open after {seconds:.0f} s")
        try:
            chunk = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


@pytest.mark.parametrize("client", ["silent", "trickling"])
async def test_headers_that_do_not_arrive_in_time_are_cut_off(client, caplog, monkeypatch):
    timeout = 1.0
    monkeypatch.setattr(QUIET, "_seen", {})  # earlier tests' refusals must not mute its log line
    caplog.set_level(logging.INFO, logger="repodigest.ingest.webhooks")
    async with served(header_timeout=timeout) as (server, _app, published):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        answer = b""
        if client == "trickling":
            # a byte of a long header every 50 ms (20 s in all): never a complete request
            message = head(10)[:-4] + b"\r\nX-Padding: " + b"a" * 400
            for byte in message:
                writer.write(bytes([byte]))
                try:
                    chunk = await asyncio.wait_for(reader.read(65536), 0.05)
                except TimeoutError:
                    continue  # still open: the next byte
                answer = chunk + await closed_within(reader, 5)
                break
            else:
                raise AssertionError(
                    "the server kept reading trickled headers for 20 s without closing"
                )
        else:
            answer = await closed_within(reader, timeout + 10)
        writer.close()
        # cut off by the header deadline (its own answer and log line, naming the configured
        # timeout), not by uvicorn's keep-alive timer or an error, which close without this 408
        assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
        assert answer.endswith(b"\r\n\r\nrequest headers not received in time\r\n"), answer
        assert [
            r.getMessage() for r in caplog.records if "headers not received" in r.getMessage()
        ] == ["webhook request headers not received within 1 s: connection closed"]
        await still_accepts(server, published)


async def test_a_body_that_does_not_arrive_in_time_gets_408():
    async with served(body_timeout=1.0) as (server, app, published):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(head(1000) + b'{"action": ')  # and nothing more
        answer = await closed_within(reader, 10)
        writer.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b"did not arrive within 1 s" in answer
        assert app.state.stats["slow"] == 1 and app.state.stats["reading"] == 0
        await still_accepts(server, published)


async def test_an_answered_request_cannot_hold_its_connection_by_trickling_its_body():
    """413 is answered from Content-Length before the body is read; the client keeps sending
    the body a byte every 50 ms: the rest is discarded for header_timeout at most, then closed."""
    async with served(max_body=50_000, header_timeout=1.0) as (server, _app, published):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(head(100_000))
        answer = b""
        for _ in range(400):  # 20 s of trickling at most
            writer.write(b"x")
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 0.05)
            except TimeoutError:
                continue
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
        else:
            raise AssertionError("the connection was held open by a trickled body for 20 s")
        writer.close()
        # the server closed it while the client was still sending (the loop broke on the close)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:100]
        await still_accepts(server, published)


async def test_bodies_beyond_the_concurrent_limit_get_503_at_once():
    async with served(max_bodies=2) as (server, app, published):
        slow = []
        for _ in range(2):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(head(1_000_000) + b"{")  # a large body, being received
            slow.append((reader, writer))

        await until(server, lambda: app.state.stats["reading"] == 2, "two bodies being received")
        body = good_body()
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", timeout=5
        ) as client:
            r = await client.post(PATH, content=body, headers=signed(body))
        assert r.status_code == 503, r.text
        assert r.headers["retry-after"] and "redeliver later" in r.json()["error"]
        assert published == []
        for _reader, writer in slow:
            writer.close()

        await until(server, lambda: app.state.stats["reading"] == 0, "the slow bodies given up")
        await still_accepts(server, published)


async def test_connections_beyond_the_cap_are_closed_as_they_come():
    async with served(max_connections=3) as (server, _app, published):
        held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(3)]

        await until(server, lambda: len(state(server).connections) == 3, "three open connections")
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(head(10))
        assert await closed_within(reader, 5) == b""  # closed without an answer
        writer.close()
        for _reader, w in held:
            w.close()

        await until(server, lambda: not state(server).connections, "the held connections closed")
        await still_accepts(server, published)


class Records(logging.Handler):
    """Every record of the root logger and of uvicorn's (which may not propagate), once."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: dict[int, logging.LogRecord] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.records[id(record)] = record

    def __enter__(self) -> Records:
        self._levels = {}
        for name in ("", "uvicorn", "uvicorn.error"):
            logger = logging.getLogger(name)
            logger.addHandler(self)
            self._levels[name] = logger.level
        logging.getLogger().setLevel(logging.INFO)
        return self

    def __exit__(self, *exc) -> None:
        for name, level in self._levels.items():
            logging.getLogger(name).removeHandler(self)
            logging.getLogger(name).setLevel(level)

    def lines(self) -> list[str]:
        return [r.getMessage() for r in self.records.values()]


async def test_a_client_disconnecting_mid_body_leaves_one_short_line_and_no_traceback():
    async with served() as (server, _app, published):
        with Records() as log:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(head(5000) + b'{"action": "opened"')
            await writer.drain()

            await until(server, lambda: state(server).tasks, "the request to be handled")
            writer.close()
            await until(
                server,
                lambda: not state(server).tasks and not state(server).connections,
                "the request to finish",
            )
        assert not [r for r in log.records.values() if r.exc_info], log.lines()
        assert not [line for line in log.lines() if "Traceback" in line or "\n" in line]
        assert len(log.records) <= 1, log.lines()
        await still_accepts(server, published)


async def test_repeated_errors_are_rate_limited_in_the_log():
    QUIET._seen.clear()  # what earlier tests of this process logged does not count
    async with served() as (server, _app, published):
        with Records() as log:
            for _ in range(30):
                reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
                writer.write(b"NOT HTTP AT ALL\r\n\r\n")
                answer = await closed_within(reader, 5)
                writer.close()
                assert answer.startswith(b"HTTP/1.1 400")
        invalid = [line for line in log.lines() if "Invalid HTTP request" in line]
        assert 1 <= len(invalid) <= QUIET.burst, log.lines()
        await still_accepts(server, published)
