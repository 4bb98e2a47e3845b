"""A `.creds` file against a nats-server in operator (JWT) mode, for the services and the CLI alike
(issue #17 item 13): an operator, a system account and an account with JetStream, their JWTs made
and signed here with `nkeys` (tests/nats_jwt.py), a MEMORY resolver holding the accounts. A
service process (`repodigest serve classifier`) and the CLI (`subscribe`) log in with the user's
.creds file and work; a .creds file of another operator's user is refused, and a file that is no
.creds file is named, each in one line; neither the seed nor the JWT appears in any output."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from datetime import UTC, datetime

import pytest

import shared.events as ev
from shared.config import CommonSettings
from shared.messaging import Bus, Subjects, ensure_topology
from shared.natsclient import connect
from shared.natsserver import EmbeddedNats
from shared.service import NatsUnreachable, Runtime
from tests.conftest import ROOT
from tests.nats_jwt import Operator, decode_claims

pytestmark = pytest.mark.timeout(180)

REPO = "acme/creds"
CLI = [sys.executable, "-m", "repodigest"]


@pytest.fixture
async def operator_server(tmp_path):
    """(nats-server in operator mode with JetStream for the account, the operator)."""
    op = Operator.new()
    server = EmbeddedNats(store_dir=tmp_path / "nats", config=op.server_config())
    await server.start()
    try:
        yield server, op
    finally:
        await server.stop()


def _write(path, text: str) -> str:
    path.write_text(text)
    path.chmod(0o600)
    return str(path)


def _env(server: EmbeddedNats, creds: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REPODIGEST_", "OTEL_"))}
    return {
        **env,
        "REPODIGEST_NATS_URL": server.url,
        "REPODIGEST_NATS_CREDS": creds,
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
        **extra,
    }


async def _cli(*args: str, env: dict[str, str], timeout: float = 60):
    proc = await asyncio.create_subprocess_exec(
        *CLI,
        *args,
        cwd=str(ROOT),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out.decode(), err.decode(errors="replace")


def _secrets(creds_text: str) -> list[str]:
    """The seed and the JWT in a .creds file (neither may be printed or logged)."""
    lines = creds_text.splitlines()
    return [lines[i + 1] for i, ln in enumerate(lines) if ln.startswith("-----BEGIN")]


def _one_line(err: str, secrets: list[str]) -> str:
    assert "Traceback" not in err, err
    for secret in secrets:
        assert secret not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


def _fact() -> ev.GithubFact:
    at = datetime(2026, 6, 8, 10, 0, tzinfo=UTC)
    item = ev.ItemSnapshot(
        repo=REPO,
        number=7,
        kind="pull_request",
        title="[Core] creds",
        author=ev.Actor(login="dev"),
        state="closed",
        created_at=at,
        closed_at=at,
        merged_at=at,
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="merged", item=item))


def test_the_jwts_are_what_nats_jwt_v2_writes():
    """The hand-made chain: each JWT names its issuer and subject as the spec says (a check of
    the test's own helper; the server accepting them is the real one, below)."""
    op = Operator.new()
    text, user = op.user_creds("u1")
    token = _secrets(text)[0]
    claims = decode_claims(token)
    assert (claims["iss"], claims["sub"]) == (op.account.public, user.public)
    assert claims["nats"] == {
        "pub": {},
        "sub": {},
        "subs": -1,
        "data": -1,
        "payload": -1,
        "type": "user",
        "version": 2,
    }
    assert _secrets(text)[1] == user.seed.decode() and user.seed.startswith(b"SU")


async def test_a_service_and_the_cli_log_in_with_a_creds_file(operator_server, tmp_path):
    server, op = operator_server
    text, _ = op.user_creds()
    creds = _write(tmp_path / "repodigest.creds", text)
    settings = CommonSettings(nats_url=server.url, nats_creds=creds)

    # without credentials an operator-mode server lets nobody in
    with pytest.raises(NatsUnreachable, match="refused the login without credentials"):
        await connect(CommonSettings(nats_url=server.url, nats_connect_timeout=2))

    # the services' runtime logs in and declares the streams (JetStream of the account)
    runtime = Runtime(settings, "creds-test")
    await runtime.start()
    try:
        js = runtime.js
        await ensure_topology(js, consumers=())
        assert (await js.stream_info("RD_GITHUB")).config.name == "RD_GITHUB"
        fact = _fact()
        await Bus(runtime, "ingest").publish(fact, Subjects.fact("pull_request", "merged", REPO))
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

    # a service process: `serve classifier` with REPODIGEST_NATS_CREDS consumes the fact and
    # publishes its enriched event (DEBUG logging: nothing secret even there)
    nc = await connect(settings)  # the CLI's connection, watching what the service publishes
    try:
        enriched = await nc.jetstream().subscribe("rd.enriched.>", ordered_consumer=True)
        proc = await asyncio.create_subprocess_exec(
            *CLI,
            "serve",
            "classifier",
            cwd=str(ROOT),
            env=_env(server, creds, REPODIGEST_LOG_LEVEL="DEBUG"),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            msg = await enriched.next_msg(timeout=60)
            assert json.loads(msg.data)["data"]["fact_id"] == fact.id
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        await nc.close()
    log = out.decode() + err.decode(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    assert "started classifier" in log
    for secret in _secrets(text):
        assert secret not in log

    # the CLI: subscribe reads the report-ready event with the same file
    code, out, err = await _cli(
        "subscribe", REPO, "--history", "--count", "1", env=_env(server, creds)
    )
    assert code == 0, err
    assert json.loads(out.splitlines()[0])["id"] == ready.id
    for secret in _secrets(text):
        assert secret not in out + err


async def test_a_wrong_creds_file_is_refused_in_one_line(operator_server, tmp_path):
    server, _ = operator_server
    # a user of another operator's account: well formed, and unknown to this server
    text, _ = Operator.new().user_creds()
    wrong = _write(tmp_path / "other.creds", text)
    secrets = _secrets(text)

    code, _, err = await _cli("subscribe", REPO, "--count", "1", env=_env(server, wrong))
    line = _one_line(err, secrets)
    assert code != 0
    assert "refused the login with the credentials file REPODIGEST_NATS_CREDS=" in line
    assert wrong in line

    code, out, err = await _cli("serve", "classifier", env=_env(server, wrong), timeout=90)
    assert code != 0, err
    line = _one_line(out + err, secrets)
    assert "refused the login with the credentials file REPODIGEST_NATS_CREDS=" in line

    # a file that is no .creds file (here the bare JWT, its seed missing) is named, not sent
    # (nats-py would fail on it with a TypeError, or read a file without a JWT block for ever)
    half = _write(tmp_path / "half.creds", secrets[0] + "\n")
    code, _, err = await _cli("subscribe", REPO, "--count", "1", env=_env(server, half))
    line = _one_line(err, secrets)
    assert code != 0 and "not a NATS credentials file" in line and half in line

    # a JWT and a seed of two different users
    mine, _ = Operator.new().user_creds()
    mixed = _write(tmp_path / "mixed.creds", text.replace(secrets[1], _secrets(mine)[1]))
    with pytest.raises(NatsUnreachable, match="seed is not the key of the user its JWT is about"):
        Runtime(CommonSettings(nats_url=server.url, nats_creds=mixed), "creds-test")
