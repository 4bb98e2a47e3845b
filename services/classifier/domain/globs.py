"""Path globs and the actions/labeler v5 `changed-files` syntax, compiled once into bit masks.

Every glob a rule set uses gets one bit in a `GlobTable`. A changed path is matched against the
table once (and the result cached), so an item's rules are decided by integer arithmetic on the
masks of its files instead of by re-running globs per rule.

Glob semantics are wcmatch's (`GLOBSTAR | DOTGLOB | BRACE | EXTGLOB`), the closest Python match to
the minimatch options actions/labeler uses (`dot: true`); a leading `!` negates one glob the way
minimatch does (the glob matches a path the pattern does not match).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import bracex  # wcmatch's own brace expander
from wcmatch import glob as wcglob

GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.DOTGLOB | wcglob.BRACE | wcglob.EXTGLOB
_MAGIC = re.compile(r"[*?\[\]{}!@+()]")
_GROUPS = re.compile(r"\[[^\]]*\]|\{[^}]*\}|[@!+*?]\([^)]*\)")
_CACHE_LIMIT = 200_000


class GlobError(ValueError):
    """A glob or a labeler match config is malformed; the message says which and why."""


def compile_glob(pattern: str) -> re.Pattern[str]:
    try:
        regexes, _ = wcglob.translate(pattern, flags=GLOB_FLAGS)
    except Exception as exc:  # noqa: BLE001 - wcmatch raises several types; all mean "bad glob"
        raise GlobError(f"invalid glob {pattern!r}: {exc}") from None
    if len(regexes) == 1:
        return re.compile(regexes[0])
    return re.compile("|".join(f"(?:{r})" for r in regexes))


def glob_alternatives(pattern: str) -> list[tuple[str, re.Pattern[str]]]:
    """(glob, regex) per brace expansion of `pattern` (`{docs/**,**/*.md}` gives two), so that each
    is only tried on the paths it can match; `pattern` itself when wcmatch reads it otherwise."""
    if "{" in pattern:
        try:
            expanded = bracex.expand(pattern)
            whole = wcglob.translate(pattern, flags=GLOB_FLAGS)[0]
            parts = [wcglob.translate(alt, flags=GLOB_FLAGS)[0] for alt in expanded]
        except Exception:  # noqa: BLE001 - compile_glob reports a bad glob
            parts = []
        if len(parts) > 1 and all(len(p) == 1 for p in parts) and [p[0] for p in parts] == whole:
            return [(alt, re.compile(p[0])) for alt, p in zip(expanded, parts)]
    return [(pattern, compile_glob(pattern))]


class GlobTable:
    """All globs of a rule set, one bit each; `mask(path)` says which of them match the path."""

    def __init__(self) -> None:
        self._bits: dict[str, int] = {}
        self._patterns: list[str] = []
        # globs (each brace alternative apart) whose first segment is a literal directory are only
        # tried on paths under it, globs with a literal part (`**/rocm/**`, `vllm/v1/core/**`)
        # only on paths containing it; a negated glob's bit is set when none of its alternatives
        # matches
        self._by_head: dict[str, list[tuple[int, str, re.Pattern[str]]]] = {}
        self._by_literal: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
        self._anywhere: list[tuple[int, re.Pattern[str]]] = []
        self._negated: list[tuple[int, list[tuple[str | None, str, re.Pattern[str]]]]] = []
        self._cache: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._patterns)

    def bit(self, pattern: str) -> int:
        """The bit index of `pattern` (added on first use)."""
        if not isinstance(pattern, str) or not pattern.strip():
            raise GlobError(f"a glob must be a non-empty string, got {pattern!r}")
        pattern = pattern.strip()
        if pattern in self._bits:
            return self._bits[pattern]
        negate = pattern.startswith("!")
        body = pattern[1:] if negate else pattern
        if not body:
            raise GlobError(f"invalid glob {pattern!r}: nothing after '!'")
        compile_glob(body)  # a bad glob fails here, whole
        index = len(self._patterns)
        self._patterns.append(pattern)
        self._bits[pattern] = index
        negated: list[tuple[str | None, str, re.Pattern[str]]] = []
        for alt, rx in glob_alternatives(body):
            head = alt.split("/", 1)[0]
            fixed_head = head if "/" in alt and not _MAGIC.search(head) else None
            literal = _required_literal(alt)
            if literal == fixed_head:  # the head is checked anyway: `csrc/**/*.cu` needs ".cu"
                literal = _required_literal(alt.split("/", 1)[1])
            if negate:
                negated.append((fixed_head, literal, rx))
            elif fixed_head is not None:
                self._by_head.setdefault(fixed_head, []).append((index, literal, rx))
            elif literal:
                self._by_literal.setdefault(literal, []).append((index, rx))
            else:
                self._anywhere.append((index, rx))
        if negate:
            self._negated.append((index, negated))
        self._cache.clear()
        return index

    def bits(self, patterns: Iterable[str]) -> int:
        mask = 0
        for p in patterns:
            mask |= 1 << self.bit(p)
        return mask

    def pattern(self, index: int) -> str:
        return self._patterns[index]

    def mask(self, path: str) -> int:
        cached = self._cache.get(path)
        if cached is not None:
            return cached
        mask = 0
        head = path.split("/", 1)[0]
        for index, literal, rx in self._by_head.get(head, ()):
            if literal in path and not mask >> index & 1 and rx.fullmatch(path) is not None:
                mask |= 1 << index
        for literal, entries in self._by_literal.items():
            if literal in path:
                for index, rx in entries:
                    if not mask >> index & 1 and rx.fullmatch(path) is not None:
                        mask |= 1 << index
        for index, rx in self._anywhere:
            if not mask >> index & 1 and rx.fullmatch(path) is not None:
                mask |= 1 << index
        for index, alternatives in self._negated:
            for fixed_head, literal, rx in alternatives:
                if ((fixed_head is None or fixed_head == head) and literal in path
                        and rx.fullmatch(path) is not None):
                    break
            else:
                mask |= 1 << index
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[path] = mask
        return mask


def _required_literal(glob: str) -> str:
    """The longest run of plain characters every path matching `glob` contains ('' if none)."""
    if "\\" in glob:
        return ""
    flat = _GROUPS.sub("*", glob)
    runs = [r.strip("/") for r in re.split(r"[*?\[\]{}()!@+]", flat)]
    return max(runs, key=len, default="")


@dataclass(frozen=True)
class FileSet:
    """The changed files of one item with their glob masks (any = OR of masks, all = AND)."""

    paths: tuple[str, ...]
    masks: tuple[int, ...]
    any_mask: int
    all_mask: int

    @classmethod
    def build(cls, table: GlobTable, paths: Sequence[str]) -> "FileSet":
        masks = tuple(table.mask(p) for p in paths)
        any_mask, all_mask = 0, (-1 if masks else 0)
        for m in masks:
            any_mask |= m
            all_mask &= m
        return cls(tuple(paths), masks, any_mask, all_mask)

    def matching(self, bits: int) -> list[str]:
        return [p for p, m in zip(self.paths, self.masks) if m & bits]


# ---------------------------------------------------------------- actions/labeler v5

FilesOp = Literal["any-glob-to-any-file", "any-glob-to-all-files", "all-globs-to-any-file",
                  "all-globs-to-all-files"]
FILES_OPS: tuple[str, ...] = ("any-glob-to-any-file", "any-glob-to-all-files",
                              "all-globs-to-any-file", "all-globs-to-all-files")
BASE_KEYS = ("changed-files", "base-branch", "head-branch")


@dataclass(frozen=True)
class FilesCondition:
    op: str
    bits: int
    positive: int  # bits of the non-negated globs: which files are evidence of a match

    def test(self, files: FileSet) -> bool:
        if not files.paths:
            return False
        op, bits = self.op, self.bits
        if op == "any-glob-to-any-file":
            return bool(files.any_mask & bits)
        if op == "any-glob-to-all-files":
            return bool(files.all_mask & bits)
        if op == "all-globs-to-any-file":
            for m in files.masks:
                if m & bits == bits:
                    return True
            return False
        return files.all_mask & bits == bits  # all-globs-to-all-files


@dataclass(frozen=True)
class BaseCondition:
    files: tuple[FilesCondition, ...] = ()
    base_branch: tuple[re.Pattern[str], ...] | None = None
    head_branch: tuple[re.Pattern[str], ...] | None = None

    def test(self, mode: str, files: FileSet, base: str | None, head: str | None) -> bool:
        checks: list[bool] = []
        if self.files:
            if mode == "any":
                ok = False
                for c in self.files:
                    if c.test(files):
                        ok = True
                        break
            else:
                ok = True
                for c in self.files:
                    if not c.test(files):
                        ok = False
                        break
            if mode == "any" and ok and self.base_branch is None and self.head_branch is None:
                return True
            checks.append(ok)
        for patterns, branch in ((self.base_branch, base), (self.head_branch, head)):
            if patterns is not None:
                hits = (branch is not None and p.search(branch) is not None for p in patterns)
                checks.append(any(hits) if mode == "any" else all(hits))
        if not checks:
            return False
        return any(checks) if mode == "any" else all(checks)


@dataclass(frozen=True)
class MatchGroup:
    mode: Literal["any", "all"]
    bases: tuple[BaseCondition, ...]

    def test(self, files: FileSet, base: str | None, head: str | None) -> bool:
        results = (b.test(self.mode, files, base, head) for b in self.bases)
        return any(results) if self.mode == "any" else all(results)


@dataclass(frozen=True)
class LabelerConfig:
    """One label's value in a labeler.yml v5: its match groups are AND-ed (as in the action)."""

    groups: tuple[MatchGroup, ...]
    evidence_bits: int
    # with files only, a match needs some file with one of these bits set (a negated glob's bit
    # is set on the paths it does not match); None when branch conditions make this unsafe
    relevant_bits: int | None = None

    def test(self, files: FileSet, base: str | None = None, head: str | None = None) -> bool:
        if self.relevant_bits is not None and not files.any_mask & self.relevant_bits:
            return False
        if not self.groups:
            return False
        for g in self.groups:
            if not g.test(files, base, head):
                return False
        return True


