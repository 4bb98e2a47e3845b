"""Report schedules per repository and which windows a watermark closes (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from shared.windows import Window, WindowError, custom_window, parse_cutoff, window_of, zone

SCHEDULE_KINDS = ("day", "week", "month")


@dataclass(frozen=True)
class Schedule:
    """A recurring window: daily (with a cut-off), ISO weekly or monthly, in an IANA time zone."""

    kind: str
    tz: str = "UTC"
    cutoff: str = "00:00"

    def __post_init__(self) -> None:
        if self.kind not in SCHEDULE_KINDS:
            raise WindowError(
                f"schedule kind {self.kind!r} is not recurring; use one of {', '.join(SCHEDULE_KINDS)}"
            )
        zone(self.tz)
        parse_cutoff(self.cutoff)

    def window_containing(self, instant: datetime) -> Window:
        return window_of(self.kind, instant, self.tz, self.cutoff)


def schedules_for(repo: str, configured: dict[str, list[Schedule]]) -> list[Schedule]:
    """The repository's own schedules, else the `*` default ones."""
    if repo in configured:
        return list(configured[repo])
    return list(configured.get("*", ()))


def due_windows(
    schedule: Schedule, previous: datetime | None, watermark: datetime, grace: timedelta, limit: int
) -> list[Window]:
    """Windows whose end + grace the watermark passed since `previous`, oldest first.

    A window is due once everything up to its end (plus a grace for stragglers) has been folded.
    With no previous watermark (a first sync or a backfill) only the latest due window closes,
    so that a year of history does not produce a year of reports; `limit` bounds catching up.
    """
    if previous is not None and watermark <= previous:
        return []
    found: list[Window] = []
    # the latest window that can be due ends at or before watermark - grace
    # the window holding watermark - grace is still open, so start from the one before it
    candidate = schedule.window_containing(watermark - grace).previous()
    while len(found) < max(1, limit):
        if candidate.end + grace > watermark:
            break
        if previous is not None and candidate.end + grace <= previous:
            break
        found.append(candidate)
        if previous is None:
            break
        candidate = candidate.previous()
    return sorted(found, key=lambda w: w.start)


def previous_window(window: Window) -> Window:
    """The window just before `window`, of the same length (for module trends)."""
    if window.kind in SCHEDULE_KINDS:
        try:
            prev = window.previous()
            # a custom cut-off window labelled like a plain day keeps its instants
            if prev.end == window.start:
                return prev
        except WindowError:
            pass
    span = window.end - window.start
    return custom_window(window.start - span, window.start, window.tz)
