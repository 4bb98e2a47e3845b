"""Window specs by hand (issue #20 item 4: the survivors of mutation testing on shared/windows.py):
custom windows from ISO datetimes, naive and aware; the inferred kinds; the edges of the years,
months and the custom span a report may cover; the messages a person reads. Every instant below
is worked out by hand, as a literal UTC time."""

from __future__ import annotations

import time as time_module
from datetime import UTC, datetime, timedelta

import pytest

from shared.windows import WindowError, month_window, parse_window, window_of


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def refused(spec: str, tz: str = "UTC") -> str:
    with pytest.raises(WindowError) as info:
        parse_window(spec, tz)
    return str(info.value)


# --------------------------------------------------------------------------- custom windows


def test_naive_datetimes_are_read_in_the_windows_time_zone():
    # Shanghai is UTC+8 all year: 09:30 local is 01:30Z, 17:00 local is 09:00Z
    w = parse_window("custom:2026-06-01T09:30/2026-06-01T17:00", "Asia/Shanghai")
    assert (w.kind, w.start, w.end, w.tz) == (
        "custom",
        utc(2026, 6, 1, 1, 30),
        utc(2026, 6, 1, 9),
        "Asia/Shanghai",
    )
    # a bound that is not local midnight is labelled with its local hour and minute
    assert w.label == "2026-06-01T0930_2026-06-01T1700"


def test_an_aware_datetime_keeps_its_own_offset():
    # 09:30 at +02:00 is 07:30Z whatever the window's zone; the label is in the window's zone
    w = parse_window("custom:2026-06-01T09:30+02:00/2026-06-02", "UTC")
    assert (w.start, w.end) == (utc(2026, 6, 1, 7, 30), utc(2026, 6, 2))
    assert w.label == "2026-06-01T0730_2026-06-02"
    w = parse_window("custom:2026-06-01T00:00+08:00/2026-06-03T00:00+08:00", "Asia/Shanghai")
    assert (w.start, w.end, w.label) == (
        utc(2026, 5, 31, 16),
        utc(2026, 6, 2, 16),
        "2026-06-01_2026-06-03",
    )


def test_bounds_are_utc_whatever_the_process_local_zone(monkeypatch):
    """The window's instants are UTC and its label is in the window's zone, not the zone of the
    machine it runs on (here the process pretends to be in Shanghai)."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time_module.tzset()
    try:
        w = parse_window("custom:2026-06-01T09:30-04:00/2026-06-01T18:00-04:00", "UTC")
    finally:
        monkeypatch.undo()
        time_module.tzset()
    assert (w.start, w.end) == (utc(2026, 6, 1, 13, 30), utc(2026, 6, 1, 22))
    assert w.start.utcoffset() == w.end.utcoffset() == timedelta(0)
    assert w.label == "2026-06-01T1330_2026-06-01T2200"


def test_day_and_month_windows_ignore_the_process_local_zone(monkeypatch):
    """New York (UTC-4 in June) as the process's zone, UTC as the windows': nothing of the
    process's zone shows in the instants, the days covered or the previous month."""
    monkeypatch.setenv("TZ", "America/New_York")
    time_module.tzset()
    try:
        day = parse_window("day:2026-06-01", "UTC")
        covered = day.local_days()
        june = parse_window("month:2026-06", "UTC")
        may = june.previous()
    finally:
        monkeypatch.undo()
        time_module.tzset()
    assert (day.start, day.end) == (utc(2026, 6, 1), utc(2026, 6, 2))
    assert day.start.utcoffset() == day.end.utcoffset() == timedelta(0)
    assert [d.isoformat() for d in covered] == ["2026-06-01"]
    assert (may.label, may.start, may.end) == ("2026-05", utc(2026, 5, 1), utc(2026, 6, 1))


def test_a_window_ending_just_after_midnight_covers_that_day():
    # [2026-06-01 00:00, 2026-06-02 00:00:00.000001) holds the instant 2026-06-02 00:00:00
    w = parse_window("custom:2026-06-01/2026-06-02T00:00:00.000001")
    assert [d.isoformat() for d in w.local_days()] == ["2026-06-01", "2026-06-02"]
    w = parse_window("custom:2026-06-01/2026-06-02")
    assert [d.isoformat() for d in w.local_days()] == ["2026-06-01"]


def test_the_kind_is_inferred_for_every_spec_form():
    assert (lambda w: (w.kind, w.label, w.start, w.end))(parse_window("2026-06")) == (
        "month",
        "2026-06",
        utc(2026, 6, 1),
        utc(2026, 7, 1),
    )
    assert (lambda w: (w.kind, w.start, w.end))(parse_window("2026-06-01/2026-06-03")) == (
        "custom",
        utc(2026, 6, 1),
        utc(2026, 6, 3),
    )
    day = parse_window("2026-06-01")  # the default zone is UTC
    assert (day.kind, day.tz, day.start, day.end) == (
        "day",
        "UTC",
        utc(2026, 6, 1),
        utc(2026, 6, 2),
    )