def _as_list(value: Any, where: str) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(v, str) for v in items):
        raise GlobError(f"{where}: expected a glob or a non-empty list of globs, got {value!r}")
    return items


def _changed_files(value: Any, table: GlobTable) -> tuple[tuple[FilesCondition, ...], int]:
    entries = value if isinstance(value, list) else [value]
    if not entries:
        raise GlobError("changed-files: empty list")
    conditions: list[FilesCondition] = []
    evidence = 0
    for entry in entries:
        if isinstance(entry, str) or (isinstance(entry, list) and all(isinstance(e, str) for e in entry)):
            ops = {"any-glob-to-any-file": entry}
        elif isinstance(entry, dict):
            unknown = [k for k in entry if k not in FILES_OPS]
            if unknown:
                raise GlobError(
                    f"changed-files: unknown option {', '.join(map(str, unknown))}; expected one of "
                    + ", ".join(FILES_OPS))
            ops = entry
        else:
            raise GlobError(f"changed-files: expected a mapping like "
                            f"{{any-glob-to-any-file: [...]}}, got {entry!r}")
        for op, globs in ops.items():
            patterns = _as_list(globs, f"changed-files.{op}")
            bits = table.bits(patterns)
            positive = table.bits(p for p in patterns if not p.strip().startswith("!"))
            evidence |= positive
            conditions.append(FilesCondition(op, bits, positive))
    return tuple(conditions), evidence


