"""Alembic environment for the summarizer's projections; run programmatically by `migrate()`."""

from __future__ import annotations

from alembic import context

from services.summarizer.adapters.tables import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "run the summarizer migrations through services.summarizer.adapters.store.migrate(url), "
        "which passes a connection to Alembic"
    )

context.configure(
    connection=connection, target_metadata=metadata, render_as_batch=True, compare_type=True
)
with context.begin_transaction():
    context.run_migrations()
