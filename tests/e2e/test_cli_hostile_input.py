"""Hostile input through the real CLI (issue 16): facts that could not be processed make the run
fail naming them; bad files, numbers, times, windows and paths are one-line errors with the
CLI's exit codes (2 for an argument, 1 for data), never a traceback, and a file source publishes
all or nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections
from tests.e2e.test_cli import run_cli

REPO = "acme/widgets"


def merged_pr(n: int, title: str | None = None, **over) -> dict:
    row = {"sha": f"{n:040x}", "pr_number": n, "title": title or f"change {n}", "author_name": "a",
           "author_email": "a@example.com", "authored_at": f"2026-06-0{1 + n % 5}T10:00:00+00:00",
           "merged_at": f"2026-06-0{1 + n % 5}T12:00:00+00:00", "files": []}
    row.update(over)
    return row


def write_lines(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def assert_clean_error(result, code: int, *needles: str) -> None:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


def test_a_fact_the_database_refuses_fails_the_run_naming_it(tmp_path):
    """The projections refuse one of six merged PRs (a trigger stands for any value the database
    cannot take): the report is made from the five, and the run exits 1 saying one fact is
    missing and why, instead of 0 with a report that silently lacks it."""
    db = tmp_path / "projections.db"
    store = SqlProjections(f"sqlite:///{db}")
    store.migrate()
    with store.engine.begin() as conn:
        conn.execute(sa.text("create trigger refuse before insert on items when new.title like "
                             "'%refused%' begin select raise(abort, 'title refused here'); end"))
    store.close()
    history = write_lines(tmp_path / "merged.jsonl",
                          [merged_pr(n, "a refused change" if n == 3 else None) for n in range(1, 7)])
    result = run_cli("report", REPO, "--window", "week:2026-W23", "--quiet", "--formats", "json",
                     "--source", f"replay:{history}", "--database-url", f"sqlite:///{db}",
                     "--out", str(tmp_path / "out"))
    assert_clean_error(result, 1, "1 fact of acme/widgets could not be processed",
                       "by the summarizer", "title refused here", "RD_DEAD")
    # the five good ones are in the report that was written
    report = json.loads(next((tmp_path / "out").rglob("report.json")).read_text())
    merged = [row["number"] for row in report["appendix"]["merged_prs"]]
    assert sorted(merged) == [1, 2, 4, 5, 6]
