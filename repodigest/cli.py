"""`repodigest`: one-shot reports, the offline demo, per-service commands, subscribe and fetch."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from shared.events import ALL_FORMATS, check_repo
from shared.telemetry import setup_logging, setup_telemetry
from shared.windows import WindowError, parse_window

if TYPE_CHECKING:
    from repodigest.pipeline import ReportJob

# add_completion: Typer's own --install-completion / --show-completion (bash, zsh, fish, PowerShell)
app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Daily and weekly development reports for busy GitHub repositories.",
)
err = Console(stderr=True)
out = Console()

DEMO_REPO = "repodigest-demo/llm-serve"
DEMO_WEEK = "2026-W24"
LANGS = ("en", "zh-CN")


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def _langs(values: list[str]) -> tuple[str, ...]:
    result = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if part.lower() in {"zh", "zh-cn", "cn"}:
                part = "zh-CN"
            if part not in LANGS:
                raise fail(f"unknown language {part!r}; choose from {', '.join(LANGS)}")
            if part not in result:
                result.append(part)
    return tuple(result or ["en"])


def _formats(value: str) -> tuple[str, ...]:
    parts = tuple(p.strip().lower() for p in value.split(",") if p.strip())
    bad = [p for p in parts if p not in ALL_FORMATS]
    if bad or not parts:
        raise fail(
            f"unknown format(s) {', '.join(bad) or value!r}; choose from {', '.join(ALL_FORMATS)}"
        )
    return parts


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("repodigest")
        except PackageNotFoundError:  # run from a checkout that was never installed
            number = "unknown (not installed)"
        out.print(f"repodigest {number}", highlight=False)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="print the version and exit"
        ),
    ] = None,
) -> None:
    """Daily and weekly development reports for busy GitHub repositories."""


def _logging(level: str) -> None:
    setup_logging(level)
    setup_telemetry("repodigest-cli")


@app.command()
def report(
    repo: Annotated[
        str,
        typer.Argument(
            help="OWNER/NAME, e.g. vllm-project/vllm; or one report across repositories of one owner: OWNER/A,OWNER/B or OWNER/* (the owner's repositories on GitHub, or those the source and the event log hold)"
        ),
    ],
    window: Annotated[
        str,
        typer.Option(
            "--window",
            "-w",
            help="day:2026-03-26 | week:2026-W24 | month:2026-06 | custom:START/END | day:last, week:last, month:last (the last complete one)",
        ),
    ],
    tz: Annotated[str, typer.Option(help="IANA time zone of the window")] = "UTC",
    cutoff: Annotated[
        str | None, typer.Option(help="day windows: the cut-off HH:MM (e.g. 11:45; default 00:00)")
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            help="github (default with a token) | github-graphql (faster backfill) | demo | replay:PATH | events:PATH | gharchive:PATH-or-glob | git:PATH"
        ),
    ] = None,
    lang: Annotated[
        list[str], typer.Option("--lang", "-l", help="en and/or zh-CN (repeat or comma-separate)")
    ] = ["en"],  # noqa: B006 - typer's default, never mutated
    formats: Annotated[
        str, typer.Option("--formats", help="comma-separated: md,html,pdf,json")
    ] = ",".join(ALL_FORMATS),
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="where to copy the artifacts")
    ] = Path("reports"),
    nats_url: Annotated[
        str | None,
        typer.Option(
            envvar="REPODIGEST_NATS_URL",
            help="use this NATS (JetStream) instead of an embedded server",
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            help="keep the event log and projections here between runs (default: a temporary directory)"
        ),
    ] = None,
    database_url: Annotated[
        str | None,
        typer.Option(
            envvar="REPODIGEST_DATABASE_URL", help="projections database (SQLite file by default)"
        ),
    ] = None,
    artifacts: Annotated[
        str | None,
        typer.Option(
            envvar="REPODIGEST_ARTIFACTS_URL", help="nats | s3://bucket/prefix | file:///dir"
        ),
    ] = None,
    profile: Annotated[
        str | None, typer.Option(help="classifier rule profile (default: chosen by repository)")
    ] = None,
    timeout: Annotated[float, typer.Option(help="seconds to wait for the report")] = 900.0,
    run_services: Annotated[
        bool | None,
        typer.Option(
            "--run-services/--no-run-services",
            help="run classifier, summarizer and renderer in this process (default: only with the embedded nats-server)",
        ),
    ] = None,
    appendix: Annotated[
        str,
        typer.Option(
            help="the item lists at the end: full | compact (collapsed in HTML, a dense table in the PDF) | none"
        ),
    ] = "compact",
    log_level: Annotated[str, typer.Option(envvar="REPODIGEST_LOG_LEVEL")] = "WARNING",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bars")] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="make the next revision even when the window is unchanged (else the revision already reported is returned)",
        ),
    ] = False,
    identities: Annotated[
        Path | None,
        typer.Option(
            envvar="REPODIGEST_IDENTITIES",
            help="identities file (YAML): one person's logins, commit names and e-mails, and their affiliations by date",
        ),
    ] = None,
) -> None:
    """Build one report for REPO and WINDOW end to end, and print where the artifacts are."""
    _logging(log_level)
    from repodigest.checks import report_argument_problem, source_problem

    repo, members, wildcard = _report_repos(repo)
    try:
        win = parse_window(window, tz, cutoff or "00:00")
    except WindowError as exc:
        raise fail(str(exc)) from None
    if cutoff is not None and win.kind != "day":
        raise fail(
            f"--cutoff applies to day windows only; a {win.kind} window starts at 00:00 "
            f"in --tz: drop --cutoff, or ask for --window day:YYYY-MM-DD --cutoff {cutoff}"
        )
    langs, fmts = _langs(lang), _formats(formats)
    if appendix not in APPENDIX_MODES:
        raise fail(f"unknown --appendix {appendix!r}; choose from {', '.join(APPENDIX_MODES)}")
    problem = next(
        filter(None, (source_problem(source, r) for r in members or (repo,))), None
    ) or report_argument_problem(
        out_dir=out_dir, data_dir=data_dir, timeout=timeout, database_url=database_url
    )
    if problem:
        raise fail(problem)
    if identities is not None:  # read now: a bad file is named before anything runs
        from services.classifier.adapters.profiles import read_identities
        from services.classifier.domain.identities import IdentityError

        try:
            read_identities(identities)
        except IdentityError as exc:
            raise fail(f"--identities: {exc}") from None
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("REPODIGEST_GITHUB_TOKEN")
    if source is None:
        if not token:
            raise fail(
                "no data source: set GITHUB_TOKEN to read from GitHub, or pass "
                "--source demo | replay:PATH | events:PATH | gharchive:PATH | git:PATH"
            )
        source = "github"
    from repodigest.pipeline import ReportJob

    # the report names its source by kind and file name (the summary's SourceInfo), never a path
    _run_report(
        ReportJob(
            repo=repo,
            window=win,
            source=source,
            languages=langs,
            formats=fmts,
            out_dir=out_dir,
            nats_url=nats_url,
            data_dir=data_dir,
            database_url=database_url,
            artifacts_url=artifacts,
            timeout=timeout,
            progress=not quiet,
            synthetic=source == "demo",
            github_token=token,
            profile=profile,
            run_services=run_services,
            appendix=appendix,
            force=force,
            identities=identities,
            repos=members,
            owner_wildcard=wildcard,
        )
    )


def _report_repos(arg: str) -> tuple[str, tuple[str, ...], str | None]:
    """`report`'s REPO: (the report's repository or key, the repositories of a report across
    them, the owner of OWNER/*); a bad name ends the command naming it."""
    from services.summarizer.domain.combined import ALL_MARK, CombineError, combined_key

    arg = arg.strip()
    try:
        if arg.endswith("/*"):
            owner = arg[:-2]
            check_repo(f"{owner}/x")  # the owner as GitHub spells owners
            return f"{owner}/{ALL_MARK}", (), owner
        if "," not in arg:
            return check_repo(arg), (), None
        members = tuple(dict.fromkeys(check_repo(p.strip()) for p in arg.split(",") if p.strip()))
        if len(members) < 2:
            raise ValueError(
                f"{arg!r} names one repository: drop the comma, or list two or more "
                "(OWNER/A,OWNER/B)"
            )
        return combined_key(members), members, None
    except (ValueError, CombineError) as exc:
        raise fail(str(exc)) from None


APPENDIX_MODES = ("full", "compact", "none")


def _run_report(job: ReportJob) -> None:
    """Run one report (the options: `job`) and print where its artifacts are; what a person must
    fix ends the command with a one-line message."""
    from repodigest.pipeline import Interrupted, PipelineError, run_interruptible, run_report
    from services.classifier.domain.rules import ProfileError
    from services.summarizer.adapters.store import StoreError
    from shared.bootstrap import SettingsProblem
    from shared.messaging import PartitionMismatch
    from shared.natsserver import NatsServerError
    from shared.service import NatsUnreachable

    repo, nats_url = job.repo, job.nats_url
    try:
        outcome = run_interruptible(run_report(job))
    except SettingsProblem as exc:  # REPODIGEST_* settings a service cannot work with
        raise fail(str(exc), 1) from None
    except NatsUnreachable as exc:
        text = str(exc)
        if nats_url is not None and text.startswith("cannot reach NATS"):
            text += ", or leave both unset for `report` to start an embedded nats-server"
        raise fail(text, 1) from None
    except (PipelineError, NatsServerError) as exc:
        raise fail(str(exc), 1) from None
    except PartitionMismatch as exc:  # the deployment's streams are partitioned otherwise
        raise fail(str(exc), 1) from None
    except ProfileError as exc:  # --profile (or REPODIGEST_PROFILE_OVERRIDES) names no profile
        raise fail(f"--profile: {exc}") from None
    except StoreError as exc:  # the projections database cannot be used (unreachable, read-only)
        raise fail(str(exc), 1) from None
    except Interrupted as exc:  # cleaned up; 130 for SIGINT, 143 for SIGTERM, as shells do
        err.print(f"interrupted ({exc}): stopped and cleaned up", highlight=False)
        raise typer.Exit(128 + exc.signum) from None
    data = outcome.ready.data
    out.print(
        f"[bold]{repo}[/] {data.window.kind} {data.window.label} ({data.window.tz}), "
        f"revision {data.revision}: {outcome.facts_published} facts ingested",
        highlight=False,
    )
    for name, path, size in outcome.files:
        out.print(f"  {name:<13} {size:>10,} B  {path}", highlight=False, soft_wrap=True)
    if nats_url is not None or job.data_dir is not None or job.artifacts_url is not None:
        out.print("in the object store:", highlight=False)
        for art in data.artifacts:
            out.print(f"  {art.uri}  sha256:{art.sha256}", highlight=False, soft_wrap=True)


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", "-o")] = Path("reports/demo"),
    lang: Annotated[list[str], typer.Option("--lang", "-l")] = ["en", "zh-CN"],  # noqa: B006 - typer's default, never mutated
    week: Annotated[str, typer.Option(help="ISO week the synthetic data covers")] = DEMO_WEEK,
    log_level: Annotated[str, typer.Option(envvar="REPODIGEST_LOG_LEVEL")] = "WARNING",
) -> None:
    """Offline demo: a report from a seeded synthetic week (says so in the report)."""
    _logging(log_level)
    try:
        win = parse_window(f"week:{week}", "UTC")
    except WindowError as exc:
        raise fail(str(exc)) from None
    from repodigest.checks import directory_problem

    problem = directory_problem(out_dir, "--out")
    if problem:
        raise fail(problem)
    from repodigest.pipeline import ReportJob

    _run_report(
        ReportJob(
            repo=DEMO_REPO,
            window=win,
            source="demo",
            languages=_langs(lang),
            formats=ALL_FORMATS,
            out_dir=out_dir,
            timeout=900.0,
            progress=True,
            synthetic=True,
        )
    )


@app.command()
def classify(
    source: Annotated[str, typer.Argument(help="JSON lines file, or - for standard input")] = "-",
    profile: Annotated[
        str, typer.Option(help="rule profile name or YAML file (generic, vllm, vllm-ascend, ...)")
    ] = "generic",
    explain: Annotated[
        bool, typer.Option(help="print for a person: every tag and the rule that fired")
    ] = False,
) -> None:
    """Classify items ({number, title, body?, labels?, author?, files?}) and print their tags."""
    from services.classifier.cli import classify_command

    raise typer.Exit(classify_command(profile, source, explain))


@app.command()
def reclassify(
    repo: Annotated[
        str | None, typer.Option("--repo", help="only this OWNER/NAME (default: every repository)")
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="only facts from this date or ISO time on")
    ] = None,
    profile: Annotated[
        str | None, typer.Option(help="profile name or YAML file for every repository")
    ] = None,
    nats_url: Annotated[str, typer.Option(envvar="REPODIGEST_NATS_URL")] = "nats://127.0.0.1:4222",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
) -> None:
    """Replay history through the current rules; changed windows get a new revision.

    Reload the running classifiers first (`repodigest classifier-reload`) so that new facts and
    the replay use the same rules.
    """
    from services.classifier.cli import reclassify_command

    raise typer.Exit(reclassify_command(nats_url, repo, since, profile, progress=not quiet))


@app.command()
def identities(
    repo: Annotated[
        str | None,
        typer.Argument(
            help="OWNER/NAME (default: the source's repository, or every repository in the log)"
        ),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            help="read the facts of a source: replay:PATH | events:PATH | gharchive:PATH | git:PATH | demo"
        ),
    ] = None,
    identities_file: Annotated[
        Path | None,
        typer.Option(
            "--identities",
            envvar="REPODIGEST_IDENTITIES",
            help="the identities file in use: what it merges is not listed again, and --starter keeps its people",
        ),
    ] = None,
    starter: Annotated[
        bool,
        typer.Option(
            "--starter",
            help="print a starter identities file (YAML): the data's links as people, the look-alikes commented out",
        ),
    ] = False,
    nats_url: Annotated[
        str | None,
        typer.Option(
            envvar="REPODIGEST_NATS_URL", help="read the event log (RD_GITHUB) of this NATS"
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="read the event log a `repodigest report --data-dir DIR` kept"),
    ] = None,
) -> None:
    """List who may be one person: commit names the data links to a login (a noreply address),
    and look-alikes (the same name or e-mail local part under different logins or names) to
    confirm in the identities file."""
    from repodigest.identities import identities_command

    raise typer.Exit(
        identities_command(
            repo,
            source=source,
            identities=identities_file,
            starter=starter,
            nats_url=nats_url,
            data_dir=data_dir,
        )
    )


@app.command("classifier-reload")
def classifier_reload(
    nats_url: Annotated[str, typer.Option(envvar="REPODIGEST_NATS_URL")] = "nats://127.0.0.1:4222",
    timeout: Annotated[float, typer.Option(help="seconds to wait for the answers")] = 10.0,
    replicas: Annotated[
        int, typer.Option(help="answers to wait for (one per classifier replica)")
    ] = 1,
) -> None:
    """Ask running classifiers to re-read their rule files; a broken file keeps the old rules."""
    from services.classifier.cli import reload_command

    raise typer.Exit(reload_command(nats_url, timeout, replicas))


@app.command()
def rebuild(
    repo: Annotated[
        str | None, typer.Option("--repo", help="only this OWNER/NAME (default: all)")
    ] = None,
    nats_url: Annotated[str, typer.Option(envvar="REPODIGEST_NATS_URL")] = "nats://127.0.0.1:4222",
    database_url: Annotated[
        str, typer.Option(envvar="REPODIGEST_DATABASE_URL")
    ] = "sqlite:///./repodigest.db",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    log_level: Annotated[str, typer.Option(envvar="REPODIGEST_LOG_LEVEL")] = "WARNING",
) -> None:
    """Drop the summarizer's projections and replay RD_ENRICHED (stop the summarizer first)."""
    from services.summarizer.rebuild import rebuild_command

    _logging(log_level)
    raise typer.Exit(rebuild_command(nats_url, database_url, repo, progress=not quiet))


@app.command()
def partitions(
    set_count: Annotated[
        int | None,
        typer.Option(
            "--set",
            help="change the summarizer partition count (refused until every partition is "
            "drained: stop ingest and the classifier, let the summarizers finish, stop them)",
        ),
    ] = None,
    repo: Annotated[
        list[str], typer.Option("--repo", help="OWNER/NAME: say which partition folds it")
    ] = [],  # noqa: B006 - typer's default, never mutated
    nats_url: Annotated[str, typer.Option(envvar="REPODIGEST_NATS_URL")] = "nats://127.0.0.1:4222",
) -> None:
    """The summarizer's partitions: the count, each partition's durables and lag; or --set N."""
    from services.summarizer.partitioning import partitions_command

    raise typer.Exit(partitions_command(nats_url, set_count, repo))


@app.command()
def serve(
    services: Annotated[
        list[str],
        typer.Argument(
            help="ingest classifier summarizer renderer notifier, or all; or web (the report archive, read-only)"
        ),
    ] = ["all"],  # noqa: B006 - typer's default, never mutated
    log_level: Annotated[str, typer.Option(envvar="REPODIGEST_LOG_LEVEL")] = "INFO",
) -> None:
    """Run services against REPODIGEST_NATS_URL until SIGTERM (what deployments run)."""
    from rich.markup import escape

    if "web" in services:
        if services != ["web"]:
            raise fail(
                "serve web runs alone (it is no service on the bus): start it in a "
                "process of its own, e.g. `repodigest serve web`"
            )
        from repodigest.site import web_command

        setup_logging(log_level)
        raise typer.Exit(web_command())
    from repodigest.serving import ServeError, serve_services

    try:
        serve_services(services, log_level)
    except ServeError as exc:
        raise fail(escape(str(exc)), exc.code) from None


@app.command()
def asyncapi(
    write: Annotated[bool, typer.Option("--write", help="regenerate docs/asyncapi.json")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="exit 1 when docs/asyncapi.json is out of date")
    ] = False,
) -> None:
    """Print the AsyncAPI document of every service (subjects, durables, payloads), from the
    contracts the services declare to FastStream."""
    from services.asyncapi import main

    raise typer.Exit(main((["--write"] if write else []) + (["--check"] if check else [])))


async def _connect(nats_url: str):
    """NATS for subscribe and fetch: the services' credential settings (REPODIGEST_NATS_USER /
    _PASSWORD / _TOKEN), a one-line error with the URL redacted."""
    from shared.config import CommonSettings
    from shared.natsclient import connect
    from shared.service import NatsUnreachable

    try:
        return await connect(CommonSettings(nats_url=nats_url))
    except NatsUnreachable as exc:
        raise fail(str(exc), 1) from None


@app.command()
def site(
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="directory to write the archive into (publishable as is, e.g. on GitHub Pages)",
        ),
    ],
    artifacts: Annotated[
        str | None,
        typer.Option(
            envvar="REPODIGEST_ARTIFACTS_URL",
            help="the renderer's store: nats | s3://bucket/prefix | file:///dir",
        ),
    ] = None,
    nats_url: Annotated[
        str | None, typer.Option(envvar="REPODIGEST_NATS_URL", help="NATS of the nats store")
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="the --data-dir of `repodigest report` runs (their embedded store)"),
    ] = None,
    log_level: Annotated[str, typer.Option(envvar="REPODIGEST_LOG_LEVEL")] = "WARNING",
) -> None:
    """Export the report archive (pages in English and Chinese, every revision's artifacts) to a
    directory with relative links only."""
    from repodigest.checks import directory_problem
    from repodigest.site import site_command

    problem = directory_problem(out_dir, "--out") or (
        directory_problem(data_dir, "--data-dir") if data_dir is not None else None
    )
    if problem:
        raise fail(problem)
    _logging(log_level)
    raise typer.Exit(site_command(out_dir, artifacts, nats_url, data_dir))


@app.command()
def subscribe(
    repo: Annotated[
        str | None, typer.Argument(help="OWNER/NAME (default: every repository)")
    ] = None,
    nats_url: Annotated[str, typer.Option(envvar="REPODIGEST_NATS_URL")] = "nats://127.0.0.1:4222",
    count: Annotated[
        int, typer.Option(help="exit after this many events (0: run until Ctrl-C)")
    ] = 0,
    history: Annotated[bool, typer.Option(help="print earlier report-ready events first")] = False,
) -> None:
    """Print report-ready events as they arrive, one JSON line each."""
    import nats
    import nats.errors
    from nats.js.api import DeliverPolicy

    from shared.messaging import STREAM_REPORTS, Subjects
    from shared.service import redact_url

    if repo:
        try:
            check_repo(repo)
        except ValueError as exc:
            raise fail(str(exc)) from None

    async def main() -> None:
        nc = await _connect(nats_url)
        js = nc.jetstream()
        seen = 0
        policy = DeliverPolicy.ALL if history else DeliverPolicy.NEW
        try:
            sub = await js.subscribe(
                Subjects.report_ready(repo), ordered_consumer=True, deliver_policy=policy
            )
        except nats.errors.Error as exc:
            await nc.close()
            from nats.js.errors import NotFoundError, ServiceUnavailableError

            where = redact_url(nats_url)
            if isinstance(exc, ServiceUnavailableError):
                why = (
                    "JetStream is not enabled on that server: start nats-server with -js "
                    "(or point --nats-url at repodigest's NATS)"
                )
            elif isinstance(exc, NotFoundError):
                why = (
                    f"it has no {STREAM_REPORTS} stream yet: start the services against it "
                    "(`repodigest serve all`), which create the streams, or point --nats-url "
                    "at repodigest's NATS"
                )
            else:
                why = (
                    f"{type(exc).__name__}: is JetStream enabled, and have the services "
                    "created their streams?"
                )
            raise fail(f"cannot subscribe to report-ready events at {where}: {why}", 1) from None
        lost = fail(
            f"lost the connection to NATS at {redact_url(nats_url)} (the server stopped or "
            "the network dropped); run subscribe again, with --history to print the "
            "events missed meanwhile",
            1,
        )
        try:
            while not (count and seen >= count):
                try:
                    msg = await sub.next_msg(timeout=1.0)
                except nats.errors.TimeoutError:
                    if nc.is_closed:  # nats-py gave up reconnecting
                        raise lost from None
                    continue
                except nats.errors.ConnectionClosedError:
                    raise lost from None
                sys.stdout.write(msg.data.decode() + "\n")
                sys.stdout.flush()
                seen += 1
        finally:
            try:
                await nc.drain()
            except nats.errors.Error:  # closed, or reconnecting: nothing to drain
                with contextlib.suppress(Exception):
                    await nc.close()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass


@app.command()
def fetch(
    uri: Annotated[
        str, typer.Argument(help="an artifact URI from report-ready (nats://, s3://, file://)")
    ],
    output: Annotated[
        Path | None, typer.Option("--out", "-o", help="file to write (default: stdout)")
    ] = None,
    nats_url: Annotated[str, typer.Option(envvar="REPODIGEST_NATS_URL")] = "nats://127.0.0.1:4222",
) -> None:
    """Download one artifact."""
    from repodigest.checks import output_file_problem
    from services.renderer.adapters.stores import fetch_uri
    from services.renderer.ports import ObjectNotFound

    if uri.partition("://")[0] not in ("nats", "s3", "file") or "://" not in uri:
        raise fail(
            f"{uri!r} is not an artifact URI: pass one from a report-ready event or the "
            "report's output, e.g. nats://RD_ARTIFACTS/OWNER__NAME/2026-W24/r1/en/report.pdf, "
            "s3://BUCKET/KEY or file:///PATH"
        )
    problem = output_file_problem(output, "--out") if output is not None else None
    if problem:  # before the download, not after it
        raise fail(problem)

    async def main() -> bytes:
        nc = await _connect(nats_url) if uri.startswith("nats://") else None
        try:
            return await fetch_uri(uri, nc.jetstream() if nc else None)
        finally:
            if nc is not None:
                await nc.drain()

    try:
        data = asyncio.run(main())
    except (ObjectNotFound, FileNotFoundError) as exc:
        raise fail(f"{uri} does not exist ({exc.args[0] if exc.args else exc})", 1) from None
    except ValueError as exc:  # the store's own message names the URI
        text = str(exc)
        raise fail(
            text if text.startswith("cannot fetch") else f"cannot fetch {uri}: {text}", 1
        ) from None
    except IsADirectoryError:
        raise fail(
            f"{uri} is a directory; fetch one artifact (a report.<format> file)", 1
        ) from None
    except OSError as exc:
        raise fail(f"cannot read {uri}: {exc.strerror or exc}", 1) from None
    if output is None:
        sys.stdout.buffer.write(data)
    else:
        try:
            output.expanduser().parent.mkdir(parents=True, exist_ok=True)
            output.expanduser().write_bytes(data)
        except IsADirectoryError:
            raise fail(
                f"--out {output} is a directory; name the file to write, e.g. "
                f"{output / 'report.pdf'}"
            ) from None
        except OSError as exc:
            raise fail(f"cannot write {output}: {exc.strerror or exc}", 1) from None
        err.print(f"wrote {len(data):,} bytes to {output}")


# ---------------------------------------------------------------- the projections database

db_app = typer.Typer(
    no_args_is_help=True,
    help="The summarizer's projections database: its "
    "schema revision, migrations, and read-only audit views.",
)
app.add_typer(db_app, name="db")

DatabaseUrl = Annotated[
    str,
    typer.Option(
        "--database-url", envvar="REPODIGEST_DATABASE_URL", help="the summarizer's database"
    ),
]
DEFAULT_DATABASE_URL = "sqlite:///./repodigest.db"  # the summarizer's default
NOT_AT_HEAD = 3  # `db current`: reachable, but not at this version's revision


def _store(database_url: str):
    from repodigest.checks import database_problem
    from services.summarizer.adapters.store import SqlProjections

    problem = database_problem(database_url)
    if problem:
        raise fail(problem)
    return SqlProjections(database_url)


@db_app.command("upgrade")
def db_upgrade(
    revision: Annotated[
        str,
        typer.Option("--revision", "-r", help="the revision to upgrade to (default: the newest)"),
    ] = "head",
    database_url: DatabaseUrl = DEFAULT_DATABASE_URL,
    log_level: Annotated[str, typer.Option(envvar="REPODIGEST_LOG_LEVEL")] = "INFO",
) -> None:
    """Run the schema migrations (Alembic), e.g. as a Job before the summarizer starts."""
    from services.summarizer.adapters.store import StoreError, head_revision, redacted

    setup_logging(log_level)  # Alembic logs each migration it runs
    store = _store(database_url)
    try:
        before, after = store.migrate(revision)
    except StoreError as exc:
        raise fail(str(exc), 1) from None
    finally:
        store.close()
    where, head = redacted(database_url), head_revision()
    mark = " (head)" if after == head else f" (head is {head})"
    if before == after:
        past = (
            f", past {revision} (upgrade never downgrades)"
            if revision not in ("head", after)
            else ""
        )
        out.print(
            f"{where}: already at revision {after}{mark}{past}", highlight=False, soft_wrap=True
        )
    else:
        out.print(
            f"{where}: upgraded from {before or 'an empty database'} to revision {after}{mark}",
            highlight=False,
            soft_wrap=True,
        )


@db_app.command("current")
def db_current(database_url: DatabaseUrl = DEFAULT_DATABASE_URL) -> None:
    """Print the database's schema revision; exit 0 at this version's head, 3 when it is behind
    or unmigrated (run `repodigest db upgrade`), 1 when it cannot be read. Changes nothing."""
    from services.summarizer.adapters.store import (
        StoreError,
        head_revision,
        known_revisions,
        redacted,
    )

    store = _store(database_url)
    try:
        current = store.current_revision()
    except StoreError as exc:
        raise fail(str(exc), 1) from None
    finally:
        store.close()
    where, head = redacted(database_url), head_revision()
    if current == head:
        out.print(f"{where}: revision {current} (head)", highlight=False, soft_wrap=True)
        return
    if current is None:
        state = "not migrated (no repodigest schema)"
    elif current in known_revisions():
        state = f"revision {current}, behind this version's {head}"
    else:
        state = f"revision {current}, unknown to this version (head {head}): a newer repodigest migrated it"
    out.print(f"{where}: {state}", highlight=False, soft_wrap=True)
    if current is None or current in known_revisions():
        err.print(
            f"run `repodigest db upgrade` (or the migration Job) to bring it to {head}",
            highlight=False,
        )
    raise typer.Exit(NOT_AT_HEAD)


@db_app.command("revisions")
def db_revisions(
    repo: Annotated[str, typer.Argument(help="OWNER/NAME")],
    window: Annotated[
        str, typer.Argument(help="the window's label: 2026-W24, 2026-03-26, 2026-06")
    ],
    database_url: DatabaseUrl = DEFAULT_DATABASE_URL,
) -> None:
    """Every published revision of a window and the figures it changed (reads only)."""
    from services.summarizer.audit import revisions_command

    try:
        check_repo(repo)
    except ValueError as exc:
        raise fail(str(exc)) from None
    _store(database_url).close()  # the URL's problems first, exit 2
    raise typer.Exit(revisions_command(database_url, repo, window))


@db_app.command("rejected")
def db_rejected(
    repo: Annotated[str | None, typer.Option("--repo", help="only this OWNER/NAME")] = None,
    reason: Annotated[
        str | None, typer.Option(help="only this reason: unknown-repo, future")
    ] = None,
    database_url: DatabaseUrl = DEFAULT_DATABASE_URL,
) -> None:
    """The events the summarizer did not count, and why (reads only)."""
    from services.summarizer.audit import rejected_command

    _store(database_url).close()
    raise typer.Exit(rejected_command(database_url, repo, reason))


def main() -> None:
    logging.captureWarnings(True)
    # one name however it is started (`python -m repodigest` too): usage lines and the shell
    # completion's variable (_REPODIGEST_COMPLETE) use it
    app(prog_name="repodigest")


if __name__ == "__main__":
    main()
