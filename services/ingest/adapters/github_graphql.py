"""GitHub GraphQL, read: pages of a repository's pull requests with their files, labels, reviews
and comments (fifty per request, where REST needs three requests per pull request: detail, files,
reviews), and the REST file listing of a pull request with more files than a page holds.

Each GraphQL node is turned into REST JSON (`domain.graphql`), so the backfill use case
(`services.ingest.sync.graphql`) sends it through the same mapping and transitions as a poll.
"""

from __future__ import annotations

from services.ingest.adapters.github import GithubError, GithubNotFound, PyGithubSource
from services.ingest.domain.graphql import (
    PULLS_QUERY,
    GraphqlShapeError,
    PullNode,
    PullPage,
    pull_from_graphql,
    pull_page,
    variables,
)


def read_pulls_page(
    source: PyGithubSource, repo: str, *, first: int, after: str | None, files: int
) -> tuple[PullPage, list[PullNode]]:
    """One page of `repo`'s pull requests, newest-updated first, after the cursor `after`, each
    with up to `files` files (blocking: run it in a thread). Raises `GithubNotFound` for a
    repository the token cannot see, `GithubError` for an answer without what was asked."""
    data = source.graphql(PULLS_QUERY, variables(repo, first=first, after=after, files=files))
    if isinstance(data, dict) and data.get("repository") is None:
        raise GithubNotFound(
            f"repository {repo} not found or the token cannot see it: check "
            "the spelling OWNER/NAME and, for a private repository, that "
            "the token has access to it"
        )
    try:
        page = pull_page(data)
        return page, [pull_from_graphql(n) for n in page.nodes]
    except GraphqlShapeError as exc:
        raise GithubError(
            f"GitHub GraphQL answered for {repo} without what was asked "
            f"({exc}); GitHub Enterprise older than 3.0? use --source github"
        ) from None


def rest_files(source: PyGithubSource, repo: str, number: int) -> tuple[list[dict], int]:
    """A pull request's files read as the poll reads them (pages up to the cap), and the pages
    (blocking: run it in a thread)."""
    files: list[dict] = []
    pages = 0
    for page in source.pages(
        f"/repos/{repo}/pulls/{number}/files", {"per_page": source.per_page}, limit=source.files_cap
    ):
        files.extend(page.data or ())
        pages += 1
    return files, pages
