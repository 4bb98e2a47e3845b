"""Projections v2: rejected/held events, revision history, snapshot ordering, processed repo.

- `rejected`: events the fold did not count, with the reason (a repository outside the accepted
  list, a time too far in the future); held future events are released once their time comes.
- `window_revisions`: one row per published revision of a window (figures hash, changed figures).
- `items.snapshot_updated_at` / `items.snapshot_fact`: total order of snapshots (an older
  snapshot never overwrites a newer one, whatever order the events arrive in).
- `processed.repo`: lets `rebuild --repo` forget one repository's processed ids.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rejected",
        sa.Column("event_id", sa.String(128), primary_key=True),
        sa.Column("repo", sa.String(140), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("event_time", sa.DateTime, nullable=False),
        sa.Column("received_at", sa.DateTime, nullable=False),
        sa.Column("released_at", sa.DateTime),
        sa.Column("event", sa.Text, nullable=False),
    )
    op.create_index("ix_rejected_held", "rejected", ["reason", "released_at", "event_time"])
    op.create_index("ix_rejected_repo", "rejected", ["repo", "received_at"])
    op.create_table(
        "window_revisions",
        sa.Column("repo", sa.String(140), primary_key=True),
        sa.Column("label", sa.String(64), primary_key=True),
        sa.Column("revision", sa.Integer, primary_key=True),
        sa.Column("figures_hash", sa.String(64), nullable=False),
        sa.Column("changed", sa.Text, nullable=False),
        sa.Column("summary_id", sa.String(128), nullable=False),
        sa.Column("request_id", sa.String(128)),
        sa.Column("computed_at", sa.DateTime, nullable=False),
    )
    with op.batch_alter_table("items") as batch:
        batch.add_column(sa.Column("snapshot_updated_at", sa.DateTime))
        batch.add_column(sa.Column("snapshot_fact", sa.String(64)))
    with op.batch_alter_table("processed") as batch:
        batch.add_column(sa.Column("repo", sa.String(140)))
    # windows summarized before this revision: their current revision starts the history
    op.execute(
        "insert into window_revisions (repo, label, revision, figures_hash, changed, summary_id, "
        "computed_at) select repo, label, revision, coalesce(figures_hash, ''), '[]', "
        "coalesce(summary_id, ''), coalesce(closed_at, \"end\") from windows where revision >= 1"
    )


def downgrade() -> None:
    with op.batch_alter_table("processed") as batch:
        batch.drop_column("repo")
    with op.batch_alter_table("items") as batch:
        batch.drop_column("snapshot_fact")
        batch.drop_column("snapshot_updated_at")
    op.drop_table("window_revisions")
    op.drop_index("ix_rejected_repo", "rejected")
    op.drop_index("ix_rejected_held", "rejected")
    op.drop_table("rejected")
