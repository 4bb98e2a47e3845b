"""What ingest publishes (it consumes nothing): its contract."""

from __future__ import annotations

from shared.events import GithubFact, SyncWatermark
from shared.messaging import Contract, Publication

CONTRACT = Contract(
    "ingest",
    publishes=(
        Publication(
            "rd.github.{kind}.{action}.{owner}.{repo}",
            GithubFact,
            "a GitHub fact (pull request, issue, review, comment), from a backfill, the "
            "poller or a webhook",
        ),
        Publication(
            "rd.github.sync.watermark.{owner}.{repo}",
            SyncWatermark,
            "every fact up to this time of the repository has been published",
        ),
    ),
)
