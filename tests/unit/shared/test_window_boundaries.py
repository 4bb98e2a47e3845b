"""Window boundaries, computed by hand: every expected instant below is a literal UTC datetime
worked out from the zone's offset on that date (noted beside it), never by calling `Window`.

A window is [start, end): an instant exactly at its start is inside, exactly at its end is
outside (it belongs to the next window). With a daily cut-off HH:MM the day labelled D runs from
D HH:MM to D+1 HH:MM local time, so an instant exactly at the cut-off belongs to the new day.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from shared.windows import day_window, parse_window, week_window, window_of

US = timedelta(microseconds=1)


def z(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# (spec, tz, cutoff, start in UTC, end in UTC, hours long), each worked out by hand
WINDOWS = [
    # UTC: no offset
    ("day:2026-03-26", "UTC", "00:00", z(2026, 3, 26), z(2026, 3, 27), 24),
    ("week:2026-W24", "UTC", "00:00", z(2026, 6, 8), z(2026, 6, 15), 168),  # Mon 8 June .. Mon 15
    # Asia/Shanghai: UTC+8 all year, local midnight is 16:00 UTC the day before
    ("day:2026-03-26", "Asia/Shanghai", "00:00", z(2026, 3, 25, 16), z(2026, 3, 26, 16), 24),
    # cut-off 11:45 local = 03:45 UTC
    ("day:2026-03-26", "Asia/Shanghai", "11:45", z(2026, 3, 26, 3, 45), z(2026, 3, 27, 3, 45), 24),
    ("week:2026-W24", "Asia/Shanghai", "00:00", z(2026, 6, 7, 16), z(2026, 6, 14, 16), 168),
    # America/New_York, spring forward on Sun 8 March 2026 (02:00 EST -> 03:00 EDT):
    # 00:00 EST (UTC-5) = 05:00 UTC; the next midnight is EDT (UTC-4) = 04:00 UTC
    ("day:2026-03-08", "America/New_York", "00:00", z(2026, 3, 8, 5), z(2026, 3, 9, 4), 23),
    ("day:2026-03-07", "America/New_York", "00:00", z(2026, 3, 7, 5), z(2026, 3, 8, 5), 24),
    ("day:2026-03-09", "America/New_York", "00:00", z(2026, 3, 9, 4), z(2026, 3, 10, 4), 24),
    # with a cut-off of 11:45 the short day is the one labelled the 7th (11:45 EST -> 11:45 EDT)
    (
        "day:2026-03-07",
        "America/New_York",
        "11:45",
        z(2026, 3, 7, 16, 45),
        z(2026, 3, 8, 15, 45),
        23,
    ),
    # fall back on Sun 1 November 2026 (02:00 EDT -> 01:00 EST): 00:00 EDT = 04:00 UTC,
    # the next midnight is EST = 05:00 UTC
    ("day:2026-11-01", "America/New_York", "00:00", z(2026, 11, 1, 4), z(2026, 11, 2, 5), 25),
    # ISO weeks holding those Sundays: W10 is Mon 2 .. Mon 9 March, W44 Mon 26 Oct .. Mon 2 Nov
    ("week:2026-W10", "America/New_York", "00:00", z(2026, 3, 2, 5), z(2026, 3, 9, 4), 167),
    ("week:2026-W44", "America/New_York", "00:00", z(2026, 10, 26, 4), z(2026, 11, 2, 5), 169),
]
IDS = [f"{spec}@{tz}/{cutoff}" for spec, tz, cutoff, *_ in WINDOWS]


@pytest.mark.parametrize("spec,tz,cutoff,start,end,hours", WINDOWS, ids=IDS)
def test_window_instants(spec, tz, cutoff, start, end, hours):
    w = parse_window(spec, tz, cutoff)
    assert (w.start, w.end) == (start, end)
    assert end - start == timedelta(hours=hours)  # the table itself adds up


@pytest.mark.parametrize("spec,tz,cutoff,start,end,hours", WINDOWS, ids=IDS)
def test_start_is_inside_and_end_is_outside(spec, tz, cutoff, start, end, hours):
    w = parse_window(spec, tz, cutoff)
    assert w.contains(start) is True
    assert w.contains(start - US) is False
    assert w.contains(end - US) is True
    assert w.contains(end) is False
    assert w.contains(end + US) is False
    assert w.contains(start + timedelta(hours=hours / 2)) is True


def test_the_window_after_starts_where_this_one_ends():
    # an instant exactly at a day's end is the first instant of the next day, in exactly one of them
    at = z(2026, 3, 27, 3, 45)  # 11:45 in Shanghai
    d26 = day_window(date(2026, 3, 26), "Asia/Shanghai", "11:45")
    d27 = day_window(date(2026, 3, 27), "Asia/Shanghai", "11:45")
    assert (d26.contains(at), d27.contains(at)) == (False, True)
    assert (d26.contains(at - US), d27.contains(at - US)) == (True, False)
    at = z(2026, 6, 15)  # Monday 00:00 UTC
    w24, w25 = week_window(2026, 24, "UTC"), week_window(2026, 25, "UTC")
    assert (w24.contains(at), w25.contains(at)) == (False, True)


# (instant in UTC, tz, cutoff, label of the day window holding it), worked out by hand
DAY_OF = [
    # Shanghai, cut-off 11:45 = 03:45 UTC
    (
        z(2026, 3, 27, 3, 45),
        "Asia/Shanghai",
        "11:45",
        "2026-03-27",
    ),  # exactly at the cut-off: new day
    (z(2026, 3, 27, 3, 44, 59, 999999), "Asia/Shanghai", "11:45", "2026-03-26"),
    (z(2026, 3, 26, 16, 30), "Asia/Shanghai", "11:45", "2026-03-26"),  # 00:30 local on the 27th
    (z(2026, 3, 26, 3, 45), "Asia/Shanghai", "11:45", "2026-03-26"),
    # Shanghai, plain midnight = 16:00 UTC the day before
    (z(2026, 3, 26, 16), "Asia/Shanghai", "00:00", "2026-03-27"),
    (z(2026, 3, 26, 15, 59, 59), "Asia/Shanghai", "00:00", "2026-03-26"),
    # UTC
    (z(2026, 3, 27), "UTC", "00:00", "2026-03-27"),
    (z(2026, 3, 26, 23, 59, 59, 999999), "UTC", "00:00", "2026-03-26"),
    (z(2026, 3, 27, 11, 45), "UTC", "11:45", "2026-03-27"),
    (z(2026, 3, 27, 11, 44), "UTC", "11:45", "2026-03-26"),
    # New York spring forward: 01:59 EST = 06:59 UTC, then 03:00 EDT = 07:00 UTC, same day
    (z(2026, 3, 8, 6, 59), "America/New_York", "00:00", "2026-03-08"),
    (z(2026, 3, 8, 7, 0), "America/New_York", "00:00", "2026-03-08"),
    (z(2026, 3, 9, 3, 59), "America/New_York", "00:00", "2026-03-08"),  # 23:59 EDT
    (z(2026, 3, 9, 4, 0), "America/New_York", "00:00", "2026-03-09"),  # 00:00 EDT
    (z(2026, 3, 8, 15, 45), "America/New_York", "11:45", "2026-03-08"),  # 11:45 EDT: the cut-off
    (z(2026, 3, 8, 15, 44), "America/New_York", "11:45", "2026-03-07"),
    # New York fall back: 01:30 happens twice on 1 November, at 05:30 UTC (EDT) and 06:30 (EST)
    (z(2026, 11, 1, 5, 30), "America/New_York", "00:00", "2026-11-01"),
    (z(2026, 11, 1, 6, 30), "America/New_York", "00:00", "2026-11-01"),
    (z(2026, 11, 2, 4, 59), "America/New_York", "00:00", "2026-11-01"),  # 23:59 EST
    (z(2026, 11, 2, 5, 0), "America/New_York", "00:00", "2026-11-02"),
    (z(2026, 11, 1, 3, 59), "America/New_York", "00:00", "2026-10-31"),  # 23:59 EDT on the 31st
]


@pytest.mark.parametrize("instant,tz,cutoff,label", DAY_OF)
def test_the_day_an_instant_belongs_to(instant, tz, cutoff, label):
    w = window_of("day", instant, tz, cutoff)
    assert w.label == label
    assert w.contains(instant)


# (instant in UTC, tz, ISO week holding it), by hand
WEEK_OF = [
    (z(2026, 6, 15), "UTC", "2026-W25"),  # Monday 00:00: the new week
    (z(2026, 6, 14, 23, 59, 59), "UTC", "2026-W24"),
    (z(2026, 6, 14, 16), "Asia/Shanghai", "2026-W25"),  # Monday 00:00 in Shanghai
    (z(2026, 6, 14, 15, 59), "Asia/Shanghai", "2026-W24"),
    (z(2026, 3, 9, 4), "America/New_York", "2026-W11"),  # Monday 00:00 EDT
    (z(2026, 3, 9, 3, 59), "America/New_York", "2026-W10"),
    (z(2026, 11, 2, 5), "America/New_York", "2026-W45"),  # Monday 00:00 EST
    (z(2026, 11, 2, 4, 59), "America/New_York", "2026-W44"),
]


@pytest.mark.parametrize("instant,tz,label", WEEK_OF)
def test_the_week_an_instant_belongs_to(instant, tz, label):
    w = window_of("week", instant, tz)
    assert w.label == label
    assert w.contains(instant)


def test_local_days_of_dst_days_and_weeks():
    assert day_window(date(2026, 3, 8), "America/New_York").local_days() == [date(2026, 3, 8)]
    assert day_window(date(2026, 11, 1), "America/New_York").local_days() == [date(2026, 11, 1)]
    week = week_window(2026, 44, "America/New_York")
    assert week.local_days() == [date(2026, 10, 26) + timedelta(days=i) for i in range(7)]
    # a cut-off day spans two local dates
    assert day_window(date(2026, 3, 26), "Asia/Shanghai", "11:45").local_days() == [
        date(2026, 3, 26),
        date(2026, 3, 27),
    ]


def test_previous_of_a_dst_day_is_the_day_before_by_hand():
    prev = day_window(date(2026, 3, 9), "America/New_York").previous()
    assert (prev.label, prev.start, prev.end) == ("2026-03-08", z(2026, 3, 8, 5), z(2026, 3, 9, 4))
    prev = day_window(date(2026, 3, 8), "America/New_York", "11:45").previous()
    assert (prev.label, prev.start, prev.end) == (
        "2026-03-07",
        z(2026, 3, 7, 16, 45),
        z(2026, 3, 8, 15, 45),
    )
