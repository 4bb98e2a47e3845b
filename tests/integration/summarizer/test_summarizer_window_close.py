"""Closing windows in the fold (SQLite and PostgreSQL), from the survivors of mutation testing
the summarizer's store (issue #20 item 4): a window closed by a watermark is stored as it is
(its cut-off, when it was closed, revision 0 and dirty, waiting for its first summary), and a
watermark that closes nothing says so."""

from __future__ import annotations

from datetime import date, datetime, timezone

import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.adapters.tables import windows
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import REPO, watermark

NOW = datetime(2026, 6, 9, 5, 0, tzinfo=timezone.utc)


def test_a_closed_window_is_stored_with_its_cutoff_and_closing_time(database_url):
    store = SqlProjections(database_url)
    store.migrate()
    # the Shanghai day with an 11:45 cut-off: 2026-06-08 03:45Z .. 2026-06-09 03:45Z
    day = day_window(date(2026, 6, 8), "Asia/Shanghai", "11:45")
    closed_by: list[tuple] = []

    def closer(repo, old, new):
        closed_by.append((repo, old, new))
        return [day] if new >= datetime(2026, 6, 9, 3, 45, tzinfo=timezone.utc) else []

    first = store.fold([watermark(datetime(2026, 6, 9, 1, 0, tzinfo=timezone.utc))], now=NOW,
                       closer=closer)
    assert (first.watermarks, first.closed_windows) == (1, 0)  # not past the end yet
    assert store.window_state(REPO, day.label) is None

    second = store.fold([watermark(datetime(2026, 6, 9, 4, 0, tzinfo=timezone.utc))], now=NOW,
                        closer=closer)
    assert second.closed_windows == 1
    state = store.window_state(REPO, day.label)
    assert (state.window, state.revision, state.dirty) == (day, 0, True)
    assert state.window.cutoff == "11:45"
    with store.engine.connect() as conn:
        closed_at = conn.execute(sa.select(windows.c.closed_at).where(
            windows.c.repo == REPO, windows.c.label == day.label)).scalar_one()
    assert closed_at == NOW
    assert [c[2] for c in closed_by] == [datetime(2026, 6, 9, 1, 0, tzinfo=timezone.utc),
                                         datetime(2026, 6, 9, 4, 0, tzinfo=timezone.utc)]
    store.close()
