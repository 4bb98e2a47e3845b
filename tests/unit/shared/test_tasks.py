"""`cancel_and_wait` stops a task, and does not hang on one that swallows its cancellation."""

from __future__ import annotations

import asyncio

from shared.tasks import cancel_and_wait


async def test_a_cancelled_task_is_waited_for():
    started = asyncio.Event()

    async def poll() -> None:
        started.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(poll())
    await started.wait()
    await cancel_and_wait(task)
    assert task.cancelled()


async def test_a_task_that_ignores_cancellation_does_not_hang_the_caller():
    started, release = asyncio.Event(), asyncio.Event()

    async def stubborn() -> None:
        started.set()
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                continue  # what a swallowed cancellation looks like from outside

    task = asyncio.create_task(stubborn())
    await started.wait()
    await cancel_and_wait(task, timeout=0.2)
    assert not task.done()  # left running, the caller went on
    release.set()
    await task


async def test_an_error_the_task_raised_is_consumed():
    async def fail() -> None:
        raise RuntimeError("boom")

    task = asyncio.create_task(fail())
    await asyncio.wait([task])
    await cancel_and_wait(task)  # no exception, and nothing left unretrieved
    await cancel_and_wait(None)
