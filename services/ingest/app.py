"""The ingest service: no consumers; background sources (a one-off backfill, GitHub pollers)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .config import IngestSettings
from .domain.sources import SourceError
from .handlers import IngestResult, ingest_source

if TYPE_CHECKING:
    from faststream.nats import NatsRouter

    from shared.bus import Bus
    from shared.service import Runtime

log = logging.getLogger("repodigest.ingest")


@dataclass
class Background:
    """A long-running piece of ingest: `run()` works until cancelled (a poller, a webhook server)."""

    name: str
    run: Callable[[], Awaitable[None]]


class IngestService:
    """Publishes GitHub facts; consumes nothing.

    `pollers` is the hook for live sources: append a `Background` (e.g. the PyGithub poller of
    each repository in `settings.repos`, or the webhook HTTP server) before `start()`, and it runs
    as a task until `stop()`. A configured backfill (`settings.backfill_source`) runs once at start.
    """

    name = "ingest"
    consumers: Sequence[str] = ()

    def __init__(self, settings: IngestSettings, bus: "Bus") -> None:
        self.settings = settings
        self.bus = bus
        self.pollers: list[Background] = []
        self.backfill_result: IngestResult | None = None
        self.backfill_error: str | None = None
        self.backfill_done = asyncio.Event()
        self._tasks: list[asyncio.Task] = []

    def register(self, router: "NatsRouter") -> None:  # nothing to subscribe to
        return None

    async def start(self) -> None:
        if self.settings.backfill_source:
            self._tasks.append(asyncio.create_task(self._backfill(), name="ingest-backfill"))
        else:
            self.backfill_done.set()
        for poller in self.pollers:
            self._tasks.append(asyncio.create_task(self._guard(poller), name=f"ingest-{poller.name}"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    async def ready(self) -> bool:
        """Ready unless the configured backfill failed (its message says why)."""
        return self.backfill_error is None

    async def _backfill(self) -> None:
        source = self.settings.backfill_source or ""
        try:
            self.backfill_result = await ingest_source(
                self.bus, source, self.settings.backfill_repo, demo_week=self.settings.demo_week,
                demo_seed=self.settings.demo_seed)
            log.info("backfill from %s done: %s", source, self.backfill_result.summary())
        except SourceError as exc:
            self.backfill_error = str(exc)
            log.error("backfill from %s failed: %s", source, exc)
        except Exception as exc:  # noqa: BLE001 - kept for /readyz, logged with its traceback
            self.backfill_error = f"{type(exc).__name__}: {exc}"
            log.exception("backfill from %s failed", source)
        finally:
            self.backfill_done.set()

    async def _guard(self, poller: Background) -> None:
        try:
            await poller.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("ingest %s stopped with an error", poller.name)
            raise


def build_service(settings: IngestSettings, runtime: "Runtime") -> IngestService:
    return IngestService(settings, runtime.bus("ingest"))
