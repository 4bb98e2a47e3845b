"""Storylines: the lines of work of a window, found from the data itself (terms that stand out
against the repository's history, reference chains, shared files); pure."""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from shared.events import Digest, Reference
from shared.events.summary import Role, Storyline, StorylineItem


@dataclass(frozen=True)
class StoryItem:
    number: int
    title: str
    merged_at: datetime | None  # None for an item not merged (opened PR / issue)
    digest: Digest | None
    files: tuple[str, ...]
    categories: tuple[str, ...]  # classifier category tags: feature, bugfix, performance, ...
    modules: tuple[str, ...]
    additions: int = 0
    deletions: int = 0
    bot: bool = False
    kind: str = "pull_request"
    # the profile's topics the classifier gave it ("Ascend 950 (A5)"): each a term of the item
    topics: tuple[str, ...] = ()
    # the commit a merged pull request became (ItemSnapshot.merge_commit_sha): what a reference
    # by hash alone ("This reverts commit 8134146…") is resolved to
    merge_commit_sha: str | None = None

    @cached_property
    def role(self) -> Role:  # (a frozen dataclass without slots: the cache is its __dict__)
        return _role_of(self)


@dataclass(frozen=True)
class ItemLink:
    source: int
    target: int
    kind: str  # "reverts" | "fix_up" | "follow_up" | "fixes" | "backport"


# ---------------------------------------------------------------- terms

# English function words only: whether a content word ("fix", "support", a project's name) is
# generic is for the history's statistics to say, never for a list
STOP_WORDS = frozenset(
    """
a an the of for to and or in on at with by from into onto as is are be been being was were it its
this that these those via vs not no nor but if when while than then so such per all any each some
more most less only also just can could should would will may might must do does did has have had
up out off over under after before about between within without we our you your i my me us they
their them he she his her there here what which who whom whose how why where new use using used
""".split()
)

# words that say what kind of change it is, in any repository, never which line of work: "e2e"
# in seven titles of a week was a fusion rename, a test skip and a script deletion (2025-W50)
KIND_WORDS = frozenset(
    """
e2e ut uts unittest unittests test tests testing ci cd doc docs documentation readme lint linting
typo typos refactor refactoring cleanup misc chore style format formatting bugfix bugfixes hotfix
perf performance feature features enhancement improvement changelog
""".split()
)

_BRACKET = re.compile(r"\[([^\[\]]{0,60})\]")
_NUMBER_REF = re.compile(r"\(\s*#\d+\s*\)|#\d+")
# dates say when, not what ("Translated Doc files 2026-06-10", "Main2Main 0605" stays a word)
_DATE = re.compile(r"\b(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])\b")
# punctuation that ends a phrase: no bigram crosses it
_BREAK = re.compile(r"""[,;:()"'`!?|{}<>\[\]]|\s[-–—]+\s|\.\s|\.$""")
# a word: letters and digits, dots inside version-like words ("Qwen3.5", "v0.21.0");
# '-', '_', '/' and spaces separate words, so "DeepSeek-V4", "DeepSeek V4" and "deepseek_v4" meet;
# '+' separates too, but a version of three or more parts keeps its local label ("2.10.0+cpu",
# PEP 440: one word, as the classifier's tokens read it)
_WORD = re.compile(
    r"(?<![0-9A-Za-z.])[vV]?\d+(?:\.\d+){2,}\+[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*"
    r"|[0-9A-Za-z\u00c0-\uffff]+(?:\.[0-9A-Za-z]+)*"
)


@dataclass(frozen=True)
class _Term:
    key: str
    surface: str
    parts: tuple[str, ...]  # the unigram keys a bigram is made of; () for a unigram


# "issue 5476", "Batch 2", "part 3": a reference or a place in a series, never a topic's name
_SERIES_WORDS = frozenset("issue issues pr pull rfc batch part step phase round no".split())


SHORT_WORD = 2  # a word of at most this many letters alone names no line of work


def short_word(key: str) -> bool:
    """A word too short to name a line by itself ("cn", "kv", "pr"): letters that abbreviate
    many things, or a locale code (a pair's key, "kvpool", is longer; a letter and a digit,
    "A5", is a name)."""
    return len(key) <= SHORT_WORD and key.isalpha()


# a version marker ("v1", "V2"): which version of something, never what — it names a line only
# inside a whole component's name ("FlashComm v1", "dsa_v1", "Model Runner V2")
_VERSION_MARKER = re.compile(r"v\d+")


def version_marker(key: str, parts: Sequence[str] = ()) -> bool:
    """A term that is a version marker alone ("v1"), or a pair of markers ("V1/V2")."""
    return bool(
        _VERSION_MARKER.fullmatch(key)
        or (parts and all(_VERSION_MARKER.fullmatch(p) for p in parts))
    )


def title_verb(title: str) -> str:
    """The first word of a title after its [Tags] ("remove" of "[Refactor] Remove MiniMax-M2 …"):
    by the convention of titles, the verb saying what the change does."""
    m = _WORD.search(_NUMBER_REF.sub(" ", _BRACKET.sub(" ", title)))
    return m.group(0).lower() if m else ""


def _usable(word: str) -> bool:
    return len(word) > 1 and word not in STOP_WORDS and not word.replace(".", "").isdigit()


_IDENT_RUN = re.compile(r"[0-9A-Za-z_]+")


def _ident_start(segment: str, at: int) -> int:
    """Where the run of identifier characters holding position `at` begins."""
    while at > 0 and (segment[at - 1].isalnum() or segment[at - 1] == "_"):
        at -= 1
    return at


def _segment_terms(segment: str, out: list[_Term]) -> None:
    words = [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(segment)]
    underscores = segment.count("_") >= 2  # (else no word of it is inside a long identifier)
    for i, (w, s, e) in enumerate(words):
        if _usable(w):
            # a word inside a long identifier ("BUFFER" of ASCEND_BUFFER_POOL) is written as the
            # identifier needs, not as a name: it names no line in capitals (2026-W32's "BUFFER");
            # a short one may be the name ("MLP_TP")
            inside = _IDENT_RUN.match(segment, _ident_start(segment, s)) if underscores else None
            long_ident = inside is not None and inside.group(0).count("_") >= 2
            out.append(_Term(w, w if long_ident else segment[s:e], ()))
        if i + 1 < len(words):
            w2, s2, e2 = words[i + 1]
            # a bigram's key is its words joined, so "build cache" meets "BuildCache" and
            # "Ascend 950" meets "Ascend950"; a number may end one ("Ascend 950"), not start it;
            # '+' puts two things together, never one name ("pcp+mtp", "LoRA + tp": two terms)
            if (
                "+" not in segment[e:s2]
                and w not in STOP_WORDS
                and w2 not in STOP_WORDS
                and len(w) > 1
                and not w.replace(".", "").isdigit()
                and not (w in _SERIES_WORDS and w2.isdigit())
            ):
                out.append(_Term(w + w2, segment[s:e2], (w, w2)))


@functools.lru_cache(maxsize=8192)
def _title_terms(title: str) -> tuple[_Term, ...]:
    """A title's terms (cached: a report reads each title several times, and the history's
    titles come back for every report of the repository)."""
    out: list[_Term] = []
    text = _DATE.sub(" | ", _NUMBER_REF.sub(" ", title))
    # a [Tag]'s words are terms of their own ("[DSV4]", "[PrefixCache]"); generic tags such as
    # [BugFix] or [CI] are frequent everywhere and fall out by statistics
    for tag in _BRACKET.findall(text):
        for segment in _BREAK.split(tag):
            _segment_terms(segment, out)
    text = _BRACKET.sub(" | ", text)
    for segment in _BREAK.split(text):
        if segment.strip():
            _segment_terms(segment, out)
    return tuple(out)


def normalise_term(text: str) -> str:
    """The key of a phrase as written ("DeepSeek-V4", "deepseek v4" -> "deepseekv4")."""
    return "".join(m.group(0).lower() for m in _WORD.finditer(text))


# a topic's term: its key can be no title's (a title term is letters and digits only)
TOPIC_PREFIX = "topic:"


def topic_term(name: str) -> str:
    """The term of a profile's topic ("Ascend 950 (A5)" -> "topic:ascend950a5")."""
    return TOPIC_PREFIX + normalise_term(name)


def terms_of(title: str, topics: Iterable[str] = ()) -> frozenset[str]:
    """The normalised terms of an item: its title's words and adjacent word pairs, without [Tag]
    brackets, (#N) references and function words, and one term per topic it has."""
    terms = frozenset(t.key for t in _title_terms(title))
    return terms.union(map(topic_term, topics)) if topics else terms


def term_counts_of(titles: Iterable[str], topics: Iterable[Iterable[str]] = ()) -> dict[str, int]:
    """In how many of `titles` each term appears (document frequency); `topics`: the topics of
    each title's item, in the same order (none when shorter)."""
    counts: Counter[str] = Counter()
    for title, names in itertools.zip_longest(titles, topics, fillvalue=()):
        if isinstance(title, str):
            counts.update(terms_of(title, names))
    return dict(counts)


# ---------------------------------------------------------------- roles

_ROLE_OF_CATEGORY: dict[str, Role] = {
    "bugfix": "fix",
    "fix": "fix",
    "performance": "perf",
    "perf": "perf",
    "feature": "feature",
    "refactor": "refactor",
    "test": "test",
    "tests": "test",
    "docs": "docs",
    "doc": "docs",
    "ci": "ci",
    "platform-ci": "ci",
    "build": "ci",
}
_REVERT_TITLE = re.compile(r"^\s*(?:\[[^\]]*\]\s*:?\s*)*revert\b|\[revert\]", re.IGNORECASE)
# generic conventions of titles, for items the classifier gave no category
_TAG_ROLE: tuple[tuple[re.Pattern[str], Role], ...] = (
    (re.compile(r"^(?:bug\s*fix|fix|hotfix|bug)$", re.I), "fix"),
    (re.compile(r"^(?:perf|performance|optim\w*)$", re.I), "perf"),
    (re.compile(r"^(?:feat|feature|features)$", re.I), "feature"),
    (re.compile(r"^(?:refactor\w*|cleanup)$", re.I), "refactor"),
    (re.compile(r"^(?:test|tests|ut|e2e|unittest)$", re.I), "test"),
    (re.compile(r"^(?:doc|docs|documentation)$", re.I), "docs"),
    (re.compile(r"^(?:ci|build|ci/build)$", re.I), "ci"),
)
_VERB_ROLE: tuple[tuple[re.Pattern[str], Role], ...] = (
    (re.compile(r"^(?:fix|fixes|fixed|hotfix|resolve)\b", re.I), "fix"),
    (re.compile(r"^(?:optimi[sz]e|speed up|accelerate)\b", re.I), "perf"),
    (
        re.compile(r"^(?:add|adds|support|supports|introduce|implement|enable|allow)\b", re.I),
        "feature",
    ),
    (re.compile(r"^(?:refactor|clean up|cleanup|simplify|rename|move)\b", re.I), "refactor"),
)


_DOC_FILE = re.compile(
    r"(?i)(?:^|/)(?:docs?|documentation)/|\.(?:md|rst|txt|po|pot)$"
    r"|^(?:mkdocs|\.readthedocs)\.ya?ml$"
)
_CI_FILE = re.compile(
    r"(?i)^\.(?:github|gitlab|circleci|buildkite)/|(?:^|/)(?:jenkinsfile|\.pre-commit-config\.yaml)$"
)


@functools.lru_cache(maxsize=16384)
def file_kind(path: str) -> Role | None:
    """docs, test or ci for a file that is only that; None for code (or anything else)."""
    if _DOC_FILE.search(path):
        return "docs"
    if _CI_FILE.search(path):
        return "ci"
    if _is_test_file(path):
        return "test"
    return None


def role_of(item: StoryItem) -> Role:
    """What the item is to its storyline: a revert first, then its first category that names a
    role (the classifier orders them by strength), else the title's [Tag]s and leading verb.
    Worked out once per item (a report asks a few times for each)."""
    return item.role


# "Revert temporary skip on … tests" turns tests back on: it restores coverage, undoes no code
_UNSKIP_TITLE = re.compile(
    r"(?i)^\s*(?:\[[^\]]*\]\s*:?\s*)*revert\w*\s+(?:the\s+|a\s+)?(?:temporar\w*\s+)?"
    r"(?:skip\w*|disabl\w*|xfail\w*|mark\.skip\w*)\b"
)


def _role_of(item: StoryItem) -> Role:
    role = _stated_role(item)
    if _REVERT_TITLE.search(item.title) and not _UNSKIP_TITLE.search(item.title):
        return "revert"
    if (
        item.digest is not None
        and any(r.kind == "reverts" for r in item.digest.refs)
        and _title_role(item.title) == "other"
    ):
        # a description's "Reverts #N" makes a revert of a change whose title says nothing
        # else ("Undo the cache"); a fix that also reverts one change ("[bugfix] fix mtp accept
        # rate", real #5093, item 4 of 4: "Reverts …#5082") stays what its title says, its
        # revert told as part of it
        return "revert"
    # what the change touches outranks what its title claims: a tutorial titled "Add …" is
    # documentation; a fix stays a fix, of CI or of a test as well
    kinds = {file_kind(f) for f in item.files}
    only = next(iter(kinds)) if len(kinds) == 1 else None
    if role != "fix" and only is not None:
        return only
    if role in ("ci", "perf", "feature", "other") and REMOVAL_TITLE.search(item.title):
        # "Drop torchair" is clean-up, whatever CI files or optimisation flags it takes out
        return "refactor"
    return role


