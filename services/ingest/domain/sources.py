"""Offline sources as pure parsers: source specs, merged-PR history, our own events, GH Archive.

Every parser takes already-read lines (`(line_number, text)` pairs) and yields `FactData` for one
repository; opening files, decompressing and threads belong to `adapters/files.py`. Nothing here
invents a fact the input does not contain.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shared.events import (
    FACT_BY_KEY,
    GITHUB_EVENT_ADAPTER,
    Actor,
    CommentInfo,
    FactData,
    FileChange,
    GithubFact,
    ItemSnapshot,
    ReviewInfo,
    SyncWatermark,
    check_repo,
)
from shared.events.envelope import bounded_utc
from shared.events.github import FILES_CAP, commit_sha, noreply_login

REPLAY_REPO = "vllm-project/vllm-ascend"
SOURCE_KINDS = ("demo", "replay", "events", "gharchive", "git", "github", "github-graphql")

Lines = Iterable[tuple[int, str]]


class SourceError(ValueError):
    """A source a person named cannot be read as asked; the message says what to do instead."""


@dataclass(frozen=True)
class SourceSpec:
    kind: str  # one of SOURCE_KINDS
    path: str | None = None

    def __str__(self) -> str:
        return self.kind if self.path is None else f"{self.kind}:{self.path}"


def parse_source_spec(spec: str) -> SourceSpec:
    """`demo`, `github`, `github-graphql`, `replay:PATH`, `events:PATH`, `gharchive:PATH`,
    `git:PATH`."""
    text = (spec or "").strip()
    kind, sep, path = text.partition(":")
    kind = kind.strip().lower()
    usage = (
        "use one of: demo, github, github-graphql, replay:PATH (merged-PR history JSONL), "
        "events:PATH (repodigest CloudEvents JSONL), gharchive:PATH (GH Archive NDJSON), "
        "git:PATH (a local clone's first-parent history)"
    )
    if kind not in SOURCE_KINDS:
        raise SourceError(f"unknown source {spec!r}: {usage}")
    if kind in ("demo", "github", "github-graphql"):
        if sep and path.strip():
            raise SourceError(f"source {kind!r} takes no path (got {spec!r}); {usage}")
        return SourceSpec(kind)
    if not path.strip():
        raise SourceError(f"source {kind!r} needs a file: {kind}:PATH; {usage}")
    return SourceSpec(kind, path.strip())


# ---------------------------------------------------------------- helpers


def parse_time(value: Any, *, what: str = "time") -> datetime | None:
    """An aware UTC time from ISO 8601 text; ValueError for anything else, or a time outside the
    years the event contract accepts (1970..2200)."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        parsed = value
    else:
        try:
            parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{what} {str(value)[:60]!r} is not an ISO 8601 time") from None
    try:
        return bounded_utc(parsed)
    except ValueError:
        raise ValueError(f"{what} {str(value)[:60]!r} is outside the years 1970..2200") from None


def _optional_text(value: Any) -> str | None:
    return None if value is None else str(value)


