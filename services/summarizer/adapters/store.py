"""SQL projections of the enriched event log (SQLAlchemy 2.0, SQLite or PostgreSQL).

Synchronous by design: every method is one short transaction and the handlers call it through
`asyncio.to_thread`. A fold batch (processed ids + activity + items + watermarks + window flags)
commits in ONE transaction, so a crash can never leave an event half-applied.

The fold's rules (once per id, admission, last writer wins, late windows, watermark advance,
window closing) are `domain.projection`'s pure functions; this store reads what they need and
writes what they decide. It implements `ports.Projections`, which is what the handlers know.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.sql.compiler import SQLCompiler

from shared.events import (
    ENRICHED_EVENT_ADAPTER,
    ChangedFigure,
    EnrichedFact,
    FactData,
    ItemSnapshot,
    ReportRequested,
    Tags,
    WatermarkForwarded,
)
from shared.windows import Window

from ..domain.admission import FUTURE, Admission
from ..domain.memo import TwoGenerations
from ..domain.projection import (
    Closer,
    FoldResult,
    RejectedEvent,
    Revision,
    WindowState,
    admit,
    advances,
    closing_windows,
    fact_times_by_repo,
    first_of_each_id,
    highest_watermarks,
    late_labels,
    latest_facts,
    latest_items,
    order_of,
    repo_of,
    time_of,
)
from ..domain.report import FactRow, ItemRow, WindowInput, brings_back_title, fact_actor
from ..domain.storylines import (
    by_commit,
    commit_number,
    plain_title,
    quoted_revert,
    terms_of,
    with_commit_numbers,
)
from .tables import (
    activity,
    items,
    processed,
    rejected,
    requests,
    watermarks,
    window_revisions,
    windows,
)

log = logging.getLogger("repodigest.summarizer.store")

MIGRATIONS = Path(__file__).with_name("migrations")
CHUNK = 500  # bound on IN (...) lists and multi-row statements
# parsed facts (and tags texts) and item snapshots kept per generation (memo.TwoGenerations, so
# at most twice as many): a report reads its window's and the previous window's facts (a 256-PR
# week of merged-PR history, about 1,000; with GitHub's comments and reviews a few thousand);
# a real fact is about 2.5 kB of JSON and three times that parsed, so at most ~100 MB
PARSED_FACTS = 5_000
PARSED_ITEMS = 2_500
# rows per statement of the PostgreSQL bulk form: one array per column, not one parameter per
# value, so a consumer batch (1024) goes in one statement per table (one round trip, not three)
COLUMNAR_CHUNK = 8192
_MIGRATING = threading.Lock()  # one migration at a time in this process (SQLite has no DDL lock)


class StoreError(RuntimeError):
    """The projections database is unusable; the message says what to fix."""


def refused_data(exc: BaseException) -> bool:
    """Whether the database refused the data itself (a value out of range, a NUL, a constraint):
    the same events fail the same way every time, unlike a lost connection or a locked file."""
    if isinstance(exc, sa.exc.StatementError) and not isinstance(exc, sa.exc.DBAPIError):
        exc = exc.orig if exc.orig is not None else exc  # raised while binding a parameter
    return isinstance(exc, (sa.exc.IntegrityError, sa.exc.DataError, OverflowError, ValueError))


def redacted(url: str) -> str:
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a malformed URL is reported without its content
        return "<unparseable database URL>"


def _chunks(seq: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


# the stored tags of an item with a topic (`Tags` serialised compactly, in field order): only
# these rows' tags are read for the title history
_HAS_TOPICS = '%"topics":[{%'


def _topics_of(tags_json: str | None) -> tuple[str, ...]:
    if not tags_json:
        return ()
    return tuple(t["name"] for t in json.loads(tags_json).get("topics", ()))


class _TitleHistory:
    """One repository's titles (with their items' topics) and their terms, the terms' document
    frequency and a title index, kept between reports and brought up to date from what changed
    (storylines)."""

    def __init__(self) -> None:
        self.version: tuple | None = None
        self.titles: dict[int, str] = {}
        self.topics: dict[int, tuple[str, ...]] = {}
        self.terms: dict[int, frozenset[str]] = {}
        self.plain: dict[int, str] = {}
        self.counts: dict[str, int] = {}
        self._by_title: dict[str, int] | None = None
        # the items whose title says a change comes back ("Reapply …"), and every item by its
        # plain title: read for a window's reverts, built once per version of the history
        self._bringing_back: frozenset[int] | None = None
        self._all_titled: dict[str, tuple[int, ...]] | None = None
        # a commit hash of a reference -> the change merged as that commit (None: none, or more
        # than one for a short hash), found once per version of the history
        self.commits: dict[str, int | None] = {}

    def update(self, rows: Iterable[tuple[int, str, tuple[str, ...]]], version: tuple) -> None:
        seen: set[int] = set()
        counts: dict[str, int] | None = (
            None  # copied on first change: handed-out counts stay as they were
        )
        for number, title, topics in rows:
            seen.add(number)
            if self.titles.get(number) == title and self.topics.get(number, ()) == topics:
                continue
            if counts is None:
                counts = dict(self.counts)
            for t in self.terms.get(number, ()):
                counts[t] -= 1
            terms = terms_of(title, topics)
            for t in terms:
                counts[t] = counts.get(t, 0) + 1
            self.titles[number], self.terms[number], self.plain[number] = (
                title,
                terms,
                plain_title(title),
            )
            if topics:
                self.topics[number] = topics
            else:
                self.topics.pop(number, None)
        for number in [n for n in self.titles if n not in seen]:  # gone (projections reset)
            if counts is None:
                counts = dict(self.counts)
            for t in self.terms.pop(number):
                counts[t] -= 1
            del self.titles[number], self.plain[number]
            self.topics.pop(number, None)
        if counts is not None:
            self.counts = {t: c for t, c in counts.items() if c > 0}
            self._by_title = None
            self._bringing_back = self._all_titled = None
        self.commits = {}  # (a change merged since, or a snapshot that now has its commit)
        self.version = version

    def number_titled(self, title: str) -> int | None:
        """The (oldest) item whose title reads `title`, [Tag]s, (#N) and case aside."""
        if self._by_title is None:
            index: dict[str, int] = {}
            for number in sorted(self.plain):
                index.setdefault(self.plain[number], number)
            self._by_title = index
        return self._by_title.get(plain_title(title))

    def bringing_back(self, reverted: Iterable[int]) -> set[int]:
        """The items that may bring a reverted change back: titled so ("Reapply …", "[Recover]
        …"), or with the very title of one of `reverted` again."""
        if self._bringing_back is None:
            self._bringing_back = frozenset(
                n for n, title in self.titles.items() if brings_back_title(title)
            )
        if self._all_titled is None:
            index: dict[str, list[int]] = {}
            for number in sorted(self.plain):
                index.setdefault(self.plain[number], []).append(number)
            self._all_titled = {k: tuple(v) for k, v in index.items()}
        out = set(self._bringing_back)
        for n in reverted:
            if n in self.plain:
                out.update(self._all_titled.get(self.plain[n], ()))
        return out


SUPPORTED_BACKENDS = ("sqlite", "postgresql")  # the migrations and bulk statements know these


def check_database_url(url: str) -> None:
    """StoreError, saying what to use instead, unless `url` names a database this store supports
    with its driver installed (nothing is created or connected)."""
    try:
        sa_url = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise StoreError(
            f"REPODIGEST_DATABASE_URL {redacted(url)} is not a database URL; use e.g. "
            "sqlite:///./repodigest.db or postgresql+psycopg://user@host/db"
        ) from None
    if sa_url.get_backend_name() not in SUPPORTED_BACKENDS:
        raise StoreError(
            f"database {redacted(url)} is not supported: the projections live in SQLite "
            "(sqlite:///./repodigest.db) or PostgreSQL (postgresql+psycopg://user@host/db)"
        )
    try:
        sa_url.get_dialect().import_dbapi()
    except (ModuleNotFoundError, sa.exc.NoSuchModuleError) as exc:
        missing = getattr(exc, "name", None) or sa_url.drivername
        raise StoreError(
            f"no driver for {sa_url.drivername} ({missing} is not installed); for PostgreSQL "
            "install repodigest[postgres] and use postgresql+psycopg://"
        ) from None


def _reason(exc: sa.exc.DBAPIError) -> str:
    """The driver's error on one line (psycopg's spans several), without SQLAlchemy's
    statement and parameters."""
    text = " ".join(str(exc.orig).split())[:240].rstrip(".")
    return f"{type(exc.orig).__name__}: {text}"


def alembic_config():
    """The summarizer's Alembic environment (migrations/env.py takes the connection from
    `attributes`); no alembic.ini: `repodigest db upgrade` and the services run it."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def _scripts():
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    """The newest migration this version of the code has."""
    return _scripts().get_current_head()


def known_revisions() -> list[str]:
    """Every migration this version has, oldest first."""
    return [s.revision for s in reversed(list(_scripts().walk_revisions()))]


class SqlProjections:
    """items, activity, processed, watermarks, windows and requests behind one engine
    (`ports.Projections`)."""

    refused_data = staticmethod(refused_data)

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        check_database_url(url)  # (a URL it lets through parses)
        sa_url = sa.engine.make_url(url)
        kwargs: dict = {"echo": echo, "future": True}
        if sa_url.get_backend_name() == "sqlite":
            kwargs["connect_args"] = {"timeout": 30, "check_same_thread": False}
        else:
            kwargs["pool_pre_ping"] = True
        try:
            self.engine: Engine = sa.create_engine(sa_url, **kwargs)
        except ModuleNotFoundError as exc:
            raise StoreError(
                f"no driver for {sa_url.drivername} ({exc.name} is not installed); for PostgreSQL "
                "install repodigest[postgres] and use postgresql+psycopg://"
            ) from None
        if sa_url.get_backend_name() == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        self.dialect = sa_url.get_backend_name()
        # what UTCDateTime (and SQLite's DATETIME) would bind, for the statements run in bulk
        self._stored = _sqlite_datetime if self.dialect == "sqlite" else _utc_naive
        self._bulk_statements: dict[str, _Bulk] = {}
        self._title_histories: dict[str, _TitleHistory] = {}
        self._title_lock = threading.Lock()
        # the parsed models of the texts this process stored or read, so that a report reads
        # back the very objects the fold parsed (and the per-item results worked out for them,
        # domain/memo.py); per generation: a busy repository's two weeks and their items
        self._facts: TwoGenerations[str, FactData] = TwoGenerations(PARSED_FACTS)
        self._snapshots: TwoGenerations[str, ItemSnapshot] = TwoGenerations(PARSED_ITEMS)
        self._tags: TwoGenerations[str, Tags] = TwoGenerations(PARSED_FACTS)

    # ------------------------------------------------------------ lifecycle

    def migrate(self, revision: str = "head") -> tuple[str | None, str | None]:
        """`alembic upgrade <revision>` (head: the newest) against this database; the revisions
        before and after (None: no schema)."""
        from alembic import command
        from alembic.runtime.migration import MigrationContext
        from alembic.util import CommandError

        cfg = alembic_config()
        sqlite_file = self._sqlite_file()
        if sqlite_file is not None:  # the file is made by the first connection
            sqlite_file.parent.mkdir(parents=True, exist_ok=True)

        revisions: list[str | None] = []

        def upgrade() -> None:
            with self.engine.begin() as conn:
                if self.dialect == "postgresql":
                    # replicas starting together migrate one after the other
                    conn.execute(sa.text("select pg_advisory_xact_lock(7240115)"))
                revisions[:] = [MigrationContext.configure(conn).get_current_revision()]
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
                revisions.append(MigrationContext.configure(conn).get_current_revision())

        try:
            with _MIGRATING:
                try:
                    upgrade()
                except sa.exc.OperationalError as exc:
                    # another process migrated the same SQLite file meanwhile: look again
                    if "already exists" not in str(exc.orig):
                        raise
                    upgrade()
        except sa.exc.OperationalError as exc:
            raise StoreError(
                f"cannot migrate the projections database {redacted(self.url)}: {_reason(exc)}; "
                "check that it is reachable and writable (REPODIGEST_DATABASE_URL)"
            ) from None
        except CommandError as exc:  # an unknown target, or one below the database's revision
            raise StoreError(
                f"cannot upgrade {redacted(self.url)} to {revision!r}: {exc}. Known revisions: "
                f"{', '.join(known_revisions())} (head {head_revision()})"
            ) from None
        return revisions[0], revisions[-1]

    def current_revision(self) -> str | None:
        """The database's Alembic revision (None: never migrated). Reads only: creates nothing,
        not even the version table, nor (SQLite) the file."""
        from alembic.runtime.migration import MigrationContext

        self._must_exist()
        try:
            with self.engine.connect() as conn:
                return MigrationContext.configure(conn).get_current_revision()
        except sa.exc.OperationalError as exc:
            raise StoreError(
                f"cannot read the projections database {redacted(self.url)}: {_reason(exc)}; "
                "check that it is reachable (REPODIGEST_DATABASE_URL)"
            ) from None

    def check_schema(self) -> str:
        """The revision, when it is the code's head; else StoreError saying to run `repodigest
        db upgrade`. For what must not migrate: read-only commands, and the summarizer when
        REPODIGEST_DATABASE_MIGRATE is off."""
        current, head = self.current_revision(), head_revision()
        if current == head:
            return current
        if current is None:
            state = "has no repodigest schema (never migrated)"
        elif current in known_revisions():
            state = f"is at revision {current}, older than this version's {head}"
        else:
            state = (
                f"is at revision {current}, which this version does not know (a newer "
                "repodigest migrated it: run that version)"
            )
            raise StoreError(f"the projections database {redacted(self.url)} {state}")
        raise StoreError(
            f"the projections database {redacted(self.url)} {state}: run "
            "`repodigest db upgrade` (or the migration Job) first"
        )

    def _sqlite_file(self) -> Path | None:
        database = self.engine.url.database
        if (
            self.dialect != "sqlite"
            or not database
            or database == ":memory:"
            or database.startswith("file:")
        ):
            return None
        return Path(database)

    def _must_exist(self) -> None:
        """StoreError for a SQLite file that does not exist (connecting would create it)."""
        path = self._sqlite_file()
        if path is not None and not path.exists():
            raise StoreError(
                f"no projections database at {path} (check REPODIGEST_DATABASE_URL "
                "or --database-url; `repodigest db upgrade` creates it)"
            )

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(sa.text("select 1"))

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------ folding

    def _insert(self, table: sa.Table):
        if self.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert

            return insert(table)
        return sqlite.insert(table)

    def _bulk(self, conn: Connection, name: str, rows: list[tuple]) -> list:
        """Run one of the fold's hot statements (see `_BULK`) over rows of stored values; what
        it returns (a RETURNING statement's values)."""
        bulk = self._bulk_statements.get(name)
        if bulk is None:
            bulk = self._bulk_statements[name] = _Bulk.compile(name, conn.dialect)
        out: list = []
        for part in _chunks(rows, COLUMNAR_CHUNK if bulk.columnar else CHUNK):
            out += bulk.run(conn, part)
        return out

    def _mark_processed(
        self, conn: Connection, events: Sequence[EnrichedFact | WatermarkForwarded], now: datetime
    ) -> list[EnrichedFact | WatermarkForwarded]:
        """Record the batch's event ids as processed; the events (first of each id, in order)
        that were not processed before."""
        first = first_of_each_id(events)
        stamp = self._stored(now)
        if conn.dialect.name == "postgresql":
            # insert all, skip the known ones; the inserted ids are the new events (one round
            # trip, through the primary key index)
            new = set(
                self._bulk(
                    conn, "processed_new", [(i, stamp, repo_of(e)) for i, e in first.items()]
                )
            )
            return [e for i, e in first.items() if i in new]
        seen: set[str] = set()
        for part in _chunks(list(first)):
            seen.update(conn.exec_driver_sql(_seen_sqlite(len(part)), tuple(part)).scalars())
        fresh = [e for i, e in first.items() if i not in seen]
        self._bulk(conn, "processed", [(e.id, stamp, repo_of(e)) for e in fresh])
        return fresh

    def fold(
        self,
        events: Sequence[EnrichedFact | WatermarkForwarded],
        *,
        now: datetime,
        closer: Closer | None = None,
        admission: Admission = Admission(),
    ) -> FoldResult:
        """Apply a batch once: already-processed events are skipped, the rest commit together.

        Events `admission` refuses are recorded in `rejected` (and marked processed) instead of
        being folded; held future events whose time has come are folded with this batch.
        """
        result = FoldResult()
        with self.engine.begin() as conn:
            fresh = self._mark_processed(conn, events, now)
            result.duplicates = len(events) - len(fresh)
            admitted = self._admit(conn, fresh, now, admission, result)
            released = self._release(conn, now, admission)
            result.released = len(released)
            admitted = released + admitted
            if not admitted:
                return result
            facts = [e for e in admitted if isinstance(e, EnrichedFact)]
            marks = [e for e in admitted if isinstance(e, WatermarkForwarded)]
            if facts:
                result.merged = self._fold_facts(conn, facts)
                result.late_windows = self._mark_late(conn, facts)
            for repo, old, new in self._advance(conn, marks, now):
                if closer is not None:
                    result.closed_windows += self._close(conn, repo, closer(repo, old, new), now)
            result.facts, result.watermarks = len(facts), len(marks)
            result.repos = {e.data.fact.repo for e in facts} | {e.data.repo for e in marks}
        return result

    def _admit(
        self,
        conn: Connection,
        fresh: list[EnrichedFact | WatermarkForwarded],
        now: datetime,
        admission: Admission,
        result: FoldResult,
    ) -> list[EnrichedFact | WatermarkForwarded]:
        admitted, refusals = admit(fresh, now, admission)
        refused = []
        for e, verdict in refusals:
            result.rejected[verdict.reason] = result.rejected.get(verdict.reason, 0) + 1
            refused.append(
                {
                    "event_id": e.id,
                    "repo": repo_of(e),
                    "reason": verdict.reason,
                    "detail": verdict.detail,
                    "event_time": time_of(e),
                    "received_at": now,
                    "event": e.model_dump_json(),
                }
            )
        for part in _chunks(refused):
            stmt = self._insert(rejected).on_conflict_do_nothing(
                index_elements=[rejected.c.event_id]
            )
            conn.execute(stmt, list(part))
        if refused:
            log.warning(
                "%d enriched event(s) not folded: %s",
                len(refused),
                ", ".join(f"{n} {r}" for r, n in sorted(result.rejected.items())),
                extra={"rejected": dict(result.rejected)},
            )
        return admitted

    def _release(
        self, conn: Connection, now: datetime, admission: Admission
    ) -> list[EnrichedFact | WatermarkForwarded]:
        """Held future events whose time is now within the tolerance (and whose repository is
        still accepted), marked released in the same transaction that folds them."""
        horizon = admission.horizon(now)
        held = (
            conn.execute(_HELD)
            if horizon is None
            else conn.execute(_HELD_DUE, {"horizon": horizon})
        )
        rows = [r for r in held if admission.accepts_repo(r.repo) and admission.owns(r.repo)]
        for part in _chunks([r.event_id for r in rows]):
            conn.execute(
                rejected.update().where(rejected.c.event_id.in_(part)).values(released_at=now)
            )
        events = []
        for r in rows:
            try:
                events.append(ENRICHED_EVENT_ADAPTER.validate_json(r.event))
            except ValueError as exc:
                # held under an older, looser contract: it is not folded (it stays recorded),
                # and it must not fail every later fold with it
                log.warning(
                    "held event %s no longer meets the event contract, not folded: %s",
                    r.event_id,
                    " ".join(str(exc).split())[:300],
                )
        return events

    def _fold_facts(
        self, conn: Connection, facts: list[EnrichedFact]
    ) -> list[tuple[ItemSnapshot, Tags]]:
        """Store the facts and their items' latest snapshots; the merged pull requests among
        those snapshots, with their tags."""
        convert = self._stored
        memo: dict[datetime, str | datetime | None] = {}

        def stored(value: datetime | None):
            # the same instants recur (fact time, snapshot time, first seen, updated at)
            if value is None:
                return None
            text = memo.get(value)
            if text is None:
                text = memo[value] = convert(value)
            return text

        tags_of: dict[int, str] = {}  # by id(event): each event's tags serialized once
        activity_rows = []
        for e in latest_facts(facts).values():
            data = e.data
            fact, item = data.fact, data.fact.item
            actor = fact_actor(fact)
            tags = tags_of[id(e)] = _json(data.tags)
            fact_text = _json(fact)
            self._facts.intern(fact_text, fact)
            self._tags.intern(tags, data.tags)
            activity_rows.append(
                (
                    data.fact_id,
                    e.id,
                    fact.repo,
                    item.number,
                    item.kind,
                    fact.kind,
                    fact.action,
                    # the person (the identities merge aliases), so first-seen is per person
                    stored(data.fact_time),
                    data.tags.person(actor.login) if actor else None,
                    data.ruleset.version,
                    tags,
                    fact_text,
                )
            )
        self._bulk(conn, "activity", activity_rows)
        item_rows = []
        merged: list[tuple[ItemSnapshot, Tags]] = []
        for (repo, number), latest in latest_items(facts).items():
            e = latest.event
            snap = e.data.fact.item
            tags = tags_of.get(id(e))
            if tags is None:
                tags = tags_of[id(e)] = _json(e.data.tags)
            snap_text = _json(snap)
            if snap.merged_at is not None and snap.kind == "pull_request":
                # the objects a report will read back for these texts
                merged.append(
                    (
                        self._snapshots.intern(snap_text, snap),
                        self._tags.intern(tags, e.data.tags),
                    )
                )
            else:
                self._snapshots.intern(snap_text, snap)
            item_rows.append(
                (
                    repo,
                    number,
                    snap.kind,
                    snap.title,
                    snap.author.login,
                    snap.state,
                    stored(snap.created_at),
                    stored(snap.closed_at),
                    stored(snap.merged_at),
                    stored(e.data.fact_time),
                    stored(order_of(e)[0]),
                    e.data.fact_id,
                    snap_text,
                    tags,
                    stored(latest.first_seen),
                )
            )
        self._bulk(conn, "items", item_rows)
        return merged

    def _mark_late(self, conn: Connection, facts: list[EnrichedFact]) -> int:
        """Flag summarized windows a fact lands in: they get a new revision if figures change."""
        flagged = 0
        for repo, stamps in fact_times_by_repo(facts).items():
            rows = conn.execute(
                _SUMMARIZED, {"repo": repo, "last": max(stamps), "first": min(stamps)}
            ).all()
            labels = late_labels(((r.label, r.start, r.end) for r in rows), stamps)
            if labels:
                conn.execute(
                    windows.update()
                    .where(windows.c.repo == repo, windows.c.label.in_(labels))
                    .values(dirty=True)
                )
                flagged += len(labels)
        return flagged

    def _advance(
        self, conn: Connection, marks: list[WatermarkForwarded], now: datetime
    ) -> list[tuple[str, datetime | None, datetime]]:
        moved = []
        for repo, mark in highest_watermarks(marks).items():
            old = conn.execute(
                sa.select(watermarks.c.watermark).where(watermarks.c.repo == repo)
            ).scalar()
            if not advances(old, mark):
                continue
            if old is None:
                conn.execute(watermarks.insert().values(repo=repo, watermark=mark, updated_at=now))
            else:
                conn.execute(
                    watermarks.update()
                    .where(watermarks.c.repo == repo)
                    .values(watermark=mark, updated_at=now)
                )
            moved.append((repo, old, mark))
        return moved

    def _close(self, conn: Connection, repo: str, due: list[Window], now: datetime) -> int:
        if not due:
            return 0
        stmt = self._insert(windows).on_conflict_do_nothing(
            index_elements=[windows.c.repo, windows.c.label]
        )
        conn.execute(stmt, closing_windows(repo, due, now))
        return len(due)

    # ------------------------------------------------------------ requests

    def save_request(self, request: ReportRequested, now: datetime) -> bool:
        """Store a pending request; False when it was already stored (a redelivery)."""
        with self.engine.begin() as conn:
            stmt = self._insert(requests).on_conflict_do_nothing(index_elements=[requests.c.id])
            res = conn.execute(
                stmt,
                {
                    "id": request.id,
                    "repo": request.data.repo,
                    "as_of": request.data.as_of,
                    "received_at": now,
                    "event": request.model_dump_json(),
                },
            )
            return res.rowcount == 1

    def pending_requests(self, repos: Iterable[str] | None = None) -> list[ReportRequested]:
        query = sa.select(requests.c.event).where(requests.c.answered_at.is_(None))
        if repos is not None:
            query = query.where(requests.c.repo.in_(sorted(set(repos))))
        with self.engine.connect() as conn:
            rows = (
                conn.execute(query.order_by(requests.c.received_at, requests.c.id)).scalars().all()
            )
        return [ReportRequested.model_validate_json(r) for r in rows]

    def watermark(self, repo: str) -> datetime | None:
        with self.engine.connect() as conn:
            return conn.execute(
                sa.select(watermarks.c.watermark).where(watermarks.c.repo == repo)
            ).scalar()

    def watermarks(self) -> dict[str, datetime]:
        with self.engine.connect() as conn:
            return {r.repo: r.watermark for r in conn.execute(sa.select(watermarks)).all()}

    # ------------------------------------------------------------ windows

    def window_state(self, repo: str, label: str) -> WindowState | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(windows).where(windows.c.repo == repo, windows.c.label == label)
            ).first()
        return _state(row) if row is not None else None

    def dirty_windows(self, repos: Iterable[str] | None = None) -> list[WindowState]:
        query = sa.select(windows).where(windows.c.dirty.is_(True))
        if repos is not None:
            query = query.where(windows.c.repo.in_(sorted(set(repos))))
        with self.engine.connect() as conn:
            rows = conn.execute(
                query.order_by(windows.c.repo, windows.c.start, windows.c.label)
            ).all()
        return [_state(r) for r in rows]

    def record_summary(
        self,
        repo: str,
        window: Window,
        *,
        revision: int,
        figures: dict,
        figures_hash: str,
        summary_id: str,
        now: datetime,
        request_id: str | None = None,
        changed: Sequence[ChangedFigure] = (),
    ) -> None:
        """Remember what was published for the window (and that the request is answered).

        The windows row holds the latest revision; `window_revisions` keeps one row per revision
        (the first publication of it), with the figures it changed against the revision before.
        """
        with self.engine.begin() as conn:
            if summary_id:
                stmt = self._insert(window_revisions).on_conflict_do_nothing(
                    index_elements=[
                        window_revisions.c.repo,
                        window_revisions.c.label,
                        window_revisions.c.revision,
                    ]
                )
                conn.execute(
                    stmt,
                    {
                        "repo": repo,
                        "label": window.label,
                        "revision": revision,
                        "figures_hash": figures_hash,
                        "summary_id": summary_id,
                        "request_id": request_id,
                        "changed": json.dumps([c.model_dump() for c in changed]),
                        "computed_at": now,
                    },
                )
            values = {
                "kind": window.kind,
                "start": window.start,
                "end": window.end,
                "tz": window.tz,
                "cutoff": window.cutoff,
                "revision": revision,
                "figures_hash": figures_hash,
                "figures": json.dumps(figures, sort_keys=True),
                "summary_id": summary_id,
                "dirty": False,
            }
            stmt = self._insert(windows).values(
                repo=repo, label=window.label, closed_at=now, **values
            )
            conn.execute(
                stmt.on_conflict_do_update(
                    index_elements=[windows.c.repo, windows.c.label], set_=values
                )
            )
            if request_id is not None:
                conn.execute(
                    requests.update().where(requests.c.id == request_id).values(answered_at=now)
                )

    def mark_answered(self, request_id: str, now: datetime) -> None:
        """Take a request off the pending list (answered, or given up on)."""
        with self.engine.begin() as conn:
            conn.execute(
                requests.update().where(requests.c.id == request_id).values(answered_at=now)
            )

    def load_window(
        self, repo: str, window: Window, previous: Window, *, open_prs_since: datetime | None = None
    ) -> WindowInput:
        """The facts of a window and the one before it, the items they touch, open items, first-seen.

        Open pull requests older than `open_prs_since` are left out (they can no longer be
        follow-ups; a big repository has thousands, each with its file list).
        """
        lo = min(window.start, previous.start)

        def tags(text: str) -> Tags:
            return self._tags.get_or_make(text, Tags.model_validate_json)

        def row_of(it) -> ItemRow:  # a row of `items` (number, snapshot, tags, first_seen)
            return ItemRow(
                snapshot=self._snapshots.get_or_make(it.snapshot, ItemSnapshot.model_validate_json),
                tags=tags(it.tags),
                first_seen=it.first_seen,
            )

        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(
                    activity.c.fact_id,
                    activity.c.time,
                    activity.c.fact,
                    activity.c.tags,
                    activity.c.ruleset,
                    activity.c.actor,
                )
                .where(activity.c.repo == repo, activity.c.time >= lo, activity.c.time < window.end)
                .order_by(activity.c.time, activity.c.fact_id)
            ).all()
            current: list[FactRow] = []
            before: list[FactRow] = []
            actors: set[str] = set()
            for r in rows:
                row = FactRow(
                    fact_id=r.fact_id,
                    time=r.time,
                    fact=self._facts.get_or_make(r.fact, FactData.model_validate_json),
                    tags=tags(r.tags),
                    ruleset=r.ruleset,
                )
                if window.start <= r.time:
                    current.append(row)
                    if r.actor:
                        actors.add(r.actor)
                if previous.start <= r.time < previous.end:
                    before.append(row)
            numbers = sorted({f.fact.item.number for f in current})
            item_rows: dict[int, ItemRow] = {}

            def take(result) -> None:
                for it in result:
                    if it.number not in item_rows:
                        item_rows[it.number] = row_of(it)

            cols = (items.c.number, items.c.snapshot, items.c.tags, items.c.first_seen)
            for part in _chunks(numbers):
                take(
                    conn.execute(
                        sa.select(*cols).where(items.c.repo == repo, items.c.number.in_(part))
                    )
                )
            # items still open at the window's end, for follow-ups (awaiting review, RFCs, bugs)
            still_open = [
                items.c.repo == repo,
                items.c.created_at < window.end,
                sa.or_(items.c.closed_at.is_(None), items.c.closed_at >= window.end),
            ]
            if open_prs_since is not None:
                still_open.append(
                    sa.or_(items.c.kind == "issue", items.c.created_at >= open_prs_since)
                )
            take(conn.execute(sa.select(*cols).where(*still_open)))
            first_seen: dict[str, datetime] = {}
            logins = sorted(actors)
            for part in _chunks(logins):
                for login, seen in conn.execute(
                    sa.select(activity.c.actor, sa.func.min(activity.c.time))
                    .where(activity.c.repo == repo, activity.c.actor.in_(part))
                    .group_by(activity.c.actor)
                ):
                    first_seen[login] = _aware(seen)
            history = conn.execute(
                sa.select(sa.func.min(activity.c.time)).where(activity.c.repo == repo)
            ).scalar()
            mark = conn.execute(
                sa.select(watermarks.c.watermark).where(watermarks.c.repo == repo)
            ).scalar()
            titles = self._title_history(conn, repo)
            # references by a commit's hash alone ("This reverts commit 8134146…"): resolved to
            # the change merged as that commit, anywhere in the history (the reverted or fixed
            # change is often older than the window), and read from then on as by number
            hashes = set().union(
                *(by_commit(r.tags.digest.refs) for r in item_rows.values() if r.tags.digest)
            )
            with self._title_lock:
                resolved = {h: titles.commits[h] for h in hashes if h in titles.commits}
                seen_version = titles.version
            todo = sorted(hashes - resolved.keys())
            if todo:
                found: list[tuple[str, int]] = []
                for part in _chunks(todo):
                    likes = [
                        items.c.snapshot.like(f'%"merge\\_commit\\_sha":"{h}%', escape="\\")
                        for h in part
                    ]
                    for number, text in conn.execute(
                        sa.select(items.c.number, items.c.snapshot).where(
                            items.c.repo == repo, items.c.kind == "pull_request", sa.or_(*likes)
                        )
                    ):
                        sha = self._snapshots.get_or_make(
                            text, ItemSnapshot.model_validate_json
                        ).merge_commit_sha
                        if sha:
                            found.append((sha, number))
                resolved.update((h, commit_number(h, found)) for h in todo)
                with self._title_lock:
                    if titles.version == seen_version:  # (else kept for this report only)
                        titles.commits.update((h, resolved[h]) for h in todo)
            if any(n is not None for n in resolved.values()):
                for n, row in list(item_rows.items()):
                    if row.tags.digest is None:
                        continue
                    digest = with_commit_numbers(
                        row.tags.digest, n, resolved.get, titles.titles.get
                    )
                    if digest is not row.tags.digest:
                        item_rows[n] = ItemRow(
                            snapshot=row.snapshot,
                            tags=row.tags.model_copy(update={"digest": digest}),
                            first_seen=row.first_seen,
                        )
            wanted: set[int] = set()
            # under the lock: another report may be bringing the same history up to date
            with self._title_lock:
                term_counts, history_items = titles.counts, len(titles.titles)
                for row in item_rows.values():
                    digest = row.tags.digest
                    for ref in digest.refs if digest is not None else ():
                        if ref.repo is not None or ref.kind in ("upstream", "related"):
                            continue
                        number = ref.number
                        if number is None and ref.kind == "reverts" and ref.title:
                            number = titles.number_titled(ref.title)
                        if number is not None:
                            wanted.add(number)
                    quoted, number = quoted_revert(row.snapshot.title)
                    if quoted is not None:
                        wanted.add(
                            number if number is not None else titles.number_titled(quoted) or 0
                        )
                known = titles.titles.keys() & wanted
            wanted = {n for n in known if n not in item_rows}
            got: dict[int, ItemRow] = {}
            for part in _chunks(sorted(wanted)):
                for it in conn.execute(
                    sa.select(*cols).where(items.c.repo == repo, items.c.number.in_(part))
                ):
                    got[it.number] = row_of(it)
            referenced = {n: got[n] for n in sorted(got)}
            # what became of the window's reverts after it, as far as the watermark: the changes
            # that may bring a reverted one back (by title, from the history's index), merged
            # after the window and before the watermark, so a report of the same window at the
            # same watermark says the same
            undone = {
                ref.number
                for row in item_rows.values()
                if row.snapshot.merged_at is not None
                and window.start <= row.snapshot.merged_at < window.end
                and row.tags.digest is not None
                for ref in row.tags.digest.refs
                if ref.kind == "reverts" and ref.number is not None and ref.repo is None
            }
            reverting = undone or any(
                quoted_revert(row.snapshot.title)[0] is not None
                for row in item_rows.values()
                if row.snapshot.merged_at is not None
                and window.start <= row.snapshot.merged_at < window.end
            )
            later: dict[int, ItemRow] = {}
            if reverting:
                with self._title_lock:
                    maybe = titles.bringing_back(undone | wanted)
                maybe -= item_rows.keys() | referenced.keys()
                until = [items.c.merged_at >= window.end]
                if mark is not None:
                    until.append(items.c.merged_at < mark)
                for part in _chunks(sorted(maybe)):
                    for it in conn.execute(
                        sa.select(*cols).where(
                            items.c.repo == repo, items.c.number.in_(part), *until
                        )
                    ):
                        later[it.number] = row_of(it)
                later = {n: later[n] for n in sorted(later)}
        return WindowInput(
            repo=repo,
            window=window,
            previous=previous,
            facts=current,
            previous_facts=before,
            items=item_rows,
            actor_first_seen=first_seen,
            history_start=_aware(history),
            watermark=mark,
            term_counts=term_counts,
            history_items=history_items,
            referenced=referenced,
            later=later,
        )

    def _title_history(self, conn: Connection, repo: str) -> _TitleHistory:
        """The repository's title history, re-read only when its items changed: the version is
        (items, latest snapshot, total title length, total length of the tags with topics), so a
        new item, a new snapshot, an edited title or a re-classification that changes topics is
        seen; only changed titles and topics are tokenised again."""
        with_topics = items.c.tags.like(_HAS_TOPICS)
        version = tuple(
            conn.execute(
                sa.select(
                    sa.func.count(),
                    sa.func.max(items.c.snapshot_time),
                    sa.func.coalesce(sa.func.sum(sa.func.length(items.c.title)), 0),
                    sa.func.coalesce(
                        sa.func.sum(sa.case((with_topics, sa.func.length(items.c.tags)), else_=0)),
                        0,
                    ),
                ).where(items.c.repo == repo)
            ).one()
        )
        with self._title_lock:
            cached = self._title_histories.get(repo)
            if cached is not None and cached.version == version:
                return cached
        rows = [
            (number, title, _topics_of(tags))
            for number, title, tags in conn.execute(
                sa.select(
                    items.c.number, items.c.title, sa.case((with_topics, items.c.tags), else_=None)
                ).where(items.c.repo == repo)
            )
        ]
        with self._title_lock:
            cached = self._title_histories.setdefault(repo, _TitleHistory())
            if cached.version != version:
                cached.update(rows, version)
            return cached

    def reset(self) -> None:
        """Empty every table, revision history and pending requests included (tests, a fresh start)."""
        with self.engine.begin() as conn:
            for table in (
                window_revisions,
                rejected,
                requests,
                windows,
                watermarks,
                processed,
                activity,
                items,
            ):
                conn.execute(table.delete())

    def reset_projections(self, repo: str | None = None) -> dict[str, int]:
        """Drop what folding RD_ENRICHED produced (items, activity, processed ids, watermarks,
        rejected events), for one repository or all, before a rebuild replays the log.

        Windows with their revisions and history, and report requests, are kept: they are not
        derived from RD_ENRICHED alone, and a rebuilt window must continue its revision numbers
        (a revision 1 published twice with other figures would overwrite rendered artifacts).
        """
        deleted: dict[str, int] = {}
        with self.engine.begin() as conn:
            if repo is None:
                for table in (rejected, watermarks, processed, activity, items):
                    deleted[table.name] = conn.execute(table.delete()).rowcount
                return deleted
            ids = list(
                conn.execute(
                    sa.select(activity.c.event_id).where(activity.c.repo == repo)
                ).scalars()
            )
            ids += conn.execute(
                sa.select(rejected.c.event_id).where(rejected.c.repo == repo)
            ).scalars()
            # ids folded before migration 0002 have no repository (a watermark's id cannot be
            # traced back): forget them too, or the replay would skip those watermarks. Harmless
            # for other repositories: with no summarizer running nothing is redelivered, and
            # folding is idempotent by content should an old event come again
            gone = conn.execute(
                processed.delete().where(
                    sa.or_(processed.c.repo == repo, processed.c.repo.is_(None))
                )
            ).rowcount
            for part in _chunks(ids):
                gone += conn.execute(
                    processed.delete().where(processed.c.event_id.in_(part))
                ).rowcount
            deleted["processed"] = gone
            for table in (rejected, watermarks, activity, items):
                deleted[table.name] = conn.execute(
                    table.delete().where(table.c.repo == repo)
                ).rowcount
        return deleted

    def mark_summarized_dirty(self, repo: str | None = None) -> int:
        """Flag every summarized window for re-summarizing (after a rebuild): a window whose
        figures changed gets a new revision, the others stay as they are."""
        stmt = windows.update().where(windows.c.revision >= 1).values(dirty=True)
        if repo is not None:
            stmt = stmt.where(windows.c.repo == repo)
        with self.engine.begin() as conn:
            return conn.execute(stmt).rowcount

    def revisions(self, repo: str, label: str) -> list[Revision]:
        """The revision history of one window, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(window_revisions)
                .where(window_revisions.c.repo == repo, window_revisions.c.label == label)
                .order_by(window_revisions.c.revision)
            ).all()
        return [
            Revision(
                revision=r.revision,
                figures_hash=r.figures_hash,
                changed=tuple(ChangedFigure.model_validate(c) for c in json.loads(r.changed)),
                summary_id=r.summary_id,
                request_id=r.request_id,
                computed_at=r.computed_at,
            )
            for r in rows
        ]

    def revision_changes(self, repo: str, label: str, revision: int) -> tuple[ChangedFigure, ...]:
        """What `revision` of the window changed against the revision before it (() if unknown)."""
        with self.engine.connect() as conn:
            text = conn.execute(
                sa.select(window_revisions.c.changed).where(
                    window_revisions.c.repo == repo,
                    window_revisions.c.label == label,
                    window_revisions.c.revision == revision,
                )
            ).scalar()
        return tuple(ChangedFigure.model_validate(c) for c in json.loads(text)) if text else ()

    def held_due(self, horizon: datetime | None) -> bool:
        """Whether some held future event is due for folding (its time is at or before horizon)."""
        query = sa.select(rejected.c.event_id).where(
            rejected.c.reason == FUTURE, rejected.c.released_at.is_(None)
        )
        if horizon is not None:
            query = query.where(rejected.c.event_time <= horizon)
        with self.engine.connect() as conn:
            return conn.execute(query.limit(1)).first() is not None

    def rejected_events(
        self, repo: str | None = None, reason: str | None = None
    ) -> list[RejectedEvent]:
        """Events the fold did not count (or held and released later), oldest first."""
        query = sa.select(rejected)
        if repo is not None:
            query = query.where(rejected.c.repo == repo)
        if reason is not None:
            query = query.where(rejected.c.reason == reason)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(rejected.c.received_at, rejected.c.event_id)).all()
        return [
            RejectedEvent(
                event_id=r.event_id,
                repo=r.repo,
                reason=r.reason,
                detail=r.detail,
                event_time=r.event_time,
                received_at=r.received_at,
                released_at=r.released_at,
            )
            for r in rows
        ]

    def counts(self) -> dict[str, int]:
        """Row counts per table (for tests, health output and the CLI)."""
        with self.engine.connect() as conn:
            return {
                t.name: conn.execute(sa.select(sa.func.count()).select_from(t)).scalar_one()
                for t in (
                    items,
                    activity,
                    processed,
                    watermarks,
                    windows,
                    requests,
                    rejected,
                    window_revisions,
                )
            }


# the fold's reads, built once (their compiled form is cached by SQLAlchemy)
_SQLITE = sqlite.dialect()


@functools.lru_cache(maxsize=64)
def _seen_sqlite(n: int) -> str:
    """Which of n event ids are in `processed` (SQLite, qmark parameters, for exec_driver_sql)."""
    stmt = sa.select(processed.c.event_id).where(
        processed.c.event_id.in_([sa.bindparam(f"id{i}") for i in range(n)])
    )
    compiled = stmt.compile(dialect=_SQLITE)
    if tuple(compiled.positiontup or ()) != tuple(f"id{i}" for i in range(n)):
        raise AssertionError(f"unexpected parameters {compiled.positiontup}")
    return compiled.string


_HELD = (
    sa.select(rejected.c.event_id, rejected.c.repo, rejected.c.event)
    .where(rejected.c.reason == FUTURE, rejected.c.released_at.is_(None))
    .order_by(rejected.c.event_time, rejected.c.event_id)
)
_HELD_DUE = _HELD.where(
    rejected.c.event_time <= sa.bindparam("horizon", type_=rejected.c.event_time.type)
)
# summarized windows (not already dirty) of a repository that [first, last] overlaps
_SUMMARIZED = sa.select(windows.c.label, windows.c.start, windows.c.end).where(
    windows.c.repo == sa.bindparam("repo"),
    windows.c.revision >= 1,
    windows.c.dirty.is_(False),
    windows.c.start <= sa.bindparam("last", type_=windows.c.start.type),
    windows.c.end > sa.bindparam("first", type_=windows.c.end.type),
)


def _upsert_activity(stmt):
    # a re-classification replaces the tags (and rule set); the fact itself never changes
    return stmt.on_conflict_do_update(
        index_elements=[activity.c.fact_id],
        set_={c: stmt.excluded[c] for c in ("event_id", "ruleset", "tags", "fact", "actor")},
    )


def _upsert_items(stmt):
    new, cur = stmt.excluded, items.c
    # (updated_at, fact time, fact id) of the incoming snapshot >= the stored one's; rows
    # folded before migration 0002 have no updated_at/fact id: their fact time stands in
    cur_updated = sa.func.coalesce(cur.snapshot_updated_at, cur.snapshot_time)
    cur_fact = sa.func.coalesce(cur.snapshot_fact, sa.literal_column("''"))
    newer = sa.or_(
        new.snapshot_updated_at > cur_updated,
        sa.and_(
            new.snapshot_updated_at == cur_updated,
            sa.or_(
                new.snapshot_time > cur.snapshot_time,
                sa.and_(new.snapshot_time == cur.snapshot_time, new.snapshot_fact >= cur_fact),
            ),
        ),
    )
    replace = {
        c: sa.case((newer, new[c]), else_=cur[c])
        for c in (
            "kind",
            "title",
            "author",
            "state",
            "created_at",
            "closed_at",
            "merged_at",
            "snapshot",
            "tags",
            "snapshot_updated_at",
            "snapshot_fact",
        )
    }
    replace["snapshot_time"] = sa.case((newer, new.snapshot_time), else_=cur.snapshot_time)
    replace["first_seen"] = sa.case(
        (new.first_seen < cur.first_seen, new.first_seen), else_=cur.first_seen
    )
    return stmt.on_conflict_do_update(index_elements=[cur.repo, cur.number], set_=replace)


# The fold's hot statements: (table, columns in the order of the row tuples, conflict clause).
# Each is compiled once per dialect and run through the driver with values already in their
# stored form (`_sqlite_datetime` / `_utc_naive`: exactly what UTCDateTime and SQLAlchemy's
# SQLite DATETIME bind), skipping SQLAlchemy's per-value bind processing.
_BULK: dict[str, tuple[sa.Table, tuple[str, ...], Callable | None]] = {
    "processed": (processed, ("event_id", "processed_at", "repo"), None),
    # PostgreSQL only: the ids actually inserted (not processed before)
    "processed_new": (
        processed,
        ("event_id", "processed_at", "repo"),
        lambda stmt: stmt.on_conflict_do_nothing(index_elements=[processed.c.event_id]).returning(
            processed.c.event_id
        ),
    ),
    "activity": (
        activity,
        (
            "fact_id",
            "event_id",
            "repo",
            "number",
            "item_kind",
            "kind",
            "action",
            "time",
            "actor",
            "ruleset",
            "tags",
            "fact",
        ),
        _upsert_activity,
    ),
    "items": (
        items,
        (
            "repo",
            "number",
            "kind",
            "title",
            "author",
            "state",
            "created_at",
            "closed_at",
            "merged_at",
            "snapshot_time",
            "snapshot_updated_at",
            "snapshot_fact",
            "snapshot",
            "tags",
            "first_seen",
        ),
        _upsert_items,
    ),
}


@dataclass(frozen=True)
class _Bulk:
    """A hot statement compiled for one dialect.

    SQLite: `INSERT .. VALUES (?, ..) ON CONFLICT ..` run with sqlite3's executemany (one row per
    step, in order). PostgreSQL: `INSERT .. SELECT * FROM unnest(:col1::type[], ..) ON CONFLICT ..`
    run once per chunk with one array per column (one round trip instead of one per row; the
    rows are inserted in order, and a fold never sends the same key twice in one statement).
    """

    sql: str
    binds: tuple[str, ...]  # parameter names, in the order of the row tuples' values
    columnar: bool
    positional: bool
    returns: bool

    @classmethod
    def compile(cls, name: str, dialect: sa.engine.Dialect) -> _Bulk:
        table, names, conflict = _BULK[name]
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import ARRAY, insert

            arrays = (
                sa.func.unnest(
                    *[
                        sa.cast(
                            sa.bindparam(f"{n}_", type_=ARRAY(table.c[n].type)),
                            ARRAY(table.c[n].type),
                        )
                        for n in names
                    ]
                )
                .table_valued(*names)
                .render_derived()
            )
            stmt = insert(table).from_select(list(names), sa.select(*[arrays.c[n] for n in names]))
            binds = tuple(f"{n}_" for n in names)
        else:
            stmt, binds = sqlite.insert(table), names
        if conflict is not None:
            stmt = conflict(stmt)
        compiled = cast(SQLCompiler, stmt.compile(dialect=dialect, column_keys=list(names)))
        columnar, positional = dialect.name == "postgresql", bool(compiled.positional)
        if (
            tuple(compiled.positiontup or ()) != binds
            if positional
            else set(compiled.binds) != set(binds)
        ):
            raise AssertionError(f"{name}: parameters {list(compiled.binds)} are not {binds}")
        returns = bool(compiled.effective_returning)
        if returns and not columnar:
            raise AssertionError(f"{name}: RETURNING needs the columnar (PostgreSQL) form")
        return cls(_driver_sql(compiled, dialect), binds, columnar, positional, returns)

    def run(self, conn: Connection, rows: Sequence[tuple]) -> Sequence[Any]:
        if not rows:
            return []
        if not self.columnar:
            conn.exec_driver_sql(self.sql, list(rows))
            return []
        columns = list(map(list, zip(*rows)))
        result = conn.exec_driver_sql(
            self.sql, tuple(columns) if self.positional else dict(zip(self.binds, columns))
        )
        return result.scalars().all() if self.returns else []


def _driver_sql(compiled: SQLCompiler, dialect: sa.engine.Dialect) -> str:
    """The statement for `exec_driver_sql`. With psycopg, parameters go in its binary format:
    its text format of an array escapes every quote of every JSON document with a regular
    expression, in Python."""
    sql = compiled.string
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        for name in compiled.binds:
            sql = sql.replace(f"%({name})s", f"%({name})b")
    return sql


def _json(model) -> str:
    """`model.model_dump_json()` (same defaults) without its keyword-argument plumbing."""
    return model.__pydantic_serializer__.to_json(model).decode()


def _utc_naive(value: datetime | None) -> datetime | None:
    """What UTCDateTime binds: naive UTC."""
    if value is None:
        return None
    offset = value.utcoffset()
    if offset is None:
        return value
    return (value if not offset else value.astimezone(UTC)).replace(tzinfo=None)


def _sqlite_datetime(value: datetime | None) -> str | None:
    """What UTCDateTime stores on SQLite: SQLAlchemy's DATETIME text of the naive UTC time,
    `YYYY-MM-DD HH:MM:SS.ffffff` (microseconds always written: 26 characters)."""
    if value is None:
        return None
    offset = value.utcoffset()
    if offset is None:
        return value.isoformat(" ", "microseconds")
    if offset:
        value = value.astimezone(UTC)
    return value.isoformat(" ", "microseconds")[:26]  # without the "+00:00"


def _aware(value):
    """Aggregates (min) bypass the column type on SQLite: parse and make them UTC-aware."""
    if value is None:
        return None
    from .tables import UTCDateTime

    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return UTCDateTime().process_result_value(value, None)


def _state(row) -> WindowState:
    window = Window(row.kind, row.label, row.start, row.end, row.tz, row.cutoff)
    return WindowState(
        repo=row.repo,
        window=window,
        revision=row.revision,
        figures=json.loads(row.figures) if row.figures else None,
        dirty=bool(row.dirty),
        summary_id=row.summary_id,
    )


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    # WAL: readers never block the folding writer; NORMAL sync is durable across app crashes
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()
