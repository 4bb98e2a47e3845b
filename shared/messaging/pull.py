"""Streaming pull: a durable consumer's messages delivered ahead of the handler, without timers.

nats-py's `PullSubscription.fetch(n)` waits for each message with its own `asyncio.wait_for`
(a task and a timer per message) and only asks for the next batch once the last one is handled:
on this project's payloads that costs ~44 µs of CPU per message and leaves the server idle while
a batch is handled (bench/README.md). Here pull requests (`$JS.API.CONSUMER.MSG.NEXT`) are kept
outstanding for `ahead` batches, their messages land in a buffer through one subscription
callback (~11 µs per message with the ack), and the handler takes whatever is buffered, up to a
batch, as soon as anything is there. Nothing else about JetStream changes: explicit acks, the
durable's position, redelivery after ack_wait, max_deliver.

Requests are served by the server in order, so each message is counted against the oldest
outstanding request; a request ends when its batch is delivered, when the server says it ended
(408 expired, 409 conflict), or, if the
server never said (a restart, a lost reply), when its expiry is past by `grace`. A reconnect
forgets every request at once, so consumption resumes right after it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nats.aio.client import Client
    from nats.aio.msg import Msg
    from nats.aio.subscription import Subscription

log = logging.getLogger("repodigest.bus.pull")

STATUS = "Status"


@dataclass
class _Request:
    remaining: int
    deadline: float  # event-loop time after which it is taken for lost


class StreamingPull:
    """Messages of one durable pull consumer, requested `ahead` batches in advance."""

    REFUSED_RETRY = 5.0

    def __init__(
        self,
        nc: Client,
        stream: str,
        durable: str,
        *,
        batch: int,
        ahead: int = 2,
        expires: float = 2.0,
        grace: float = 3.0,
    ) -> None:
        self.nc, self.stream, self.durable = nc, stream, durable
        self.batch, self.ahead, self.expires, self.grace = batch, ahead, expires, grace
        self.api = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{durable}"
        self._request = json.dumps({"batch": batch, "expires": int(expires * 1e9)}).encode()
        self._buffer: deque[Msg] = deque()
        self._requests: deque[_Request] = deque()
        self._arrived = asyncio.Event()
        self._woken = False
        self._sub: Subscription | None = None
        self._inbox = ""
        self._reconnects = 0
        # a 409 that asking again at once would not cure (the consumer deleted): why, and when
        # to ask again (an operator may recreate it)
        self.refused: str | None = None
        self._refused_until = 0.0

    async def start(self) -> None:
        self._inbox = self.nc.new_inbox()
        self._reconnects = self.nc.stats.get("reconnects", 0)
        # the buffer is bounded by the outstanding requests (ahead * batch), not by these limits
        self._sub = await self.nc.subscribe(
            self._inbox, cb=self._on_message, pending_msgs_limit=0, pending_bytes_limit=0
        )

    async def next(self, timeout: float) -> list[Msg]:
        """Up to `batch` delivered messages, in stream order; [] if none came within `timeout`
        (or `wake` was called)."""
        await self._top_up()
        if not self._buffer and not self._woken:
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), timeout)
            except TimeoutError:
                if not self._buffer:  # (what arrived while the wait was being cancelled counts)
                    return []
        out: list[Msg] = []
        while self._buffer and len(out) < self.batch:
            out.append(self._buffer.popleft())
        return out

    @property
    def buffered(self) -> int:
        """Messages delivered and not yet taken by `next`."""
        return len(self._buffer)

    def wake(self) -> None:
        """End a `next` that is waiting, and any later one at once (the caller is stopping)."""
        self._woken = True
        self._arrived.set()

    async def stop(self) -> list[Msg]:
        """Stop asking; return what was delivered but not taken (the caller naks it).

        The subscription is drained, not dropped: what already reached the client goes
        through the callback into the buffer, so none of it waits out ack_wait."""
        if self._sub is not None:
            sub, self._sub = self._sub, None
            try:
                await sub.drain()
            except Exception:  # noqa: BLE001 - a closed connection has no subscription left
                pass
        self._requests.clear()
        left = list(self._buffer)
        self._buffer.clear()
        return left

    async def _top_up(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        reconnects = self.nc.stats.get("reconnects", 0)
        if reconnects != self._reconnects:
            # the server (or this connection) restarted: its pending requests are gone
            self._reconnects = reconnects
            self._requests.clear()
        while self._requests and self._requests[0].deadline < now:
            self._requests.popleft()  # the server never said it ended: taken for lost
        if self._sub is None or not self.nc.is_connected or now < self._refused_until:
            return
        # buffered messages count as asked for: the buffer stays within ahead * batch
        wanted = self.ahead * self.batch - len(self._buffer)
        asked = sum(r.remaining for r in self._requests)
        while asked + self.batch <= wanted:
            self._requests.append(_Request(self.batch, now + self.expires + self.grace))
            asked += self.batch
            await self.nc.publish(self.api, self._request, reply=self._inbox)

    async def _on_message(self, msg: Msg) -> None:
        headers = msg.headers
        status = headers.get(STATUS) if headers else None
        if status is None:
            self.refused = None
            self._buffer.append(msg)
            if self._requests:
                first = self._requests[0]
                first.remaining -= 1
                if first.remaining <= 0:
                    self._requests.popleft()
        elif status == "100":
            return  # idle heartbeat: nothing ended
        else:
            # 404/408: the request ended (expired, or nothing with no_wait); 409: the server
            # cut it short (max waiting, batch too big, consumer deleted, leader change)
            if self._requests:
                self._requests.popleft()
            if status == "409":
                description = (headers or {}).get("Description", "")
                if "deleted" in description.lower():
                    self.refused = f"{self.stream}/{self.durable}: {description}"
                    self._refused_until = asyncio.get_running_loop().time() + self.REFUSED_RETRY
                    log.error(
                        "pull requests refused (%s); asking again in %.0f s",
                        self.refused,
                        self.REFUSED_RETRY,
                    )
                else:
                    log.debug("pull request ended by the server: %s %s", status, description)
        self._arrived.set()
