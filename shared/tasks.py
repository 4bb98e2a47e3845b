"""Stopping background tasks and child processes without hanging on them."""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("repodigest.tasks")


async def cancel_and_wait(task: asyncio.Task | None, timeout: float = 10.0) -> None:
    """Cancel `task` and wait for it to end, at most `timeout` seconds.

    Awaiting a cancelled task is not enough on Python 3.11: `asyncio.wait_for` inside it can
    swallow a cancellation that lands as its inner call completes, and the task then runs on (a
    poller's next period); awaiting it made shutdown hang. Tasks stopped here should also watch a
    stop flag of their own. Whatever the task raised is consumed, not re-raised: we are stopping.
    """
    if task is None or task.done():
        if task is not None and not task.cancelled():
            task.exception()  # retrieved, so asyncio does not report it at exit
        return
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=timeout)
    if not done:
        log.warning(
            "background task %s did not stop within %.0f s; leaving it", task.get_name(), timeout
        )
    elif not task.cancelled():
        task.exception()


def stop_processes(processes, grace: float) -> None:
    """End `multiprocessing` processes now: SIGTERM to all, then SIGKILL to any still alive after
    `grace` seconds each (busy or not)."""
    processes = list(processes)
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(grace)
        if proc.is_alive():
            proc.kill()
            proc.join(grace)
