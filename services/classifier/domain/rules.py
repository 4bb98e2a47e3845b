"""The rule engine: profile models (validated YAML), compilation, and `classify(item) -> Tags`.

A profile is a declarative rule set for some repositories: modules, risks, ecosystems,
categories, affiliations, bots. Profiles may `extends:` another; the resolved content (and the
CODEOWNERS text it uses) is hashed into the rule-set version that travels with every tag.
Every tag carries the id of the rule that fired, `<section>:<name>/<how>`, for example
`module:rocm/title-prefix` or `risk:core-without-tests/files`.

Pure: no file or network I/O and no clock; the adapter reads the YAML and CODEOWNERS files.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from shared.events import ItemSnapshot, RiskTag, RuleSetRef, Tag, Tags

from .codeowners import OwnersMatcher, area_of, parse_codeowners_checked
from .digest import digest_of
from .globs import LABELER_OPTIONS, FileSet, GlobError, GlobTable, labeler_option, parse_labeler
from .prefilter import RegexGate

# bump when the engine's semantics change, so the rule-set version changes with them
# 2: labeler and CODEOWNERS semantics as actions/labeler and GitHub (issue #17 item 12)
# 3: the digest takes no claim from a pasted log line
# 4: the digest's what is never a list of files or a link alone, keeps a bold name that goes on
#    a sentence, and a revert's reason is never its test note
# 5: a revert's reason may be that it is undone on purpose for a while ("the main branch is freeze")
ENGINE_VERSION = "6"
DEFAULT_PROFILE = "generic"
# old names that still work wherever a profile is named (--profile, extends:, overrides); a real
# profile of that name wins over the alias
PROFILE_ALIASES: dict[str, str] = {"default": "generic"}


def canonical_profile(name: str, known: Mapping[str, Any] | set[str]) -> str:
    """`name` itself when such a profile exists, else what it is an alias of."""
    if name in known:
        return name
    return PROFILE_ALIASES.get(name, name)


class LocatedMapping(dict):
    """A profile's YAML content with the line of every key and list element, so that an error
    can name the line: `lines[("modules", 3, "title_regex", 0)] == 41` (1-based)."""

    lines: dict[tuple[Any, ...], int]

    def __init__(self, data: Mapping[str, Any], lines: Mapping[tuple[Any, ...], int]) -> None:
        super().__init__(data)
        self.lines = dict(lines)


class ProfileError(ValueError):
    """A profile is invalid; the message names the file, the rule and the problem."""


# ---------------------------------------------------------------- profile models (the YAML)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


def _check_regexes(values: tuple[str, ...]) -> tuple[str, ...]:
    """Each pattern alone, then grouped as `_any_regex` joins it with the field's others: a
    global flag such as a leading `(?i)` compiles alone but not there, and is refused here with
    the file and line instead of failing later, when the rule set is built."""
    for v in values:
        try:
            re.compile(v)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {v!r}: {exc}") from None
        try:
            re.compile(f"(?:{v})")
        except re.error as exc:
            hint = ("; a flag must be scoped, e.g. (?i:word) instead of (?i)word (matching "
                    "ignores case already)") if "global flags" in exc.msg else ""
            raise ValueError(f"invalid regular expression {v!r}: {exc.msg} once grouped with "
                             f"the field's other patterns{hint}") from None
    return values


class MatchSpec(_Model):
    """Ways a rule can fire; any one of them is enough (the first that fires names the rule)."""

    title_prefixes: tuple[str, ...] = Field(
        (), description='leading "[Tag]" tokens or conventional-commit types/scopes, any case')
    labels: tuple[str, ...] = Field((), description="GitHub label names, any case")
    title_regex: tuple[str, ...] = Field((), description="regexes searched in the title (case-insensitive)")
    keywords: tuple[str, ...] = Field((), description="whole words or phrases in the title, any case")
    authors: tuple[str, ...] = Field((), description="regexes on the author login")
    associations: tuple[str, ...] = Field((), description="author associations, e.g. FIRST_TIME_CONTRIBUTOR")
    modules: tuple[str, ...] = Field((), description="fires when the item got one of these modules")
    paths: tuple[str, ...] = Field((), description="globs: any glob to any changed file")
    files: Any = Field(None, description="an actions/labeler v5 match config (changed-files, "
                       "base-branch, head-branch, any/all)")
    body_regex: tuple[str, ...] = Field((), description="regexes searched in the body excerpt")
    body_keywords: tuple[str, ...] = Field((), description="whole words or phrases in the body")
    kinds: tuple[Literal["pull_request", "issue"], ...] = Field(
        (), description="only items of these kinds (default: both)")

    _v_regex = field_validator("title_regex", "body_regex", "authors")(
        lambda cls, v: _check_regexes(v))

    @field_validator("files")
    @classmethod
    def _labeler(cls, v: Any) -> Any:
        if v is not None:
            try:
                parse_labeler(v, GlobTable())
            except GlobError as exc:
                raise ValueError(f"labeler syntax: {exc}") from None
        return v

    @field_validator("paths")
    @classmethod
    def _globs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        try:
            GlobTable().bits(v)
        except GlobError as exc:
            raise ValueError(str(exc)) from None
        return v

    def has_conditions(self) -> bool:
        return any((self.title_prefixes, self.labels, self.title_regex, self.keywords, self.authors,
                    self.associations, self.modules, self.paths, self.files is not None,
                    self.body_regex, self.body_keywords))


class ModuleRule(MatchSpec):
    name: str = Field(min_length=1)
    description: str = ""


class NamedRule(MatchSpec):
    name: str = Field(min_length=1)
    description: str = ""


class RiskRule(MatchSpec):
    name: str = Field(min_length=1)
    description: str = ""
    severity: Literal["low", "medium", "high"] = "medium"
    kind: Literal["match", "without-tests", "size"] = "match"
    label: str = Field("", description="what the matched files are, for reasons: 'core'")
    reason: str | None = Field(
        None, description="reason template: {evidence}, {files}, {label}, {tests}, {lines}, {count}")
    lines: int | None = Field(None, ge=1, description="size: changed lines (additions + deletions)")
    files_count: int | None = Field(None, ge=1, description="size: number of changed files")
    suppressed_by: tuple[str, ...] = Field(
        (), description="risks listed earlier that make this one redundant when they fire")
    on_docs_only: bool = Field(
        False, description="also for pull requests that change only documentation (`paths_ignore`)")

    @model_validator(mode="after")
    def _kind(self) -> "RiskRule":
        if self.kind == "size" and self.lines is None and self.files_count is None:
            raise ValueError("a size risk needs `lines` or `files_count`")
        if self.kind == "without-tests" and not (self.paths or self.files is not None):
            raise ValueError("a without-tests risk needs `paths` or `files` (the code it guards)")
        if self.kind == "match" and not self.has_conditions():
            raise ValueError("a risk needs at least one condition (title_prefixes, paths, ...)")
        return self


class AffiliationRule(_Model):
    name: str = Field(min_length=1)
    login_regex: tuple[str, ...] = ()
    email_domains: tuple[str, ...] = ()
    members: tuple[str, ...] = ()

    _v_regex = field_validator("login_regex")(lambda cls, v: _check_regexes(v))


class BotRules(_Model):
    login_suffixes: tuple[str, ...] = ("[bot]",)
    logins: tuple[str, ...] = ()
    login_regex: tuple[str, ...] = ()
    trust_actor_flag: bool = True

    _v_regex = field_validator("login_regex")(lambda cls, v: _check_regexes(v))


class TestsSpec(_Model):
    paths: tuple[str, ...] = ("tests/**", "test/**", "**/tests/**", "**/test_*.py", "**/*_test.py",
                              "**/*_test.go", "**/*.test.ts", "**/*.spec.ts")
    describe: str = "tests/"


class FallbackSpec(_Model):
    """Top-level directory of the most-changed files when no module rule fires."""

    skip_dirs: tuple[str, ...] = Field(
        ("src", "lib"), description="directories that say nothing by themselves: look one deeper")
    root_files: str = Field("other", description="module for files at the repository root")
    none: str = Field("other", description="module when there are no files (issues)")
    aliases: dict[str, str] = Field(default_factory=dict, description="directory -> module")


class CodeownersSpec(_Model):
    mode: Literal["fallback", "supplement", "off"] = "fallback"
    owner_areas: dict[str, str] = Field(default_factory=dict, description="@owner -> module")
    aliases: dict[str, str] = Field(default_factory=dict, description="derived area -> module")
    from_sections: bool = True
    from_paths: bool = True
    text: str | None = Field(None, description="inline CODEOWNERS content (else the configured file)")


class Profile(_Model):
    profile: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    description: str = ""
    extends: str | None = None
    repos: tuple[str, ...] = ()
    paths_ignore: tuple[str, ...] = Field(
        (), description="files the `paths:` shorthand never looks at (documentation)")
    docs_paths: tuple[str, ...] = Field(
        ("docs/**", "doc/**", "**/*.md", "**/*.rst", "**/*.adoc", "**/*.po"),
        description="documentation: a pull request changing only these carries no risk")
    modules: tuple[ModuleRule, ...] = ()
    labeler: dict[str, Any] = Field(
        default_factory=dict, description="a labeler.yml (v5, v6) pasted as is: label -> match "
        "config, each label becomes a module (after `modules:`); the v6.1+ top-level options "
        "changed-files-labels-limit and max-files-changed are honoured")
    risks: tuple[RiskRule, ...] = ()
    ecosystems: tuple[NamedRule, ...] = ()
    categories: tuple[NamedRule, ...] = ()
    affiliations: tuple[AffiliationRule, ...] = ()
    bots: BotRules = BotRules()
    tests: TestsSpec = TestsSpec()
    fallback: FallbackSpec = FallbackSpec()
    codeowners: CodeownersSpec = CodeownersSpec()

    @field_validator("labeler")
    @classmethod
    def _labeler_file(cls, v: dict[str, Any]) -> dict[str, Any]:
        for label, config in v.items():
            try:
                if label in LABELER_OPTIONS:
                    labeler_option(config, label)
                else:
                    parse_labeler(config, GlobTable())
            except GlobError as exc:
                raise ValueError(str(exc) if label in LABELER_OPTIONS
                                 else f"label {label!r}: {exc}") from None
        return v

    def labeler_labels(self) -> dict[str, Any]:
        """The labels of `labeler:` (its v6.1+ top-level options left out)."""
        return {k: v for k, v in self.labeler.items() if k not in LABELER_OPTIONS}

    @model_validator(mode="after")
    def _unique(self) -> "Profile":
        for section in ("modules", "risks", "ecosystems", "categories", "affiliations"):
            seen: set[str] = set()
            for rule in getattr(self, section):
                if rule.name in seen:
                    raise ValueError(f"{section}: two rules named {rule.name!r}")
                seen.add(rule.name)
        clash = sorted(set(self.labeler_labels()) & {m.name for m in self.modules})
        if clash:
            raise ValueError(f"labeler: {', '.join(clash)} also defined under modules; keep one")
        return self


_NAMED_SECTIONS = ("modules", "risks", "ecosystems", "categories", "affiliations")
_MERGED_MAPPINGS = ("bots", "tests", "fallback", "codeowners", "labeler")
_NOT_INHERITED = ("profile", "description", "extends", "repos")


def _find_value(value: Any, msg: str, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The path (below a field) of the string the message quotes: which glob, which regex."""
    if isinstance(value, str):
        return path if value and repr(value) in msg else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, sub in items:
        found = _find_value(sub, msg, (*path, key))
        if found is not None:
            return found
    return None


