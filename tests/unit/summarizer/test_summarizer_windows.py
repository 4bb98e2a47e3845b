"""Schedules and window closing by watermark, pure (DST and cut-off edges included)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from services.summarizer.config import SummarizerSettings
from services.summarizer.domain.windows import Schedule, due_windows, previous_window, schedules_for
from shared.events import WindowRef
from shared.windows import WindowError, custom_window, day_window, month_window

SHANGHAI = Schedule("day", "Asia/Shanghai", "11:45")
GRACE = timedelta(minutes=10)


def local(y, m, d, hh, mm, tz):
    return datetime(y, m, d, hh, mm, tzinfo=ZoneInfo(tz)).astimezone(UTC)


def test_first_watermark_closes_only_the_latest_due_window():
    mark = local(2026, 3, 27, 12, 0, "Asia/Shanghai")  # 15 minutes after the 26th's window ends
    (due,) = due_windows(SHANGHAI, None, mark, GRACE, limit=31)
    assert due.label == "2026-03-26"
    assert due.end == local(2026, 3, 27, 11, 45, "Asia/Shanghai")


def test_grace_holds_a_window_open():
    end = local(2026, 3, 27, 11, 45, "Asia/Shanghai")
    before = due_windows(
        SHANGHAI, end - timedelta(hours=1), end + GRACE - timedelta(seconds=1), GRACE, 31
    )
    assert [w.label for w in before] == []
    after = due_windows(SHANGHAI, end + GRACE - timedelta(seconds=1), end + GRACE, GRACE, 31)
    assert [w.label for w in after] == ["2026-03-26"]


def test_catching_up_closes_each_passed_window_once_oldest_first():
    prev = local(2026, 3, 20, 12, 0, "Asia/Shanghai")
    mark = local(2026, 3, 27, 12, 0, "Asia/Shanghai")
    due = due_windows(SHANGHAI, prev, mark, GRACE, limit=31)
    # the 19th's window closed at 03-20 11:55 (before prev); the 20th..26th close now
    expected = [(date(2026, 3, 20) + timedelta(days=i)).isoformat() for i in range(7)]
    assert [w.label for w in due] == expected
    # the next watermark closes nothing new until the next cut-off passes
    assert due_windows(SHANGHAI, mark, mark + timedelta(hours=20), GRACE, 31) == []
    assert due_windows(SHANGHAI, mark, mark, GRACE, 31) == []
    limited = due_windows(SHANGHAI, prev, mark, GRACE, limit=2)
    assert [w.label for w in limited] == expected[-2:]


def test_daily_windows_across_dst_are_23_and_25_hours():
    berlin = Schedule("day", "Europe/Berlin", "00:00")
    spring = berlin.window_containing(local(2026, 3, 29, 12, 0, "Europe/Berlin"))
    autumn = berlin.window_containing(local(2026, 10, 25, 12, 0, "Europe/Berlin"))
    assert spring.end - spring.start == timedelta(hours=23)
    assert autumn.end - autumn.start == timedelta(hours=25)
    mark = autumn.end + GRACE
    (due,) = due_windows(berlin, autumn.start + GRACE, mark, GRACE, 31)
    assert due == autumn


def test_weekly_and_monthly_schedules():
    week = Schedule("week", "Asia/Shanghai")
    mark = local(2026, 6, 15, 0, 30, "Asia/Shanghai")
    (due,) = due_windows(week, None, mark, GRACE, 31)
    assert due.label == "2026-W24"
    month = Schedule("month", "UTC")
    # at 04-01 00:00 March was not yet past its grace: it closes with the next watermark
    due = due_windows(
        month, datetime(2026, 4, 1, tzinfo=UTC), datetime(2026, 7, 2, tzinfo=UTC), GRACE, 31
    )
    assert [w.label for w in due] == ["2026-03", "2026-04", "2026-05", "2026-06"]


def test_schedule_errors_say_how_to_fix_them():
    with pytest.raises(WindowError, match="use one of day, week, month"):
        Schedule("fortnight")
    with pytest.raises(WindowError, match="IANA"):
        Schedule("day", "Moon/Base")
    with pytest.raises(WindowError, match="HH:MM"):
        Schedule("day", "UTC", "25:00")


def test_settings_parse_schedules_per_repository(monkeypatch):
    monkeypatch.setenv(
        "REPODIGEST_SCHEDULES",
        '{"a/b": [{"kind": "day", "tz": "Asia/Shanghai", '
        '"cutoff": "11:45"}], "*": [{"kind": "week"}]}',
    )
    monkeypatch.setenv("REPODIGEST_CLOSE_GRACE_MINUTES", "5")
    settings = SummarizerSettings()
    mapping = settings.schedule_map()
    assert schedules_for("a/b", mapping) == [SHANGHAI]
    assert schedules_for("other/repo", mapping) == [Schedule("week", "UTC")]
    assert settings.grace() == timedelta(minutes=5)
    monkeypatch.setenv("REPODIGEST_SCHEDULES", '{"a/b": [{"kind": "day", "cutoff": "7pm"}]}')
    with pytest.raises(ValueError, match="a/b"):
        SummarizerSettings()


def test_previous_window_and_refs_round_trip():
    day = day_window(date(2026, 3, 26), "Asia/Shanghai", "11:45")
    assert previous_window(day).end == day.start and previous_window(day).label == "2026-03-25"
    month = month_window(2026, 3, "UTC")
    assert previous_window(month).label == "2026-02"
    custom = custom_window(
        datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 6, 4, tzinfo=UTC), "UTC"
    )
    prev = previous_window(custom)
    assert (prev.start, prev.end) == (custom.start - timedelta(days=3), custom.start)
    assert WindowRef.of(day).to_window() == day
