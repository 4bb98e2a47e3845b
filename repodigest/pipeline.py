"""The one-process pipeline: the four services on one broker (embedded nats-server by default).

This is the composition root of `repodigest report` and `repodigest demo`: it starts what is
needed, ingests, asks for the window's report, waits for report-ready, and copies the artifacts
out of the object store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import signal
import tempfile
import uuid
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from shared.config import CommonSettings
from shared.events import (
    DeadLetter,
    ReportReady,
    ReportRequestData,
    ReportRequested,
    SourceInfo,
    SummaryData,
    WindowRef,
)
from shared.messaging import STREAM_DEAD, Subjects, repo_from_subject
from shared.natsserver import EmbeddedNats
from shared.service import Runtime
from shared.tasks import stop_processes
from shared.telemetry import service_context
from shared.windows import Window

log = logging.getLogger("repodigest.pipeline")
T = TypeVar("T")


class PipelineError(RuntimeError):
    """Something a person can fix; the CLI prints the message and exits non-zero."""


@dataclass
class ReportJob:
    repo: str
    window: Window
    source: str
    languages: tuple[str, ...] = ("en",)
    formats: tuple[str, ...] = ("md", "html", "pdf", "json")
    out_dir: Path = Path("reports")
    nats_url: str | None = None
    data_dir: Path | None = None
    database_url: str | None = None
    artifacts_url: str | None = None
    timeout: float = 600.0
    progress: bool = True
    data_note: str | None = None
    synthetic: bool = False
    # the appendix in the rendered reports: full | compact | none
    appendix: str = "compact"
    github_token: str | None = None
    profile: str | None = None
    # run the classifier, summarizer and renderer in this process; by default only when the
    # CLI started its own nats-server (against a deployment's NATS, its services do the work)
    run_services: bool | None = None
    # a new revision even when the window is unchanged (else the revision already reported)
    force: bool = False
    # the identities file (REPODIGEST_IDENTITIES otherwise): the classifier's people and affiliations
    identities: Path | None = None
    # a report across repositories (issue #19 item 4): `repo` is then its key (OWNER/_..all or
    # OWNER/_..A..B, services/summarizer/domain/combined.py) and these are the repositories;
    # `owner_wildcard`: OWNER/*, the repositories still to find (GitHub's list, the source's, the log's)
    repos: tuple[str, ...] = ()
    owner_wildcard: str | None = None
    # False: report what the event log already holds, ingest nothing (a repository of OWNER/*
    # found in the kept log and not in the source)
    ingest: bool = True


class _Answer(bytes):
    """The report-ready that already announced an unchanged window's revision (the renderer's
    direct answer to this run's request; no second report-ready is published)."""


@dataclass
class ReportOutcome:
    ready: ReportReady
    files: list[tuple[str, Path, int]] = field(default_factory=list)  # (format/lang, path, size)
    facts_published: int = 0
    duplicates: int = 0


def build_runtime(settings: CommonSettings, job: ReportJob, data_dir: Path) -> Runtime:
    """All four services on one broker, each built by its own bootstrap (services/X/bootstrap.py,
    as `repodigest serve` builds them) from its own settings: the environment (REPODIGEST_*) and
    the deployment's common settings, then what this run decided."""
    from services.registry import bootstrap

    common = settings.model_dump(exclude_none=True)
    runtime = Runtime(settings, "repodigest")
    # the report's own repository is always accepted, whatever the deployment's allow-list says
    summarizer_over = {
        "database_url": job.database_url or f"sqlite:///{data_dir / 'projections.db'}",
        "accept_repos": [],
    }
    renderer_over = {"artifacts_url": job.artifacts_url} if job.artifacts_url else {}
    classifier_over: dict[str, Any] = {}
    if job.profile:
        classifier_over["profile_overrides"] = {r: job.profile for r in (job.repos or (job.repo,))}
    if job.identities is not None:
        classifier_over["identities"] = job.identities
    # a one-shot report ingests its own source: no pollers, webhooks or backfills from the env
    ingest_over = {"repos": [], "webhook_enabled": False, "backfill_source": None}
    overrides: dict[str, dict[str, Any]] = {
        "ingest": ingest_over,
        "classifier": classifier_over,
        "summarizer": summarizer_over,
        "renderer": renderer_over,
    }
    for name in (
        ("ingest", "classifier", "summarizer", "renderer") if job.run_services else ("ingest",)
    ):
        boot = bootstrap(name)
        fields = set(boot.settings_class.model_fields)
        values = {k: v for k, v in {**common, **overrides[name]}.items() if k in fields}
        boot.add(runtime, boot.settings(**values))
    return runtime


