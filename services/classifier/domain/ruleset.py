"""The compiled rule set: `compile_profile(profile) -> CompiledRuleSet` and
`classify(item) -> Tags`, every tag with the rule that fired (`<section>:<name>/<how>`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from shared.events import Digest, ItemSnapshot, RiskTag, RuleSetRef, Tag, Tags
from shared.events.enriched import TopicTag

from .codeowners import OwnersMatcher, area_of, parse_codeowners_checked
from .digest import digest_of
from .globs import LABELER_OPTIONS, GlobError, GlobTable, labeler_option
from .indexes import CompiledMatch, FileFacts, ItemView, PhraseIndex, SignalIndex
from .profile import AffiliationRule, MatchSpec, ModuleRule, Profile, RiskRule, ruleset_version
from .profile_errors import ProfileError
from .shares import CI_CONFIG_GLOBS, CI_KINDS, CI_SHARE, ci_share, incidental, line_counts
from .tokens import _any_regex, _files_text, _quote


def trusted(cls: type[BaseModel]) -> Any:
    """`cls.model_construct` for values of every field given in declaration order, without its
    per-field alias and default handling (the hot path builds thousands of tags a second)."""
    names = tuple(cls.__pydantic_fields__)
    plain = not (
        cls.__pydantic_post_init__
        or cls.__pydantic_root_model__
        or cls.model_config.get("extra") == "allow"
        or any(f.alias or f.validation_alias for f in cls.__pydantic_fields__.values())
    )
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
_new_topic_tag = trusted(TopicTag)


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
    topics: list[tuple[str, CompiledMatch]]
    affiliations: list[tuple[AffiliationRule, re.Pattern[str] | None, set[str], set[str]]]
    bot_logins: set[str]
    bot_suffixes: tuple[str, ...]
    bot_regex: re.Pattern[str] | None
    tests_bits: int
    ignore_bits: int
    docs_bits: int
    index: SignalIndex
    style_regex: re.Pattern[str] | None
    # CODEOWNERS: which line owns a path (the last matching one) and the area of each line (None:
    # a line without owners, or none derivable; such a line still wins and leaves no area)
    owners: OwnersMatcher | None
    owner_line_areas: dict[int, str | None]
    # labeler.yml v6.1+ options: labels defined with changed-files, and the two limits on them
    labeler_file_labels: frozenset[str] = frozenset()
    max_files_changed: int | None = None
    changed_files_labels_limit: int | None = None
    warnings: tuple[str, ...] = ()  # what loading ignored (unknown labeler keys), to be logged
    # CI, build, test and docs configuration: a CI kind needs most of a change there (shares.py)
    config_bits: int = 0
    # documentation and examples: a change of these alone is told as documentation, whatever
    # subsystem its words or paths name (06-10's #9645, one example script, was "Scheduler and
    # core")
    aside_bits: int = 0
    # the modules' keywords, owner = position in `modules`: which ones a description's what names
    module_words: PhraseIndex = field(default_factory=PhraseIndex, repr=False)
    labeler_names: frozenset[str] = frozenset()  # labels of a pasted labeler.yml
    # a change of log or print statements, comments or docstrings alone (its title says so, it is
    # small, no CI or build file): no behaviour risk (`Profile.quiet_titles`)
    quiet_regex: re.Pattern[str] | None = None
    quiet_lines: int = 0
    ci_bits: int = 0
    _tags: dict[tuple[str, str, bool], Tag] = field(default_factory=dict, repr=False)
    _topic_tags: dict[str, TopicTag] = field(default_factory=dict, repr=False)  # by rule id
    _memo: dict[tuple[Any, ...], Tags] = field(default_factory=dict, repr=False)
    memo_size: int = 20_000
    # the digest by what it reads (bounded like `_memo`): an item's description comes back
    # unchanged in facts whose labels, files or line counts changed (labeled, synchronize)
    _digests: dict[tuple[Any, ...], Digest | None] = field(default_factory=dict, repr=False)
    # what a list of paths, a path, an author decide by themselves (bounded like `_memo`)
    _file_facts: dict[tuple[str, ...], FileFacts] = field(default_factory=dict, repr=False)
    _top_dirs: dict[str, str] = field(default_factory=dict, repr=False)
    _path_areas: dict[str, str | None] = field(default_factory=dict, repr=False)
    _people: dict[tuple[str, str | None, bool], tuple[bool, str | None, list[Tag]]] = field(
        default_factory=dict, repr=False
    )
    # per section: rule id -> position in the section; per item kind: the risks that apply
    _positions: dict[str, dict[int, int]] = field(init=False, repr=False)
    _risks_of_kind: dict[str, list[tuple[RiskRule, CompiledMatch]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._positions = {
            section: {m.id: i for i, (_, m) in enumerate(rules)}
            for section, rules in (
                ("module", self.modules),
                ("ecosystem", self.ecosystems),
                ("category", self.categories),
                ("topic", self.topics),
            )
        }
        self._risks_of_kind = {
            kind: [(r, m) for r, m in self.risks if not m.kinds or kind in m.kinds]
            for kind in ("pull_request", "issue")
        }

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
        key = (
            item.kind,
            item.title,
            item.labels,
            item.body_excerpt,
            a.login,
            a.association,
            a.is_bot,
            a.email_domain,
            item.files,
            item.additions,
            item.deletions,
            item.changed_files,
            item.base_branch,
            item.head_branch,
            item.repo,
            item.number,
        )
        tags = self._memo.get(key)
        if tags is None:
            if len(self._memo) >= self.memo_size:
                self._memo.clear()
            tags = self._memo[key] = self.classify(item)
        return tags

    def digest(self, item: ItemSnapshot) -> Digest | None:
        """`digest_of` the item's description, remembered by everything it reads."""
        key = (item.title, item.body_excerpt, item.kind, item.repo, item.number)
        digest = self._digests.get(key)
        if digest is None:
            if len(self._digests) >= self.memo_size:
                self._digests.clear()
            digest = digest_of(
                item.title, item.body_excerpt, item.kind, repo=item.repo, number=item.number
            )
            self._digests[key] = digest
        return digest

    def view(self, item: ItemSnapshot) -> ItemView:
        paths = tuple([f.path for f in item.files])
        facts = self._file_facts.get(paths)
        if facts is None:
            if len(self._file_facts) >= self.memo_size:
                self._file_facts.clear()
            facts = self._file_facts[paths] = FileFacts(
                paths, self.table, self.ignore_bits, self.index
            )
        return ItemView(item, self.index, facts)

    def classify(self, item: ItemSnapshot, trace: dict[str, str] | None = None) -> Tags:
        """The item's tags; `trace`, when given, receives rule id -> evidence ("title prefix
        [ROCm]", "changed csrc/rocm/attention.cu") for every rule that fired (for --explain)."""
        v = self.view(item)
        # what the description says of the change (pure; once per description, memo'd)
        digest = self.digest(item)
        modules = self._modules(v, trace, digest.what if digest is not None else "")
        v.modules = {t.name for t in modules}
        by_module = self.index.by_module
        for name in v.modules:
            v.candidates.update(by_module.get(name, ()))
        bot, bot_rule, affiliations = self._people_of(item)
        if trace is not None:
            who = f"author {item.author.login}" + (
                f" (e-mail domain {item.author.email_domain})" if item.author.email_domain else ""
            )
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
            categories=tuple(
                self._ci_kinds(v, self._named(self.categories, "category", v, trace), trace)
            ),
            topics=tuple(map(self._topic, self._named(self.topics, "topic", v, trace))),
            bot=bot,
            bot_rule=bot_rule,
            digest=digest,
            people=(),  # the identities file's (handlers.classify_fact), not the profile's
        )

    def _topic(self, tag: Tag) -> TopicTag:
        """A topic's tag with the topic's names in the report's other languages (one per rule
        and way it fired, built once)."""
        topic = self._topic_tags.get(tag.rule)
        if topic is None:
            names = next((dict(r.names) for r in self.profile.topics if r.name == tag.name), {})
            topic = self._topic_tags[tag.rule] = _new_topic_tag(
                name=tag.name, rule=tag.rule, fallback=tag.fallback, names=names
            )
        return topic

    # -- modules

    def _modules(
        self, v: ItemView, trace: dict[str, str] | None = None, what: str = ""
    ) -> list[Tag]:
        tags = self._named(self.modules, "module", v, trace)
        if self.labeler_file_labels and (
            self.max_files_changed is not None or self.changed_files_labels_limit is not None
        ):
            tags = self._labeler_limits(v, tags, trace)
        tags = self._real_part(v, tags, trace)
        if what and len(tags) > 1:
            tags = self._said_first(tags, what, trace)
        if self.aside_bits and v.files.paths and v.files.all_mask & self.aside_bits:
            tags = self._aside(v, tags, trace)
        mode = self.profile.codeowners.mode
        if (
            self.owners is not None
            and v.files.paths
            and (mode == "supplement" or (mode == "fallback" and not tags))
        ):
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
                trace[tags[-1].rule] = "no module rule fired: " + (
                    "top-level directory of the most-changed files" if v.files.paths else "no files"
                )
        return tags

    def _labeler_limits(
        self, v: ItemView, tags: list[Tag], trace: dict[str, str] | None
    ) -> list[Tag]:
        """actions/labeler v6.1+: more changed files than `max-files-changed`, or more new
        changed-files labels than `changed-files-labels-limit`, and no new label defined with
        changed-files applies (labels the item already carries stay; branch-only labels too)."""
        new = [
            t for t in tags if t.name in self.labeler_file_labels and t.name not in v.item.labels
        ]
        if not new:
            return tags
        count = v.item.changed_files if v.item.changed_files is not None else len(v.item.files)
        if self.max_files_changed is not None and count > self.max_files_changed:
            why = f"{count} changed files > max-files-changed {self.max_files_changed}"
        elif (
            self.changed_files_labels_limit is not None
            and len(new) > self.changed_files_labels_limit
        ):
            why = (
                f"{len(new)} new changed-files labels > changed-files-labels-limit "
                f"{self.changed_files_labels_limit}"
            )
        else:
            return tags
        if trace is not None:
            for t in new:
                trace.pop(t.rule, None)
            trace["labeler:limits"] = f"skipped {', '.join(t.name for t in new)}: {why}"
        dropped = {id(t) for t in new}
        return [t for t in tags if id(t) not in dropped]

    def _real_part(self, v: ItemView, tags: list[Tag], trace: dict[str, str] | None) -> list[Tag]:
        """Modules that file paths alone gave stay when their files are a real part of the
        change (shares.py); a title, a label or a keyword always counts."""
        if len(tags) < 2:
            return tags
        counts = line_counts(v.item)
        if counts is None:
            return tags
        matches = dict(self.modules)
        base, head = v.item.base_branch, v.item.head_branch

        def files_of(tag: Tag) -> list[str] | None:
            match = matches.get(tag.name)
            if (
                match is None
                or not tag.rule.endswith("/files")
                or tag.name in self.labeler_file_labels  # (labels follow actions/labeler)
                or match.has_branches  # a branch is no share of the lines
            ):
                return None
            return v.file_facts.files_hit(match, base, head) or None

        kept, left = incidental(tags, counts, files_of)
        if left and trace is not None:
            for t in tags:
                if t.name in left:
                    trace.pop(t.rule, None)
            total = sum(counts.values())
            trace["modules:incidental"] = "left out " + ", ".join(
                f"{name} ({lines} of {total} changed lines)" for name, lines in left.items()
            )
        return kept

    def _said_first(self, tags: list[Tag], what: str, trace: dict[str, str] | None) -> list[Tag]:
        """Among modules that file paths alone gave, those the description's what-sentence names
        come first (a title's word already ranks before any path): a Qwen3.5 GDN kernel kept
        under csrc/moe/ is a MoE change only if its words say so."""
        at = [i for i, t in enumerate(tags) if t.rule.endswith("/files")]
        if len(at) < 2:
            return tags
        named = {self.modules[o][0]: phrase for o, phrase in self.module_words.find(what).items()}
        said = [tags[i] for i in at if tags[i].name in named]
        if not said:
            return tags
        order = said + [tags[i] for i in at if tags[i].name not in named]
        if all(t is tags[i] for i, t in zip(at, order)):
            return tags
        out = list(tags)
        for i, t in zip(at, order):
            out[i] = t
        if trace is not None:
            trace["modules:said"] = "first of the modules its paths give: " + ", ".join(
                f"{t.name} (the description mentions {_quote(named[t.name])})" for t in said
            )
        return out

    def _aside(self, v: ItemView, tags: list[Tag], trace: dict[str, str] | None) -> list[Tag]:
        """A change of documentation or examples alone is documentation (the fallback's name for
        its files' top directory: `docs`), whatever subsystem of code its title or paths name:
        it keeps only modules that are no code (docs, tests, CI) and a labeler.yml's labels."""
        docs = self.profile.fallback.aliases.get("docs", "docs")
        names = {
            docs if m & self.docs_bits else self._top_dir(p)
            for p, m in zip(v.files.paths, v.files.masks)
        }
        # none left: the fallback names their directory; a pasted labeler.yml's labels stay
        # (the repository's own word for its files)
        keep = names.union(self.labeler_names, self.profile.non_code_modules)
        kept = [t for t in tags if t.name in keep]
        if trace is not None and len(kept) < len(tags):
            for t in tags:
                if t not in kept:
                    trace.pop(t.rule, None)
            trace["modules:aside"] = "documentation or examples only: left out " + ", ".join(
                t.name for t in tags if t not in kept
            )
        return kept

    def _ci_kinds(self, v: ItemView, tags: list[Tag], trace: dict[str, str] | None) -> list[Tag]:
        """A CI kind stays when CI, build, test or docs configuration is most of the change."""
        if not self.config_bits or not any(t.name in CI_KINDS for t in tags):
            return tags
        share, config, total = ci_share(v.files.paths, v.files.masks, self.config_bits, v.item)
        if share >= CI_SHARE:
            return tags
        if trace is not None:
            for t in tags:
                if t.name in CI_KINDS:
                    trace.pop(t.rule, None)
            unit = "changed lines" if line_counts(v.item) is not None else "files"
            trace["categories:ci-share"] = (
                f"no CI kind: {config} of {total} {unit} are CI, build, test or docs "
                f"configuration (under {CI_SHARE:.0%})"
            )
        return [t for t in tags if t.name not in CI_KINDS]

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

    def _named(
        self,
        rules: list[tuple[str, CompiledMatch]],
        section: str,
        v: ItemView,
        trace: dict[str, str] | None = None,
    ) -> list[Tag]:
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
        # a pull request that only changes documentation, or only the code's formatting, carries
        # no engineering risk
        docs_only = (
            (bool(v.files.paths) and v.files.all_mask & self.docs_bits != 0)
            or (
                self.style_regex is not None
                and v.kind == "pull_request"
                and bool(self.style_regex.search(v.title))
            )
            or self._quiet(v)
        )
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
            files_key: tuple[int, str | None, str | None] | None = (
                None  # the tag depends on the files alone
            )
            severity = rule.severity
            if rule.kind == "match":
                hit = match.test(v)
                if hit is None:
                    continue
                # a word the title (or the description) mentions is a hint, not evidence: the
                # risk needs a second signal of another kind (its files, a label, a title
                # prefix, the author, a statement in the description) to keep its severity
                # (real #10307 "Sanitize MTP placeholders …" was a high security risk)
                if hit.how in _MENTIONS and severity != "low" and not _corroborated(match, v):
                    severity = "low"
                values = _Reason(
                    label=rule.label or rule.name,
                    tests=self.profile.tests.describe,
                    evidence=hit.evidence,
                    files=_files_text(list(hit.files)),
                )
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
                    values = _Reason(
                        label=rule.label or rule.name, tests=self.profile.tests.describe
                    )
                    values.update(
                        files=_files_text(matched), evidence=f"changed {_files_text(matched)}"
                    )
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
                limits = " or ".join(
                    x
                    for x in (
                        f"{rule.lines} lines" if rule.lines else "",
                        f"{rule.files_count} files" if rule.files_count else "",
                    )
                    if x
                )
                values.update(
                    lines=str(lines),
                    count=str(count),
                    evidence=f"+{adds}/-{dels} lines in {count} files (threshold {limits})",
                )
                default = "{evidence}"
                how = "lines" if too_many_lines else "file-count"
            if rule.suppressed_by and fired_names.intersection(rule.suppressed_by):
                continue
            fired_names.add(rule.name)
            if tag is None:
                reason = (rule.reason or default).format_map(values)
                tag = _new_risk(
                    name=rule.name,
                    severity=severity,
                    reason=reason,
                    rule=f"risk:{rule.name}/{how}",
                )
                if files_key is not None:
                    v.file_facts.risk_tags[files_key] = tag
            out.append(tag)
        return out

    def _quiet(self, v: ItemView) -> bool:
        """A pull request of log or print statements, comments or docstrings alone: its title
        says that is what it changes (`quiet_titles`), it has at most `quiet_lines` lines and no
        CI or build file. The data holds each file's line counts, not its patch: the title's
        word and the size stand for the lines themselves."""
        rx = self.quiet_regex
        if rx is None or v.kind != "pull_request" or not v.files.paths:
            return False
        if v.files.any_mask & self.ci_bits or _size(v.item)[0] > self.quiet_lines:
            return False
        return bool(rx.search(v.title))

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


