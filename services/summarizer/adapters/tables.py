"""The summarizer's SQL projections (SQLAlchemy Core tables; Alembic migrations create them)."""

from __future__ import annotations

from datetime import datetime, timezone

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator

metadata = sa.MetaData()


class UTCDateTime(TypeDecorator):
    """Aware UTC datetimes in, aware UTC datetimes out; stored naive (UTC) on every backend,
    so that SQLite's text timestamps compare in time order."""

    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


REPO = sa.String(140)

items = sa.Table(
    "items", metadata,
    sa.Column("repo", REPO, primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("author", sa.String(100), nullable=False),
    sa.Column("state", sa.String(8), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("closed_at", UTCDateTime),
    sa.Column("merged_at", UTCDateTime),
    # time of the fact whose snapshot this is: a snapshot only replaces an older one
    sa.Column("snapshot_time", UTCDateTime, nullable=False),
    sa.Column("snapshot", sa.Text, nullable=False),  # ItemSnapshot JSON
    sa.Column("tags", sa.Text, nullable=False),  # Tags JSON
    sa.Column("first_seen", UTCDateTime, nullable=False),
)
sa.Index("ix_items_open", items.c.repo, items.c.created_at, items.c.closed_at)

activity = sa.Table(
    "activity", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("fact_id", sa.String(64), nullable=False, unique=True),
    sa.Column("event_id", sa.String(128), nullable=False),
    sa.Column("repo", REPO, nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("item_kind", sa.String(16), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("time", UTCDateTime, nullable=False),
    sa.Column("actor", sa.String(100)),
    sa.Column("ruleset", sa.String(128), nullable=False),
    sa.Column("tags", sa.Text, nullable=False),  # Tags JSON
    sa.Column("fact", sa.Text, nullable=False),  # FactData JSON (with the item snapshot of the moment)
)
sa.Index("ix_activity_repo_time", activity.c.repo, activity.c.time)
sa.Index("ix_activity_repo_actor", activity.c.repo, activity.c.actor, activity.c.time)

processed = sa.Table(
    "processed", metadata,
    sa.Column("event_id", sa.String(128), primary_key=True),
    sa.Column("processed_at", UTCDateTime, nullable=False),
)

watermarks = sa.Table(
    "watermarks", metadata,
    sa.Column("repo", REPO, primary_key=True),
    sa.Column("watermark", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

windows = sa.Table(
    "windows", metadata,
    sa.Column("repo", REPO, primary_key=True),
    sa.Column("label", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("start", UTCDateTime, nullable=False),
    sa.Column("end", UTCDateTime, nullable=False),
    sa.Column("tz", sa.String(64), nullable=False),
    sa.Column("cutoff", sa.String(5)),
    # 0 until the first summary is published
    sa.Column("revision", sa.Integer, nullable=False, default=0),
    sa.Column("figures_hash", sa.String(64)),
    sa.Column("figures", sa.Text),  # JSON {figure: value}
    sa.Column("summary_id", sa.String(128)),
    sa.Column("closed_at", UTCDateTime),
    # needs (re-)summarizing: a watermark closed it or a late fact landed in it (outbox flag)
    sa.Column("dirty", sa.Boolean, nullable=False, default=False),
)
sa.Index("ix_windows_repo_span", windows.c.repo, windows.c.start, windows.c.end)

requests = sa.Table(
    "requests", metadata,
    sa.Column("id", sa.String(128), primary_key=True),
    sa.Column("repo", REPO, nullable=False),
    sa.Column("as_of", UTCDateTime),
    sa.Column("received_at", UTCDateTime, nullable=False),
    sa.Column("event", sa.Text, nullable=False),  # ReportRequested JSON
    sa.Column("answered_at", UTCDateTime),
)
sa.Index("ix_requests_pending", requests.c.repo, requests.c.answered_at)
