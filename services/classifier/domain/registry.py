"""Profile selection: which profile classifies a repository (`ProfileRegistry`, built by
`build_registry` from the profiles' YAML, with per-repository overrides and patterns).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from shared.events import RuleSetRef

from .identities import IdentityBook, combined_version
from .profile import DEFAULT_PROFILE, canonical_profile, resolve_profile
from .profile_errors import ProfileError
from .ruleset import CompiledRuleSet, compile_profile


@dataclass
class ProfileRegistry:
    """Compiled profiles and which repository uses which (overrides, then repo globs, then default)."""

    rulesets: dict[str, CompiledRuleSet]
    overrides: dict[str, str] = field(default_factory=dict)
    default: str = DEFAULT_PROFILE
    # every repository uses this profile (re-classifying history with a chosen rule set)
    pinned: str | None = None
    # who is whom and worked where when (the identities file); part of every rule set's version
    identities: IdentityBook | None = None

    def __post_init__(self) -> None:
        if self.identities is not None:  # copies: a compiled rule set may serve other registries
            self.rulesets = {
                name: replace(
                    rs,
                    ref=RuleSetRef(
                        profile=rs.ref.profile,
                        version=combined_version(rs.ref.version, self.identities),
                    ),
                )
                for name, rs in self.rulesets.items()
            }
        self.overrides = {
            repo: canonical_profile(name, self.rulesets) for repo, name in self.overrides.items()
        }
        self.default = canonical_profile(self.default, self.rulesets)
        if self.pinned is not None:
            self.pinned = self.get(self.pinned).name
        for repo, name in self.overrides.items():
            if name not in self.rulesets:
                raise ProfileError(
                    f"repository {repo!r} is set to use profile {name!r}, which does "
                    f"not exist (known profiles: {', '.join(sorted(self.rulesets))})"
                )
        if self.default not in self.rulesets:
            raise ProfileError(
                f"no {self.default!r} profile (known profiles: "
                f"{', '.join(sorted(self.rulesets)) or 'none'})"
            )
        self._overrides = {k.lower(): v for k, v in self.overrides.items()}
        self._globs = sorted(
            ((g.lower(), name) for name, rs in self.rulesets.items() for g in rs.profile.repos),
            key=lambda gn: (_MAGIC_REPO.search(gn[0]) is not None, -len(gn[0]), gn[1]),
        )
        self._chosen: dict[str, CompiledRuleSet] = {}

    def get(self, name: str) -> CompiledRuleSet:
        try:
            return self.rulesets[canonical_profile(name, self.rulesets)]
        except KeyError:
            raise ProfileError(
                f"unknown profile {name!r} (known profiles: {', '.join(sorted(self.rulesets))})"
            ) from None

    def for_repo(self, repo: str) -> CompiledRuleSet:
        chosen = self._chosen.get(repo)
        if chosen is None:
            chosen = self.rulesets[self.profile_name(repo)]
            self._chosen[repo] = chosen
        return chosen

    def versions(self) -> dict[str, str]:
        """Profile name -> rule-set version, for logs and reload answers."""
        return {name: rs.ref.version for name, rs in sorted(self.rulesets.items())}

    def profile_name(self, repo: str) -> str:
        if self.pinned is not None:
            return self.pinned
        low = repo.lower()
        if low in self._overrides:
            return self._overrides[low]
        for pattern, name in self._globs:  # exact names first, then the longest glob
            if fnmatch.fnmatchcase(low, pattern):
                return name
        return self.default


_MAGIC_REPO = re.compile(r"[*?\[]")


def build_registry(
    raws: Mapping[str, tuple[str, Mapping[str, Any]]],
    codeowners: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    pinned: str | None = None,
    identities: IdentityBook | None = None,
) -> ProfileRegistry:
    """Resolve, validate and compile every profile. `raws`: name -> (source file, parsed YAML);
    `codeowners`: profile name (or `*` for all) -> CODEOWNERS text; `overrides`: repo -> profile;
    `identities`: the identities file, compiled."""
    codeowners = dict(codeowners or {})
    rulesets: dict[str, CompiledRuleSet] = {}
    for name in raws:
        profile, _ = resolve_profile(name, raws)
        rulesets[name] = compile_profile(profile, codeowners.get(name, codeowners.get("*")))
    return ProfileRegistry(rulesets, dict(overrides or {}), pinned=pinned, identities=identities)