def _stated_role(item: StoryItem) -> Role:
    for category in item.categories:
        role = _ROLE_OF_CATEGORY.get(category.lower())
        if role is not None:
            return role
    return _title_role(item.title)


def _title_role(title: str) -> Role:
    """The role a title's [Tag]s or leading verb state, else "other"."""
    for tag in _BRACKET.findall(title):
        for part in re.split(r"[\s,]+", tag.strip()):
            for pattern, role in _TAG_ROLE:
                if pattern.match(part):
                    return role
    rest = _BRACKET.sub(" ", title).strip(" :")
    for pattern, role in _VERB_ROLE:
        if pattern.match(rest):
            return role
    return "other"


# ---------------------------------------------------------------- links

_LINK_KINDS = ("reverts", "fix_up", "follow_up", "fixes", "backport")
_QUOTED_REVERT = re.compile(r"\brevert\w*\s*[\"“'](.+?)[\"”']\s*$", re.IGNORECASE)


# "(vllm-project#7100)": a squash title's number with its owner in front (real #7557 reverts
# "GMM custom operator optimization in small batch scenarios (vllm-project#7100)")
_OWNED_NUMBER_REF = re.compile(r"\(\s*[\w.-]+(?:/[\w.-]+)?#\d+\s*\)")


def plain_title(title: str) -> str:
    """A title for matching: without [Tag]s and (#N) or (owner#N), case and spacing folded."""
    text = _NUMBER_REF.sub(" ", _BRACKET.sub(" ", _OWNED_NUMBER_REF.sub(" ", title)))
    return " ".join(text.lower().split()).strip(" .:")


def quoted_revert(title: str) -> tuple[str | None, int | None]:
    """The quoted title of 'Revert "x (#12)"' and the number in it, if any."""
    m = _QUOTED_REVERT.search(title)
    if m is None:
        return None, None
    quoted = m.group(1)
    n = re.search(r"\(#(\d+)\)\s*$", quoted)
    return quoted, int(n.group(1)) if n else None


MIN_COMMIT_PREFIX = 7  # git's shortest abbreviation of a commit
_HEX = re.compile(r"[0-9a-f]{7,64}")


def commit_number(sha: str, commits: Iterable[tuple[str, int]]) -> int | None:
    """The item whose merge commit `sha` names (a whole hash or a prefix of one), given
    (merge commit, number) pairs; None unless exactly one item has such a commit (a short hash
    may be ambiguous) or for a hash shorter than git ever abbreviates."""
    sha = sha.lower()
    if len(sha) < MIN_COMMIT_PREFIX:
        return None
    found = {number for full, number in commits if full.startswith(sha)}
    return found.pop() if len(found) == 1 else None


def by_commit(refs: Iterable[Reference]) -> set[str]:
    """The hashes of references that name a commit of this repository by its hash alone (no
    number): what has to be resolved to an item to link it."""
    return {
        r.sha.lower()
        for r in refs
        if r.number is None
        and r.sha
        and r.repo is None
        and r.kind in _LINK_KINDS
        and _HEX.fullmatch(r.sha.lower()) is not None
    }


def reverts_named(title: str) -> bool:
    """The title is a revert's that names the change it undid ('Revert "x (#12)"'): reverting it
    brings that change back."""
    return quoted_revert(title)[0] is not None


def with_commit_numbers(
    digest: Digest,
    number: int,
    resolve: Callable[[str], int | None],
    title_of: Callable[[int], str | None],
) -> Digest:
    """`digest` whose references by hash alone carry the number of the change the hash was
    merged as (`resolve`), so they read and link like references by number ("reverts #6884"); a
    reference that comes to repeat another one of the same kind and number is dropped, and a
    hash that names the item itself or nothing known stays as it was. "This reverts commit <a
    revert of a named change>" (by its title, `title_of`) is git's message of that change
    brought back, real #6231 'Reapply "…"' of revert #6227 'Revert "… (#6041)"': left as it was,
    or the two would read as two reverts of #6041. The same object when nothing changes."""
    hashes = by_commit(digest.refs)
    if not hashes:
        return digest
    numbered = {(r.kind, r.number) for r in digest.refs if r.number is not None and r.repo is None}
    refs: list[Reference] = []
    changed = False
    for ref in digest.refs:
        target = resolve(ref.sha.lower()) if ref.sha and ref.sha.lower() in hashes else None
        if (
            ref.number is not None
            or ref.repo is not None
            or target in (None, number)
            or (ref.kind == "reverts" and reverts_named(title_of(target or 0) or ""))
        ):
            refs.append(ref)
            continue
        changed = True
        if (ref.kind, target) not in numbered:
            numbered.add((ref.kind, target))
            refs.append(ref.model_copy(update={"number": target}))
    return digest.model_copy(update={"refs": tuple(refs)}) if changed else digest


def resolve_links(items: Mapping[int, StoryItem]) -> list[ItemLink]:
    """References among known items: the digest's refs with a number, one by a commit's hash
    alone resolved to the item merged as that commit (a unique one), and a revert's quoted
    title matched to the item of that title when no number is given."""
    by_title: dict[str, int] = {}
    for number in sorted(items):
        by_title.setdefault(plain_title(items[number].title), number)
    commits = [(i.merge_commit_sha, n) for n, i in items.items() if i.merge_commit_sha]
    links: dict[tuple[int, int], str] = {}

    def add(source: int, target: int | None, kind: str) -> None:
        if target is not None and target != source and target in items:
            links.setdefault((source, target), kind)

    for number in sorted(items):
        item = items[number]
        refs = item.digest.refs if item.digest is not None else ()
        for ref in refs:
            if ref.kind not in _LINK_KINDS or ref.repo is not None:
                continue
            target = ref.number
            if target is None and ref.sha and commits:
                target = commit_number(ref.sha, commits)
                back = target is not None and target in items and reverts_named(items[target].title)
                if ref.kind == "reverts" and back:
                    target = None  # a revert's commit reverted: its change brought back
            if target is None and ref.kind == "reverts" and ref.title:
                target = by_title.get(plain_title(ref.title))
            add(number, target, ref.kind)
        # the title says it too ('Revert "x (#12)"'), also where no digest was made
        if not any(k == "reverts" for (s, _t), k in links.items() if s == number):
            quoted, target = quoted_revert(item.title)
            if quoted is not None:
                add(
                    number,
                    target if target in items else by_title.get(plain_title(quoted)),
                    "reverts",
                )
    return [ItemLink(s, t, k) for (s, t), k in links.items()]


# ---------------------------------------------------------------- storylines

MIN_ITEMS = 3  # a term or a file forms a storyline with at least this many items of the window
SMALL_WINDOW = 30  # ... or with two, in a window of at most this many items (a day)
SMALL_WINDOW_MIN_ITEMS = 2
MAX_HISTORY_SHARE = 0.08  # a term in more of the history's items than this never qualifies
# ... nor one in more of the window's items than this: a sixth of everything is not one line of work
MAX_WINDOW_SHARE = 0.15
MAX_NAMED_WINDOW_SHARE = 0.3  # ... but a name rare in the history may hold up to this share
MAX_WINDOW_ITEMS_FLOOR = 10  # (a small window, a day, may well hold this many items of one term)
MIN_LIFT = 2.0  # window rate / history rate
MIN_SURPRISE_NAMED = 1.5  # -log10 of the chance of so many items at the history's rate
MIN_SURPRISE_WORD = 4.0
MIN_COHERENCE = 0.5
MIN_SURPRISE_CONTINUING = 0.5  # the score of a name that continues a busy previous window
ABSORB = 0.6  # a bigram absorbs a word when it holds this share of the word's items
MERGE = 0.6  # terms merge when the overlap is this share of the larger item set
FILE_SHARE = 0.2  # a file touched by more of the window's items than this is not specific
FILE_STORY_SHARE = 0.06  # ... and to name a storyline of its own, by no more than this
FILE_STORY_ITEMS = 4
# a line folds into a bigger one whose name its titles write beside its own at least this
# share of the time (one in three)
FOLD_TOGETHER = 3
MIN_MODULE_ITEMS = 4  # changes of one module no other storyline took, to be a line of their own
MODULE_WEIGHT = 0.5  # ... ranked as half a named storyline of the same size
FILES_WEIGHT = 0.75
MODULE_WINDOW_MIN = 30  # ... in a window of at least this many changes
MAX_MODULE_STORIES = 3
ASIDE_WEIGHT = 0.5  # a change of docs, CI or tests alone weighs half a change of the code in a line
TOOLING_ITEMS = 2 * MIN_ITEMS  # ... but this many of one piece of tooling are a line of work
MODULE_KEY_PREFIX = "module:"  # the renderer names these after the module, in its language
CI_STORY_LINES = (
    1000  # lines the window's changes of CI tooling alone change together, to be a line
)
CI_STORY_BIGGEST = 2 / 3  # ... spread over several changes: the biggest holds at most this share


# written as a name: a capital inside a word (MTP, DeepSeek), a digit, '_' or '.' (Qwen3.5, v0.21.0)
_NAMED = re.compile(r"[0-9A-Za-z][A-Z]|[0-9_]|[A-Za-z]\.[0-9A-Za-z]")


def _surprise(k: int, n: int, p: float) -> float:
    """-log10 P(X >= k) for X ~ Binomial(n, p): how unlikely the window's count is by chance."""
    if k <= 0:
        return 0.0
    p = min(max(p, 1e-12), 1 - 1e-12)
    lp, lq = math.log(p), math.log1p(-p)
    logs = []
    for j in range(k, n + 1):
        term = (
            math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * lp + (n - j) * lq
        )
        logs.append(term)
        if len(logs) > 1 and term < logs[0] - 40:
            break
    top = max(logs)
    total = top + math.log(sum(math.exp(t - top) for t in logs))
    return max(0.0, -total / math.log(10))


