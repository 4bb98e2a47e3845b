"""Which enriched events the fold counts: accepted repositories and a bound on future times (pure).

- Unknown repository: when an accept list is configured (`REPODIGEST_ACCEPT_REPOS`, OWNER/NAME
  or fnmatch patterns such as `vllm-project/*`), an event for any other repository is not folded;
  it is recorded in the `rejected` table with reason `unknown-repo` (and its id marked processed).
  Without a list every repository is accepted. A rebuild re-evaluates rejected events under the
  list of that moment, so widening the list and rebuilding counts them.
- Future time: an event whose time is later than `now + future_tolerance` (a skewed clock, a
  corrupt payload) is held in `rejected` with reason `future`: it is not counted in any window
  and a watermark does not close windows with it. It is folded by the first fold after its time
  comes within the tolerance (`released_at` records when), exactly as if it had arrived then.
- Out of order: not a rejection. Facts always count in the window of their own time; an item's
  latest state is the snapshot with the greatest (updated_at, fact time, fact id), so an older
  snapshot arriving later never overwrites a newer one (see `snapshot_order`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from fnmatch import fnmatchcase

UNKNOWN_REPO = "unknown-repo"
FUTURE = "future"


@dataclass(frozen=True)
class Verdict:
    reason: str
    detail: str


@dataclass(frozen=True)
class Admission:
    """The accept list (empty: every repository) and how far ahead of `now` an event may be."""

    repos: tuple[str, ...] = ()
    future_tolerance: timedelta | None = None  # None: no limit (the service sets 10 min)
    # a partitioned replica's share of the repositories (None: all): held events of the others
    # are released by the replica that folds them (README, Operations: scale)
    partition_owns: Callable[[str], bool] | None = None

    def owns(self, repo: str) -> bool:
        return self.partition_owns is None or self.partition_owns(repo)

    def accepts_repo(self, repo: str) -> bool:
        if not self.repos:
            return True
        folded = repo.casefold()
        return any(fnmatchcase(folded, pattern.casefold()) for pattern in self.repos)

    def horizon(self, now: datetime) -> datetime | None:
        """Events at or before this instant are not in the future."""
        return None if self.future_tolerance is None else now + self.future_tolerance

    def verdict(self, repo: str, time: datetime, now: datetime) -> Verdict | None:
        """None when the event is folded now; else why it is not."""
        if not self.accepts_repo(repo):
            return Verdict(
                UNKNOWN_REPO,
                f"{repo} is not in the accepted repositories "
                f"({', '.join(self.repos)}); set REPODIGEST_ACCEPT_REPOS "
                "to include it, then run `repodigest rebuild`",
            )
        horizon = self.horizon(now)
        if horizon is not None and time > horizon:
            return Verdict(
                FUTURE,
                f"event time {time.isoformat()} is {_ahead(time - now)} ahead of "
                f"the summarizer clock ({now.isoformat()}); held until then",
            )
        return None


def snapshot_order(updated_at: datetime | None, fact_time: datetime, fact_id: str) -> tuple:
    """How recent an item snapshot is: its own updated_at first (a snapshot observed by a poll
    after the fact is newer than a webhook snapshot of a later fact), then the fact time, then
    the fact id so that equal times still give one answer whatever the arrival order."""
    return (updated_at or fact_time, fact_time, fact_id)


def _ahead(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} days"