def error_line(raw: Mapping[str, Any], loc: Sequence[Any], msg: str = "") -> int | None:
    """The 1-based line of `loc` in the YAML file `raw` came from (None when unknown)."""
    lines: dict[tuple[Any, ...], int] = getattr(raw, "lines", None) or {}
    if not lines:
        return None
    loc = tuple(loc)
    value: Any = raw
    for i, part in enumerate(loc):
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            loc = loc[:i]
            break
    inner = _find_value(value, msg) if msg and not isinstance(value, str) else None
    if inner:
        loc = (*loc, *inner)
    while loc and loc not in lines:
        loc = loc[:-1]
    return lines.get(loc)


def _describe_error(source: str, raw: Mapping[str, Any], exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        loc = list(err["loc"])
        line = error_line(raw, [p for p in loc if not (isinstance(p, str) and "[" in p)],
                          str(err.get("msg", "")))
        at = f"{source}:{line}" if line else source
        where = ""
        if len(loc) >= 2 and loc[0] in _NAMED_SECTIONS and isinstance(loc[1], int):
            section, index = loc[0], loc[1]
            try:
                name = raw[section][index].get("name", f"#{index + 1}")
            except (KeyError, IndexError, AttributeError, TypeError):
                name = f"#{index + 1}"
            rest = ".".join(str(p) for p in loc[2:])
            where = f"{section} rule {name!r}" + (f", field {rest!r}" if rest else "")
        else:
            where = ".".join(str(p) for p in loc) or "top level"
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"{at}: {where}: {msg}")
    return "\n".join(lines)


def validate_profile(raw: Any, source: str) -> Profile:
    """Validate one profile's YAML content; `source` (a file name) prefixes every error."""
    if not isinstance(raw, dict):
        raise ProfileError(f"{source}: a profile is a mapping (profile:, modules:, risks:, ...), "
                           f"got {type(raw).__name__}")
    try:
        return Profile.model_validate(raw)
    except ValidationError as exc:
        raise ProfileError(_describe_error(source, raw, exc)) from None


def merge_raw(parent: Mapping[str, Any], child: Mapping[str, Any]) -> dict[str, Any]:
    """`child` extends `parent`: named rules replace same-named ones (the child's come first),
    mappings (bots, tests, fallback, codeowners) merge key by key, the rest is the child's."""
    out: dict[str, Any] = {k: v for k, v in parent.items() if k not in _NOT_INHERITED}
    for key, value in child.items():
        if key in _NAMED_SECTIONS and key in parent:
            mine = list(value or [])
            names = {r.get("name") for r in mine if isinstance(r, dict)}
            out[key] = mine + [r for r in parent[key] or [] if r.get("name") not in names]
        elif key in _MERGED_MAPPINGS and isinstance(parent.get(key), dict) and isinstance(value, dict):
            out[key] = {**parent[key], **value}
        else:
            out[key] = value
    out["extends"] = child.get("extends")
    return out


