"""Read-only audit views of the projections for the CLI: a window's revisions, rejected events."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .adapters.store import SqlProjections, StoreError

T = TypeVar("T")


def _read(database_url: str, query: Callable[[SqlProjections], T], err) -> tuple[T | None, bool]:
    """Run one read against the projections; (result, ok). Errors are printed. A read never
    migrates: a database that is not at this version's revision is refused (run `repodigest db
    upgrade`), never upgraded, created or altered."""
    store = SqlProjections(database_url)
    try:
        store.check_schema()
        return query(store), True
    except StoreError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        return None, False
    finally:
        store.close()


def revisions_command(database_url: str, repo: str, window: str) -> int:
    """Print every published revision of `window` (its label, e.g. 2026-W24 or 2026-03-26) with
    the figures it changed. 0 when the window has revisions, 1 when it has none, 2 on errors."""
    from rich.console import Console

    out, err = Console(), Console(stderr=True)
    history, ok = _read(database_url, lambda store: store.revisions(repo, window), err)
    if not ok:
        return 2
    if not history:
        err.print(
            f"no revisions of {repo} {window} in the projections (is the label right? "
            "weeks are YYYY-Www, days YYYY-MM-DD, months YYYY-MM)",
            highlight=False,
        )
        return 1
    out.print(f"{repo} {window}: {len(history)} revision(s)", highlight=False)
    for h in history:
        out.print(
            f"r{h.revision}  {h.computed_at:%Y-%m-%d %H:%M:%S} UTC  figures {h.figures_hash[:12]}  "
            f"summary {h.summary_id}" + (f"  request {h.request_id}" if h.request_id else ""),
            highlight=False,
            soft_wrap=True,
        )
        for c in h.changed:
            out.print(f"    {c.name}: {c.before} -> {c.after}", highlight=False, soft_wrap=True)
    return 0


def rejected_command(database_url: str, repo: str | None = None, reason: str | None = None) -> int:
    """Print the events the fold did not count (unknown repositories, future times held or
    released), newest last. 0 always unless the database is unusable (2)."""
    from rich.console import Console

    out, err = Console(), Console(stderr=True)
    rows, ok = _read(database_url, lambda store: store.rejected_events(repo, reason), err)
    if not ok or rows is None:
        return 2
    for r in rows:
        state = f"released {r.released_at:%Y-%m-%d %H:%M}" if r.released_at else "not counted"
        out.print(
            f"{r.received_at:%Y-%m-%d %H:%M:%S} {r.repo} {r.reason} ({state}) "
            f"event {r.event_id} at {r.event_time.isoformat()}: {r.detail}",
            highlight=False,
            soft_wrap=True,
        )
    out.print(f"{len(rows)} event(s)", highlight=False)
    return 0