def test_a_custom_window_must_end_after_it_starts():
    assert (
        refused("custom:2026-06-01/2026-06-01") == "a custom window's end must be after its start"
    )
    assert (
        refused("custom:2026-06-02/2026-06-01") == "a custom window's end must be after its start"
    )


def test_a_custom_window_spans_at_most_7305_days():
    # 2000-01-01 to 2020-01-01: 20 years of 365 days plus 5 leap days (2000, 2004, 2008, 2012,
    # 2016) = 7305 days, the longest; a day more is refused
    w = parse_window("custom:2000-01-01/2020-01-01")
    assert (w.start, w.end) == (utc(2000, 1, 1), utc(2020, 1, 1))
    assert refused("custom:2000-01-01/2020-01-02") == (
        "window 'custom:2000-01-01/2020-01-02' spans 7306 days; a custom window spans at most "
        "7305 (20 years)"
    )


def test_a_custom_spec_is_split_at_its_first_slash():
    assert refused("custom:2026-06-01/2026-06-02/2026-06-03") == (
        "'2026-06-02/2026-06-03' is neither a date (2026-06-01) nor an ISO datetime"
    )
    assert refused("custom:2026-06-01/tomorrow") == (
        "'tomorrow' is neither a date (2026-06-01) nor an ISO datetime"
    )


# --------------------------------------------------------------------------- the edges


@pytest.mark.parametrize(
    "spec,start",
    [
        ("day:1970-01-01", utc(1970, 1, 1)),
        ("day:2200-12-31", utc(2200, 12, 31)),
        ("week:1970-W02", utc(1970, 1, 5)),
        ("month:2200-12", utc(2200, 12, 1)),
        ("custom:1970-01-01/1970-01-02", utc(1970, 1, 1)),
        ("custom:2200-12-31T12:00/2200-12-31T13:00", utc(2200, 12, 31, 12)),
    ],
)
def test_the_first_and_last_years_are_inside(spec, start):
    assert parse_window(spec).start == start


@pytest.mark.parametrize(
    "spec,named",
    [
        ("day:1969-12-31", "1969-12-31"),
        ("day:2201-01-01", "2201-01-01"),
        ("week:1969-W40", "1969-W40"),
        ("month:2201-01", "2201-01"),
        ("custom:1969-12-31/1970-01-02", "1969-12-31"),
        ("custom:1970-01-01/2201-01-01", "2201-01-01"),
        ("custom:1969-12-31T23:00/1970-01-02", "1969-12-31T23:00"),
        ("custom:2200-12-31T23:00/2201-01-01T01:00", "2201-01-01T01:00"),
    ],
)
def test_years_beyond_the_edges_are_refused_naming_the_value(spec, named):
    assert refused(spec) == f"{named} is outside the years 1970..2200 a report can cover"


def test_months_one_and_twelve_are_months_zero_and_thirteen_are_not():
    jan, dec = month_window(2026, 1, "UTC"), month_window(2026, 12, "UTC")
    assert (jan.label, jan.start, jan.end) == ("2026-01", utc(2026, 1, 1), utc(2026, 2, 1))
    assert (dec.label, dec.start, dec.end) == ("2026-12", utc(2026, 12, 1), utc(2027, 1, 1))
    assert refused("month:2026-13") == "2026-13 is not a month (01..12)"
    assert refused("month:2026-00") == "2026-00 is not a month (01..12)"


# --------------------------------------------------------------------------- messages


def test_a_date_that_does_not_exist_is_named_with_pythons_reason():
    assert refused("day:2026-02-30") == "window 'day:2026-02-30': day is out of range for month"


def test_a_spec_that_is_not_understood_says_every_form():
    assert refused("fortnight:2026-06") == (
        "window 'fortnight:2026-06' is not understood; use day:2026-03-26, week:2026-W24, "
        "month:2026-06, custom:2026-06-01/2026-06-10, or day:last, week:last, month:last (the "
        "last complete one)"
    )


def test_window_of_uses_midnight_by_default_and_names_an_unknown_kind():
    w = window_of("day", utc(2026, 6, 1, 0, 0), "UTC")  # midnight belongs to the new day
    assert (w.label, w.start, w.end, w.cutoff) == (
        "2026-06-01",
        utc(2026, 6, 1),
        utc(2026, 6, 2),
        None,
    )
    with pytest.raises(WindowError) as info:
        window_of("year", utc(2026, 6, 1), "UTC")
    assert str(info.value) == "no recurring window of kind 'year'; use day, week or month"
