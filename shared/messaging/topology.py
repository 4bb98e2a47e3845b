"""Topology: the streams, buckets and durable consumers the services need, created idempotently.

Streams and buckets are shared (`Topology`); each durable consumer is declared by the service
that owns it (a `ConsumerSpec` beside its handlers) and created by the runtime that runs it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nats.js.api import (
    AckPolicy as JsAckPolicy,
)
from nats.js.api import (
    ConsumerConfig,
    DeliverPolicy,
    DiscardPolicy,
    RetentionPolicy,
    StorageType,
    StreamConfig,
    SubjectTransform,
)
from nats.js.errors import BadRequestError, NotFoundError

from .partitions import count_of, transform_destinations
from .subjects import (
    KV_INGEST_STATE,
    OBJECT_BUCKET,
    STREAM_DEAD,
    STREAM_ENRICHED,
    STREAM_GITHUB,
    STREAM_REPORTS,
)

if TYPE_CHECKING:
    from nats.js.client import JetStreamContext

log = logging.getLogger("repodigest.bus")


@dataclass(frozen=True)
class ConsumerSpec:
    durable: str
    stream: str
    filter_subject: str
    max_deliver: int = 8
    ack_wait: float = 120.0
    # at most this many messages handled (and, in the summarizer, committed) together; twice as
    # many are requested ahead, so a busy stream hands over full batches while a lone message is
    # handled as soon as it arrives (no waiting for a batch to fill). 1024 rather than 256: the
    # summarizer's per-batch costs (commit, due-summary check, thread hand-off) and the
    # classifier's ack wait are shared by 4x more events, ~15% less CPU per event (bench.pipeline)
    batch_size: int = 1024
    # batches requested ahead of the one in hand; 1 where handling one message takes seconds
    # (a replica that is busy rendering should not hold the next report while another idles)
    ahead: int = 2
    # for the AsyncAPI document: what the consumer does with what it reads
    description: str = ""

    def config(self, start_sequence: int | None = None) -> ConsumerConfig:
        """The consumer's configuration: from the stream's first message, or from
        `start_sequence` (a new partition count's durables start after what was drained)."""
        return ConsumerConfig(
            durable_name=self.durable,
            filter_subject=self.filter_subject,
            ack_policy=JsAckPolicy.EXPLICIT,
            deliver_policy=(
                DeliverPolicy.ALL if start_sequence is None else DeliverPolicy.BY_START_SEQUENCE
            ),
            opt_start_seq=start_sequence,
            max_deliver=self.max_deliver,
            ack_wait=self.ack_wait,
            max_ack_pending=20_000,
        )


class PartitionMismatch(RuntimeError):
    """A stream is partitioned for another summarizer count than this process's setting."""


@dataclass(frozen=True)
class Topology:
    """Stream settings an operator may change (replicas 3 in production, file storage always)."""

    replicas: int = 1
    duplicate_window: float = 600.0  # seconds JetStream de-duplicates by Nats-Msg-Id
    dead_max_age: float = 30 * 86400.0
    # summarizer partitions (REPODIGEST_SUMMARIZER_PARTITIONS): RD_ENRICHED and RD_REPORTS deal
    # the repositories out by a subject transform when > 1 (shared/messaging/partitions.py)
    partitions: int = 1

    def stream_configs(self) -> list[StreamConfig]:
        transforms = transform_destinations(self.partitions)

        def stream(
            name: str, subjects: list[str], description: str, max_age: float | None = None
        ) -> StreamConfig:
            transform = transforms.get(name)
            return StreamConfig(
                name=name,
                subjects=subjects,
                description=description,
                max_age=max_age,
                storage=StorageType.FILE,
                num_replicas=self.replicas,
                duplicate_window=self.duplicate_window,
                discard=DiscardPolicy.OLD,
                retention=RetentionPolicy.LIMITS,
                subject_transform=(
                    SubjectTransform(src=transform[0], dest=transform[1]) if transform else None
                ),
            )

        return [
            # the event log is the source of truth: kept without age limit
            stream(STREAM_GITHUB, ["rd.github.>"], "GitHub facts from ingest"),
            stream(STREAM_ENRICHED, ["rd.enriched.>"], "facts with classifier tags"),
            stream(
                STREAM_REPORTS,
                ["rd.summary.>", "rd.report.>"],
                "report requests, window summaries, report-ready",
            ),
            stream(
                STREAM_DEAD,
                ["rd.dead.>"],
                "messages a service could not process, with the reason",
                max_age=self.dead_max_age,
            ),
        ]


async def ensure_topology(
    js: JetStreamContext,
    topology: Topology | None = None,
    consumers: Sequence[ConsumerSpec] = (),
    *,
    repartition: bool = False,
) -> None:
    """Create streams, the given durable consumers, the KV bucket and the object store;
    idempotent. An existing stream partitioned for another summarizer count is left as it is and
    PartitionMismatch raised, unless `repartition` (`repodigest partitions --set`, which
    drains first)."""
    topology = topology or Topology()
    for cfg in topology.stream_configs():
        try:
            await js.add_stream(config=cfg)
        except BadRequestError:
            current = (await js.stream_info(str(cfg.name))).config
            have, want = count_of(current.subject_transform), count_of(cfg.subject_transform)
            if have != want and not repartition:
                raise PartitionMismatch(
                    f"{cfg.name} is partitioned for {have} summarizer(s) (its subject "
                    f"transform) but REPODIGEST_SUMMARIZER_PARTITIONS is {want} "
                    f"here: give every service and the CLI the deployment's count "
                    f"(REPODIGEST_SUMMARIZER_PARTITIONS={have}); to change the count, run "
                    f"`repodigest partitions --set {want}` (README, "
                    "Operations: it refuses until every summarizer partition is drained)"
                ) from None
            await js.update_stream(config=cfg)
    for spec in consumers:
        name = spec.durable
        try:
            existing = await js.consumer_info(spec.stream, name)
        except NotFoundError:
            await js.add_consumer(spec.stream, config=spec.config())
            continue
        # an existing durable keeps its position and whatever an operator tuned (adding it again
        # would silently reset ack_wait / max_deliver); differences are reported, not undone
        wanted = spec.config()
        drift = [
            f"{field}={getattr(existing.config, field)} (code: {getattr(wanted, field)})"
            for field in ("filter_subject", "max_deliver", "ack_wait", "max_ack_pending")
            if getattr(existing.config, field) != getattr(wanted, field)
        ]
        if drift:
            log.info("consumer %s keeps its own settings: %s", name, ", ".join(drift))
    try:
        await js.key_value(KV_INGEST_STATE)
    except (NotFoundError, BadRequestError):
        from nats.js.api import KeyValueConfig

        await js.create_key_value(
            KeyValueConfig(
                bucket=KV_INGEST_STATE,
                history=1,
                storage=StorageType.FILE,
                replicas=topology.replicas,
            )
        )
    try:
        await js.object_store(OBJECT_BUCKET)
    except (NotFoundError, BadRequestError):
        from nats.js.api import ObjectStoreConfig

        await js.create_object_store(
            OBJECT_BUCKET,
            ObjectStoreConfig(
                bucket=OBJECT_BUCKET, storage=StorageType.FILE, replicas=topology.replicas
            ),
        )
