"""Offline sources on disk (and the demo generator): read a whole source into facts for one repo.

Files are parsed completely before anything is published, so a bad line N stops the run with
nothing half-published, and the progress bar knows its total. Blocking: call through a thread.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from shared.events import FactData, GithubFact, fact_time
from shared.events.envelope import CloudEvent

from ..domain.sources import (
    GIT_LOG_FORMAT,
    REPLAY_REPO,
    EventsScan,
    SourceError,
    SourceSpec,
    gharchive_facts,
    gharchive_repos,
    git_facts,
    github_repo_of_remote,
    missing_repo_error,
    parse_source_spec,
    recorded_events,
    replay_facts,
)
from .demo import DEMO_REPO, generate_demo


@dataclass
class LoadedSource:
    """The facts of one repository from one source, in time order, and the watermark it proves."""

    spec: SourceSpec
    repo: str
    origin: str
    facts: list[FactData | GithubFact]  # GithubFact: recorded events, re-published unchanged
    watermark: datetime | None = None  # None: the latest fact's time
    notes: list[str] = field(default_factory=list)

    def counts(self) -> Counter[tuple[str, str]]:
        return Counter((d.kind, d.action) for d in map(data_of, self.facts))


GLOB_CHARS = set("*?[")


def expand(path: str) -> list[Path]:
    """One file, or the files a glob pattern names (sorted: GH Archive hours in time order)."""
    p = Path(path).expanduser()
    if not GLOB_CHARS & set(str(p)):
        return [p]
    anchor = Path(p.anchor) if p.is_absolute() else Path(".")
    pattern = str(p.relative_to(anchor)) if p.is_absolute() else str(p)
    found = sorted(f for f in anchor.glob(pattern) if f.is_file())
    if not found:
        raise SourceError(
            f"no file matches {path}: check the pattern (quote it so the shell does not expand it)"
        )
    return found


def _in_file(path: Path, read):
    """Run `read(path)`, naming the file in a SourceError when several files are read."""
    try:
        return read(path)
    except SourceError as exc:
        text = str(exc)
        raise SourceError(text if str(path) in text else f"{path}: {text}") from None


def open_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 text file, gzip-compressed when it ends in .gz."""
    p = Path(path).expanduser()
    if not p.exists():
        raise SourceError(
            f"{p} does not exist: check the path (relative paths are taken from {Path.cwd()})"
        )
    if p.is_dir():
        raise SourceError(f"{p} is a directory: name one file")
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] == ".parquet":
        raise SourceError(
            f"{p} is Parquet; this source reads JSON lines (.json, .jsonl, .ndjson, "
            "optionally .gz). Convert it first, e.g. with pyarrow: "
            "pq.read_table(path).to_pylist() written one JSON object per line"
        )
    try:
        raw = p.open("rb")
    except OSError as exc:
        raise SourceError(f"cannot open {p}: {exc.strerror}") from None
    with raw:
        stream = gzip.open(raw) if suffixes and suffixes[-1] == ".gz" else raw
        number = 0
        try:
            # line by line, so a byte that is not UTF-8 is reported on its own line (a text
            # wrapper decodes ahead in chunks and fails before yielding the lines before it)
            for number, data in enumerate(stream, start=1):
                try:
                    yield number, data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise SourceError(
                        f"{p}: line {number} is not UTF-8 text (byte {exc.start + 1}"
                        "); is this the right file?"
                    ) from None
        except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
            raise SourceError(
                f"{p}: unreadable after line {number} ({exc}); is it truncated or not really gzip?"
            ) from None


def data_of(fact: FactData | GithubFact) -> FactData:
    return fact.data if isinstance(fact, GithubFact) else fact


def _time(fact: FactData | GithubFact):
    return fact.time if isinstance(fact, GithubFact) else fact_time(fact)


def _sorted(facts: list) -> list:
    # publish in GitHub time order (stable, so equal times keep the file's order)
    return sorted(facts, key=_time)


