"""A new user's first hour with the CLI (issue #17 items 3-5): argument errors first and exit 2,
a sentence instead of a traceback, `--version` and shell completion."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from shared.natsserver import free_port

CLI = [sys.executable, "-m", "repodigest"]
NO_TOKEN = {"GITHUB_TOKEN": "", "REPODIGEST_GITHUB_TOKEN": ""}


def run_cli(
    *args: str, env: dict | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **NO_TOKEN, **(env or {})},
    )


def one_line_error(result: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# a refused port: an argument error must be found before anything tries to connect
UNREACHABLE = ["--nats-url", f"nats://127.0.0.1:{free_port()}"]


@pytest.mark.parametrize(
    "args,needles",
    [
        # without a token the language is still the first thing wrong
        (["--lang", "fr"], ["unknown language 'fr'"]),
        (["--formats", "docx"], ["format"]),
        (["--source", "foo", *UNREACHABLE], ["--source", "unknown source 'foo'"]),
        (["--source", "replay:", *UNREACHABLE], ["--source", "needs a file"]),
        (["--source", "demo", *UNREACHABLE], ["repodigest-demo/llm-serve", "as the repository"]),
        (["--source", "demo", "--cutoff", "11:45"], ["--cutoff", "day windows only"]),
        (["--source", "demo", "--appendix", "some"], ["--appendix"]),
    ],
)
def test_argument_errors_come_first_and_exit_2(args, needles):
    line = one_line_error(
        run_cli("report", "a/b", "--window", "week:2026-W24", "--quiet", *args), 2, *needles
    )
    assert "no data source" not in line and "leave the repository unset" not in line


def test_no_data_source_is_said_only_when_the_arguments_are_right():
    one_line_error(
        run_cli(
            "report",
            "a/b",
            "--window",
            "day:2026-03-26",
            "--cutoff",
            "11:45",
            "--lang",
            "zh-CN",
            "--quiet",
        ),
        2,
        "no data source",
        "GITHUB_TOKEN",
    )


def test_demo_refuses_an_out_under_a_file_before_the_work(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    one_line_error(run_cli("demo", "--out", str(a_file / "reports")), 2, "--out", "is a file")


def test_fetch_of_a_bare_key_says_it_once(tmp_path):
    line = one_line_error(
        run_cli("fetch", "repodigest-demo__llm-serve/2026-W24/r1/en/report.md"),
        2,
        "is not an artifact URI",
        "nats://RD_ARTIFACTS/",
    )
    assert line.count("cannot fetch") == 0 and line.count("report.md") == 1


def test_fetch_creates_missing_directories_and_refuses_a_file_on_the_way(tmp_path):
    source = tmp_path / "report.md"
    source.write_text("# report")
    target = tmp_path / "missing" / "dir" / "x.md"
    result = run_cli("fetch", f"file://{source}", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert target.read_text() == "# report"
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    # refused before the download: the URI does not even exist
    one_line_error(
        run_cli("fetch", f"file://{tmp_path}/nothing.md", "-o", str(a_file / "x.md")),
        2,
        "--out",
        "is a file",
    )


async def test_subscribe_without_repodigest_streams_says_what_is_missing(nats_server):
    result = run_cli("subscribe", "a/b", "--count", "1", "--nats-url", nats_server.url)
    one_line_error(result, 1, "cannot subscribe", "no RD_REPORTS stream", "repodigest serve")


def test_version():
    from importlib.metadata import version

    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"repodigest {version('repodigest')}"


def test_shell_completion_is_enabled():
    # Typer's completion: the script it installs calls the CLI back with these variables
    script = Path(sys.executable).parent / "repodigest"  # the installed console script
    result = subprocess.run(
        [str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "_REPODIGEST_COMPLETE": "complete_bash",
            "COMP_WORDS": "repodigest rep",
            "COMP_CWORD": "1",
        },
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["report"]
    # the script `--install-completion` installs for bash (`--show-completion` prints the one of
    # the shell it detects from the parent process, none under a detached runner)
    shown = subprocess.run(
        [str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "_REPODIGEST_COMPLETE": "source_bash"},
    )
    assert shown.returncode == 0 and "_REPODIGEST_COMPLETE=complete_bash" in shown.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "all"],
        [
            "report",
            "repodigest-demo/llm-serve",
            "--window",
            "week:2026-W24",
            "--source",
            "demo",
            "--quiet",
        ],
    ],
)
def test_a_refused_nats_port_is_said_as_such(args):
    # nats-py retries a refused port until the connect time-out; nothing will ever answer there
    result = run_cli(
        *args,
        env={
            "REPODIGEST_NATS_URL": f"nats://127.0.0.1:{free_port()}",
            "REPODIGEST_WEBHOOK_ENABLED": "false",
        },
    )
    line = one_line_error(result, 1, "cannot reach NATS", "connection refused")
    assert "TimeoutError" not in line
    # only `report` can start an embedded server: `serve` does not suggest it
    assert ("embedded" in line) == (args[0] == "report")


async def test_sigterm_while_nats_reconnects_stops_cleanly(nats_server, tmp_path):
    env = {
        **os.environ,
        "REPODIGEST_NATS_URL": nats_server.url,
        "REPODIGEST_LOG_LEVEL": "INFO",
        "REPODIGEST_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}",
        "REPODIGEST_HEALTH_PORT": "0",
    }
    proc = await asyncio.create_subprocess_exec(
        *CLI,
        "serve",
        "classifier",
        "summarizer",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    lines: list[str] = []

    async def until(word: str) -> None:
        while True:
            raw = await proc.stdout.readline()
            assert raw, "serve exited early:\n" + "\n".join(lines)
            lines.append(raw.decode(errors="replace").rstrip())
            if word in lines[-1]:
                return

    try:
        await asyncio.wait_for(until("started"), 60)
        await nats_server.kill()  # the connection breaks; the client starts reconnecting
        await asyncio.wait_for(until("disconnected from NATS"), 30)
        proc.send_signal(signal.SIGTERM)
        rest, _ = await asyncio.wait_for(proc.communicate(), 60)
    except BaseException:
        proc.kill()
        await proc.wait()
        raise
    text = "\n".join(lines) + rest.decode(errors="replace")
    assert proc.returncode == 0, text
    assert "Traceback" not in text and "ConnectionReconnectingError" not in text, text
    assert "closed without draining" in text and "stopped classifier+summarizer" in text


async def test_a_service_start_logs_no_alembic_chatter(nats_server, tmp_path):
    env = {
        **os.environ,
        "REPODIGEST_NATS_URL": nats_server.url,
        "REPODIGEST_LOG_LEVEL": "INFO",
        "REPODIGEST_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}",
        "REPODIGEST_HEALTH_PORT": "0",
    }
    logs = []
    for _ in range(2):  # a fresh database (migrated), then one already at head
        proc = await asyncio.create_subprocess_exec(
            *CLI,
            "serve",
            "summarizer",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        lines: list[str] = []
        try:
            while not lines or "started summarizer" not in lines[-1]:
                raw = await asyncio.wait_for(proc.stdout.readline(), 60)
                assert raw, "serve exited early:\n" + "\n".join(lines)
                lines.append(raw.decode(errors="replace").rstrip())
        finally:
            proc.send_signal(signal.SIGTERM)
            rest, _ = await asyncio.wait_for(proc.communicate(), 60)
        logs.append(lines)
        assert proc.returncode == 0, "\n".join(lines) + rest.decode(errors="replace")
    first, second = ("\n".join(lines) for lines in logs)
    for text in (first, second):
        assert "alembic.runtime.plugins" not in text and "Context impl" not in text, text
        assert "Will assume" not in text, text
    assert "Running upgrade  -> 0001" in first and "Running upgrade" not in second


def test_progress_by_stage_after_the_ingest_bar(tmp_path):
    result = run_cli(
        "report",
        "repodigest-demo/llm-serve",
        "--window",
        "week:2026-W24",
        "--source",
        "demo",
        "--formats",
        "md,json",
        "--lang",
        "en,zh-CN",
        "--out",
        str(tmp_path / "out"),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    facts = int(result.stdout.split(" facts ingested")[0].rsplit(" ", 1)[1])
    bars = {
        line.split("━")[0].strip(" ⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"): line.split()[-2]
        for line in result.stderr.splitlines()
        if "━" in line
    }
    # counted from what the services announced: enriched facts, the summary, each stored artifact
    assert bars["classify"] == bars["fold"] == f"{facts}/{facts}", result.stderr
    assert bars["summarize"] == "1/1"
    for lang in ("en", "zh-CN"):
        for fmt in ("md", "json"):
            assert bars[f"render {fmt} ({lang})"] == "1/1", result.stderr
    order = [
        line.split("━")[0].strip(" ⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏").split()[0]
        for line in result.stderr.splitlines()
        if "━" in line
    ]
    assert order[:4] == ["ingest", "classify", "fold", "summarize"], order


def test_no_network_is_not_called_a_degraded_github(tmp_path):
    # nothing answers at this address: the machine's network, not GitHub, is what to check
    result = run_cli(
        "report",
        "vllm-project/vllm",
        "--window",
        "week:2026-W24",
        "--quiet",
        "--source",
        "github",
        "--out",
        str(tmp_path / "out"),
        env={
            "GITHUB_TOKEN": "ghp_not_used_for_anything_00000000000000",
            "REPODIGEST_GITHUB_API_URL": f"http://127.0.0.1:{free_port()}",
        },
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    line = result.stderr.strip().splitlines()[-1]  # after a warning per retry
    assert line.startswith("error: ") and "did not answer" in line, result.stderr
    assert "network connection" in line and "HTTPS_PROXY" in line
    assert "degraded" not in result.stderr and "ghp_" not in result.stderr


async def test_subscribe_says_when_nats_went_away(nats_server):
    from shared.config import CommonSettings
    from shared.natsclient import connect

    nc = await connect(CommonSettings(nats_url=nats_server.url))
    await nc.jetstream().add_stream(name="RD_REPORTS", subjects=["rd.report.>", "rd.summary.>"])
    await nc.close()
    proc = await asyncio.create_subprocess_exec(
        *CLI,
        "subscribe",
        "a/b",
        "--nats-url",
        nats_server.url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        # subscribed: the server shows the consumer it created
        nc = await connect(CommonSettings(nats_url=nats_server.url))
        js = nc.jetstream()
        while not (await js.stream_info("RD_REPORTS")).state.consumer_count:
            pass  # each look is a round trip to the server
        await nc.close()
        await nats_server.kill()
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    except BaseException:
        proc.kill()
        await proc.wait()
        raise
    text = err.decode()
    assert proc.returncode == 1 and "Traceback" not in text, text
    assert text.strip().startswith("error: lost the connection to NATS") and "--history" in text
