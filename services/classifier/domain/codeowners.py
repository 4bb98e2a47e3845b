"""CODEOWNERS: parse the file's text, decide which line owns a path, turn lines into areas.

Which line owns a path is GitHub's rule ("About code owners"): the LAST line whose pattern
matches wins, and a line with no owners leaves the path without owners (it still wins). The
patterns are gitignore-like: a `/` at the start or in the middle anchors at the root, otherwise any
depth; a trailing `/` matches directories only; `docs/*` matches the files directly in `docs/`,
not nested ones; `**` any number of directories. The matching itself is the `codeowners` package's
(a port of hmarr/codeowners, tested against git): it agrees with GitHub's documented examples
(tests/unit/classifier/test_classifier_codeowners_github.py). What GitHub documents as not working
in CODEOWNERS (`!` negation, `[ ]` ranges, `\\#` escapes) makes the line invalid: GitHub skips an
invalid line, so do we, with a warning.

GitLab-style `[Section]` headers (with optional default owners, `[Docs] @docs-team`) are accepted:
the section names an area, and a line without owners in a section with default owners has those.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from codeowners import CodeOwners

_SECTION = re.compile(r"^\^?\[(?P<name>[^\]]+)\](?:\[\d+\])?(?:\s+(?P<owners>.*))?$")
_MAGIC = re.compile(r"[*?\[\]{}]")


@dataclass(frozen=True)
class OwnerRule:
    line: int
    pattern: str
    owners: tuple[str, ...]
    section: str | None = None
    section_owners: tuple[str, ...] = ()

    @property
    def effective_owners(self) -> tuple[str, ...]:
        """The line's owners, else its section's default owners (GitLab); () clears ownership."""
        return self.owners or self.section_owners


def _split(text: str) -> list[str]:
    # an unescaped `#` starts a comment; `\ ` is a literal space in the pattern
    text = re.split(r"(?<!\\)#", text, maxsplit=1)[0].strip()
    return [p for p in re.split(r"(?<!\\)\s+", text) if p]


def parse_codeowners(text: str) -> list[OwnerRule]:
    """Every rule line, in file order (comments, blank lines and section headers left out)."""
    return parse_codeowners_checked(text)[0]


def parse_codeowners_checked(text: str) -> tuple[list[OwnerRule], list[str]]:
    """The valid rule lines, and a warning for each line GitHub would skip as invalid."""
    rules: list[OwnerRule] = []
    problems: list[str] = []
    section: str | None = None
    section_owners: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _SECTION.match(line)
        if m:
            section = m.group("name").strip()
            section_owners = tuple(_split(m.group("owners") or ""))
            continue
        why = _unsupported(line)
        if why:
            problems.append(
                f"CODEOWNERS line {number}: {line.split()[0]!r}: {why}; "
                "GitHub skips the line, so does the classifier"
            )
            continue
        parts = _split(line)
        if not parts:
            continue
        pattern = parts[0].replace("\\ ", " ")
        rules.append(OwnerRule(number, pattern, tuple(parts[1:]), section, section_owners))
    return rules, problems


def _unsupported(line: str) -> str | None:
    """What GitHub documents as not working in CODEOWNERS ("Syntax exceptions")."""
    if line.startswith("\\#"):
        return "escaping a leading '#' with '\\' does not work in CODEOWNERS"
    if line.startswith("!"):
        return "'!' negation does not work in CODEOWNERS"
    pattern = re.split(r"(?<!\\)\s", line, maxsplit=1)[0]
    if "[" in pattern or "]" in pattern:
        return "'[ ]' character ranges do not work in CODEOWNERS"
    return None


class OwnersMatcher:
    """The last matching line of each path (GitHub's "last match wins")."""

    def __init__(self, rules: list[OwnerRule]) -> None:
        self.rules = {r.line: r for r in rules}
        # only the valid patterns, at their own line numbers (owners are ours to read)
        lines = [""] * (max(self.rules, default=0))
        for r in rules:
            lines[r.line - 1] = r.pattern.replace(" ", "\\ ")
        self._matcher = CodeOwners("\n".join(lines))

    def owner_rule(self, path: str) -> OwnerRule | None:
        line = self._matcher.matching_line(path)[1]
        return self.rules.get(line) if line is not None else None


def derived_area(rule: OwnerRule) -> str | None:
    """The area a pattern names by itself: its last literal path segment, without extension."""
    segments = [s for s in rule.pattern.strip("/").split("/") if s and not _MAGIC.search(s)]
    if not segments:
        return None
    last = segments[-1]
    stem = last.rsplit(".", 1)[0] if "." in last[1:] else last
    return stem.lstrip(".") or None


def area_of(
    rule: OwnerRule,
    owner_areas: Mapping[str, str],
    aliases: Mapping[str, str],
    from_sections: bool,
    from_paths: bool,
) -> str | None:
    """The area of the files a line owns; None for a line without owners (GitHub: no owners)."""
    owners = rule.effective_owners
    if not owners:
        return None
    for owner in owners:
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