def whole_number(value: Any, *, what: str) -> int:
    """An integer from JSON (an int, or a float or text holding a whole number); ValueError for
    anything else (1.5, 1e400, "x", true) with what it was."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        number = float(value) if isinstance(value, float) else int(str(value).strip())
        if isinstance(number, float):
            if not number.is_integer():
                raise ValueError
            number = int(number)
    except (ValueError, OverflowError, TypeError):
        raise ValueError(f"{what} {str(value)[:40]!r} is not a whole number") from None
    return number


def login_from_commit_author(name: str | None, email: str | None) -> Actor:
    """The author as honestly as a commit allows.

    GitHub noreply addresses (`12345+login@users.noreply.github.com`, `login@users.noreply...`)
    carry the login; otherwise the commit's author name stands in for it, and the e-mail domain is
    kept for affiliation (a noreply domain says nothing about affiliation, so it is dropped). The
    commit's name and e-mail travel as they are, for the identities file to merge (one person
    committing as "XuChi <x@163.com>" and as "XuChi <1+xuchi-0808@users.noreply.github.com>").
    """
    email = (email or "").strip()
    name = (name or "").strip()
    git = {"name": name or None, "email": email or None}
    login = noreply_login(email)
    if login is not None:
        return Actor(login=login, is_bot=login.endswith("[bot]"), **git)
    local, _, domain = email.rpartition("@")
    domain = domain.lower()
    login = name or local or "unknown"
    return Actor(login=login, is_bot=login.endswith("[bot]"), email_domain=domain or None, **git)


_BRACE_RENAME = re.compile(r"\{([^{}]*) => ([^{}]*)\}")


def renamed_path(path: str) -> tuple[str, bool]:
    """`git --numstat` rename notation (`a/{old => new}/f.py`, `old => new`) to the new path."""
    if " => " not in path:
        return path, False
    if _BRACE_RENAME.search(path):
        new = _BRACE_RENAME.sub(lambda m: m.group(2), path)
        return re.sub(r"/{2,}", "/", new).strip("/"), True
    return path.split(" => ", 1)[1], True


def cap_files(files: list[FileChange]) -> tuple[tuple[FileChange, ...], bool]:
    return tuple(files[:FILES_CAP]), len(files) > FILES_CAP


def _json_line(number: int, text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"line {number} is not JSON ({exc.msg} at column {exc.colno}); "
            f"expected one {what} per line"
        ) from None
    except RecursionError:
        raise SourceError(f"line {number} is JSON nested too deeply to be a {what}") from None


def _short(exc: Exception) -> str:
    """The first problem of a pydantic ValidationError (a ValueError), or the error's text."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
    problems = errors()
    first = problems[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "event"
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    if first.get("type") == "union_tag_invalid":
        # pydantic lists every known tag: name the unknown one and the family instead
        tag = (first.get("ctx") or {}).get("tag")
        return (
            f"unknown event type {tag!r} (known: dev.repodigest.github.<kind>.<action>.v1; "
            "a file written by a newer repodigest?)"
        )
    return f"{where}: {first.get('msg')}{more}"


def missing_repo_error(repo: str, seen: Counter[str], source: str) -> SourceError:
    if not seen:
        return SourceError(f"{source} holds no facts at all (for {repo} or any other repository)")
    top = ", ".join(f"{r} ({n})" for r, n in seen.most_common(10))
    more = f" and {len(seen) - 10} more" if len(seen) > 10 else ""
    return SourceError(
        f"{source} holds nothing for {repo}; repositories in it (facts): {top}{more}. "
        "Pass one of them as the repository"
    )


# ---------------------------------------------------------------- replay: merged-PR history

_REPLAY_FIELDS = ("sha", "pr_number", "title", "merged_at")


def replay_fact(
    record: dict[str, Any], repo: str = REPLAY_REPO, origin: str = "replay"
) -> FactData | None:
    """One merged pull request from the history file, or None for a commit without `(#N)`.

    The file has no PR open time: `created_at` is the commit's author date (the earliest time it
    knows of) and no `opened` fact is made up.
    """
    missing = [f for f in _REPLAY_FIELDS if f not in record]
    if missing:
        raise ValueError(
            f"missing field(s) {', '.join(missing)}: not a merged-PR history record "
            f"(fields: sha, pr_number, title, author_name, author_email, merged_at, files)"
        )
    number = record["pr_number"]
    if number is None:
        return None
    number = whole_number(number, what="pr_number")
    merged_at = parse_time(record["merged_at"], what="merged_at")
    if merged_at is None:
        raise ValueError("merged_at is empty")
    authored_at = parse_time(record.get("authored_at"), what="authored_at") or merged_at
    files: list[FileChange] = []
    additions = deletions = 0
    for f in record.get("files") or ():
        path, renamed = renamed_path(str(f["path"]))
        add, dele = f.get("additions"), f.get("deletions")
        add = None if add is None else whole_number(add, what="additions")
        dele = None if dele is None else whole_number(dele, what="deletions")
        binary = add is None and dele is None
        additions += add or 0
        deletions += dele or 0
        files.append(
            FileChange(
                path=path,
                additions=add or 0,
                deletions=dele or 0,
                status="renamed" if renamed else ("binary" if binary else None),
            )
        )
    capped, truncated = cap_files(files)
    item = ItemSnapshot(
        repo=repo,
        number=int(number),
        kind="pull_request",
        title=str(record["title"]),
        author=login_from_commit_author(
            _optional_text(record.get("author_name")), _optional_text(record.get("author_email"))
        ),
        state="closed",
        created_at=min(authored_at, merged_at),
        updated_at=merged_at,
        closed_at=merged_at,
        merged_at=merged_at,
        additions=additions,
        deletions=deletions,
        changed_files=len(files),
        files=capped,
        files_truncated=truncated,
        base_branch="main",
        # the squash (or merge) commit is what the pull request became on main
        merge_commit_sha=commit_sha(record.get("sha")),
        # the squash commit's message body is the PR's description where GitHub put it there
        body_excerpt=str(record.get("body") or ""),
    )
    return FactData(
        repo=repo,
        kind="pull_request",
        action="merged",
        item=item,
        actor=item.author.login,
        origin=origin,
    )


def replay_facts(lines: Lines, repo: str = REPLAY_REPO) -> Iterator[FactData]:
    """Merged-PR facts of a history file (which is about `repo`, named by the caller)."""
    check_repo(repo)
    for number, text in lines:
        if not text.strip():
            continue
        record = _json_line(number, text, "merged pull request")
        if not isinstance(record, dict):
            raise SourceError(f"line {number} is not a JSON object; expected a merged-PR record")
        try:
            fact = replay_fact(record, repo)
        except (ValueError, KeyError, TypeError, AttributeError, ArithmeticError) as exc:
            detail = _short(exc)
            raise SourceError(f"line {number}: {detail}") from None
        if fact is not None:
            yield fact


# ---------------------------------------------------------------- git: a clone's first-parent history

GIT_RECORD = "\x1e"
GIT_FIELD = "\x1f"
GIT_BODY_END = "\x1d"
# what `git log` is asked for, one commit per record: sha, author name, e-mail, dates, subject,
# then the message body (any text, newlines included) up to GIT_BODY_END; --numstat lines follow
GIT_LOG_FORMAT = "%x1e%H%x1f%an%x1f%ae%x1f%aI%x1f%cI%x1f%s%x1f%b%x1d"
# a record starts with the separator and a full commit id: a body holding the separator stays whole
_GIT_RECORD_START = re.compile(GIT_RECORD + r"(?=[0-9a-f]{40,64}" + GIT_FIELD + ")")
_PR_SUFFIX = re.compile(r"^(?P<title>.*?)\s*\(#(?P<number>\d+)\)\s*$")
_GITHUB_REMOTE = re.compile(
    r"github\.com[:/](?P<owner>[A-Za-z0-9-]+)/(?P<name>[A-Za-z0-9._-]+?)(?:\.git)?/?$"
)


def split_subject(subject: str) -> tuple[str, int | None]:
    """`[Core] Do it (#123)` -> ("[Core] Do it", 123); no `(#N)` suffix -> (subject, None)."""
    m = _PR_SUFFIX.match(subject.strip())
    if not m:
        return subject.strip(), None
    return m.group("title"), int(m.group("number"))


def github_repo_of_remote(url: str) -> str | None:
    """`git@github.com:owner/name.git`, `https://github.com/owner/name` -> owner/name."""
    m = _GITHUB_REMOTE.search(url.strip())
    return f"{m.group('owner')}/{m.group('name')}" if m else None


def git_log_records(text: str) -> Iterator[dict[str, Any]]:
    """Records in the merged-PR history format from `git log --first-parent --numstat` output
    written with GIT_LOG_FORMAT (the way merged_prs.jsonl was derived)."""
    for chunk in _GIT_RECORD_START.split(text):
        if not chunk.strip():
            continue
        if GIT_BODY_END in chunk:
            # the body may hold any text, separators too: the fields before it are split from
            # the left, the numstat lines after the last GIT_BODY_END
            head, _, rest = chunk.rpartition(GIT_BODY_END)
            parts = head.split(GIT_FIELD, 6)
            body = parts.pop().strip() if len(parts) == 7 else None
        else:  # the format without the body (older callers)
            header, _, rest = chunk.partition("\n")
            parts, body = header.split(GIT_FIELD), ""
        if len(parts) != 6 or body is None:
            raise SourceError(
                f"unexpected git log record {chunk[:80]!r}: is this a git repository "
                "with a normal history?"
            )
        sha, name, email, authored, committed, subject = parts
        title, number = split_subject(subject)
        files = []
        for line in rest.splitlines():
            if not line.strip():
                continue
            add, dele, path = line.split("\t", 2)
            files.append(
                {
                    "path": path,
                    "additions": None if add == "-" else int(add),
                    "deletions": None if dele == "-" else int(dele),
                }
            )
        yield {
            "sha": sha,
            "pr_number": number,
            "title": title,
            "author_name": name,
            "author_email": email,
            "authored_at": authored,
            "merged_at": committed,
            "files": files,
            "body": body,
        }


def git_facts(text: str, repo: str) -> Iterator[FactData]:
    """Merged-PR facts from a clone's first-parent history (squash or merge commits with `(#N)`)."""
    check_repo(repo)
    for record in git_log_records(text):
        fact = replay_fact(record, repo, origin="git")
        if fact is not None:
            yield fact


# ---------------------------------------------------------------- events: our own CloudEvents


@dataclass
class EventsScan:
    """What an events file held besides its facts (filled while iterating)."""

    repos: Counter[str]
    watermark: datetime | None = None


def recorded_events(
    lines: Lines, repo: str | None, scan: EventsScan | None = None, source: str = "the events file"
) -> Iterator[GithubFact]:
    """Facts of `repo` from JSON lines of repodigest CloudEvents (`GithubFact.to_bytes()`), kept
    as the events they are (same id, time and source), so re-publishing them changes nothing.

    Watermarks in the file are not re-published (ingest publishes its own); the latest one for
    `repo` is kept in `scan.watermark`. With `repo=None` every repository's facts are yielded.
    """
    scan = scan if scan is not None else EventsScan(Counter())
    for number, text in lines:
        if not text.strip():
            continue
        try:
            event = GITHUB_EVENT_ADAPTER.validate_json(text)
        except ValueError as exc:
            raise SourceError(
                f"line {number} is not a repodigest GitHub event ({_short(exc)}); "
                "events:PATH reads JSON lines written by repodigest "
                "(GH Archive files are gharchive:PATH)"
            ) from None
        if isinstance(event, SyncWatermark):
            if repo is None or event.data.repo == repo:
                mark = event.data.watermark
                scan.watermark = mark if scan.watermark is None else max(scan.watermark, mark)
            continue
        assert isinstance(event, GithubFact)
        scan.repos[event.data.repo] += 1
        if repo is None or event.data.repo == repo:
            yield event
    if repo is not None and scan.repos and not scan.repos.get(repo):
        raise missing_repo_error(repo, scan.repos, source)


# ---------------------------------------------------------------- GH Archive

GHARCHIVE_TYPES = (
    "PullRequestEvent",
    "IssuesEvent",
    "IssueCommentEvent",
    "PullRequestReviewEvent",
    "PullRequestReviewCommentEvent",
)


def _actor(user: dict[str, Any] | None, association: str | None = None) -> Actor:
    user = user or {}
    login = str(user.get("login") or "ghost")
    return Actor(
        login=login,
        association=association or "NONE",
        is_bot=user.get("type") == "Bot" or login.endswith("[bot]"),
    )


def snapshot_from_api(
    obj: dict[str, Any], repo: str, *, kind: str | None = None, at: datetime | None = None
) -> ItemSnapshot:
    """An ItemSnapshot from a GitHub REST/webhook/GH Archive issue or pull-request object.

    `at` (the event's time) stands in for `updated_at` when the object lacks one.
    """
    if kind is None:
        is_pr = "merged_at" in obj or "head" in obj or "pull_request" in obj
        kind = "pull_request" if is_pr else "issue"
    labels = tuple(
        str(lb["name"]) for lb in obj.get("labels") or () if isinstance(lb, dict) and lb.get("name")
    )
    reactions = obj.get("reactions")
    base, head = obj.get("base"), obj.get("head")
    merged_by = obj.get("merged_by")
    return ItemSnapshot(
        repo=repo,
        number=whole_number(obj["number"], what="number"),
        kind=kind,
        title=str(obj.get("title") or ""),
        url=obj.get("html_url") or None,
        author=_actor(obj.get("user"), obj.get("author_association")),
        labels=labels,
        state="closed" if obj.get("state") == "closed" else "open",
        draft=bool(obj.get("draft")),
        created_at=parse_time(obj.get("created_at"), what="created_at") or at,
        updated_at=parse_time(obj.get("updated_at"), what="updated_at") or at,
        closed_at=parse_time(obj.get("closed_at"), what="closed_at"),
        merged_at=parse_time(obj.get("merged_at"), what="merged_at"),
        merged_by=merged_by.get("login") if isinstance(merged_by, dict) else None,
        comments=whole_number(obj.get("comments") or 0, what="comments"),
        review_comments=whole_number(obj.get("review_comments") or 0, what="review_comments"),
        reactions=(
            whole_number(reactions.get("total_count") or 0, what="reactions")
            if isinstance(reactions, dict)
            else 0
        ),
        additions=obj.get("additions"),
        deletions=obj.get("deletions"),
        changed_files=obj.get("changed_files"),
        base_branch=base.get("ref") if isinstance(base, dict) else None,
        head_branch=head.get("ref") if isinstance(head, dict) else None,
        # GitHub fills merge_commit_sha before the merge too (a test merge): kept once merged
        merge_commit_sha=commit_sha(obj.get("merge_commit_sha")) if obj.get("merged_at") else None,
        body_excerpt=obj.get("body") or "",
    )


def gharchive_facts_of(event: dict[str, Any], repo: str) -> list[FactData]:
    """The facts one GH Archive event carries (none for event types and actions we don't track)."""
    etype = event.get("type")
    if etype not in GHARCHIVE_TYPES:
        return []
    payload = event.get("payload") or {}
    action = payload.get("action")
    at = parse_time(event.get("created_at"), what="created_at")
    actor = (event.get("actor") or {}).get("login")

    def fact(kind: str, act: str, item: ItemSnapshot, **extra: Any) -> list[FactData]:
        if (kind, act) not in FACT_BY_KEY:
            return []
        return [
            FactData(
                repo=repo,
                kind=kind,
                action=act,
                item=item,
                actor=actor,
                origin="gharchive",
                **extra,
            )
        ]

    if etype == "PullRequestEvent":
        pr = payload["pull_request"]
        item = snapshot_from_api(pr, repo, kind="pull_request", at=at)
        if action == "closed":
            merged = pr.get("merged") or pr.get("merged_at") is not None
            return fact("pull_request", "merged" if merged else "closed", item)
        if action in ("labeled",):
            label = (payload.get("label") or {}).get("name")
            return fact("pull_request", action, _touched(item, at), label=label) if label else []
        if action in ("reopened", "edited", "ready_for_review", "converted_to_draft"):
            return fact("pull_request", action, _touched(item, at))
        return fact("pull_request", action, item) if action == "opened" else []
    if etype == "IssuesEvent":
        issue = payload["issue"]
        if _is_pull_request(issue):  # PullRequestEvent carries pull requests' own transitions
            return []
        item = snapshot_from_api(issue, repo, kind="issue", at=at)
        if action == "labeled":
            label = (payload.get("label") or {}).get("name")
            return fact("issue", "labeled", _touched(item, at), label=label) if label else []
        if action in ("reopened", "edited"):
            return fact("issue", action, _touched(item, at))
        return fact("issue", action, item) if action in ("opened", "closed") else []
    if etype == "IssueCommentEvent":
        if action != "created":
            return []
        issue = payload["issue"]
        kind = "pull_request" if _is_pull_request(issue) else "issue"
        item = snapshot_from_api(issue, repo, kind=kind, at=at)
        return fact("comment", "created", item, comment=_comment(payload["comment"], at, False))
    if etype == "PullRequestReviewCommentEvent":
        if action != "created":
            return []
        item = snapshot_from_api(payload["pull_request"], repo, kind="pull_request", at=at)
        return fact("comment", "created", item, comment=_comment(payload["comment"], at, True))
    # PullRequestReviewEvent: GH Archive says "created" where webhooks say "submitted"
    if action not in ("created", "submitted"):
        return []
    review = payload["review"]
    item = snapshot_from_api(payload["pull_request"], repo, kind="pull_request", at=at)
    info = ReviewInfo(
        id=whole_number(review["id"], what="review id"),
        author=_actor(review.get("user"), review.get("author_association")),
        state=str(review.get("state") or "commented").upper(),
        submitted_at=parse_time(review.get("submitted_at"), what="submitted_at") or at,
    )
    return fact("review", "submitted", item, review=info)


def _is_pull_request(issue: dict[str, Any]) -> bool:
    # old payloads carry `pull_request: {"html_url": null, ...}` on plain issues
    link = issue.get("pull_request")
    return isinstance(link, dict) and bool(link.get("html_url") or link.get("url"))


def _touched(item: ItemSnapshot, at: datetime | None) -> ItemSnapshot:
    # labeled/reopened/edited facts are timed by updated_at: make it the event's own time
    return item if at is None else item.model_copy(update={"updated_at": at})


def _comment(c: dict[str, Any], at: datetime | None, on_review: bool) -> CommentInfo:
    return CommentInfo(
        id=whole_number(c["id"], what="comment id"),
        author=_actor(c.get("user"), c.get("author_association")),
        created_at=parse_time(c.get("created_at"), what="comment created_at") or at,
        body_excerpt=c.get("body") or "",
        on_review=on_review,
    )


def gharchive_repo_of(number: int, event: Any) -> str:
    if (
        not isinstance(event, dict)
        or "type" not in event
        or not isinstance(event.get("repo"), dict)
    ):
        raise SourceError(
            f"line {number} is not a GH Archive event (no type/repo); gharchive:PATH "
            "reads GH Archive NDJSON, events:PATH reads repodigest events and "
            "replay:PATH a merged-PR history"
        )
    return str(event["repo"].get("name") or "")


def gharchive_repos(lines: Lines) -> Counter[str]:
    """Repositories with tracked activity (PR, issue, comment, review events) and their counts."""
    seen: Counter[str] = Counter()
    for number, text in lines:
        if not text.strip():
            continue
        event = _json_line(number, text, "GH Archive event")
        name = gharchive_repo_of(number, event)
        if event["type"] in GHARCHIVE_TYPES:
            seen[name] += 1
    return seen


def gharchive_facts(
    lines: Lines,
    repo: str,
    seen: Counter[str] | None = None,
    source: str = "the GH Archive file",
    *,
    require: bool = True,
) -> Iterator[FactData]:
    """Facts of `repo` from GH Archive NDJSON; other repositories are counted in `seen`.

    With `require`, a file without any activity of `repo` is an error listing what it holds.
    """
    check_repo(repo)
    seen = seen if seen is not None else Counter()
    wanted = repo.lower()  # GitHub names are case-insensitive
    for number, text in lines:
        if not text.strip():
            continue
        event = _json_line(number, text, "GH Archive event")
        name = gharchive_repo_of(number, event)
        if event["type"] not in GHARCHIVE_TYPES:
            continue
        seen[name] += 1
        if name.lower() != wanted:
            continue
        try:
            yield from gharchive_facts_of(event, name)  # GitHub's spelling of the name
        except (ValueError, KeyError, TypeError, AttributeError, ArithmeticError) as exc:
            detail = _short(exc)
            raise SourceError(
                f"line {number}: {event['type']} does not look like a GH Archive payload ({detail})"
            ) from None
    if require and not any(n.lower() == wanted for n in seen):
        raise missing_repo_error(repo, seen, source)
