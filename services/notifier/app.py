"""The notifier service: one durable consumer of report-ready; digests go to chat, mail, GitHub."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from shared.events import Artifact, DeadLetter
from shared.messaging import Consumer, ConsumerSpec, Subjects

from .adapters import redact as redaction
from .adapters.artifacts import ArtifactReader
from .adapters.senders import Senders
from .adapters.state import KvDeliveryLog
from .config import NotifierSettings
from .handlers import Delivery, DeliveryLog, Material, RetryPolicy, Sender, decode, notify_report
from .messaging import CONSUMER, CONTRACT

if TYPE_CHECKING:
    from shared.messaging import ServiceRouter
    from shared.service import Runtime

log = logging.getLogger("repodigest.notifier")

NAME = "notifier"


class NotifierService:
    """Consumes ReportReady from RD_REPORTS; posts each route's digest once per revision."""

    name = NAME
    consumers: Sequence[ConsumerSpec] = (CONSUMER,)
    contract = CONTRACT

    def __init__(
        self,
        settings: NotifierSettings,
        runtime: Runtime,
        sender: Sender | None = None,
        state: DeliveryLog | None = None,
    ) -> None:
        self.settings = settings
        self.routes = settings.routes()  # a bad route file fails here, before connecting
        self.bus = runtime.bus(NAME)
        self.redact = redaction.Redactor(settings.secrets())
        self._filters: list = []
        self.sender = sender or Senders(
            settings.notifier_timeout,
            settings.github_token.get_secret_value() if settings.github_token else None,
            settings.github_api_url,
        )
        self._state = state
        # names this instance in the records it writes (whose `sending` claim it is)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.reader: ArtifactReader | None = None
        self.policy = RetryPolicy(
            settings.notifier_attempts,
            settings.notifier_backoff,
            settings.notifier_backoff_max,
            settings.notifier_deadline,
        )
        self.consumer = Consumer(self.bus, CONSUMER, decode, handle=self.on_report_ready)

    def link(self, artifact: Artifact) -> str | None:
        base = self.settings.notifier_public_base_url
        if base:
            return f"{base.rstrip('/')}/{artifact.key}"
        return artifact.uri if artifact.uri.startswith(("https://", "http://")) else None

    async def on_report_ready(self, delivery: Delivery) -> None:
        assert self._state is not None and self.reader is not None, "start() first"
        material = Material(
            delivery.event,
            self.reader,
            self.link,
            self.settings.notifier_storylines,
            self.settings.notifier_attach_max_bytes,
        )
        await notify_report(
            delivery,
            self.routes,
            state=self._state,
            sender=self.sender,
            material=material,
            dead_letter=self.dead_letter,
            policy=self.policy,
            redact=self.redact,
            owner=self.owner,
        )

    async def dead_letter(self, delivery: Delivery, reason: str) -> None:
        """The report-ready, byte for byte, in RD_DEAD with the route and why it was refused."""
        await self.bus.dead_letter(
            delivery.raw,
            DeadLetter(
                service=NAME,
                reason=self.redact(reason),
                subject=Subjects.report_ready(delivery.event.data.repo),
                event_id=delivery.event.id,
                failed_at=datetime.now(UTC),
            ),
        )

    def register(self, router: ServiceRouter) -> None:
        self.consumer.register(router)

    async def start(self) -> None:
        self._filters = redaction.install(
            self.redact, redaction.LIBRARY_LOGGERS + ("repodigest.notifier", "repodigest.bus")
        )
        if self._state is None:
            self._state = await KvDeliveryLog.open(self.bus.js, self.settings.jetstream_replicas)
        s = self.settings
        self.reader = ArtifactReader(
            self.bus.js,
            {
                "endpoint_url": s.s3_endpoint_url,
                "region_name": s.s3_region,
                "aws_access_key_id": s.s3_access_key_id,
                "aws_secret_access_key": (
                    s.s3_secret_access_key.get_secret_value() if s.s3_secret_access_key else None
                ),
            },
        )
        if not self.routes:
            log.warning(
                "notifier: no routes (REPODIGEST_NOTIFIER_ROUTES / _ROUTES_FILE); "
                "report-ready events are acknowledged without posting"
            )
        for route in self.routes:
            log.info(
                "notifier route %s: %s for %s, %s windows",
                route.name,
                route.kind,
                ", ".join(route.repos),
                ", ".join(route.windows),
            )
        if not s.notifier_public_base_url:
            log.info(
                "REPODIGEST_NOTIFIER_PUBLIC_BASE_URL is unset: digests link only to "
                "artifacts whose URI is http(s)"
            )

    async def ready(self) -> None:
        """The delivery record answers (a read of a key that is never written)."""
        if self._state is None:
            raise RuntimeError("the delivery record is not open yet")
        await self._state.get("_probe_/ready")

    async def stop(self) -> None:
        close = getattr(self.sender, "close", None)
        if close is not None:
            await close()
        redaction.uninstall(self._filters)
        self._filters = []


def build_service(
    settings: NotifierSettings,
    runtime: Runtime,
    sender: Any = None,
    state: DeliveryLog | None = None,
) -> NotifierService:
    return NotifierService(settings, runtime, sender, state)
