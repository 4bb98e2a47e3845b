"""Report windows: parse `--window` specs into exact [start, end) instants in an IANA time zone.

Pure (standard library only) because the CLI, the summarizer and the renderer all speak it.
Spec grammar (the time zone and daily cut-off come from separate options or settings):

    day:2026-03-26          a day starting at the cut-off (default 00:00) in the time zone
    week:2026-W24           an ISO week, Monday 00:00 to Monday 00:00 in the time zone
    month:2026-06           a calendar month in the time zone
    custom:2026-06-01/2026-06-10      [start, end) from local dates or ISO datetimes
    2026-03-26 | 2026-W24 | 2026-06   the kind is inferred
    day:last | week:last | month:last the last complete window of that kind at the time of the
                            call (in the time zone, after the cut-off): what a schedule asks for
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

WINDOW_KINDS = ("day", "week", "month", "custom")
RECURRING = ("day", "week", "month")
LAST = "last"  # `week:last`: the last complete week when the spec is read
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_CUTOFF = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
# the years a window may lie in: those the event contract accepts for a fact's time
# (shared.events.envelope); beyond them a window holds nothing, and year 1 or 9999 overflow
YEAR_MIN, YEAR_MAX = 1970, 2200
# a custom window's longest span, 20 years: its summary has a line per day (daily activity), and
# past ~25 years it outgrows the message that carries it (NATS max_payload), failing late
CUSTOM_MAX_DAYS = 7305


class WindowError(ValueError):
    """A window spec a person typed is wrong; the message says how to fix it."""


@dataclass(frozen=True)
class Window:
    kind: str
    label: str
    start: datetime  # aware, UTC
    end: datetime  # aware, UTC, exclusive
    tz: str
    cutoff: str | None = None

    def contains(self, instant: datetime) -> bool:
        return self.start <= instant < self.end

    def previous(self) -> Window:
        """The window of the same kind just before this one (for trends)."""
        if self.kind == "day":
            local = self.start.astimezone(ZoneInfo(self.tz)).date() - timedelta(days=1)
            return day_window(local, self.tz, self.cutoff or "00:00")
        if self.kind == "week":
            local = self.start.astimezone(ZoneInfo(self.tz)).date() - timedelta(days=7)
            y, w, _ = local.isocalendar()
            return week_window(y, w, self.tz)
        if self.kind == "month":
            local = self.start.astimezone(ZoneInfo(self.tz)).date().replace(day=1) - timedelta(
                days=1
            )
            return month_window(local.year, local.month, self.tz)
        span = self.end - self.start
        return custom_window(self.start - span, self.start, self.tz)

    def local_days(self) -> list[date]:
        """Local calendar dates the window covers (for per-day activity charts)."""
        zone = ZoneInfo(self.tz)
        first = self.start.astimezone(zone).date()
        last = (self.end - timedelta(microseconds=1)).astimezone(zone).date()
        return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise WindowError(
            f"unknown time zone {tz!r}: use an IANA name such as UTC, Asia/Shanghai or Europe/Berlin"
        ) from None


def _local(d: date, at: time, tz: str) -> datetime:
    return datetime.combine(d, at, tzinfo=zone(tz)).astimezone(UTC)


def parse_cutoff(cutoff: str) -> time:
    m = _CUTOFF.match(cutoff)
    if not m:
        raise WindowError(f"cut-off {cutoff!r} is not HH:MM (24-hour), e.g. 11:45")
    return time(int(m.group(1)), int(m.group(2)))


def _check_year(year: int, what: str) -> None:
    if not YEAR_MIN <= year <= YEAR_MAX:
        raise WindowError(f"{what} is outside the years {YEAR_MIN}..{YEAR_MAX} a report can cover")


def day_window(d: date, tz: str, cutoff: str = "00:00") -> Window:
    at = parse_cutoff(cutoff)
    nxt = d + timedelta(days=1)
    return Window(
        "day",
        d.isoformat(),
        _local(d, at, tz),
        _local(nxt, at, tz),
        tz,
        cutoff if cutoff != "00:00" else None,
    )


def week_window(year: int, week: int, tz: str) -> Window:
    try:
        monday = date.fromisocalendar(year, week, 1)
    except ValueError:
        raise WindowError(
            f"{year}-W{week:02d} is not an ISO week (weeks run 01..52 or 53)"
        ) from None
    return Window(
        "week",
        f"{year}-W{week:02d}",
        _local(monday, time(), tz),
        _local(monday + timedelta(days=7), time(), tz),
        tz,
    )


def month_window(year: int, month: int, tz: str) -> Window:
    if not 1 <= month <= 12:
        raise WindowError(f"{year}-{month:02d} is not a month (01..12)")
    first = date(year, month, 1)
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return Window(
        "month", f"{year}-{month:02d}", _local(first, time(), tz), _local(nxt, time(), tz), tz
    )


def custom_window(start: datetime, end: datetime, tz: str) -> Window:
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    if end <= start:
        raise WindowError("a custom window's end must be after its start")
    label = f"{_stamp(start, tz)}_{_stamp(end, tz)}"
    return Window("custom", label, start, end, tz)


def _stamp(instant: datetime, tz: str) -> str:
    local = instant.astimezone(zone(tz))
    if local.time() == time():
        return local.date().isoformat()
    return local.strftime("%Y-%m-%dT%H%M")


def _point(text: str, tz: str) -> datetime:
    try:
        if _DAY.match(text):
            day = date.fromisoformat(text)
            _check_year(day.year, text)
            return _local(day, time(), tz)
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        if isinstance(exc, WindowError):
            raise
        raise WindowError(f"{text!r} is neither a date (2026-06-01) nor an ISO datetime") from None
    _check_year(value.year, text)
    return value.replace(tzinfo=zone(tz)) if value.tzinfo is None else value


def parse_window(
    spec: str, tz: str = "UTC", cutoff: str = "00:00", now: datetime | None = None
) -> Window:
    """Parse a window spec (see the module docstring); raises WindowError with a fix-it message.
    `now` (aware; default the clock) is the instant `day:last`, `week:last` and `month:last`
    are counted back from; no other spec reads it."""
    zone(tz)
    text = spec.strip()
    kind, _, value = (
        text.partition(":") if text.split(":", 1)[0] in WINDOW_KINDS else ("", "", text)
    )
    if value == LAST:
        if kind not in RECURRING:
            raise WindowError(
                f"window {spec!r}: 'last' names a recurring window; use day:last, "
                "week:last or month:last"
            )
        parse_cutoff(cutoff)
        instant = now if now is not None else datetime.now(UTC)
        return window_of(kind, instant, tz, cutoff).previous()
    try:
        if kind in ("day", "") and _DAY.match(value):
            _check_year(int(value[:4]), value)
            return day_window(date.fromisoformat(value), tz, cutoff)
        if kind in ("week", "") and (m := _WEEK.match(value)):
            _check_year(int(m.group(1)), value)
            return week_window(int(m.group(1)), int(m.group(2)), tz)
        if kind in ("month", "") and (m := _MONTH.match(value)):
            _check_year(int(m.group(1)), value)
            return month_window(int(m.group(1)), int(m.group(2)), tz)
        if kind in ("custom", "") and "/" in value:
            a, b = value.split("/", 1)
            window = custom_window(_point(a, tz), _point(b, tz), tz)
            if window.end - window.start > timedelta(days=CUSTOM_MAX_DAYS):
                raise WindowError(
                    f"window {spec!r} spans {(window.end - window.start).days} days; "
                    f"a custom window spans at most {CUSTOM_MAX_DAYS} (20 years)"
                )
            return window
    except ValueError as exc:
        if isinstance(exc, WindowError):
            raise
        raise WindowError(f"window {spec!r}: {exc}") from None
    raise WindowError(
        f"window {spec!r} is not understood; use day:2026-03-26, week:2026-W24, month:2026-06, "
        "custom:2026-06-01/2026-06-10, or day:last, week:last, month:last (the last complete one)"
    )


def window_of(kind: str, instant: datetime, tz: str, cutoff: str = "00:00") -> Window:
    """The window of `kind` that contains `instant` (used to close windows as watermarks pass)."""
    local = instant.astimezone(zone(tz))
    if kind == "day":
        at = parse_cutoff(cutoff)
        d = local.date() if local.time() >= at else local.date() - timedelta(days=1)
        return day_window(d, tz, cutoff)
    if kind == "week":
        y, w, _ = local.date().isocalendar()
        return week_window(y, w, tz)
    if kind == "month":
        return month_window(local.year, local.month, tz)
    raise WindowError(f"no recurring window of kind {kind!r}; use day, week or month")
