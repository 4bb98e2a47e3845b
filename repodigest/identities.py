"""`repodigest identities`: who in a repository's facts may be one person — the aliases the data
links (a commit name used with a GitHub noreply address) and the look-alikes to confirm — read
from a source (`--source replay:PATH`, `git:PATH`, ...) or the event log (RD_GITHUB), and a
starter identities file (`--starter`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import IO

from shared.events import FactData


class IdentitiesProblem(Exception):
    """What a person must fix (exit code, one line)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def facts_of_source(source: str, repo: str | None) -> list[FactData]:
    from services.ingest.adapters.files import data_of, load_source
    from services.ingest.domain.sources import SourceError, parse_source_spec

    try:
        if parse_source_spec(source).kind in ("github", "github-graphql"):
            raise IdentitiesProblem(
                f"--source {source} is the live GitHub API: identities reads files and event logs; "
                "run `repodigest report OWNER/NAME ... --data-dir DIR` first, then "
                "`repodigest identities OWNER/NAME --data-dir DIR` (or --nats-url of a deployment)"
            )
        loaded = load_source(source, repo)
    except SourceError as exc:
        raise IdentitiesProblem(f"--source: {exc}") from None
    except FileNotFoundError as exc:
        raise IdentitiesProblem(f"--source: {exc.filename or exc} does not exist") from None
    except OSError as exc:
        raise IdentitiesProblem(
            f"--source: cannot read {exc.filename or source}: {exc.strerror or exc}", 1
        ) from None
    return [data_of(f) for f in loaded.facts]


async def _facts_of_log(
    nats_url: str, repo: str | None, fetch_timeout: float = 5.0
) -> list[FactData]:
    import nats
    from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

    from services.classifier.reclassify import replay_subject
    from shared.config import CommonSettings
    from shared.events import GITHUB_EVENT_ADAPTER, GithubFact
    from shared.messaging import STREAM_GITHUB
    from shared.natsclient import connect

    nc = await connect(CommonSettings(nats_url=nats_url))
    try:
        js = nc.jetstream()
        subject = replay_subject(repo)
        try:
            sub = await js.pull_subscribe(
                subject,
                stream=STREAM_GITHUB,
                config=ConsumerConfig(
                    filter_subject=subject,
                    deliver_policy=DeliverPolicy.ALL,
                    ack_policy=AckPolicy.NONE,
                    inactive_threshold=120.0,
                    mem_storage=True,
                ),
            )
        except nats.js.errors.NotFoundError:
            raise IdentitiesProblem(
                f"the event log has no {STREAM_GITHUB} stream at this NATS: run "
                "`repodigest report` (or ingest) first, or pass --source"
            ) from None
        facts: list[FactData] = []
        total = (await sub.consumer_info()).num_pending
        read = idle = 0
        while read < total:
            try:
                msgs = await sub.fetch(min(500, total - read), timeout=fetch_timeout)
            except (TimeoutError, nats.errors.TimeoutError):
                idle += 1
                if idle >= 3:
                    raise IdentitiesProblem(
                        f"{STREAM_GITHUB} stopped delivering after {read} of "
                        f"{total} messages; run the command again",
                        1,
                    ) from None
                continue
            idle = 0
            for msg in msgs:
                read += 1
                try:
                    event = GITHUB_EVENT_ADAPTER.validate_json(msg.data)
                except ValueError:
                    continue  # dead-lettered by the classifier already
                if isinstance(event, GithubFact):
                    facts.append(event.data)
        await sub.unsubscribe()
        return facts
    finally:
        await nc.drain()


async def facts_of_log(
    nats_url: str | None, data_dir: Path | None, repo: str | None
) -> list[FactData]:
    """The facts in the event log: a deployment's NATS, or the embedded one a `repodigest report
    --data-dir DIR` kept."""
    from shared.natsserver import EmbeddedNats
    from shared.service import NatsUnreachable

    try:
        if data_dir is not None:  # named on the command line: before REPODIGEST_NATS_URL
            async with EmbeddedNats(store_dir=data_dir / "jetstream") as server:
                return await _facts_of_log(server.url, repo)
        assert nats_url is not None
        return await _facts_of_log(nats_url, repo)
    except NatsUnreachable as exc:
        raise IdentitiesProblem(str(exc), 1) from None


def identities_command(
    repo: str | None,
    *,
    source: str | None,
    identities: Path | None,
    starter: bool,
    nats_url: str | None,
    data_dir: Path | None,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """List the data's links and the look-alikes (or print a starter file). Exit codes: 0 done;
    1 NATS unreachable or the log unreadable; 2 bad arguments or an unusable identities file."""
    from services.classifier.adapters.profiles import read_identities
    from services.classifier.domain.identities import IdentityError
    from services.classifier.domain.lookalikes import describe, starter_file, survey

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        if repo is not None and (repo.count("/") != 1 or not all(repo.split("/"))):
            raise IdentitiesProblem(f"repository {repo!r} must be OWNER/NAME")
        if source is None and nats_url is None and data_dir is None:
            raise IdentitiesProblem(
                "no facts to read: pass --source (e.g. replay:PATH, git:PATH), "
                "--nats-url (a deployment's event log) or --data-dir (the "
                "event log `repodigest report --data-dir` kept)"
            )
        if source is None and data_dir is not None and not (data_dir / "jetstream").is_dir():
            raise IdentitiesProblem(
                f"--data-dir {data_dir} holds no event log (no jetstream/ "
                "folder): pass the --data-dir of a `repodigest report` run"
            )
        try:
            book = read_identities(identities) if identities is not None else None
        except IdentityError as exc:
            raise IdentitiesProblem(f"--identities: {exc}") from None
        if source is not None:
            facts = facts_of_source(source, repo)
        else:
            facts = asyncio.run(facts_of_log(nats_url, data_dir, repo))
    except IdentitiesProblem as exc:
        print(f"error: {exc}", file=err)
        return exc.code
    result = survey(facts, book)
    if starter:
        out.write(starter_file(result, book))
    else:
        print("\n".join(describe(result)), file=out)
    return 0
