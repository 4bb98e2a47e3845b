"""The one publishing step of every GitHub sync: derive an item's facts from its last known state,
publish them, and only then store its new state (a crash in between re-derives the same facts,
which JetStream and the consumers de-duplicate)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link

from services.ingest.adapters.kv import KvIngestState
from services.ingest.domain.transitions import ItemState, derive, merge_observed
from shared.events import CommentInfo, FactData, ItemSnapshot, ReviewInfo, make_fact
from shared.messaging import Subjects
from shared.telemetry import tracer

if TYPE_CHECKING:
    from shared.messaging import Bus

_tracer = tracer("ingest.github")


class Published(Protocol):
    """What a sync counts of what it published (`SyncResult`, `GraphqlBackfillResult`)."""

    facts: list[str]
    facts_published: int
    duplicates: int
    items_changed: int


@contextlib.contextmanager
def _fact_trace(data: FactData):
    """Each fact begins its own trace (followed to the reports that count it), linked to the sync
    or webhook delivery that observed it: one poll can publish thousands of facts."""
    observed = trace.get_current_span().get_span_context()
    with _tracer.start_as_current_span(
        f"GitHub fact {data.kind}.{data.action}",
        context=otel_context.Context(),
        links=[Link(observed)] if observed.is_valid else None,
        attributes={"repodigest.repo": data.repo, "repodigest.number": data.item.number},
    ):
        yield


async def publish_facts(bus: Bus, facts: Sequence[FactData]) -> list[str]:
    """Publish facts as typed events on their subjects; returns their ids."""
    return (await _publish(bus, facts))[0]


async def _publish(bus: Bus, facts: Sequence[FactData]) -> tuple[list[str], int]:
    ids, duplicates = [], 0
    for data in facts:
        event = make_fact(data)
        with _fact_trace(data):
            ack = await bus.publish(event, Subjects.fact(data.kind, data.action, data.repo))
        duplicates += bool(getattr(ack, "duplicate", False))
        ids.append(event.id)
    return ids, duplicates


async def publish_item(
    bus: Bus,
    state: KvIngestState,
    result: Published,
    repo: str,
    number: int,
    prev: ItemState | None,
    item: ItemSnapshot,
    *,
    comments: Sequence[CommentInfo] = (),
    reviews: Sequence[ReviewInfo] = (),
) -> None:
    """Derive the facts of `repo`#`number` (`item`, as read now) against `prev`, publish them,
    count them in `result`, then store the item's new state (merged with what a webhook may have
    stored meanwhile)."""
    facts, new_state = derive(prev, item, comments=comments, reviews=reviews, origin="poll")
    ids, duplicates = await _publish(bus, facts)
    result.facts.extend(ids)
    result.facts_published += len(facts)
    result.duplicates += duplicates
    result.items_changed += 1
    # after publishing: a crash before this re-derives (and re-publishes) the same facts
    await state.update_item(repo, number, functools.partial(merge_observed, new_state))
