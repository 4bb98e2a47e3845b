"""What the notifier consumes and publishes: its durable consumer and its contract."""

from __future__ import annotations

from shared.events import ReportReady
from shared.messaging import (
    DURABLE_NOTIFIER,
    STREAM_REPORTS,
    ConsumerSpec,
    Contract,
    Publication,
    Subscription,
)

# one report at a time: its routes are posted (with retries bounded by the notifier's deadline,
# well inside ack_wait) before the next report is taken
CONSUMER = ConsumerSpec(
    DURABLE_NOTIFIER,
    STREAM_REPORTS,
    "rd.report.ready.>",
    batch_size=1,
    ahead=1,
    ack_wait=600.0,
    description="report-ready: each route's digest posted once per revision",
)

CONTRACT = Contract(
    "notifier",
    subscribes=(Subscription(ReportReady, consumer=CONSUMER),),
    publishes=(
        Publication(
            "rd.dead.notifier",
            bytes,
            "a report-ready a route refused for good, byte for byte; the route and the "
            "reason in headers",
        ),
    ),
)
