"""What a compiled rule set looks items up in: the phrase and signal indexes over all rules,
the item's view (title lead, labels, author) and its file facts, and one compiled match rule
(`CompiledMatch`: title prefix, label, regex, keyword, author, files, branch).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from shared.events import ItemSnapshot, RiskTag

from .globs import FileSet, GlobTable, parse_labeler
from .prefilter import RegexGate
from .profile import MatchSpec
from .tokens import (
    _CAMEL,
    _PREFIX_BLOCK,
    _TIER,
    _WORD,
    Lead,
    _any_regex,
    _files_text,
    _lead_tokens,
    _quote,
    norm_token,
    title_lead,
    words,
)


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
                key = tuple(ws[i : i + length]) if length > 1 else (w,)
                owners = phrases.get(key)
                if owners:
                    if len(low) != len(text):  # lower() changed the length: quote the words
                        written = " ".join(key)
                    else:
                        if spans is None:
                            spans = [m.span() for m in _WORD.finditer(low)]
                        written = text[spans[i][0] : spans[i + length - 1][1]]
                    for owner in owners:
                        hits.setdefault(owner, written)


class ItemView:
    """What the rules look at, computed once per item (the body words only when a rule asks)."""

    __slots__ = (
        "item",
        "kind",
        "title",
        "labels",
        "body",
        "files",
        "scoped",
        "modules",
        "prefix_hits",
        "label_hits",
        "keyword_hits",
        "title_rx",
        "body_rx",
        "author_hits",
        "file_facts",
        "_body_hits",
        "_index",
        "candidates",
    )

    def __init__(self, item: ItemSnapshot, index: SignalIndex, file_facts: FileFacts) -> None:
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

    def __init__(
        self, paths: tuple[str, ...], table: GlobTable, ignore_bits: int, index: SignalIndex
    ) -> None:
        self.files = FileSet.build(table, paths)
        if ignore_bits and self.files.any_mask & ignore_bits:
            kept = [p for p, m in zip(self.files.paths, self.files.masks) if not m & ignore_bits]
            self.scoped = FileSet.build(table, kept)
        else:
            self.scoped = self.files
        self.candidates = index.file_candidates(self.files, self.scoped)
        # (rule, base branch, head branch) -> the files that fire it
        self.hits: dict[tuple[int, str | None, str | None], list[str] | None] = {}
        self.risk_tags: dict[
            tuple[int, str | None, str | None], RiskTag
        ] = {}  # without-tests risks that fired

    def files_hit(
        self, match: CompiledMatch, base: str | None, head: str | None
    ) -> list[str] | None:
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

    def candidates(self, v: ItemView) -> set[int]:
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
            self.prefixes.setdefault(norm_token(p.strip().strip("[]【】").rstrip(":")), []).append(
                owner
            )
            self._lead_hits.clear()
        for label in spec.labels:
            self.labels.setdefault(label.lower(), []).append(owner)
        self.keywords.add(owner, spec.keywords)
        self.body_keywords.add(owner, spec.body_keywords)
        return owner

    def add_regexes(
        self,
        owner: int,
        title: re.Pattern[str] | None,
        body: re.Pattern[str] | None,
        authors: re.Pattern[str] | None,
    ) -> None:
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
                owner for owner, rx in self.authors if rx.search(login)
            )
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

    def files_hit(
        self, files: FileSet, scoped: FileSet, base: str | None, head: str | None
    ) -> list[str] | None:
        """The files that make the rule fire, or None."""
        if self.path_bits and scoped.any_mask & self.path_bits:
            return scoped.matching(self.path_bits)
        labeler = self.labeler
        if (
            labeler is not None
            and (files.paths or self.has_branches)
            and labeler.test(files, base, head)
        ):
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
                return Fired(
                    "association",
                    f"author {v.item.author.login} is {association.lower().replace('_', ' ')}",
                )
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
