"""Ports of the summarizer: the projection store the use cases fold into and read reports from.

`adapters.store.SqlProjections` (SQLite or PostgreSQL) implements it; the handlers and the
rebuild know only this protocol. Every method is synchronous, one short transaction (the
handlers call them through `asyncio.to_thread`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Protocol

from shared.events import ChangedFigure, EnrichedFact, ReportRequested, WatermarkForwarded
from shared.windows import Window

from .domain.admission import Admission
from .domain.projection import Closer, FoldResult, WindowState
from .domain.report import WindowInput


class Projections(Protocol):
    """The summarizer's projections of the enriched log: items, activity, watermarks, windows
    with their revisions, and pending report requests."""

    # ---- schema

    def migrate(self, revision: str = "head") -> tuple[str | None, str | None]:
        """Bring the schema to `revision`; the revisions before and after."""
        ...

    def check_schema(self) -> str:
        """The schema's revision when it is this version's; else an error saying what to run."""
        ...

    def refused_data(self, exc: BaseException) -> bool:
        """Whether `exc` (raised by `fold`) means the store refuses the events' data itself —
        the same events would fail the same way again — rather than an outage."""
        ...

    # ---- folding

    def fold(
        self,
        events: Sequence[EnrichedFact | WatermarkForwarded],
        *,
        now: datetime,
        closer: Closer | None = None,
        admission: Admission = Admission(),
    ) -> FoldResult:
        """Apply a batch once (`domain.projection`'s rules), all of it or nothing."""
        ...

    def held_due(self, horizon: datetime | None) -> bool:
        """Whether some held future event is due for folding."""
        ...

    def reset_projections(self, repo: str | None = None) -> dict[str, int]:
        """Drop what folding produced (for one repository or all) before a replay; rows deleted
        per table."""
        ...

    def mark_summarized_dirty(self, repo: str | None = None) -> int:
        """Flag every summarized window for re-summarizing; how many."""
        ...

    # ---- requests and windows

    def save_request(self, request: ReportRequested, now: datetime) -> bool:
        """Store a pending request; False when it was already stored."""
        ...

    def pending_requests(self, repos: Iterable[str] | None = None) -> list[ReportRequested]: ...

    def mark_answered(self, request_id: str, now: datetime) -> None: ...

    def watermarks(self) -> dict[str, datetime]: ...

    def window_state(self, repo: str, label: str) -> WindowState | None: ...

    def dirty_windows(self, repos: Iterable[str] | None = None) -> list[WindowState]: ...

    def revision_changes(
        self, repo: str, label: str, revision: int
    ) -> tuple[ChangedFigure, ...]: ...

    def record_summary(
        self,
        repo: str,
        window: Window,
        *,
        revision: int,
        figures: dict,
        figures_hash: str,
        summary_id: str,
        now: datetime,
        request_id: str | None = None,
        changed: Sequence[ChangedFigure] = (),
    ) -> None:
        """Remember what was published for the window (and that the request is answered)."""
        ...

    def load_window(
        self, repo: str, window: Window, previous: Window, *, open_prs_since: datetime | None = None
    ) -> WindowInput:
        """What a report of `window` is computed from."""
        ...

    # ---- operations

    def ping(self) -> None: ...

    def close(self) -> None: ...
