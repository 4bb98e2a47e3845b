"""The fold writes its hot rows through the driver (values converted once, not per value by
SQLAlchemy): what it stores must stay exactly what SQLAlchemy Core stores for the same values,
so that databases written before and after read the same (SQLite keeps datetimes as text: the
format is what orders them)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from pydantic import TypeAdapter

from services.summarizer.adapters.store import SqlProjections, _sqlite_datetime, _utc_naive
from services.summarizer.adapters.tables import UTCDateTime, activity, items, processed
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import ItemSpec, RuleSetRef, enrich, utc

DAY = day_window(datetime(2026, 3, 26).date(), "UTC")

INSTANTS = [
    *TypeAdapter(list[datetime]).validate_python(
        [
            "2026-03-26T08:15:00Z",
            "2026-03-26T08:15:00.5+02:00",
            "2026-03-26T23:59:59.999999-05:30",
            "0999-01-01T00:00:00Z",
            "2026-03-26T08:15:00",
        ]
    ),
    datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("Europe/London")),
    datetime(2026, 10, 25, 1, 30, fold=1, tzinfo=ZoneInfo("Europe/London")),
    datetime(2026, 3, 26, 8, 15, 0, 1, tzinfo=timezone(timedelta(hours=14))),
    datetime(2026, 3, 26, 8, 15),
]


def core_bind(dialect: sa.engine.Dialect, value: datetime | None):
    """What SQLAlchemy Core sends to the driver for a UTCDateTime column."""
    process = UTCDateTime().dialect_impl(dialect).bind_processor(dialect)
    return process(value) if process else value


@pytest.mark.parametrize("value", INSTANTS, ids=str)
def test_converted_datetimes_are_what_core_binds(value):
    from sqlalchemy.dialects import postgresql, sqlite

    assert _sqlite_datetime(value) == core_bind(sqlite.dialect(), value)
    naive = _utc_naive(value)
    assert naive == core_bind(postgresql.dialect(), value) and naive.tzinfo is None
    assert _sqlite_datetime(None) is None and _utc_naive(None) is None


async def test_folded_rows_hold_what_core_would_store(database_url):
    store = SqlProjections(database_url)
    store.migrate()
    ist = ZoneInfo("Asia/Kolkata")
    spec = ItemSpec(
        1,
        "pull_request",
        utc(2026, 3, 26, 2, 0, 0).astimezone(ist),
        merged=utc(2026, 3, 26, 9, 30, 0).replace(microsecond=250_000),
    )
    other = ItemSpec(2, "issue", utc(2026, 3, 26, 4), closed=utc(2026, 3, 26, 5, 0, 0, 1))
    opened, merged = enrich(spec, "opened", spec.opened), enrich(spec, "merged", spec.merged)
    again = enrich(spec, "merged", spec.merged, ruleset=RuleSetRef(profile="test", version="t2"))
    events = [
        merged,
        enrich(other, "opened", other.opened),
        opened,
        enrich(other, "closed", other.closed),
    ]
    try:
        store.fold(events + [events[0]], now=DAY.end)
        store.fold([again, opened], now=DAY.end + timedelta(microseconds=7))
        dialect = store.engine.dialect
        with store.engine.connect() as conn:
            for table in (items, activity, processed):
                stamps = [c.name for c in table.columns if isinstance(c.type, UTCDateTime)]
                typed = conn.execute(sa.select(table).order_by(*table.primary_key.columns)).all()
                names = ", ".join(f'"{c.name}"' for c in table.columns)
                order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
                raw = conn.exec_driver_sql(
                    f"select {names} from {table.name} order by {order}"
                ).all()
                assert len(raw) == len(typed) > 0
                for t, r in zip(typed, raw):
                    for name in stamps:
                        # read back as aware UTC, bound again by Core: the very value stored
                        assert r._mapping[name] == core_bind(dialect, t._mapping[name]), (
                            table.name,
                            name,
                        )
            item = conn.execute(sa.select(items).where(items.c.number == 1)).one()
            assert (item.created_at, item.merged_at, item.first_seen) == (
                spec.opened,
                spec.merged,
                spec.opened,
            )
            assert item.snapshot_time == spec.merged and item.state == "closed"
            assert item.created_at.tzinfo is not None
            reclassified = conn.execute(
                sa.select(activity.c.ruleset, activity.c.time).where(
                    activity.c.fact_id == merged.data.fact_id
                )
            ).one()
            assert reclassified == ("t2", spec.merged)
            assert conn.execute(sa.select(sa.func.count()).select_from(processed)).scalar() == 5
    finally:
        store.close()
