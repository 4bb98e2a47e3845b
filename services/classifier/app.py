"""The classifier service: one durable consumer on RD_GITHUB, tagged facts out on RD_ENRICHED."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shared.bus import CONSUMERS, DURABLE_CLASSIFIER, Consumer
from shared.events import GITHUB_EVENT_ADAPTER, GithubFact, SyncWatermark

from .adapters.profiles import load_registry
from .config import ClassifierSettings
from .domain.rules import ProfileRegistry
from .handlers import enrich_batch

if TYPE_CHECKING:
    from faststream.nats import NatsRouter

    from shared.bus import Bus
    from shared.service import Runtime

log = logging.getLogger("repodigest.classifier")


class ClassifierService:
    name = "classifier"
    consumers: Sequence[str] = (DURABLE_CLASSIFIER,)

    def __init__(self, registry: ProfileRegistry, bus: "Bus") -> None:
        self.registry = registry
        self.bus = bus
        self.consumer: Consumer = Consumer(
            bus, CONSUMERS[DURABLE_CLASSIFIER], decode=GITHUB_EVENT_ADAPTER.validate_json,
            handle_batch=self.on_github_events)

    async def on_github_events(self, events: list[GithubFact | SyncWatermark]) -> None:
        await enrich_batch(events, self.registry, self.bus.publish)

    def register(self, router: "NatsRouter") -> None:
        self.consumer.register(router)

    async def start(self) -> None:
        for name, ruleset in sorted(self.registry.rulesets.items()):
            log.info("classifier profile %s version %s", name, ruleset.ref.version[:12],
                     extra={"profile": name, "ruleset_version": ruleset.ref.version})

    async def stop(self) -> None:
        return None

    async def ready(self) -> bool:
        return True


def build_service(settings: ClassifierSettings, runtime: "Runtime") -> ClassifierService:
    """Load and compile every profile now, so a bad profile stops start-up with its message."""
    registry = load_registry(settings.profiles_dir, settings.codeowners_files(),
                             settings.profile_overrides)
    return ClassifierService(registry, runtime.bus("classifier"))
