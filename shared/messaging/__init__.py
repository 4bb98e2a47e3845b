"""The bus, in small modules (one import path for the services: `shared.messaging`).

- `subjects`: stream, bucket and durable names; the subjects events travel on
- `topology`: streams and buckets (`Topology`), a durable's declaration (`ConsumerSpec`)
- `publisher`: `Bus`, the one publishing path (acks gathered on one inbox), dead letters
- `pull`, `consumer`: `StreamingPull` and the durable `Consumer` on it
- `outcomes`: the ack / retry with backoff / dead-letter rules (`Poison`)
- `partitions`: the summarizer's partitions of the repositories (`Partition`, `partition_of`)
- `tracing`: spans and metrics; `collector`: GC tuning for batches
- `router`: `ServiceRouter` and `Contract` (what a service consumes and publishes)
- `asyncapi`: the AsyncAPI document of every service; `testing`: an in-memory bus
"""

from .collector import collector_paused
from .consumer import Consumer
from .outcomes import ConsumerStats, Poison, Transient, backoff_seconds
from .partitions import Partition, partition_of
from .publisher import PUBLISH_ATTEMPTS, PUBLISH_TIMEOUT, Bus, Connection, event_headers
from .router import Contract, Publication, ServiceRouter, Subscription
from .subjects import (
    DURABLE_CLASSIFIER,
    DURABLE_NOTIFIER,
    DURABLE_RENDERER,
    DURABLE_SUMMARIZER,
    DURABLE_SUMMARIZER_REQUESTS,
    KV_INGEST_STATE,
    KV_NOTIFIER_STATE,
    OBJECT_BUCKET,
    STREAM_DEAD,
    STREAM_ENRICHED,
    STREAM_GITHUB,
    STREAM_REPORTS,
    Subjects,
    repo_from_subject,
    repo_tokens,
    stream_of,
    subject_matches,
    subject_template,
    token,
    untoken,
)
from .topology import ConsumerSpec, PartitionMismatch, Topology, ensure_topology
from .tracing import telemetry_middleware

__all__ = [
    "DURABLE_CLASSIFIER",
    "DURABLE_NOTIFIER",
    "DURABLE_RENDERER",
    "DURABLE_SUMMARIZER",
    "DURABLE_SUMMARIZER_REQUESTS",
    "KV_INGEST_STATE",
    "KV_NOTIFIER_STATE",
    "OBJECT_BUCKET",
    "PUBLISH_ATTEMPTS",
    "PUBLISH_TIMEOUT",
    "STREAM_DEAD",
    "STREAM_ENRICHED",
    "STREAM_GITHUB",
    "STREAM_REPORTS",
    "Bus",
    "Connection",
    "ConsumerSpec",
    "Consumer",
    "ConsumerStats",
    "Contract",
    "Partition",
    "PartitionMismatch",
    "Poison",
    "Publication",
    "ServiceRouter",
    "Subjects",
    "Subscription",
    "Topology",
    "Transient",
    "backoff_seconds",
    "collector_paused",
    "ensure_topology",
    "partition_of",
    "event_headers",
    "repo_from_subject",
    "repo_tokens",
    "stream_of",
    "subject_matches",
    "subject_template",
    "telemetry_middleware",
    "token",
    "untoken",
]
