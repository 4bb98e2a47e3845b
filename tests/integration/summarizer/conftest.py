"""Summarizer fixtures: `database_url` overridden here because the shared one never yields its
SQLite URL (its sqlite branch `return`s inside a generator); same params and behaviour otherwise."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import IN_CI, POSTGRES_URL, postgres_available


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request, tmp_path):
    """One test body, two databases: a SQLite file and PostgreSQL (a fresh schema per test)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'projections.db'}"
        return
    problem = postgres_available()
    if problem:
        if IN_CI:
            pytest.fail(problem)
        pytest.skip(problem)
    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'create schema "{schema}"'))
    engine.dispose()
    sep = "&" if "?" in POSTGRES_URL else "?"
    yield f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'drop schema "{schema}" cascade'))
    engine.dispose()
