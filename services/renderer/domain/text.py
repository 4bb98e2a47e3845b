"""Formatting of figures, instants and windows for report text (pure, locale-light)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from shared.events import WindowRef


def num(n: int | float) -> str:
    """An exact count with thousands separators (1,234)."""
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.1f}"
    return f"{int(n):,}"


def one_decimal(x: float) -> str:
    return f"{x:.1f}"


def signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else (f"-{abs(n):,}" if n < 0 else "0")


def local(instant: datetime, tz: str) -> datetime:
    return instant.astimezone(ZoneInfo(tz))


def stamp(instant: datetime, tz: str) -> str:
    return local(instant, tz).strftime("%Y-%m-%d %H:%M")


def day(instant: datetime, tz: str) -> str:
    return local(instant, tz).strftime("%Y-%m-%d")


def utc_offset(instant: datetime, tz: str) -> str:
    """`UTC+8`, `UTC-3:30`, `UTC` for a zone at an instant."""
    offset = local(instant, tz).utcoffset() or timedelta()
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    h, m = divmod(abs(minutes), 60)
    return f"UTC{sign}{h}" + (f":{m:02d}" if m else "")


def window_span(window: WindowRef) -> tuple[str, str]:
    """Start and (inclusive-looking) end of a window as people read it, in the window's zone.

    Windows that start and end at local midnight show dates (the last day is end - 1 day, as in
    "2026-06-08 to 2026-06-14"); windows with a cut-off show both instants.
    """
    start, end = local(window.start, window.tz), local(window.end, window.tz)
    if start.time() == end.time() == datetime.min.time():
        return start.strftime("%Y-%m-%d"), (end - timedelta(days=1)).strftime("%Y-%m-%d")
    return start.strftime("%Y-%m-%d %H:%M"), end.strftime("%Y-%m-%d %H:%M")


def days_text(days: float) -> str:
    return f"{days:.1f}" if days < 10 else f"{days:.0f}"


_HTML_COMMENT = re.compile(r"<!--.*?(-->|$)", re.S)
_MD_BLOCK = re.compile(r"(^|\s)(#{1,6}|[-*>]|\d+\.)\s+|!\[[^\]]*\]\([^)]*\)")
_MD_INLINE = re.compile(r"`{1,3}|\*\*|__")
# a PR template's test sections say how, not what: the excerpt stops before them
_TEST_SECTIONS = re.compile(r"(^|\n)\s*#{1,6}\s*test (plan|result)s?\b.*", re.I | re.S)
_BOILERPLATE = re.compile(r"\b(purpose|test plan|test result|essential elements of an effective pr "
                          r"description checklist)\b:?", re.I)


def excerpt(text: str, limit: int = 240) -> str:
    """A short, plain-text excerpt of a PR or issue body (template comments and markup removed)."""
    if not text:
        return ""
    plain = _TEST_SECTIONS.sub(" ", _HTML_COMMENT.sub(" ", text))
    plain = _MD_INLINE.sub("", _MD_BLOCK.sub(" ", plain))
    plain = _BOILERPLATE.sub(" ", plain)
    return cut_words(" ".join(plain.split()), limit)


def cut_words(text: str, limit: int, trail: str = " ,.;:") -> str:
    """`text` cut to `limit` characters, back to the last space when that keeps most of it, then
    "…" (unchanged when it fits)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(trail) + "…"


TITLE_MAX = 300  # characters of a title, name or login a document shows


def bounded_title(text: str, limit: int = TITLE_MAX) -> str:
    """A title as documents show it: whitespace collapsed and cut with "…" past `limit`
    characters, so that any title lays out in bounded time (WeasyPrint's time grows faster than
    linearly with an unbroken run: 20,000 characters took 36 s)."""
    if len(text) <= limit:
        return text
    return cut_words(" ".join(text.split()), limit)


_DIGEST = re.compile(r"[0-9a-f]{16,}")


def short_version(version: str) -> str:
    """A rule-set version as people read it: long hex digests cut to 12 characters (like git)."""
    return _DIGEST.sub(lambda m: m.group(0)[:12], version)
