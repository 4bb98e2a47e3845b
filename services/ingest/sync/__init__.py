"""The GitHub sync use cases of ingest: the REST poll of a repository (`rest`), the GraphQL
backfill of its pull requests (`graphql`) and the poller that runs them in turn (`poller`).

They read GitHub through `adapters.github` (REST) and `adapters.github_graphql` (GraphQL pages),
derive facts from the last known item state (`domain.transitions`) and publish them through one
step, `publish.publish_item` (derive → publish → store the item's state), shared by both paths.
"""

from .graphql import (
    BackfillResult,
    GraphqlBackfillResult,
    backfill_once,
    graphql_backfill,
    graphql_then_rest,
)
from .poller import GithubPoller
from .publish import publish_facts
from .rest import LISTINGS, SyncResult, sync_once, sync_repository

__all__ = [
    "LISTINGS",
    "BackfillResult",
    "GithubPoller",
    "GraphqlBackfillResult",
    "SyncResult",
    "backfill_once",
    "graphql_backfill",
    "graphql_then_rest",
    "publish_facts",
    "sync_once",
    "sync_repository",
]
