"""The durable pull consumer: messages of one JetStream durable through `StreamingPull`, settled
by the rules of `outcomes` (ack, nak with backoff, dead letter).

Why not a FastStream subscriber: its pull loop (`fetch`, a task and a timer per message) costs
~4x the CPU per message of `StreamingPull` (shared/messaging/pull.py, bench/README.md). The
consumer is still declared to FastStream — its subject, stream, durable and payload — for the
AsyncAPI document (`shared.messaging.asyncapi`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from shared.tasks import cancel_and_wait

from .collector import batch_friendly_gc
from .outcomes import E, Outcomes
from .pull import StreamingPull
from .tracing import short

if TYPE_CHECKING:
    from .router import ServiceRouter
    from .topology import ConsumerSpec

log = logging.getLogger("repodigest.bus")


class IdleWork(Protocol):
    """Work a consumer does only when it has no message in hand or delivered: one `step` at a
    time (a step should be short: a message that arrives meanwhile waits for it), while
    `pending`."""

    @property
    def pending(self) -> bool: ...

    async def step(self) -> None: ...


class Consumer(Outcomes[E]):
    """A durable pull consumer: decode, handle in order, ack / nak with backoff / dead-letter.

    `bus` is the service's `Bus` (its connection pulls, its publisher dead-letters) or, in unit
    tests, a `testing.MemoryBus`. `model` (optional) is the payload's type, for the AsyncAPI
    document."""

    def __init__(
        self,
        bus: Any,
        spec: ConsumerSpec,
        decode: Callable[[bytes], E],
        handle: Callable[[E], Awaitable[None]] | None = None,
        handle_batch: Callable[[list[E]], Awaitable[None]] | None = None,
        model: Any = None,
        idle_work: IdleWork | None = None,
    ) -> None:
        super().__init__(bus, spec, decode, handle, handle_batch)
        self.model = model
        # done between messages, never before one that was delivered (the summarizer works out
        # its merged changes' per-item results there)
        self.idle_work = idle_work
        self._pull: StreamingPull | None = None
        self._task: asyncio.Task | None = None
        self._stopping = False

    # how long an idle loop waits before looking again at its pull requests (expired ones,
    # a reconnect); a delivery or a server status wakes it at once
    IDLE_POLL = 1.0

    def register(self, router: ServiceRouter) -> None:
        """Join `router`'s pull consumers: the runtime that includes the router creates the
        durable, starts the consumer once connected and stops it (finishing the batch in hand)
        before it drains the connection."""
        add = getattr(router, "add_pull_consumer", None)
        if add is None:
            raise TypeError(
                f"{self.spec.durable}: register on a shared.messaging.ServiceRouter "
                f"(the runtime's), not a {type(router).__name__}"
            )
        batch_friendly_gc()
        add(self)

    async def start(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self._pull = StreamingPull(
            self.bus.nc,
            self.spec.stream,
            self.spec.durable,
            batch=self.spec.batch_size,
            ahead=self.spec.ahead,
        )
        await self._pull.start()
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name=f"pull {self.spec.durable}")

    async def stop(self, timeout: float = 30.0) -> None:
        """Finish the batch in hand, stop asking, and hand back what was delivered but not
        handled (nak: redelivered at once, not after ack_wait)."""
        if self._task is None or self._pull is None:
            return
        self._stopping = True
        self._pull.wake()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            log.warning(
                "%s: the batch in hand did not finish within %.0f s; stopping anyway "
                "(its messages are redelivered after ack_wait)",
                self.spec.durable,
                timeout,
            )
            await cancel_and_wait(self._task)
        for msg in await self._pull.stop():
            with contextlib.suppress(Exception):
                await msg.nak()
        self._task = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def pull_state(self) -> str:
        """ "ok" while consuming; otherwise what is wrong, for the readiness probe."""
        if not self.running:
            return "not consuming"
        if self._pull is not None and self._pull.refused:
            return f"pull requests refused: {self._pull.refused}"[:200]
        return "ok"

    async def _run(self) -> None:
        assert self._pull is not None
        idle = self.idle_work
        while not self._stopping:
            try:
                # with idle work left, only what is already delivered comes first
                waiting = idle is not None and idle.pending
                msgs = await self._pull.next(timeout=0 if waiting else self.IDLE_POLL)
                if msgs and not self._stopping:
                    await self.process(msgs)
                elif msgs:
                    for msg in msgs:  # stopping: not handled, handed back
                        await msg.nak()
                elif waiting and idle is not None and not self._stopping:
                    await idle.step()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the loop outlives a lost connection
                # unacknowledged messages come back after ack_wait; the loop carries on
                log.warning("%s: consuming failed (%s); carrying on", self.spec.durable, short(exc))
                await asyncio.sleep(1.0)  # a pause before asking a failing server again