def _branches(value: Any, where: str) -> tuple[re.Pattern[str], ...]:
    out = []
    for pattern in _as_list(value, where):
        try:
            out.append(re.compile(pattern))
        except re.error as exc:
            raise GlobError(f"{where}: invalid regular expression {pattern!r}: {exc}") from None
    return tuple(out)


def _base(config: Any, table: GlobTable) -> tuple[BaseCondition, int]:
    if not isinstance(config, dict):
        raise GlobError(f"expected a mapping with changed-files/base-branch/head-branch, got {config!r}")
    unknown = [k for k in config if k not in BASE_KEYS]
    if unknown:
        raise GlobError(f"unknown labeler option {', '.join(map(str, unknown))}; expected "
                        + ", ".join(BASE_KEYS) + " (or any/all)")
    files, evidence = ((), 0)
    if "changed-files" in config:
        files, evidence = _changed_files(config["changed-files"], table)
    base = _branches(config["base-branch"], "base-branch") if "base-branch" in config else None
    head = _branches(config["head-branch"], "head-branch") if "head-branch" in config else None
    return BaseCondition(files, base, head), evidence


def parse_labeler(value: Any, table: GlobTable) -> LabelerConfig:
    """Compile one label's labeler.yml v5 value (a list of match objects) against `table`.

    Top-level `changed-files`/`base-branch`/`head-branch` entries join one implicit `any` group,
    explicit `any:`/`all:` groups stand alone, and all groups must match (actions/labeler v5).
    """
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not value:
        raise GlobError("expected a list of match objects, e.g. "
                        "[{changed-files: [{any-glob-to-any-file: ['src/**']}]}]")
    groups: list[tuple[str, list[BaseCondition]]] = []
    implicit: list[BaseCondition] | None = None
    evidence = 0
    for entry in value:
        if not isinstance(entry, dict):
            raise GlobError(f"expected a match object (mapping), got {entry!r}")
        for key, sub in entry.items():
            if key in ("any", "all"):
                if not isinstance(sub, list) or not sub:
                    raise GlobError(f"{key}: expected a non-empty list of match objects")
                bases = []
                for item in sub:
                    base, ev = _base(item, table)
                    bases.append(base)
                    evidence |= ev
                groups.append((key, bases))
            elif key in BASE_KEYS:
                base, ev = _base({key: sub}, table)
                evidence |= ev
                if implicit is None:
                    implicit = []
                    groups.append(("any", implicit))
                implicit.append(base)
            else:
                raise GlobError(f"unknown labeler key {key!r}; expected any, all, "
                                + ", ".join(BASE_KEYS))
    built = tuple(MatchGroup(mode, tuple(bases)) for mode, bases in groups)  # type: ignore[arg-type]
    relevant: int | None = 0
    for group in built:
        for base in group.bases:
            if base.base_branch is not None or base.head_branch is not None:
                relevant = None
            elif relevant is not None:
                for cond in base.files:
                    relevant |= cond.bits
    return LabelerConfig(built, evidence, relevant)

