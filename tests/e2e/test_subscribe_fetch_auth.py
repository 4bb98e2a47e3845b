"""`repodigest subscribe` and `fetch` against a nats-server that wants a login: they read the
services' credential settings (REPODIGEST_NATS_USER/_PASSWORD, _TOKEN), and a refused login or an
unreachable server is one clear line that never shows the password or token."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
from datetime import UTC, datetime

import pytest

import shared.events as ev
from services.renderer.adapters.stores import open_store
from shared.config import CommonSettings
from shared.messaging import Bus, Subjects, ensure_topology
from shared.natsserver import EmbeddedNats, free_port
from shared.service import Runtime

CLI = [sys.executable, "-m", "repodigest"]
REPO = "acme/widgets"
USER, PASSWORD, TOKEN = "rd-cli", "pw-Zq81-secret", "tok-9XkP-secret"
WRONG = "pw-WRONG-7731"
CREDENTIAL_VARS = (
    "REPODIGEST_NATS_URL",
    "REPODIGEST_NATS_USER",
    "REPODIGEST_NATS_PASSWORD",
    "REPODIGEST_NATS_TOKEN",
)


async def run(*args: str, env: dict[str, str] | None = None, timeout: float = 60):
    base = {k: v for k, v in os.environ.items() if k not in CREDENTIAL_VARS}
    proc = await asyncio.create_subprocess_exec(
        *CLI,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**base, **(env or {})},
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out, err.decode(errors="replace")


@pytest.fixture
async def auth_server(tmp_path):
    server = EmbeddedNats(store_dir=tmp_path / "nats", user=USER, password=PASSWORD)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def token_server(tmp_path):
    server = EmbeddedNats(store_dir=tmp_path / "nats-token", token=TOKEN)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def _publish(settings: CommonSettings) -> tuple[ev.ReportReady, object, bytes]:
    """A stored artifact and a report-ready event, published by a runtime that logs in."""
    runtime = Runtime(settings, "test")
    await runtime.start()
    try:
        js = runtime.js
        await ensure_topology(js, consumers=())
        data = "# report\n\n合并 PR 103\n".encode() * 200
        stored = await open_store("nats", js).put(
            "reports/acme/widgets/2026-W24/r1/en/report.md", data, "text/markdown"
        )
        window = ev.WindowRef(
            kind="week",
            label="2026-W24",
            start=datetime(2026, 6, 8, tzinfo=UTC),
            end=datetime(2026, 6, 15, tzinfo=UTC),
        )
        ready = ev.ReportReady.create(
            ev.ReportReadyData(
                repo=REPO,
                window=window,
                revision=1,
                languages=("en",),
                artifacts=(),
                summary_id="s1",
                rendered_at=datetime.now(UTC),
            )
        )
        await Bus(runtime, "renderer").publish(ready, Subjects.report_ready(REPO))
    finally:
        await runtime.stop()
    return ready, stored, data


async def test_credentials_from_the_services_settings(auth_server, tmp_path) -> None:
    ready, stored, data = await _publish(
        CommonSettings(nats_url=auth_server.url, nats_user=USER, nats_password=PASSWORD)
    )
    env = {"REPODIGEST_NATS_USER": USER, "REPODIGEST_NATS_PASSWORD": PASSWORD}

    code, out, err = await run(
        "subscribe", REPO, "--history", "--count", "1", "--nats-url", auth_server.url, env=env
    )
    assert code == 0, err
    assert json.loads(out.decode().splitlines()[0])["id"] == ready.id

    target = tmp_path / "report.md"
    code, _, err = await run(
        "fetch", stored.uri, "-o", str(target), env={**env, "REPODIGEST_NATS_URL": auth_server.url}
    )
    assert code == 0, err
    assert hashlib.sha256(target.read_bytes()).hexdigest() == hashlib.sha256(data).hexdigest()


async def test_a_token_from_the_settings(token_server, tmp_path) -> None:
    _, stored, data = await _publish(CommonSettings(nats_url=token_server.url, nats_token=TOKEN))
    target = tmp_path / "report.md"
    code, _, err = await run(
        "fetch",
        stored.uri,
        "-o",
        str(target),
        "--nats-url",
        token_server.url,
        env={"REPODIGEST_NATS_TOKEN": TOKEN},
    )
    assert code == 0, err
    assert target.read_bytes() == data


def _one_clear_line(err: str, *secrets: str) -> str:
    assert "Traceback" not in err, err
    for secret in secrets:
        assert secret not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    return lines[0]


COMMANDS = {
    "subscribe": ["subscribe", REPO, "--count", "1"],
    "fetch": ["fetch", "nats://RD_ARTIFACTS/reports/x/report.md"],
    "classifier-reload": ["classifier-reload", "--timeout", "1"],
    "reclassify": ["reclassify", "--quiet"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
async def test_a_refused_login_is_one_line_without_the_password(auth_server, command) -> None:
    host = auth_server.url.removeprefix("nats://")
    args = COMMANDS[command]
    expected = 2 if command in {"classifier-reload", "reclassify"} else 1  # their usage error code

    # the password in the URL
    code, out, err = await run(*args, "--nats-url", f"nats://{USER}:{WRONG}@{host}")
    assert code == expected
    line = _one_clear_line(err, WRONG)
    assert WRONG not in out.decode()
    assert "refused the login" in line and f"nats://{USER}:***@{host}" in line
    assert "REPODIGEST_NATS_PASSWORD" in line

    # the password in the environment
    code, out, err = await run(
        *args,
        "--nats-url",
        auth_server.url,
        env={"REPODIGEST_NATS_USER": USER, "REPODIGEST_NATS_PASSWORD": WRONG},
    )
    assert code == expected
    assert "refused the login" in _one_clear_line(err, WRONG)

    # a token in the URL, and no server there at all
    code, out, err = await run(*args, "--nats-url", f"nats://{TOKEN}@127.0.0.1:{free_port()}")
    assert code == expected
    line = _one_clear_line(err, TOKEN)
    assert "cannot reach NATS at nats://***@127.0.0.1:" in line


async def test_a_stream_that_is_not_there_is_a_clear_error(auth_server) -> None:
    # JetStream is up but no service has created RD_REPORTS yet
    code, _, err = await run(
        "subscribe",
        REPO,
        "--count",
        "1",
        "--nats-url",
        f"nats://{USER}:{PASSWORD}@{auth_server.url.removeprefix('nats://')}",
    )
    assert code == 1
    assert "cannot subscribe to report-ready events" in _one_clear_line(err, PASSWORD)
