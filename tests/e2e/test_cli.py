"""The CLI as a person uses it: actionable errors and exit codes, each service alone."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys

import pytest

from shared.natsserver import free_port

CLI = [sys.executable, "-m", "repodigest"]


def run_cli(
    *args: str, env: dict | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize(
    "args,needle",
    [
        (["report", "not-a-repo", "--window", "week:2026-W24", "--source", "demo"], "OWNER/NAME"),
        (["report", "a/b", "--window", "fortnight", "--source", "demo"], "not understood"),
        (
            ["report", "a/b", "--window", "2026-06-01", "--tz", "Mars/Base", "--source", "demo"],
            "time zone",
        ),
        (
            ["report", "a/b", "--window", "week:2026-W24", "--source", "demo", "--lang", "fr"],
            "language",
        ),
        (
            ["report", "a/b", "--window", "week:2026-W24", "--source", "demo", "--formats", "docx"],
            "format",
        ),
    ],
)
def test_bad_arguments_exit_2_with_a_message(args, needle):
    result = run_cli(*args, env={"GITHUB_TOKEN": ""})
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr
    assert "Traceback" not in result.stderr


def test_no_source_and_no_token_says_what_to_do():
    result = run_cli(
        "report",
        "a/b",
        "--window",
        "week:2026-W24",
        env={"GITHUB_TOKEN": "", "REPODIGEST_GITHUB_TOKEN": ""},
    )
    assert result.returncode == 2 and "GITHUB_TOKEN" in result.stderr


def test_unreachable_nats_exits_1():
    port = free_port()  # nothing listens there
    result = run_cli(
        "report",
        "repodigest-demo/llm-serve",
        "--window",
        "week:2026-W24",
        "--source",
        "demo",
        "--nats-url",
        f"nats://127.0.0.1:{port}",
        "--quiet",
    )
    assert result.returncode == 1, result.stderr
    assert "cannot reach NATS" in result.stderr and "Traceback" not in result.stderr


def test_missing_replay_file_exits_1(tmp_path):
    result = run_cli(
        "report",
        "a/b",
        "--window",
        "week:2026-W24",
        "--quiet",
        "--source",
        f"replay:{tmp_path / 'missing.jsonl'}",
    )
    assert result.returncode == 1, result.stderr
    assert "missing.jsonl" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("service", ["ingest", "classifier", "summarizer", "renderer", "notifier"])
async def test_each_service_starts_alone_and_drains_on_sigterm(service, nats_server, tmp_path):
    env = {
        **os.environ,
        "REPODIGEST_NATS_URL": nats_server.url,
        "REPODIGEST_LOG_LEVEL": "INFO",
        "REPODIGEST_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}",
        "REPODIGEST_WEBHOOK_ENABLED": "false",
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        f"services.{service}",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    lines: list[str] = []

    async def until_started() -> None:
        while True:
            raw = await proc.stdout.readline()
            assert raw, f"{service} exited early:\n" + "\n".join(lines)
            lines.append(raw.decode(errors="replace").rstrip())
            if "started" in lines[-1]:
                return

    try:
        await asyncio.wait_for(until_started(), 60)
    except BaseException:
        proc.kill()
        raise
    proc.send_signal(signal.SIGTERM)
    rest, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, "\n".join(lines) + rest.decode(errors="replace")
    assert "stopped" in rest.decode(errors="replace")


def test_a_window_outside_the_file_says_what_the_file_covers(tmp_path):
    history = tmp_path / "merged.jsonl"
    rows = [
        {
            "sha": f"{n:040x}",
            "pr_number": n,
            "title": f"change {n}",
            "author_name": "a",
            "author_email": "a@example.com",
            "authored_at": f"2025-01-0{n}T10:00:00+00:00",
            "merged_at": f"2025-01-0{n}T12:00:00+00:00",
            "files": [],
        }
        for n in (1, 2, 3)
    ]
    history.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = run_cli(
        "report",
        "a/b",
        "--window",
        "week:2026-W24",
        "--quiet",
        "--formats",
        "md",
        "--source",
        f"replay:{history}",
        "--out",
        str(tmp_path / "out"),
    )
    assert result.returncode == 1, result.stderr
    assert "2025-01-01 12:00 to 2025-01-03 12:00 UTC" in result.stderr
    assert str(tmp_path) not in result.stderr  # the file by name, not by path
    assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "routes,needle",
    [
        # pydantic's own message would repeat the input, webhook URL and all
        (
            '[{"name": "Hook", "kind": "slack", "url": "https://hooks.example/%s"}]',
            "notifier_routes.0.slack.name: String should match pattern '^[a-z0-9][a-z0-9_-]{0,62}$'",
        ),
        (
            '[{"name": "a", "kind": "slack", "url": "https://hooks.example/%s"}, '
            '{"name": "a", "kind": "teams", "url": "https://hooks.example/%s"}]',
            "two notifier routes are named 'a'",
        ),
    ],
)
def test_serve_notifier_refuses_bad_routes_saying_why_without_their_secrets(routes, needle):
    secret = "hook-secret-Tz61"
    result = run_cli(
        "serve",
        "notifier",
        env={"REPODIGEST_NOTIFIER_ROUTES": routes.replace("%s", secret)},
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert needle in " ".join(result.stderr.split()) and "Traceback" not in result.stderr
    assert secret not in result.stdout + result.stderr
