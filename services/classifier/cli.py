"""`repodigest classify`: tag JSON-lines items with a profile, for a machine or for a person.

Input, one JSON object a line: `{number, title, body?, labels?, author?, files?, repo?, kind?}`
where `labels` are names (or `{name}` objects), `author` is a login (or `{login, email?,
association?}`), `author_email`/`association` may also sit at the top level, and `files` are paths
(or `{path, additions?, deletions?}` objects).

Output: one JSON object a line with the tags and every rule that fired, or with `--explain` a short
readable block per item. A line that cannot be read is reported on stderr with its line number and
skipped; the other lines are still classified, and the exit code is 1 when any line was bad
(2 when the profile itself cannot be loaded).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from shared.events import Actor, FileChange, ItemSnapshot, Tags
from shared.events.enriched import Digest

from .adapters.profiles import read_profile_file, read_profiles
from .domain.rules import (
    CompiledRuleSet,
    ProfileError,
    canonical_profile,
    compile_profile,
    fired_rules,
    resolve_profile,
)

DEFAULT_REPO = "local/items"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class BadItem(ValueError):
    pass


def load_ruleset(profile: str) -> CompiledRuleSet:
    """A built-in/installed profile by name, or a profile YAML file by path."""
    raws = read_profiles()
    path = Path(profile)
    if path.suffix in (".yaml", ".yml") and path.exists():
        raws[path.stem] = (str(path), read_profile_file(path))
        profile = path.stem
    profile = canonical_profile(profile, raws)
    if profile not in raws:
        raise ProfileError(
            f"unknown profile {profile!r}; choose one of {', '.join(sorted(raws))} "
            "or give the path of a profile YAML file"
        )
    resolved, _ = resolve_profile(profile, raws)
    return compile_profile(resolved)


def _actor(obj: dict[str, Any]) -> Actor:
    author = obj.get("author") or "unknown"
    if isinstance(author, str):
        author = {"login": author}
    if not isinstance(author, dict) or not author.get("login"):
        raise BadItem("`author` must be a login or an object with `login`")
    email = author.get("email") or obj.get("author_email") or ""
    domain = author.get("email_domain") or (email.rsplit("@", 1)[-1] if "@" in email else None)
    return Actor(
        login=str(author["login"]),
        association=author.get("association") or obj.get("association") or "NONE",
        is_bot=bool(author.get("is_bot", False)),
        email_domain=domain,
    )


def _files(value: Any) -> list[FileChange]:
    out = []
    for f in value or []:
        if isinstance(f, str):
            out.append(FileChange(path=f))
        elif isinstance(f, dict) and isinstance(f.get("path"), str):
            out.append(
                FileChange(
                    path=f["path"],
                    additions=int(f.get("additions") or 0),
                    deletions=int(f.get("deletions") or 0),
                )
            )
        else:
            raise BadItem(
                f"`files` entries must be paths or {{path, additions, deletions}}, got {f!r}"
            )
    return out


def parse_item(line: str) -> ItemSnapshot:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadItem(f"not JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(obj, dict):
        raise BadItem('expected a JSON object like {"number": 1, "title": "..."}')
    missing = [k for k in ("number", "title") if k not in obj]
    if missing:
        raise BadItem(f"missing {' and '.join(missing)}")
    labels = [lb["name"] if isinstance(lb, dict) else lb for lb in obj.get("labels") or []]
    files = _files(obj.get("files"))
    try:
        return ItemSnapshot(
            repo=obj.get("repo") or DEFAULT_REPO,
            number=obj["number"],
            kind=obj.get("kind") or "pull_request",
            title=obj["title"],
            author=_actor(obj),
            labels=tuple(labels),
            state=obj.get("state") or "open",
            created_at=_EPOCH,
            body_excerpt=obj.get("body") or "",
            files=tuple(files),
            additions=obj.get("additions"),
            deletions=obj.get("deletions"),
            changed_files=obj.get("changed_files"),
            base_branch=obj.get("base_branch"),
            head_branch=obj.get("head_branch"),
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise BadItem(problems) from None


def as_json(
    item: ItemSnapshot, tags: Tags, ruleset: CompiledRuleSet, trace: dict[str, str] | None = None
) -> str:
    rules = fired_rules(tags)
    fired = set(rules)
    data = {
        "number": item.number,
        "title": item.title,
        "profile": ruleset.ref.profile,
        "version": ruleset.ref.version,
        **tags.model_dump(mode="json"),
        "rules": rules,
        # rule id -> what made it fire ("title prefix [ROCm]", "changed csrc/rocm/x.cu")
        "evidence": {
            **{k: v for k, v in (trace or {}).items() if k in fired},
            **{r.rule: r.reason for r in tags.risks},
        },
    }
    # what the rule set left out and why ("labeler:limits", "modules:incidental": a module whose
    # files are no real part of the change, "categories:ci-share": a CI kind of a code change)
    notes = {k: v for k, v in (trace or {}).items() if k not in fired}
    if notes:
        data["notes"] = notes
    return json.dumps(data, ensure_ascii=False)


def explain_text(
    item: ItemSnapshot, tags: Tags, trace: dict[str, str], ruleset: CompiledRuleSet
) -> str:
    lines = [
        f"#{item.number} {item.title}",
        f"  profile {ruleset.ref.profile} (version {ruleset.ref.version[:12]})",
    ]

    def section(title: str, tags_: Iterable[Any]) -> None:
        tags_ = list(tags_)
        if not tags_:
            lines.append(f"  {title}: none")
            return
        lines.append(f"  {title}:")
        for t in tags_:
            why = getattr(t, "reason", None) or trace.get(t.rule, "")
            extra = " (fallback)" if getattr(t, "fallback", False) else ""
            sev = f"[{t.severity}] " if hasattr(t, "severity") else ""
            lines.append(f"    - {sev}{t.name}{extra}: {why}  <{t.rule}>")

    section("modules", tags.modules)
    if "labeler:limits" in trace:  # labeler labels a v6.1+ limit kept out
        lines.append(f"    (labeler: {trace['labeler:limits']})")
    if "modules:incidental" in trace:  # path-only modules no real part of the change
        lines.append(f"    ({trace['modules:incidental']})")
    section("categories", tags.categories)
    if "categories:ci-share" in trace:  # a CI kind of a change that is mostly code
        lines.append(f"    ({trace['categories:ci-share']})")
    section("ecosystems", tags.ecosystems)
    section("topics", tags.topics)
    section("affiliations", tags.affiliations)
    section("risks", tags.risks)
    lines.append(f"  bot: yes <{tags.bot_rule}>" if tags.bot else "  bot: no")
    lines.extend(digest_lines(tags.digest))
    return "\n".join(lines)


def digest_lines(d: Digest | None) -> list[str]:
    """The digest of the item's description, a line a field (only the fields it found)."""
    if d is None:
        return []
    out = ["  digest:" + (" template only, nothing filled in" if d.template_only else "")]
    if d.what:
        out.append(f"    what: {d.what}")
    if d.user_facing != "unknown":
        out.append(
            f"    user-facing: {d.user_facing}"
            + (f": {d.user_facing_text}" if d.user_facing_text else "")
        )
    if d.tested:
        out.append(
            f"    tested: {', '.join(d.tested)}" + (f": {d.tested_text}" if d.tested_text else "")
        )
    for c in d.claims:
        out.append(f"    claim ({c.kind}; {', '.join(c.figures)}): {c.sentence}")
    for r in d.refs:
        target = " ".join(
            filter(
                None,
                (
                    (r.repo or "") + (f"#{r.number}" if r.number is not None else ""),
                    f"commit {r.sha[:12]}" if r.sha else "",
                    f'"{r.title}"' if r.title else "",
                ),
            )
        )
        out.append(f"    {r.kind.replace('_', '-')}: {target}")
    if len(out) == 1 and not d.template_only:
        out[0] += " nothing found in the description"
    return out


