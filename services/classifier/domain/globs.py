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
                if (
                    (fixed_head is None or fixed_head == head)
                    and literal in path
                    and rx.fullmatch(path) is not None
                ):
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
    def build(cls, table: GlobTable, paths: Sequence[str]) -> FileSet:
        masks = tuple(table.mask(p) for p in paths)
        any_mask, all_mask = 0, (-1 if masks else 0)
        for m in masks:
            any_mask |= m
            all_mask &= m
        return cls(tuple(paths), masks, any_mask, all_mask)

    def matching(self, bits: int) -> list[str]:
        return [p for p, m in zip(self.paths, self.masks) if m & bits]


# ---------------------------------------------------------------- actions/labeler v5 / v6

# Semantics follow actions/labeler's own code and tests (src/api/get-label-configs.ts, labeler.ts,
# changedFiles.ts, branch.ts; __tests__/*): see tests/unit/classifier/test_classifier_labeler_upstream.py.

FilesOp = Literal[
    "any-glob-to-any-file",
    "any-glob-to-all-files",
    "all-globs-to-any-file",
    "all-globs-to-all-files",
]
FILES_OPS: tuple[str, ...] = (
    "any-glob-to-any-file",
    "any-glob-to-all-files",
    "all-globs-to-any-file",
    "all-globs-to-all-files",
)
BASE_KEYS = ("changed-files", "base-branch", "head-branch")
# top-level options of a labeler.yml (actions/labeler v6.1+), not labels
LABELER_OPTIONS = ("changed-files-labels-limit", "max-files-changed")


@dataclass(frozen=True)
class FilesCondition:
    op: str
    bits: int
    positive: int  # bits of the non-negated globs: which files are evidence of a match

    def test(self, files: FileSet) -> bool:
        # no files known (an issue; a webhook snapshot before ingest listed the files) decides
        # nothing: False, where the action would call e.g. any-glob-to-all-files vacuously true
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


def _branch_any(patterns: tuple[re.Pattern[str], ...], branch: str | None) -> bool:
    if not branch:
        return False
    for p in patterns:
        if p.search(branch) is not None:
            return True
    return False


def _branch_all(patterns: tuple[re.Pattern[str], ...], branch: str | None) -> bool:
    if not branch:
        return False
    for p in patterns:
        if p.search(branch) is None:
            return False
    return True


@dataclass(frozen=True)
class BaseCondition:
    """One match object: `changed-files` (one condition per option), `base-branch`, `head-branch`."""

    files: tuple[FilesCondition, ...] = ()
    base_branch: tuple[re.Pattern[str], ...] | None = None
    head_branch: tuple[re.Pattern[str], ...] | None = None

    @property
    def empty(self) -> bool:
        return not self.files and self.base_branch is None and self.head_branch is None

    def test_any(self, files: FileSet, base: str | None, head: str | None) -> bool:
        """Inside `any`: the branch regexes OR-ed, the changed-files options OR-ed, all OR-ed."""
        if self.base_branch is not None and _branch_any(self.base_branch, base):
            return True
        for c in self.files:
            if c.test(files):
                return True
        return self.head_branch is not None and _branch_any(self.head_branch, head)

    def test_all(self, files: FileSet, base: str | None, head: str | None) -> bool:
        """Inside `all`: every regex, every changed-files option, all AND-ed (nothing set: True)."""
        if self.base_branch is not None and not _branch_all(self.base_branch, base):
            return False
        for c in self.files:
            if not c.test(files):
                return False
        return self.head_branch is None or _branch_all(self.head_branch, head)


@dataclass(frozen=True)
class MatchGroup:
    mode: Literal["any", "all"]
    bases: tuple[BaseCondition, ...]

    def test(self, files: FileSet, base: str | None, head: str | None) -> bool:
        if all(b.empty for b in self.bases):  # no option the labeler knows: never matches
            return False
        if self.mode == "any":
            for b in self.bases:
                if b.test_any(files, base, head):
                    return True
            return False
        for b in self.bases:
            if not b.test_all(files, base, head):
                return False
        return True