def resolve_profile(name: str, raws: Mapping[str, tuple[str, Mapping[str, Any]]]) -> tuple[Profile, dict[str, Any]]:
    """The profile `name` with everything it extends merged in; `raws`: name -> (source, YAML)."""
    chain: list[str] = []
    name = canonical_profile(name, raws)
    current: str | None = name
    while current is not None:
        current = canonical_profile(current, raws)
        if current in chain:
            raise ProfileError(f"profile {name!r}: `extends` loops: {' -> '.join(chain + [current])}")
        if current not in raws:
            known = ", ".join(sorted(raws)) or "none"
            line = error_line(raws[chain[-1]][1], ("extends",)) if chain else None
            origin = (f"{raws[chain[-1]][0]}{f':{line}' if line else ''}: extends "
                      if chain else "")
            raise ProfileError(f"{origin}unknown profile {current!r} (known profiles: {known})")
        chain.append(current)
        source, raw = raws[current]
        validate_profile(raw, source)  # errors name the file that has them
        current = raw.get("extends")
    merged: dict[str, Any] = dict(raws[chain[-1]][1])
    for child in reversed(chain[:-1]):
        merged = merge_raw(merged, raws[child][1])
    merged["profile"] = name
    merged["repos"] = raws[name][1].get("repos", [])
    merged["description"] = raws[name][1].get("description", "")
    merged["extends"] = raws[name][1].get("extends")
    return validate_profile(merged, raws[name][0]), merged


def ruleset_version(profile: Profile, codeowners_text: str | None = None) -> str:
    """sha256 of the resolved profile's canonical JSON (+ the CODEOWNERS text it reads)."""
    content = profile.model_dump(mode="json", exclude={"description"})
    content = {"engine": ENGINE_VERSION, "profile": content, "codeowners": codeowners_text or ""}
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- compiled rules

_PREFIX_BLOCK = re.compile(r"^\s*((?:[\[【][^\]】]{1,60}[\]】]\s*:?\s*)+)")
_PREFIX_TOKEN = re.compile(r"[\[【]([^\]】]{1,60})[\]】]")
_CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\(([^)]{1,40})\))?!?:\s")
_PLAIN_PREFIX = re.compile(r"^\s*([A-Za-z][\w.+-]{0,20}(?:[ /][A-Za-z][\w.+-]{0,20})?)\s*:\s")
_NORM = re.compile(r"[\s_\-]+")
_SPLIT = re.compile(r"[/,|&+]")

# which way of firing is the strongest signal: title prefixes first, body text last
_TIER = {"title-prefix": 0, "label": 1, "title-regex": 2, "keyword": 3, "author": 4,
         "association": 4, "module": 5, "files": 6, "body-regex": 7, "body-keyword": 7}


def norm_token(text: str) -> str:
    return _NORM.sub("", text.strip().lower())


def title_tokens(title: str) -> dict[str, str]:
    """Normalised leading tokens of a title -> how they were written.

    `[Bugfix][ROCm] x` gives bugfix and rocm; `[CI/Build]` gives ci/build, ci and build;
    `fix(ci): x` gives fix and ci; `ROCm: x` gives rocm.
    """
    return _lead_tokens(title_lead(title))


Lead = tuple[str, str, str | None, str | None]


def title_lead(title: str) -> Lead | None:
    """The part of a title its tokens come from: ("block", "[Bugfix][ROCm] ", ...),
    ("conventional", "fix(ci): ", "fix", "ci"), ("plain", "ROCm", ...), or None. Titles differ,
    leads repeat: what depends on the tokens alone is remembered per lead."""
    m = _PREFIX_BLOCK.match(title)
    if m:
        return ("block", m.group(1), None, None)
    m = _CONVENTIONAL.match(title)
    if m:
        return ("conventional", m.group(0), m.group(1), m.group(2))
    m = _PLAIN_PREFIX.match(title)
    if m:
        return ("plain", m.group(1), None, None)
    return None