def classify_command(
    profile: str,
    source: str,
    explain: bool = False,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """Classify JSON-lines items from `source` (a path, or `-` for stdin); returns the exit code.

    `out`/`err` default to the standard streams of the moment (so test runners can capture them).
    """
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        ruleset = load_ruleset(profile)
    except ProfileError as exc:
        print(f"error: {exc}", file=err)
        return 2
    for warning in ruleset.warnings:
        print(f"warning: {warning}", file=err)
    try:
        stream: IO[str] = sys.stdin if source == "-" else open(source, encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot read {source}: {exc.strerror or exc}", file=err)
        return 1
    bad = 0
    name = "<stdin>" if source == "-" else source
    with stream if source != "-" else contextlib.nullcontext(stream):
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                item = parse_item(line)
            except BadItem as exc:
                print(f"{name}:{number}: skipped: {exc}", file=err)
                bad += 1
                continue
            trace: dict[str, str] = {}
            tags = ruleset.classify(item, trace)
            if explain:
                print(explain_text(item, tags, trace, ruleset) + "\n", file=out)
            else:
                print(as_json(item, tags, ruleset, trace), file=out)
    if bad:
        print(f"{bad} line(s) skipped", file=err)
    return 1 if bad else 0


# ---------------------------------------------------------------- reclassify and reload


def parse_since(text: str | None) -> datetime | None:
    """`2026-06-01` or an ISO date-time; without a zone it is UTC."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"--since {text!r} is not a date (2026-06-01) or ISO date-time "
            "(2026-06-01T08:00:00+08:00)"
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


async def _connect(nats_url: str):
    """NATS with the services' credential settings; a one-line error, the URL's secret redacted."""
    from shared.natsclient import connect
    from shared.service import NatsUnreachable

    from .config import ClassifierSettings

    try:
        return await connect(
            ClassifierSettings(nats_url=nats_url), name="repodigest-classifier-cli", reconnects=2
        )
    except NatsUnreachable as exc:
        raise ConnectionError(str(exc)) from None


def reclassify_command(
    nats_url: str,
    repo: str | None,
    since: str | None,
    profile: str | None,
    *,
    progress: bool = True,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """`repodigest reclassify`: replay RD_GITHUB through the current rules into RD_ENRICHED.

    Rules: the classifier settings (`REPODIGEST_PROFILES_DIR`, `REPODIGEST_PROFILE_OVERRIDES`,
    CODEOWNERS, `REPODIGEST_IDENTITIES`), or `profile` (a name or a profile YAML path) for every
    repository. Exit codes: 0 done; 1 some messages could not be re-classified (listed); 2 bad arguments, rules that do
    not load, or NATS unreachable.
    """
    import asyncio

    from .adapters.profiles import load_registry
    from .config import ClassifierSettings
    from .reclassify import reclassify

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if repo is not None and (repo.count("/") != 1 or not all(repo.split("/"))):
        print(f"error: repository {repo!r} must be OWNER/NAME", file=err)
        return 2
    try:
        since_at = parse_since(since)
        settings = ClassifierSettings(nats_url=nats_url)
        registry = load_registry(
            settings.profiles_dir,
            settings.codeowners_files(),
            settings.profile_overrides,
            pinned=profile,
            identities=settings.identities,
        )
    except (ValueError, ProfileError) as exc:
        print(f"error: {exc}", file=err)
        return 2

    async def main() -> Any:
        nc = await _connect(nats_url)
        try:
            return await reclassify(
                nc.jetstream(), repo, since=since_at, progress=progress, registry=registry
            )
        finally:
            await nc.drain()

    try:
        result = asyncio.run(main())
    except ConnectionError as exc:
        print(f"error: {exc}", file=err)
        return 2
    except Exception as exc:  # noqa: BLE001 - a NATS failure mid-replay: say what happened
        print(
            f"error: reclassification stopped: {type(exc).__name__}: {exc}. It is safe to run it "
            "again (enriched ids are deterministic)",
            file=err,
        )
        return 2
    rulesets = (
        ", ".join(
            f"{r}: {v.split('@')[0]}@{v.split('@')[1][:12]}"
            for r, v in sorted(result.rulesets.items())
        )
        or "none"
    )
    print(
        f"reclassified {result.facts} facts of {repo or 'all repositories'} "
        f"({result.before_since} before --since left as they were); rules: {rulesets}",
        file=out,
    )
    for name, mark in sorted(result.watermarks.items()):
        print(
            f"forwarded the watermark of {name} ({mark.isoformat()}): the summarizer "
            "re-summarizes the windows whose figures changed",
            file=out,
        )
    for problem in result.problems:
        print(f"skipped: {problem}", file=err)
    if result.skipped:
        print(f"{result.skipped} message(s) could not be re-classified", file=err)
        return 1
    return 0


def reload_command(
    nats_url: str,
    timeout: float = 10.0,
    replicas: int = 1,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """`repodigest classifier-reload`: ask running classifiers to re-read their rule profiles.

    Sends a request on `rd.control.classifier.reload` and prints each answer (every replica
    answers; waits for `replicas` answers or `timeout` seconds). Exit codes: 0 every answer says
    reloaded; 1 a classifier refused the new rules (file:LINE: reason printed; it keeps the old
    ones); 2 NATS unreachable or no classifier answered.
    """
    import asyncio
    import json as _json

    import nats.errors

    from .handlers import RELOAD_SUBJECT, ReloadReply

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr

    async def main() -> list[ReloadReply]:
        nc = await _connect(nats_url)
        try:
            inbox = nc.new_inbox()
            sub = await nc.subscribe(inbox)
            await nc.publish(RELOAD_SUBJECT, b"{}", reply=inbox)
            got: list[ReloadReply] = []
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while len(got) < replicas and loop.time() < deadline:
                try:
                    msg = await sub.next_msg(timeout=max(0.01, deadline - loop.time()))
                except nats.errors.TimeoutError:
                    break
                got.append(ReloadReply.model_validate(_json.loads(msg.data)))
            await sub.unsubscribe()
            return got
        finally:
            await nc.drain()

    try:
        replies = asyncio.run(main())
    except ConnectionError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if not replies:
        print(
            f"error: no classifier answered on {RELOAD_SUBJECT} within {timeout:g}s; is one running "
            "against this NATS server?",
            file=err,
        )
        return 2
    code = 0
    for reply in replies:
        if reply.ok:
            versions = ", ".join(f"{n}@{v[:12]}" for n, v in sorted(reply.profiles.items()))
            print(
                f"reloaded; changed: {', '.join(reply.changed) or 'none'}; now {versions}", file=out
            )
        else:
            print(f"refused, the previous rules stay in use:\n{reply.error}", file=err)
            code = 1
    if len(replies) < replicas:
        print(
            f"warning: {len(replies)} of {replicas} classifiers answered within {timeout:g}s",
            file=err,
        )
    return code