@dataclass(frozen=True)
class LabelerConfig:
    """One label's value in a labeler.yml: its match groups are AND-ed (as in the action)."""

    groups: tuple[MatchGroup, ...]
    evidence_bits: int
    # with files only, a match needs some file with one of these bits set (a negated glob's bit
    # is set on the paths it does not match); None when branch conditions or an empty glob list
    # make this unsafe
    relevant_bits: int | None = None
    uses_files: bool = False  # some changed-files option: the label counts for the v6.1+ limits
    uses_branches: bool = False  # some base-branch/head-branch: can fire without files
    warnings: tuple[str, ...] = ()  # what was ignored, as the action ignores it

    def test(self, files: FileSet, base: str | None = None, head: str | None = None) -> bool:
        if self.relevant_bits is not None and not files.any_mask & self.relevant_bits:
            return False
        if not self.groups:
            return False
        for g in self.groups:
            if not g.test(files, base, head):
                return False
        return True

    def branch_evidence(self, base: str | None, head: str | None) -> str | None:
        """Which branch names a rule of this config (for the evidence of a branch-only match)."""
        for group in self.groups:
            for b in group.bases:
                if b.head_branch is not None and _branch_any(b.head_branch, head):
                    return f"head branch {head}"
                if b.base_branch is not None and _branch_any(b.base_branch, base):
                    return f"base branch {base}"
        return None


def _globs(value: Any, where: str) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(v, str) for v in items):
        raise GlobError(f"{where}: expected a glob or a list of globs, got {value!r}")
    return items


def _changed_files(
    value: Any, table: GlobTable, warnings: list[str]
) -> tuple[tuple[FilesCondition, ...], int]:
    if not value or not isinstance(value, (list, str)):
        # the action reads `!value.length`: null, [], '' and a mapping are no condition at all
        if isinstance(value, dict) and value:
            warnings.append(
                "changed-files is a mapping, not a list: ignored, as actions/labeler "
                "ignores it (write `- any-glob-to-any-file: [...]` as a list item)"
            )
        return (), 0
    entries = value if isinstance(value, list) else [value]
    conditions: list[FilesCondition] = []
    evidence = 0
    for entry in entries:
        if not isinstance(entry, dict):
            raise GlobError(
                'the "changed-files" section must have a valid config structure: '
                f"expected a mapping like {{any-glob-to-any-file: [...]}}, got {entry!r}"
            )
        unknown = [k for k in entry if k not in FILES_OPS]
        if unknown:
            raise GlobError(
                f'unknown config options were under "changed-files": '
                f"{', '.join(map(str, unknown))}; expected one of " + ", ".join(FILES_OPS)
            )
        for op, globs in entry.items():
            patterns = _globs(globs, f"changed-files.{op}")
            bits = table.bits(patterns)
            positive = table.bits(p for p in patterns if not p.strip().startswith("!"))
            evidence |= positive
            conditions.append(FilesCondition(op, bits, positive))
    return tuple(conditions), evidence


def _branches(value: Any, where: str) -> tuple[re.Pattern[str], ...] | None:
    if not value and value != []:  # null or '': no condition (the action reads it as unset)
        return None
    out = []
    for pattern in (
        [value] if isinstance(value, str) else value if isinstance(value, list) else [value]
    ):
        if not isinstance(pattern, str):
            raise GlobError(
                f"{where}: expected a regular expression or a list of them, got {pattern!r}"
            )
        try:
            out.append(re.compile(pattern))
        except re.error as exc:
            raise GlobError(f"{where}: invalid regular expression {pattern!r}: {exc}") from None
    return tuple(out)


def _base(
    config: Any, table: GlobTable, warnings: list[str], where: str
) -> tuple[BaseCondition, int]:
    if not isinstance(config, dict):
        warnings.append(
            f"{where}: expected a match object (changed-files, base-branch, "
            f"head-branch), got {config!r}: ignored"
        )
        return BaseCondition(), 0
    for key in config:
        if key not in BASE_KEYS:
            warnings.append(
                f"{where}: unknown config option {key!r} ignored (as actions/labeler "
                "does); expected " + ", ".join(BASE_KEYS)
            )
    files, evidence = _changed_files(config.get("changed-files"), table, warnings)
    base = _branches(config.get("base-branch"), "base-branch")
    head = _branches(config.get("head-branch"), "head-branch")
    return BaseCondition(files, base, head), evidence


