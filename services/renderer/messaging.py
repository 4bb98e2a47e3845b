"""What the renderer consumes and publishes: its durable consumer and its contract."""

from __future__ import annotations

from shared import answers
from shared.events import ReportReady, WindowSummarized
from shared.messaging import (
    DURABLE_RENDERER,
    STREAM_REPORTS,
    ConsumerSpec,
    Contract,
    Publication,
    Subscription,
)

# one summary at a time, and up to ten minutes for it (a PDF, a narrator with retries)
CONSUMER = ConsumerSpec(
    DURABLE_RENDERER,
    STREAM_REPORTS,
    "rd.summary.ready.>",
    batch_size=1,
    ahead=1,
    ack_wait=600.0,
    description="window summaries, rendered and stored",
)

CONTRACT = Contract(
    "renderer",
    subscribes=(
        Subscription(WindowSummarized, consumer=CONSUMER),
        Subscription(
            answers.UnchangedRequest,
            subject=answers.SUBJECT,
            reply=bytes,
            description=f"core NATS, queue group {answers.QUEUE!r}: answer the requester "
            "with the announced report-ready; replies 'answered' or 'render'",
        ),
    ),
    publishes=(
        Publication(
            "rd.report.ready.{owner}.{repo}", ReportReady, "a revision's artifacts are stored"
        ),
        Publication(
            "rd.answer.report.{request_id}",
            ReportReady,
            "core NATS: the report-ready that answers a request, to the requester",
        ),
        Publication(
            "rd.dead.renderer",
            bytes,
            "a summary the renderer could not render, byte for byte; the reason in headers",
        ),
    ),
)
