"""CODEOWNERS: parse the file's text and turn its path patterns into areas (module names).

GitHub's rules: one `pattern owner...` per line, `#` comments, the last matching line wins; a
pattern is gitignore-like (a leading `/` or a `/` in the middle anchors it at the root, otherwise it
matches at any depth; a trailing `/` means a directory; a plain name matches a file or a
directory). GitLab-style `[Section]` headers are accepted and remembered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_SECTION = re.compile(r"^\^?\[(?P<name>[^\]]+)\](?:\[\d+\])?(?:\s+.*)?$")
_MAGIC = re.compile(r"[*?\[\]{}]")


@dataclass(frozen=True)
class OwnerRule:
    line: int
    pattern: str
    owners: tuple[str, ...]
    section: str | None = None


def parse_codeowners(text: str) -> list[OwnerRule]:
    rules: list[OwnerRule] = []
    section: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _SECTION.match(line)
        if m:
            section = m.group("name").strip()
            continue
        # an unescaped `#` starts a comment; `\ ` is a literal space in the pattern
        line = re.split(r"(?<!\\)#", line, maxsplit=1)[0].strip()
        parts = re.split(r"(?<!\\)\s+", line)
        pattern = parts[0].replace("\\ ", " ").replace("\\#", "#")
        rules.append(OwnerRule(number, pattern, tuple(parts[1:]), section))
    return rules


def pattern_globs(pattern: str) -> list[str]:
    """Globs (for the rule set's glob table) equivalent to one CODEOWNERS path pattern."""
    p = pattern
    directory_only = p.endswith("/")
    p = p.strip("/") if p not in ("/", "*") else "**"
    if not p:
        return ["**"]
    anchored = pattern.startswith("/") or "/" in p
    base = p if anchored or p.startswith("**") else f"**/{p}"
    if directory_only:
        return [f"{base}/**"]
    return [base, f"{base}/**"]


def derived_area(rule: OwnerRule) -> str | None:
    """The area a pattern names by itself: its last literal path segment, without extension."""
    segments = [s for s in rule.pattern.strip("/").split("/") if s and not _MAGIC.search(s)]
    if not segments:
        return None
    last = segments[-1]
    stem = last.rsplit(".", 1)[0] if "." in last[1:] else last
    return stem.lstrip(".") or None


def area_of(rule: OwnerRule, owner_areas: Mapping[str, str], aliases: Mapping[str, str],
            from_sections: bool, from_paths: bool) -> str | None:
    for owner in rule.owners:
        area = owner_areas.get(owner) or owner_areas.get(owner.lower())
        if area:
            return area
    name: str | None = None
    if from_sections and rule.section:
        name = rule.section
    elif from_paths:
        name = derived_area(rule)
    if name is None:
        return None
    key = name.lower()
    return aliases.get(key, aliases.get(name, key))