# how a match rule fired when it only found a word: a title keyword or a description keyword
_MENTIONS = frozenset({"keyword", "body-keyword"})


def _corroborated(match: CompiledMatch, v: ItemView) -> bool:
    """Whether a rule that fired on a title word also fires in a way that reads no word of the
    title: its author or association, a module, its files, a statement of the description
    (`CompiledMatch.test` tries a title prefix, a label and a title regex before a keyword, so
    these did not fire). A description keyword is one more mention, no second signal."""
    if match.authors is not None and match.id in v.author_hits:
        return True
    if match.associations and str(v.item.author.association).upper() in match.associations:
        return True
    if match.modules and not match.modules.isdisjoint(v.modules):
        return True
    if match.has_files and (v.files.paths or match.has_branches):
        if v.file_facts.files_hit(match, v.item.base_branch, v.item.head_branch) is not None:
            return True
    if match.body_regex is not None and match.id in v.body_rx:
        return match.body_regex.search(v.body) is not None
    return False


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
    modules += [
        (label, build(ModuleRule(name=label, files=config), f"labeler label {label!r}"))
        for label, config in labeler_labels.items()
    ]
    file_labels = {
        label
        for label, match in modules[len(modules) - len(labeler_labels) :]
        if match.labeler is not None and match.labeler.uses_files
    }
    risks = [(r, build(r, f"risk {r.name!r}")) for r in profile.risks]
    ecosystems = [(r.name, build(r, f"ecosystem {r.name!r}")) for r in profile.ecosystems]
    categories = [(r.name, build(r, f"category {r.name!r}")) for r in profile.categories]
    topics = [(r.name, build(r, f"topic {r.name!r}")) for r in profile.topics]
    affiliations = [
        (
            r,
            _any_regex(r.login_regex),
            {d.lower().lstrip("@") for d in r.email_domains},
            {m.lower().lstrip("@") for m in r.members},
        )
        for r in profile.affiliations
    ]
    tests_bits = table.bits(profile.tests.paths)
    config_bits = table.bits(CI_CONFIG_GLOBS) | tests_bits
    # one glob for "is documentation", so that all files matching it is one AND of masks
    docs = profile.docs_paths
    docs_bits = (
        (1 << table.bit(docs[0] if len(docs) == 1 else "{" + ",".join(docs) + "}")) if docs else 0
    )
    aside = (*docs, *profile.examples_paths)
    aside_bits = (
        (1 << table.bit(aside[0] if len(aside) == 1 else "{" + ",".join(aside) + "}"))
        if aside
        else 0
    )
    module_words = PhraseIndex()
    for position, rule in enumerate(profile.modules):
        module_words.add(position, rule.keywords)
    warnings: list[str] = []
    for section, compiled in (
        ("module", modules),
        ("risk", risks),
        ("ecosystem", ecosystems),
        ("category", categories),
        ("topic", topics),
    ):
        for name, match in compiled:
            if match.labeler is not None:
                what = (
                    f"labeler label {name!r}"
                    if section == "module" and name in labeler_labels
                    else f"{section} {getattr(name, 'name', name)!r} files"
                )
                warnings += [
                    f"profile {profile.profile!r}: {what}: {w}" for w in match.labeler.warnings
                ]
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
        owner_line_areas = {
            r.line: area_of(r, spec.owner_areas, spec.aliases, spec.from_sections, spec.from_paths)
            for r in owner_rules
        }
    bots = profile.bots
    return CompiledRuleSet(
        profile=profile,
        ref=ref,
        table=table,
        modules=modules,
        risks=risks,
        ecosystems=ecosystems,
        categories=categories,
        topics=topics,
        affiliations=affiliations,
        bot_logins={b.lower() for b in bots.logins},
        bot_suffixes=tuple(s.lower() for s in bots.login_suffixes),
        bot_regex=_any_regex(bots.login_regex),
        tests_bits=tests_bits,
        ignore_bits=table.bits(profile.paths_ignore) if profile.paths_ignore else 0,
        index=index,
        docs_bits=docs_bits,
        style_regex=_any_regex(profile.style_titles),
        quiet_regex=_any_regex(profile.quiet_titles),
        quiet_lines=profile.quiet_lines,
        ci_bits=table.bits(CI_CONFIG_GLOBS),
        owners=owners,
        owner_line_areas=owner_line_areas,
        labeler_file_labels=frozenset(file_labels),
        max_files_changed=options.get("max-files-changed"),
        changed_files_labels_limit=options.get("changed-files-labels-limit"),
        warnings=tuple(warnings),
        config_bits=config_bits | docs_bits,
        aside_bits=aside_bits,
        module_words=module_words,
        labeler_names=frozenset(labeler_labels),
    )


def classify(
    item: ItemSnapshot, ruleset: CompiledRuleSet, trace: dict[str, str] | None = None
) -> Tags:
    """Tags for one item under one compiled rule set (see `CompiledRuleSet.classify`)."""
    return ruleset.classify(item, trace)


def fired_rules(tags: Tags) -> list[str]:
    """Every rule id behind `tags`, in section order."""
    out = [t.rule for t in tags.modules] + [r.rule for r in tags.risks]
    out += [t.rule for t in tags.ecosystems] + [t.rule for t in tags.categories]
    out += [t.rule for t in tags.topics]
    out += [t.rule for t in tags.affiliations]
    if tags.bot_rule:
        out.append(tags.bot_rule)
    return out
