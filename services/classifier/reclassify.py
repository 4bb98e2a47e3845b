"""Re-classifying history: replay RD_GITHUB facts through the current rules into RD_ENRICHED.

The facts are read with an ephemeral pull consumer (no durable state, gone when done) filtered by
repository subject, from the first message up to the last one present when the replay started.
Every fact is classified and published as an `EnrichedFact`; under a new rule-set version that is
a new enriched id, so the summarizer folds it and replaces the fact's tags (it keys activity by
fact id, so nothing is counted twice). Then the latest sync watermark of each repository is
forwarded once more, under an id of its own (the summarizer has already processed the original
one), so that the summarizer re-summarizes the windows the new tags changed (revision n+1 where
figures differ).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import nats.errors
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from pydantic import ValidationError

from shared.events import GITHUB_EVENT_ADAPTER, GithubFact, SyncWatermark, WatermarkForwarded
from shared.events.envelope import CloudEvent, deterministic_id
from shared.messaging import STREAM_GITHUB, Poison, Subjects, event_headers, repo_tokens

from .domain.rules import ProfileRegistry
from .handlers import classify_fact

if TYPE_CHECKING:
    from nats.js.client import JetStreamContext

    from shared.service import Runtime

log = logging.getLogger("repodigest.classifier.reclassify")

PUBLISH_TIMEOUT = 15.0


@dataclass
class ReclassifyResult:
    facts: int = 0  # facts classified and published (JetStream keeps one copy of repeats)
    skipped: int = 0  # messages that could not be decoded or classified
    read: int = 0  # messages read from RD_GITHUB (facts, watermarks, skipped, before `since`)
    before_since: int = 0  # facts older than `since`, left as they are
    watermarks: dict[str, datetime] = field(default_factory=dict)  # re-forwarded, per repository
    rulesets: dict[str, str] = field(default_factory=dict)  # repository -> "profile@version"
    problems: list[str] = field(default_factory=list)  # the first few skipped messages, why


def replay_subject(repo: str | None) -> str:
    """Every GitHub fact and watermark of one repository (or of all)."""
    return f"rd.github.*.*.{repo_tokens(repo)}" if repo else "rd.github.>"


class JetStreamPublisher:
    """`publish(event, subject)` over a plain nats-py JetStream context (no FastStream broker)."""

    def __init__(self, js: JetStreamContext) -> None:
        self.js = js

    async def publish(self, event: CloudEvent, subject: str) -> Any:
        headers = event_headers(event)
        for attempt in range(1, 5):
            try:
                return await self.js.publish(
                    subject, event.to_bytes(), headers=headers, timeout=PUBLISH_TIMEOUT
                )
            except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                if attempt == 4:
                    raise
                await asyncio.sleep(0.5 * 2**attempt)  # backoff; ids make a retry harmless


def reclassified_watermark(mark: SyncWatermark, versions: str) -> WatermarkForwarded:
    """The watermark forwarded again after a replay: same data, an id of its own (the original
    forwarded id is already processed downstream and would be ignored)."""
    event = WatermarkForwarded.create(mark.data)
    return event.model_copy(update={"id": deterministic_id(event.id, "reclassified", versions)})


async def reclassify(
    js: JetStreamContext | Runtime,
    repo: str | None,
    *,
    since: datetime | None = None,
    progress: bool = False,
    registry: ProfileRegistry | None = None,
    publish: Callable[[CloudEvent, str], Awaitable[Any]] | None = None,
    batch_size: int = 500,
    fetch_timeout: float = 5.0,
) -> ReclassifyResult:
    """Replay the facts of `repo` (all repositories when None) through `registry`'s rules.

    `js` is a nats-py JetStream context or a started `shared.service.Runtime` (its broker's).
    `since` keeps facts that happened before it (by the fact's time) as they are. `registry`
    defaults to the built-in profiles; `publish` to JetStream over `js`.
    """
    if hasattr(js, "js"):  # a Runtime
        js = js.js
    if registry is None:
        from .adapters.profiles import load_registry

        registry = await asyncio.to_thread(load_registry)
    publish = publish or JetStreamPublisher(js).publish
    subject = replay_subject(repo)
    sub = await js.pull_subscribe(
        subject,
        stream=STREAM_GITHUB,
        config=ConsumerConfig(
            filter_subject=subject,
            deliver_policy=DeliverPolicy.ALL,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=120.0,
            mem_storage=True,
        ),
    )
    result = ReclassifyResult()
    latest: dict[str, SyncWatermark] = {}
    bar = _Progress(progress, f"reclassifying {repo or 'all repositories'}")
    try:
        total = (await sub.consumer_info()).num_pending or 0  # the end of the replay
        bar.start(total)
        idle = 0
        while result.read < total:
            try:
                msgs = await sub.fetch(min(batch_size, total - result.read), timeout=fetch_timeout)
            except (TimeoutError, nats.errors.TimeoutError):
                idle += 1
                if idle >= 3:
                    raise RuntimeError(
                        f"RD_GITHUB stopped delivering after {result.read} of {total} "
                        f"messages on {subject}; run the command again"
                    ) from None
                continue
            idle = 0
            pending: list[Awaitable[Any]] = []
            for msg in msgs:
                result.read += 1
                event = _decode(msg.data, msg.subject, result)
                if isinstance(event, SyncWatermark):
                    old = latest.get(event.data.repo)
                    if old is None or event.data.watermark >= old.data.watermark:
                        latest[event.data.repo] = event
                elif isinstance(event, GithubFact):
                    if since is not None and event.time < since:
                        result.before_since += 1
                        continue
                    try:
                        enriched = classify_fact(event, registry)
                    except Poison as exc:
                        _skip(result, msg.subject, str(exc))
                        continue
                    data = event.data
                    ref = enriched.data.ruleset
                    result.rulesets[data.repo] = f"{ref.profile}@{ref.version}"
                    pending.append(
                        publish(enriched, Subjects.enriched(data.kind, data.action, data.repo))
                    )
            await asyncio.gather(*pending)  # this batch is stored before the next one is read
            result.facts += len(pending)
            bar.advance(len(msgs))
        for name, mark in sorted(latest.items()):
            version = result.rulesets.get(name, "")
            await publish(reclassified_watermark(mark, version), Subjects.enriched_watermark(name))
            result.watermarks[name] = mark.data.watermark
    finally:
        bar.stop()
        try:
            await sub.unsubscribe()
        except Exception:  # noqa: BLE001 - the ephemeral consumer expires by itself anyway
            pass
    log.info(
        "reclassified %d facts (%d skipped, %d before %s) of %s",
        result.facts,
        result.skipped,
        result.before_since,
        since,
        repo or "all repositories",
    )
    return result


def _decode(
    data: bytes, subject: str, result: ReclassifyResult
) -> GithubFact | SyncWatermark | None:
    try:
        return GITHUB_EVENT_ADAPTER.validate_json(data)
    except (ValidationError, ValueError) as exc:
        # the live classifier dead-lettered it already; a replay just passes over it
        _skip(result, subject, f"invalid event: {' '.join(str(exc).split())[:200]}")
        return None


def _skip(result: ReclassifyResult, subject: str, why: str) -> None:
    result.skipped += 1
    if len(result.problems) < 20:
        result.problems.append(f"{subject}: {why}")


class _Progress:
    """A rich progress bar on stderr when asked for, else nothing."""

    def __init__(self, enabled: bool, what: str) -> None:
        self.enabled, self.what = enabled, what
        self.bar: Any = None
        self.task: Any = None

    def start(self, total: int) -> None:
        if not self.enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self.bar.start()
        self.task = self.bar.add_task(self.what, total=total)

    def advance(self, n: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, n)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
