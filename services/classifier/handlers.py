"""Use cases of the classifier: classify one fact, handle a consumed batch in stream order, reload rules."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from shared.events import EnrichedFact, GithubFact, SyncWatermark, WatermarkForwarded
from shared.events.envelope import CloudEvent
from shared.messaging import Poison, Subjects
from shared.telemetry import consumed_context, continuing, tracer, tracing_enabled

from .domain.identities import identify
from .domain.rules import ProfileError, ProfileRegistry

_tracer = tracer("classifier")


class Publisher(Protocol):
    async def publish_many(self, batch: Sequence[tuple[CloudEvent, str, Any]]) -> Any: ...


def classify_fact(fact: GithubFact, registry: ProfileRegistry) -> EnrichedFact:
    """The fact with its item's tags under the repository's rule set."""
    ruleset = registry.for_repo(fact.data.repo)
    try:
        tags = ruleset.classify_cached(fact.data.item)
        if registry.identities is not None:
            tags = identify(fact.data, tags, registry.identities)
    except Exception as exc:
        raise Poison(
            f"classification failed under profile {ruleset.name!r} ({type(exc).__name__}: {exc})"
        ) from exc
    return EnrichedFact.create(fact, tags, ruleset.ref)


def outgoing(
    event: GithubFact | SyncWatermark, registry: ProfileRegistry, tracing: bool | None = None
) -> tuple[EnrichedFact | WatermarkForwarded, str]:
    """What to publish for one consumed event, and where (`tracing`: whether spans are recorded,
    if the caller already knows)."""
    if isinstance(event, SyncWatermark):
        return WatermarkForwarded.create(event.data), Subjects.enriched_watermark(event.data.repo)
    if isinstance(event, GithubFact):
        data = event.data
        if not (tracing_enabled() if tracing is None else tracing):
            return classify_fact(event, registry), Subjects.enriched(
                data.kind, data.action, data.repo
            )
        # in the fact's own trace (it came in a batch of many traces)
        with (
            continuing(event.id),
            _tracer.start_as_current_span(
                "classifier.classify",
                attributes={"repodigest.fact_id": event.id, "repodigest.repo": event.data.repo},
            ) as span,
        ):
            enriched = classify_fact(event, registry)
            span.set_attributes(
                {
                    "repodigest.ruleset": enriched.data.ruleset.profile,
                    "repodigest.modules": len(enriched.data.tags.modules),
                }
            )
        return enriched, Subjects.enriched(data.kind, data.action, data.repo)
    raise Poison(f"the classifier does not handle {type(event).__name__} events")


async def enrich_batch(
    events: Sequence[GithubFact | SyncWatermark],
    registry: ProfileRegistry,
    publish_many: Callable[[Sequence[tuple[CloudEvent, str, Any]]], Awaitable[Any]],
) -> int:
    """Classify and publish a batch in stream order.

    Facts are published together (one `publish_many`, acknowledgements gathered), each in the
    trace of the fact it came from; a watermark waits until every fact before it is
    acknowledged, so downstream never sees a watermark before the facts it covers. Returns how
    many events were published.
    """
    # all-or-nothing: classify before publishing
    tracing = tracing_enabled()
    results = [(e.id, *outgoing(e, registry, tracing)) for e in events]
    run: list[tuple[CloudEvent, str, Any]] = []
    for source_id, event, subject in results:
        if isinstance(event, WatermarkForwarded):
            if run:
                await publish_many(run)
                run = []
            await publish_many([(event, subject, consumed_context(source_id))])
        else:
            run.append((event, subject, consumed_context(source_id)))
    if run:
        await publish_many(run)
    return len(results)


# ---------------------------------------------------------------- rule reloads

RELOAD_SUBJECT = "rd.control.classifier.reload"


class ReloadReply(BaseModel):
    """What a classifier answers on `rd.control.classifier.reload`."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    service: str = "classifier"
    # profile -> rule-set version now in use (the previous ones when the reload failed)
    profiles: dict[str, str] = Field(default_factory=dict)
    changed: tuple[str, ...] = ()  # profiles whose version changed, added or removed
    error: str | None = None  # why the new rules were refused: file:LINE: reason


async def reload_rules(
    load: Callable[[], ProfileRegistry], current: ProfileRegistry
) -> tuple[ProfileRegistry, ReloadReply]:
    """Re-read the profiles (in a thread: file I/O and compilation); on any error keep `current`."""
    try:
        registry = await asyncio.to_thread(load)
    except ProfileError as exc:
        return current, ReloadReply(ok=False, profiles=current.versions(), error=str(exc))
    except Exception as exc:  # noqa: BLE001 - answered, not swallowed: the caller must hear why
        return current, ReloadReply(
            ok=False,
            profiles=current.versions(),
            error=f"unexpected {type(exc).__name__} while loading the rules: {exc}",
        )
    before, after = current.versions(), registry.versions()
    changed = tuple(sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n)))
    return registry, ReloadReply(ok=True, profiles=after, changed=changed)
