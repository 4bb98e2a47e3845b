"""The ingest service: no consumers; background sources (a one-off backfill, GitHub pollers)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Protocol

from shared.tasks import cancel_and_wait

from .config import IngestSettings
from .domain.sources import SourceError
from .handlers import IngestResult, ingest_source
from .messaging import CONTRACT

if TYPE_CHECKING:
    from shared.messaging import Bus, ConsumerSpec, ServiceRouter
    from shared.service import Runtime

log = logging.getLogger("repodigest.ingest")


class Poller(Protocol):
    """A live source that works in the background between `start()` and `stop()`."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class Background:
    """Adapts a `run()` coroutine function (works until cancelled) to the Poller protocol."""

    def __init__(self, name: str, run: Callable[[], Awaitable[None]]) -> None:
        self.name, self.run = name, run
        self.task: asyncio.Task | None = None

    async def start(self) -> None:
        self.task = asyncio.create_task(self._guarded(), name=f"ingest-{self.name}")

    async def _guarded(self) -> None:
        try:
            await self.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("ingest %s stopped with an error", self.name)
            raise

    async def stop(self) -> None:
        await cancel_and_wait(self.task)
        self.task = None


class IngestNotReady(RuntimeError):
    """The ingest service runs but cannot do its job until a person acts (the message says)."""


PollerFactory = Callable[["IngestService"], Awaitable[Sequence[Poller]]]


class IngestService:
    """Publishes GitHub facts; consumes nothing.

    Hooks for live sources: `pollers` (objects with `async start()` / `async stop()`, e.g. the
    GitHub poller or a webhook server) are started after the backfill task is launched and stopped
    in reverse order; `poller_factories` build pollers at start-up, when the broker is connected
    (the GitHub poller needs the KV bucket). A configured backfill (`settings.backfill_source`)
    runs once, in the background; `backfill_done` is set when it has finished either way.
    """

    name = "ingest"
    consumers: Sequence[ConsumerSpec] = ()
    contract = CONTRACT

    def __init__(self, settings: IngestSettings, bus: Bus) -> None:
        self.settings = settings
        self.bus = bus
        self.pollers: list[Poller] = []
        self.poller_factories: list[PollerFactory] = []
        self.backfill_result: IngestResult | None = None
        self.backfill_error: str | None = None
        self.backfill_done = asyncio.Event()
        self._backfill_task: asyncio.Task | None = None
        self._started: list[Poller] = []

    def register(self, router: ServiceRouter) -> None:  # nothing to subscribe to
        return None

    async def start(self) -> None:
        if self.settings.backfill_source:
            self._backfill_task = asyncio.create_task(self._backfill(), name="ingest-backfill")
        else:
            self.backfill_done.set()
        for factory in self.poller_factories:
            self.pollers.extend(await factory(self))
        for poller in self.pollers:
            await poller.start()
            self._started.append(poller)

    async def stop(self) -> None:
        for poller in reversed(self._started):
            with contextlib.suppress(Exception):
                await poller.stop()
        self._started.clear()
        await cancel_and_wait(self._backfill_task)
        self._backfill_task = None

    def problems(self) -> list[str]:
        """Why the service is not ready, each said so that a person can act: a failed backfill,
        and pollers' problems (`GithubPoller.problems`: a rejected token, an unknown repository)."""
        found = (
            [f"backfill from {self.settings.backfill_source} failed: {self.backfill_error}"]
            if self.backfill_error is not None
            else []
        )
        for poller in self.pollers:
            check = getattr(poller, "problems", None)
            if check is not None:
                found.extend(check())
        return found

    async def ready(self) -> bool:
        """True when ready; raises `IngestNotReady` with the reasons otherwise (`/readyz` shows
        the message of what a check raises)."""
        problems = self.problems()
        if problems:
            raise IngestNotReady("; ".join(problems))
        return True

    async def _backfill(self) -> None:
        source = self.settings.backfill_source or ""
        try:
            s = self.settings
            self.backfill_result = await ingest_source(
                self.bus,
                source,
                s.backfill_repo,
                demo_week=s.demo_week,
                demo_seed=s.demo_seed,
                token=s.github_token.get_secret_value() if s.github_token else None,
                github_api_url=s.github_api_url,
            )
            log.info("backfill from %s done: %s", source, self.backfill_result.summary())
        except SourceError as exc:
            self.backfill_error = str(exc)
            log.error("backfill from %s failed: %s", source, exc)
        except Exception as exc:
            self.backfill_error = f"{type(exc).__name__}: {exc}"
            log.exception("backfill from %s failed", source)
        finally:
            self.backfill_done.set()


