"""Services as the deployment runs them: `python -m services.<name>` subprocesses, with peak RSS.

Used by the pipeline and backfill benchmarks. Telemetry is left unset (as a bench measures the
services without an exporter); logs go to a file in the run's temporary directory.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path


def vm_hwm_kib(pid: int) -> int | None:
    """Peak resident set size of a live process (VmHWM in /proc/<pid>/status), in KiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time a live process has used so far (/proc/<pid>/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def local_postgres_cpu() -> dict[int, float]:
    """CPU seconds so far of every PostgreSQL process on this machine (the server and its
    backends), by pid; empty when none runs here (a remote database is not measured)."""
    out: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "postgres":
                continue
        except OSError:
            continue
        spent = cpu_seconds(int(entry.name))
        if spent is not None:
            out[int(entry.name)] = spent
    return out


def cpu_since(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds processes used between two readings; processes that started in between
    count whole (a backend that ended in between is missed: read `after` before disconnecting)."""
    return sum(spent - before.get(pid, 0.0) for pid, spent in after.items())


@dataclass
class ServiceProcess:
    name: str
    env: dict[str, str]
    log_path: Path
    proc: asyncio.subprocess.Process | None = None
    peak_kib: int = 0
    cpu: float = 0.0
    _log: object = field(default=None, repr=False)

    async def start(self) -> ServiceProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "REPODIGEST_"))}
        env.update(self.env)
        env.setdefault("REPODIGEST_LOG_LEVEL", "WARNING")
        env["OTEL_SDK_DISABLED"] = "true"
        self._log = open(self.log_path, "ab")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            f"services.{self.name}",
            env=env,
            stdout=self._log,
            stderr=self._log,
            cwd=str(Path(__file__).resolve().parents[1]),
            start_new_session=True,
        )
        return self

    def sample(self) -> int:
        """Read the peak RSS now (the kernel keeps the high-water mark; read before exit)."""
        if self.proc is not None and self.proc.returncode is None:
            self.peak_kib = max(self.peak_kib, vm_hwm_kib(self.proc.pid) or 0)
            self.cpu = cpu_seconds(self.proc.pid) or self.cpu
        return self.peak_kib

    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    async def stop(self, timeout: float = 60.0) -> int | None:
        self.sample()
        if self.proc is None:
            return None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        if self._log is not None:
            self._log.close()  # type: ignore[attr-defined]
        return self.proc.returncode


async def wait_consuming(
    js, durables: list[tuple[str, str]], procs: list[ServiceProcess], timeout: float = 60.0
) -> None:
    """Until every durable has a pull request waiting (its service is up and fetching)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for p in procs:
            if not p.alive():
                raise RuntimeError(
                    f"{p.name} exited with {p.proc.returncode if p.proc else '?'}:\n{p.log_tail()}"
                )
        ready = True
        for stream, durable in durables:
            try:
                info = await js.consumer_info(stream, durable)
            except Exception:  # noqa: BLE001 - not created yet
                ready = False
                break
            if not info.num_waiting:
                ready = False
                break
        if ready:
            return
        if loop.time() > deadline:
            raise RuntimeError(
                "services did not start consuming in time:\n"
                + "\n".join(p.log_tail() for p in procs)
            )
        await asyncio.sleep(0.1)  # polling a server state, not waiting for a result of ours
