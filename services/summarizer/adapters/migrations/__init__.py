"""Alembic migrations of the summarizer projections."""