async def github_pollers(service: IngestService) -> list[Poller]:
    """The PyGithub poller for `settings.repos` (one task, repositories in turn)."""
    from .adapters.github import PyGithubSource
    from .adapters.kv import KvIngestState
    from .sync import GithubPoller

    s = service.settings
    js = service.bus.js
    state = await KvIngestState.open(js)
    token = s.github_token.get_secret_value() if s.github_token else None
    if token is None:
        log.warning(
            "no REPODIGEST_GITHUB_TOKEN: polling %s unauthenticated (60 requests/hour)",
            ", ".join(s.repos),
        )
    source = PyGithubSource(token, s.github_api_url, per_page=s.github_per_page)
    backfill = timedelta(days=s.poll_backfill_days) if s.poll_backfill_days else None
    return [
        GithubPoller(
            service.bus,
            state,
            source,
            s.repos,
            interval=s.poll_interval,
            backfill=backfill,
            graphql_backfill=s.github_graphql_backfill,
        )
    ]


def settings_problems(settings: IngestSettings) -> list[str]:
    """What stops these settings from working, each said so that a person can fix it."""
    problems = []
    if settings.webhook_enabled:
        from .adapters.webhooks import secret_problem  # the one rule for a webhook secret

        problem = secret_problem(settings.webhook_secret)
        if problem is not None:
            problems.append(problem)
    if settings.backfill_source:
        from .domain.sources import parse_source_spec

        try:
            spec = parse_source_spec(settings.backfill_source)
        except SourceError as exc:
            problems.append(f"REPODIGEST_BACKFILL_SOURCE: {exc}")
        else:
            if spec.kind in ("github", "github-graphql") and not settings.backfill_repo:
                problems.append(
                    f"REPODIGEST_BACKFILL_SOURCE={spec.kind} needs "
                    "REPODIGEST_BACKFILL_REPO (OWNER/NAME)"
                )
    return problems


async def webhook_receivers(service: IngestService) -> list[Poller]:
    """The GitHub webhook endpoint (HMAC-verified; deliveries remembered in the KV bucket)."""
    from .adapters.kv import KvIngestState
    from .adapters.webhooks import WebhookLimits, webhook_server

    s = service.settings
    # the secret is checked once, by `secret_problem`: in `settings_problems` before start-up,
    # and by webhook_server (WebhookConfigError) for a service built without that check
    state = await KvIngestState.open(service.bus.js)
    # with configured repositories, an organisation-wide hook's other repositories are ignored
    limits = WebhookLimits(
        max_body=s.webhook_max_body,
        max_bodies=s.webhook_max_bodies,
        max_connections=s.webhook_max_connections,
        header_timeout=s.webhook_header_timeout,
        body_timeout=s.webhook_body_timeout,
        idle_timeout=s.webhook_idle_timeout,
    )
    return [
        webhook_server(
            service.bus,
            state,
            s.webhook_secret,
            host=s.webhook_host,
            port=s.webhook_port,
            path=s.webhook_path,
            repos=s.repos or None,
            limits=limits,
        )
    ]


def build_service(
    settings: IngestSettings, runtime: Runtime, pollers: Sequence[Poller] = ()
) -> IngestService:
    """Ingest on `runtime` (its bus); `pollers` run beside what the settings configure (the
    GitHub poller for `repos`, the webhook endpoint)."""
    service = IngestService(settings, runtime.bus("ingest"))
    service.pollers.extend(pollers)
    if settings.repos:
        service.poller_factories.append(github_pollers)
    if settings.webhook_enabled:
        service.poller_factories.append(webhook_receivers)
    return service
