"""What the summarizer consumes and publishes: its two durable consumers and its contract."""

from __future__ import annotations

from shared import answers
from shared.events import EnrichedFact, ReportRequested, WatermarkForwarded, WindowSummarized
from shared.messaging import (
    DURABLE_SUMMARIZER,
    DURABLE_SUMMARIZER_REQUESTS,
    STREAM_ENRICHED,
    STREAM_REPORTS,
    ConsumerSpec,
    Contract,
    Publication,
    Subscription,
)

FOLD = ConsumerSpec(
    DURABLE_SUMMARIZER,
    STREAM_ENRICHED,
    "rd.enriched.>",
    description="tagged facts folded into the projections; watermarks close windows",
)
REQUESTS = ConsumerSpec(
    DURABLE_SUMMARIZER_REQUESTS,
    STREAM_REPORTS,
    "rd.summary.requested.>",
    batch_size=16,
    description="report requests: a window's summary",
)

CONTRACT = Contract(
    "summarizer",
    subscribes=(
        Subscription(EnrichedFact | WatermarkForwarded, consumer=FOLD),
        Subscription(ReportRequested, consumer=REQUESTS),
    ),
    publishes=(
        Publication(
            "rd.summary.ready.{owner}.{repo}", WindowSummarized, "a window's summary, one revision"
        ),
        Publication(
            answers.SUBJECT,
            answers.UnchangedRequest,
            "core NATS request to the renderer: answer a request for an unchanged window "
            "with the report-ready already announced",
        ),
        Publication(
            "rd.dead.summarizer",
            bytes,
            "a message the summarizer could not process, byte for byte; the reason in headers",
        ),
    ),
)
