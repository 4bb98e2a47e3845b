"""The classifier service: one durable consumer on RD_GITHUB, tagged facts out on RD_ENRICHED."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from faststream import Context

from shared.events import GITHUB_EVENT_ADAPTER, GithubFact, SyncWatermark
from shared.messaging import Consumer

from .adapters.profiles import load_registry
from .config import ClassifierSettings
from .domain.rules import ProfileRegistry
from .handlers import RELOAD_SUBJECT, ReloadReply, enrich_batch, reload_rules
from .messaging import CONSUMER, CONTRACT

if TYPE_CHECKING:
    from shared.messaging import Bus, ConsumerSpec, ServiceRouter
    from shared.service import Runtime

log = logging.getLogger("repodigest.classifier")


class ClassifierService:
    """Rules load at start and on request: a core NATS request on `rd.control.classifier.reload`
    (every replica subscribes, no queue group, so every replica reloads and answers) re-reads the
    profiles; rules that fail to load are refused with file:LINE: reason and the previous rules
    stay in use."""

    name = "classifier"
    consumers: Sequence[ConsumerSpec] = (CONSUMER,)
    contract = CONTRACT

    def __init__(
        self,
        registry: ProfileRegistry,
        bus: Bus,
        loader: Callable[[], ProfileRegistry] | None = None,
    ) -> None:
        self.registry = registry
        self.bus = bus
        self.loader = loader
        self._reloading = asyncio.Lock()
        self.consumer: Consumer = Consumer(
            bus,
            CONSUMER,
            decode=GITHUB_EVENT_ADAPTER.validate_json,
            handle_batch=self.on_github_events,
        )

    async def on_github_events(self, events: list[GithubFact | SyncWatermark]) -> None:
        await enrich_batch(events, self.registry, self.bus.publish_many)

    async def reload(self) -> ReloadReply:
        """Re-read the profiles; the new rules apply from the next batch on."""
        if self.loader is None:
            return ReloadReply(
                ok=False,
                profiles=self.registry.versions(),
                error="this classifier was built without a profile loader",
            )
        async with self._reloading:
            self.registry, reply = await reload_rules(self.loader, self.registry)
        if reply.ok:
            log.info(
                "classifier rules reloaded; changed: %s",
                ", ".join(reply.changed) or "none",
                extra={"changed": list(reply.changed)},
            )
            self._log_profiles()
        else:
            log.error(
                "classifier rules NOT reloaded, the previous ones stay in use:\n%s", reply.error
            )
        return reply

    def register(self, router: ServiceRouter) -> None:
        self.consumer.register(router)
        service = self

        @router.subscriber(RELOAD_SUBJECT, title="classifier-reload")
        async def on_reload_requested(message: Annotated[Any, Context("message")]) -> dict:
            return (await service.reload()).model_dump(mode="json")

    def _log_profiles(self) -> None:
        for name, ruleset in sorted(self.registry.rulesets.items()):
            log.info(
                "classifier profile %s version %s",
                name,
                ruleset.ref.version[:12],
                extra={"profile": name, "ruleset_version": ruleset.ref.version},
            )
            for warning in ruleset.warnings:  # e.g. a labeler key the action also ignores
                log.warning("%s", warning, extra={"profile": name})

    async def start(self) -> None:
        self._log_profiles()

    async def stop(self) -> None:
        return None

    async def ready(self) -> bool:
        return True


def build_service(
    settings: ClassifierSettings,
    runtime: Runtime,
    loader: Callable[[], ProfileRegistry] | None = None,
) -> ClassifierService:
    """Load and compile every profile now, so a bad profile stops start-up with its message.
    `loader` (by default the profiles of `settings`) is also what a reload request runs."""
    if loader is None:
        # the identities file is read again on a reload, like the profiles
        loader = functools.partial(
            load_registry,
            settings.profiles_dir,
            settings.codeowners_files(),
            settings.profile_overrides,
            identities=settings.identities,
        )
    return ClassifierService(loader(), runtime.bus("classifier"), loader)
