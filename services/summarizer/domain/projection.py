"""The fold's rules, pure: what a batch of enriched events does to the projections.

The SQL store (`adapters/store.py`) runs these inside its fold transaction and only writes what
they decide; they need no database, so each rule is unit-tested on its own:

- once per event id: a redelivered copy (same id) is skipped — `first_of_each_id`;
- admission: refused events are recorded, not counted — `admit` (rules in `admission.py`);
- last writer wins: a fact's latest classification replaces its tags, and an item's row is the
  snapshot with the greatest (updated_at, fact time, fact id), whatever the arrival order, with
  the earliest fact time as its first sighting — `latest_facts`, `latest_items`;
- late windows: a fact landing in a summarized window flags it for a new revision —
  `late_labels`;
- watermark advance: a repository's watermark only moves forward, to the highest of the batch —
  `highest_watermarks`, `advances`;
- window closing: windows the advance made due are recorded at revision 0, to be summarized —
  `closing_windows`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from shared.events import ChangedFigure, EnrichedFact, ItemSnapshot, Tags, WatermarkForwarded
from shared.windows import Window

from .admission import Admission, Verdict, snapshot_order

Event = EnrichedFact | WatermarkForwarded

# Called inside the fold transaction: (repo, previous watermark, new watermark) -> windows to close
Closer = Callable[[str, datetime | None, datetime], list[Window]]


@dataclass
class FoldResult:
    facts: int = 0
    watermarks: int = 0
    duplicates: int = 0
    repos: set[str] = field(default_factory=set)
    late_windows: int = 0
    closed_windows: int = 0
    # not counted (see domain.admission): by reason; and held future events folded now
    rejected: dict[str, int] = field(default_factory=dict)
    released: int = 0
    # the merged pull requests folded, as (snapshot, tags): what a report will ask of them is
    # worked out as they fold (report.warm_items), not at the window's close
    merged: list[tuple[ItemSnapshot, Tags]] = field(default_factory=list)


@dataclass(frozen=True)
class RejectedEvent:
    event_id: str
    repo: str
    reason: str
    detail: str
    event_time: datetime
    received_at: datetime
    released_at: datetime | None


@dataclass(frozen=True)
class Revision:
    """One published revision of a window and what it changed against the one before."""

    revision: int
    figures_hash: str
    changed: tuple[ChangedFigure, ...]
    summary_id: str
    request_id: str | None
    computed_at: datetime


@dataclass(frozen=True)
class WindowState:
    repo: str
    window: Window
    revision: int
    figures: dict | None
    dirty: bool
    summary_id: str | None = None


@dataclass(frozen=True)
class LatestItem:
    """The snapshot an item's row takes from a batch, and the earliest fact time seen for it."""

    event: EnrichedFact
    first_seen: datetime


def repo_of(event: Event) -> str:
    return event.data.fact.repo if isinstance(event, EnrichedFact) else event.data.repo


def time_of(event: Event) -> datetime:
    return event.data.fact_time if isinstance(event, EnrichedFact) else event.data.watermark


def order_of(event: EnrichedFact) -> tuple:
    """How recent the event's item snapshot is (`admission.snapshot_order`)."""
    return snapshot_order(event.data.fact.item.updated_at, event.data.fact_time, event.data.fact_id)


def first_of_each_id(events: Iterable[Event]) -> dict[str, Event]:
    """The first event of each id, in order (a copy delivered twice is folded once)."""
    first: dict[str, Event] = {}
    for e in events:
        first.setdefault(e.id, e)
    return first


def admit(
    events: Iterable[Event], now: datetime, admission: Admission
) -> tuple[list[Event], list[tuple[Event, Verdict]]]:
    """(the events folded now, the refused ones with why), each in order."""
    admitted: list[Event] = []
    refused: list[tuple[Event, Verdict]] = []
    for e in events:
        verdict = admission.verdict(repo_of(e), time_of(e), now)
        if verdict is None:
            admitted.append(e)
        else:
            refused.append((e, verdict))
    return admitted, refused


def latest_facts(facts: Iterable[EnrichedFact]) -> dict[str, EnrichedFact]:
    """One event per fact id: the last one of the batch (a re-classification, same fact with a
    new rule set, replaces the tags; the fact itself never changes)."""
    by_fact: dict[str, EnrichedFact] = {}
    for e in facts:
        by_fact[e.data.fact_id] = e
    return by_fact


def latest_items(facts: Iterable[EnrichedFact]) -> dict[tuple[str, int], LatestItem]:
    """Per (repo, number): the snapshot with the greatest `order_of` (at equal order the later
    one of the batch), and the earliest fact time among the batch's facts of the item."""
    latest: dict[tuple[str, int], LatestItem] = {}
    for e in facts:
        key = (e.data.fact.repo, e.data.fact.item.number)
        prev = latest.get(key)
        if prev is None:
            latest[key] = LatestItem(e, e.data.fact_time)
            continue
        first = min(e.data.fact_time, prev.first_seen)
        winner = e if order_of(e) >= order_of(prev.event) else prev.event
        latest[key] = LatestItem(winner, first)
    return latest


def fact_times_by_repo(facts: Iterable[EnrichedFact]) -> dict[str, list[datetime]]:
    times: dict[str, list[datetime]] = {}
    for e in facts:
        times.setdefault(e.data.fact.repo, []).append(e.data.fact_time)
    return times


def late_labels(
    summarized: Iterable[tuple[str, datetime, datetime]], times: Sequence[datetime]
) -> list[str]:
    """The labels of summarized windows, (label, start, end), that one of `times` lands in
    ([start, end)): they get a new revision if their figures change."""
    return [label for label, start, end in summarized if any(start <= t < end for t in times)]


def highest_watermarks(marks: Iterable[WatermarkForwarded]) -> dict[str, datetime]:
    """The highest watermark of the batch per repository, repositories sorted."""
    best: dict[str, datetime] = {}
    for m in marks:
        best[m.data.repo] = max(best.get(m.data.repo, m.data.watermark), m.data.watermark)
    return dict(sorted(best.items()))


def advances(current: datetime | None, proposed: datetime) -> bool:
    """Whether a watermark moves: only forward (a first one always does)."""
    return current is None or proposed > current


def closing_windows(repo: str, due: Iterable[Window], now: datetime) -> list[dict]:
    """The windows rows a watermark advance adds: each due window closed now at revision 0
    (never summarized), dirty so that it is summarized. A window already recorded keeps its row
    (the store inserts these only where none exists)."""
    return [
        {
            "repo": repo,
            "label": w.label,
            "kind": w.kind,
            "start": w.start,
            "end": w.end,
            "tz": w.tz,
            "cutoff": w.cutoff,
            "revision": 0,
            "closed_at": now,
            "dirty": True,
        }
        for w in due
    ]
