"""Projections v1: items, activity, processed ids, watermarks, windows, pending requests.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "items",
        sa.Column("repo", sa.String(140), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("author", sa.String(100), nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("closed_at", sa.DateTime),
        sa.Column("merged_at", sa.DateTime),
        sa.Column("snapshot_time", sa.DateTime, nullable=False),
        sa.Column("snapshot", sa.Text, nullable=False),
        sa.Column("tags", sa.Text, nullable=False),
        sa.Column("first_seen", sa.DateTime, nullable=False),
    )
    op.create_index("ix_items_open", "items", ["repo", "created_at", "closed_at"])
    op.create_table(
        "activity",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("fact_id", sa.String(64), nullable=False, unique=True),
        sa.Column("event_id", sa.String(128), nullable=False),
        sa.Column("repo", sa.String(140), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("item_kind", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("time", sa.DateTime, nullable=False),
        sa.Column("actor", sa.String(100)),
        sa.Column("ruleset", sa.String(128), nullable=False),
        sa.Column("tags", sa.Text, nullable=False),
        sa.Column("fact", sa.Text, nullable=False),
    )
    op.create_index("ix_activity_repo_time", "activity", ["repo", "time"])
    op.create_index("ix_activity_repo_actor", "activity", ["repo", "actor", "time"])
    op.create_table(
        "processed",
        sa.Column("event_id", sa.String(128), primary_key=True),
        sa.Column("processed_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "watermarks",
        sa.Column("repo", sa.String(140), primary_key=True),
        sa.Column("watermark", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "windows",
        sa.Column("repo", sa.String(140), primary_key=True),
        sa.Column("label", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("start", sa.DateTime, nullable=False),
        sa.Column("end", sa.DateTime, nullable=False),
        sa.Column("tz", sa.String(64), nullable=False),
        sa.Column("cutoff", sa.String(5)),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("figures_hash", sa.String(64)),
        sa.Column("figures", sa.Text),
        sa.Column("summary_id", sa.String(128)),
        sa.Column("closed_at", sa.DateTime),
        sa.Column("dirty", sa.Boolean, nullable=False),
    )
    op.create_index("ix_windows_repo_span", "windows", ["repo", "start", "end"])
    op.create_table(
        "requests",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("repo", sa.String(140), nullable=False),
        sa.Column("as_of", sa.DateTime),
        sa.Column("received_at", sa.DateTime, nullable=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("answered_at", sa.DateTime),
    )
    op.create_index("ix_requests_pending", "requests", ["repo", "answered_at"])


def downgrade() -> None:
    for table in ("requests", "windows", "watermarks", "processed", "activity", "items"):
        op.drop_table(table)
