"""`repodigest db upgrade | current` and the read-only commands against real SQLite and
PostgreSQL (issue #17 item 11): migrations run on request (a Job, a one-shot service), a read never
migrates — against an un-migrated or older database it neither creates tables nor alters them —
and a summarizer told not to migrate refuses a schema that is behind."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections, StoreError, head_revision
from services.summarizer.app import build_deps
from services.summarizer.config import SummarizerSettings

CLI = [sys.executable, "-m", "repodigest"]


def db(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPODIGEST_")}
    return subprocess.run(
        [*CLI, "db", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "REPODIGEST_DATABASE_URL": database_url},
    )


def schema(database_url: str) -> dict:
    """Every table with its columns (name, type, nullable) and the Alembic revision."""
    engine = sa.create_engine(database_url)
    try:
        inspector = sa.inspect(engine)
        tables = {
            t: [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(t)]
            for t in inspector.get_table_names()
        }
        version = None
        if "alembic_version" in tables:
            with engine.connect() as conn:
                version = conn.execute(sa.text("select version_num from alembic_version")).scalar()
        return {"tables": tables, "version": version}
    finally:
        engine.dispose()


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr, result.stderr


def test_reads_never_migrate_and_upgrade_steps_through_the_revisions(database_url, tmp_path):
    sqlite_file = (
        sa.engine.make_url(database_url).database if database_url.startswith("sqlite") else None
    )

    # nothing there yet: current says so and creates nothing (not even the SQLite file)
    current = db(database_url, "current")
    no_traceback(current)
    if sqlite_file:
        assert current.returncode == 1 and "no projections database" in current.stderr
        assert not os.path.exists(sqlite_file)
    else:
        assert current.returncode == 3 and "not migrated" in current.stdout
        assert "repodigest db upgrade" in current.stderr
        assert schema(database_url) == {"tables": {}, "version": None}

    # an older schema, made by the command a Job runs
    first = db(database_url, "upgrade", "--revision", "0001")
    assert first.returncode == 0, first.stderr
    assert "to revision 0001" in first.stdout and f"head is {head_revision()}" in first.stdout
    old = schema(database_url)
    assert old["version"] == "0001" and "items" in old["tables"]
    assert "window_revisions" not in old["tables"]  # what 0002 adds

    # every read-only command against it: refused with what to run, the schema untouched
    reads = {("current",): 3, ("revisions", "a/b", "2026-W24"): 2, ("rejected",): 2}
    for args, code in reads.items():
        result = db(database_url, *args)
        no_traceback(result)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert "repodigest db upgrade" in result.stdout + result.stderr, args
        assert schema(database_url) == old, f"`db {' '.join(args)}` changed the schema"
    assert "revision 0001, behind" in db(database_url, "current").stdout

    # an unknown target is named with the ones there are; nothing changes
    unknown = db(database_url, "upgrade", "--revision", "nope")
    no_traceback(unknown)
    assert unknown.returncode == 1 and "Known revisions: 0001, 0002" in unknown.stderr
    assert schema(database_url) == old

    # the upgrade, then it is current and a second upgrade does nothing
    up = db(database_url, "upgrade")
    assert up.returncode == 0 and "from 0001 to revision 0002 (head)" in up.stdout, up.stderr
    migrated = schema(database_url)
    assert migrated["version"] == head_revision() and "window_revisions" in migrated["tables"]
    now = db(database_url, "current")
    assert now.returncode == 0 and "(head)" in now.stdout, now.stderr
    again = db(database_url, "upgrade")
    assert again.returncode == 0 and "already at revision 0002" in again.stdout
    assert schema(database_url) == migrated
    # the reads work on a current schema
    rejected = db(database_url, "rejected")
    assert rejected.returncode == 0 and "0 event(s)" in rejected.stdout, rejected.stderr


def test_an_unreachable_database_is_one_line_and_exit_1(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql+psycopg://repodigest:s3cret@127.0.0.1:{port}/repodigest"
    for args in (("current",), ("upgrade",)):
        result = db(url, *args)
        no_traceback(result)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == 1 and len(lines) == 1, result.stderr
        assert lines[0].startswith("error: cannot ") and "reachable" in lines[0]
        assert "s3cret" not in result.stderr and "***" in result.stderr
    refused = db("mysql://x/y", "current")
    assert refused.returncode == 2 and "not supported" in refused.stderr


async def test_a_summarizer_that_must_not_migrate_refuses_a_schema_behind(
    database_url, monkeypatch
):
    monkeypatch.setenv("REPODIGEST_DATABASE_MIGRATE", "false")
    settings = SummarizerSettings(database_url=database_url)
    assert settings.database_migrate is False
    store = SqlProjections(database_url)

    async def publish(event) -> None:
        raise AssertionError("nothing is published")

    try:
        if database_url.startswith("sqlite"):
            with pytest.raises(StoreError, match="repodigest db upgrade"):
                await build_deps(settings, store, publish).ensure_schema()
            assert not os.path.exists(sa.engine.make_url(database_url).database)
        assert store.migrate("0001") == (None, "0001")
        before = schema(database_url)
        deps = build_deps(settings, store, publish)
        assert deps.migrate is False
        with pytest.raises(StoreError, match=r"revision 0001, older than .*repodigest db upgrade"):
            await deps.ensure_schema()
        assert schema(database_url) == before  # not upgraded
        assert store.migrate() == ("0001", head_revision())
        await build_deps(settings, store, publish).ensure_schema()  # at head: starts
        # the default (no Job) still migrates at start
        monkeypatch.delenv("REPODIGEST_DATABASE_MIGRATE")
        assert build_deps(SummarizerSettings(database_url=database_url), store, publish).migrate
    finally:
        store.close()
