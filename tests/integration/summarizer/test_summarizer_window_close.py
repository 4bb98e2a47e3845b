"""Closing windows in the fold (SQLite and PostgreSQL), from the survivors of mutation testing
the summarizer's store (issue #20 item 4): a window closed by a watermark is stored as it is
(its cut-off, when it was closed, revision 0 and dirty, waiting for its first summary), a
watermark that closes nothing says so, windows closed for several repositories in one batch are
all counted, a watermark moves only forward and each repository's on its own; and the activity
row names who did it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.adapters.tables import activity, windows
from services.summarizer.adapters.tables import watermarks as wm
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import REPO, ItemSpec, enrich, watermark

NOW = datetime(2026, 6, 9, 5, 0, tzinfo=UTC)


def test_a_closed_window_is_stored_with_its_cutoff_and_closing_time(database_url):
    store = SqlProjections(database_url)
    store.migrate()
    # the Shanghai day with an 11:45 cut-off: 2026-06-08 03:45Z .. 2026-06-09 03:45Z
    day = day_window(date(2026, 6, 8), "Asia/Shanghai", "11:45")
    closed_by: list[tuple] = []

    def closer(repo, old, new):
        closed_by.append((repo, old, new))
        return [day] if new >= datetime(2026, 6, 9, 3, 45, tzinfo=UTC) else []

    first = store.fold([watermark(datetime(2026, 6, 9, 1, 0, tzinfo=UTC))], now=NOW, closer=closer)
    assert (first.watermarks, first.closed_windows) == (1, 0)  # not past the end yet
    assert store.window_state(REPO, day.label) is None

    second = store.fold([watermark(datetime(2026, 6, 9, 4, 0, tzinfo=UTC))], now=NOW, closer=closer)
    assert second.closed_windows == 1
    state = store.window_state(REPO, day.label)
    assert (state.window, state.revision, state.dirty) == (day, 0, True)
    assert state.window.cutoff == "11:45"
    with store.engine.connect() as conn:
        closed_at = conn.execute(
            sa.select(windows.c.closed_at).where(
                windows.c.repo == REPO, windows.c.label == day.label
            )
        ).scalar_one()
    assert closed_at == NOW
    # the closer is told the repository, the watermark before (none at first) and the new one
    first_mark, second_mark = (datetime(2026, 6, 9, h, 0, tzinfo=UTC) for h in (1, 4))
    assert closed_by == [(REPO, None, first_mark), (REPO, first_mark, second_mark)]
    store.close()


def test_windows_closed_for_several_repositories_in_one_batch_are_all_counted(database_url):
    store = SqlProjections(database_url)
    store.migrate()
    day = day_window(date(2026, 6, 8), "UTC")
    mark = datetime(2026, 6, 9, 1, 0, tzinfo=UTC)
    other = "acme/other"
    result = store.fold(
        [watermark(mark), watermark(mark, repo=other)], now=NOW, closer=lambda repo, old, new: [day]
    )
    assert (result.watermarks, result.closed_windows) == (2, 2)
    assert {store.window_state(r, day.label).window for r in (REPO, other)} == {day}
    store.close()


def test_the_activity_row_names_who_did_it(database_url):
    store = SqlProjections(database_url)
    store.migrate()
    opened = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)
    spec = ItemSpec(7, "pull_request", opened, author="carol")
    store.fold([enrich(spec, "opened", opened)], now=NOW)
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(activity.c.number, activity.c.action, activity.c.actor)).all()
    assert [tuple(r) for r in rows] == [(7, "opened", "carol")]
    store.close()


def test_a_watermark_moves_only_forward_and_each_repository_on_its_own(database_url):
    store = SqlProjections(database_url)
    store.migrate()
    calls: list[tuple] = []

    def closer(repo, old, new):
        calls.append((repo, old, new))
        return []

    t1, t2 = (datetime(2026, 6, 9, h, 0, tzinfo=UTC) for h in (1, 2))
    later = datetime(2026, 6, 9, 6, 0, tzinfo=UTC)
    # acme/b's two watermarks in one batch, the later one first: the later one is where it is
    store.fold(
        [
            watermark(t1, repo="acme/a"),
            watermark(t1, repo="acme/b"),
            watermark(t1 - timedelta(hours=1), repo="acme/b"),
        ],
        now=NOW,
        closer=closer,
    )
    # acme/a: the same watermark again (another event, e.g. another classifier replica's) does
    # not move it; acme/b, after it in the batch, moves all the same
    same = watermark(t1, repo="acme/a").model_copy(update={"id": "another-replica"})
    store.fold([same, watermark(t2, repo="acme/b")], now=later, closer=closer)
    assert calls == [("acme/a", None, t1), ("acme/b", None, t1), ("acme/b", t1, t2)]
    assert store.watermarks() == {"acme/a": t1, "acme/b": t2}
    with store.engine.connect() as conn:
        updated = dict(conn.execute(sa.select(wm.c.repo, wm.c.updated_at)).all())
    assert updated == {"acme/a": NOW, "acme/b": later}
    store.close()
