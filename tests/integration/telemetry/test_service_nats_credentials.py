"""A runtime authenticates to a nats-server that requires a user and password (or a token), and
a refused login says what to fix without showing the secret."""

from __future__ import annotations

import asyncio

import pytest

from shared.config import CommonSettings
from shared.natsserver import find_binary, listening_port
from shared.service import NatsUnreachable, Runtime

pytestmark = pytest.mark.timeout(60)


async def auth_server(tmp_path, *auth: str):
    # -p -1: the server picks a free port and logs it (no port found free, released and then
    # taken by another process first)
    proc = await asyncio.create_subprocess_exec(
        find_binary(),
        "-js",
        "-a",
        "127.0.0.1",
        "-p",
        "-1",
        "-sd",
        str(tmp_path / "js"),
        *auth,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    port = None
    while True:
        line = await asyncio.wait_for(proc.stderr.readline(), 20)
        assert line, "nats-server exited"
        port = port or listening_port(line.decode(errors="replace"))
        if b"Server is ready" in line:
            assert port, "nats-server did not say which port it listens on"
            return proc, f"nats://127.0.0.1:{port}"


@pytest.mark.parametrize(
    "auth,good,bad",
    [
        (
            ("--user", "svc", "--pass", "s3cret-pw"),
            {"nats_user": "svc", "nats_password": "s3cret-pw"},
            {"nats_user": "svc", "nats_password": "wrong-pw"},
        ),
        (("--auth", "s3cret-token"), {"nats_token": "s3cret-token"}, {"nats_token": "wrong-token"}),
    ],
)
async def test_runtime_uses_nats_credentials(tmp_path, auth, good, bad):
    proc, url = await auth_server(tmp_path, *auth)
    try:
        runtime = Runtime(CommonSettings(nats_url=url, **good), "auth")
        await runtime.start()
        try:
            info = await runtime.js.stream_info("RD_GITHUB")
            assert info.config.name == "RD_GITHUB"
        finally:
            await runtime.stop()
        with pytest.raises(NatsUnreachable) as refused:
            await Runtime(
                CommonSettings(nats_url=url, nats_connect_timeout=2, **bad), "auth"
            ).start()
        message = str(refused.value)
        assert "authorization" in message.lower() and "REPODIGEST_NATS_" in message
        # the secret tried never shows (the user name may: it says which login was refused)
        secret = bad.get("nats_password") or bad["nats_token"]
        assert secret not in message and "wrong" not in message
    finally:
        proc.terminate()
        await proc.wait()