def parse_labeler(value: Any, table: GlobTable) -> LabelerConfig:
    """Compile one label's labeler.yml value (a list of match objects) against `table`.

    As actions/labeler v5+: `any:`/`all:` entries are groups of their own; a top-level
    `changed-files`/`base-branch`/`head-branch` joins the label's first `any` group (an explicit
    one too, whatever comes first), else starts one; the groups are AND-ed. Keys the action does
    not know are ignored with a warning (`LabelerConfig.warnings`); a malformed `changed-files`
    (a glob where an option mapping belongs, an unknown option) is an error, as in the action.
    A mapping in place of the list is read as a one-item list (`files:` of a module rule).
    """
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(e is None or isinstance(e, dict) for e in value):
        raise GlobError(
            "found unexpected type (should be a list of match objects, e.g. "
            "[{changed-files: [{any-glob-to-any-file: ['src/**']}]}])"
        )
    warnings: list[str] = []
    groups: list[tuple[str, list[BaseCondition]]] = []
    evidence = 0
    for entry in value:
        for key, sub in (entry or {}).items():
            if key in ("any", "all"):
                if not isinstance(sub, list):
                    warnings.append(
                        f"{key}: expected a list of match objects, got {sub!r}: "
                        "ignored (as actions/labeler does)"
                    )
                    continue
                bases = []
                for item in sub:
                    base, ev = _base(item, table, warnings, key)
                    bases.append(base)
                    evidence |= ev
                groups.append((key, bases))
            elif key in BASE_KEYS:
                base, ev = _base({key: sub}, table, warnings, key)
                evidence |= ev
                first_any = next((bases for mode, bases in groups if mode == "any"), None)
                if first_any is None:
                    groups.append(("any", [base]))
                else:
                    first_any.append(base)
            else:
                warnings.append(
                    f"unknown config option {key!r} ignored (as actions/labeler "
                    "does); expected any, all, " + ", ".join(BASE_KEYS)
                )
    built = tuple(MatchGroup(mode, tuple(bases)) for mode, bases in groups)  # type: ignore[arg-type]
    if not built:
        warnings.append("no condition actions/labeler knows: the label never applies")
    relevant: int | None = 0
    uses_files = uses_branches = False
    for group in built:
        for base in group.bases:
            uses_files = uses_files or bool(base.files)
            if base.base_branch is not None or base.head_branch is not None:
                uses_branches = True
                relevant = None
            for cond in base.files:
                if cond.bits == 0:  # an empty glob list: all-globs-to-any-file holds vacuously
                    relevant = None
                elif relevant is not None:
                    relevant |= cond.bits
    return LabelerConfig(built, evidence, relevant, uses_files, uses_branches, tuple(warnings))


def labeler_option(value: Any, name: str) -> int:
    """A v6.1+ top-level option (`changed-files-labels-limit`, `max-files-changed`): a
    non-negative integer, or a string of digits (as actions/labeler parses it)."""
    if isinstance(value, bool) or value is None:
        raise GlobError(f"invalid value for {name!r}: expected a non-negative integer")
    if isinstance(value, int):
        if value < 0:
            raise GlobError(
                f"invalid value for {name!r}: must be a non-negative integer (got {value})"
            )
        return value
    if isinstance(value, float):
        raise GlobError(f"invalid value for {name!r}: must be a non-negative integer (got {value})")
    if isinstance(value, str):
        if not re.fullmatch(r"\d+", value.strip()):
            raise GlobError(
                f"invalid value for {name!r}: must be a non-negative integer (got {value!r})"
            )
        return int(value.strip())
    if isinstance(value, list):
        raise GlobError(
            f"{name!r} is a reserved top-level option and cannot be used as a label "
            "name; rename the label"
        )
    raise GlobError(f"invalid value for {name!r}: expected a non-negative integer")
