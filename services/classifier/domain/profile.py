"""Profiles, the validated YAML: the models of every section (modules, risks, ecosystems,
categories, affiliations, bots, tests, fallback, CODEOWNERS, labeler), `extends:` resolution and
the rule-set version (the resolved content and CODEOWNERS text hashed with `ENGINE_VERSION`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from shared.events.summary import Language

from .globs import LABELER_OPTIONS, GlobError, GlobTable, labeler_option, parse_labeler
from .profile_errors import ProfileError, error_line
from .said import TYPE_CHANGES

# bump when the engine's semantics change, so the rule-set version changes with them
# 2: labeler and CODEOWNERS semantics as actions/labeler and GitHub (issue #17 item 12)
# 3: the digest takes no claim from a pasted log line
# 4: the digest's what is never a list of files or a link alone, keeps a bold name that goes on
#    a sentence, and a revert's reason is never its test note
# 5: a revert's reason may be that it is undone on purpose for a while ("the main branch is freeze")
# 7: tags carry the profile's topics
# 8: a module that paths alone give counts only as a real part of the change; a CI kind needs
#    most of the change in CI, build, test or docs configuration (shares.py)
# 9: the digest reads a new default (Digest.default_change), what a description admits is left
#    open is never its what, more next steps, a claim's metric after its figure
# 10: among modules paths alone give, one the description's what names comes first; a change of
#     documentation or examples alone keeps only modules that are no code
# 11: the digest: "leak" a memory problem only beside memory words, own-repository addresses kept
#     as related references, tests said not to have run (tested "not_run"), settings said to be
#     removed or renamed, the change's sentence over background as the what, no cut inside a word
# 12: the digest: a user-facing answer of internal code only is a "no", a setting the description
#     says has no effect is no interface change, a body's own "user impacted" sentence, an
#     environment variable removed by the title or as "remove it", the change told under the
#     user-facing heading as the what when the template's what is left empty
# 13: an answer that is the change's own description (no word of users) is no user-facing "yes"
# 14: `+` joins two words ("pcp+mtp", "DP+EP: …"), not one, except in a version's local label
# 15: the digest records commits named by their hash alone ("This PR reverts commit …", "git
#     revert …", "introduced by commit …", "Root cause: `d7bca903` …") as references with the hash
# 16: the digest's interface tells a setting's new type ("dump_config is changed from dict to
#     string") — from the moment the fact model has the kind (InterfaceKind "type"), hence the
#     version follows it
# 17: the digest's what: a sentence that only names a reference ("To solve the problem of the
#     issue：<link>") or where the change comes from ("It comes from 0.9.1dev …", "Ports #N to
#     main.") is none — the next candidate or nothing, such a sentence's changes are backports;
#     "Refactor …"/"Seems …" no longer read as "ref"/"see" pointers; a sentence that only restates
#     the title gives way to the next that says why or how; a revert tells the harm it undoes;
#     "a prompt has been added for setting `x`" adds no setting (18: the same, with types); a
#     backport reference carries the sentence it was read from ("It comes from 0.9.1dev …")
# 19: the digest orders a change's claims (the metric the title names, else the largest relative
#     change; one under 2% never heads a larger one), a tool's printed output or a timestamped
#     log line is no claim, a long sentence is cut where a clause ends
ENGINE_VERSION = "20" if TYPE_CHANGES else "19"
DEFAULT_PROFILE = "generic"
# old names that still work wherever a profile is named (--profile, extends:, overrides); a real
# profile of that name wins over the alias
PROFILE_ALIASES: dict[str, str] = {"default": "generic"}


def canonical_profile(name: str, known: Mapping[str, Any] | set[str]) -> str:
    """`name` itself when such a profile exists, else what it is an alias of."""
    if name in known:
        return name
    return PROFILE_ALIASES.get(name, name)


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
            hint = (
                (
                    "; a flag must be scoped, e.g. (?i:word) instead of (?i)word (matching "
                    "ignores case already)"
                )
                if "global flags" in exc.msg
                else ""
            )
            raise ValueError(
                f"invalid regular expression {v!r}: {exc.msg} once grouped with "
                f"the field's other patterns{hint}"
            ) from None
    return values


class MatchSpec(_Model):
    """Ways a rule can fire; any one of them is enough (the first that fires names the rule)."""

    title_prefixes: tuple[str, ...] = Field(
        (), description='leading "[Tag]" tokens or conventional-commit types/scopes, any case'
    )
    labels: tuple[str, ...] = Field((), description="GitHub label names, any case")
    title_regex: tuple[str, ...] = Field(
        (), description="regexes searched in the title (case-insensitive)"
    )
    keywords: tuple[str, ...] = Field(
        (), description="whole words or phrases in the title, any case"
    )
    authors: tuple[str, ...] = Field((), description="regexes on the author login")
    associations: tuple[str, ...] = Field(
        (), description="author associations, e.g. FIRST_TIME_CONTRIBUTOR"
    )
    modules: tuple[str, ...] = Field((), description="fires when the item got one of these modules")
    paths: tuple[str, ...] = Field((), description="globs: any glob to any changed file")
    files: Any = Field(
        None,
        description="an actions/labeler v5 match config (changed-files, "
        "base-branch, head-branch, any/all)",
    )
    body_regex: tuple[str, ...] = Field((), description="regexes searched in the body excerpt")
    body_keywords: tuple[str, ...] = Field((), description="whole words or phrases in the body")
    kinds: tuple[Literal["pull_request", "issue"], ...] = Field(
        (), description="only items of these kinds (default: both)"
    )

    _v_regex = field_validator("title_regex", "body_regex", "authors")(
        lambda cls, v: _check_regexes(v)
    )

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
        return any(
            (
                self.title_prefixes,
                self.labels,
                self.title_regex,
                self.keywords,
                self.authors,
                self.associations,
                self.modules,
                self.paths,
                self.files is not None,
                self.body_regex,
                self.body_keywords,
            )
        )


class ModuleRule(MatchSpec):
    name: str = Field(min_length=1)
    description: str = ""


class NamedRule(MatchSpec):
    name: str = Field(min_length=1)
    description: str = ""


# the languages a topic may be named in besides English, its `name` (a report's languages)
TOPIC_NAME_LANGUAGES: tuple[str, ...] = tuple(lang for lang in get_args(Language) if lang != "en")


class TopicRule(MatchSpec):
    """One line of work written under several names ("A5", "Ascend950", "Ascend 950"): an item
    a matcher fires on gets the topic, and the summarizer's storylines count it as a term of the
    item named `name`, so its spellings make one storyline."""

    name: str = Field(min_length=1, description="the storyline's name readers see")
    description: str = ""
    names: dict[str, str] = Field(
        default_factory=dict,
        description="the name in a report of another language, by language "
        "(zh-CN: 310P（Atlas 300I 推理卡）): the profile's words, written there as the report's "
        "own text, not quoted; a language without one reads `name`",
    )

    @model_validator(mode="after")
    def _conditions(self) -> TopicRule:
        if not self.has_conditions():
            raise ValueError(
                "a topic needs at least one condition (keywords, title_prefixes, title_regex, "
                "paths, ...): the names it is written under"
            )
        if not any(ch.isalnum() for ch in self.name):
            raise ValueError(f"a topic's name needs a letter or digit, got {self.name!r}")
        for lang, name in self.names.items():
            if lang not in TOPIC_NAME_LANGUAGES:
                raise ValueError(
                    f"names: unknown language {lang!r} (a report's other than en: "
                    f"{', '.join(TOPIC_NAME_LANGUAGES)})"
                )
            if not any(ch.isalnum() for ch in name):
                raise ValueError(f"names: the {lang} name needs a letter or digit, got {name!r}")
        return self


class RiskRule(MatchSpec):
    name: str = Field(min_length=1)
    description: str = ""
    severity: Literal["low", "medium", "high"] = "medium"
    kind: Literal["match", "without-tests", "size"] = "match"
    label: str = Field("", description="what the matched files are, for reasons: 'core'")
    reason: str | None = Field(
        None, description="reason template: {evidence}, {files}, {label}, {tests}, {lines}, {count}"
    )
    lines: int | None = Field(None, ge=1, description="size: changed lines (additions + deletions)")
    files_count: int | None = Field(None, ge=1, description="size: number of changed files")
    suppressed_by: tuple[str, ...] = Field(
        (), description="risks listed earlier that make this one redundant when they fire"
    )
    on_docs_only: bool = Field(
        False, description="also for pull requests that change only documentation (`paths_ignore`)"
    )

    @model_validator(mode="after")
    def _kind(self) -> RiskRule:
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
    paths: tuple[str, ...] = (
        "tests/**",
        "test/**",
        "**/tests/**",
        "**/test_*.py",
        "**/*_test.py",
        "**/*_test.go",
        "**/*.test.ts",
        "**/*.spec.ts",
    )
    describe: str = "tests/"


class FallbackSpec(_Model):
    """Top-level directory of the most-changed files when no module rule fires."""

    skip_dirs: tuple[str, ...] = Field(
        ("src", "lib"), description="directories that say nothing by themselves: look one deeper"
    )
    root_files: str = Field("other", description="module for files at the repository root")
    none: str = Field("other", description="module when there are no files (issues)")
    aliases: dict[str, str] = Field(default_factory=dict, description="directory -> module")


class CodeownersSpec(_Model):
    mode: Literal["fallback", "supplement", "off"] = "fallback"
    owner_areas: dict[str, str] = Field(default_factory=dict, description="@owner -> module")
    aliases: dict[str, str] = Field(default_factory=dict, description="derived area -> module")
    from_sections: bool = True
    from_paths: bool = True
    text: str | None = Field(
        None, description="inline CODEOWNERS content (else the configured file)"
    )


class Profile(_Model):
    profile: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    description: str = ""
    extends: str | None = None
    repos: tuple[str, ...] = ()
    paths_ignore: tuple[str, ...] = Field(
        (), description="files the `paths:` shorthand never looks at (documentation)"
    )
    docs_paths: tuple[str, ...] = Field(
        (
            "docs/**",
            "doc/**",
            "**/*.md",
            "**/*.rst",
            "**/*.adoc",
            "**/*.po",
            # a docs site's own configuration (a tutorial that adds itself to the navigation)
            "mkdocs.yml",
            "mkdocs.yaml",
            ".readthedocs.yml",
            ".readthedocs.yaml",
        ),
        description="documentation: a pull request changing only these carries no risk",
    )
    examples_paths: tuple[str, ...] = Field(
        ("examples/**", "example/**"),
        description="example scripts: a pull request changing only these and documentation is "
        "told as documentation, never as a module of code (06-10's #9645, one example script, "
        "was 'Scheduler and core')",
    )
    non_code_modules: tuple[str, ...] = Field(
        ("docs", "tests", "ci/build", "dependencies"),
        description="modules that are no code: all a change of documentation and examples alone "
        "keeps of its modules ('[CI] fix report_template.md' stays CI)",
    )
    style_titles: tuple[str, ...] = Field(
        (
            r"^\W*(?:\[[^\]]*\]\W*)*\[(?:style|lint|format|formatting)\]",
            r"^\W*(?:\[[^\]]*\]\W*)*(?:style\s*:|(?:apply|run|convert|migrate|switch)\b.{0,60}?\b(?:ruff|black|isort|yapf|autopep8|clang-format)\b)",
            r"^\W*(?:\[[^\]]*\]\W*)*(?:fix(?:es|ed)?\s+(?:for\s+|the\s+)?)?(?:lint|linting|format|formatting)(?:\s+(?:ci|errors?|issues?|checks?))?\W*$",
        ),
        description="titles of formatting-only changes (a code-style batch, a lint fix): like "
        "documentation, they carry no engineering risk (2026-W04: six ruff batches "
        "were 'very large changes' and 'core changes without tests')",
    )
    _v_style = field_validator("style_titles")(lambda cls, v: _check_regexes(v))
    quiet_titles: tuple[str, ...] = Field(
        (
            # the title's object is log or print statements, comments or docstrings, its verb and
            # words before it no preposition or conjunction, after it the end or a qualifier that
            # joins no second change ("Add npugraph_ex enablement logging", "Lower Mooncake KV
            # metadata mismatch log level", "add warning log while sq/cq fail to bind"; not "add a
            # check before layer_sharding logging", "fix logging and d2h bug", "Fix logger bug",
            # "Comment out newly added vlm e2e"). Typos are not among them: a typo fixed in code
            # renames what runs ("Fix typo of VLLM_ASCEND_ENABLE_TOPK_OPTIMIZE").
            r"^\W*(?:\[[^\]]*\]\W*)*"
            r"(?:(?!(?:and|or|but|also|for|in|on|of|at|to|by|with|when|while|before|after|if|"
            r"from|out|not)\b)[\w.`'/-]+\s+){0,5}"
            r"(?:(?:debug|info|warning|error|log)\s+(?:logs?|messages?|prints?)|"
            r"log\s+(?:level|levels|info|output)|logs?|logging|logger|prints?|printing|"
            r"comments?|docstrings?)"
            r"\W*(?:$|\b(?:for|in|on|of|at|when|while|during|after|before|if|from|to|with|about|"
            r"under|via|across)\b(?![^,;&+]*\b(?:and|also)\b)[^,;&+]*$)",
        ),
        description="titles of changes to log or print statements, comments or docstrings alone: "
        "such a change of at most `quiet_lines` lines that touches no CI or build file carries no "
        "behaviour risk (real #7574, 'Add npugraph_ex enablement logging', +5/-3, was a graph "
        "capture risk). The data has each file's line counts, no patch: the title's word for what "
        "changed and the size stand for the lines themselves",
    )
    quiet_lines: int = Field(
        100, ge=0, description="the most lines (additions + deletions) of a `quiet_titles` change"
    )
    _v_quiet = field_validator("quiet_titles")(lambda cls, v: _check_regexes(v))
    modules: tuple[ModuleRule, ...] = ()
    labeler: dict[str, Any] = Field(
        default_factory=dict,
        description="a labeler.yml (v5, v6) pasted as is: label -> match "
        "config, each label becomes a module (after `modules:`); the v6.1+ top-level options "
        "changed-files-labels-limit and max-files-changed are honoured",
    )
    risks: tuple[RiskRule, ...] = ()
    ecosystems: tuple[NamedRule, ...] = ()
    categories: tuple[NamedRule, ...] = ()
    topics: tuple[TopicRule, ...] = Field(
        (),
        description="lines of work written under several names, each one storyline named "
        "`name` (the summarizer counts a topic as a term of its items)",
    )
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
                raise ValueError(
                    str(exc) if label in LABELER_OPTIONS else f"label {label!r}: {exc}"
                ) from None
        return v

    def labeler_labels(self) -> dict[str, Any]:
        """The labels of `labeler:` (its v6.1+ top-level options left out)."""
        return {k: v for k, v in self.labeler.items() if k not in LABELER_OPTIONS}

    @model_validator(mode="after")
    def _unique(self) -> Profile:
        for section in _NAMED_SECTIONS:
            seen: set[str] = set()
            for rule in getattr(self, section):
                if rule.name in seen:
                    raise ValueError(f"{section}: two rules named {rule.name!r}")
                seen.add(rule.name)
        spelled: dict[str, str] = {}
        for topic in self.topics:
            key = "".join(ch for ch in topic.name.casefold() if ch.isalnum())
            if key in spelled:
                raise ValueError(
                    f"topics: {spelled[key]!r} and {topic.name!r} are one name written twice "
                    "(case, spaces and punctuation aside); keep one"
                )
            spelled[key] = topic.name
        clash = sorted(set(self.labeler_labels()) & {m.name for m in self.modules})
        if clash:
            raise ValueError(f"labeler: {', '.join(clash)} also defined under modules; keep one")
        return self


_NAMED_SECTIONS = ("modules", "risks", "ecosystems", "categories", "topics", "affiliations")
_MERGED_MAPPINGS = ("bots", "tests", "fallback", "codeowners", "labeler")
_NOT_INHERITED = ("profile", "description", "extends", "repos")


def _describe_error(source: str, raw: Mapping[str, Any], exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        loc = list(err["loc"])
        line = error_line(
            raw, [p for p in loc if not (isinstance(p, str) and "[" in p)], str(err.get("msg", ""))
        )
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
        raise ProfileError(
            f"{source}: a profile is a mapping (profile:, modules:, risks:, ...), "
            f"got {type(raw).__name__}"
        )
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
        elif (
            key in _MERGED_MAPPINGS
            and isinstance(parent.get(key), dict)
            and isinstance(value, dict)
        ):
            out[key] = {**parent[key], **value}
        else:
            out[key] = value
    out["extends"] = child.get("extends")
    return out


def resolve_profile(
    name: str, raws: Mapping[str, tuple[str, Mapping[str, Any]]]
) -> tuple[Profile, dict[str, Any]]:
    """The profile `name` with everything it extends merged in; `raws`: name -> (source, YAML)."""
    chain: list[str] = []
    name = canonical_profile(name, raws)
    current: str | None = name
    while current is not None:
        current = canonical_profile(current, raws)
        if current in chain:
            raise ProfileError(
                f"profile {name!r}: `extends` loops: {' -> '.join(chain + [current])}"
            )
        if current not in raws:
            known = ", ".join(sorted(raws)) or "none"
            line = error_line(raws[chain[-1]][1], ("extends",)) if chain else None
            origin = f"{raws[chain[-1]][0]}{f':{line}' if line else ''}: extends " if chain else ""
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
