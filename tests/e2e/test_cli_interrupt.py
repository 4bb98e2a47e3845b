"""Ctrl-C (SIGINT) or SIGTERM in the middle of `repodigest report`: it stops within seconds, exits
130 / 143, and leaves nothing behind — no embedded nats-server, no PDF worker, no temporary
directory."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import sys
import time
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "repodigest"]
# the run stops services, PDF workers and the nats-server with a few seconds of grace each
EXIT_WITHIN = 20.0


def _children(pid: int) -> dict[int, str]:
    """Every descendant of `pid` now: {pid: command line}."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                try:
                    cmd = (Path("/proc") / str(child) / "cmdline").read_bytes()
                except OSError:
                    continue
                found[child] = cmd.replace(b"\0", b" ").decode(errors="replace")
                frontier.append(child)
    return found


def _exited(pidfd: int, within: float) -> bool:
    """A pidfd becomes readable when its process exits: wait for that, not for a clock."""
    readable, _, _ = select.select([pidfd], [], [], within)
    return bool(readable)


async def _read_until(stream: asyncio.StreamReader, marker: str, seen: list[str]) -> None:
    while True:
        line = await stream.readline()
        if not line:
            raise AssertionError("the report ended before the marker:\n" + "".join(seen[-30:]))
        seen.append(line.decode(errors="replace"))
        if marker in seen[-1]:
            return


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs Linux pidfds")
@pytest.mark.parametrize(
    "signum, code, marker",
    [
        (signal.SIGINT, 130, "rendering the PDF of"),  # WeasyPrint busy in its worker
        (signal.SIGTERM, 143, "rendering the PDF of"),
        (signal.SIGTERM, 143, "started ingest, classifier, summarizer, renderer"),  # ingesting
    ],
    ids=["sigint-pdf", "sigterm-pdf", "sigterm-ingest"],
)
async def test_an_interrupted_report_cleans_up_and_exits(tmp_path, signum, code, marker) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPODIGEST_")}
    env["TMPDIR"] = str(tmp)  # where the run's temporary directory goes
    proc = await asyncio.create_subprocess_exec(
        *CLI,
        "report",
        "repodigest-demo/llm-serve",
        "--window",
        "week:2026-W24",
        "--source",
        "demo",
        "--out",
        str(tmp_path / "out"),
        "--log-level",
        "INFO",
        "--quiet",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    seen: list[str] = []
    pidfds: dict[int, tuple[int, str]] = {}
    try:
        assert proc.stderr is not None
        await asyncio.wait_for(_read_until(proc.stderr, marker, seen), 180)
        assert [d for d in tmp.iterdir() if d.name.startswith("repodigest-")], (
            "no temporary directory"
        )
        for pid, cmd in _children(proc.pid).items():
            try:
                pidfds[pid] = (os.pidfd_open(pid), cmd)
            except ProcessLookupError:
                pass
        commands = [cmd for _, cmd in pidfds.values()]
        assert any("nats-server" in c for c in commands), commands
        if "PDF" in marker:
            assert any("multiprocessing" in c for c in commands), commands  # the PDF worker

        started = time.monotonic()
        proc.send_signal(signum)
        out, err = await asyncio.wait_for(proc.communicate(), EXIT_WITHIN + 10)
        took = time.monotonic() - started
        text = "".join(seen) + err.decode(errors="replace")
        assert proc.returncode == code, text[-3000:]
        assert took < EXIT_WITHIN, f"took {took:.1f} s to stop"
        assert "Traceback" not in text, text[-3000:]
        # work in progress was abandoned, not waited for (a large PDF takes minutes)
        assert "repodigest.renderer: rendered" not in err.decode(), err.decode()
        assert "interrupted" in err.decode()

        # the nats-server and the PDF worker were stopped by the run itself, before it exited
        left = [
            cmd
            for fd, cmd in pidfds.values()
            if ("nats-server" in cmd or "spawn_main" in cmd) and not _exited(fd, 0)
        ]
        assert not left, f"still running after the report exited: {left}"
        # anything else it started (multiprocessing's resource tracker) follows its parent
        left = [cmd for fd, cmd in pidfds.values() if not _exited(fd, 10)]
        assert not left, f"still running: {left}"
        assert not list(tmp.iterdir()), f"left in the temporary directory: {list(tmp.iterdir())}"
        assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("report.*"))
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        for pid, (fd, _) in pidfds.items():
            if not _exited(fd, 0):
                os.kill(pid, signal.SIGKILL)  # a failed run must not leave them for the next test
            os.close(fd)
