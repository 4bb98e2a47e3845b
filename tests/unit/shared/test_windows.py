"""Window specs: exact instants, cut-offs, time zones, DST."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from shared.windows import WindowError, parse_window, window_of


def test_seed_daily_window_with_cutoff_in_shanghai():
    w = parse_window("day:2026-03-26", "Asia/Shanghai", "11:45")
    assert w.start == datetime(2026, 3, 26, 3, 45, tzinfo=UTC)
    assert w.end == datetime(2026, 3, 27, 3, 45, tzinfo=UTC)
    assert w.label == "2026-03-26" and w.cutoff == "11:45"


def test_iso_week_24_of_2026():
    w = parse_window("2026-W24", "UTC")
    assert w.kind == "week"
    assert w.start == datetime(2026, 6, 8, tzinfo=UTC)
    assert w.end - w.start == timedelta(days=7)
    assert w.previous().label == "2026-W23"


def test_day_across_dst_is_23_hours():
    w = parse_window("day:2026-03-29", "Europe/Berlin")
    assert w.end - w.start == timedelta(hours=23)


def test_month_and_custom():
    assert parse_window("month:2026-12", "UTC").end == datetime(2027, 1, 1, tzinfo=UTC)
    c = parse_window("custom:2026-06-01/2026-06-10", "UTC")
    assert c.label == "2026-06-01_2026-06-10" and c.previous().end == c.start


def test_window_of_respects_cutoff():
    at = datetime(2026, 3, 27, 3, 0, tzinfo=UTC)  # 11:00 in Shanghai, before 11:45
    assert window_of("day", at, "Asia/Shanghai", "11:45").label == "2026-03-26"


# (spec, tz, cut-off, what the message must say: the bad value and how to write a good one)
@pytest.mark.parametrize(
    "spec,tz,cutoff,says",
    [
        (
            "yesterday",
            "UTC",
            "00:00",
            (
                "'yesterday' is not understood",
                "day:2026-03-26",
                "week:2026-W24",
                "month:2026-06",
                "custom:2026-06-01/2026-06-10",
            ),
        ),
        ("week:2026-W60", "UTC", "00:00", ("2026-W60 is not an ISO week", "01..52 or 53")),
        (
            "2026-06-01",
            "Mars/Olympus",
            "00:00",
            ("unknown time zone 'Mars/Olympus'", "IANA name", "Asia/Shanghai"),
        ),
        ("2026-06-01", "UTC", "25:00", ("cut-off '25:00'", "HH:MM (24-hour)", "11:45")),
        ("custom:2026-06-10/2026-06-01", "UTC", "00:00", ("end must be after its start",)),
        ("month:2026-13", "UTC", "00:00", ("2026-13 is not a month", "01..12")),
        ("day:1969-12-31", "UTC", "00:00", ("1969-12-31", "outside the years 1970..2200")),
    ],
)
def test_bad_specs_say_how_to_fix_them(spec, tz, cutoff, says):
    with pytest.raises(WindowError) as err:
        parse_window(spec, tz, cutoff)
    message = str(err.value)
    missing = [s for s in says if s not in message]
    assert not missing, f"{message!r} does not say {missing}"
