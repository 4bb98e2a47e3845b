"""Small builders for classifier unit tests: items, profiles from inline YAML, compiled rule sets."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any

import yaml

from services.classifier.adapters.profiles import read_profiles
from services.classifier.domain.rules import (
    CompiledRuleSet,
    compile_profile,
    resolve_profile,
)
from shared.events import Actor, FileChange, ItemSnapshot

T0 = datetime(2026, 3, 26, 4, 0, tzinfo=UTC)


def item(
    title: str,
    files: list[str] | list[tuple[str, int, int]] = (),
    *,
    login: str = "dev",
    kind: str = "pull_request",
    labels: tuple[str, ...] = (),
    body: str = "",
    association: str = "CONTRIBUTOR",
    email_domain: str | None = None,
    is_bot: bool = False,
    additions: int | None = None,
    deletions: int | None = None,
    base_branch: str | None = None,
    head_branch: str | None = None,
    repo: str = "vllm-project/vllm",
) -> ItemSnapshot:
    changes = []
    for f in files:
        if isinstance(f, tuple):
            changes.append(FileChange(path=f[0], additions=f[1], deletions=f[2]))
        else:
            changes.append(FileChange(path=f, additions=5, deletions=1))
    return ItemSnapshot(
        repo=repo,
        number=1,
        kind=kind,
        title=title,
        author=Actor(
            login=login, association=association, email_domain=email_domain, is_bot=is_bot
        ),
        labels=labels,
        state="open",
        created_at=T0,
        body_excerpt=body,
        files=tuple(changes),
        additions=additions,
        deletions=deletions,
        base_branch=base_branch,
        head_branch=head_branch,
    )


@cache
def builtin(name: str) -> CompiledRuleSet:
    profile, _ = resolve_profile(name, read_profiles())
    return compile_profile(profile)


def compile_yaml(
    text: str, *, extra: dict[str, str] | None = None, codeowners: str | None = None
) -> CompiledRuleSet:
    """Compile an inline profile (plus optional extra inline profiles it may extend)."""
    raws: dict[str, tuple[str, Any]] = dict(read_profiles())
    for name, body in (extra or {}).items():
        raws[name] = (f"{name}.yaml", yaml.safe_load(body))
    raw = yaml.safe_load(text)
    raws[raw["profile"]] = (f"{raw['profile']}.yaml", raw)
    profile, _ = resolve_profile(raw["profile"], raws)
    return compile_profile(profile, codeowners)


def names(tags_section) -> list[str]:
    return [t.name for t in tags_section]


def rules(tags_section) -> list[str]:
    return [t.rule for t in tags_section]
