"""`day:last`, `week:last`, `month:last`: the last complete window at the time the spec is read,
what a schedule (a GitHub Actions workflow, a Kubernetes CronJob) asks for without computing a
date itself."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shared.windows import WindowError, parse_window


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    "spec,now,label",
    [
        # a Monday: the week before this one, which ended at midnight
        ("week:last", utc(2026, 6, 15, 6, 0), "2026-W24"),
        # a Sunday evening: its own week is not complete, the one before is
        ("week:last", utc(2026, 6, 14, 23, 59), "2026-W23"),
        # the ISO year turns: 2027-01-01 is a Friday of 2026-W53
        ("week:last", utc(2027, 1, 4, 0, 0), "2026-W53"),
        ("week:last", utc(2027, 1, 3, 12, 0), "2026-W52"),
        ("day:last", utc(2026, 3, 27, 0, 0), "2026-03-26"),
        ("day:last", utc(2026, 3, 26, 23, 59), "2026-03-25"),
        ("month:last", utc(2026, 1, 1, 0, 0), "2025-12"),
        ("month:last", utc(2026, 3, 31, 23, 0), "2026-02"),
    ],
)
def test_last_is_the_window_before_the_one_holding_now(spec, now, label):
    window = parse_window(spec, "UTC", now=now)
    assert window.label == label and window.kind == spec.split(":")[0]
    assert window.end <= now  # complete


def test_last_counts_in_the_time_zone_and_after_the_cutoff():
    # 03:30 UTC is 11:30 in Shanghai: before the 11:45 cut-off the day of 2026-03-26 runs on,
    # so the last complete day is the 25th's; at 11:45 it is the 26th's
    before = parse_window("day:last", "Asia/Shanghai", "11:45", now=utc(2026, 3, 27, 3, 30))
    at = parse_window("day:last", "Asia/Shanghai", "11:45", now=utc(2026, 3, 27, 3, 45))
    assert (before.label, at.label) == ("2026-03-25", "2026-03-26")
    assert at.cutoff == "11:45" and at.end == utc(2026, 3, 27, 3, 45)
    # Sunday 20:00 UTC is Monday 04:00 in Shanghai: that week is already over there
    assert (
        parse_window("week:last", "Asia/Shanghai", now=utc(2026, 6, 14, 20, 0)).label == "2026-W24"
    )
    assert parse_window("week:last", "UTC", now=utc(2026, 6, 14, 20, 0)).label == "2026-W23"


def test_last_without_now_reads_the_clock():
    before = datetime.now(UTC)
    window = parse_window("week:last")
    after = datetime.now(UTC)
    # the week before the clock's (one of the two if a week ended during the call)
    assert window in {parse_window("week:last", now=before), parse_window("week:last", now=after)}
    assert window.end <= after


@pytest.mark.parametrize(
    "spec,says",
    [
        ("custom:last", "'last' names a recurring window"),
        ("last", "'last' names a recurring window"),
    ],
)
def test_last_of_no_recurring_kind_says_which_to_use(spec, says):
    with pytest.raises(WindowError) as err:
        parse_window(spec, "UTC", now=utc(2026, 6, 1))
    assert says in str(err.value) and "week:last" in str(err.value)


def test_last_checks_the_time_zone_and_cutoff_like_any_window():
    with pytest.raises(WindowError, match="unknown time zone"):
        parse_window("week:last", "Mars/Olympus")
    with pytest.raises(WindowError, match="cut-off '25:00'"):
        parse_window("day:last", "UTC", "25:00")
