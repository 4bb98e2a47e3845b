"""What ingest costs GitHub: requests and rate-limit points, counted by the GitHub emulator.

    .venv/bin/python -m bench.github_cost [--pulls 1000] [--page-size 50]

(a) An incremental sync of an unchanged repository (goal: 0 requests against the primary rate
    limit, every request answered 304), for the recorded PyGithub/PyGithub repository and for a
    repository of N pull requests.
(b) A backfill of N pull requests (the emulator serves N renumbered copies of the recorded pull
    requests with their recorded files): the REST sync (`--source github`) against the GraphQL
    batch path (`--source github-graphql`: GraphQL for the pull requests, then the REST sync
    for everything else), in requests per PR and rate-limit points per PR. REST points are the
    200 answers (GitHub charges one per request, nothing for a 304); GraphQL points are the
    costs the emulator computes as GitHub documents them (connections requested / 100) on its
    own 5000-point budget.

Figures, not assertions: prints a table, exits 0. Needs ../shared/data/github-rest-replay and the
nats-server the package ships (an embedded one per run, in a temporary directory).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from services.ingest.adapters.github import PyGithubSource
from services.ingest.adapters.kv import KvIngestState
from services.ingest.sync import graphql_backfill, graphql_then_rest, sync_repository
from shared.config import CommonSettings
from shared.natsserver import EmbeddedNats
from shared.service import Runtime
from tests.github_emulator import GithubEmulator

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "github-rest-replay"
FILES = [
    "Repository.testGetIssues.txt",
    "Repository.testGetPullsWithArguments.txt",
    "PullRequest.setUp.txt",
    "PullRequest.testGetFiles.txt",
    "PullRequest.testGetReviewComments.txt",
]
RECORDED = "PyGithub/PyGithub"
SYNTHETIC = "bench-org/thousand"
NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


class Broker:
    """A fresh embedded nats-server and an ingest bus + KV state on it."""

    async def __aenter__(self) -> Broker:
        self._tmp = tempfile.TemporaryDirectory(prefix="bench-github-")
        self.server = EmbeddedNats(store_dir=Path(self._tmp.name) / "nats")
        await self.server.start()
        self.runtime = Runtime(CommonSettings(nats_url=self.server.url), "bench-github")
        await self.runtime.start()
        self.bus = self.runtime.bus("ingest")
        self.state = await KvIngestState.open(self.runtime.js)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.runtime.stop()
        await self.server.stop()
        self._tmp.cleanup()


class Meter:
    """Requests, 304s and points the emulator saw between `start()` and `stop()`."""

    def __init__(self, gh: GithubEmulator) -> None:
        self.gh = gh

    def __enter__(self) -> Meter:
        self.seen0, self.quota0, self.points0 = (
            len(self.gh.seen),
            self.gh.quota_used,
            self.gh.graphql_points,
        )
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0
        seen = self.gh.seen[self.seen0 :]
        self.gets = sum(1 for s in seen if s.method == "GET")
        self.not_modified = sum(1 for s in seen if s.status == 304)
        self.posts = sum(1 for s in seen if s.method == "POST")
        self.rest_points = self.gh.quota_used - self.quota0
        self.graphql_points = self.gh.graphql_points - self.points0

    @property
    def requests(self) -> int:
        return self.gets + self.posts


def source(gh: GithubEmulator) -> PyGithubSource:
    return PyGithubSource(gh.token, gh.base_url, seconds_between_requests=None)


async def unchanged(gh: GithubEmulator, repo: str) -> tuple[Meter, int]:
    async with Broker() as b:
        src = source(gh)
        first = await sync_repository(b.bus, b.state, src, repo, now=NOW)
        with Meter(gh) as m:
            await sync_repository(b.bus, b.state, src, repo, now=NOW)
        src.close()
    return m, first.facts_published


async def backfill_rest(gh: GithubEmulator, repo: str) -> tuple[Meter, int]:
    async with Broker() as b:
        src = source(gh)
        with Meter(gh) as m:
            result = await sync_repository(b.bus, b.state, src, repo, now=NOW)
        src.close()
    return m, result.facts_published


async def backfill_graphql(
    gh: GithubEmulator, repo: str, page_size: int, *, then_rest: bool
) -> tuple[Meter, int]:
    async with Broker() as b:
        src = source(gh)
        with Meter(gh) as m:
            if then_rest:
                result = await graphql_then_rest(
                    b.bus, b.state, src, repo, now=NOW, page_size=page_size
                )
            else:
                result = await graphql_backfill(b.bus, b.state, src, repo, page_size=page_size)
        src.close()
    return m, result.facts_published


def row(name: str, m: Meter, pulls: int | None, facts: int) -> str:
    per = (lambda x: f"{x / pulls:.3f}") if pulls else (lambda x: "-")
    points = m.rest_points + m.graphql_points
    return (
        f"| {name} | {m.requests} | {m.not_modified} | {m.rest_points} | {m.graphql_points} "
        f"| {per(m.requests)} | {per(points)} | {facts} | {m.seconds:.1f} |"
    )


async def main(pulls: int, page_size: int) -> None:
    missing = [f for f in FILES if not (DATA / f).exists()]
    if missing:
        print(f"../shared/data/github-rest-replay lacks {', '.join(missing)}: nothing to measure")
        return
    with GithubEmulator([DATA / f for f in FILES]) as gh:
        gh.add(f"/repos/{RECORDED}/pulls/comments", gh.body(f"/repos/{RECORDED}/pulls/31/comments"))
        gh.synthesize_pulls(SYNTHETIC, pulls, template_repo=RECORDED)
        gh.limit = gh.remaining = 1_000_000  # measure, do not wait for resets

        rows = []
        m, facts = await unchanged(gh, RECORDED)
        rows.append(row(f"(a) unchanged {RECORDED}: second sync", m, None, 0))
        m, _ = await unchanged(gh, SYNTHETIC)
        rows.append(row(f"(a) unchanged {pulls}-PR repository: second sync", m, None, 0))
        m, facts = await backfill_rest(gh, SYNTHETIC)
        rows.append(row(f"(b) REST backfill of {pulls} PRs (--source github)", m, pulls, facts))
        m, facts = await backfill_graphql(gh, SYNTHETIC, page_size, then_rest=False)
        rows.append(
            row(f"(b) GraphQL pull requests only, {page_size} per request", m, pulls, facts)
        )
        m, facts = await backfill_graphql(gh, SYNTHETIC, page_size, then_rest=True)
        rows.append(row("(b) GraphQL + REST rest (--source github-graphql)", m, pulls, facts))

    print(
        "| run | requests | 304 (free) | REST points | GraphQL points | requests/PR | "
        "points/PR | facts | seconds |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(r)
    print(
        "\nREST points: 200 answers (one each against the 5000/h primary limit; 304s are "
        "free). GraphQL points: per-query cost on the separate 5000 points/h GraphQL limit."
    )


def cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pulls", type=int, default=1000)
    parser.add_argument("--page-size", type=int, default=50)
    args = parser.parse_args(argv)
    asyncio.run(main(args.pulls, args.page_size))
    return 0


if __name__ == "__main__":
    sys.exit(cli())
