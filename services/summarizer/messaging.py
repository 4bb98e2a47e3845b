"""What the summarizer consumes and publishes: its two durable consumers and its contract."""

from __future__ import annotations

from shared import answers
from shared.events import EnrichedFact, ReportRequested, WatermarkForwarded, WindowSummarized
from shared.messaging import (
    STREAM_ENRICHED,
    STREAM_REPORTS,
    ConsumerSpec,
    Contract,
    Partition,
    Publication,
    Subscription,
)
from shared.messaging.partitions import UNPARTITIONED


def fold_spec(partition: Partition = UNPARTITIONED) -> ConsumerSpec:
    """The fold's durable for a partition: `summarizer-fold` over `rd.enriched.>` unpartitioned,
    else `summarizer-fold-<i>-of-<n>` over `rd.enriched.<i>.>` (shared/messaging/partitions.py)."""
    return ConsumerSpec(
        partition.fold_durable,
        STREAM_ENRICHED,
        partition.fold_filter,
        description="tagged facts folded into the projections; watermarks close windows "
        "(with REPODIGEST_SUMMARIZER_PARTITIONS=N the stream stores them as "
        "rd.enriched.<p>.<kind>.<action>.<owner>.<repo> and replica p reads rd.enriched.<p>.> "
        "through summarizer-fold-<p>-of-<N>)",
    )


def requests_spec(partition: Partition = UNPARTITIONED) -> ConsumerSpec:
    """The report requests' durable for a partition: the same repositories as its fold."""
    return ConsumerSpec(
        partition.requests_durable,
        STREAM_REPORTS,
        partition.requests_filter,
        batch_size=16,
        description="report requests: a window's summary (partitioned: stored as "
        "rd.summary.requested.<p>.<owner>.<repo>, read by replica p through "
        "summarizer-requests-<p>-of-<N>, the replica that folds the repository's facts)",
    )


# unpartitioned (REPODIGEST_SUMMARIZER_PARTITIONS=1): what the contract documents
FOLD = fold_spec()
REQUESTS = requests_spec()

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