async def run_report(job: ReportJob) -> ReportOutcome:
    tmp: tempfile.TemporaryDirectory | None = None
    if job.data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="repodigest-")
        data_dir = Path(tmp.name)
    else:
        data_dir = job.data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
    server: EmbeddedNats | None = None
    children_before = {p.pid for p in multiprocessing.active_children()}
    try:
        nats_url = job.nats_url
        if nats_url is None:
            server = EmbeddedNats(store_dir=data_dir / "jetstream")
            await server.start()
            nats_url = server.url
        settings = CommonSettings().model_copy(update={"nats_url": nats_url})
        if server is not None:
            # the embedded server is plain and open: the deployment's TLS and logins are not its
            settings = settings.model_copy(
                update=dict.fromkeys(
                    ("nats_tls_ca", "nats_tls_cert", "nats_tls_key", "nats_creds", "nats_nkey")
                )
            )
        if job.run_services is None:
            job.run_services = server is not None
        runtime = build_runtime(settings, job, data_dir)
        started = False
        try:
            await runtime.start()
            started = True
            if job.repos or job.owner_wildcard:
                return await _produce_combined(runtime, job)
            return await _produce(runtime, job)
        except asyncio.CancelledError:
            # interrupted (SIGINT/SIGTERM, see run_interruptible): a PDF in progress is abandoned,
            # not waited for (it can take minutes), and the services get a bounded stop
            _kill_workers(runtime, children_before)
            await _bounded(runtime.stop(), STOP_GRACE, "stopping the services")
            _kill_workers(runtime, children_before)
            started = False
            raise
        finally:
            if started:
                await runtime.stop()
    finally:
        if server is not None:
            await _stop_server(server)
        if tmp is not None:
            tmp.cleanup()


# seconds an interrupted run gives the services, then the nats-server, before going on without them
STOP_GRACE = 5.0


class Interrupted(Exception):
    """The run was stopped by a signal (after cleaning up); the CLI exits 128 + signum."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, where SIGINT (Ctrl-C) and SIGTERM cancel `main` so that its cleanup
    runs (services, the embedded nats-server, PDF workers, the temporary directory), then raise
    Interrupted. Without this SIGTERM killed the process at once and left all of them behind."""
    received: list[int] = []

    async def runner() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_signal(signum: int) -> None:
            if not received:
                log.warning("%s: stopping", signal.Signals(signum).name)
                task.cancel()
            received.append(signum)

        handled = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
                loop.add_signal_handler(sig, on_signal, sig)  # main thread only
                handled.append(sig)
        try:
            return await main
        except asyncio.CancelledError:
            if received:
                raise Interrupted(received[0]) from None
            raise
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)

    return asyncio.run(runner())


async def _bounded(work: Awaitable[object], seconds: float, what: str) -> None:
    try:
        await asyncio.wait_for(work, seconds)
    except TimeoutError:
        log.warning("%s took longer than %.0f s; going on without waiting", what, seconds)
    except Exception as exc:  # noqa: BLE001 - already stopping: the cleanup after this goes on
        log.warning("%s failed: %s", what, type(exc).__name__)


async def _stop_server(server: EmbeddedNats) -> None:
    """SIGTERM (JetStream flushes its store), SIGKILL if it is not gone within STOP_GRACE."""
    try:
        await asyncio.wait_for(asyncio.shield(server.stop()), STOP_GRACE)
    except TimeoutError:
        await server.kill()


def _kill_workers(runtime: Runtime, before: set[int | None]) -> None:
    """End PDF worker processes now: the renderer's (it starts no new one after this), then any
    other child process multiprocessing started during this run."""
    for service in runtime.services:
        kill = getattr(getattr(service, "pdf", None), "kill", None)
        if kill is not None:
            kill()
    stop_processes(
        [p for p in multiprocessing.active_children() if p.pid not in before], STOP_GRACE
    )


