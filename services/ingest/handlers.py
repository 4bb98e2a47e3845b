"""Ingest use cases: publish facts (and the watermark they prove) for one repository."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterable, Sequence, Sized
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from shared.events import (
    ALL_PROVIDED,
    FactData,
    GithubFact,
    SourceInfo,
    SyncWatermark,
    WatermarkData,
    check_repo,
    fact_time,
    make_fact,
    utc,
)
from shared.events.envelope import CloudEvent
from shared.messaging import Subjects

from .domain.sources import SourceError, SourceSpec, parse_source_spec

if TYPE_CHECKING:
    from shared.windows import Window

log = logging.getLogger("repodigest.ingest")

PUBLISH_WINDOW = 256  # publish futures in flight at once


class Publisher(Protocol):
    """The port ingest publishes through (`shared.messaging.Bus`)."""

    async def publish(self, event: CloudEvent, subject: str) -> Any: ...

    # (event, subject, trace context or None for the current one) each; acks in order
    async def publish_many(self, batch: Sequence[tuple[CloudEvent, str, Any]]) -> list[Any]: ...


@dataclass
class IngestResult:
    """What one ingest run published. `facts_published` counts every fact sent, of which
    `duplicates` were already in the stream (JetStream de-duplicated them by id)."""

    repo: str
    origin: str
    facts_published: int = 0
    duplicates: int = 0
    watermark: datetime | None = None
    watermark_published: bool = False
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    # what the source is (kind, name), what it can tell and the time it covers: the report says so
    source: SourceInfo | None = None

    @property
    def new_facts(self) -> int:
        return self.facts_published - self.duplicates

    def summary(self) -> str:
        parts = ", ".join(f"{k}.{a} {n}" for (k, a), n in sorted(self.counts.items()))
        mark = self.watermark.isoformat() if self.watermark else "none"
        return (
            f"{self.repo}: {self.facts_published} facts ({self.duplicates} already published)"
            f" from {self.origin}; watermark {mark}" + (f"; {parts}" if parts else "")
        )


def _is_duplicate(ack: Any) -> bool:
    return bool(getattr(ack, "duplicate", False))


async def ingest_facts(
    bus: Publisher,
    repo: str,
    facts: Iterable[FactData | GithubFact],
    *,
    origin: str,
    watermark: datetime | None = None,
    progress: bool = False,
) -> IngestResult:
    """Publish every fact of `repo` on its subject, then one SyncWatermark.

    Facts are published in the order given, `PUBLISH_WINDOW` at a time (each window awaited before
    the next starts), and the watermark only after every fact was acknowledged, so a reader that
    sees the watermark has seen the facts before it. Ids are deterministic: a re-run within the
    stream's duplicate window adds nothing (and consumers de-duplicate by id after it). The
    watermark is `watermark` or, when None, the latest fact's time; with no facts and no
    watermark nothing is published. A `GithubFact` (a recorded event) is published unchanged.
    """
    check_repo(repo)
    result = IngestResult(repo=repo, origin=origin)
    latest: datetime | None = None
    total = len(facts) if isinstance(facts, Sized) else None
    bar = _progress(progress, f"ingest {repo}", total)
    iterator = iter(facts)
    try:
        while True:
            chunk = list(islice(iterator, PUBLISH_WINDOW))
            if not chunk:
                break
            events = []
            for fact in chunk:
                data = fact.data if isinstance(fact, GithubFact) else fact
                if data.repo != repo:
                    raise SourceError(
                        f"a fact of {data.repo} (#{data.item.number}) was given to "
                        f"ingest for {repo}: filter the source by repository first"
                    )
                event = fact if isinstance(fact, GithubFact) else make_fact(data)
                events.append((event, Subjects.fact(data.kind, data.action, repo)))
                result.counts[(data.kind, data.action)] += 1
                latest = event.time if latest is None else max(latest, event.time)
            # one batch of async publishes with the acks gathered (Bus.publish_many), not one
            # request/response per fact
            acks = await bus.publish_many([(e, s, None) for e, s in events])
            result.facts_published += len(acks)
            result.duplicates += sum(map(_is_duplicate, acks))
            if bar is not None:
                bar.advance(len(acks))
    finally:
        if bar is not None:
            bar.close()
    mark = utc(watermark) if watermark is not None else latest
    result.watermark = mark
    if mark is not None:
        event = SyncWatermark.create(
            WatermarkData(
                repo=repo, watermark=mark, origin=origin, facts_published=result.facts_published
            )
        )
        await bus.publish(event, Subjects.watermark(repo))
        result.watermark_published = True
    log.info(
        "ingested %s",
        result.summary(),
        extra={
            "repo": repo,
            "origin": origin,
            "facts": result.facts_published,
            "duplicates": result.duplicates,
        },
    )
    return result


async def ingest_source(
    bus: Publisher,
    source: str,
    repo: str | None = None,
    *,
    progress: bool = False,
    demo_week: str | None = None,
    demo_seed: int = 7,
    window: Window | None = None,
    token: str | None = None,
    github_api_url: str = "https://api.github.com",
) -> IngestResult:
    """Publish a source: `demo`, `replay:PATH`, `events:PATH`, `gharchive:PATH`, `git:PATH`,
    `github` (one sync of `repo` through the GitHub REST API with `token`) or `github-graphql`
    (its pull requests through GraphQL, fifty with their files per request, then the same REST
    sync for the rest: the cheap backfill of a busy repository).

    `window` (the report's window, optional) picks the demo's week and time zone: the ISO week
    holding the window's start; `demo_week` overrides it (default 2026-W24). For `github` it
    bounds the first sync: items updated since the start of the window before it (for trends).
    Files are published whole (earlier facts feed trends). Raises SourceError (a message a person
    can act on) for a bad spec, a missing or malformed file, a repository the source does not
    hold, or a GitHub failure; a file source publishes nothing then.
    """
    from .adapters.files import load_source

    spec = parse_source_spec(source)
    if repo is not None:
        try:
            check_repo(repo)
        except ValueError as exc:
            raise SourceError(str(exc)) from None
    if spec.kind in ("github", "github-graphql"):
        return await ingest_github(
            bus,
            repo,
            token=token,
            window=window,
            api_url=github_api_url,
            progress=progress,
            graphql=spec.kind == "github-graphql",
        )
    tz = "UTC"
    if window is not None:
        tz = window.tz
        if demo_week is None:
            demo_week = demo_week_of(window)
    try:
        loaded = await asyncio.to_thread(
            load_source,
            spec,
            repo,
            demo_week=demo_week or "2026-W24",
            demo_seed=demo_seed,
            demo_tz=tz,
        )
    except ValueError as exc:
        if isinstance(exc, SourceError):
            raise
        raise SourceError(f"{spec}: {exc}") from None  # e.g. a demo week that is not an ISO week
    # all or nothing: every fact is made into its event and checked before the first is published
    not_after = None if spec.kind == "demo" else datetime.now(UTC) + FUTURE_TOLERANCE
    events = await asyncio.to_thread(
        publishable, loaded.facts, max_payload(bus) - ENRICHMENT_ROOM, not_after
    )
    if not_after is not None and loaded.watermark is not None and loaded.watermark > not_after:
        raise SourceError(
            f"{spec}: its watermark {loaded.watermark:%Y-%m-%d %H:%M} UTC has not "
            "come yet; nothing was published"
        )
    result = await ingest_facts(
        bus,
        loaded.repo,
        events,
        origin=loaded.origin,
        watermark=loaded.watermark,
        progress=progress,
    )
    result.source = source_info(spec, loaded)
    return result


DEFAULT_MAX_PAYLOAD = 1024 * 1024  # nats-server's default max_payload
# room a fact leaves in a message for what the classifier adds (tags, the description's digest)
ENRICHMENT_ROOM = 64 * 1024
# a file's fact timed later than this from now has not happened: the summarizer would hold it
# (and the watermark after it) until its time comes (REPODIGEST_FUTURE_TOLERANCE_MINUTES, 10)
FUTURE_TOLERANCE = timedelta(minutes=10)


def max_payload(bus: Any) -> int:
    """The largest message the connected server takes (its INFO), or NATS's default."""
    try:
        value = bus.nc.max_payload  # a `Bus` on a connected runtime
    except Exception:  # noqa: BLE001 - no connection (yet), or a bus without one: the default
        value = None
    return value if isinstance(value, int) and value > 0 else DEFAULT_MAX_PAYLOAD


def publishable(
    facts: Sequence[FactData | GithubFact], limit: int, not_after: datetime | None = None
) -> list[GithubFact]:
    """The facts as the events they are published as, each checked against `limit` bytes and
    `not_after`; a SourceError naming the first that is too large or in the future (a file source
    then publishes nothing)."""
    events: list[GithubFact] = []
    for fact in facts:
        try:
            event = fact if isinstance(fact, GithubFact) else make_fact(fact)
        except ValueError as exc:
            raise SourceError(f"cannot make an event of a fact: {exc}") from None
        if not_after is not None and event.time > not_after:
            raise SourceError(
                f"the {event.data.kind}.{event.data.action} fact of #{event.data.item.number} is "
                f"timed {event.time:%Y-%m-%d %H:%M} UTC, which has not come yet: a file can only "
                "hold what has happened. Nothing was published: fix its time or leave it out"
            )
        size = len(event.to_bytes())
        if size > limit:
            data, item = event.data, event.data.item
            fields = {
                "title": len(item.title),
                "labels": sum(map(len, item.labels)),
                "file paths": sum(len(f.path) for f in item.files),
                "description": len(item.body_excerpt),
                "author": len(item.author.login),
            }
            longest = max(fields, key=fields.__getitem__)
            raise SourceError(
                f"the {data.kind}.{data.action} fact of #{item.number} is "
                f"{size:,} bytes as an event, more than the {limit:,} a fact may take (the NATS "
                f"server's max_payload less {ENRICHMENT_ROOM:,} for its tags); its {longest} is "
                f"{fields[longest]:,} characters. Nothing was published: shorten it or leave it out"
            )
        events.append(event)
    return events


# a merged-PR history (a replay file, a clone's first-parent log) knows merged pull requests and
# nothing else: no issues, no PRs still open or closed unmerged, no reviews, no open times
MERGED_ONLY: tuple[str, ...] = ("merged_prs",)


def source_info(spec: SourceSpec, loaded: Any) -> SourceInfo:
    """The report's description of a file or demo source: kind, base name, what it provides and
    the span of its facts (never a path of this machine)."""
    times = [fact_time_of(f) for f in loaded.facts]
    name = Path(spec.path).name if spec.path else ""
    provides = MERGED_ONLY if spec.kind in ("replay", "git") else ALL_PROVIDED
    if spec.kind == "demo":
        return SourceInfo(kind="demo", name="", provides=provides)
    return SourceInfo(
        kind=spec.kind,
        name=name,
        provides=provides,
        coverage_start=min(times) if times else None,
        coverage_end=max(times) if times else None,
    )


def fact_time_of(fact: FactData | GithubFact) -> datetime:
    return fact.time if isinstance(fact, GithubFact) else fact_time(fact)


async def ingest_github(
    bus: Any,
    repo: str | None,
    *,
    token: str | None,
    window: Window | None = None,
    api_url: str = "https://api.github.com",
    progress: bool = False,
    graphql: bool = False,
) -> IngestResult:
    """One sync of `repo` from GitHub (the poller's use case, state in the KV bucket), then its
    watermark; with `graphql`, its pull requests come through the GraphQL batch path first.
    `bus` must be a `shared.messaging.Bus` (the sync keeps its cursors in JetStream KV)."""
    from .adapters.github import GithubError
    from .sync import backfill_once, sync_once

    if repo is None:
        raise SourceError(
            "the GitHub source needs the repository: OWNER/NAME, e.g. vllm-project/vllm"
        )
    since = window.previous().start if window is not None else None
    bar = _progress(progress, f"sync {repo} from GitHub (items)", None)
    try:
        sync = backfill_once if graphql else sync_once
        synced = await sync(
            bus,
            repo,
            token=token,
            api_url=api_url,
            since=since,
            on_item=(lambda _n: bar.advance(1)) if bar else None,
        )
    except GithubError as exc:
        raise SourceError(str(exc)) from exc
    finally:
        if bar is not None:
            bar.close()
    result = IngestResult(
        repo=repo,
        origin="graphql+poll" if graphql else "poll",
        facts_published=synced.facts_published,
        duplicates=synced.duplicates,
        watermark=synced.watermark,
        watermark_published=synced.watermark is not None,
        source=SourceInfo(kind="github-graphql" if graphql else "github"),
    )
    log.info("synced %s", synced.summary(), extra={"repo": repo, "facts": synced.facts_published})
    return result


async def owner_repos_in_source(
    source: str, owner: str, *, token: str | None = None, api_url: str | None = None
) -> list[str]:
    """`OWNER/*` for a report across repositories: the owner's repositories — on GitHub (an
    organisation's, else a user's; archived ones left out) for `github` and `github-graphql`,
    else those the source holds (a file names its repositories; demo, replay and git one)."""
    spec = parse_source_spec(source)
    want = owner.lower()
    if spec.kind in ("github", "github-graphql"):
        from services.ingest.config import IngestSettings

        from .adapters.github import GithubError, GithubNotFound, PyGithubSource

        def listing() -> list[str]:
            gh = PyGithubSource(token, api_url or IngestSettings().github_api_url)
            try:
                try:
                    pages = list(gh.pages(f"/orgs/{owner}/repos", {"type": "all"}))
                except GithubNotFound:  # not an organisation: a user's own repositories
                    pages = list(gh.pages(f"/users/{owner}/repos", {"type": "owner"}))
            finally:
                gh.close()
            return [
                r["full_name"]
                for page in pages
                for r in page.data or ()
                if isinstance(r, dict) and r.get("full_name") and not r.get("archived")
            ]

        try:
            names = await asyncio.to_thread(listing)
        except GithubNotFound:
            raise SourceError(
                f"GitHub knows no organisation or user {owner!r}: check the spelling of {owner}/*"
            ) from None
        except GithubError as exc:
            raise SourceError(str(exc)) from exc
    else:
        from .adapters.files import repos_in_source

        names = list(await asyncio.to_thread(repos_in_source, spec))
    return sorted({n for n in names if n.split("/", 1)[0].lower() == want}, key=str.lower)


def demo_week_of(window: Window) -> str:
    """The ISO week (in the window's time zone) that holds the window's start."""
    from zoneinfo import ZoneInfo

    year, week, _ = window.start.astimezone(ZoneInfo(window.tz)).isocalendar()
    return f"{year}-W{week:02d}"


class _Bar:
    def __init__(self, description: str, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self.progress.start()
        self.task = self.progress.add_task(description, total=total)

    def advance(self, n: int) -> None:
        self.progress.advance(self.task, n)

    def close(self) -> None:
        self.progress.stop()


def _progress(enabled: bool, description: str, total: int | None) -> _Bar | None:
    return _Bar(description, total) if enabled else None