def _lead_tokens(lead: Lead | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if lead is None:
        return out
    how, text, kind, scope = lead
    if how == "block":
        for raw in _PREFIX_TOKEN.findall(text):
            raw = raw.strip().rstrip(":")
            out.setdefault(norm_token(raw), f"[{raw}]")
            for part in _SPLIT.split(raw):
                if part.strip():
                    out.setdefault(norm_token(part), f"[{raw}]")
    elif how == "conventional":
        out[norm_token(kind or "")] = text.strip()
        if scope:
            for part in _SPLIT.split(scope):
                out.setdefault(norm_token(part), text.strip())
    else:
        out[norm_token(text)] = text + ":"
    return out


_WORD = re.compile(r"[a-z0-9]+(?:[.+][a-z0-9]+)*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words(text: str) -> list[str]:
    """Lower-case words: `_`, `-`, `/` and spaces separate; `.` and `+` inside a word stay."""
    return _WORD.findall(text.lower())


def _any_regex(patterns: Sequence[str]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return '"' + (text if len(text) <= limit else text[: limit - 1] + "…") + '"'


def _files_text(paths: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" (+{len(paths) - limit} more)" if len(paths) > limit else "")


class PhraseIndex:
    """Phrases (word sequences) of every rule, found in a text with one dictionary pass.

    A phrase matches whole words in order, whatever separates them: "cuda graph" finds
    "CUDA Graph", "cuda-graph" and "cuda_graph"; "moe" finds "fused_moe" but not "moesi".
    """

    def __init__(self) -> None:
        self.phrases: dict[tuple[str, ...], list[int]] = {}
        self.longest: dict[str, int] = {}  # first word -> longest phrase starting with it

    def add(self, owner: int, phrases: Sequence[str]) -> None:
        for phrase in phrases:
            key = tuple(words(phrase))
            if not key:
                continue
            owners = self.phrases.setdefault(key, [])
            if owner not in owners:
                owners.append(owner)
            self.longest[key[0]] = max(self.longest.get(key[0], 0), len(key))

    def find(self, text: str) -> dict[int, str]:
        hits: dict[int, str] = {}
        if not self.phrases or not text:
            return hits
        self._find(text, hits)
        split = _CAMEL.sub(" ", text)
        if split != text:  # MiniMaxM2ReasoningParser also reads as "mini max m2 reasoning parser"
            self._find(split, hits)
        return hits

    def _find(self, text: str, hits: dict[int, str]) -> None:
        low = text.lower()
        ws = _WORD.findall(low)
        spans: list[tuple[int, int]] | None = None  # word positions, for quoting the evidence
        phrases, longest = self.phrases, self.longest
        for i, w in enumerate(ws):
            n = longest.get(w)
            if n is None:
                continue
            for length in range(min(n, len(ws) - i), 0, -1):  # the longest phrase speaks first
                key = tuple(ws[i:i + length]) if length > 1 else (w,)
                owners = phrases.get(key)
                if owners:
                    if len(low) != len(text):  # lower() changed the length: quote the words
                        written = " ".join(key)
                    else:
                        if spans is None:
                            spans = [m.span() for m in _WORD.finditer(low)]
                        written = text[spans[i][0]:spans[i + length - 1][1]]
                    for owner in owners:
                        hits.setdefault(owner, written)


class ItemView:
    """What the rules look at, computed once per item (the body words only when a rule asks)."""

    __slots__ = ("item", "kind", "title", "labels", "body", "files", "scoped", "modules",
                 "prefix_hits", "label_hits", "keyword_hits", "title_rx", "body_rx", "author_hits",
                 "file_facts", "_body_hits", "_index", "candidates")

    def __init__(self, item: ItemSnapshot, index: "SignalIndex", file_facts: "FileFacts") -> None:
        self.item = item
        self.kind = item.kind
        self.title = item.title
        self.labels = {label.lower(): label for label in item.labels}
        self.body = item.body_excerpt
        self.file_facts = file_facts
        self.files = file_facts.files
        self.scoped = file_facts.scoped
        self.modules: set[str] = set()
        self._index = index
        self.prefix_hits = index.lead_hits(title_lead(item.title))
        self.label_hits = index.label_hits(self.labels)
        self.keyword_hits = index.keywords.find(self.title)
        # rules whose title / body regex may match (a literal it needs is there), whose author
        # regex matches
        self.title_rx = index.title_gate.hits(self.title) if index.title_gate else _NONE
        self.body_rx = index.body_gate.hits(self.body) if self.body and index.body_gate else _NONE
        self.author_hits = index.author_hits(item.author.login)
        self._body_hits: dict[int, str] | None = None
        self.candidates = index.candidates(self)

    def body_hits(self) -> dict[int, str]:
        if self._body_hits is None:
            self._body_hits = self._index.body_keywords.find(self.body)
        return self._body_hits


class FileFacts:
    """What the rules know from a list of changed paths alone: their glob masks (all of them and
    those `paths:` rules look at), the file rules they make candidates, each file rule's
    matching files and each without-tests risk once asked. Paths come back together (a pull request's facts, its
    re-classifications): remembered per list of paths."""

    __slots__ = ("files", "scoped", "candidates", "hits", "risk_tags")

    def __init__(self, paths: tuple[str, ...], table: GlobTable, ignore_bits: int,
                 index: "SignalIndex") -> None:
        self.files = FileSet.build(table, paths)
        if ignore_bits and self.files.any_mask & ignore_bits:
            kept = [p for p, m in zip(self.files.paths, self.files.masks) if not m & ignore_bits]
            self.scoped = FileSet.build(table, kept)
        else:
            self.scoped = self.files
        self.candidates = index.file_candidates(self.files, self.scoped)
        # (rule, base branch, head branch) -> the files that fire it
        self.hits: dict[tuple[int, str | None, str | None], list[str] | None] = {}
        self.risk_tags: dict[tuple[int, str | None, str | None], RiskTag] = {}  # without-tests risks that fired

    def files_hit(self, match: "CompiledMatch", base: str | None,
                  head: str | None) -> list[str] | None:
        key = (match.id, base, head)
        try:
            return self.hits[key]
        except KeyError:
            hit = self.hits[key] = match.files_hit(self.files, self.scoped, base, head)
            return hit


_NONE: frozenset[int] = frozenset()
_CACHE_LIMIT = 50_000  # authors, title leads


class SignalIndex:
    """Title prefixes, labels, keywords, regexes and authors of every rule, looked up once per item."""

    def __init__(self) -> None:
        self.prefixes: dict[str, list[int]] = {}
        self.labels: dict[str, list[int]] = {}
        self.keywords = PhraseIndex()
        self.body_keywords = PhraseIndex()
        self.count = 0
        self.title_gate = RegexGate()
        self.body_gate = RegexGate()
        self.authors: list[tuple[int, re.Pattern[str]]] = []
        self._author_hits: dict[str, frozenset[int]] = {}
        self._lead_hits: dict[Lead | None, dict[int, tuple[str, int]]] = {}
        self.by_association: dict[str, list[int]] = {}
        self.body_keyword_rules: set[int] = set()
        # which rules can fire for an item, decided before any rule runs: a rule is a candidate
        # when one of its signals is there (a prefix, label, keyword, association, an author or
        # title/body regex that may match, a body for body keywords, a changed file with one of
        # its bits); rules with a `modules:` condition join once the item's modules are known
        self.by_module: dict[str, list[int]] = {}  # rules with a `modules:` condition
        self.path_rules: list[tuple[int, int]] = []  # (owner, bits) for `paths:`
        self.labeler_rules: list[tuple[int, int | None]] = []  # (owner, relevant bits)
        self.branch_rules: list[int] = []  # labeler rules with base-branch/head-branch

    def candidates(self, v: "ItemView") -> set[int]:
        out = set(v.prefix_hits)
        out.update(v.label_hits)
        out.update(v.keyword_hits)
        out.update(v.title_rx)
        out.update(v.body_rx)
        out.update(v.author_hits)
        out.update(v.file_facts.candidates)
        if v.body:
            out.update(self.body_keyword_rules)
        if self.branch_rules and (v.item.head_branch or v.item.base_branch):
            out.update(self.branch_rules)
        if self.by_association:
            out.update(self.by_association.get(str(v.item.author.association).upper(), ()))
        return out

    def file_candidates(self, files: FileSet, scoped: FileSet) -> frozenset[int]:
        """File rules that a change of these files may fire."""
        if not files.paths:
            return _NONE
        out = set()
        every = files.any_mask
        for owner, bits in self.path_rules:
            if scoped.any_mask & bits:
                out.add(owner)
        for owner, relevant in self.labeler_rules:
            if relevant is None or every & relevant:
                out.add(owner)
        return frozenset(out)

    def register(self, spec: MatchSpec) -> int:
        owner = self.count
        self.count += 1
        for association in {a.upper() for a in spec.associations}:
            self.by_association.setdefault(association, []).append(owner)
        if spec.body_keywords:
            self.body_keyword_rules.add(owner)
        for module in spec.modules:  # candidates once the item's modules are known
            self.by_module.setdefault(module, []).append(owner)
        for p in spec.title_prefixes:
            self.prefixes.setdefault(norm_token(p.strip().strip("[]【】").rstrip(":")), []).append(owner)
            self._lead_hits.clear()
        for label in spec.labels:
            self.labels.setdefault(label.lower(), []).append(owner)
        self.keywords.add(owner, spec.keywords)
        self.body_keywords.add(owner, spec.body_keywords)
        return owner

    def add_regexes(self, owner: int, title: re.Pattern[str] | None, body: re.Pattern[str] | None,
                    authors: re.Pattern[str] | None) -> None:
        if title is not None:
            self.title_gate.add(owner, title)
        if body is not None:
            self.body_gate.add(owner, body)
        if authors is not None:
            self.authors.append((owner, authors))
            self._author_hits.clear()

    def author_hits(self, login: str) -> frozenset[int]:
        """Rules whose author regex matches `login` (logins come back often: remembered)."""
        hits = self._author_hits.get(login)
        if hits is None:
            if len(self._author_hits) >= _CACHE_LIMIT:
                self._author_hits.clear()
            hits = self._author_hits[login] = frozenset(
                owner for owner, rx in self.authors if rx.search(login))
        return hits

    def lead_hits(self, lead: Lead | None) -> dict[int, tuple[str, int]]:
        """`prefix_hits` of the title's tokens, remembered per lead (read only)."""
        hits = self._lead_hits.get(lead)
        if hits is None:
            if len(self._lead_hits) >= _CACHE_LIMIT:
                self._lead_hits.clear()
            hits = self._lead_hits[lead] = self.prefix_hits(_lead_tokens(lead))
        return hits

    def prefix_hits(self, tokens: dict[str, str]) -> dict[int, tuple[str, int]]:
        hits: dict[int, tuple[str, int]] = {}
        for position, (token, written) in enumerate(tokens.items()):
            for owner in self.prefixes.get(token, ()):
                hits.setdefault(owner, (written, position))
        return hits

    def label_hits(self, labels: dict[str, str]) -> dict[int, str]:
        hits: dict[int, str] = {}
        for low, label in labels.items():
            for owner in self.labels.get(low, ()):
                hits.setdefault(owner, label)
        return hits


class Fired(NamedTuple):
    """How a rule fired (a tuple: one is built for every rule that fires)."""

    how: str
    evidence: str
    files: tuple[str, ...] = ()
    position: int = 0  # for title prefixes: which one in the title ([Kernel][ROCm]: 0, 1)

    @property
    def tier(self) -> tuple[int, int]:
        return _TIER.get(self.how, 9), self.position


class CompiledMatch:
    """A MatchSpec compiled against the rule set's glob table and signal index."""

    def __init__(self, spec: MatchSpec, table: GlobTable, index: SignalIndex) -> None:
        self.id = index.register(spec)
        self.has_prefix = bool(spec.title_prefixes)
        self.has_label = bool(spec.labels)
        self.has_keyword = bool(spec.keywords)
        self.has_body_keyword = bool(spec.body_keywords)
        self.title_regex = _any_regex(spec.title_regex)
        self.authors = _any_regex(spec.authors)
        self.associations = {a.upper() for a in spec.associations}
        self.modules = set(spec.modules)
        self.body_regex = _any_regex(spec.body_regex)
        self.kinds = set(spec.kinds)
        index.add_regexes(self.id, self.title_regex, self.body_regex, self.authors)
        # `paths:` (any glob to any file, documentation ignored) is a single AND on a bit mask
        self.path_bits = table.bits(spec.paths) if spec.paths else 0
        self.labeler = parse_labeler(spec.files, table) if spec.files is not None else None
        self.has_files = bool(self.path_bits or self.labeler)
        # a labeler config with branch conditions can fire on an item without (known) files
        self.has_branches = self.labeler is not None and self.labeler.uses_branches
        if self.path_bits:
            index.path_rules.append((self.id, self.path_bits))
        if self.labeler is not None:
            index.labeler_rules.append((self.id, self.labeler.relevant_bits))
            if self.has_branches:
                index.branch_rules.append(self.id)

    def files_hit(self, files: FileSet, scoped: FileSet, base: str | None,
                  head: str | None) -> list[str] | None:
        """The files that make the rule fire, or None."""
        if self.path_bits and scoped.any_mask & self.path_bits:
            return scoped.matching(self.path_bits)
        labeler = self.labeler
        if labeler is not None and (files.paths or self.has_branches) and labeler.test(files, base, head):
            matched = files.matching(labeler.evidence_bits)
            if matched or (self.has_branches and labeler.branch_evidence(base, head)):
                return matched  # [] when a branch alone made it fire
            return list(files.paths)
        return None

    def test(self, v: ItemView) -> Fired | None:
        if self.id not in v.candidates or (self.kinds and v.kind not in self.kinds):
            return None
        if self.has_prefix:
            hit = v.prefix_hits.get(self.id)
            if hit is not None:
                return Fired("title-prefix", f"title prefix {hit[0]}", position=hit[1])
        if self.has_label:
            label = v.label_hits.get(self.id)
            if label is not None:
                return Fired("label", f"label {_quote(label)}")
        if self.title_regex is not None and self.id in v.title_rx:
            m = self.title_regex.search(v.title)
            if m:
                said = m.group(0)
                if m.start() == 0:  # a regex anchored at ^ skips the prefixes: don't quote them
                    said = _PREFIX_BLOCK.sub("", said, count=1) or said
                return Fired("title-regex", f"title says {_quote(said or v.title)}")
        if self.has_keyword:
            phrase = v.keyword_hits.get(self.id)
            if phrase is not None:
                return Fired("keyword", f"title mentions {_quote(phrase)}")
        if self.authors is not None and self.id in v.author_hits:
            return Fired("author", f"author {v.item.author.login}")
        if self.associations:
            association = str(v.item.author.association).upper()
            if association in self.associations:
                return Fired("association", f"author {v.item.author.login} is "
                                            f"{association.lower().replace('_', ' ')}")
        if self.modules:
            hit = sorted(self.modules & v.modules)
            if hit:
                return Fired("module", f"module {hit[0]}")
        if self.has_files and (v.files.paths or self.has_branches):
            matched = v.file_facts.files_hit(self, v.item.base_branch, v.item.head_branch)
            if matched is not None:
                if not matched and self.labeler is not None:
                    said = self.labeler.branch_evidence(v.item.base_branch, v.item.head_branch)
                    return Fired("files", said or "labeler match")
                return Fired("files", f"changed {_files_text(matched)}", tuple(matched))
        if self.body_regex is not None and self.id in v.body_rx:
            m = self.body_regex.search(v.body)
            if m:
                return Fired("body-regex", f"body says {_quote(m.group(0))}")
        if self.has_body_keyword and v.body:
            phrase = v.body_hits().get(self.id)
            if phrase is not None:
                return Fired("body-keyword", f"body mentions {_quote(phrase)}")
        return None


def trusted(cls: type[BaseModel]) -> Any:
    """`cls.model_construct` for values of every field given in declaration order, without its
    per-field alias and default handling (the hot path builds thousands of tags a second)."""
    names = tuple(cls.__pydantic_fields__)
    plain = not (cls.__pydantic_post_init__ or cls.__pydantic_root_model__
                 or cls.model_config.get("extra") == "allow"
                 or any(f.alias or f.validation_alias for f in cls.__pydantic_fields__.values()))
    if not plain:
        return cls.model_construct
    new, set_attribute = cls.__new__, object.__setattr__

    def construct(**values: Any) -> BaseModel:
        m = new(cls)
        set_attribute(m, "__dict__", values)
        set_attribute(m, "__pydantic_fields_set__", set(names))
        set_attribute(m, "__pydantic_extra__", None)
        set_attribute(m, "__pydantic_private__", None)
        return m

    return construct


_new_tag, _new_risk, _new_tags = trusted(Tag), trusted(RiskTag), trusted(Tags)


class _Reason(dict):
    def __missing__(self, key: str) -> str:  # an unknown placeholder stays visible, not an error
        return "{" + key + "}"


@dataclass
class CompiledRuleSet:
    """A resolved profile compiled for speed; `classify(item)` is the hot path."""

    profile: Profile
    ref: RuleSetRef
    table: GlobTable
    modules: list[tuple[str, CompiledMatch]]
    risks: list[tuple[RiskRule, CompiledMatch]]
    ecosystems: list[tuple[str, CompiledMatch]]
    categories: list[tuple[str, CompiledMatch]]
    affiliations: list[tuple[AffiliationRule, re.Pattern[str] | None, set[str], set[str]]]
    bot_logins: set[str]
    bot_suffixes: tuple[str, ...]
    bot_regex: re.Pattern[str] | None
    tests_bits: int
    ignore_bits: int
    docs_bits: int
    index: SignalIndex
    # CODEOWNERS: which line owns a path (the last matching one) and the area of each line (None:
    # a line without owners, or none derivable; such a line still wins and leaves no area)
    owners: OwnersMatcher | None
    owner_line_areas: dict[int, str | None]
    # labeler.yml v6.1+ options: labels defined with changed-files, and the two limits on them
    labeler_file_labels: frozenset[str] = frozenset()
    max_files_changed: int | None = None
    changed_files_labels_limit: int | None = None
    warnings: tuple[str, ...] = ()  # what loading ignored (unknown labeler keys), to be logged
    _tags: dict[tuple[str, str, bool], Tag] = field(default_factory=dict, repr=False)
    _memo: dict[tuple[Any, ...], Tags] = field(default_factory=dict, repr=False)
    memo_size: int = 20_000
    # what a list of paths, a path, an author decide by themselves (bounded like `_memo`)
    _file_facts: dict[tuple[str, ...], FileFacts] = field(default_factory=dict, repr=False)
    _top_dirs: dict[str, str] = field(default_factory=dict, repr=False)
    _path_areas: dict[str, str | None] = field(default_factory=dict, repr=False)
    _people: dict[tuple[str, str | None, bool],
                  tuple[bool, str | None, list[Tag]]] = field(default_factory=dict, repr=False)
    # per section: rule id -> position in the section; per item kind: the risks that apply
    _positions: dict[str, dict[int, int]] = field(init=False, repr=False)
    _risks_of_kind: dict[str, list[tuple[RiskRule, CompiledMatch]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._positions = {
            section: {m.id: i for i, (_, m) in enumerate(rules)}
            for section, rules in (("module", self.modules), ("ecosystem", self.ecosystems),
                                   ("category", self.categories))}
        self._risks_of_kind = {kind: [(r, m) for r, m in self.risks if not m.kinds or kind in m.kinds]
                               for kind in ("pull_request", "issue")}

    @property
    def name(self) -> str:
        return self.profile.profile

    def _tag(self, name: str, rule: str, fallback: bool = False) -> Tag:
        """Tags are immutable and few (fallback names aside): build each one once."""
        key = (name, rule, fallback)
        tag = self._tags.get(key)
        if tag is None:
            if len(self._tags) > 50_000:
                self._tags.clear()
            tag = self._tags[key] = _new_tag(name=name, rule=rule, fallback=fallback)
        return tag

    def classify_cached(self, item: ItemSnapshot) -> Tags:
        """`classify`, remembered by what the rules read: an item comes back in many facts
        (opened, labeled, commented, reviewed, merged) and its tags only change when these do."""
        a = item.author
        key = (item.kind, item.title, item.labels, item.body_excerpt, a.login, a.association,
               a.is_bot, a.email_domain, item.files, item.additions, item.deletions,
               item.changed_files, item.base_branch, item.head_branch, item.repo, item.number)
        tags = self._memo.get(key)
        if tags is None:
            if len(self._memo) >= self.memo_size:
                self._memo.clear()
            tags = self._memo[key] = self.classify(item)
        return tags

    def view(self, item: ItemSnapshot) -> ItemView:
        paths = tuple([f.path for f in item.files])
        facts = self._file_facts.get(paths)
        if facts is None:
            if len(self._file_facts) >= self.memo_size:
                self._file_facts.clear()
            facts = self._file_facts[paths] = FileFacts(paths, self.table, self.ignore_bits, self.index)
        return ItemView(item, self.index, facts)

    def classify(self, item: ItemSnapshot, trace: dict[str, str] | None = None) -> Tags:
        """The item's tags; `trace`, when given, receives rule id -> evidence ("title prefix
        [ROCm]", "changed csrc/rocm/attention.cu") for every rule that fired (for --explain)."""
        v = self.view(item)
        modules = self._modules(v, trace)
        v.modules = {t.name for t in modules}
        by_module = self.index.by_module
        for name in v.modules:
            v.candidates.update(by_module.get(name, ()))
        bot, bot_rule, affiliations = self._people_of(item)
        if trace is not None:
            who = f"author {item.author.login}" + (
                f" (e-mail domain {item.author.email_domain})" if item.author.email_domain else "")
            for t in affiliations:
                trace[t.rule] = who
            if bot_rule:
                trace[bot_rule] = f"author {item.author.login}"
        # the tags are built from validated rules: skip re-validation on the hot path
        return _new_tags(
            modules=tuple(modules),
            risks=tuple(self._risks(v)),
            affiliations=tuple(affiliations),
            ecosystems=tuple(self._named(self.ecosystems, "ecosystem", v, trace)),
            categories=tuple(self._named(self.categories, "category", v, trace)),
            bot=bot,
            bot_rule=bot_rule,
            # what the description says of the change (pure; once per item, through the memo)
            digest=digest_of(item.title, item.body_excerpt, item.kind, repo=item.repo,
                             number=item.number),
        )

    # -- modules

    def _modules(self, v: ItemView, trace: dict[str, str] | None = None) -> list[Tag]:
        tags = self._named(self.modules, "module", v, trace)
        if self.labeler_file_labels and (self.max_files_changed is not None
                                         or self.changed_files_labels_limit is not None):
            tags = self._labeler_limits(v, tags, trace)
        mode = self.profile.codeowners.mode
        if self.owners is not None and v.files.paths and (mode == "supplement" or (mode == "fallback" and not tags)):
            have = {t.name for t in tags}
            for area in self._owner_areas(v):
                if area not in have:
                    tags.append(self._tag(name=area, rule=f"module:{area}/codeowners"))
                    have.add(area)
                    if trace is not None:
                        trace[tags[-1].rule] = "CODEOWNERS area of the changed files"
        if not tags:
            tags.append(self._fallback(v))
            if trace is not None:
                trace[tags[-1].rule] = ("no module rule fired: " + (
                    "top-level directory of the most-changed files" if v.files.paths else "no files"))
        return tags

    def _labeler_limits(self, v: ItemView, tags: list[Tag],
                        trace: dict[str, str] | None) -> list[Tag]:
        """actions/labeler v6.1+: more changed files than `max-files-changed`, or more new
        changed-files labels than `changed-files-labels-limit`, and no new label defined with
        changed-files applies (labels the item already carries stay; branch-only labels too)."""
        new = [t for t in tags if t.name in self.labeler_file_labels and t.name not in v.item.labels]
        if not new:
            return tags
        count = v.item.changed_files if v.item.changed_files is not None else len(v.item.files)
        if self.max_files_changed is not None and count > self.max_files_changed:
            why = f"{count} changed files > max-files-changed {self.max_files_changed}"
        elif (self.changed_files_labels_limit is not None
              and len(new) > self.changed_files_labels_limit):
            why = (f"{len(new)} new changed-files labels > changed-files-labels-limit "
                   f"{self.changed_files_labels_limit}")
        else:
            return tags
        if trace is not None:
            for t in new:
                trace.pop(t.rule, None)
            trace["labeler:limits"] = f"skipped {', '.join(t.name for t in new)}: {why}"
        dropped = {id(t) for t in new}
        return [t for t in tags if id(t) not in dropped]

    def _owner_areas(self, v: ItemView) -> list[str]:
        """Areas of the last matching CODEOWNERS line per file, most-changed first."""
        weight: Counter[str] = Counter()
        for change in v.item.files:
            area = self.path_area(change.path)
            if area:
                weight[area] += (change.additions + change.deletions) or 1
        return [a for a, _ in sorted(weight.items(), key=lambda kv: (-kv[1], kv[0]))]

    def path_area(self, path: str) -> str | None:
        """The area of the CODEOWNERS line that owns `path` (remembered per path)."""
        if self.owners is None:
            return None
        try:
            return self._path_areas[path]
        except KeyError:
            pass
        rule = self.owners.owner_rule(path)
        area = self.owner_line_areas.get(rule.line) if rule is not None else None
        if len(self._path_areas) >= self.memo_size:
            self._path_areas.clear()
        self._path_areas[path] = area
        return area

    def _fallback(self, v: ItemView) -> Tag:
        spec = self.profile.fallback
        if not v.item.files:
            return self._tag(name=spec.none, rule="module:fallback/no-files", fallback=True)
        weight: dict[str, int] = {}
        tops = self._top_dirs
        for f in v.item.files:
            top = tops.get(f.path)
            if top is None:
                if len(tops) >= self.memo_size:
                    tops.clear()
                top = tops[f.path] = self._top_dir(f.path)
            weight[top] = weight.get(top, 0) + ((f.additions + f.deletions) or 1)
        if len(weight) == 1:
            return self._tag(name=top, rule="module:fallback/top-dir", fallback=True)
        # ties: prefer a directory over root files, then a stable order
        best = max(weight.values())
        candidates = sorted(n for n, w in weight.items() if w == best)
        dirs = [n for n in candidates if n != spec.root_files]
        name = dirs[0] if dirs else candidates[0]
        return self._tag(name=name, rule="module:fallback/top-dir", fallback=True)

    def _top_dir(self, path: str) -> str:
        """The module a file counts toward when no module rule fires."""
        spec = self.profile.fallback
        parts = [p for p in path.split("/") if p]
        skipped = False
        while len(parts) > 1 and parts[0] in spec.skip_dirs:
            parts, skipped = parts[1:], True
        if len(parts) > 1:
            top = parts[0]
        elif skipped:  # vllm/envs.py: the file names the area
            top = parts[0].rsplit(".", 1)[0] if "." in parts[0][1:] else parts[0]
        else:
            top = spec.root_files
        return spec.aliases.get(top, top)

    # -- ecosystems, categories

    def _named(self, rules: list[tuple[str, CompiledMatch]], section: str, v: ItemView,
               trace: dict[str, str] | None = None) -> list[Tag]:
        fired: list[tuple[tuple[int, int], int, Tag]] = []
        positions = self._positions[section]
        # only the section's candidates, in rule order
        for index in sorted([positions[o] for o in v.candidates if o in positions]):
            name, match = rules[index]
            hit = match.test(v)
            if hit is not None:
                rule = f"{section}:{name}/{hit.how}"
                fired.append((hit.tier, index, self._tag(name=name, rule=rule)))
                if trace is not None:
                    trace[rule] = hit.evidence
        fired.sort(key=lambda t: (t[0], t[1]))
        return [t for _, _, t in fired]

    # -- risks

    def _risks(self, v: ItemView) -> list[RiskTag]:
        out: list[RiskTag] = []
        tests_present = bool(v.files.any_mask & self.tests_bits)
        fired_names: set[str] = set()
        # a pull request that only changes documentation carries no engineering risk
        docs_only = bool(v.files.paths) and v.files.all_mask & self.docs_bits != 0
        candidates = v.candidates
        risks = self._risks_of_kind.get(v.kind)
        if risks is None:
            risks = [(r, m) for r, m in self.risks if not m.kinds or v.kind in m.kinds]
        for rule, match in risks:
            if rule.kind == "match" and match.id not in candidates:
                continue
            if docs_only and not rule.on_docs_only:
                continue
            tag: RiskTag | None = None
            files_key: tuple[int, str | None, str | None] | None = None  # the tag depends on the files alone
            if rule.kind == "match":
                hit = match.test(v)
                if hit is None:
                    continue
                values = _Reason(label=rule.label or rule.name, tests=self.profile.tests.describe,
                                 evidence=hit.evidence, files=_files_text(list(hit.files)))
                default = "{evidence}"
                how = hit.how
            elif rule.kind == "without-tests":
                if not v.files.paths or tests_present:
                    continue
                files_key = (match.id, v.item.base_branch, v.item.head_branch)
                tag = v.file_facts.risk_tags.get(files_key)
                if tag is None:
                    matched = v.file_facts.files_hit(match, v.item.base_branch, v.item.head_branch)
                    if matched is None:
                        continue
                    values = _Reason(label=rule.label or rule.name, tests=self.profile.tests.describe)
                    values.update(files=_files_text(matched), evidence=f"changed {_files_text(matched)}")
                    default = "changed {files} ({label}) and no file under {tests}"
                    how = "files"
            else:  # size
                lines, count = _size(v.item)
                too_many_lines = rule.lines is not None and lines >= rule.lines
                too_many_files = rule.files_count is not None and count >= rule.files_count
                if not (too_many_lines or too_many_files):
                    continue
                values = _Reason(label=rule.label or rule.name, tests=self.profile.tests.describe)
                adds, dels = _adds_dels(v.item)
                limits = " or ".join(x for x in (
                    f"{rule.lines} lines" if rule.lines else "",
                    f"{rule.files_count} files" if rule.files_count else "") if x)
                values.update(lines=str(lines), count=str(count),
                              evidence=f"+{adds}/-{dels} lines in {count} files (threshold {limits})")
                default = "{evidence}"
                how = "lines" if too_many_lines else "file-count"
            if rule.suppressed_by and fired_names.intersection(rule.suppressed_by):
                continue
            fired_names.add(rule.name)
            if tag is None:
                reason = (rule.reason or default).format_map(values)
                tag = _new_risk(name=rule.name, severity=rule.severity, reason=reason,
                                rule=f"risk:{rule.name}/{how}")
                if files_key is not None:
                    v.file_facts.risk_tags[files_key] = tag
            out.append(tag)
        return out

    # -- people

    def _people_of(self, item: ItemSnapshot) -> tuple[bool, str | None, list[Tag]]:
        """`_bot` and `_affiliations`, remembered per author (authors come back often)."""
        a = item.author
        key = (a.login, a.email_domain, a.is_bot)
        people = self._people.get(key)
        if people is None:
            if len(self._people) >= self.memo_size:
                self._people.clear()
            people = self._people[key] = (*self._bot(item), self._affiliations(item))
        return people

    def _affiliations(self, item: ItemSnapshot) -> list[Tag]:
        login = item.author.login
        low = login.lower()
        domain = (item.author.email_domain or "").lower().lstrip("@")
        # eng.amd.com counts for amd.com
        parts = domain.split(".") if domain else []
        suffixes = {".".join(parts[i:]) for i in range(len(parts) - 1)}
        out: list[Tag] = []
        for rule, rx, domains, members in self.affiliations:
            how = None
            if low in members:
                how = "member"
            elif rx is not None and rx.search(login):
                how = "login-regex"
            elif suffixes and not domains.isdisjoint(suffixes):
                how = "email-domain"
            if how:
                out.append(self._tag(name=rule.name, rule=f"affiliation:{rule.name}/{how}"))
        return out

    def _bot(self, item: ItemSnapshot) -> tuple[bool, str | None]:
        login = item.author.login
        low = login.lower()
        if low in self.bot_logins or low.removesuffix("[bot]") in self.bot_logins:
            return True, "bot:known-login"
        if any(low.endswith(s) for s in self.bot_suffixes):
            return True, "bot:login-suffix"
        if self.bot_regex is not None and self.bot_regex.search(login):
            return True, "bot:login-regex"
        if item.author.is_bot and self.profile.bots.trust_actor_flag:
            return True, "bot:actor-flag"
        return False, None


def _adds_dels(item: ItemSnapshot) -> tuple[int, int]:
    if item.additions is not None or item.deletions is not None:
        return item.additions or 0, item.deletions or 0
    return sum(f.additions for f in item.files), sum(f.deletions for f in item.files)


def _size(item: ItemSnapshot) -> tuple[int, int]:
    adds, dels = _adds_dels(item)
    count = item.changed_files if item.changed_files is not None else len(item.files)
    return adds + dels, count


def compile_profile(profile: Profile, codeowners_text: str | None = None) -> CompiledRuleSet:
    """Compile a resolved profile; `codeowners_text` is a CODEOWNERS file's content (optional)."""
    table = GlobTable()
    text = profile.codeowners.text if profile.codeowners.text is not None else codeowners_text
    if profile.codeowners.mode == "off":
        text = None
    ref = RuleSetRef(profile=profile.profile, version=ruleset_version(profile, text))

    index = SignalIndex()

    def build(spec: MatchSpec, where: str) -> CompiledMatch:
        try:
            return CompiledMatch(spec, table, index)
        except (GlobError, re.error) as exc:
            raise ProfileError(f"profile {profile.profile!r}: {where}: {exc}") from None

    modules = [(r.name, build(r, f"module {r.name!r}")) for r in profile.modules]
    labeler_labels = profile.labeler_labels()
    modules += [(label, build(ModuleRule(name=label, files=config), f"labeler label {label!r}"))
                for label, config in labeler_labels.items()]
    file_labels = {label for label, match in modules[len(modules) - len(labeler_labels):]
                   if match.labeler is not None and match.labeler.uses_files}
    risks = [(r, build(r, f"risk {r.name!r}")) for r in profile.risks]
    ecosystems = [(r.name, build(r, f"ecosystem {r.name!r}")) for r in profile.ecosystems]
    categories = [(r.name, build(r, f"category {r.name!r}")) for r in profile.categories]
    affiliations = [
        (r, _any_regex(r.login_regex), {d.lower().lstrip("@") for d in r.email_domains},
         {m.lower().lstrip("@") for m in r.members})
        for r in profile.affiliations
    ]
    tests_bits = table.bits(profile.tests.paths)
    # one glob for "is documentation", so that all files matching it is one AND of masks
    docs = profile.docs_paths
    docs_bits = (1 << table.bit(docs[0] if len(docs) == 1 else "{" + ",".join(docs) + "}")) if docs else 0
    warnings: list[str] = []
    for section, compiled in (("module", modules), ("risk", risks), ("ecosystem", ecosystems),
                              ("category", categories)):
        for name, match in compiled:
            if match.labeler is not None:
                what = (f"labeler label {name!r}" if section == "module" and name in labeler_labels
                        else f"{section} {getattr(name, 'name', name)!r} files")
                warnings += [f"profile {profile.profile!r}: {what}: {w}" for w in match.labeler.warnings]
    options = {k: labeler_option(v, k) for k, v in profile.labeler.items() if k in LABELER_OPTIONS}
    owners: OwnersMatcher | None = None
    owner_line_areas: dict[int, str | None] = {}
    if text:
        spec = profile.codeowners
        owner_rules, skipped = parse_codeowners_checked(text)
        warnings += [f"profile {profile.profile!r}: {w}" for w in skipped]
        try:
            owners = OwnersMatcher(owner_rules)
        except (ValueError, re.error) as exc:
            raise ProfileError(f"profile {profile.profile!r}: CODEOWNERS: {exc}") from None
        # every line takes part in "last match wins", an area or not
        owner_line_areas = {r.line: area_of(r, spec.owner_areas, spec.aliases, spec.from_sections,
                                             spec.from_paths) for r in owner_rules}
    bots = profile.bots
    return CompiledRuleSet(
        profile=profile, ref=ref, table=table, modules=modules, risks=risks,
        ecosystems=ecosystems, categories=categories, affiliations=affiliations,
        bot_logins={b.lower() for b in bots.logins},
        bot_suffixes=tuple(s.lower() for s in bots.login_suffixes),
        bot_regex=_any_regex(bots.login_regex), tests_bits=tests_bits,
        ignore_bits=table.bits(profile.paths_ignore) if profile.paths_ignore else 0, index=index,
        docs_bits=docs_bits,
        owners=owners,
        owner_line_areas=owner_line_areas,
        labeler_file_labels=frozenset(file_labels),
        max_files_changed=options.get("max-files-changed"),
        changed_files_labels_limit=options.get("changed-files-labels-limit"),
        warnings=tuple(warnings),
    )


def classify(item: ItemSnapshot, ruleset: CompiledRuleSet,
             trace: dict[str, str] | None = None) -> Tags:
    """Tags for one item under one compiled rule set (see `CompiledRuleSet.classify`)."""
    return ruleset.classify(item, trace)


def fired_rules(tags: Tags) -> list[str]:
    """Every rule id behind `tags`, in section order."""
    out = [t.rule for t in tags.modules] + [r.rule for r in tags.risks]
    out += [t.rule for t in tags.ecosystems] + [t.rule for t in tags.categories]
    out += [t.rule for t in tags.affiliations]
    if tags.bot_rule:
        out.append(tags.bot_rule)
    return out


# ---------------------------------------------------------------- profile selection


@dataclass
class ProfileRegistry:
    """Compiled profiles and which repository uses which (overrides, then repo globs, then default)."""

    rulesets: dict[str, CompiledRuleSet]
    overrides: dict[str, str] = field(default_factory=dict)
    default: str = DEFAULT_PROFILE
    # every repository uses this profile (re-classifying history with a chosen rule set)
    pinned: str | None = None

    def __post_init__(self) -> None:
        self.overrides = {repo: canonical_profile(name, self.rulesets)
                          for repo, name in self.overrides.items()}
        self.default = canonical_profile(self.default, self.rulesets)
        if self.pinned is not None:
            self.pinned = self.get(self.pinned).name
        for repo, name in self.overrides.items():
            if name not in self.rulesets:
                raise ProfileError(f"repository {repo!r} is set to use profile {name!r}, which does "
                                   f"not exist (known profiles: {', '.join(sorted(self.rulesets))})")
        if self.default not in self.rulesets:
            raise ProfileError(f"no {self.default!r} profile (known profiles: "
                               f"{', '.join(sorted(self.rulesets)) or 'none'})")
        self._overrides = {k.lower(): v for k, v in self.overrides.items()}
        self._globs = sorted(
            ((g.lower(), name) for name, rs in self.rulesets.items() for g in rs.profile.repos),
            key=lambda gn: (_MAGIC_REPO.search(gn[0]) is not None, -len(gn[0]), gn[1]))
        self._chosen: dict[str, CompiledRuleSet] = {}

    def get(self, name: str) -> CompiledRuleSet:
        try:
            return self.rulesets[canonical_profile(name, self.rulesets)]
        except KeyError:
            raise ProfileError(f"unknown profile {name!r} (known profiles: "
                               f"{', '.join(sorted(self.rulesets))})") from None

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


def build_registry(raws: Mapping[str, tuple[str, Mapping[str, Any]]],
                   codeowners: Mapping[str, str] | None = None,
                   overrides: Mapping[str, str] | None = None,
                   pinned: str | None = None) -> ProfileRegistry:
    """Resolve, validate and compile every profile. `raws`: name -> (source file, parsed YAML);
    `codeowners`: profile name (or `*` for all) -> CODEOWNERS text; `overrides`: repo -> profile."""
    codeowners = dict(codeowners or {})
    rulesets: dict[str, CompiledRuleSet] = {}
    for name in raws:
        profile, _ = resolve_profile(name, raws)
        rulesets[name] = compile_profile(profile, codeowners.get(name, codeowners.get("*")))
    return ProfileRegistry(rulesets, dict(overrides or {}), pinned=pinned)