RULES_MARK = "classified-with.json"  # in --data-dir: repository -> the rule set of its last report


def _read_rules_mark(job: ReportJob) -> dict[str, str]:
    assert job.data_dir is not None
    try:
        data = json.loads((job.data_dir / RULES_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_rules_mark(job: ReportJob, rules: str) -> None:
    assert job.data_dir is not None
    marks = {**_read_rules_mark(job), job.repo: rules}
    with contextlib.suppress(OSError):  # only a later run's re-classification depends on it
        (job.data_dir / RULES_MARK).write_text(
            json.dumps(marks, indent=1, sort_keys=True), encoding="utf-8"
        )


async def _reclassify_if_rules_changed(runtime: Runtime, job: ReportJob) -> str | None:
    """A kept `--data-dir` whose log was classified under other rules (a changed profile or
    identities file, README "Identities"): re-classify the repository's history first and wait
    until the summarizer has folded it, so the report is the one a fresh directory would give.
    Returns the rules in use ("profile@version") to record after the report, None when this run
    classifies nothing itself."""
    from services.classifier.reclassify import reclassify
    from services.summarizer.partitioning import fold_backlog

    if not job.run_services or job.data_dir is None:
        return None
    classifier = next(
        (s for s in runtime.services if getattr(s, "name", None) == "classifier"), None
    )
    registry = getattr(classifier, "registry", None)
    if registry is None:
        return None
    ref = registry.for_repo(job.repo).ref
    rules = f"{ref.profile}@{ref.version}"
    before = _read_rules_mark(job).get(job.repo)
    if before is None or before == rules:
        return rules
    result = await reclassify(runtime, job.repo, registry=registry)
    log.warning(
        "the rules changed since the last report over %s (%s -> %s): re-classified %d facts of %s",
        job.data_dir,
        before,
        rules,
        result.facts,
        job.repo,
    )
    deadline = asyncio.get_running_loop().time() + job.timeout
    while True:  # the summarizer folds them before this run's facts and request
        # (every partition's durable: REPODIGEST_SUMMARIZER_PARTITIONS)
        if await fold_backlog(runtime.js, runtime.settings.summarizer_partitions) == 0:
            return rules
        if asyncio.get_running_loop().time() > deadline:
            raise PipelineError(
                f"the summarizer did not fold the re-classified history of {job.repo} "
                f"within {job.timeout:.0f} s; run the report again"
            )
        await asyncio.sleep(0.1)


async def _produce(runtime: Runtime, job: ReportJob) -> ReportOutcome:
    from services.renderer.adapters.stores import fetch_uri

    nc = runtime.nc
    js = runtime.js
    ready_q: asyncio.Queue = asyncio.Queue()
    dead_q: asyncio.Queue = asyncio.Queue()

    async def on_ready(msg) -> None:
        await ready_q.put(msg.data)

    async def on_dead(msg) -> None:
        await dead_q.put(DeadLetter.from_headers(dict(msg.headers or {})))

    sub_ready = await nc.subscribe(Subjects.report_ready(job.repo), cb=on_ready)
    sub_dead = await nc.subscribe("rd.dead.>", cb=on_dead)
    # an embedded server's dead letters are all this data directory's; a deployment's, this run's
    sub_answer = None
    dead_from = (
        1 if job.nats_url is None else (await js.stream_info(STREAM_DEAD)).state.last_seq + 1
    )
    try:
        rules = await _reclassify_if_rules_changed(runtime, job)
        stages = StageProgress(runtime, job)
        await stages.watch()  # the classifier enriches while ingest still publishes
        try:
            result = await _ingest(runtime, job)
        except BaseException:
            await stages.close()
            raise
        check_coverage(job.window, result.source)
        request = ReportRequested.create(
            ReportRequestData(
                repo=job.repo,
                window=WindowRef.of(job.window),
                languages=job.languages,
                formats=job.formats,
                as_of=result.watermark,
                data_note=job.data_note,
                synthetic=job.synthetic,
                requested_by="cli",
                source=result.source,
                appendix=job.appendix,
                force=job.force,
            ),
            nonce=uuid.uuid4().hex,
            at=datetime.now(UTC),
        )

        async def on_answer(msg) -> None:
            await ready_q.put(_Answer(msg.data))

        sub_answer = await nc.subscribe(Subjects.report_answer(request.id), cb=on_answer)
        await runtime.bus("cli").publish(request, Subjects.report_requested(job.repo))
        # facts the stream already held (a re-run on --data-dir) are not classified again
        async with stages.shown(result.facts_published - getattr(result, "duplicates", 0)):
            ready = stages.ready = await _wait_ready(ready_q, dead_q, request.id, job.timeout)
        outcome = ReportOutcome(
            ready=ready,
            facts_published=result.facts_published,
            duplicates=getattr(result, "duplicates", 0),
        )
        # the same layout as in the object store, so the reports' relative links keep working
        target = (
            job.out_dir
            / job.repo.replace("/", "__")
            / ready.data.window.label
            / f"r{ready.data.revision}"
        )
        for art in ready.data.artifacts:
            data = await fetch_uri(art.uri, js)
            path = target / art.language / f"report.{art.format}"
            _write(path, data)
            outcome.files.append((f"{art.format} ({art.language})", path, len(data)))
        _write(
            target / "report-ready.json",
            json.dumps(json.loads(ready.to_bytes()), indent=2, ensure_ascii=False).encode("utf-8"),
        )
        # facts dead-lettered before the watermark that closed the window are in RD_DEAD by now
        lost = await dead_facts(js, job.repo, dead_from)
        if lost:
            raise PipelineError(lost_facts_message(job.repo, lost, target))
        if rules is not None:
            _write_rules_mark(job, rules)
        return outcome
    finally:
        with contextlib.suppress(Exception):
            await sub_ready.unsubscribe()
            await sub_dead.unsubscribe()
            if sub_answer is not None:
                await sub_answer.unsubscribe()


async def _produce_combined(runtime: Runtime, job: ReportJob) -> ReportOutcome:
    """A report across repositories: each repository's report of the window (JSON only, in the
    first language: the model), then their combination, published as the key's window summary
    for the renderer, which announces it with report-ready on the key's subject like any report.

    Its revisions count like a repository's: 1, then a new one whenever the repositories or one
    of their revisions changed; a run over unchanged repositories is answered with the report
    already made (the summary's request id is derived from the repositories and revisions)."""
    import dataclasses

    from services.renderer.adapters.stores import fetch_uri
    from services.summarizer.domain.combined import CombineError, combine, combined_key
    from services.summarizer.domain.report import fit_size
    from shared.events import WindowSummarized

    repos, in_source = list(job.repos), None
    if job.owner_wildcard:
        repos, in_source = await owner_repositories(runtime, job)
    else:
        in_source = await listed_in_log(runtime, job, repos)
    try:
        key = combined_key(repos, whole_owner=job.owner_wildcard is not None)
    except CombineError as exc:
        raise PipelineError(str(exc)) from None
    if len(repos) < 2:
        raise PipelineError(
            f"a report across repositories needs two or more; found "
            f"{', '.join(repos) or 'none'}: ask for the one repository's report instead"
        )
    parts: list[SummaryData] = []
    total = ReportOutcome(ready=None)  # type: ignore[arg-type]  # set below
    for repo in sorted(repos, key=str.lower):
        single = dataclasses.replace(
            job,
            repo=repo,
            repos=(),
            owner_wildcard=None,
            languages=job.languages[:1],
            formats=("json",),
            ingest=in_source is None or repo in in_source,
        )
        done = await _produce(runtime, single)
        total.facts_published += done.facts_published
        total.duplicates += done.duplicates
        art = next(a for a in done.ready.data.artifacts if a.format == "json")
        parts.append(SummaryData.model_validate_json(await fetch_uri(art.uri, runtime.js)))
    from shared.events.envelope import deterministic_id

    label = parts[0].window.label
    request_id = deterministic_id("combined", key, label, *[(p.repo, p.revision) for p in parts])
    try:
        data = combine(
            parts,
            key,
            revision=1,
            generated_at=datetime.now(UTC),
            request_id=request_id,
            languages=job.languages,
            formats=job.formats,
            appendix_mode=job.appendix,
        )
    except CombineError as exc:
        raise PipelineError(str(exc)) from None
    revision, made, same = await _combined_revision(runtime, job, data)
    if made is not None:  # the same repositories and revisions: the report already made
        return await _copy_combined(runtime, job, key, made, total)
    if same:  # ... asked in more formats or languages: another summary of the revision, which
        # the renderer completes (the same summary id again would be de-duplicated by the stream)
        request_id = uuid.uuid4().hex
    data = data.model_copy(update={"revision": revision, "request_id": request_id})
    room = int(getattr(runtime.nc, "max_payload", 0) or 1024 * 1024) - 64 * 1024
    data = await asyncio.to_thread(fit_size, data, room)
    ready_q: asyncio.Queue = asyncio.Queue()
    dead_q: asyncio.Queue = asyncio.Queue()

    async def on_ready(msg) -> None:
        await ready_q.put(msg.data)

    async def on_answer(msg) -> None:
        await ready_q.put(_Answer(msg.data))

    async def on_dead(msg) -> None:
        await dead_q.put(DeadLetter.from_headers(dict(msg.headers or {})))

    subs = [
        await runtime.nc.subscribe(Subjects.report_ready(key), cb=on_ready),
        await runtime.nc.subscribe(Subjects.report_answer(request_id), cb=on_answer),
        await runtime.nc.subscribe("rd.dead.>", cb=on_dead),
    ]
    try:
        await runtime.bus("cli").publish(WindowSummarized.create(data), Subjects.summary_ready(key))
        ready = await _wait_ready(ready_q, dead_q, request_id, job.timeout)
    finally:
        for sub in subs:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
    return await _copy_combined(runtime, job, key, ready, total)


async def _copy_combined(
    runtime: Runtime, job: ReportJob, key: str, ready: ReportReady, total: ReportOutcome
) -> ReportOutcome:
    from services.renderer.adapters.stores import fetch_uri

    total.ready = ready
    target = (
        job.out_dir / key.replace("/", "__") / ready.data.window.label / f"r{ready.data.revision}"
    )
    for art in ready.data.artifacts:
        raw = await fetch_uri(art.uri, runtime.js)
        path = target / art.language / f"report.{art.format}"
        _write(path, raw)
        total.files.append((f"{art.format} ({art.language})", path, len(raw)))
    _write(
        target / "report-ready.json",
        json.dumps(json.loads(ready.to_bytes()), indent=2, ensure_ascii=False).encode("utf-8"),
    )
    return total


async def _combined_revision(
    runtime: Runtime, job: ReportJob, data: SummaryData
) -> tuple[int, ReportReady | None, bool]:
    """The revision of a report across repositories (`data`, whose request id names its
    repositories and their revisions): the latest stored one when it was made from the same (with
    its report-ready when that lists every format and language asked for; True), else the next."""
    import re

    from services.renderer.domain.keys import ENTRY_NAME, artifact_key, component, repo_prefix
    from services.renderer.handlers import READY_NAME
    from services.renderer.ports import ObjectNotFound
    from shared.events import WindowSummarized

    store = _artifact_store(runtime, job)
    label = data.window.label
    prefix = f"{repo_prefix(data.repo)}/{component(label)}/"
    entries: dict[int, list[str]] = {}
    for k in await store.list(prefix):
        m = re.match(r"r(\d+)/([^/]+)/" + re.escape(ENTRY_NAME) + "$", k[len(prefix) :])
        if m:
            entries.setdefault(int(m.group(1)), []).append(k)
    if not entries:
        return 1, None, False
    latest = max(entries)
    ours = WindowSummarized.create(data.model_copy(update={"revision": latest})).id
    same = False
    for k in entries[latest]:
        with contextlib.suppress(ObjectNotFound, ValueError, AttributeError):
            same = same or json.loads(await store.get(k)).get("summary_id") == ours
    if not same:
        return latest + 1, None, False
    wanted = {(f, lang) for lang in job.languages for f in job.formats}
    for lang in job.languages:
        with contextlib.suppress(ObjectNotFound, ValueError):
            ready = ReportReady.model_validate_json(
                await store.get(artifact_key(data.repo, label, latest, lang, READY_NAME))
            )
            if wanted <= {(a.format, a.language) for a in ready.data.artifacts}:
                return latest, ready, True
    return latest, None, True  # the same report asked in more formats or languages


def _artifact_store(runtime: Runtime, job: ReportJob):
    """The object store reports go to: the in-process renderer's, else the configured one."""
    from services.renderer.adapters.stores import open_store
    from services.renderer.config import RendererSettings

    renderer = next((s for s in runtime.services if getattr(s, "name", None) == "renderer"), None)
    store = getattr(renderer, "store", None)
    if store is not None:
        return store
    return open_store(job.artifacts_url or RendererSettings().artifacts_url, runtime.js)


async def owner_repositories(runtime: Runtime, job: ReportJob) -> tuple[list[str], set[str]]:
    """OWNER/*: the owner's repositories — from GitHub for a GitHub source, else those the source
    holds and those the event log already has (a kept --data-dir, a deployment's NATS); and which
    of them the source holds (the others are reported from the log alone)."""
    from services.ingest.handlers import SourceError, owner_repos_in_source

    owner = job.owner_wildcard
    assert owner is not None
    try:
        in_source = set(await owner_repos_in_source(job.source, owner, token=job.github_token))
    except SourceError as exc:
        raise PipelineError(str(exc)) from None
    found = in_source | await repos_in_log(runtime, owner)
    if not found:
        raise PipelineError(
            f"{owner}/* names no repository: the source {job.source} and the event "
            f"log hold none of {owner}'s; check the owner's spelling or the source"
        )
    return sorted(found, key=str.lower), in_source


async def listed_in_log(runtime: Runtime, job: ReportJob, repos: list[str]) -> set[str] | None:
    """For a list: the repositories to ingest from a file source — those it holds; a listed one it
    lacks is reported from the event log when the log holds it (a kept --data-dir), else the run
    stops naming it. None: ingest every one (a GitHub source)."""
    from services.ingest.adapters.files import repos_in_source
    from services.ingest.domain.sources import SourceError, parse_source_spec

    try:
        spec = parse_source_spec(job.source)
        if spec.kind in ("github", "github-graphql"):
            return None
        held = {r.lower() for r in await asyncio.to_thread(repos_in_source, spec)}
    except SourceError as exc:
        raise PipelineError(str(exc)) from None
    in_source = {r for r in repos if r.lower() in held}
    lacking = [r for r in repos if r not in in_source]
    logged = set()
    for owner in {r.split("/", 1)[0] for r in lacking}:
        logged |= {r.lower() for r in await repos_in_log(runtime, owner)}
    missing = [r for r in lacking if r.lower() not in logged]
    if missing:
        raise PipelineError(
            f"{', '.join(missing)}: neither the source {job.source} nor the event "
            "log holds facts of it; name a source that does, or keep the log of an "
            "earlier report with --data-dir"
        )
    return in_source


async def repos_in_log(runtime: Runtime, owner: str) -> set[str]:
    """The repositories of `owner` the event log (RD_GITHUB) holds facts of."""
    from nats.js.errors import NotFoundError

    from shared.messaging import STREAM_GITHUB
    from shared.messaging.subjects import token

    try:
        info = await runtime.js.stream_info(STREAM_GITHUB, subjects_filter="rd.github.>")
    except NotFoundError:
        return set()
    prefix = token(owner).lower()
    found = set()
    for subject in info.state.subjects or {}:
        tokens = subject.split(".")
        if len(tokens) >= 4 and tokens[-2].lower() == prefix:
            with contextlib.suppress(ValueError, IndexError):
                found.add(repo_from_subject(subject))
    return found


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:  # read-only, full, a file where a directory should be
        raise PipelineError(
            f"cannot write the report to {path}: {exc.strerror or exc}; choose another --out"
        ) from None


async def dead_facts(js, repo: str, first_seq: int) -> list[DeadLetter]:
    """Dead letters of `repo`'s facts (raw or enriched, watermarks too) in RD_DEAD from
    `first_seq` on: what a report of the repository lacks."""
    from nats.js.errors import NotFoundError

    last = (await js.stream_info(STREAM_DEAD)).state.last_seq
    letters = []
    for seq in range(max(1, first_seq), last + 1):
        try:
            msg = await js.get_msg(STREAM_DEAD, seq)
        except NotFoundError:  # aged out or purged
            continue
        letter = DeadLetter.from_headers(dict(msg.headers or {}))
        if (
            letter.subject.startswith(("rd.github.", "rd.enriched."))
            and letter.subject.count(".") >= 3
            and repo_from_subject(letter.subject) == repo
        ):
            letters.append(letter)
    return letters


def lost_facts_message(repo: str, letters: list[DeadLetter], target: Path) -> str:
    """One line: how many facts were dead-lettered, by which service and why (a few reasons)."""
    by_service: dict[str, list[str]] = {}
    for letter in letters:
        by_service.setdefault(letter.service, []).append(letter.reason)
    parts = []
    for service, reasons in sorted(by_service.items()):
        shown = "; ".join(dict.fromkeys(r[:200] for r in reasons[:3]))
        parts.append(
            f"{len(reasons)} by the {service} ({shown}{'; ...' if len(reasons) > 3 else ''})"
        )
    n = len(letters)
    return (
        f"{n} fact{'s' if n != 1 else ''} of {repo} could not be processed and "
        f"{'are' if n != 1 else 'is'} missing from the report written to {target}: "
        + ", ".join(parts)
        + f". They are kept in the {STREAM_DEAD} stream with these reasons "
        "and their original bytes; fix the source and run the report again"
    )


def check_coverage(window: Window, source: SourceInfo | None) -> None:
    """A window wholly outside the span a file source covers has nothing to report: say which
    span the source covers instead of printing a report of zeros."""
    if source is None or source.coverage_start is None or source.coverage_end is None:
        return
    if window.end <= source.coverage_start or window.start > source.coverage_end:
        what = (
            f"{source.kind} source {source.name}".strip()
            if source.name
            else f"{source.kind} source"
        )
        raise PipelineError(
            f"the {window.kind} {window.label} ({window.start:%Y-%m-%d %H:%M} to "
            f"{window.end:%Y-%m-%d %H:%M} UTC) lies outside what the {what} covers: "
            f"{source.coverage_start:%Y-%m-%d %H:%M} to {source.coverage_end:%Y-%m-%d %H:%M} UTC; "
            "pick a window inside that span"
        )


class StageProgress:
    """After the ingest bar, a bar per stage on stderr while the services work: classify N/N
    (enriched facts of the repository), fold N/N (the summarizer's consumer of them), summarize,
    then render per format and language (each artifact as the object store receives it)."""

    poll_interval = 0.25  # seconds between reads of the summarizer consumer's position

    def __init__(self, runtime: Runtime, job: ReportJob) -> None:
        self.runtime, self.job = runtime, job
        self.enabled = job.progress
        self.facts = 0
        self.progress: Any = None
        self._subs: list = []
        self._poll: asyncio.Task | None = None
        self.classified = 0
        self.summarized = False
        self.rendered: set[tuple[str, str]] = set()
        self.ready: ReportReady | None = None  # set when report-ready came

    async def watch(self) -> None:
        """Subscribe before ingest: what the services announce is counted from the start."""
        if not self.enabled:
            return
        from shared.messaging import OBJECT_BUCKET

        job = self.job
        where = f"/{job.repo}/{job.window.label}/"  # object keys: [prefix/]OWNER/NAME/WINDOW/rN/LANG/report.FMT
        nc = self.runtime.nc

        async def on_enriched(msg) -> None:
            self.classified += 1
            self._update()

        async def on_summary(msg) -> None:
            self.summarized = True
            self._update()

        async def on_object(msg) -> None:  # the object store's meta message of a stored object
            try:
                name = str(json.loads(msg.data).get("name") or "")
            except (ValueError, AttributeError):
                return
            parts = name.split("/")
            if where in f"/{name}" and len(parts) >= 2 and parts[-1].startswith("report."):
                self.rendered.add((parts[-1].removeprefix("report."), parts[-2]))
                self._update()

        self._subs = [
            await nc.subscribe(Subjects.enriched("*", "*", job.repo), cb=on_enriched),
            await nc.subscribe(Subjects.summary_ready(job.repo), cb=on_summary),
            await nc.subscribe(f"$O.{OBJECT_BUCKET}.M.>", cb=on_object),
        ]

    def _update(self, folded: int | None = None) -> None:
        if self.progress is None:
            return
        p = self.progress
        classified = min(self.classified, self.facts) if self.facts else self.classified
        p.update(self.classify, completed=classified)
        if self.summarized:
            folded = self.facts  # the summary comes after the window's facts were folded
        if folded is not None and folded > p.tasks[self.fold].completed:
            p.update(self.fold, completed=folded)
        p.update(self.summarize, completed=int(self.summarized))
        for key, task in self.render.items():
            p.update(task, completed=int(key in self.rendered))

    @contextlib.asynccontextmanager
    async def shown(self, facts: int):
        """The bars, from the end of ingest until report-ready (or failure)."""
        if not self.enabled:
            yield self
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.facts = max(0, facts)
        job = self.job
        p = self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<22}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self.classify = p.add_task("classify", total=self.facts or None)
        self.fold = p.add_task("fold", total=self.facts or None)
        self.summarize = p.add_task("summarize", total=1)
        self.render = {
            (fmt, lang): p.add_task(f"render {fmt} ({lang})", total=1)
            for lang in job.languages
            for fmt in job.formats
        }
        self._update()
        p.start()
        self._poll = asyncio.create_task(self._poll_fold())
        try:
            yield self
        finally:
            await self.close()

    async def _poll_fold(self) -> None:
        """Folded = classified - what the summarizer's consumers (one per partition) have still
        to acknowledge."""
        from services.summarizer.partitioning import fold_backlog

        js, count = self.runtime.js, self.runtime.settings.summarizer_partitions
        while True:
            try:
                left = await fold_backlog(js, count)
            except Exception:  # noqa: BLE001 - a progress bar that lags; the run goes on
                pass
            else:
                classified = min(self.classified, self.facts) if self.facts else self.classified
                self._update(max(0, classified - left))
            await asyncio.sleep(self.poll_interval)

    async def close(self) -> None:
        from shared.tasks import cancel_and_wait

        await cancel_and_wait(self._poll)
        self._poll = None
        with contextlib.suppress(Exception):
            await self.runtime.nc.flush()
        for sub in self._subs:  # what arrived before report-ready is counted first
            with contextlib.suppress(Exception):
                await sub.drain()
        self._subs = []
        if self.progress is None:
            return
        if self.ready is not None:
            if (self.job.artifacts_url or "nats").split(":")[0] != "nats":
                # S3 or a directory: no object-store message to follow; report-ready lists them
                self.rendered |= {(a.format, a.language) for a in self.ready.data.artifacts}
            self._update()
            for task in self.progress.tasks:  # nothing new to classify or fold: 0/0
                if task.total is None:
                    self.progress.update(task.id, total=task.completed)
        self.progress.stop()
        self.progress = None


async def _ingest(runtime: Runtime, job: ReportJob):
    """Publish the job's source; source and GitHub errors become PipelineErrors."""
    from services.ingest.config import IngestSettings
    from services.ingest.handlers import IngestResult, SourceError, ingest_source

    if not job.ingest:
        return IngestResult(repo=job.repo, origin="log")
    try:
        with service_context("ingest"):  # its spans are ingest's (service.name repodigest-ingest)
            return await ingest_source(
                runtime.bus("ingest"),
                job.source,
                job.repo,
                window=job.window,
                progress=job.progress,
                token=job.github_token,
                github_api_url=IngestSettings().github_api_url,
            )
    except SourceError as exc:
        raise PipelineError(str(exc)) from None


async def _wait_ready(
    ready_q: asyncio.Queue, dead_q: asyncio.Queue, request_id: str, timeout: float
) -> ReportReady:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise PipelineError(
                f"no report after {timeout:.0f}s; run with --log-level DEBUG to see which service "
                "is stuck, or raise --timeout for very large windows"
            )
        get_ready = asyncio.ensure_future(ready_q.get())
        get_dead = asyncio.ensure_future(dead_q.get())
        done, pending = await asyncio.wait(
            {get_ready, get_dead}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
        )
        for task in pending:
            task.cancel()
        if get_dead in done:
            letter: DeadLetter = get_dead.result()
            if letter.subject.startswith(("rd.summary.", "rd.report.")):
                raise PipelineError(
                    f"the {letter.service} could not process {letter.subject}: {letter.reason}"
                )
            # a fact: the report goes on without it, and the run then fails naming what it lacks
            log.warning("a fact was dead-lettered by the %s: %s", letter.service, letter.reason)
        if get_ready in done:
            raw = get_ready.result()
            ready = ReportReady.model_validate_json(raw)
            if isinstance(raw, _Answer) or ready.data.request_id == request_id:
                return ready