def _is_test_file(path: str) -> bool:
    parts = path.lower().split("/")
    name = parts[-1]
    return (
        any(p in ("test", "tests", "testing", "e2e", "ut") for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
    )


def _tests_only(item: StoryItem) -> bool:
    """A change of tests alone: its files are all tests, or it is a test by its role."""
    return role_of(item) == "test" or (bool(item.files) and all(map(_is_test_file, item.files)))


def _order(item: StoryItem) -> tuple:
    return (item.merged_at is None, item.merged_at or datetime.max, item.number)


_SERIES_PLACE = re.compile(
    r"(?i)\(\s*(?:batch|part|step|phase|round|no\.?)?\s*#?\s*\d*\s*(?:/\s*(?:\d+|n))?\s*\)"
)


def _short_name(title: str, words: int = 6) -> str:
    """A title's first words as a name, without [Tags] and (#N), its first letter capital ("Add
    trion ops log" from '[Misc][Ops]Revert "add trion ops log (#10069)"')."""
    quoted, _ = quoted_revert(title)
    text = _NUMBER_REF.sub(" ", _BRACKET.sub(" ", quoted or title))
    # a place in a series says which part, not what ("… to ruff format(Batch #3)", 2026-W04;
    # "[Refactor]5/N Extract common code of mla_v1.py", 2025-W52)
    text = _SERIES_MARK.sub(" ", _SERIES_PLACE.sub(" ", text))
    parts = text.split()
    cut = len(parts) > words
    if cut:
        # end before a preposition or conjunction within reach ("Support mtp kv transfer and pp
        # partition" from "… partition by hand in kv transfer"), without an ellipsis
        stops = [
            i for i in range(3, min(len(parts), words + 2)) if parts[i].lower() in _PHRASE_STOPS
        ]
        if stops:
            parts, cut = parts[: stops[-1]], False
    name = " ".join(parts[: words + 2] if not cut else parts[:words]).strip(" .:-,;")
    name = name[:1].upper() + name[1:]
    return name + ("…" if cut else "")


_PHRASE_STOPS = frozenset("by in for with to when on via from and or at after before into".split())


@dataclass
class _Group:
    key: str
    name: str
    evidence: str
    items: list[int]
    score: float
    terms: tuple[str, ...] = ()
    term_keys: frozenset[str] = frozenset()
    previous: int = 0
    core: frozenset[int] = frozenset()  # the items that carry its name (joined ones do not lead)


def _module_group(module: str, members: Sequence[StoryItem], previous: int) -> _Group:
    """A line of one module's changes, every member carrying it; `previous`: its changes then."""
    return _Group(
        key=f"{MODULE_KEY_PREFIX}{module}",
        name=module,
        evidence="module",
        items=[m.number for m in members],
        score=float(len(members)) * MODULE_WEIGHT,
        core=frozenset(m.number for m in members),
        previous=previous,
    )


def _lead(
    members: Sequence[StoryItem],
    roles: Mapping[int, Role],
    core: frozenset[int] = frozenset(),
    undone: Set[int] = frozenset(),
) -> int | None:
    candidates = [m for m in members if roles[m.number] != "revert"]
    # a change a revert undid does not speak for the line, while another can
    candidates = [m for m in candidates if m.number not in undone] or candidates
    # the lead carries the storyline's name when any member does (a change that joined by a
    # shared file does not speak for "Qwen3")
    candidates = [m for m in candidates if m.number in core] or candidates
    if not candidates:
        return None

    def weight(m: StoryItem) -> tuple:
        has_what = bool(m.digest is not None and m.digest.what)
        return (
            roles[m.number] in ("feature", "perf"),
            has_what,
            m.additions + m.deletions,
            -m.number,
        )

    return max(candidates, key=weight).number


PHRASE_SHARE = (
    0.5  # a storyline of shared files is named by a phrase at least this share of it uses
)
COMMON_LEAD_SHARE = 0.1  # ... and a pair whose first word leads this share of all titles is no name
RARE_WORD_SHARE = 0.02  # ... a single word only when at most this share of the history uses it


def warm_title(title: str) -> None:
    """Work out now what storylines will ask of a title: its terms and those that may name a
    line of work (both cached by title; the summarizer's fold calls this for merged changes)."""
    _naming_terms(title)


@functools.lru_cache(maxsize=16384)
def _naming_terms(title: str) -> tuple[_Term, ...]:
    """A title's terms that may name a line of work, each once: no function word, and no word
    for a kind of change ("documentation" names a kind of change, not a line of work)."""
    return tuple(
        t
        for t in {t.key: t for t in _title_terms(title)}.values()
        if not (any(p in STOP_WORDS for p in t.parts) or t.key in STOP_WORDS)
        and not (t.key in KIND_WORDS or any(p in KIND_WORDS for p in t.parts))
        and not (not t.parts and short_word(t.key))
        and not version_marker(t.key, t.parts)
    )


def _phrase_of(
    members: Sequence[StoryItem], term_counts: Mapping[str, int], history: int, strict: bool = False
) -> str:
    """A name for items grouped by their files, from their own titles: the word pair (or a word
    rare in the history) that at least half of them share ("incremental build", "nightly"), a
    pair before a word, then the most shared, then the rarest; "" when none is shared — items
    that only touch the same file are not one line of work."""
    seen: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    pair: dict[str, bool] = {}
    parts_of_key: dict[str, tuple[str, ...]] = {}
    for item in members:
        for t in _naming_terms(item.title):
            seen[t.key] += 1
            forms[t.key][t.surface] += 1
            pair[t.key] = bool(t.parts)
            if t.parts:
                parts_of_key[t.key] = t.parts

    def usable(key: str, count: int) -> bool:
        share = term_counts.get(key, 0) / history if history else 0.0
        if pair[key]:
            enough = (
                count > PHRASE_SHARE * len(members)
                if strict
                else count >= PHRASE_SHARE * len(members)
            )
            # "Add initial", "Fix the": a pair led by a word of every other title names nothing
            first = parts_of_key[key][0]
            lead_share = term_counts.get(first, 0) / history if history else 0.0
            return (
                count >= 2
                and enough
                and share <= MAX_HISTORY_SHARE
                and lead_share <= COMMON_LEAD_SHARE
            )
        # one word must hold more of them, and be rare: "batch" in two of four titles is chance
        return count >= 2 and count > PHRASE_SHARE * len(members) and share <= RARE_WORD_SHARE

    found = [(k, c) for k, c in seen.items() if usable(k, c)]
    if not found:
        return ""
    key, _count = min(
        found, key=lambda kv: (not pair[kv[0]], -kv[1], term_counts.get(kv[0], 0), kv[0])
    )
    return forms[key].most_common(1)[0][0]


_FILE_NAME = re.compile(r"(?i)\.(?:ya?ml|json|toml|py|sh|md|txt|cfg|ini|cpp|h)$")


_VERSION = re.compile(r"(?i)^v?\d+(?:\.\d+)+(?:[.-]?(?:rc|post|dev)\d*)?$")
_UPGRADE_TARGET = re.compile(
    r"(?i)\b(?:bump|upgrade|update|sync|align)(?:s|d|ed|ing)?\s+(?P<what>[^\s].*?)??\s*"
    r"(?:\bfrom\s+\S+\s+)?\bto\s+(?P<to>\S+)(?:\s+(?P<next>\S+))?"
)
# what a version is of, never the project upgraded ("310P CANN image" is CANN's)
_UPGRADE_NOISE = frozenset(
    "version versions commit hash the tag pin id image images docker dockerfile container".split()
)
_NUMBER_IN_PARENS = re.compile(r"\(\s*#\d+\s*\)")


def upgrade_target(title: str) -> str | None:
    """What an upgrade's title says it moves to, as written: "vLLM v0.21.0" from "[Misc] Main2main
    Upgrade vLLM to v0.21.0", "actions/checkout 5" from "Bump actions/checkout from 4 to 5";
    None when the title names no version (a digit), "main" or "latest" after "to"."""
    text = " ".join(_NUMBER_IN_PARENS.sub(" ", _BRACKET.sub(" ", title)).split())
    m = _UPGRADE_TARGET.search(text)
    if m is None:
        return None
    what = [w for w in (m.group("what") or "").split() if w.lower() not in _UPGRADE_NOISE]
    to = m.group("to").strip(".,;:")
    nxt = m.group("next") or ""
    if len(to) == len(nxt) == 2 and to.isdigit() and nxt.isdigit() and "01" <= to <= "12":
        to = to + nxt  # a date written "03 19" ("upgrade vllm commit to 03 19 17:00"): "0319"
    if (
        not what
        and m.group("next")
        and (re.search(r"\d", m.group("next")) or m.group("next").lower() in ("main", "latest"))
    ):
        what, to = [to], m.group("next").strip(".,;:")  # "upgrade to vllm 0.9.0"
    if not (re.search(r"\d", to) or to.lower() in ("main", "latest")) or len(what) > 4:
        return None
    return " ".join([*what, to])


# a title that says the change takes something out (the key-PR removal rule reads it too)
REMOVAL_TITLE = re.compile(
    r"(?i)^(?:\W*\[[^\]]*\])*\W*(?:remove|removes|removed|removing|drop|drops|delete"
    r"|deletes|deprecate|deprecates|clean\s*up|cleanup|sunset|retire"
    r"|move\s+\S+(?:\s+\S+)?\s+out)\b"
)
# code that the upstream project now has: what a downstream change takes out after an upgrade
_UPSTREAMED = re.compile(r"(?i)\bupstreamed\b|\bnow (?:in|covered by) (?:the )?upstream\b")
_VERSION_WORD = re.compile(r"(?i)(?<![\w.])v?\d+\.\d+(?:\.\d+)*\b")  # "0.22.1", not "Qwen3.5"
UPGRADES_KEY = "upgrades"  # the renderer says "Keeping up with {name}" in the report's language


def upgrade_line(key: str) -> bool:
    """A line of upgrades: the project kept up with ("upgrades"), or another project's
    ("upgrades:mooncake")."""
    return key == UPGRADES_KEY or key.startswith(UPGRADES_KEY + ":")


# a release, a pre-release among them ("v0.21.0rc1", "9.1.0-beta.1", "0.3.11.post1")
_RELEASE = re.compile(r"(?i)v?\d+\.\d+(?:\.\d+)*(?:[.-]?(?:rc|alpha|beta|a|b)\.?\d*|\.post\d+)?")
REMOVALS_KEY = "removals"
REMOVALS_NAME = "Removals and clean-up"  # the renderer says it in the report's language
MIN_REMOVALS = 3
REMOVAL_STORY_LINES = 500  # net lines the removals of a window take out together
BIG_REMOVAL_LINES = 1000  # a change taking this many net lines out is a removal when its title
_REMOVAL_WORD = re.compile(
    r"(?i)\b(?:remov|drop|delet|deprecat|clean\s*up|cleanup)\w*"
)  # ... says so anywhere


RELEASE_KEY = "release"  # the renderer may say "Release {name}" in the report's language
RELEASE_SHARE = 0.05  # a release names a line when this share of the window's items name it
# a release as a marker of the work for it: a whole [Tag] ("[v0.16.0]", "[0.14.1]"), a release
# branch ("release/v0.13.0", "releases/v0.18.0", "v0.9.1-dev"), or the word release or a port
# next to it ("release note for v0.13.0rc1", "0.9.0rc1 release note", "We'll release 0.13.0",
# "backport to v0.13.0"); not a version of something named before it ("vLLM 0.13.0", "CANN
# 8.5.0": an upgrade's) nor a pin written in a description's footer (the digest holds none)
_REL = r"v?\d+\.\d+(?:\.\d+)*(?:[.-]?(?:rc|alpha|beta|post)\.?\d*)?"
_RELEASE_MARK = re.compile(
    rf"(?i)\[\s*(?P<tag>{_REL})\s*\]"
    rf"|\breleases?/(?P<branch>{_REL})(?![\w.])"
    rf"|(?<![\w./])(?P<dev>{_REL})-dev\b"
    rf"|\b(?:releas\w*|back-?port\w*|cherry[- ]?pick\w*)(?:\s+(?!v?\d)[\w-]+){{0,3}}?\s+"
    rf"(?P<after>{_REL})(?![\w.])"
    rf"|(?<![\w./-])(?P<before>{_REL})(?:\s+is)?\s+(?:releas\w*|back-?port\w*)"
)


def release_of(text: str) -> str | None:
    """The release a text names as the work for it ("0.13.0" of "[v0.13.0] Fix …", "release/
    v0.13.0", "release note for v0.13.0rc1"): its number, pre-release and v left out."""
    for m in _RELEASE_MARK.finditer(text):
        found = next(g for g in m.groups() if g)
        numbers = re.findall(r"\d+", re.split(r"(?i)[.-]?(?:rc|alpha|beta|post)", found)[0])
        if len(numbers) >= 2:
            return ".".join((numbers + ["0"])[:3]) if len(numbers) < 3 else ".".join(numbers)
    return None


def releases_named(item: StoryItem) -> set[str]:
    """The releases an item names as the work for it: in its title, and in what its description
    says it does and the sentences of its references (a freeze: "We'll release 0.13.0 soon")."""
    texts = [item.title]
    if item.digest is not None:
        texts += [item.digest.what, *(r.context for r in item.digest.refs), *item.digest.next_steps]
    return {r for t in texts if t and (r := release_of(t)) is not None}


def ci_only(item: StoryItem) -> bool:
    """A change of CI tooling alone (a GitHub action's bump): no upgrade of the code, no upgrade's
    fallout (the upgrades line and the fallout risk both read it)."""
    kinds = {file_kind(f) for f in item.files}
    return bool(kinds) and kinds <= {"ci"}


def _upgraded(target: list[str]) -> str:
    """The project an upgrade's target names: the last word before the version ("CANN" of
    "310P CANN 9.1.0", "CANN" of "wheel building's CANN 8.5.0"; a word before it says which
    of its uses, not what is upgraded)."""
    return target[-2] if len(target) > 1 else target[0]


def _cited_projects(item: StoryItem) -> set[str]:
    """The upstream projects whose own changes an item's description cites ("vllm" of
    vllm-project/vllm#41775 in a main2main sync), folded."""
    refs = item.digest.refs if item.digest is not None else ()
    return {r.repo.rsplit("/", 1)[-1].casefold() for r in refs if r.kind == "upstream" and r.repo}


def _upgrade_name(
    bumps: Sequence[StoryItem], beside: Sequence[StoryItem] = (), synced: Sequence[StoryItem] = ()
) -> str:
    """What a window's upgrades keep up with: the project most upgraded — by a title's target,
    or by a sync citing that project's own changes (`synced`: "main2main 0519", citing vLLM's
    pull requests, keeps up with vLLM, 2026-W22 beside one "Upgrade 310P CANN image") — spelled
    with the capitals any title gives it ("vLLM" over "vllm", the titles `beside` the upgrades
    too), and its newest release when a title names one ("vLLM v0.25.1"); commits and dates
    ("0619", "a30addc") are not named."""
    targets = [t.split() for i in bumps if (t := upgrade_target(i.title))]
    # (a version alone names no project: "Main2main upgrade to 0324", 2026-W14)
    projects = Counter(_upgraded(t).casefold() for t in targets if len(t) > 1)
    for i in synced:
        projects.update(_cited_projects(i))
    if not projects:
        projects.update(_upgraded(t).casefold() for t in targets)
    # (a tie goes to the upgrade a title names: it was counted first)
    main = projects.most_common(1)[0][0]
    mine = [t for t in targets if _upgraded(t).casefold() == main]
    spellings = Counter(_upgraded(t) for t in mine)
    for i in (*bumps, *beside):
        spellings.update(w for w in _WORD.findall(i.title) if w.casefold() == main)
    if not spellings:
        spellings[main] += 1  # (a project only its syncs cite, no title writes)
    capital = [(c, f) for f, c in spellings.items() if f[1:] != f[1:].lower()]
    project = max(capital)[1] if capital else spellings.most_common(1)[0][0]

    def release(t: list[str]) -> tuple[tuple[int, ...], str]:
        m = _RELEASE.fullmatch(t[-1])
        return (
            (tuple(int(x) for x in re.findall(r"\d+", m.group(0))), t[-1])
            if m and len(t) > 1
            else ((), "")
        )

    if dated := _main_dates(t[-1] for t in mine if len(t) > 1):
        return f"{project} {MAIN_TO} {dated}"
    newest = max((release(t) for t in mine), default=((), ""))
    return f"{project} {newest[1]}" if newest[0] else project


MAIN_TO = "main to"  # "vLLM main to 12-27": the renderer says "Keeping up with vLLM main (to …)"
_DASH_DATE = re.compile(r"(\d{1,2})-(\d{2})")  # "12-19": no version joins two numbers so
_DOT_DATE = re.compile(r"(\d{1,2})\.(\d{2})")  # "12.27": a date when the pins say so


def _main_dates(targets: Iterable[str]) -> str:
    """The newest date ("12-27") of upgrades pinning the upstream's main branch by the day
    ("update to vllm 12-19", "Update vllm pin to 12.24" … "12.27": 2025-W52 read as vLLM
    version 12.27) — when a target is written month-day with a dash, or two targets or more
    are month.day (a pin moving day by day, three days or more: two versions "2.10", "2.11"
    in a window are no pins by the day); "" when they are releases ("v0.13.0", "8.5.0"), or
    any target is not a date."""
    found = []
    dashed = False
    for t in targets:
        m = _DASH_DATE.fullmatch(t) or _DOT_DATE.fullmatch(t)
        if m is None or not (1 <= int(m[1]) <= 12 and 1 <= int(m[2]) <= 31):
            return ""
        dashed |= "-" in t
        found.append((int(m[1]), int(m[2])))
    if not found or not (dashed or len(set(found)) >= 3):
        return ""
    # (a window over new year: January's pins come after December's)
    late = any(mo >= 7 for mo, _ in found)
    mo, day = max(found, key=lambda d: (d[0] + (12 if late and d[0] < 7 else 0), d[1]))
    return f"{mo:02d}-{day:02d}"


def takes_out(item: StoryItem) -> bool:
    """A removal: it takes more out than it adds, is no revert, and its title says it removes
    (at its start; anywhere, for 1,000+ net lines: "refact hamming ops and call，remove sparse
    action")."""
    net = item.deletions - item.additions
    return (
        net > 0
        and role_of(item) != "revert"
        and bool(
            REMOVAL_TITLE.search(item.title)
            or (net >= BIG_REMOVAL_LINES and _REMOVAL_WORD.search(item.title))
        )
    )


_IDENTIFIER = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")
_HEADLINE = re.compile(r"^([^:]{3,60}?):\s+\S")


def _headline(members: Sequence[StoryItem]) -> str:
    """The head of the largest change's "head: details" title ("Refactor test selection" from
    "[CI] Refactor test selection: config-driven routing, partition, estimated_times"), when that
    head is two to five words; "" otherwise."""
    changes = [m for m in members if _stated_role(m) != "revert"] or list(members)
    biggest = max(changes, key=lambda m: (m.additions + m.deletions, -m.number))
    m = _HEADLINE.match(" ".join(_NUMBER_REF.sub(" ", _BRACKET.sub(" ", biggest.title)).split()))
    return m.group(1).strip() if m and 2 <= len(m.group(1).split()) <= 5 else ""


def _title_name(members: Sequence[StoryItem], term_counts: Mapping[str, int], history: int) -> str:
    """A name from the titles themselves: the title most of them repeat ("Auto-update estimated
    test times in test_config.yaml" three times), else the word pair they share; "" if neither."""
    titles = Counter(_short_name(m.title, 8) for m in members)
    title, count = titles.most_common(1)[0] if titles else ("", 0)
    if count >= 2 and count > PHRASE_SHARE * len(members):
        return title
    name = _phrase_of(members, term_counts, history)
    return name if " " in name else ""


_SERIES_MARK = re.compile(r"(?i)(?:^|[\s\[(])(\d{1,2})\s*/\s*(n|\d{1,2})(?=[\s\])]|$)")


# a place in a series in words: "part 2", "(Batch #3)", "phase 1", "2nd PR of"
_SERIES_PART = re.compile(
    r"(?i)\b(?:part|batch|phase|stage|step)(?:\s+#?|\s*#)\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)\s+(?:pr|part)\b"
)


def _series(
    window: Sequence[StoryItem], history_count: Callable[[str], int], history: int
) -> list[list[StoryItem]]:
    """Items of the window marked as parts of a series ("1/N", "[2/3]", "part 2", "(Batch #3)",
    "2nd PR of"), grouped when they share a [Tag] and a word that is not common in the history,
    when their titles are the same but for the part, or when they carry the same [Tags] and the
    same count of parts ("/N") and change code in one place — their main module or a folder
    ("[Refactor]3/N Refactor mla_v1.py & extract mla_cp" and "[Refactor] 4/N Distinguish the
    branches … of PA and FIA Ops", both in the attention code, 2025-W51)."""
    marked = [
        i
        for i in sorted(window, key=_order)
        if _SERIES_MARK.search(i.title.replace("]", "] ")) or _SERIES_PART.search(i.title)
    ]
    if len(marked) < 2:
        return []

    def words(item: StoryItem) -> set[str]:
        text = _SERIES_MARK.sub(" ", _BRACKET.sub(" ", item.title))
        return {
            w
            for w in (m.group(0).lower() for m in _WORD.finditer(text))
            if _usable(w) and not (history and history_count(w) / history > MAX_HISTORY_SHARE)
        }

    tags = {
        i.number: {
            t.strip().lower()
            for t in _BRACKET.findall(i.title)
            if not _SERIES_MARK.fullmatch(" " + t.strip())
        }
        for i in marked
    }
    own = {i.number: words(i) for i in marked}
    heads = {
        i.number: {k for k, _surface in _series_head(i.title) if not _kind_word(k)} for i in marked
    }
    parent = {i.number: i.number for i in marked}

    def place(item: StoryItem) -> tuple[str, str]:  # (part, count of parts) of "3/N"; "" if none
        m = _SERIES_MARK.search(item.title.replace("]", "] "))  # ("[Refactor]3/N")
        return (m.group(1), m.group(2).lower()) if m else ("", "")

    def stem(item: StoryItem) -> str:  # the title but for its place (two words at least)
        text = _SERIES_PART.sub(" ", _SERIES_MARK.sub(" ", _BRACKET.sub(" ", item.title)))
        text = _NUMBER_REF.sub(" ", text)
        return normalise_term(text) if len(_WORD.findall(text)) >= 2 else ""

    def where(item: StoryItem) -> set[str]:
        # its main module, and the folders (two levels deep at least) of its code
        folders = {
            "/" + f.rsplit("/", 1)[0]
            for f in item.files
            if f.count("/") >= 2 and file_kind(f) is None
        }
        return folders | set(item.modules[:1])

    def one_series(a: StoryItem, b: StoryItem) -> bool:
        if tags[a.number] & tags[b.number] and own[a.number] & own[b.number]:
            return True
        if stem(a) and stem(a) == stem(b):
            return True
        (pa, na), (pb, nb) = place(a), place(b)
        if na and na == nb and pa != pb and heads[a.number] & heads[b.number]:
            # the same words before the same count of parts ("[MLA] refactor 5/N", "[MLA]
            # refactor 6/N"): one series, however common the word is elsewhere
            return True
        return bool(
            tags[a.number]
            and tags[a.number] == tags[b.number]
            and na
            and na == nb
            and pa != pb
            and where(a) & where(b)
        )

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for a_i, a in enumerate(marked):
        for b in marked[a_i + 1 :]:
            if one_series(a, b):
                parent[find(b.number)] = find(a.number)
    out: dict[int, list[StoryItem]] = defaultdict(list)
    for i in marked:
        out[find(i.number)].append(i)
    return [members for members in out.values() if len(members) >= 2]


def _kind_word(key: str) -> bool:
    """A word that says what kind of change it is ("refactor", "feat", "bugfix"), in any
    repository: no series is named or held together by it alone."""
    return (
        key in KIND_WORDS
        or key in STOP_WORDS
        or key in _SERIES_WORDS
        or any(pattern.match(key) for pattern, _role in _TAG_ROLE)
    )


# ---------------------------------------------------------------- shared links and [Tags]

# what a description links as the work it belongs to: "RFC #4842", ".../issues/5467", "Fixes
# #5445", an upstream change it adapts to (a revert, a fix-up or a follow-up is a chain)
SHARED_REF_KINDS = ("related", "fixes", "upstream")
_TAG_KEY = "tag:"  # the key of a line of a [Tag] ("tag:pd"), of shared links ("ref:#4842")
_REF_KEY = "ref:"
SUBJECT_SHARE = 2 / 3  # changes of one subject: at least this share of them in one module


def shared_refs(item: StoryItem) -> set[tuple[str | None, int]]:
    """The issues, RFCs and changes an item's description links as what it belongs to, as
    (repo, number): repo None in the item's own repository."""
    if item.digest is None:
        return set()
    return {
        (r.repo, r.number)
        for r in item.digest.refs
        if r.kind in SHARED_REF_KINDS and r.number is not None
    }


def title_tags(title: str) -> dict[str, str]:
    """A title's [Tags] that may name a line of work, key -> as written ("pd" -> "P/D" of
    "[BugFix][P/D] Fix pre-create link parameter error"): not a kind of change ("[Bugfix]",
    "[CI/UT]"), a place in a series ("[2/N]"), a version or a release ("[v0.13.0]")."""
    out: dict[str, str] = {}
    for tag in _BRACKET.findall(title):
        tag = " ".join(tag.split())
        words = [w.lower() for w in _WORD.findall(tag)]
        key = "".join(words)
        if (
            len(key) < 2
            or all(_kind_word(w) or w.replace(".", "").isdigit() for w in words)
            or _SERIES_MARK.search(f" {tag} ")
            or _VERSION.match(key)
            or release_of(tag) is not None
        ):
            continue
        out.setdefault(key, tag)
    return out


_LEADING_TAGS = re.compile(r"^[\s\]]*((?:\[[^\[\]]*\]\s*)+)")
SERIES_HEAD_WORDS = 3  # a series' head is a short prefix ("[MLA] refactor"), not a sentence


def _series_head(title: str) -> list[tuple[str, str]]:
    """What a title of a series writes before its place in it ("MLA", "refactor" of "[MLA]
    refactor 5/N …"; "Refactor", "EAGLE" of "[Refactor][EAGLE] 3/N …"), or the [Tags] right
    after the place when it comes first ("[1/N][Refactor] …"), as (key, as written) pairs; []
    when the title has no "N/M" place, or more than a few words before it (a sentence)."""
    quoted, _number = quoted_revert(title)  # (a revert's words are the reverted title's)
    text = (quoted or title).replace("]", "] ")
    m = _SERIES_MARK.search(text)
    if m is None:
        return []
    before = _NUMBER_REF.sub(" ", text[: m.start() + 1].rstrip("[("))
    found = [(w.lower(), w) for w in _WORD.findall(before)]
    if not found:
        tags = _LEADING_TAGS.match(text[m.end() :])
        found = [(w.lower(), w) for w in _WORD.findall(tags.group(1))] if tags else []
    found = [(k, w) for k, w in found if _usable(k)]
    return found if len(found) <= SERIES_HEAD_WORDS else []


def _series_name(members: Sequence[StoryItem]) -> str:
    """A series named after what its parts share: the head its titles write before their place
    when a name is in it ("EAGLE refactor" of "[Refactor][EAGLE] 3/N …" and "… 5/N …"), else
    the words every part's title starts with ("Extract common code" of "[Refactor]5/N Extract
    common code of mla_v1.py …" and "[Refactor]6/N Extract common code of class …"), else the
    first part's title."""
    heads = [_series_head(m.title) for m in members]
    shared = set.intersection(*({k for k, _w in h} for h in heads)) if heads else set()
    forms: dict[str, list[str]] = defaultdict(list)
    for h in heads:
        for k, w in h:
            forms[k].append(w)
    names = [k for k in shared if not _kind_word(k) and any(_NAMED.search(w) for w in forms[k])]
    if names:
        first = list(dict.fromkeys(k for k, _w in heads[0] if k in shared))
        words = [
            max(forms[k], key=lambda w: (w != w.lower(), w)) for k in first if not _kind_word(k)
        ] + [k for k in first if _kind_word(k) and k not in STOP_WORDS]
        return " ".join(words)
    rests = [
        _WORD.findall(
            _SERIES_MARK.sub(
                " ", _NUMBER_REF.sub(" ", _BRACKET.sub(" ", m.title.replace("]", "] ")))
            )
        )
        for m in members
    ]
    common_start: list[str] = []
    for column in zip(*rests, strict=False):
        if len({w.lower() for w in column}) != 1:
            break
        common_start.append(column[0])
    while common_start and common_start[-1].lower() in STOP_WORDS | _PHRASE_STOPS:
        common_start.pop()
    if len(common_start) >= 2:
        name = " ".join(common_start)
        return name[:1].upper() + name[1:]
    return _short_name(members[0].title)


def acronym(phrase: str) -> str:
    """The initials a long name is shortened to: "DeepSeek V4" -> "DSV4", "Model Runner V2" ->
    "MRV2" (a word with digits is kept whole; a CamelCase word gives each capital)."""
    out = []
    for word in _WORD.findall(phrase):
        if any(ch.isdigit() for ch in word):
            out.append(word.upper())
        else:
            capitals = [ch for ch in word if ch.isupper()]
            out.append("".join(capitals) if capitals else word[:1].upper())
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _text_terms(text: str) -> frozenset[str]:
    """The terms of a description's sentence (not through the titles' cache: a window's
    descriptions would push the history's titles out)."""
    return frozenset(t.key for t in _title_terms.__wrapped__(text))


# a word run joined by '-', '_', '.' or '/' ("DeepSeek-V3_2-W8A8-EP", "docs/…/DeepSeek-V4-Flash.md")
_COMPOUND = re.compile(r"[0-9A-Za-z][0-9A-Za-z._/-]*[0-9A-Za-z]")


def name_heads(text: str) -> str:
    """A sentence with each compound name cut to its head, what the sentence is about: its first
    two words, a family and its version ("DeepSeek-V4" of "DeepSeek-V4-Flash", "DeepSeek-V3.2" of
    "DeepSeek-V3.2-W8A8"); what follows is a variant or a config named in passing ("W8A8" of the
    nightly config "DeepSeek-V3_2-W8A8-EP", 2026-W15), and a path or a file name says where."""

    def head(m: re.Match[str]) -> str:
        word = m.group(0)
        if "/" in word or _FILE_NAME.search(word):
            return " "
        parts = [p for p in re.split(r"[-_]+", word) if p]
        return "-".join(parts[:2]) if len(parts) > 2 else word

    return _COMPOUND.sub(head, text)


# a code identifier or a command-line flag in a title ("max_num_batched_tokens",
# "--max-num-seqs", "dispatch_ffn_combine")
_IDENT_OR_FLAG = re.compile(r"--[0-9A-Za-z][0-9A-Za-z-]*|[0-9A-Za-z]+(?:_[0-9A-Za-z]+)+")


def enclosing_identifier(title: str, parts: Sequence[str]) -> str | None:
    """The longer identifier or flag a title writes a word pair inside ("dispatch_ffn_combine"
    for ffn, combine); None when the title writes the pair outside one (or as a whole one)."""
    found = None
    for m in _IDENT_OR_FLAG.finditer(_BRACKET.sub(" ", title)):
        words = [w.lower() for w in re.split(r"[_-]+", m.group(0)) if w]
        at = [i for i in range(len(words) - 1) if (words[i], words[i + 1]) == tuple(parts)]
        if at and len(words) > 2:
            found = m.group(0).lstrip("-")
    if found is None:
        return None
    # (and nowhere outside it)
    bare = _IDENT_OR_FLAG.sub(" ", _BRACKET.sub(" ", title))
    if any(t.key == "".join(parts) for t in _title_terms.__wrapped__(bare)):
        return None
    return found


def own_title(item: StoryItem) -> str:
    """The title of the change an item is: a revert's is the title of the change it undoes."""
    quoted, _ = quoted_revert(item.title)
    return plain_title(quoted or item.title)


def one_change_phrase(members: Sequence[StoryItem], phrase: str) -> bool:
    """Whether a phrase the titles share is one change's words, not a subject: only one change
    writes it (a change and its revert are one), or it is what the change does, its title's
    verb leading it ("Simplify MC2", 2026-W27: a refactor and its revert)."""
    key = normalise_term(phrase)
    holders = [m for m in members if key in terms_of(m.title)]
    if len({own_title(m) for m in holders}) < 2:
        return True
    first = next((w.lower() for w in _WORD.findall(phrase)), "")
    return all(title_verb(own_title(m)) == first for m in holders)


def file_line_name(path: str, forms: Mapping[str, str]) -> str:
    """A readable name of a file and of the directory it is in, its words as the titles write
    them ("token dispatcher (fused MoE)" for vllm_ascend/ops/fused_moe/token_dispatcher.py)."""

    def readable(part: str) -> str:
        return " ".join(forms.get(w.lower(), w) for w in re.split(r"[_\-\s]+", part) if w)

    parts = path.split("/")
    stem = _FILE_NAME.sub("", parts[-1]) or parts[-1]
    name = readable(stem)
    # (the directory of a file nested in a package: "fused_moe", not the package "vllm_ascend")
    return f"{name} ({readable(parts[-2])})" if len(parts) >= 3 else name


def find_storylines(
    current: Sequence[StoryItem],
    previous: Sequence[StoryItem],
    term_counts: Mapping[str, int],
    history_items: int,
    *,
    referenced: Mapping[int, StoryItem] = {},
    upgrade_modules: Collection[str] = (),
    limit: int = 8,
) -> list[Storyline]:
    """The window's storylines, largest and most distinctive first (each item in at most one).

    `term_counts`/`history_items`: the history's document frequency of `terms_of` (see
    `term_counts_of`, topics included); `referenced`: earlier items the window's items refer
    to; `upgrade_modules`: the module tags that mean keeping up with an upstream or a dependency
    ("upstream-sync"). An item's topics (a profile's one line of work under several names) are
    terms of it, named as the profile names them."""
    window = [i for i in current if not i.bot]
    by_number = {i.number: i for i in window}
    if not by_number:
        return []
    n = len(by_number)

    def item_terms(item: StoryItem) -> list[_Term]:
        terms = list(_title_terms(item.title))
        return terms + [_Term(topic_term(name), name, ()) for name in item.topics]

    def is_topic(key: str) -> bool:
        return key.startswith(TOPIC_PREFIX)

    def mentions(item: StoryItem) -> frozenset[str]:
        """The terms an item names: its title's and topics, and the names with a digit (a model,
        a chip, a versioned part: "DeepSeek-V4", "MC2") what its description says it does is
        about — a description names the area a change is in everywhere ("the KV cache",
        2026-W01), and the paths it changes do too ("vllm_ascend/…", "acl_graph.py"); a config
        it names in passing is not what it is about ("W8A8" of "DeepSeek-V3_2-W8A8-EP", see
        name_heads)."""
        out = frozenset(t.key for t in item_terms(item))
        if item.digest is not None and item.digest.what:
            said = _text_terms(name_heads(item.digest.what))
            out |= {k for k in said if any(ch.isdigit() for ch in k)}
        return out

    def written_as_name(key: str) -> bool:
        # most of its forms are written as names (MTP, DeepSeek-V4, Qwen3.5, estimated_times), or
        # it is a profile's topic, a name whatever its words
        forms = surfaces[key]
        return is_topic(key) or sum(c for f, c in forms.items() if _NAMED.search(f)) * 2 >= sum(
            forms.values()
        )

    # term -> window items; its surface forms; its words (for a bigram)
    term_items: dict[str, set[int]] = defaultdict(set)
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    parts_of: dict[str, tuple[str, ...]] = {}
    for item in sorted(window, key=_order):
        for t in item_terms(item):
            term_items[t.key].add(item.number)
            surfaces[t.key][t.surface] += 1
            if t.parts:
                parts_of[t.key] = t.parts
    # an acronym's history counts toward its long form (an upper bound of the union); the
    # history's counts are not copied, a big repository's hold hundreds of thousands of terms
    alias_counts: Counter[str] = Counter()

    def history_count(key: str) -> int:
        return term_counts.get(key, 0) + alias_counts.get(key, 0)

    # an acronym written beside its long form is the same name: "DSV4" is "DeepSeek V4", "MRV2"
    # is "Model Runner V2" (found in the window's own titles, not in a list)
    aliases: dict[str, set[str]] = defaultdict(set)  # a long form -> the acronyms folded into it
    for key in [k for k in term_items if k in parts_of]:
        for surface, _ in surfaces[key].most_common(2):
            short = normalise_term(acronym(surface))
            if len(short) < 3 or short == key or short not in term_items or short in parts_of:
                continue
            # the long form names the storyline
            term_items[key] |= term_items.pop(short)
            alias_counts[key] += term_counts.get(short, 0)
            aliases[key].add(short)
            break
    # ... or beside it in the previous window's: a line that goes on under its short name is
    # still the line of its long one (2026-W27 wrote "dsv4" three times, W26 "DeepSeek-V4")
    earlier_forms: dict[str, Counter[str]] = defaultdict(Counter)
    earlier_parts: dict[str, tuple[str, ...]] = {}
    for i in previous:
        if not i.bot:
            for t in _title_terms(i.title):
                if t.parts and t.key not in term_items:
                    earlier_forms[t.key][t.surface] += 1
                    earlier_parts[t.key] = t.parts
    # — a long form the history writes at least as often as the acronym: initials that match by
    # chance belong to a phrase of a change or two ("DSpark acceptance" is no "DSA", 2026-W33)
    for key in sorted(earlier_forms, key=lambda k: (-sum(earlier_forms[k].values()), k)):
        for surface, _ in earlier_forms[key].most_common(2):
            short = normalise_term(acronym(surface))
            if len(short) < 3 or short == key or short not in term_items or short in parts_of:
                continue
            if term_counts.get(key, 0) < term_counts.get(short, 0):
                continue
            term_items[key] = term_items.pop(short)
            surfaces[key] = earlier_forms[key]
            parts_of[key] = earlier_parts[key]
            alias_counts[key] += term_counts.get(short, 0)
            aliases[key].add(short)
            break

    history = max(history_items, 0)

    def common(key: str) -> bool:
        return bool(history) and history_count(key) / history > MAX_HISTORY_SHARE

    # which files say something about a group of items: not tests, not touched by most of them
    file_items: dict[str, set[int]] = defaultdict(set)
    for item in window:
        for path in set(item.files):
            if not _is_test_file(path):
                file_items[path].add(item.number)
    # (a package's __init__ is where everything registers: it says nothing of a line of work)
    specific = {
        f: xs
        for f, xs in file_items.items()
        if len(xs) <= max(MIN_ITEMS, FILE_SHARE * n) and f.rsplit("/", 1)[-1] != "__init__.py"
    }
    files_of = {x: {f for f in by_number[x].files if f in specific} for x in by_number}

    # references among the window's items and those it refers to (a chain is a line of its own
    # below; a pair of changes that share a name and refer to each other are one line too)
    known: dict[int, StoryItem] = {i.number: i for i in previous}
    known.update(referenced)
    known.update(by_number)
    all_links = resolve_links(known)
    linked = {frozenset((lk.source, lk.target)) for lk in all_links}

    def fragment_of(key: str) -> Counter[str]:
        """The identifiers a pair of the window's titles is read inside (as written, by their
        lower case), when every title holding it writes it inside one ("ffn combine":
        dispatch_ffn_combine); empty otherwise."""
        runs = [enclosing_identifier(by_number[x].title, parts_of[key]) for x in term_items[key]]
        if not runs or None in runs:
            return Counter()
        return Counter(r.lower() for r in runs if r is not None)

    def pair_holds(numbers: Collection[int], key: str) -> bool:
        """Two changes sharing a name are a line of work (in a small window) only with more
        than the word: a name of two words or a profile's topic ("KV Offload"), or a specific
        file both change, or a reference between them; never with a change of tests alone,
        which tests an area, not a line of work in it (2025-12-18: "[UT]Ut for function
        cumsum_group_list in moe_mlp" and "[Feat] Support MLP_TP feature" shared only "mlp")."""
        members = [by_number[x] for x in numbers]
        if any(_tests_only(m) for m in members):
            return False
        # (a pair read inside different identifiers is no name of two words: "max num",
        # 2026-01-23, of max_num_batched_tokens and of --max-num-seqs)
        if is_topic(key) or (key in parts_of and len(fragment_of(key)) <= 1):
            return True
        if any(frozenset(pair) in linked for pair in itertools.combinations(numbers, 2)):
            return True
        return bool(set.intersection(*(files_of[x] for x in numbers)))

    def coherence(members: set[int]) -> float:
        # the share of the items that change a specific file another of them changes too
        seen: Counter[str] = Counter(f for x in members for f in files_of[x])
        return sum(1 for x in members if any(seen[f] > 1 for f in files_of[x])) / len(members)

    scores: dict[str, float] = {}
    named_keys: set[str] = set()

    def named_term(key: str) -> bool:
        return key in named_keys

    # how many of the previous window's items worked on each term: a name worked on for weeks
    # ("DSV4", three PRs a week for months) is no surprise against the history, yet a line of work.
    # A change of the previous window names it in its title, in what its description says it
    # does (2026-W26's DeepSeek-V4 work: one title, a fix and a nightly test's thresholds whose
    # descriptions say they are for DeepSeek-V4), under its long name or its acronym (see
    # mentions)
    prev_term_items: Counter[str] = Counter()
    for i in previous:
        if not i.bot:
            named_there = mentions(i)
            prev_term_items.update(
                named_there | {k for k, shorts in aliases.items() if shorts & named_there}
            )

    # the words the titles of this window and the previous one start with, after their [Tags]:
    # by the convention of titles, verbs ("Remove", "Support"); a word most titles holding it
    # start with, never written as a name, is a verb there, whatever the language of the titles
    title_words: Counter[str] = Counter()
    title_leads: Counter[str] = Counter()
    title_forms: dict[str, set[str]] = defaultdict(set)
    for i in (*window, *(i for i in previous if not i.bot)):
        text = _NUMBER_REF.sub(" ", _BRACKET.sub(" ", i.title))
        for m in _WORD.finditer(text):
            title_forms[m.group(0).lower()].add(m.group(0))
        title_words.update({m.group(0).lower() for m in _WORD.finditer(text)})
        title_leads[title_verb(i.title)] += 1

    def verb_led(word: str) -> bool:
        return (
            title_leads[word] >= 2
            and title_leads[word] * 2 >= title_words[word]
            and not any(_NAMED.search(f) for f in title_forms[word])
        )

    # a day's window holds a score of changes: two that share a rare name are its line of work
    # (2026-08-05: "[KV Offload] Add layerwise prefill KV buffer reuse" and "[KV Offload]
    # Support Sparse KV Cache Offload", 4,300 lines together, were told as two module rows)
    min_items = SMALL_WINDOW_MIN_ITEMS if n <= SMALL_WINDOW else MIN_ITEMS
    for key, members in term_items.items():
        k = len(members)
        # a name rare in the history may hold a week's biggest line (2026-W21: "DeepSeek V4",
        # 15 of 93 changes, was cut to its "V4" and missed "Support DeepseekV4"); a plain word
        # in a sixth of everything is no line of work
        share = MAX_WINDOW_SHARE
        if k > MAX_WINDOW_SHARE * n and history_count(key) <= RARE_WORD_SHARE * history:
            if written_as_name(key):
                share = MAX_NAMED_WINDOW_SHARE
        if k < min_items or k > max(MAX_WINDOW_ITEMS_FLOOR, share * n):
            continue
        if k < MIN_ITEMS and not pair_holds(members, key):
            continue
        if key in KIND_WORDS or any(p in KIND_WORDS for p in parts_of.get(key, ())):
            continue
        if short_word(key) and not is_topic(key):
            # a word of two letters alone is an abbreviation of many things or a locale
            # ("CN": three fixes of a translation tool, 2026-07-09's only line; "KV", "DP",
            # "PR": bags of unrelated changes) — it names a line only as a profile's topic, or
            # inside a word pair ("KV Pool")
            continue
        if version_marker(key, parts_of.get(key, ())):
            # "V1" alone (2026-W34) lumped the removal of FlashComm v1, a split of dsa_v1 and
            # V1/V2 migration guards: a version is of a component, and only its name names one
            continue
        if key in parts_of and verb_led(parts_of[key][0]):
            # a pair led by a title's verb ("Remove MiniMax", 2026-W34: four deletions of
            # MiniMax-M2 patches, read as MiniMax support dropped the week MiniMax M3 came) is
            # no name: its subject stands on its own, and the items' roles say what was done
            continue
        # a pair with a word found everywhere ("Support Hybrid", "Fix e2e") is that word plus
        # the other one, which stands on its own
        if common(key) or any(common(p) for p in parts_of.get(key, ())):
            continue
        seen = history_count(key)
        rate = (seen + 1) / (history + 2)
        named = written_as_name(key)
        lift = (k / n) / rate
        if (
            named
            and lift >= 1.0
            and prev_term_items[key] >= MIN_ITEMS - 1
            and seen <= RARE_WORD_SHARE * history
            and not _VERSION.match(key)
            # (a change and its revert are one piece of work: 2026-W27's "MC2" was two changes,
            # one of them reverted)
            and sum(1 for x in members if role_of(by_number[x]) != "revert") >= min_items
        ):
            # continuing: a name rare in the history (not an area such as "MoE" or "KV"), as busy
            # as usual at least, and worked on in the previous window too — however low its lift
            # (2026-W27: three DSV4 changes of 115, the history's usual rate)
            named_keys.add(key)
            scores[key] = max(_surprise(k, n, rate), MIN_SURPRISE_CONTINUING)
            continue
        if lift < MIN_LIFT:
            continue
        surprise = _surprise(k, n, rate)
        # a name as written (MTP, DeepSeek-V4, Qwen3.5, estimated_times) needs less evidence than
        # a plain word ("cache", "error", "preserve"), which must also hold its items together
        if named:
            named_keys.add(key)
        if named and surprise >= MIN_SURPRISE_NAMED:
            scores[key] = surprise
        elif surprise >= MIN_SURPRISE_WORD and coherence(members) >= MIN_COHERENCE:
            scores[key] = surprise

    # a bigram absorbs its words when it holds most of their items ("build cache" vs "cache")
    for key in sorted(scores, key=lambda k: -scores[k]):
        for part in parts_of.get(key, ()):
            if part in scores and len(term_items[key] & term_items[part]) >= ABSORB * len(
                term_items[part]
            ):
                del scores[part]

    # a topic absorbs the terms whose items mostly carry it: its spellings ("A5", "Ascend950")
    # lose their items to the one line the profile names ("Ascend 950 (A5)")
    for key in [k for k in scores if is_topic(k)]:
        for other in [k for k in scores if not is_topic(k)]:
            if len(term_items[other] & term_items[key]) >= ABSORB * len(term_items[other]):
                del scores[other]

    # terms whose items mostly overlap are one line of work (a topic's line keeps its name)
    clusters: list[tuple[list[str], set[int]]] = []
    for key in sorted(scores, key=lambda k: (not is_topic(k), -scores[k], len(k), k)):
        members = term_items[key]
        for keys, union in clusters:
            if len(members & union) >= MERGE * max(len(members), len(union)):
                keys.append(key)
                union |= members
                break
        else:
            clusters.append(([key], set(members)))

    def written(key: str) -> str:
        # a name as its titles write it, capitals where any title writes them: "Qwen3.5" over
        # "qwen3.5", "DSpark" over "dspark" (2026-W27, W30: lowercase names read as identifiers)
        # (a plain phrase keeps its most common form: "build cache", not "Build cache")
        forms = surfaces[key]
        capital = [
            (count, form)
            for form, count in forms.items()
            if form != form.lower()
            and (any(ch.isdigit() for ch in form) or form[1:] != form[1:].lower())
        ]
        return max(capital)[1] if capital else forms.most_common(1)[0][0]

    assigned: dict[int, int] = {}  # item -> group index
    groups: list[_Group] = []

    # keeping up with upstream: the window's moves to a new version of an upstream project or a
    # dependency ("Upgrade vllm to 0.25.0", "main2main: upgrade vLLM commit to 0717") and the
    # changes in the upgrade area beside them are a line of work in any downstream project
    # (2026-W27: nine PRs syncing with vLLM up to v0.24.0 were told nowhere). CI tooling bumps
    # alone (a GitHub action) are not. Found first: an upgrade and the fixes in its area are one
    # story, which the words of their titles ("main2main eplb") would cut in pieces.
    def free_for_upgrades(i: StoryItem) -> bool:
        return role_of(i) != "revert"

    upgrade_area = {m.casefold() for m in upgrade_modules}
    bumps = [
        i
        for i in sorted(window, key=_order)
        if upgrade_target(i.title) is not None
        and role_of(i) not in ("fix", "docs")  # "Update the MiniMax-M2.5 doc to M2.7"
        and not ci_only(i)
        and free_for_upgrades(i)
    ]
    upgrade_group: int | None = None  # the line of the project kept up with
    upgraded_project = ""
    if bumps:
        # each project's upgrades: a line holds the upgrades of the project it is named after
        # (2026-W27: Mooncake's bump, its revert and its re-land were told as keeping up with
        # vLLM); the project kept up with is the most upgraded, by titles and by syncs citing its
        # own changes (see _upgrade_name)
        # (a title naming only the version, "upgrade to 0.18.0" (2026-W12), is of the project kept
        # up with: "")
        of_project: dict[str, list[StoryItem]] = defaultdict(list)
        for i in bumps:
            target = str(upgrade_target(i.title)).split()
            of_project[_upgraded(target).casefold() if len(target) > 1 else ""].append(i)
        area = [
            i
            for i in sorted(window, key=_order)
            if i not in bumps
            and free_for_upgrades(i)
            and any(m.casefold() in upgrade_area for m in i.modules[:1])
        ]
        counted = Counter({p: len(xs) for p, xs in of_project.items() if p})
        for i in (*bumps, *area):
            counted.update(_cited_projects(i))
        main = counted.most_common(1)[0][0] if counted else ""
        mine = sorted({*of_project.get(main, []), *of_project.get("", [])}, key=_order)
        # a move of that project a description says it makes, citing the project's own changes
        # (2026-W27's "[CI] main2mian v0.24.0": "This PR upgrades the verified vLLM main commit
        # to ee0da84… (v0.24.0 tag)")
        told = [
            i
            for i in sorted(window, key=_order)
            if i not in bumps
            and free_for_upgrades(i)
            and role_of(i) not in ("fix", "docs")
            and not ci_only(i)
            and i.digest is not None
            and main in _cited_projects(i)
            and (t := upgrade_target(i.digest.what)) is not None
            and main in {w.casefold() for w in t.split()}
        ]
        # beside them: changes in the upgrade area, and changes whose titles follow the upgraded
        # project — its name with a version ("Drop vLLM v0.22.1 compatibility", "Fix ... with
        # vLLM 0.22.1") or code now upstream ("Remove upstreamed platform patches"): 2026-W26
        # told its v0.23.0 upgrade nowhere, its six companions scattered over other lines
        projects = {
            w.casefold()
            for i in mine
            if (t := upgrade_target(i.title))
            for w in t.split()[:-1]
            if not _RELEASE.fullmatch(w)
        } or {main}

        def named_after_upgrade(i: StoryItem) -> bool:
            title = _BRACKET.sub(" ", i.title)
            if _UPSTREAMED.search(title):
                return True
            words = {w.casefold() for w in _WORD.findall(title)}
            return bool(projects & words) and _VERSION_WORD.search(title) is not None

        named = [
            i
            for i in sorted(window, key=_order)
            if i not in bumps and i not in told and free_for_upgrades(i) and named_after_upgrade(i)
        ]
        beside = named + [i for i in area if i not in told and i not in named]
        members = sorted([*mine, *told, *beside], key=_order)
        if len(members) >= MIN_ITEMS:
            groups.append(
                _Group(
                    key=UPGRADES_KEY,
                    name=_upgrade_name(
                        mine or bumps, window, synced=[*(mine or bumps), *told, *beside]
                    ),
                    evidence="term",
                    items=[i.number for i in members],
                    score=float(len(members)),
                    # what its titles tie to the upgrade stays in it (a removal of upstreamed
                    # code is the upgrade's, not a clean-up of its own)
                    core=frozenset(i.number for i in [*mine, *told, *named]),
                    # keeping up continues whatever version it moves to: the previous window's
                    # upgrades and upgrade-area changes (2026-W13's move to vLLM 0.18.0 was "new"
                    # though W12 had kept up with 0.17.x the same way)
                    previous=sum(
                        1
                        for i in previous
                        if not i.bot
                        and (
                            (upgrade_target(i.title) is not None and not ci_only(i))
                            or any(m.casefold() in upgrade_area for m in i.modules[:1])
                        )
                    ),
                )
            )
            upgrade_group, upgraded_project = len(groups) - 1, main
            for i in members:
                assigned[i.number] = len(groups) - 1
        # another project's upgrades are a line of their own when there are enough of them, its
        # reverts counted (Mooncake, 2026-W27: a bump, its revert and the re-land), else no
        # upgrade line's
        for project, ups in of_project.items():
            if project in (main, ""):
                continue
            undone = [
                i
                for i in sorted(window, key=_order)
                if role_of(i) == "revert"
                and i.number not in assigned
                and (t := upgrade_target(own_title(i))) is not None
                and _upgraded(t.split()).casefold() == project
            ]
            members = sorted([*ups, *undone], key=_order)
            if len(members) < MIN_ITEMS:
                continue
            groups.append(
                _Group(
                    key=UPGRADES_KEY if upgrade_group is None else f"{UPGRADES_KEY}:{project}",
                    name=_upgrade_name(ups, window),
                    evidence="term",
                    items=[i.number for i in members],
                    score=float(len(members)),
                    core=frozenset(i.number for i in ups),
                    previous=sum(
                        1
                        for i in previous
                        if not i.bot
                        and (t := upgrade_target(i.title)) is not None
                        and _upgraded(t.split()).casefold() == project
                    ),
                )
            )
            for i in members:
                assigned[i.number] = len(groups) - 1

    # a release: the window's changes that name one release as the work for it ("[v0.13.0] …",
    # "backport to release/v0.13.0", "release note for v0.13.0rc1") are its line of work when
    # they are a share of the window (a release note and a fix for it in a busy week are not);
    # a revert is not work for a release, whatever its reason (2025-12-27: two reverts "We'll
    # release 0.13.0 soon. The main branch is freeze" took the changes they undid with them)
    release_items: dict[str, list[StoryItem]] = defaultdict(list)
    for i in sorted(window, key=_order):
        if i.number not in assigned and role_of(i) != "revert":
            for release in releases_named(i):
                release_items[release].append(i)
    if release_items:
        release, marked = max(release_items.items(), key=lambda kv: (len(kv[1]), kv[0]))
        if len(marked) >= max(MIN_ITEMS, RELEASE_SHARE * n):
            # backports of the window's changes join it: a port is work for a release
            ported = [
                i
                for i in sorted(window, key=_order)
                if i.number not in assigned
                and i not in marked
                and role_of(i) != "revert"
                and i.digest is not None
                and any(r.kind == "backport" and r.repo is None for r in i.digest.refs)
            ]
            members = sorted([*marked, *ported], key=_order)
            spelled = Counter(
                m.group(0)
                for i in marked
                for m in re.finditer(rf"(?i)(?<![\w.])v{re.escape(release)}(?![\d])", i.title)
            )
            groups.append(
                _Group(
                    key=RELEASE_KEY,
                    name=f"Release {spelled.most_common(1)[0][0] if spelled else 'v' + release}",
                    evidence="term",
                    items=[i.number for i in members],
                    score=float(len(members)),
                    terms=(release,),
                    core=frozenset(i.number for i in marked),
                    previous=sum(1 for i in previous if not i.bot and release in releases_named(i)),
                )
            )
            for i in members:
                assigned[i.number] = len(groups) - 1

    # changes of one subject: most of them in one module, or changing files another of them
    # changes; and mostly work on the code, not tests, CI or docs alone
    def one_subject(members: Sequence[StoryItem]) -> bool:
        modules = Counter(m for x in members for m in set(x.modules))
        held_together = (
            bool(modules) and modules.most_common(1)[0][1] >= SUBJECT_SHARE * len(members)
        ) or coherence({x.number for x in members}) >= MIN_COHERENCE
        code = sum(1 for x in members if role_of(x) not in ("docs", "ci", "test", "revert"))
        return held_together and code * 2 >= len(members)

    most_items = max(MAX_WINDOW_ITEMS_FLOOR, MAX_NAMED_WINDOW_SHARE * n)

    # one issue or RFC that three or more descriptions link is their line of work (2026-W02:
    # "[P/D] … Layerwise connector …" twice for RFC #4842; 2026-W04: three changes for
    # DispatchGmmCombineDecode, #5476; 2025-W29: the V0 deprecation, #1620), named after it when
    # its title is known, else after what their titles share; one that a big share of the window
    # links is a tracker of everything, no line of work
    ref_items: dict[tuple[str | None, int], list[StoryItem]] = defaultdict(list)
    for i in sorted(window, key=_order):
        if role_of(i) != "revert":
            for ref in shared_refs(i):
                if not (ref[0] is None and ref[1] in by_number):  # (a link inside: a chain)
                    ref_items[ref].append(i)
    for (repo, number), xs in sorted(
        ref_items.items(), key=lambda kv: (-len(kv[1]), kv[0][0] or "", kv[0][1])
    ):
        free_items = [x for x in xs if x.number not in assigned]
        if len(free_items) < MIN_ITEMS or len(xs) > most_items:
            continue
        target = known.get(number) if repo is None else None
        parts = [x for x in free_items if _SERIES_MARK.search(x.title.replace("]", "] "))]
        series_name = _series_name(parts) if len(parts) >= 2 else ""
        # (what their titles share, but not the words of the reference: "RFC" of "[RFC: issue
        # 5476]", 2026-W04)
        phrase = _phrase_of(free_items, term_counts, history)
        if all(w.lower() in _SERIES_WORDS or w.isdigit() for w in _WORD.findall(phrase)):
            phrase = ""
        name = (
            (_short_name(target.title) if target is not None else "")
            # the parts of a series among them say what they share ("Extract common code")
            or (series_name if parts and series_name != _short_name(parts[0].title) else "")
            or phrase
            or (f"{repo}#{number}" if repo else f"#{number}")
        )
        groups.append(
            _Group(
                key=f"{_REF_KEY}{repo}#{number}" if repo else f"{_REF_KEY}#{number}",
                name=name,
                evidence="term",
                items=[x.number for x in free_items],
                # (no surprise measured: a line of the same size a term names goes first)
                score=0.0,
                terms=(f"{repo}#{number}" if repo else f"#{number}",),
                core=frozenset(x.number for x in free_items),
                previous=sum(1 for i in previous if not i.bot and (repo, number) in shared_refs(i)),
            )
        )
        for x in free_items:
            assigned[x.number] = len(groups) - 1

    # a name the upgrade line's titles write for its syncs ("main2main 0608") is the upgrade's
    # work when most of its changes name the project kept up with, in their titles or in what
    # their descriptions say they do (2026-W27: the auto main2main job "to automatically adapt
    # vllm-ascend to upstream vLLM main changes" and its fixes): its changes join that line, after
    # the other lines took theirs (a KV offload connector kept in step with vLLM v0.23.0 is told
    # with KV offload)
    synced_terms = (
        set().union(*(terms_of(by_number[x].title) for x in groups[upgrade_group].items))
        if upgrade_group is not None
        else set()
    )

    def names_project(x: int) -> bool:
        item = by_number[x]
        text = f"{item.title} {item.digest.what if item.digest is not None else ''}"
        return upgraded_project in {w.casefold() for w in _WORD.findall(text)}

    def of_the_upgrade(keys: Sequence[str]) -> bool:
        top = keys[0]
        return (
            top in synced_terms
            and not is_topic(top)
            # (the project's own name ties nothing: "Fix … with vLLM graphs")
            and upgraded_project not in (top, *parts_of.get(top, ()))
            and sum(1 for x in term_items[top] if names_project(x)) * 2 > len(term_items[top])
        )

    ordered = sorted(clusters, key=lambda c: -scores[c[0][0]])
    for keys, union in [c for c in ordered if not of_the_upgrade(c[0])]:
        free = sorted((x for x in union if x not in assigned), key=lambda x: _order(by_number[x]))
        top = keys[0]
        if len(free) < min_items or (len(free) < MIN_ITEMS and not pair_holds(free, top)):
            continue
        name = written(top)
        inside = fragment_of(top) if top in parts_of else Counter()
        ident, count = inside.most_common(1)[0] if inside else ("", 0)
        if count * 2 > sum(inside.values()):
            # a pair inside one identifier is named after it ("dispatch ffn combine", 2026-01-23,
            # not its fragment "ffn combine"; "FULL_DECODE_ONLY", a mode's name as written)
            forms = Counter(
                r
                for x in term_items[top]
                if (r := enclosing_identifier(by_number[x].title, parts_of[top]))
                and r.lower() == ident
            )
            name = forms.most_common(1)[0][0]
            name = name.replace("_", " ") if name == name.lower() else name
        elif not is_topic(top) and (  # (a topic's line has the profile's name)
            not named_term(top) or _FILE_NAME.search(name) or _IDENTIFIER.match(name)
        ):
            # a plain word ("initial", "Lint"), a file name ("config.yaml") or a code identifier
            # ("estimated_times") is a poor name when a word pair of the line, the titles
            # themselves or the largest change's headline ("Refactor test selection: …") say more
            pairs = [written(k) for k in keys if k in parts_of]
            pairs = [p for p in pairs if not _IDENTIFIER.match(p)]
            members = [by_number[x] for x in free]
            better = (
                pairs[0]
                if pairs and not _FILE_NAME.search(pairs[0])
                else _title_name(members, term_counts, history)
            )
            if not better and _IDENTIFIER.match(name):
                better = _headline(members) or name.replace("_", " ")
            name = better or name
        if _VERSION.match(name):
            # a version alone ("v0.21.0") is the upgrade's: "vLLM v0.21.0", as its title says
            targets = [
                t
                for t in (upgrade_target(by_number[x].title) for x in free)
                if t and t.lower().endswith(name.lower()) and t.lower() != name.lower()
            ]
            name = targets[0] if targets else name
        terms = tuple(dict.fromkeys(written(k) for k in keys))
        groups.append(
            _Group(
                key=top,
                name=name,
                evidence="term",
                items=free,
                score=scores[top],
                terms=terms,
                term_keys=frozenset(keys),
                core=frozenset(free),
            )
        )
        for x in free:
            assigned[x] = len(groups) - 1
    if upgrade_group is not None:
        up = groups[upgrade_group]
        for _keys, union in [c for c in ordered if of_the_upgrade(c[0])]:
            free = sorted(
                (x for x in union if x not in assigned), key=lambda x: _order(by_number[x])
            )
            up.items.extend(free)
            up.core = up.core | frozenset(free)
            for x in free:
                assigned[x] = upgrade_group

    # reference chains: a revert with what it reverted, fix-ups, follow-ups
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    reverted: set[int] = set()
    for link in all_links:
        parent[find(link.source)] = find(link.target)
        if link.kind == "reverts":
            reverted.add(link.target)
    components: dict[int, list[int]] = defaultdict(list)
    for x in list(parent):
        components[find(x)].append(x)
    previous_numbers = {i.number for i in previous if not i.bot}
    for members in sorted(components.values(), key=lambda m: min(m)):
        inside = sorted((x for x in members if x in by_number), key=lambda x: _order(by_number[x]))
        if not inside:
            continue
        homes = Counter(assigned[x] for x in inside if x in assigned)
        if homes:
            g = homes.most_common(1)[0][0]
            for x in inside:
                if x not in assigned:
                    groups[g].items.append(x)
                    assigned[x] = g
            continue
        if len(inside) < 2:
            continue
        if all(x in reverted or role_of(known[x]) == "revert" for x in inside):
            # a change and its revert, nothing else: it changed nothing, and the risks tell it
            # (2026-W29: "ViT encoder ACL graph" was a fix and the revert of that fix)
            continue
        first = min(members, key=lambda x: _order(known[x]))
        # named after its first change that stayed in this window: not one merged and reverted
        # here, nor a revert (2026-W30: "Fix FIA decode mask handling", undone two days later,
        # named a line); an earlier change reverted now is what the line is about and names it
        stayed = [
            x
            for x in members
            if role_of(known[x]) != "revert" and not (x in reverted and x in by_number)
        ]
        namer = min(stayed, key=lambda x: _order(known[x])) if stayed else first
        groups.append(
            _Group(
                key=f"chain:{first}",
                name=_short_name(known[namer].title),
                evidence="chain",
                items=inside,
                score=float(len(members)),
                previous=sum(1 for x in members if x in previous_numbers),
            )
        )
        for x in inside:
            assigned[x] = len(groups) - 1

    # a series ("[1/N] …", "[Model][2/N] …"): parts of one planned line of work, told together
    # when they share a [Tag] and a word of their own
    for members in _series(window, history_count, history):
        homes = Counter(assigned[m.number] for m in members if m.number in assigned)
        if homes:  # part of it is in a storyline already: the rest of the series joins it
            g = homes.most_common(1)[0][0]
            for m in members:
                if m.number not in assigned:
                    groups[g].items.append(m.number)
                    assigned[m.number] = g
            continue
        first = members[0]
        groups.append(
            _Group(
                key=f"series:{first.number}",
                name=_series_name(members),
                evidence="chain",
                items=[m.number for m in members],
                score=float(len(members)),
                core=frozenset(m.number for m in members),
            )
        )
        for m in members:
            assigned[m.number] = len(groups) - 1

    # removals and clean-up: changes whose titles say they take something out, together a line
    # of work of their own when there are enough of them and they take a body of code out
    # (2025-W50: "Drop torchair" -16,881 lines, "cleanup useless torchair logic", "Remove
    # FusedMoEState", env variables removed)
    def removals_only(g: _Group) -> bool:
        # a line of a name whose every change takes something out is part of the window's
        # removals (2026-W34: four deletions of MiniMax-M2 patches beside the removal of
        # FlashComm v1 and other patches now upstream — one story, not a MiniMax line)
        return (
            g.evidence == "term"
            and not upgrade_line(g.key)
            and g.key != RELEASE_KEY
            and not is_topic(g.key)
            and len(g.items) > 0
            and all(takes_out(by_number[x]) for x in g.items)
        )

    def free_for_removals(i: StoryItem) -> bool:
        # unassigned, or in a storyline it only joined (not one of the items carrying its name),
        # or in a line of removals alone
        if i.number not in assigned:
            return True
        g = groups[assigned[i.number]]
        return i.number not in g.core or removals_only(g)

    removals = [i for i in sorted(window, key=_order) if takes_out(i) and free_for_removals(i)]
    taken_out = sum(i.deletions - i.additions for i in removals)
    if len(removals) >= MIN_REMOVALS and taken_out >= REMOVAL_STORY_LINES:
        # (the names of the lines of removals it takes in stay its terms)
        folded = [groups[assigned[i.number]] for i in removals if i.number in assigned]
        folded_terms = tuple(dict.fromkeys(t for g in folded if removals_only(g) for t in g.terms))
        groups.append(
            _Group(
                key=REMOVALS_KEY,
                name=REMOVALS_NAME,
                evidence="term",
                items=[i.number for i in removals],
                score=float(len(removals)),
                terms=folded_terms,
                core=frozenset(i.number for i in removals),
            )
        )
        for i in removals:
            if i.number in assigned:
                groups[assigned[i.number]].items.remove(i.number)
            assigned[i.number] = len(groups) - 1

    # shared files: an item that changes a file specific to a storyline joins it; files that
    # several other items share form a (weaker) storyline of their own
    for item in sorted(window, key=_order):
        if item.number in assigned:
            continue
        # a file votes for a storyline holding two or more of its other items and most of them;
        # the item joins when most of its specific files vote alike (a sweeping change does not)
        votes: Counter[int] = Counter()
        for path in files_of[item.number]:
            xs = specific[path]
            homes = Counter(assigned[x] for x in xs if x in assigned)
            for g, count in homes.items():
                if groups[g].key in (REMOVALS_KEY, RELEASE_KEY):
                    # touching what a removal took out does not make a change a removal, nor
                    # touching what a port changed one for a release
                    continue
                if count >= 2 and count * 2 >= len(xs) - 1:
                    votes[g] += 1
        if votes and votes.most_common(1)[0][1] * 2 >= len(files_of[item.number]):
            g = votes.most_common(1)[0][0]
            groups[g].items.append(item.number)
            assigned[item.number] = g
    # each word as the window's titles write it with capitals, if any does ("MoE" for "moe")
    written_forms = {
        w: max(fs, key=lambda f: (f != f.lower(), f))
        for w, fs in title_forms.items()
        if any(f != f.lower() for f in fs)
    }
    tried: set[str] = set()
    # a day holds a score of changes: three that change one file and share a word are its line
    # of work (2026-07-09: three fixes of the doc translation tool, all in its scripts)
    file_story_items, file_story_most = (
        (FILE_STORY_ITEMS, FILE_STORY_SHARE * n)
        if n > SMALL_WINDOW
        else (MIN_ITEMS, FILE_STORY_ITEMS)
    )
    while True:
        best: tuple[int, str] | None = None
        for path, xs in specific.items():
            if path in tried:
                continue
            free = [x for x in xs if x not in assigned]
            if (
                len(free) >= file_story_items
                and len(xs) <= file_story_most
                and (best is None or (len(free), path) > (best[0], best[1]))
            ):
                best = (len(free), path)
        if best is None:
            break
        path = best[1]
        free = sorted(
            (x for x in specific[path] if x not in assigned), key=lambda x: _order(by_number[x])
        )
        tried.add(path)
        # changes that share a file and reverts among them are one line of work when half of
        # their titles share a word pair (build cache: added, fixed, reverted); without a revert,
        # more than half must
        members = [by_number[x] for x in free]
        name = _phrase_of(
            members, term_counts, history, strict=not any(role_of(m) == "revert" for m in members)
        )
        if not name:
            continue
        key = normalise_term(name)
        carriers = frozenset(m.number for m in members if key in terms_of(m.title))
        if one_change_phrase(members, name):
            # the line is about the file its changes share, not one change's words
            name = file_line_name(path, written_forms)
        groups.append(
            _Group(
                key=f"files:{path}",
                name=name,
                evidence="files",
                items=free,
                core=carriers,
                score=float(len(free)),
                terms=(path,),
                previous=sum(1 for i in previous if not i.bot and path in i.files),
            )
        )
        for x in free:
            assigned[x] = len(groups) - 1

    # a [Tag] three or more titles of the window share names their line of work ("[P/D]",
    # "[Fusion]", "[MRV2]") when it is tied to a subject: their changes are of one module or
    # change the same files, and its word is rare in the history's titles; a tag carried by
    # changes of many subjects ("[main]", "[Misc]") is a kind of change, one whose word titles
    # write everywhere is an area of the code ("[Ops]", 2026-W23: a memory profiler, an env
    # variable removed, a dtype table, two new operators), as are the tags of kinds of changes
    # and places in a series (see title_tags)
    tag_items: dict[str, list[StoryItem]] = defaultdict(list)
    tag_forms: dict[str, Counter[str]] = defaultdict(Counter)
    for i in sorted(window, key=_order):
        if role_of(i) == "revert":
            continue
        for key, tag in title_tags(i.title).items():
            tag_items[key].append(i)
            tag_forms[key][tag] += 1
    for key, xs in sorted(tag_items.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        free_items = [x for x in xs if x.number not in assigned]
        if (
            len(free_items) < MIN_ITEMS
            or len(xs) > most_items
            or history_count(key) > RARE_WORD_SHARE * history
            or not one_subject(free_items)
        ):
            continue
        forms = tag_forms[key]
        name = max(forms, key=lambda f: (forms[f], f != f.lower(), f))
        # a title that writes the tag's name without brackets is of the line too ("[Doc] add
        # new doc for mooncake: PD-Colocated …" beside "[P/D] …", 2026-W02)
        tagged = {x.number for x in free_items}
        members = [
            i
            for i in sorted(window, key=_order)
            if i.number in tagged
            or (
                i.number not in assigned
                and role_of(i) != "revert"
                and key in {t.key for t in _title_terms(i.title)}
            )
        ]
        groups.append(
            _Group(
                key=f"{_TAG_KEY}{key}",
                name=name,
                evidence="term",
                items=[x.number for x in members],
                score=0.0,  # (as a line of shared links)
                terms=(name,),
                core=frozenset(x.number for x in members),
                previous=sum(1 for i in previous if not i.bot and key in title_tags(i.title)),
            )
        )
        for x in members:
            assigned[x.number] = len(groups) - 1

    # what is left of a busy area of the code: a module (the classifier's first, its main one)
    # holding several changes no storyline took is a line of work too, named after the module
    # — the seeds' themes are modules ("推测解码", "MoE") — as long as it is work on the code,
    # not mostly tests, CI or docs (2026-W02: speculative decoding, 14 changes, had no theme)
    by_module: dict[str, list[StoryItem]] = defaultdict(list)
    for item in sorted(window, key=_order):
        if item.number not in assigned and item.modules and role_of(item) != "revert":
            by_module[item.modules[0]].append(item)
    held: set[str] = set()  # modules whose leftovers hold together by the files they change
    if n < MODULE_WINDOW_MIN:
        # a quiet window (a day) is told by its modules already, but a word rare in the history
        # that three of its changes of the code write, all in one area, is its line of work
        # before any module's (2026-06-10: three fixes of speculative decoding's "draft" tokens
        # and models, told under three directories): named after that area, with the window's
        # other changes of the code whose main module it is
        free_code = [
            i
            for i in sorted(window, key=_order)
            if i.number not in assigned and role_of(i) not in ("test", "ci", "docs", "revert")
        ]
        word_items: dict[str, list[StoryItem]] = defaultdict(list)
        for i in free_code:
            # a word as written on its own, not a piece of an identifier ("fused" of
            # "fused_qkvzba_split_reshape" and "FUSED_MC2" is no shared subject, 2025-12-18)
            alone = {w.lower() for w in _IDENT_RUN.findall(i.title) if "_" not in w}
            for t in _naming_terms(i.title):
                if not t.parts and t.key in alone and not _VERSION.match(t.key):
                    word_items[t.key].append(i)
        for key, xs in sorted(word_items.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            xs = [x for x in xs if x.number not in assigned]
            if len(xs) < MIN_ITEMS or history_count(key) > RARE_WORD_SHARE * history:
                continue
            areas = set(xs[0].modules).intersection(*(x.modules for x in xs[1:]))
            areas -= upgrade_area
            if not areas:
                continue
            module = next(m for m in xs[0].modules if m in areas)
            rest = [i for i in free_code if i not in xs and i.modules[:1] == (module,)]
            members = sorted([*xs, *(i for i in rest if i.number not in assigned)], key=_order)
            before = sum(1 for i in previous if not i.bot and module in i.modules)
            groups.append(_module_group(module, members, before))
            for m in members:
                assigned[m.number] = len(groups) - 1
    for module, members in sorted(by_module.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if n < MODULE_WINDOW_MIN:
            break  # a quiet window is told by its modules already (the report's module themes)
        roles_here = Counter(role_of(m) for m in members)
        if len(members) < MIN_MODULE_ITEMS or (
            roles_here["test"] + roles_here["ci"] + roles_here["docs"]
        ) * 2 >= len(members):
            continue
        if coherence({m.number for m in members}) >= MIN_COHERENCE:
            held.add(f"{MODULE_KEY_PREFIX}{module}")
        before = sum(1 for i in previous if not i.bot and i.modules[:1] == (module,))
        groups.append(_module_group(module, members, before))
        for m in members:
            assigned[m.number] = len(groups) - 1

    # the CI itself reworked: changes of CI tooling alone no line took, many and big together
    # and not one change with its tweaks, are a line of their own, told after the code's
    # (2026-W34: precise test selection #14650, a weekly workflow, the rerun strategy, image
    # build schedules — 2,548 lines in 13 changes; 2026-W30 likewise), named after the module
    # most of them are in; a week of a few nightly-case tweaks has none
    tooling = [
        i
        for i in sorted(window, key=_order)
        if i.number not in assigned and ci_only(i) and role_of(i) in ("ci", "test")
    ]
    sizes = [i.additions + i.deletions for i in tooling]
    home = Counter(i.modules[0] for i in tooling if i.modules)
    if (
        n >= MODULE_WINDOW_MIN
        and len(tooling) >= MIN_MODULE_ITEMS
        and sum(sizes) >= CI_STORY_LINES
        and max(sizes) <= CI_STORY_BIGGEST * sum(sizes)
        and home
    ):
        module = home.most_common(1)[0][0]
        groups.append(
            _Group(
                key=f"{MODULE_KEY_PREFIX}{module}",
                name=module,
                evidence="module",
                items=[i.number for i in tooling],
                score=float(len(tooling)) * MODULE_WEIGHT,
                core=frozenset(i.number for i in tooling),
                previous=sum(1 for i in previous if not i.bot and ci_only(i)),
            )
        )
        for i in tooling:
            assigned[i.number] = len(groups) - 1

    # a line inside another: a name of part of a bigger line ("DSA", DeepSeek V4's sparse
    # attention, 2026-W22) is folded into it when the window's titles write the two names
    # together (a third of the smaller name's changes carry the bigger one) and most of its
    # changes change code the bigger line's changes change. What a description says is no
    # evidence: every description of a platform's changes names the platform (2026-W26:
    # "WeightTransfer", three changes of their own files, all "for Ascend NPU"); nor are shared
    # files alone (2026-W33: four "DSA" refactors in files "MRV2" changed too, a series of its
    # own whose titles name MRV2 twice in seven)
    def name_terms(keys: Iterable[str]) -> set[int]:
        return set().union(*(term_items[k] for k in keys)) if keys else set()

    for c in sorted(groups, key=lambda g: len(g.items)):
        if (
            c.evidence != "term"
            or upgrade_line(c.key)
            or c.key == RELEASE_KEY
            or is_topic(c.key)
            or not c.items
        ):
            continue
        carried = name_terms(c.term_keys)
        parents: list[tuple[int, int]] = []
        for gi, p in enumerate(groups):
            if p is c or p.evidence != "term" or not p.term_keys or len(p.items) <= len(c.items):
                continue
            together = carried & name_terms(p.term_keys)
            if len(together) < MIN_ITEMS - 1 or len(together) * FOLD_TOGETHER < len(carried):
                continue
            touched = set().union(*(files_of[x] for x in p.items))
            belongs = sum(1 for x in c.items if files_of[x] & touched)
            if belongs * 2 > len(c.items):
                parents.append((len(together), gi))
        if parents:
            gi = max(parents)[1]
            p = groups[gi]
            for x in c.items:
                p.items.append(x)
                assigned[x] = gi
            p.terms = tuple(dict.fromkeys((*p.terms, *c.terms)))
            c.items = []

    result: list[tuple[tuple, Storyline]] = []
    previous_terms: list[set[str]] | None = None
    for g in groups:
        if not g.items:
            continue  # (folded into another)
        members = sorted((by_number[x] for x in g.items), key=_order)
        roles = {m.number: role_of(m) for m in members}
        if g.evidence == "term" and g.term_keys:  # (the others counted their own)
            if previous_terms is None:
                previous_terms = [{t.key for t in item_terms(i)} for i in previous if not i.bot]
            keys = g.term_keys.union(*(aliases.get(k, ()) for k in g.term_keys))
            g.previous = sum(1 for terms in previous_terms if keys & terms)
        if g.key == REMOVALS_KEY:  # the biggest removal
            lead: int | None = max(
                members, key=lambda m: (m.deletions - m.additions, -m.number)
            ).number
        elif upgrade_line(g.key):
            # the biggest upgrade of the project the line is named after (not a change that
            # followed it; a sync citing that project's changes when no title upgrades it —
            # 2026-W22's CANN image upgrade does not speak for keeping up with vLLM)
            project = g.name.split()[0].casefold()
            ups = (
                [
                    m
                    for m in members
                    if (t := upgrade_target(m.title)) and _upgraded(t.split()).casefold() == project
                ]
                or [m for m in members if project in _cited_projects(m)]
                or [m for m in members if upgrade_target(m.title) is not None]
                or [m for m in members if m.number in g.core]
            )
            lead = max(ups, key=lambda m: (m.additions + m.deletions, m.number)).number
        else:
            lead = _lead(members, roles, g.core, reverted)
        lead_item = by_number[lead] if lead is not None else None
        summary = (
            lead_item.digest.what if lead_item is not None and lead_item.digest is not None else ""
        )
        story = Storyline(
            key=g.key,
            name=g.name,
            evidence=g.evidence,
            items=tuple(StorylineItem(number=m.number, role=roles[m.number]) for m in members),
            lead=lead,
            merged=sum(1 for m in members if m.merged_at is not None),
            lines_added=sum(m.additions for m in members),
            lines_removed=sum(m.deletions for m in members),
            status="continuing" if g.previous else "new",
            previous_items=g.previous,
            summary=summary,
            terms=g.terms,
        )
        # a module's leftovers weigh half a named line of work of the same size, a line found by
        # its shared files three quarters (2026-W04: "fusion", seven passes, was never told) —
        # and so do leftovers that mostly change files another of them changes: a theme, not a
        # bucket (2025-W51: seven changes to speculative decoding's proposers and sampler were
        # told after "PP", three fixes that shared a word)
        weight = {"module": MODULE_WEIGHT, "files": FILES_WEIGHT}.get(g.evidence, 1.0)
        size = len(members) * (FILES_WEIGHT if g.key in held else weight)
        # a line of documentation, CI or tests alone ("R1", "235b": tutorials; "a3 560t": nightly
        # jobs for a cluster) weighs half a line of work on the code per change and is told after
        # them (2026-07-17: a CI line was the day's only main line beside a new scheduler) — but
        # many changes of one piece of tooling, changing its files together, are a line of work
        # every contributor meets (2026-W27: nine changes adding, fixing and enhancing the
        # /cherry-pick, /revert and /nightly commands)
        aside = all(roles[m.number] in ("docs", "ci", "test") for m in members)
        tooling = (
            aside
            and g.evidence != "module"
            and len(members) >= TOOLING_ITEMS
            and coherence({m.number for m in members}) >= MIN_COHERENCE
        )
        size *= ASIDE_WEIGHT if aside and not tooling else 1.0
        result.append(((aside, -size, g.evidence == "files", -g.score, g.key), story))
    result.sort(key=lambda r: r[0])
    return _kept(result, limit)


def _kept(result: Sequence[tuple[tuple, Storyline]], limit: int) -> list[Storyline]:
    """The lines a report tells, in their order (`result`: (order key, line), sorted; the key's
    first field whether the line is docs, CI or tests alone, its second the line's weight,
    negated): `limit` slots for named lines and
    MAX_MODULE_STORIES for modules' leftovers, as many as there are lines of each kind to fill
    them, filled by weight — a line is never left out for a lighter one (2026-W27: nine changes
    of the new slash commands and a topic's line were cut while lines of three stayed), a
    module's leftovers take no more than their slots and a named line may take theirs (2026-W23:
    four "[P/D]" changes were the kv-transfer module's line). The heaviest line of docs, CI or
    tests alone of MIN_ITEMS changes or more is told whatever its weight, in place of the
    lightest line of no more changes: a reader meets those changes as a contributor."""
    lines = [st for _k, st in result]
    modules = [st for st in lines if st.evidence == "module"]
    named = len(lines) - len(modules)
    slots = min(limit, named) + min(MAX_MODULE_STORIES, max(0, named - limit) + len(modules))
    by_weight = sorted(range(len(result)), key=lambda x: (result[x][0][1], x))
    keep: list[int] = []
    module_count = 0
    for x in by_weight:
        if len(keep) >= slots:
            break
        if result[x][1].evidence == "module":
            if module_count >= MAX_MODULE_STORIES:
                continue
            module_count += 1
        keep.append(x)
    aside = [
        x for x in range(len(result)) if result[x][0][0] and len(result[x][1].items) >= MIN_ITEMS
    ]
    if aside and keep:
        best = min(aside, key=lambda x: (result[x][0][1], x))
        if best not in keep:
            light = max(keep, key=lambda x: (-result[x][0][1], x))
            if len(result[light][1].items) <= len(result[best][1].items):
                keep.remove(light)
                keep.append(best)
    return [result[x][1] for x in sorted(keep)]
