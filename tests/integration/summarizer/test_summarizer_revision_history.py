"""Every revision of a window is kept with what it changed; migration 0002 upgrades old data
(SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from services.summarizer.adapters.store import MIGRATIONS, SqlProjections
from services.summarizer.adapters.tables import items
from services.summarizer.domain.report import figures, figures_hash
from services.summarizer.handlers import Deps, accept_request, fold_events
from shared.events import ReportRequestData, ReportRequested, WindowRef, WindowSummarized
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import (
    REPO,
    ItemSpec,
    enrich,
    random_scenario,
    utc,
    watermark,
)

WINDOW = day_window(utc(2026, 3, 26).date(), "Asia/Shanghai", "11:45")


def request(as_of: datetime | None) -> ReportRequested:
    return ReportRequested.create(
        ReportRequestData(repo=REPO, window=WindowRef.of(WINDOW), as_of=as_of),
        nonce=uuid.uuid4().hex,
        at=datetime.now(UTC),
    )


async def test_each_revision_is_kept_with_its_hash_and_changed_figures(database_url, capsys):
    store = SqlProjections(database_url)
    published: list[WindowSummarized] = []

    async def publish(event: WindowSummarized) -> None:
        published.append(event)

    deps = Deps(store=store, publish=publish, clock=lambda: WINDOW.end + timedelta(hours=3))
    try:
        await fold_events(
            deps,
            [
                *random_scenario(8, WINDOW.start, 1.0, n_items=40).events(),
                watermark(WINDOW.end + timedelta(hours=1)),
            ],
        )
        await accept_request(deps, request(WINDOW.end))
        for n in (901, 902):  # two late merges: revisions 2 and 3
            late = ItemSpec(
                n,
                "pull_request",
                WINDOW.start + timedelta(hours=1),
                merged=WINDOW.start + timedelta(hours=2),
                additions=n,
            )
            await fold_events(
                deps, [enrich(late, "opened", late.opened), enrich(late, "merged", late.merged)]
            )
        await accept_request(deps, request(None))  # same figures: revision 3 again, no new row
        assert [e.data.revision for e in published] == [1, 2, 3, 3]

        history = store.revisions(REPO, WINDOW.label)
        assert [h.revision for h in history] == [1, 2, 3]
        for h, event in zip(history, published):
            assert h.summary_id == event.id
            assert h.figures_hash == figures_hash(figures(event.data))
            assert h.changed == event.data.changed_figures
        assert history[0].changed == () and history[0].request_id == published[0].data.request_id
        merged = {c.name: (c.before, c.after) for c in history[2].changed}["counts.merged_prs"]
        assert merged[1] == merged[0] + 1
        assert len({h.figures_hash for h in history}) == 3
        # revision 3 published again (for a request) still says what revision 3 changed
        assert published[3].data.changed_figures == history[2].changed != ()
        # the windows row holds the latest revision only
        assert store.window_state(REPO, WINDOW.label).revision == 3
        # the audit view lists them
        from services.summarizer.audit import revisions_command

        capsys.readouterr()
        assert revisions_command(database_url, REPO, WINDOW.label) == 0
        shown = capsys.readouterr().out
        assert all(h.summary_id[:8] in shown for h in history) and "counts.merged_prs: " in shown
        assert revisions_command(database_url, REPO, "2026-W01") == 1
    finally:
        store.close()


async def test_migration_0002_keeps_old_windows_and_items(database_url):
    from alembic import command
    from alembic.config import Config

    store = SqlProjections(database_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    try:
        with store.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0001")
            conn.execute(
                sa.text(
                    'insert into windows (repo, label, kind, start, "end", tz, revision, figures_hash, '
                    "figures, summary_id, closed_at, dirty) values (:r, 'old', 'day', :s, :e, 'UTC', 2, "
                    "'h2', '{}', 's2', :e, :d)"
                ),
                {
                    "r": REPO,
                    "s": WINDOW.start.replace(tzinfo=None),
                    "e": WINDOW.end.replace(tzinfo=None),
                    "d": False,
                },
            )
            spec = ItemSpec(
                5, "pull_request", WINDOW.start, merged=WINDOW.start + timedelta(hours=4)
            )
            snap = spec.snapshot(WINDOW.start + timedelta(hours=4))
            conn.execute(
                sa.text(
                    "insert into items (repo, number, kind, title, author, state, created_at, merged_at, "
                    "closed_at, snapshot_time, snapshot, tags, first_seen) values (:r, 5, 'pull_request', "
                    "'t', 'alice', 'closed', :c, :m, :m, :m, :snap, '{}', :c)"
                ),
                {
                    "r": REPO,
                    "c": WINDOW.start.replace(tzinfo=None),
                    "m": (WINDOW.start + timedelta(hours=4)).replace(tzinfo=None),
                    "snap": snap.model_dump_json(),
                },
            )
        store.migrate()
        (old,) = store.revisions(REPO, "old")
        assert (old.revision, old.figures_hash, old.summary_id, old.changed) == (2, "h2", "s2", ())

        # an older fact about the item folded after the upgrade does not replace its snapshot
        async def publish(event: WindowSummarized) -> None:
            raise AssertionError("nothing is due")

        deps = Deps(store=store, publish=publish, clock=lambda: WINDOW.end)
        await fold_events(deps, [enrich(spec, "opened", spec.opened)])
        with store.engine.connect() as conn:
            row = conn.execute(sa.select(items).where(items.c.number == 5)).one()
        assert row.state == "closed" and json.loads(row.snapshot)["state"] == "closed"
        # a processed id from before the upgrade has no repository: a rebuild of any one
        # repository forgets it (it may be that repository's watermark)
        with store.engine.begin() as conn:
            conn.execute(
                sa.text("insert into processed (event_id, processed_at) values ('legacy', :t)"),
                {"t": WINDOW.end.replace(tzinfo=None)},
            )
        assert store.reset_projections("someone/else")["processed"] == 1
        assert store.counts()["items"] == 1 and store.counts()["processed"] == 1
    finally:
        store.close()