def load_source(
    source: str | SourceSpec,
    repo: str | None = None,
    *,
    demo_week: str = "2026-W24",
    demo_seed: int = 7,
    demo_tz: str = "UTC",
) -> LoadedSource:
    """Read `source` (see `parse_source_spec`) into the facts of `repo`.

    `repo=None` means: the source's own repository (replay: vllm-project/vllm-ascend, demo:
    repodigest-demo/llm-serve) or the only repository in the file; a file with several asks for it.
    """
    spec = parse_source_spec(source) if isinstance(source, str) else source
    if spec.kind in ("github", "github-graphql"):
        raise SourceError(
            f"source {spec.kind!r} is the live GitHub API, not a file: use ingest_source "
            "(the CLI's --source github with GITHUB_TOKEN) or run the ingest service "
            "with REPODIGEST_REPOS and REPODIGEST_GITHUB_TOKEN"
        )
    if spec.kind == "demo":
        if repo not in (None, DEMO_REPO):
            raise SourceError(
                f"the demo source only generates {DEMO_REPO}, not {repo}: name "
                f"{DEMO_REPO} as the repository, or run `repodigest demo`"
            )
        demo = generate_demo(demo_week, demo_seed, demo_tz)
        return LoadedSource(
            spec, DEMO_REPO, "demo", _sorted(list(demo.facts)), watermark=demo.watermark
        )
    assert spec.path is not None
    label = str(Path(spec.path).expanduser())
    if spec.kind == "replay":
        target = repo or REPLAY_REPO
        facts = list(replay_facts(open_lines(spec.path), target))
        if not facts:
            raise SourceError(f"{label} holds no merged pull requests with a PR number")
        return LoadedSource(spec, target, "replay", _sorted(facts))
    if spec.kind == "events":
        scan = EventsScan(Counter())
        facts = list(recorded_events(open_lines(spec.path), repo, scan, source=label))
        if repo is None:
            if len(scan.repos) > 1:
                listing = ", ".join(f"{r} ({n})" for r, n in scan.repos.most_common(10))
                raise SourceError(
                    f"{label} holds facts of {len(scan.repos)} repositories "
                    f"({listing}); name the one to ingest"
                )
            if not scan.repos:
                raise SourceError(f"{label} holds no GitHub facts")
            repo = next(iter(scan.repos))
        if not facts:  # an empty file (or watermarks only): an error, as for every file source
            raise SourceError(
                f"{label} holds no GitHub facts; events:PATH reads repodigest "
                "CloudEvents, one per line"
            )
        origins = Counter(e.data.origin for e in facts)
        origin = origins.most_common(1)[0][0] if origins else "replay"
        return LoadedSource(spec, repo, origin, _sorted(facts), watermark=scan.watermark)
    if spec.kind == "gharchive":
        paths = expand(spec.path)
        if repo is None:
            seen: Counter[str] = Counter()
            for path in paths:
                seen.update(_in_file(path, lambda p: gharchive_repos(open_lines(p))))
            if len(seen) != 1:
                listing = ", ".join(f"{r} ({n})" for r, n in seen.most_common(10))
                raise SourceError(
                    f"{label} holds activity of {len(seen)} repositories; name the "
                    f"one to ingest" + (f", e.g. {listing}" if seen else "")
                )
            repo = next(iter(seen))
        seen = Counter()
        facts = []
        for path in paths:
            facts.extend(
                _in_file(
                    path,
                    lambda p: list(
                        gharchive_facts(
                            open_lines(p), repo, seen, source=str(p), require=len(paths) == 1
                        )
                    ),
                )
            )
        if not facts and not any(n.lower() == repo.lower() for n in seen):
            raise missing_repo_error(repo, seen, label)
        repo = facts[0].repo if facts else repo
        return LoadedSource(spec, repo, "gharchive", _sorted(facts))
    if spec.kind == "git":
        text, remote = read_git_history(spec.path)
        target = repo or (github_repo_of_remote(remote) if remote else None)
        if target is None:
            raise SourceError(
                f"{label}: cannot tell which GitHub repository this clone is (remote "
                f"'origin' is {remote or 'not set'}); name the repository"
            )
        facts = list(git_facts(text, target))
        if not facts:
            raise SourceError(
                f"{label}: no first-parent commit subject ends in (#N), so there are "
                "no merged pull requests to replay"
            )
        return LoadedSource(spec, target, "git", _sorted(facts))
    raise SourceError(f"source kind {spec.kind!r} is not readable offline")  # pragma: no cover


def repos_in_source(source: str | SourceSpec) -> Counter[str]:
    """The repositories a file source holds facts of (with how many), for `OWNER/*`."""
    spec = parse_source_spec(source) if isinstance(source, str) else source
    if spec.kind == "demo":
        return Counter({DEMO_REPO: 1})
    if spec.kind == "replay":  # a merged-PR history names no repository: read as vllm-ascend's
        return Counter({REPLAY_REPO: 1})
    if spec.kind == "git":
        return Counter({load_source(spec).repo: 1})
    assert spec.path is not None
    label = str(Path(spec.path).expanduser())
    if spec.kind == "events":
        scan = EventsScan(Counter())
        for _ in recorded_events(open_lines(spec.path), None, scan, source=label):
            pass
        return Counter(scan.repos)
    if spec.kind == "gharchive":
        seen: Counter[str] = Counter()
        for path in expand(spec.path):
            seen.update(_in_file(path, lambda p: gharchive_repos(open_lines(p))))
        return seen
    raise SourceError(f"source kind {spec.kind!r} cannot list its repositories")


def read_git_history(path: str | Path, ref: str = "HEAD") -> tuple[str, str | None]:
    """(`git log --first-parent --numstat` of `ref`, the `origin` remote URL or None)."""
    p = Path(path).expanduser()
    if not p.is_dir():
        raise SourceError(f"{p} is not a directory: git:PATH takes a local clone")
    git = shutil.which("git")
    if git is None:
        raise SourceError("git:PATH needs the `git` command on PATH; install git")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [git, "-C", str(p), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            check=False,
        )

    log_ = run("log", "--first-parent", "--numstat", "-M", f"--format={GIT_LOG_FORMAT}", ref)
    if log_.returncode != 0:
        raise SourceError(
            f"{p}: git log failed: {log_.stderr.strip()[:300]} (is it a clone with "
            "at least one commit?)"
        )
    remote = run("remote", "get-url", "origin")
    return log_.stdout, (remote.stdout.strip() or None) if remote.returncode == 0 else None


def write_events(path: str | Path, events: Iterable[CloudEvent]) -> int:
    """Record events as JSON lines (gzip when the name ends in .gz), readable by `events:PATH`.

    Returns how many were written. Blocking: call through a thread.
    """
    p = Path(path).expanduser()
    p.parent.mkdir(parents=True, exist_ok=True)
    opener = gzip.open if p.suffix.lower() == ".gz" else open
    n = 0
    with opener(p, "wb") as out:
        for event in events:
            out.write(event.to_bytes() + b"\n")
            n += 1
    return n
