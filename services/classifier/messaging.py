"""What the classifier consumes and publishes: its durable consumer and its contract."""

from __future__ import annotations

from typing import Any

from shared.events import EnrichedFact, GithubFact, SyncWatermark, WatermarkForwarded
from shared.messaging import (
    DURABLE_CLASSIFIER,
    STREAM_GITHUB,
    ConsumerSpec,
    Contract,
    Publication,
    Subscription,
)

from .handlers import RELOAD_SUBJECT, ReloadReply

CONSUMER = ConsumerSpec(
    DURABLE_CLASSIFIER,
    STREAM_GITHUB,
    "rd.github.>",
    description="GitHub facts and sync watermarks, tagged in stream order",
)

CONTRACT = Contract(
    "classifier",
    subscribes=(
        Subscription(GithubFact | SyncWatermark, consumer=CONSUMER),
        Subscription(
            dict[str, Any],
            subject=RELOAD_SUBJECT,
            reply=ReloadReply,
            description="core NATS request, every replica answers: re-read the rule "
            "profiles (a broken one keeps the previous rules)",
        ),
    ),
    publishes=(
        Publication(
            "rd.enriched.{kind}.{action}.{owner}.{repo}",
            EnrichedFact,
            "a fact with its tags, in the order of RD_GITHUB",
        ),
        Publication(
            "rd.enriched.sync.watermark.{owner}.{repo}",
            WatermarkForwarded,
            "a sync watermark, after every fact it follows",
        ),
        Publication(
            "rd.dead.classifier",
            bytes,
            "a message the classifier could not process, byte for byte; the reason in headers",
        ),
    ),
)
