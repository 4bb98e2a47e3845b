"""The summarizer's SQL projections (SQLAlchemy Core tables; Alembic migrations create them)."""

from __future__ import annotations

from datetime import UTC, datetime

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
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


REPO = sa.String(140)

items = sa.Table(
    "items",
    metadata,
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
    # with snapshot_time, the total order of snapshots: (updated_at, fact time, fact id)
    sa.Column("snapshot_updated_at", UTCDateTime),
    sa.Column("snapshot_fact", sa.String(64)),
    sa.Column("snapshot", sa.Text, nullable=False),  # ItemSnapshot JSON
    sa.Column("tags", sa.Text, nullable=False),  # Tags JSON
    sa.Column("first_seen", UTCDateTime, nullable=False),
)
sa.Index("ix_items_open", items.c.repo, items.c.created_at, items.c.closed_at)

activity = sa.Table(
    "activity",
    metadata,
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
    sa.Column(
        "fact", sa.Text, nullable=False
    ),  # FactData JSON (with the item snapshot of the moment)
)
sa.Index("ix_activity_repo_time", activity.c.repo, activity.c.time)
sa.Index("ix_activity_repo_actor", activity.c.repo, activity.c.actor, activity.c.time)

processed = sa.Table(
    "processed",
    metadata,
    sa.Column("event_id", sa.String(128), primary_key=True),
    sa.Column("processed_at", UTCDateTime, nullable=False),
    sa.Column("repo", REPO),  # NULL for ids processed before migration 0002
)

watermarks = sa.Table(
    "watermarks",
    metadata,
    sa.Column("repo", REPO, primary_key=True),
    sa.Column("watermark", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

windows = sa.Table(
    "windows",
    metadata,
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
    "requests",
    metadata,
    sa.Column("id", sa.String(128), primary_key=True),
    sa.Column("repo", REPO, nullable=False),
    sa.Column("as_of", UTCDateTime),
    sa.Column("received_at", UTCDateTime, nullable=False),
    sa.Column("event", sa.Text, nullable=False),  # ReportRequested JSON
    sa.Column("answered_at", UTCDateTime),
)
sa.Index("ix_requests_pending", requests.c.repo, requests.c.answered_at)

# events the fold did not count, and why: `unknown-repo` (outside the accepted repositories) or
# `future` (time beyond now + tolerance; held, and folded once its time comes: released_at)
rejected = sa.Table(
    "rejected",
    metadata,
    sa.Column("event_id", sa.String(128), primary_key=True),
    sa.Column("repo", REPO, nullable=False),
    sa.Column("reason", sa.String(32), nullable=False),
    sa.Column("detail", sa.Text, nullable=False),
    sa.Column("event_time", UTCDateTime, nullable=False),
    sa.Column("received_at", UTCDateTime, nullable=False),
    sa.Column("released_at", UTCDateTime),
    sa.Column("event", sa.Text, nullable=False),  # the enriched event JSON, to fold on release
)
sa.Index("ix_rejected_held", rejected.c.reason, rejected.c.released_at, rejected.c.event_time)
sa.Index("ix_rejected_repo", rejected.c.repo, rejected.c.received_at)

# every published revision of a window (the windows row keeps only the latest)
window_revisions = sa.Table(
    "window_revisions",
    metadata,
    sa.Column("repo", REPO, primary_key=True),
    sa.Column("label", sa.String(64), primary_key=True),
    sa.Column("revision", sa.Integer, primary_key=True),
    sa.Column("figures_hash", sa.String(64), nullable=False),
    sa.Column("changed", sa.Text, nullable=False),  # JSON [{name, before, after}]
    sa.Column("summary_id", sa.String(128), nullable=False),
    sa.Column("request_id", sa.String(128)),
    sa.Column("computed_at", UTCDateTime, nullable=False),
)
