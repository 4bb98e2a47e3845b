"""Checks of `report`'s arguments that need no service: each returns what to type instead.

Run before anything starts, so a path, time-out or database URL that cannot work is an argument
error (exit 2) rather than a traceback after the embedded nats-server came up.
"""

from __future__ import annotations

import math
from pathlib import Path


def directory_problem(path: Path, option: str) -> str | None:
    """Why `path` cannot be (or become) a directory we write into; None when it can."""
    p = path.expanduser()
    if p.exists():
        return (
            None if p.is_dir() else f"{option} {path} is a file, not a directory; name a directory"
        )
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                return f"{option} {path}: {parent} is a file, not a directory; name a directory"
            return None
    return None


def timeout_problem(seconds: float) -> str | None:
    if not math.isfinite(seconds) or seconds <= 0:
        return f"--timeout {seconds} is not a number of seconds above 0, e.g. --timeout 900"
    return None


def database_problem(url: str | None) -> str | None:
    if not url:
        return None
    from services.summarizer.adapters.store import StoreError, check_database_url

    try:
        check_database_url(url)
    except StoreError as exc:
        return f"--database-url: {exc}"
    return None


def source_problem(source: str | None, repo: str) -> str | None:
    """Why `--source` cannot be read for `repo` (an unknown kind, a path missing or given where
    none is taken, the demo's data asked for another repository); None when it can."""
    if source is None:
        return None
    from services.ingest.adapters.demo import DEMO_REPO
    from services.ingest.domain.sources import SourceError, parse_source_spec

    try:
        spec = parse_source_spec(source)
    except SourceError as exc:
        return f"--source: {exc}"
    if spec.kind == "demo" and repo != DEMO_REPO:
        return (
            f"--source demo only generates {DEMO_REPO}; pass it as the repository "
            f"(repodigest report {DEMO_REPO} --source demo ...) or run `repodigest demo`"
        )
    return None


def output_file_problem(path: Path, option: str) -> str | None:
    """Why a file cannot be written at `path` (missing directories are created); None when it can."""
    p = path.expanduser()
    if p.is_dir():
        return f"{option} {path} is a directory; name the file to write, e.g. {path / 'report.pdf'}"
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                return f"{option} {path}: {parent} is a file, not a directory; name another path"
            return None
    return None


def report_argument_problem(
    *, out_dir: Path, data_dir: Path | None, timeout: float, database_url: str | None
) -> str | None:
    """The first problem with these arguments of `report`, or None."""
    return (
        timeout_problem(timeout)
        or directory_problem(out_dir, "--out")
        or (directory_problem(data_dir, "--data-dir") if data_dir is not None else None)
        or database_problem(database_url)
    )
