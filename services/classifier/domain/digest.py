"""What a change or issue says of itself: `digest_of(title, body) -> Digest`, from its description.

Pure and cheap (one pass over the lines, precompiled patterns): it runs once per classified item.
Every text it returns is a span of the body modulo whitespace and Markdown (`is_span` checks
that); nothing is written anew.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from shared.events.enriched import REASON_WORDS, Claim, Digest, Reference
from shared.wording import MEMORY_LEAK

from .prefilter import literal_gate
from .said import OPEN_WORK, default_change_of, interface_of, next_steps_of

MAX_TEXT = 240  # characters of a text field, before the "…" of a cut
MAX_CLAIMS = 6
ELLIPSIS = "…"

# ---------------------------------------------------------------- markup

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|!\[[^\]\n]*\]\[[^\]\n]*\]")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_CODE_TICKS = re.compile(r"`+")
_STRONG = re.compile(r"\*\*|__|~~")
_EM_STAR = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_EM_UNDER = re.compile(r"(?<!\w)_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)")
_MARKER = re.compile(
    r"^\s*(?:>\s*)*(?:\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*)?"
    r"(?:#{1,6}\s+|(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?)?",
    re.I,
)


def plain(line: str) -> str:
    """One line without inline Markdown/HTML: links keep their text, images, tags, backticks and
    emphasis go."""
    if "[" in line:
        line = _IMAGE.sub("", line)
        line = _LINK.sub(r"\1", line)
    if "<" in line:
        line = _AUTOLINK.sub(r"\1", line)
        line = _TAG.sub("", line)
    if "`" in line:
        line = line.replace("`", "")  # (what `+ removes: every backtick)
    if "*" in line or "_" in line or "~" in line:
        line = _STRONG.sub("", line)
        # (each emphasis needs its mark: a line without it is left as it is)
        if "*" in line:
            line = _EM_STAR.sub(r"\1", line)
        if "_" in line:
            line = _EM_UNDER.sub(r"\1", line)
    return line


def squashed(text: str) -> str:
    """`text` with each run of whitespace one space, none at its ends: what replacing each run
    of the expression's whitespace with a space and stripping gives (the expression's whitespace
    is what str.split() splits on), 4-15x faster."""
    return " ".join(text.split())


def normalized(text: str) -> str:
    """Text as `is_span` compares it: no comments, no line markers, no inline markup, single
    spaces."""
    text = _COMMENT.sub("", text.replace("\r\n", "\n"))
    return squashed(plain(" ".join(_MARKER.sub("", ln, count=1) for ln in text.split("\n"))))


def is_span(text: str, body: str, _cache: dict[int, str] | None = None) -> bool:
    """Whether `text` (a digest's field) occurs in `body` modulo whitespace and markup, ignoring
    a trailing "…" of a cut."""
    t = squashed(plain(text.removesuffix(ELLIPSIS)))
    if not t:
        return True
    return t in normalized(body)


# ---------------------------------------------------------------- lines

# one match per line, dispatched on the group that matched (cheaper than a test per kind)
# how a line can look, by kind (each pattern is matched at the line's first non-blank character)
_LINE_KINDS = {
    "fence": r"(?:```|~~~)",
    "heading": r"\#{1,6}(?=\s|$)\s*(?P<htext>.*?)\s*\#*\s*$",
    "boldhead": r"(?:\*\*|__)(?P<btext>[^*_\n]{2,100}?)(?:[:：]\s*)?(?:\*\*|__)\s*[:：]?\s*(?P<brest>.*)$",
    "check": r"[-*+]\s*\[[ xX]?\]",
    "table": r"\|",
    "trailer": r"(?i:Signed-off-by|Co-authored-by|Reviewed-by|Tested-by|Suggested-by|Reported-by"
    r"|Acked-by|Helped-by|Change-Id|Cc)\s*:",
    "sep": r"(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$",
    "version": r"(?:[-*+]\s*)?(?i:vLLM|vllm-ascend|vLLM[- ]Ascend)[\s_-]*(?i:version|main|commit|branch)s?\b"
    r"[^:\n]{0,20}:(?P<vrest>.*)",
    "html": r"</?(?i:details|summary|img|br|p|div|picture|source|a|table|tr|td|th|sup|sub|hr)\b[^>]*>\s*"
    r"(?:.*</[a-z]+>\s*)?$",
    "image": r"(?:\[?!\[[^\]]*\]\([^)]*\)\]?(?:\([^)]*\))?\s*)+$",
    "bullet": r"(?:[-*+]|\d{1,3}[.)])\s+(?P<ltext>.*)",
    "quote": r"(?:>\s?)+(?P<qtext>.*)",
}


def _line_pattern(*kinds: str) -> re.Pattern[str]:
    return re.compile(r"\s*(?:" + "|".join(f"(?P<{k}>{_LINE_KINDS[k]})" for k in kinds) + ")")


# the kinds a line can be, by its first non-blank character (a line of prose fails at most one
# small pattern instead of a dozen alternatives); a character not listed starts prose
_LINE_BY_CHAR: dict[str, re.Pattern[str]] = {}
for _chars, _kinds in (
    ("`~", ("fence",)),
    ("#", ("heading",)),
    ("_", ("boldhead", "sep")),
    ("*", ("boldhead", "check", "sep", "version", "bullet")),
    ("-+", ("check", "sep", "version", "bullet")),
    ("|", ("table",)),
    ("=", ("sep",)),
    ("0123456789", ("bullet",)),
    ("<", ("html",)),
    ("![", ("image",)),
    (">", ("quote",)),
    ("SsCcRrTtAaHh", ("trailer",)),
    ("Vv", ("version",)),
):
    for _c in _chars:
        _LINE_BY_CHAR[_c] = _line_pattern(*_kinds)
_BARE_URL = re.compile(r"^\s*<?https?://\S+>?\s*$")
_ALERT = re.compile(r"^\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*", re.I)
_REF_ONLY = re.compile(
    r"^\s*(?:[A-Za-z-]+:?\s+){0,3}(?:#\d*|(?:https?://)?github\.com/\S+|[\w.-]+/[\w.-]+#\d+)"
    r"(?:[\s,;&]+(?:and\s+)?(?:[A-Za-z-]+:?\s+){0,2}(?:#\d+|https?://\S+|[\w.-]+/[\w.-]+#\d+))*"
    r"\s*[.]?\s*$",
    re.I,
)


def _ref_only(text: str) -> bool:
    """`_REF_ONLY.match(text)`, not tried on text with neither "#" nor "/" (its first reference
    holds one): most paragraphs of a description are not references alone."""
    return ("#" in text or "/" in text) and _REF_ONLY.match(text) is not None


# heading -> section kind
_H_UF = re.compile(r"user[\s_*-]*facing|release[- ]notes?", re.I)
_H_TEST = re.compile(
    r"how (?:was|is|were) (?:this|the) (?:patch|pr|change)s? (?:been )?tested|test(?:ing)? plan|test(?:ing)? results?"
    r"|^(?:\W*)(?:tests?|testing|tested|validation|verification|how to test|test(?:ed)? (?:with|on|by)"
    r"|benchmark(?:s| results?)?|accuracy(?: results?)?|performance(?: results?)?|results?)\b",
    re.I,
)
_H_WHAT = re.compile(
    r"what (?:this|the) pr does|why we need it|what does this pr do|^(?:\W*)(?:purpose|summary|motivation|description"
    r"|changes|change summary|main changes|key changes|changes made|scope of changes|modifications|problem"
    r"|background|root cause|solution|fix|what|why|overview|context|details|describe the bug|proposal"
    r"|the feature, motivation and pitch|feature|issue)\b",
    re.I,
)

_PLACEHOLDER = re.compile(
    r"^(?:n/?a|na|no|nope|none|nothing|null|not involved|not applicable|tbd|todo|wip|-+|/|\.+|"
    r"yes/no|same as (?:the )?title|see title|as title|this reverts commit [0-9a-f]{7,40})[.!]?$",
    re.I,
)
_HELP = re.compile(
    r"^(?:please (?:clarify|describe|provide|explain|fill|add|make sure|read)|thanks? for (?:sending|your)"
    r"|note that it means|if possible, please|if it was tested|if tests were not added|documentation-only "
    r"updates are not considered|describe your changes|the purpose of (?:the|this) pr|fixes\s*#\s*$"
    r"|\(optional\)|essential elements of|before submitting)",
    re.I,
)


class _Unit:
    """A paragraph or a list item of a section: its raw lines, made plain when first read (a link
    or a tag may span lines, so the lines are joined before the markup goes)."""

    __slots__ = ("kind", "raw", "_text", "after_gap")

    def __init__(self, kind: str, line: str, after_gap: bool = False) -> None:
        self.kind = kind  # "p" or "li"
        self.raw = [line]
        self._text: str | None = None
        # something not prose (code, a table, a checklist) lies between it and the unit before:
        # the two joined would not be a span of the body
        self.after_gap = after_gap

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = squashed(plain(" ".join(self.raw)))
        return self._text


class _Section:
    __slots__ = ("kind", "units", "raw")

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "what", "uf", "test", "other", "" (before any heading)
        self.units: list[_Unit] = []
        self.raw: list[str] = []  # every line, code included (what a test section names)


_HEADING_KINDS: dict[str, str] = {}


def _heading_kind(text: str) -> str:
    """The kind of section a heading opens; remembered, templates repeat their headings."""
    kind = _HEADING_KINDS.get(text)
    if kind is None:
        if len(_HEADING_KINDS) > 10_000:
            _HEADING_KINDS.clear()
        kind = _HEADING_KINDS[text] = _heading_kind_of(text)
    return kind


_PLAIN_HEADING = re.compile(
    r"(?i)\s*(?:what this pr does\b.*|what does this pr do\b.*|why we need it\??|does this pr introduce"
    r"\b.*\buser[\s_*-]*facing changes?\??|how was this patch tested\??)\s*[:：]?\s*$"
)


def _heading_kind_of(text: str) -> str:
    t = plain(text).strip()
    if _H_UF.search(t):
        return "uf"
    if _H_TEST.search(t):
        return "test"
    if _H_WHAT.search(t):
        return "what"
    return "other"


def _sections(body: str) -> tuple[list[_Section], bool, list[str]]:
    """The body as sections of paragraphs/list items, whether it had template headings, and its
    lines outside code blocks, version lines and trailers (where references are looked for)."""
    sections = [_Section("")]
    cur = sections[0]
    unit: _Unit | None = None  # the unit lines are being added to
    in_code = False
    skip_url = False
    template = False
    by_char = _LINE_BY_CHAR
    prose: list[str] = []
    gap = False
    for line in body.split("\n"):
        if in_code:
            gap = True
            cur.raw.append(line)
            if line.lstrip().startswith(("```", "~~~")):
                in_code = False
            continue
        if not line or line.isspace():
            unit = None
            continue
        if skip_url:
            skip_url = False
            if _BARE_URL.match(line):
                continue
        rx = by_char.get(line.lstrip()[0])
        m = rx.match(line) if rx is not None else None
        g = m.lastgroup if m else None
        if g != "version" and g != "trailer" and g != "fence":
            prose.append(line)
        if g is None and len(line) <= 100 and _PLAIN_HEADING.match(line):
            # the template's heading pasted as plain text ("What this PR does / why we need it?")
            template = True
            cur = _Section(_heading_kind(line.strip()))
            sections.append(cur)
            unit = None
            continue
        if g is None:
            cur.raw.append(line)
            if line.count("|") >= 2:  # a table row without the leading pipe
                unit, gap = None, True
                continue
            if unit is not None:
                unit.raw.append(line)
            else:
                unit = _Unit("p", line, gap)
                cur.units.append(unit)
                gap = False
            continue
        assert m is not None  # g is the name of the group m matched
        if g == "fence":
            in_code, unit, gap = True, None, True
            cur.raw.append(line)
        elif g in ("heading", "boldhead"):
            htext = m.group("htext") if g == "heading" else m.group("btext")
            kind = _heading_kind(htext)
            rest = "" if g == "heading" else m.group("brest").strip()
            if g == "boldhead" and kind == "other" and (rest or unit is not None):
                # "**Note** that ..." is prose with emphasis, not a heading; so is a bold name
                # on the next line of a sentence that goes on ("… accuracy issue for\n
                # **Qwen3-Next-80B-A3B-Instruct-W8A8**.")
                cur.raw.append(line)
                if unit is not None:
                    unit.raw.append(line)
                else:
                    unit = _Unit("p", line, gap)
                    cur.units.append(unit)
                gap = False
                continue
            template = template or kind in ("what", "uf", "test")
            cur = _Section(kind)
            sections.append(cur)
            unit = None
            if rest:
                cur.raw.append(rest)
                unit = _Unit("p", rest, gap)
                cur.units.append(unit)
                gap = False
        elif g == "bullet":
            cur.raw.append(line)
            unit = _Unit("li", m.group("ltext"), gap)
            cur.units.append(unit)
            gap = False
        elif g == "quote":
            cur.raw.append(line)
            text = _ALERT.sub("", m.group("qtext"))
            if text.strip():
                if unit is not None:
                    unit.raw.append(text)
                else:
                    unit = _Unit("p", text, gap)
                    cur.units.append(unit)
                gap = False
        elif g == "version":
            unit, gap = None, True
            if not m.group("vrest").strip():
                skip_url = True
        else:  # check, table, trailer, sep, html, image: not prose
            unit, gap = None, True
            if g in ("check", "table"):
                cur.raw.append(line)
    return sections, template, prose


# ---------------------------------------------------------------- sentences

_ABBREV = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|approx|fig|no|mr|dr|cf|incl|resp|al)\.|\b[A-Z]\.)$", re.I
)
# the punctuation that ends a sentence: the sentence ends right after it. (Matching the mark
# rather than what follows it, `(?<=[.!?])\s+(?=…)`, gives the same ends at half the cost: an
# expression that starts with a character set is searched for that set first. One set for both
# kinds of mark, the kind told after it, for the same reason: an alternation of two sets,
# `[.!?](?=…)|[。！？；](?=…)`, is tried at every character, 4x the cost on real descriptions.)
_SENT_END = re.compile(
    r"[.!?。！？；](?:(?<=[.!?])(?=\s+[\"'(\[`*]?[A-Z0-9\u4e00-\u9fff])|(?<=[。！？；])(?=\s*\S))"
)


def _sentence_ends(text: str) -> list[int]:
    """Where each sentence of `text` ends (the last one at len(text))."""
    if "." not in text and "!" not in text and "?" not in text and text.isascii():
        return [len(text)]  # no mark ends a sentence: one, the whole text
    ends: list[int] = []
    for m in _SENT_END.finditer(text):
        end = m.end()
        if _ABBREV.search(text, max(0, end - 8), end):  # "e.g." ends no sentence
            continue
        if not text[ends[-1] if ends else 0 : end].isspace():
            ends.append(end)
    if not ends or text[ends[-1] :].strip():
        ends.append(len(text))
    return ends


def sentences(text: str) -> list[str]:
    ends = _sentence_ends(text)
    return [text[a:b].strip() for a, b in zip([0, *ends], ends) if text[a:b].strip()]


def clip(text: str, limit: int = MAX_TEXT, clause: bool = True) -> str:
    """At most `limit` characters: whole sentences when they fit, else cut where a clause ends
    (`clause`; a claim's sentence is cut at a word, its figures kept) or at a word, with "…"."""
    if len(text) <= limit:
        return text
    fits = [e for e in _sentence_ends(text) if len(text[:e].strip()) <= limit]
    if fits:
        return text[: fits[-1]].strip()
    head = (clause and _clause_cut(text, limit - 1)) or _word_cut(text, limit - 1)
    return head.rstrip(" ,;:-–(") + ELLIPSIS


# where a clause of a sentence ends: before ", ", "; ", a dash, "which", "so", "while" …
_CLAUSE_END = re.compile(
    r"[,;，；](?=\s)|[，；]|\s[—–]\s|\s(?=(?:which|so|while|whereas|because)\s)"
)
MIN_CLAUSE_CUT = 0.6  # of the limit: a head shorter than it is cut at a word instead


def _clause_cut(text: str, limit: int) -> str:
    """The head of `text` within `limit` characters that ends where a clause does (`_CLAUSE_END`,
    outside brackets), at least `MIN_CLAUSE_CUT` of the limit long; "" for none ("… padded to the
    max capture size, with dist.all_to_all_single + raw" is cut before ", with", real #10586)."""
    at = 0
    for m in _CLAUSE_END.finditer(text, int(limit * MIN_CLAUSE_CUT), limit):
        head = text[: m.start()]
        if (
            head.count("(") == head.count(")")
            and head.count("[") == head.count("]")
            and head.count("{") == head.count("}")
        ):
            at = m.start()
    return text[:at].rstrip() if at else ""


_IN_WORD = re.compile(r"\w")


def _word_cut(text: str, limit: int) -> str:
    """The head of `text` within `limit` characters that ends at a word's end, never inside a
    word ("… while `format_dsa_slot_mapping` retur" was a quote): at a space in the second half,
    else after the last word the head holds whole (a long path or identifier is cut at its
    slash, dot or underscore); a head that is one word is cut where it must be."""
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:
        return cut[:space]
    if len(text) <= limit or not (_IN_WORD.match(text, limit) and _IN_WORD.match(cut[-1:])):
        return cut
    inner = [m.start() for m in re.finditer(r"[^\w]", cut)]
    at = inner[-1] if inner else 0
    return cut[:at] if at > 0 else cut


# a sentence that only points elsewhere ("It is planned in <issue>.", "See #12.", "Thanks to
# @x.") says nothing of what the change does: the what-sentence starts after it
_POINTER = re.compile(
    r"^\W*(?:(?:it|this)\s+(?:is|was|has been)\s+(?:planned|tracked|discussed|described|proposed"
    r"|requested|mentioned|reported)\s+(?:in|at|by)\b|(?:(?:see|refer to|ref|related to|part of)\b"
    r"|follow[- ]?up (?:of|to)|as (?:discussed|mentioned|planned|described) in|thanks?\b|credits?\b"
    r"|following (?:\w+ ){0,3}(?:from|in|of)\b|align(?:s|ing)? with\b"
    # where the change comes from, not what it does ("Extracted from PR #5513", real #5702)
    r"|extracted from\b|split (?:out )?(?:of|from)\b|cherry[- ]?picked from\b|ported from\b"
    r"|(?:the |an? )?(?:rfc|issue|design doc|doc|document)\b.{0,12}\bfor (?:more )?details\b)"
    r"|this (?:adapts|ports|syncs) the (?:behaviou?r|change|fix)s? (?:from|of)\b)",
    re.I,
)
# links, references (#12, owner/repo#12), mentions and code: not words of a sentence. The
# optional owner/repo is tried only where a run of [\w.-] starts (or right after a digit, or
# at a dot: where the match before it can end inside such a run), with possessive runs: the
# same matches as `(?:[\w.-]+/[\w.-]+)?#\d+`, which re-scanned a long run (a hash, a pasted
# blob: 400 characters cost 250 µs) from each of its characters
_NOT_WORDS = re.compile(
    r"https?://\S+|(?:(?:(?<![\w.-])|(?<=\d)|(?=\.))[\w.-]++/[\w.-]++)?#\d+|@[\w-]+|`[^`]*`"
)
# the same without references, for a sentence with no "#" (the common case: faster)
_NOT_WORDS_NO_REF = re.compile(r"https?://\S+|@[\w-]+|`[^`]*`")


def _not_words(sentence: str) -> str:
    """`sentence` with its links, references, mentions and code each replaced by a space."""
    if "#" in sentence:
        return _NOT_WORDS.sub(" ", sentence)
    if "@" in sentence or "`" in sentence or "://" in sentence:
        return _NOT_WORDS_NO_REF.sub(" ", sentence)
    return sentence  # (each of them holds one of these characters)


def _pointer(sentence: str) -> bool:
    if _POINTER.match(sentence) or (sentence.endswith(("?", "？")) and len(sentence.split()) < 8):
        return True  # (a short question is a heading of its own: "What does it follow?")
    rest = _not_words(sentence)
    # words, not the commas between references ("Fixes #10989, fixes #10987."); three of the
    # first eight tokens settle it (most sentences)
    if sum(1 for w in rest.split(None, 8)[:8] if any(c.isalnum() for c in w)) >= 3:
        return False
    words = [w for w in rest.split() if any(c.isalnum() for c in w)]
    return len(words) < 3 and len(_CJK.findall(rest)) < 4  # (Chinese has no spaces)


_CJK = re.compile(r"[\u4e00-\u9fff]")


def _only_pointers(text: str) -> bool:
    start = 0
    for end in _sentence_ends(text):
        if not _pointer(text[start:end].strip()):
            return False
        start = end
    return True


_RESTS_ON = re.compile(
    r"\s*(?:(?:this pr is |it is |this pr |it )?(?:based on|building on|built on|on top of|builds? (?:up)?on)\s+"
    r"(?:(?:the |a )?(?:pr|rfc|issue|change|commit)s?\s*:?\s*)?(?:https?://\S+|[\w.-]*/?[\w.-]*#\d+)"
    r"(?:\s*(?:and|,)\s*(?:https?://\S+|#\d+))*\s*(?:,|;|:|and\b)\s*)",
    re.I,
)


def _lead(text: str, limit: int = MAX_TEXT) -> str:
    """One or two whole sentences of `text` (two when the first is short), clipped; a slice of
    `text`, so that what stood between the two sentences stays as it was. Leading sentences
    that only point elsewhere are passed over while a sentence remains."""
    ends = _sentence_ends(text)
    start = 0
    while len(ends) > 1 and _pointer(text[start : ends[0]].strip()):
        start, ends = ends[0], ends[1:]
    # "Based on #7476, this PR keeps …", "Builds upon PR <link> and aims to …": what it rests on
    # goes, what it does stays (real #9701, #5721) — still a slice of the text
    head = _RESTS_ON.match(text, start, ends[0])
    if head is not None and ends[0] - head.end() > 20:
        start = head.end()
    first = text[start : ends[0]].strip()
    if len(first) < 100 and len(ends) > 1 and len(text[start : ends[1]].strip()) <= limit:
        return text[start : ends[1]].strip()
    return clip(first, limit)


# a token that is a path or a file name ("vllm_ascend/ops/x.py", "config.yaml"), or table markup
_PATH_TOKEN = re.compile(
    r"[|`*:\-]*(?:[\w.\-]*/[\w./\-]*|[\w\-]+\.(?:py|pyi|cpp|cc|c|h|hpp|cu|yaml|yml|json|toml"
    r"|md|rst|txt|sh|cfg|ini))[|`*:,;.]*|[|:\-]+"
)


def _path_token(word: str) -> bool:
    """`_PATH_TOKEN.fullmatch(word)`: a word with neither "/" nor "." is table markup alone or
    nothing of it (told without the expression, which backtracks through a long word)."""
    if "/" not in word and "." not in word:
        return not word.strip("|:-")
    return _PATH_TOKEN.fullmatch(word) is not None


def _usable(text: str) -> bool:
    t = text.strip()
    if len(t) < 3 or _PLACEHOLDER.match(t) or _HELP.match(t) or _ref_only(t):
        return False
    if all(_path_token(w) for w in t.split()):
        return False  # a list or table of files ("| `vllm_ascend/…/connector.py` |") says no what
    rest = re.sub(r"\(?https?://\S+", " ", t) if "://" in t else ""
    if rest and len(rest.split()) <= 2 and len(_CJK.findall(rest)) < 4:
        return False  # a link alone ("[Workflow\nrun](https://…/actions/runs/…)") says no what
    return any(c.isalnum() for c in t)


# ---------------------------------------------------------------- what

_INTRO_ONLY = re.compile(
    r"^(?:this|the)?\s*(?:pr|patch|change|commit|it)?\s*(?:\w+\s+){0,3}?"
    r"(?:does|changes|includes|contains|adds|following|summary|main changes|key changes|changes)?"
    r"(?: the following)?(?: changes)?\s*:$",
    re.I,
)


_COUNTED_INTRO = re.compile(
    r"^(?:(?:this|the)\s+(?:pr|patch|change|commit)\s+|it\s+|we\s+)?(?:\w+\s+)?"
    r"(?:does|do|accomplish(?:es)?|make[s]?|contain[s]?|include[s]?|has|have|bring[s]?)\s+"
    r"(?:two|three|four|five|several|\d+|a few|the following)\s+(?:things|changes|parts|fixes|items|points|modifications)"
    r"\W*$",
    re.I,
)

# a sentence that only announces what follows ("This PR provides two features:", "This patch
# mainly doing the following things:", "Two changes are required:", "We did the following
# things："): the words after it say what (real #6682, #4489, #12662, #2612)
_LEAD_IN = re.compile(
    r"^(?:(?:this|the|our)\s+(?:pr|patch|change|commit|pull request)\s+|it\s+|we\s+)?"
    r"(?:[\w-]+\s+){0,3}?(?:(?:the\s+)?following|two|three|four|five|six|several|some|a few|\d+)"
    r"(?:\s+[\w-]+)?\s+(?:things|changes|parts|fixes|items|points|modifications|aspects|features"
    r"|issues|problems|updates|improvements|optimi[sz]ations|tasks|steps|bugs|goals|works?)"
    r"(?:\s+(?:in|of|by|for)\s+(?:this|the)\s+(?:pr|patch|change|commit|pull request))?"
    r"(?:\s+(?:are|is|were)\s+(?:required|needed|made|included|done))?\s*[:：]$",
    re.I,
)
# the author's own doings with the change itself ("I have refactored this PR and used very little
# code", "I accidentally restored a commit"): about writing it, not what it does (real #4999,
# #6846) — a later sentence says what
_PROCESS = re.compile(
    r"(?:^|(?<=[,;，；])\s*(?:and\s+|but\s+|so\s+)?)(?:I|we)\s+(?:have\s+|'ve\s+|had\s+)?"
    r"(?:also\s+|just\s+|now\s+|accidentally\s+|mistakenly\s+){0,2}(?:refactor|rewr[io]t|rework"
    r"|rebas|restor|revert|squash|split|updat|modif|chang|clean|re-?submit|re-?open|re-?creat|open"
    r"|clos|merg|cherry-?pick|mov|rewrit)\w*\s+(?:this|the|my|a|that|previous|old|original)\s+"
    r"(?:pr|patch|commit|branch|pull request)s?\b",
    re.I,
)
# a numbered item inside a paragraph: "(1)refactor …", "1.Add …", "1、qwen …", "2) move …" (not
# "1.5", "v0.1"); the list is there when its 1 is followed by a 2
_NUM_ITEM = re.compile(r"(?<![^\s:：(（])[(（]?([1-9])(?:[)）.、]|\s*、)(?!\d)(?=\s*[^\s\d])")
# the words that leave a line unfinished ("… support for" / "DeepSeek …")
_GOES_ON = frozenset(
    "a an the and or of to for with in on by from as at is are was be that which this these its"
    " their our your when if than into via per".split()
)
_CAPITALISED = re.compile(r"[A-Z][a-z]+|I|A")


# a sentence that says where the change belongs, with a reference ("This PR is a part of <issue>.",
# "Based on the Sharded-CP feature PR:#4702; RFC:<link>", "The total plan in RFC: #7942", "More
# info about this operator, please refer to RFC: issue <link>"; real #1820, #5702, #8014, #5293)
_BELONGS = re.compile(
    r"(?i)^\W*(?:(?:this|the|it)\s+(?:pr\s+|patch\s+|change\s+)?(?:is\s+)?(?:a\s+|the\s+\w+\s+)?"
    r"(?:part|piece|step)\s+of|(?:this\s+(?:pr|patch)\s+)?(?:is\s+)?(?:\w+\s+)?(?:based|built)\s+on|on top of"
    r"|(?:this\s+(?:pr|patch)\s+)?depends?\s+on|(?:the\s+)?(?:total|overall|whole)\s+plan\b"
    r"|(?:(?:find|see|check|for)\s+)?more (?:info|information|details)\b|(?:please\s+)?refer\b|(?:associated|related)\s+(?:rfc|issue|pr)\b"
    r"|(?:rfc|issue|pr)s?\s*[:：]|cherry[- ]?pick(?:ed|s)?\b|(?:the\s+)?original\s+(?:pr|issue|commit|change)\b|back-?port(?:ed|s)?\b)"
)
# a label and a reference or link alone ("origin main npu_moe_gating_top_k_softmax: <link>")
_LABEL_REF = re.compile(
    r"[^\w.-]*(?:[\w.-]+\s+){0,2}[\w.-]+\s*[:：]\s*(?:https?://\S+|@[\w-]+|(?:[\w.-]+/[\w.-]+)?#\d+)[\s.;,]*$"
)
# a sentence pointing at a link its plain text no longer holds ("You can find the relevant
# discussion here.", real #6846)
_HERE = re.compile(r"(?i)^(?:you can |please )?(?:find|see|check|read|refer to)\b.{0,60}\bhere\W*$")


_CLAUSE_MARK = re.compile(r"[,;，；]")


def _process_after(sentence: str, pos: int) -> re.Match[str] | None:
    """`_PROCESS.search(sentence, pos)` for pos > 0: past the start of the text (`^`) a match
    starts only right after a clause mark, so it is searched from the first mark on (the
    expression, tried at every character, costs ~30 ns each)."""
    mark = _CLAUSE_MARK.search(sentence, pos - 1)
    return None if mark is None else _PROCESS.search(sentence, mark.end())


# a reference named as words ("the issue 1147", "issue:7769"): a reference like "#1147"
_ISSUE_NUM = re.compile(r"(?i)\b(?:issues?|pr|pull request)\s*[:：#]?\s*\d+\b")
# the words a sentence that only names a reference is made of: pointing, the kinds of things
# referred to, and the words between them ("To solve the problem of the issue：<link>", "Fix
# #1234.", "As described in #N", "This PR is used for resolved issue 1147", "The detail has
# been clarified in that issue : <link>") — none says what the change does
_REF_FILLER = frozenset(
    """a an the this that these those it its is was are were be been being has have had will
    to of in on at by for from with as and or into via also just
    pr prs patch patches change changes commit commits pull request requests
    fix fixes fixed fixing solve solves solved solving resolve resolves resolved resolving
    address addresses addressed close closes closed closing
    problem problems issue issues bug bugs ticket tickets rfc
    see refer refers referring reference references ref cf related relates relating mentioned
    described discussed reported tracked raised clarified detail details more info information
    here there please used use following follow link links below above""".split()
)
_LETTER_WORD = re.compile(r"[^\W\d_]+")
# where a change comes from, opening a sentence ("It comes from 0.9.1dev …", "cherry-pick from
# …", "Ports #14364 to main.", "backport of #N to …", "same as <link>")
_PROVENANCE = re.compile(
    r"(?i)^\W*(?:(?:it|this|that|the)(?:\s+(?:pr|patch|change|commit|pull request))?\s+"
    r"(?:is\s+|was\s+)?(?:(?:a|an|the)\s+)?)?(?:comes?\s+from|came\s+from|taken\s+from"
    r"|(?:forward[- ]?|back[- ]?)?port(?:s|ed|ing)?(?:\s+(?:of|from))?"
    r"|cherry[- ]?pick(?:s|ed|ing)?(?:\s+(?:of|from))?|same\s+(?:as|to))(?![\w-])"
)
_VERSION = re.compile(r"(?i)(?<![\w.])v?\d+(?:\.\d+)+[\w.+-]*")
# where a change was taken to or from, besides its references and versions ("to main branch");
# not "in" ("backport in #13408" names the backport of this change, real #13503)
_BRANCH_WORDS = frozenset(
    "to into onto from of the and pr prs commit commits change changes"
    " main master branch branches release releases dev version versions upstream repo".split()
)
_COMMIT_SUBJECT = re.compile(r"\(\s*#\d+\s*\)\W*$")  # "… alltoallv support dpo (#1547)"


def _ref_sentence(sentence: str) -> bool:
    """Whether `sentence` only names a reference: a reference, link or "issue N" and otherwise
    only words of pointing (`_REF_FILLER`)."""
    if "`" in sentence:
        return False  # (code says what)
    has_ref = "#" in sentence or "://" in sentence
    if not has_ref and not (_ISSUE_NUM.search(sentence) if "ssue" in sentence else None):
        return False
    rest = _not_words(sentence) if has_ref else sentence
    if "ssue" in rest or "pr" in rest.lower():
        rest = _ISSUE_NUM.sub(" ", rest)
    if len(rest) > 200:
        return False
    return all(w.lower() in _REF_FILLER for w in _LETTER_WORD.findall(rest))


def _provenance(sentence: str) -> bool:
    """Whether `sentence` only says where the change comes from: a port, backport or cherry-pick
    of a reference, a version or a branch, or of another change's commit subject ("It comes
    from 0.9.1dev [0.9.1][Feature]Moe alltoallv … (#1547)", real #2088) — a reference, no what."""
    m = _PROVENANCE.match(sentence)
    if m is None:
        return False
    rest = sentence[m.end() :]
    if _COMMIT_SUBJECT.search(rest):
        return True
    rest = _VERSION.sub(" ", _not_words(rest) if ("#" in rest or "://" in rest) else rest)
    if "`" in rest:
        return False
    words = _LETTER_WORD.findall(rest)
    return all(w.lower() in _BRANCH_WORDS for w in words) and rest != sentence[m.end() :]


def _no_what(sentence: str) -> bool:
    """A sentence that only names a reference or where the change comes from."""
    return _ref_sentence(sentence) or _provenance(sentence)


def _provenance_sentences(text: str) -> list[str]:
    """The sentences of `text` (a description's prose, lines joined) that only say where the
    change comes from (`_provenance`): of a paragraph, or of a line with the next (a paragraph
    whose next sentence starts on a line of its own, no stop before it: real #2124)."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        if _PROVENANCE_GATE.search(para) is None:
            continue
        lines = para.split("\n")
        tried = [squashed(para)] + [
            squashed(" ".join(lines[i : i + 2])) for i in range(len(lines) - 1)
        ]
        for joined in tried:
            start = 0
            for end in _sentence_ends(joined):
                said = joined[start:end].strip()
                if said not in out and _provenance(said):
                    out.append(said)
                start = end
    return out


_PROVENANCE_GATE = re.compile(r"(?i)port|pick|from|same")


def _says_nothing(text: str) -> bool:
    """Whether each sentence of `text` only names a reference or where the change comes from."""
    start = 0
    for end in _sentence_ends(text):
        if not _no_what(text[start:end].strip()):
            return False
        start = end
    return True


def _aside(sentence: str) -> bool:
    """A sentence that only points elsewhere, says where the change belongs, or tells the
    author's own doings with the change."""
    if _pointer(sentence) or _PROCESS.match(sentence) is not None or _HERE.match(sentence):
        return True
    if _no_what(sentence):
        return True
    if (":" in sentence or "：" in sentence) and _LABEL_REF.match(sentence):
        return True
    m = _process_after(sentence, 10)
    if m is not None and sentence[m.start() : m.end()].lstrip(" ,;，；").lower().startswith("but"):
        return True  # "This was meant to be merged in #6536, but I accidentally restored a commit."
    return (
        ("#" in sentence or "://" in sentence)
        and _BELONGS.match(sentence) is not None
        and len(_not_words(sentence).split()) <= 10  # (not "Based on #7476, this PR keeps …")
    )


def _line_ends(u: _Unit) -> tuple[int, ...]:
    """Where a line of `u` ends a sentence without punctuation, as offsets into `u.text`: the
    line ends with a word that does not go on, the next line opens with a capitalised word,
    and that word would have fitted on the line within the paragraph's widest line (a line
    broken there on purpose, not wrapped: "Apply Eagle3 to MiniMax-M2.5 to increase model
    performance" / "This will be discard after …", real #7619). Only the lines of the first
    MAX_TEXT characters are looked at (the what is taken from there)."""
    raw = u.raw
    if len(raw) < 2:
        return ()
    widest = max(len(x.rstrip()) for x in raw)
    text = u.text
    out: list[int] = []
    seen = 0
    for i in range(len(raw) - 1):
        line = raw[i].rstrip()
        seen += len(line)
        if seen > 2 * MAX_TEXT:
            break
        nxt = raw[i + 1].strip()
        if not line or not nxt or not line[-1].isalnum():
            continue  # (punctuation ends a sentence by itself, or says it goes on)
        first = nxt.split(None, 1)[0]
        if not _CAPITALISED.fullmatch(first) or len(line.lstrip()) + 1 + len(first) > widest:
            continue
        if line.rsplit(None, 1)[-1].lower() in _GOES_ON:
            continue
        if (
            i
            and len(line.split()) <= 3
            and line.lstrip()[:1].isupper()
            and raw[i - 1].rstrip().endswith((":", "："))
        ):
            # a label on a line of its own after "…subsequent to b020：" ("Root Cause" /
            # "During operator compilation …", real #7059): a sentence of its own
            prefix = squashed(plain(" ".join(raw[:i])))
            if prefix and text.startswith(prefix) and text[len(prefix) : len(prefix) + 1] == " ":
                out.append(len(prefix))
        prefix = squashed(plain(" ".join(raw[: i + 1])))
        if prefix and text.startswith(prefix) and text[len(prefix) : len(prefix) + 1] == " ":
            out.append(len(prefix))
    return tuple(out)


def _what_lead(text: str, breaks: tuple[int, ...] = ()) -> str:
    """`_lead` for the what: sentences also end where a line ends one (`breaks`, from
    `_line_ends`), and such a sentence is told alone (the next one would read pasted on);
    sentences of the author's own doings are passed over like pointers, and a clause of them
    cut off ("…, I have refactored this PR …"); a second sentence that only announces what
    follows ("Two changes are required:") is left out."""
    ends = _sentence_ends(text)
    if breaks:
        ends = sorted(set(ends).union(b for b in breaks if 0 < b < len(text)))
    start = 0
    all_ends = ends
    while len(ends) > 1 and _aside(text[start : ends[0]].strip()):
        start, ends = ends[0], ends[1:]
    after = text[start:]
    if start and _GOES_ON_FROM.match(text, start + len(after) - len(after.lstrip())):
        start, ends = 0, all_ends  # ("This PR depends on <link>. And only if …", real #4075)
    head = _RESTS_ON.match(text, start, ends[0])
    if head is not None and ends[0] - head.end() > 20:
        start = head.end()
    first = text[start : ends[0]].strip()
    if ":" in first or "：" in first:
        # "This PR provides two features: It allows …": what follows the announcement
        colon = min(i for i in (first.find(":"), first.find("：")) if i >= 0)
        if _LEAD_IN.match(first[: colon + 1]) and len(first) - colon > 20:
            return clip(first[colon + 1 :].strip())
    m = _process_after(first, 20)
    if m is not None:
        return clip(first[: m.start()].rstrip(" ,;，；"))
    if ends[0] in breaks:
        cut = first.rfind(". ") if first.endswith((":", "：")) else -1
        # ("… failed error. detail as following:" over a log, real #9445: the sentence before)
        return clip(first[: cut + 1] if cut > 20 else first)
    if len(first) < 100 and len(ends) > 1 and len(text[start : ends[1]].strip()) <= MAX_TEXT:
        second = text[ends[0] : ends[1]].strip()
        if (
            not second.endswith((":", "："))
            and _PROCESS.match(second) is None
            and not (_may_admit(second) and OPEN_WORK.search(second))
        ):
            return text[start : ends[1]].strip()
    return clip(first)


def _numbered(text: str, upto: int) -> str | None:
    """A numbered list inside a paragraph, starting before `upto` ("(1)refactor … (2) move …",
    "Remove … 1.prefetch_stream 2.weight_prefetch_method", real #4993, #5204): the words before
    it when they say something (not an announcement), else its first item; None when there is
    no list."""
    one = None
    for m in _NUM_ITEM.finditer(text, 0, min(len(text), upto + 200)):
        n = m.group(1)
        if one is None:
            if n == "1" and m.start() < upto:
                one = m
        elif n == "2":
            before = text[: one.start()].strip()
            if (
                _usable(before)
                and len(before.split()) > 3
                and not _LEAD_IN.match(before)
                and not _INTRO_ONLY.match(before)
                and not _COUNTED_INTRO.match(before)
            ):
                return _what_lead(before.rstrip(" :：,，"))
            item = text[one.end() : m.start()].strip()
            return clip(item) if _usable(item) else None
    return None


def _repeats(what: str, title: str) -> bool:
    """Whether the first sentence of `what` says only its title, words alike ([Tags] aside)."""
    if not title or not what:
        return False
    said = _bare_words(_TAGS.sub(" ", title))
    head = _bare_words(_TAGS.sub(" ", what[: len(title) + 40]))
    if head[: len(said)] != said:
        return False  # (most whats: not even the title's words first)
    first = what[: _sentence_ends(what)[0]]
    return _bare_words(_TAGS.sub(" ", first)) == said


def _restates(what: str, title: str) -> bool:
    """Whether `what`, one sentence, has no word of content its title has not ("This patch
    purpose to add the `update_max_model_len` interface." under "[Worker] Implement update
    max_model_len interface for NPUWorker", real #6193): words of the change's kind and of the
    sentence's frame (`_FRAME_WORDS`) aside, each word compared without its ending; the
    title's tags count ("[Refactor]")."""
    words = _bare_words(_TAGS.sub(" ", what))
    own = _content(_bare_words(title))
    return bool(own) and len(words) <= len(own) + 12 and _content(words) <= own


# a sentence that says why or how ("…, because …", "To avoid …", "by reusing …")
_WHY_HOW = re.compile(
    r"(?i)\b(?:because|since|due to|so that|in order to|caus\w+|reasons?|otherwise|root cause"
    r"|to (?:avoid|prevent|fix|solve|support|reduce|improve|enable|ensure|allow|make|keep)"
    r"|by (?:\w+ing|using|adding|removing)|via|instead of)\b"
)


# the words of a sentence that says what a change is, not what it is about: its frame, and the
# verbs and nouns of any change's kind ("This patch purpose to add …", "Fix the issue of …")
_FRAME_WORDS = frozenset(
    """a an the this that these those it its is are was were be been being has have had will
    to of for in on at by with from as and or into via so then also just only now
    i we our my us you pr patch change commit pull request purpose aim goal intend want need
    try attempt do make let add implement support fix introduce enable provide perform
    new some main mainly""".split()
)


def _stem(word: str) -> str:
    """`word` without a plural's or a verb's ending ("supports", "added", "fixing")."""
    for end in ("ing", "ed", "es", "s"):
        if len(word) > len(end) + 2 and word.endswith(end):
            return word[: -len(end)]
    return word


def _content(words: list[str]) -> set[str]:
    """The words of content among `words` (bare, lower case), stemmed."""
    return {_stem(w) for w in words if w not in _FRAME_WORDS and _stem(w) not in _FRAME_WORDS}


_TAGS = re.compile(r"\[[^\]]*\]|【[^】]*】")
_WORDS = re.compile(r"[0-9a-z]+")


def _bare_words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def _only_asides(text: str, breaks: tuple[int, ...] = ()) -> bool:
    start = 0
    ends = _sentence_ends(text)
    if breaks:
        ends = sorted(set(ends).union(b for b in breaks if 0 < b < len(text)))
    for end in ends:
        if not _aside(text[start:end].strip()):
            return False
        start = end
    return True


# a sentence that says how the change was checked, not what it does or why ("its verifyed on
# 910B4*8 A2 gpu server"): no what after a sentence that repeats the title
_CHECKED = re.compile(r"(?i)\b(?:verif(?:y|ie)\w*|tested|test(?:ed)? (?:on|with|by)|ci pass\w*)\b")


def _told(u: _Unit, text: str, breaks: tuple[int, ...], lead: bool = True) -> str:
    """The what of a paragraph or list item `text` (= `u.text`): its lead sentences (with
    `lead`, else as many whole sentences as fit, to a line that ends one), or the words before
    a numbered list inside it, else the list's first item; `breaks`: `_line_ends(u)`."""
    if lead:
        out = _what_lead(text, breaks)
    else:
        out = clip(text)
        if breaks and breaks[0] < len(out.removesuffix(ELLIPSIS)):
            out = clip(text[: breaks[0]].strip())
    if "1" in out:  # (a numbered list starts at 1)
        at = text.find(out.removesuffix(ELLIPSIS)[:40])
        listed = _numbered(text[max(at, 0) :], len(out))
        if listed:
            return listed
    return out


def _what_of(units: list[_Unit], title: str = "") -> str:
    """The what of a section's units; one that only repeats `title` gives way to a sentence
    after it that says more (the title is shown beside it: real #1094, #5444), kept when
    none does."""
    again = ""  # a what that only repeats the title
    admitted = False  # the list after an admission of open problems lists them
    for i, u in enumerate(units):
        if u.kind == "li" and admitted:
            continue
        admitted = False
        if not _usable(u.text):
            continue
        out = _unit_what(units, i)
        if not out:
            admitted = _admits(u.text) >= 0
            continue
        if again:
            if _adds(out, title):
                return out
            continue
        if _repeats(out, title):
            again = out
            text = u.text
            breaks = _line_ends(u) if len(u.raw) > 1 else ()
            end = min(_sentence_ends(text)[0], *breaks) if breaks else _sentence_ends(text)[0]
            rest = text[end:].strip()
            num = _NUM_ITEM.match(rest)
            if num is not None:  # "1.Fixed … (the title). 2.Cleaned up …" (real #1246)
                rest = rest[num.end() :].strip()
                nxt = _NUM_ITEM.search(rest)
                rest = rest[: nxt.start()].strip() if nxt is not None else rest
            if rest and _usable(rest) and not _only_asides(rest):
                said = _what_lead(rest, tuple(b - (len(text) - len(rest)) for b in breaks))
                if _adds(said, title):
                    return said
            continue
        if _BACKGROUND.match(out) and not _CHANGE.search(out):
            # background first ("GVA layerwise KV cache pools can map multiple logical layers
            # to the same physical KV buffer", real #14046; "Currently `mooncake_backend` does
            # not handle …" #8514): the change, when a later sentence of the paragraph or a
            # later paragraph of the section says it ("This PR adds …", "Rebuild …"), is the what
            said = _change_after(units, i)
            if said:
                return said
        if title and len(_sentence_ends(out)) == 1 and _restates(out, title):
            said = _why_after(units, i, out)
            if said:
                return said
        return out
    return again


def _why_after(units: list[_Unit], i: int, out: str) -> str:
    """After `out`, a sentence that only restates the title, the sentence right after it that
    says why or how (`_WHY_HOW`) — both when they fit in one span — "" for none."""
    u = units[i]
    text = u.text
    at = text.find(out.removesuffix(ELLIPSIS))
    if u.kind != "p" or at < 0 or out.endswith(ELLIPSIS):
        return ""  # (a list's next item is another change, not why)
    rest = text[at + len(out) :].strip()
    if rest:
        follow = rest[: _sentence_ends(rest)[0]].strip()
    elif i + 1 < len(units) and units[i + 1].kind == "p" and _usable(units[i + 1].text):
        nxt = units[i + 1].text
        follow = nxt[: _sentence_ends(nxt)[0]].strip()
    else:
        return ""
    if (
        not follow
        or not _WHY_HOW.search(follow)
        or _only_asides(follow)
        or _GOES_ON_FROM.match(follow)
    ):
        return ""
    if len(follow.split()) < 6 or follow.endswith((":", "：")):
        return ""
    if rest:
        both = text[at : text.find(follow, at + len(out)) + len(follow)].strip()
        if len(both) <= MAX_TEXT:
            return both
    return clip(follow)


def _change_after(units: list[_Unit], i: int) -> str:
    """The what told from the first sentence after background (`units[i]`) that says the change:
    later in its paragraph, else opening one of the next paragraphs; "" for none."""
    u = units[i]
    text = u.text
    breaks = _line_ends(u) if len(u.raw) > 1 else ()
    ends = _sentence_ends(text)
    for end in ends[:-1]:
        rest = text[end:].strip()
        if _is_change(rest) and _usable(rest):
            offset = len(text) - len(rest)
            return _what_lead(rest, tuple(b - offset for b in breaks if b > offset))
    for j in range(i + 1, min(len(units), i + 5)):
        v = units[j]
        if v.kind == "p" and _is_change(v.text) and _usable(v.text):
            said = _unit_what(units, j)
            if said:
                return said.rstrip(" :：")
    return ""


def _is_change(text: str) -> bool:
    """Whether `text` opens with the change ("This PR …", "We add …", "Fix …"), not with what it
    only answers ("This PR fixes it")."""
    return _CHANGE_OPEN.match(text) is not None and not _ONLY_ANSWERS.match(text)


# what states how things are, not what the change does: an opening of the state before ("Currently
# …", "Previously …", "At present …", "By default …") or a subject that can, may or does something
# ("GVA layerwise KV cache pools can map …", "AscendStore may prefetch …")
_BACKGROUND = re.compile(
    r"(?i)\W*(?:currently|previously|at present|at the moment|right now|today|nowadays|historically"
    r"|before this (?:pr|change|patch)|prior to this (?:pr|change|patch)|in the current \w+"
    r"|by default)\b"
    r"|\W*(?!(?:this|the|our|in this) (?:pr|pull request|change|patch|commit)\b)(?!we\b|i\b)"
    r"(?:[\w./`'-]+\s+){1,6}?(?:can|may|might|could|does|do)\s+(?:not\s+|only\s+|also\s+)?"
    r"(?!be\b)[a-z]+\b"
)
# the words of a change: this PR, patch or change, we, or an imperative first verb
_CHANGE = re.compile(
    r"(?i)\b(?:this|the|our) (?:pr|pull request|patch|change|commit)\b|\bin this (?:pr|patch)\b|\bwe\b"
)
_CHANGE_OPEN = re.compile(
    r"(?i)\W*(?:(?:this|the|our|in this) (?:pr|pull request|patch|change|commit|fix)\b"
    r"|we\s+(?!can\b|may\b|found\b|observed\b|noticed\b|see\b|need\b|should\b|want\b|have\b|had\b"
    r"|would\b|will\b|might\b|could\b|are\b|were\b)\w+"
    r"|(?:to (?:fix|solve|address|resolve|avoid|support) [^.]{3,80}?,\s*)?(?:fix|add|support|introduce"
    r"|implement|remove|refactor|move|make|use|enable|disable|update|replace|avoid|ensure|prevent"
    r"|rebuild|sync|align|change|set|skip|guard|handle|allow|register|rename|split|merge|extend"
    r"|optimi[sz]e|reuse|drop|delete|clean|correct|restore|revert|bump|upgrade|adapt|apply|improve"
    r"|reduce|unify|pass|keep|call|check|validate|reject|initiali[sz]e|load|convert|cache)(?:e?s)?\b)"
)
_ONLY_ANSWERS = re.compile(
    r"(?i)\W*(?:(?:this|the|our) (?:pr|pull request|patch|change|commit|fix) )?(?:\w+ )?"
    r"(?:fix|solve|address|resolve|handle)(?:e?s)?\s+(?:it|this|that|them|these|the (?:issue|problem|bug|error))\b"
)


# a sentence that goes on from the one before ("And drop short request schedule …", real #12541)
_GOES_ON_FROM = re.compile(r"(?i)(?:and|but|also|so|or|then|thus|therefore|besides)\b")


# a remark beside the change ("Note: added test case is not run in vllm-ascend CI.", "Please note
# that this is just the initial version")
_NOTE = re.compile(r"(?i)\W*(?:please\s+)?notes?\b|nb\b")


def _adds(what: str, title: str) -> bool:
    """Whether `what`, told after a sentence that repeats the title, says more: a sentence of
    some words, not the title again, not an announcement of what follows ("we have to make the
    following changes:"), not how it was checked."""
    words = {w.lower() for w in what.split() if w.isalpha()}
    return (
        len(what.split()) >= 6
        and len(words) >= 4  # words, not "git revert <sha> git revert <sha>" (real #6891)
        and not _NOTE.match(what)
        and not what.endswith((":", "："))
        and not _only_asides(what)
        and not _GOES_ON_FROM.match(what)
        and not _CHECKED.search(what)
        and not _repeats(what, title)
    )


# the last words of a sentence that needs the list after it ("…, which include:")
_NAMES_NEXT = frozenset(
    "include includes including contain contains containing like namely following below are"
    " is were was".split()
)

# "…, we do mainly two things:": the list says what
_COUNTED_TAIL = re.compile(
    r"(?i)\b(?:following|two|three|four|five|several|some|a few|\d+)\s+(?:[\w-]+\s+)?(?:things"
    r"|changes|parts|fixes|items|points|modifications|aspects|features|issues|problems|updates"
    r"|steps)\s*[:：]$"
)


# the words that join an admission of open work on to what the change does ("… of
# `FULL_AND_PIECEWISE` and there are several issues remain to be resolved:")
_JOIN_TAIL = re.compile(
    r"(?i)(?:\s*[,;:，；]\s*|\s+)(?:(?:and|but|while|though|although|yet)\s+)?$"
)


# (its literals first: the expression, tried at every character, costs ~10 µs a description)
_may_admit = literal_gate(OPEN_WORK)


def _admits(text: str) -> int:
    """Where the first sentence of `text` starts to admit what is left open (`OPEN_WORK`), -1
    when it does not: that is a plan or unfinished work, not what the change does."""
    o = OPEN_WORK.search(text) if _may_admit(text) else None
    if o is None or o.start() > _sentence_ends(text)[0]:
        return -1
    return o.start()


def _unit_what(units: list[_Unit], i: int) -> str:
    """The what that `units[i]` gives (with the list items after it), "" for none; a sentence
    that admits open problems gives only the words before the admission ("This is the initial
    support of `FULL_AND_PIECEWISE`", real #9572), none when it is all admission."""
    u = units[i]
    text = u.text
    at = _admits(text)
    if at >= 0:
        head = _JOIN_TAIL.sub("", text[:at])
        return _what_lead(head) if len(head.split()) > 3 and _usable(head) else ""
    breaks = _line_ends(u) if len(u.raw) > 1 else ()
    if i + 1 < len(units) and _only_asides(text, breaks):
        return ""  # a paragraph that only points elsewhere, with more to come
    # the list items right after it (none after a gap, none unusable: a span of the body)
    items: list[str] = []
    for v in units[i + 1 : i + 3]:
        if v.kind != "li" or v.after_gap or not _usable(v.text):
            break
        items.append(v.text)
    # "this pr accomplish two things" over a numbered list, no colon (real #13532): the list
    # says what
    intro = u.kind == "p" and bool(items) and bool(_COUNTED_INTRO.match(text))
    if intro or (text.endswith((":", "：")) and u.kind == "p"):
        if not items:
            if len(text.split()) <= 3:
                return ""  # "Reason:" before a code block says nothing alone
            return _told(u, text, breaks)
        if intro or len(text.split()) <= 4 or _INTRO_ONLY.match(text) or _LEAD_IN.match(text):
            out = items[0]
            if (
                len(items) > 1
                and out.endswith((".", "!", "?", "。"))
                and len(out) + 1 + len(items[1]) <= MAX_TEXT
            ):
                out += " " + items[1]
            return clip(out)
        last = text.rstrip(" :：").rsplit(None, 1)[-1].lower()
        if (
            len(items[0].split()) <= 3
            and last not in _GOES_ON
            and last not in _NAMES_NEXT
            and not _COUNTED_TAIL.search(text, max(0, len(text) - 80))
        ):
            # a sentence over a list of names ("… no longer have runtime callers:" /
            # "- indexer_compress_epilog", real #12896): the sentence, not its first name
            return _told(u, text, ()).rstrip(" :：")
        out = text + " " + items[0]
        return clip(out) if len(out) <= MAX_TEXT else _told(u, text, breaks)
    if u.kind == "li":
        out = text
        if (
            items
            and out.endswith((".", "!", "?", "。"))
            and len(out) < 100
            and len(out) + 1 + len(items[0]) <= MAX_TEXT
        ):
            out += " " + items[0]
            return clip(out)
        return _told(u, text, breaks, lead=False)
    return _told(u, text, breaks)


# ---------------------------------------------------------------- user-facing

_YES = re.compile(r"^\W*yes\b[\s,.:;!)\-–—]*", re.I)
_NO = re.compile(
    r"^\W*(?:no|none|nope|n/?a|na|not|nothing|without|never)\b|\b(?:no|not|none|nothing|without)\b"
    r"|n't\b|\b(?:doc(?:s|ument(?:ation)?)?|test(?:s|ing)?|ci|internal(?:ly)?|refactor(?:ing)?)[- ]only\b"
    r"|\bonly (?:affects|changes|touches|updates) (?:the )?(?:doc|test|ci|internal)|不涉及|无"
    # an answer that the change stays inside the code: "It only adds and refactors internal
    # Triton kernels and wrappers for Ascend" (real #4304), "purely an internal refactor"
    r"|\bonly\b[^.;:]{0,50}\binternal\b|\b(?:purely|entirely|just) (?:an? )?internal\b"
    r"|\binternal (?:refactor\w*|clean-?up|implementation)\b|\bimplementation details?\b"
    r"|^\W*(?:this|it)(?: pr| change)? (?:is|only)\b[^.;:]{0,30}\binternal\b",  # (#8387)
    re.I,
)


# an answer that denies a break only, not a change: "No breaking user-facing changes."
_NO_BREAK = re.compile(
    r"(?i)^\W*no\s+(?:breaking|backwards?[- ]incompatible|incompatible)\b[^.]*\.\s+\S"
)


# a description without the template's answer that says users feel the change: "this change is
# user impacted. dump_config is changed from dict to string." (real #5296)
_SAID_IMPACT = re.compile(
    r"(?i)\b(?:this|the) (?:change|pr|patch|commit) (?:is|has|will be|introduces|brings)\s+"
    r"(?:a\s+)?(?:user[- ](?:impact\w*|facing|visible)|breaking)\b|\buser[- ]impact(?:ed|ing)\b"
)


def _said_impact(sections: list[_Section]) -> str:
    """The sentence (with the next when it is short) of a description's own that says users
    feel the change, "" when none does."""
    for s in sections:
        if s.kind not in ("", "what", "other"):
            continue
        for u in s.units:
            if "impact" not in u.text and "facing" not in u.text and "breaking" not in u.text:
                continue
            m = _SAID_IMPACT.search(u.text)
            if m is None:
                continue
            said = sentences(u.text[m.start() :])
            if not said:
                continue
            return clip(" ".join(said[:2]) if len(said[0]) < 60 and len(said) > 1 else said[0])
    return ""


# an answer that talks about what users see, run or set (not a change's own description): the
# uf section's first sentence, read when that section had to stand for the empty what (#5223)
_TALKS_USERS = re.compile(
    r"(?i)\b(?:users?|behaviou?r\w*|api|interfaces?|config\w*|options?|flags?|settings?|"
    r"defaults?|env(?:ironment)? var\w*|cli|command[- ]line|breaking|deprecat\w*|user-facing)\b"
)


# what a change adds support for — a model, a hardware, a quantization scheme — named as such
# names are written, with a figure ("Adapt GLM-5.2", "Support Gemma4 … on A2", "Add support for
# W8A8FP8 dynamic quantization", "w4a16-mxfp4 quantization scheme adaptation", real #11264,
# #11536, #10236, #11014): users meet it, whatever the template's "No" says
_SUPPORT_NAME = r"(?P<name>[A-Za-z][A-Za-z.]*[-_]?v?\d(?:[\w-]|\.\w)*|\d+[A-Za-z][\w-]*)"
_ADDS_SUPPORT = re.compile(
    r"(?i)\b(?:(?:add|adds|added|adding|introduc\w+|enabl\w+)\s+(?:\w+\s+){0,2}?support\s+"
    r"(?:for|of)|support(?:s|ed|ing)?(?:\s+for)?|adapt(?:s|ed|ing)?(?:\s+to)?)\s+(?:the\s+)?"
    rf"(?:new\s+)?(?-i:{_SUPPORT_NAME})(?![\w-])"
    r"|(?-i:" + _SUPPORT_NAME.replace("?P<name>", "?P<scheme>") + r")\s+(?:quantization|quant)\s+"
    r"(?:scheme|method)\b"
)
# ... not a version, nor the code's own parts ("adapt to main2main", "adapt the mla_v1",
# "supports ModelRunnerV2", real #7578, #3397, #13982), nor
# a tensor's dtype ("support bf16/float16 gmm1/gmm2 weight", #6393), a name too short to tell a
# model from a part or a place ("Add Mega moe support for a3": the op on it, #11701)
_NOT_SUPPORTED_NAME = re.compile(
    r"(?i)^(?:v?\d[\d.]*|b?f(?:loat|p)?(?:16|32)|\w*runner\w*|mrv\d+|\w*_v\d+|main\w*"
    r"|python[\d.]*|torch\w*|cann\w*|.{1,2})$"
)
# a change of tests, CI, docs or a fix: what it supports is there, not for users
_NOT_FOR_USERS = re.compile(
    r"(?i)\b(?:tests?|e2e|ut|ci|nightly|docs?|documentation|tutorials?|guides?|benchmarks?|lint"
    r"|refactor\w*|fix\w*|bugs?|bugfix|revert\w*)\b"
)
_TITLE_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*)+")


def _adds_support(title: str, what: str) -> bool:
    """Whether the title, or the what's first sentence, says the change adds support for a
    named model, hardware or quantization scheme (not in a change of tests, CI, docs or a fix)."""
    if _NOT_FOR_USERS.search(title):
        return False
    for text in (_TITLE_TAGS.sub("", title), sentences(what)[0] if what else ""):
        for m in _ADDS_SUPPORT.finditer(text):
            if not _NOT_SUPPORTED_NAME.match(m.group("name") or m.group("scheme")):
                return True
    return False


def _user_facing(units: list[_Unit]) -> tuple[str, str]:
    for i, u in enumerate(units):
        t = u.text.strip()
        if not t or not any(c.isalnum() for c in t) or _HELP.match(t):
            continue
        y = _YES.match(t)
        if y:
            rest = t[y.end() :].strip()
            if len(rest.split()) >= 2 or (rest and not rest.isascii()):
                return "yes", _lead(rest)
            for v in units[i + 1 : i + 3]:
                if _usable(v.text):
                    return "yes", _lead(v.text)
            return "yes", ""
        if _PLACEHOLDER.match(t):
            low = t.lower().rstrip(".!")
            return (
                ("no", "")
                if low
                in ("no", "none", "nope", "n/a", "na", "nothing", "not involved", "not applicable")
                else ("unknown", "")
            )
        first = sentences(t)[0] if t else t
        if _NO.search(first):
            return "no", ""
        return "yes", _lead(t)
    return "unknown", ""


# ---------------------------------------------------------------- tested

# on the lowercased text of the test sections, one scan from word starts: the group that matched
# names the kind (Chinese words have no word boundary inside a sentence: plain substrings)
_TEST_KINDS = re.compile(
    r"\b(?:"
    + "|".join(
        f"(?P<{k}>{rx})"
        for k, rx in (
            ("unit", r"unit[- ]?tests?\b|tests/ut\b|unittest|uts?\b"),
            ("e2e", r"e2e\b|end[- ]to[- ]end|tests/e2e"),
            ("benchmark", r"bench(?:mark\w*)?\b|throughput\b|ttft\b|tpot\b|qps\b|tokens?/s\b"),
            (
                "accuracy",
                r"accuracy\b|gsm8k\b|mmlu\b|c-?eval\b|aime\d*\b|lm[_-]eval|humaneval\b|acc\b",
            ),
            (
                "manual",
                r"manual(?:ly)?\b|local(?:ly)?\b|by hand|offline inference|curl\b|python3? examples/"
                r"|vllm serve\b|serving\b",
            ),
            ("ci", r"ci\b|existing tests?\b|new added\b|github actions"),
        )
    )
    + ")"
)
_TEST_KINDS_ZH = (
    ("unit", "单元测试"),
    ("benchmark", "性能测试"),
    ("accuracy", "精度"),
    ("manual", "本地"),
    ("manual", "手动"),
)
_KIND_ORDER = ("unit", "e2e", "benchmark", "accuracy", "manual", "ci")
_NOT_TESTED = re.compile(
    r"^\W*(?:no|none|nope|n/?a|na|not (?:tested|involved|needed|required|applicable)|nothing|no (?:need|test))\b"
    r"|\bno (?:tests?|testing) (?:is |are )?(?:needed|required|necessary)|\bnot (?:need|require)",
    re.I,
)
_CI_ONLY = re.compile(
    r"^\W*(?:by|via|through|in|with)?\s*(?:the\s+)?ci\b|\bci (?:passed|pass|green)", re.I
)


# a test section's sentence that says tests were not run ("NPU end-to-end validation has not been
# run locally" real #14046, "The targeted pytest files and mypy could not be run in the current
# Windows workspace" #14023, "The full pytest suite was not run locally" #13790, "Not run
# locally:"): the change merged without them (Digest.tested "not_run"); a checker that could not
# run ("the gitleaks hook could not run", "ruff was not run") is no test, and a change that
# needs none says so ("NPU tests were not run because this change is documentation-only": none)
_NOT_RUN = re.compile(
    r"(?i)\b(?:has|have|had|was|were|is|are)(?:\s+not|n't)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:run|executed|performed)\b"
    r"|\b(?:could|can|did)(?:\s*not|n't)\s+(?:(?:be\s+)?(?:run|executed)|run|execute|enter test execution)"
    r"(?=\s*(?:locally|here|in\b|on\b|because|due\b|as\b|since\b|[.,;:(]|$))"
    r"|^\W*not (?:yet )?(?:been )?(?:run|executed|tested)\b"
)
_NOT_RUN_GATE = ("not", "n't")
_CHECKER = re.compile(
    r"(?i)\b(?:gitleaks|ruff|shellcheck|mypy|lint\w*|format\.sh|pre-commit|hooks?|sphinx|markdownlint"
    r"|codespell|typos|clang-format|docs? build)\b"
)
_TEST_WORD = re.compile(
    r"(?i)\b(?:pytest|tests?|npu|e2e|end-to-end|validation|serving|runtime|unit)\b"
)
_NEEDS_NONE = re.compile(
    r"(?i)\b(?:docs?|documentation|config(?:uration)?|comments?)[- ]only\b"
    r"|\bonly (?:updates?|changes?|touch(?:es)?) (?:the )?(?:docs?|documentation)\b"
)


_ON_DEVICE = re.compile(r"(?i)\bnpu\b|end-to-end|\be2e\b")
_MARK = re.compile(
    r"^\s*(?:[-*+>]|\d{1,3}[.)])\s+"
)  # a list item's mark (a unit's lines go without)


def _not_run(sections: Iterable[_Section]) -> list[tuple[_Unit, str]]:
    """The sentences of the test sections that say tests were not run, with their units."""
    out = []
    for sec in sections:
        for u in sec.units:
            t = u.text
            if not any(w in t for w in _NOT_RUN_GATE) and not t.lstrip(" -*").startswith("Not"):
                continue
            for s in sentences(t):
                m = _NOT_RUN.search(s)
                if m and not (_CHECKER.search(s, 0, m.start()) and not _TEST_WORD.search(s)):
                    out.append((u, s))
    return out


def _tested(sections: Iterable[_Section]) -> tuple[tuple[str, ...], str]:
    sections = list(sections)
    raw: list[str] = []
    text = ""
    for s in sections:
        raw.extend(s.raw)
        if not text:
            for u in s.units:
                if u.text.strip() and any(c.isalnum() for c in u.text) and not _HELP.match(u.text):
                    text = u.text
                    break
    not_run = _not_run(sections)
    if not_run:
        # (what was not run on the device or end to end is told first)
        said = sorted((s for _, s in not_run), key=lambda s: _ON_DEVICE.search(s) is None)
        if all(_NEEDS_NONE.search(s) for s in said):
            return ("none",), clip(said[0])
        # the kinds the section names outside what was not run ("NPU end-to-end validation has
        # not been run" is no end-to-end test)
        units = {id(u): u for u, _ in not_run}
        left = Counter(_MARK.sub("", ln).strip() for u in units.values() for ln in u.raw)
        kept = []
        for ln in raw:
            if left[key := _MARK.sub("", ln).strip()] > 0:
                left[key] -= 1
            else:
                kept.append(ln)
        for u in units.values():
            rest = u.text
            for s in said:
                rest = rest.replace(s, " ")
            kept.append(rest)
        joined = "\n".join(kept)[:2000].lower()
        kinds = {m.lastgroup for m in _TEST_KINDS.finditer(joined)}
        if not joined.isascii():
            kinds.update(k for k, word in _TEST_KINDS_ZH if word in joined)
        if "pytest" in joined and "unit" not in kinds and "e2e" not in kinds:
            kinds.add("unit")
        return (*(k for k in _KIND_ORDER if k in kinds), "not_run"), clip(said[0])
    joined = "\n".join(raw)[:2000].lower()
    kinds = {m.lastgroup for m in _TEST_KINDS.finditer(joined)}
    if not joined.isascii():
        kinds.update(k for k, word in _TEST_KINDS_ZH if word in joined)
    if "pytest" in joined and "unit" not in kinds and "e2e" not in kinds:
        kinds.add("unit")  # pytest of no e2e path: the unit tests
    found = [k for k in _KIND_ORDER if k in kinds]
    if not found:
        if not text:
            return (), ""
        if _NOT_TESTED.search(text):
            return ("none",), ""
        if _PLACEHOLDER.match(text.strip()):
            return (), ""
        found = ["ci"] if _CI_ONLY.search(text) else ["manual"]
    first = sentences(text)[0] if text else ""
    return tuple(found), clip(first) if first else ""


# ---------------------------------------------------------------- claims

_N = r"(?<![\w.#/@:=-])[<>≤≥+\-±~]?\d+(?:[.,]\d+)*"
# a time may be written in parts: "141ms49us620ns" (real #7380)
_TIME_PARTS = r"(?:\d+(?:\.\d+)?(?:ms|us|µs|ns))*"
_UNIT = (
    # (a "%" or "x" between two numbers is an operator: "512 % 128", "128 x 2")
    r"(?:\s?%(?!\s?\d)|\s?[x×](?![\w])(?!\s?\d)|\s?times\b"
    rf"|\s?(?:ms|us|µs|ns|s|sec|secs|seconds|min|minutes|hours?){_TIME_PARTS}\b"
    r"|\s?(?:tokens?|toks?|reqs?|requests?)/s\b|\s?(?:tps|qps|QPS|TPS|tok/s)\b|\s?[GMKT]i?B\b|\s?pp\b)"
)
_FIG = rf"{_N}(?:\s?(?:-|–|~|to)\s?{_N})?{_UNIT}"
_ARROW = r"(?:-{1,2}>|→|=>|⟶|to)"
# a range whose ends both carry the unit: "1.80x-6.02x", "9%–16%"
_RANGE_END = rf"(?:[-–~]\d+(?:[.,]\d+)*{_UNIT})?"
_FIGURE = re.compile(rf"{_FIG}{_RANGE_END}(?:\s*{_ARROW}\s*{_FIG})?", re.I)
_ONE_FIG = re.compile(_FIG, re.I)
# a range written "from 429 to 323 ms" is a pair: its first number and the rest
_FROM_RANGE = re.compile(rf"({_N})\s?to\s?({_N}{_UNIT})", re.I)
# what lies between two figures of a pair written apart: "141ms49us620ns --> the optimized
# mask during 1ms227us780ns" (an arrow, a few words, no other sentence)
_PAIR_JOIN = re.compile(rf"\s*{_ARROW}\s*", re.I)  # not a range's dash: "1.2x–1.4x"
_GAP_ARROW = re.compile(r"-{1,2}>|→|=>|⟶")
MAX_PAIR_GAP = 60
# ... and what it must not hold: another number, another clause ("ttft +5.4%( 221-> 233)， tpot
# +10%" pairs no two percentages)
_GAP_LABEL = re.compile(r"\([^()\d]{0,20}\)")
_GAP_OTHER = re.compile(r"(?<![\w.])\d|[.,;:()，；：（）]")
# a word that names a measured thing; a metric without one is kept only when the sentence says it
# went some way right after it ("mapping decreased from …")
_MEASURE_NOUN = re.compile(
    r"(?i)(?:time|cost|duration|latenc|throughput|ttft|tpot|itl|e2el|memory|footprint|hbm|bandwidth"
    r"|overhead|speed|rate|accura|\bacc\b|score|\bwer\b|acceptance|usage|utili[sz]|qps|tps|runtime"
    r"|耗时|吞吐|时延|延迟|内存|显存|精度)"
)
_DECIMAL = re.compile(
    r"(?<![\w.#/@:=-])[+\-±~]?\d+\.\d+(?![\w.])(?:\s*(?:->|→|=>|to)\s*\d+\.\d+(?![\w.]))?"
)
_PERF_WORD = re.compile(
    r"\b(?:throughput|latenc(?:y|ies)|ttft|tpot|itl|e2el|speed(?:s|ed)?[- ]?ups?|faster|slower|qps|tps|tok/s"
    r"|tokens?/s|memory|performance|perf|bandwidth|overhead|improv\w*|reduc\w*|boost\w*|accelerat\w*"
    r"|speed|decode time|prefill time|step time|runtime|compile time|startup time|hbm|footprint)\b",
    re.I,
)
_PERF_ZH = ("性能", "吞吐", "时延", "延迟", "提升", "加速", "内存", "显存")
# cheap gates before the patterns above: a number with a unit; an accuracy word (any case)
_FIG_GATE = re.compile(
    r"\d\s?(?:%|[xX×](?![A-Za-z0-9])|times\b|m?s\b|[uµn]s\b|[mun]s\d|sec|min|hour|tok|req|tps|TPS"
    r"|qps|QPS|[GMKT]i?B\b|pp\b)"
)
_ACC_GATE = ("acc", "score", "gsm8k", "mmlu", "eval", "aime", "精度")
_DEC_GATE = re.compile(r"\d\.\d")
# a pasted log line is output, not a claim someone makes: "(APIServer pid=774401) INFO 06-11
# 11:07:59 [loggers.py:271] Engine 000: Avg prompt throughput: 1.0 tokens/s, …"
_LOG_LINE = re.compile(
    r"\bpid=\d|\[[\w./-]+\.py:\d+\]|\b(?:INFO|WARNING|WARN|ERROR|DEBUG)\b.{0,40}"
    r"\b\d{1,2}:\d{2}:\d{2}\b|\b\d{1,2}:\d{2}:\d{2}\b.{0,40}\b(?:INFO|WARNING|WARN|ERROR|DEBUG)\b"
    # ... and so is a line stamped with its date and time ("[2026-06-29 11:59:55,012] [ais_bench]")
    r"|\b\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}:\d{2}\b"
)
# a row of a table a tool printed, its columns aligned by runs of spaces ("GPQA_diamond  b1ed2c
# accuracy  gen   86.00", real #11195): two gaps of two spaces or more between words, no sentence
# mark before them
_PRINTED_ROW = re.compile(r"[^\s.!?:;,。：]  +[^\s|].*?[^\s.!?:;,。：]  +[^\s|]")
# a pair of figures in a sentence without a word of performance is a measurement unless it sets
# something: "raise the timeout from 30s to 60s", "sleep interval 5s -> 10s" change a setting
_SETTING_WORD = re.compile(
    r"\b(?:timeouts?|interval|sleep|wait\w*|retr(?:y|ies)|ttl|deadline|schedul\w*|cron|delay"
    r"|threshold|limit|defaults?|set|sets|setting|config\w*|bump\w*|upgrad\w*|versions?"
    # ... or counts what is not a measurement of the software (test coverage)
    r"|coverage|gate)\b",
    re.I,
)
# how a sentence says the measured thing went
_TREND_REDUCED = re.compile(
    r"(?i)(?:reduc|decreas|lower|cut|sav|drop|shrink|shrank|fell|fall|less|fewer|minimi|shorten"
    r"|collaps)"
)
_TREND_IMPROVED = re.compile(
    r"(?i)(?:improv|increas|boost|rais|speed|accelerat|faster|higher|gain|grow|grew|doubl|enhanc"
    r"|more|optimi|ris)"
)
# words around a figure that name no measured thing
_METRIC_GLUE = frozenset(
    "from by to of is was are were be been has have had about approximately approx around roughly"
    " nearly almost up down during at = ~ : the a an its their it this that which and while with"
    " only just goes went go get gets got becomes became result results overall total e2e"
    " significantly greatly dramatically more than over below above".split()
)
_NOT_METRIC = frozenset(
    "which that can will could would should may might we you i our this these those it to"
    " avoid introducing introduce".split()
)
_METRIC_WHERE = frozenset("on in for with at under when of per".split())
# a table's separator row ("| --- | :-: |") and the headers of a comparison: the baseline's
# column or row ("main", "Baseline", "w/o xlite", "Without this PR") and this change's
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)+\|?\s*$")
_TABLE_GATE = re.compile(r"\|\s*:?-{3,}")
_BASE_HDR = re.compile(
    r"(?i)\b(?:main|baseline|base|before|original|origin|master|unpatched|w/o|without|old|vanilla"
    r"|default)\b"
)
_NEW_HDR = re.compile(
    r"(?i)\b(?:this pr|pr|after|optimi[sz]ed|opt|new|patched|w/(?!o)|with|ours|fixed|current)(?!\w)"
)
_NUM_CELL = re.compile(
    r"^[<>≤≥~+\-±]?\d+(?:[.,]\d+)*\s?(?:%|[x×]|ms|us|µs|ns|s|[GMKT]i?B|tok/s|tokens/s)?"
    r"(?:\s*\([^()]{0,30}\))?$",
    re.I,
)
_TABLE_MEASURE = re.compile(
    r"(?i)\b(?:time|cost|duration|ms|us|µs|ns|speed\w*|throughput|latenc\w*|ttft|tpot|itl|tps|qps"
    r"|tok/s|tokens/s|memory|bandwidth|acc\w*|score|gsm8k|mmlu|ceval|aime|e2el|qpm|gain|delta)\b"
    r"|%|耗时|吞吐|时延|精度"
)
_DELTA_HDR = re.compile(
    r"(?i)\b(?:speed-?ups?|gains?|delta|changes?|improvement|diff\w*|ratio|comparison|vs)\b|Δ|提升"
)
_DELTA_CELL = re.compile(r"^[+\-−~≈]?\d+(?:[.,]\d+)*\s?(?:%|[x×]|pp)")
_METRIC_LABEL = re.compile(r"(?i)\b(?:metrics?|kpi|indicators?|items?|measure\w*|指标)\b")
MAX_TABLE_CLAIMS = 3  # rows of one table among the claims (the largest changes)
MAX_TABLE_ROWS = 24  # rows of one table read for them
# a cell's number carries a unit of time, size or rate: "12.6s", "603.63ms", "3.2 GB"
_CELL_UNIT = re.compile(r"\d\s?(?:ms|us|µs|ns|s|[GMKT]i?B|tok/s|tokens/s|req/s)$|\d\s?%$", re.I)


_ACC_LOW = re.compile(
    r"(?:accuracy|gsm8k|mmlu|c-?eval|aime\d*|humaneval|lm[_-]eval|acc|exact[_ ]match|score)\b"
)


def _is_acc(s: str) -> bool:
    """An accuracy word in `s` (the pattern without a leading \\b or IGNORECASE, on the lowered
    text, with the word start checked here: Python's re is several times faster so)."""
    low = s.lower()
    for m in _ACC_LOW.finditer(low):
        i = m.start()
        if i == 0 or not (low[i - 1].isalnum() or low[i - 1] == "_"):
            return True
    return not s.isascii() and "精度" in s


def _is_perf(s: str) -> bool:
    return _PERF_WORD.search(s) is not None or (not s.isascii() and any(w in s for w in _PERF_ZH))


def _pair(s: str, found: list[re.Match[str]]) -> tuple[str, str, int]:
    """The measured change of sentence `s` written as a pair — "26us to 11 us", "from 429 to
    323 ms", "141ms49us620ns --> … 1ms227us780ns" — as (before, after, where it starts), else
    ("", "", -1)."""
    for i, m in enumerate(found):
        text = m.group(0)
        parts = list(_ONE_FIG.finditer(text))
        if len(parts) >= 2 and _PAIR_JOIN.fullmatch(text, parts[0].end(), parts[-1].start()):
            return parts[0].group(0).strip(), parts[-1].group(0).strip(), m.start()
        if s[max(0, m.start() - 5) : m.start()].lower().endswith("from "):
            r = _FROM_RANGE.fullmatch(text.strip())
            if r is not None:
                return r.group(1), r.group(2), m.start()
        if i + 1 < len(found):
            gap = s[m.end() : found[i + 1].start()]
            if gap.strip().lower() == "from" and s[: m.start()].rstrip().lower().endswith(" to"):
                # "decreased to 0.24ms from 7ms": the pair written after first
                return found[i + 1].group(0).strip(), text.strip(), m.start()
            if "(" in gap:  # a side's label: "33%(main) → 86%(this pr)"
                gap = _GAP_LABEL.sub("", gap)
            if len(gap) <= MAX_PAIR_GAP and _GAP_ARROW.search(gap) and not _GAP_OTHER.search(gap):
                return text.strip(), found[i + 1].group(0).strip(), m.start()
    return "", "", -1


def _metric(s: str, at: int, end: int, pair: bool = False) -> tuple[str, str]:
    """What sentence `s` says was measured by the figure at `at`..`end`, and how it went: the
    words before the figure within its clause, without glue and trend words ("time cost reduce
    from" → "time cost", reduced; "reducing KV cache memory by" → "KV cache memory"); a span of
    `s`. A word after the figure may say the trend ("20% faster")."""
    pre = s[:at]
    cut = max(pre.rfind(c) for c in ",;:()（：，；")
    words = pre[cut + 1 :].split()
    if not words and cut > 0 and pre[cut] in ":：":
        # "convd2d : 27ms --> …", "Output throughput：534 -> 652": the label before the colon
        head = pre[:cut]
        words = head[max(head.rfind(c) for c in ",;:()（：，；") + 1 :].split()
    trend = ""
    said_trend = False  # a trend word right after the metric: "time cost reduce from 26us"
    # a figure after "to" alone is the level reached, not the change: "collapses to ~1%"
    level = bool(words) and words[-1].lower() == "to"
    retried = False
    while words and (words[-1].lower().strip("*") in _METRIC_GLUE or _trend_of(words[-1])):
        trend = trend or _trend_of(words[-1])
        said_trend = said_trend or bool(trend)
        words.pop()
        if not words and cut > 0 and pre[cut] in ",，" and not retried:
            # "the hit rate improved significantly, rising from 33% to 86%": the clause before,
            # when it ends with how the thing went
            head = pre[:cut]
            cut = max(head.rfind(c) for c in ",;:()（：，；")
            words = head[cut + 1 :].split()
            pre, retried, said_trend = head, True, False
    if retried and not said_trend:
        words = []  # "… was reduced by ten minutes, from 33 minutes": no thing named there
    # the thing measured follows the last trend word ("This PR improves the throughput of X")
    for j in range(len(words) - 1, -1, -1):
        t = _trend_of(words[j])
        if t:
            trend = trend or t
            words = words[j + 1 :]
            break
    while words and (
        words[0].lower() in _METRIC_GLUE
        or words[0].lower() in _METRIC_WHERE
        or not any(c.isalpha() for c in words[0])
    ):
        words.pop(0)
    # the thing, not where it was measured: "hit rate on an agent-scenario dataset" → "hit rate"
    if len(words) > 8:  # a whole clause: its last words
        words = words[-5:]
    at_word = next((j for j, w in enumerate(words) if j and w.lower() in _METRIC_WHERE), 0)
    if at_word:
        words = words[:at_word]
    words = words[-5:]
    metric = " ".join(words)
    if metric and (not any(c.isalpha() for c in metric) or metric.lower() in ("result", "it")):
        metric = ""
    if metric and metric not in s:  # whitespace of the sentence differs: no span, no metric
        metric = ""
    if metric and any(w.lower() in _NOT_METRIC for w in words):
        metric = ""  # "this will", "we can", "which can", "to replace …": a clause, no thing
    if level:
        trend = ""
    if metric and not said_trend and not _MEASURE_NOUN.search(metric):
        # "view version is 1.2x faster", "official 60.10%": no measured thing; a pair's short
        # label is what it measured ("convd2d : 27ms --> matmul <1ms")
        if not pair or len(words) > 3 or _GAP_ARROW.search(metric):
            metric = ""
    if not trend:  # "1.2x–1.4x faster": the first word after the figures
        after = [w for w in s[end : end + 30].split() if not any(c.isdigit() for c in w)]
        if after:
            trend = _trend_of(after[0])
    if not metric and not pair:
        # the thing named after the figure: "~52% reduction in scalar pipe cycles", "30% lower
        # latency" (real #9264)
        m = _METRIC_AFTER.match(s, end)
        if m is not None:
            named = []
            for w in m.group("m").split():
                if (
                    w.lower() in _METRIC_GLUE
                    or w.lower() in _METRIC_WHERE
                    or w.lower() in _NOT_METRIC
                ):
                    break
                named.append(w)
            if named and _trend_of(m.group("how")):
                metric = " ".join(named)
                trend = trend or _trend_of(m.group("how"))
    return metric, trend


_METRIC_AFTER = re.compile(
    r"(?i)\s*(?P<how>(?:reductions?|decreases?|drops?|savings?|improvements?|increases?|gains?"
    r"|speed-?ups?|boosts?)(?=\s+(?:in|of)\s)|fewer|less|lower|higher|smaller|shorter|faster)"
    r"(?:\s+(?:in|of))?\s+(?:the\s+)?(?P<m>[a-z][\w/-]*(?:[ ][a-z][\w/-]*){0,3})"
)


def _trend_of(word: str) -> str:
    w = word.lower().strip(".,;:!?()*")
    if (len(w) < 4 and w not in ("cut", "low")) or not w.isalpha():  # not "reduced-vocab"
        return ""
    if _TREND_REDUCED.match(w):
        return "reduced"
    if _TREND_IMPROVED.match(w) and w not in ("more", "most"):
        return "improved"
    return ""


def _cells(line: str) -> list[str]:
    parts = line.strip().split("|")
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return [squashed(plain(p)) for p in parts]


def _row_text(line: str) -> str:
    return squashed(plain(line))


def _strip_side(cell: str, rx: re.Pattern[str]) -> str:
    """A header cell without its baseline/this-change word, when what stays is a span of it
    ("Mean TTFT (ms) main" → "Mean TTFT (ms)")."""
    rest = rx.sub("", cell, count=1).strip(" -_/:")
    if _BASE_HDR.search(rest) or _NEW_HDR.search(rest):  # "Before this PR" is no metric
        return ""
    return rest if rest and rest in cell else ""


def _tables(raw: list[str]) -> Iterable[tuple[str, list[str]]]:
    """The tables of a section's lines outside code: (header line, data lines)."""
    in_code = False
    block: list[str] = []
    for line in [*raw, ""]:
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            block = []
            continue
        if not in_code and line.count("|") >= 2:
            block.append(line)
            continue
        if len(block) >= 3:
            for i in range(1, len(block) - 1):
                if _TABLE_SEP.match(block[i]):
                    yield block[i - 1], block[i + 1 :]
                    break
        block = []


def _first_cell(line: str) -> str:
    return line.strip().strip("|").split("|", 1)[0]


def _table_claims(raw: list[str]) -> list[Claim]:
    """Measured changes a results table states against a baseline, one claim per row told: a
    table with a baseline column and this change's ("| Seq length | Mean TTFT (ms) main | Mean
    TTFT (ms) this PR |"), or with a baseline row ("| main | 733.98 |") and this change's. The
    row is the claim's sentence, the header row says what its cells are."""
    out: list[Claim] = []
    for head_line, rows in _tables(raw):
        told: list[Claim] = []
        if _BASE_HDR.search(head_line) and _NEW_HDR.search(head_line):
            told = _column_claims(head_line, rows)
        if not told:
            base_line = next((ln for ln in rows if _BASE_HDR.search(_first_cell(ln))), None)
            if base_line is not None:
                told = _row_claims(head_line, rows, base_line)
        out.extend(told[:MAX_TABLE_ROWS])
    return out


def _column_claims(head_line: str, rows: list[str]) -> list[Claim]:
    """A baseline column and this change's: each row with a number in both is a claim."""
    head = _cells(head_line)
    b = next((j for j, c in enumerate(head) if _BASE_HDR.search(c)), -1)
    a = next(
        (
            j
            for j, c in enumerate(head)
            if j != b and not _BASE_HDR.search(c) and _NEW_HDR.search(c)
        ),
        -1,
    )
    if b < 1 or a < 1:  # (a first column names the rows: it compares nothing)
        return []
    header = _row_text(head_line)
    acc = _is_acc(header)
    side_b, side_a = _strip_side(head[b], _BASE_HDR), _strip_side(head[a], _NEW_HDR)
    shared = side_b if side_b and side_b == side_a else ""
    # a column that states the change itself ("speedup", "Δ"): its cell, as written
    d = next((j for j, c in enumerate(head) if j not in (a, b) and _DELTA_HDR.search(c)), -1)
    told: list[Claim] = []
    for line in rows:
        cells = _cells(line)
        if len(cells) <= max(a, b):
            continue
        before, after = cells[b], cells[a]
        if not (_NUM_CELL.match(before) and _NUM_CELL.match(after)) or before == after:
            continue
        label = cells[0] if cells[0] and not _NUM_CELL.match(cells[0]) else ""
        metric = shared
        if not metric and label and (_METRIC_LABEL.search(head[0]) or _TABLE_MEASURE.search(label)):
            metric = label
        if not _TABLE_MEASURE.search(f"{header} {label} {before}") and not _CELL_UNIT.search(
            before
        ):
            continue
        delta = cells[d] if 0 <= d < len(cells) and _DELTA_CELL.match(cells[d]) else ""
        told.append(
            Claim(
                kind="accuracy" if acc or _is_acc(label) else "performance",
                sentence=clip(_row_text(line)),
                figures=(before, after, delta) if delta else (before, after),
                metric=metric,
                before=before,
                after=after,
                header=clip(header),
            )
        )
        if len(told) >= MAX_TABLE_ROWS:
            break
    return told


def _row_claims(head_line: str, rows: list[str], base_line: str) -> list[Claim]:
    """A baseline row ("| main | 733.98 |") and rows of this change ("| this PR | 280.05 |"): a
    claim per such row, by the first column both state a measured number in."""
    head, base = _cells(head_line), _cells(base_line)
    header = _row_text(head_line)
    told: list[Claim] = []
    for line in rows:
        if line is base_line:
            continue
        first = _first_cell(line).strip()
        # this change's row: it says so ("With this PR", "after"), or it is the baseline and
        # more ("main+fusedop")
        extends = len(first) > len(base[0]) > 0 and first.startswith(base[0])
        if not extends and (not _NEW_HDR.search(first) or _BASE_HDR.search(first)):
            continue
        cells = _cells(line)
        for j in range(1, min(len(cells), len(base), len(head))):
            before, after = base[j], cells[j]
            if not (_NUM_CELL.match(before) and _NUM_CELL.match(after)):
                continue
            if before == after or not (
                _TABLE_MEASURE.search(f"{head[j]} {before}") or _CELL_UNIT.search(before)
            ):
                continue
            told.append(
                Claim(
                    kind="accuracy" if _is_acc(head[j]) else "performance",
                    sentence=clip(_row_text(line)),
                    figures=tuple(dict.fromkeys(c for c in cells[1:] if _NUM_CELL.match(c))),
                    metric=head[j] if head[j] in header else "",
                    before=before,
                    after=after,
                    header=clip(header),
                )
            )
            break
    return told


def _claims(
    sections: list[_Section], any_acc: bool, tables: bool = False, named: str = ""
) -> tuple[Claim, ...]:
    """The measured claims of a description, the one that matters first (`_ordered`; `named` is
    the title and what-sentence, whose measured thing heads)."""
    out: list[Claim] = []
    seen: set[str] = set()
    for sec in sections:
        for u in sec.units:
            raw = u.raw[0] if len(u.raw) == 1 else " ".join(u.raw)
            if not _FIG_GATE.search(raw) and not (any_acc and _DEC_GATE.search(raw)):
                continue
            t = u.text
            arrows = "->" in t or "→" in t or "=>" in t or "⟶" in t or " to " in t
            if not arrows and not _is_perf(t) and not _is_acc(t):
                continue
            if "  " in raw and _printed_only(u.raw, any_acc) and not _BASE_HDR.search(t):
                # its figures are a table a tool printed, no baseline beside them ("GPQA_diamond
                # b1ed2c     accuracy  gen     86.00", real #11195): output, no claim
                continue
            for s in sentences(t):
                acc = _is_acc(s)
                perf = acc or _is_perf(s)
                if not perf and not arrows:
                    continue
                if _LOG_LINE.search(s):
                    continue
                s = clip(s, clause=False)
                found = list(_FIGURE.finditer(s))
                figs = [m.group(0).strip() for m in found]
                if acc and not figs:
                    figs = [m.group(0).strip() for m in _DECIMAL.finditer(s)]
                if not figs or s in seen:
                    continue
                before, after, at = _pair(s, found) if found else ("", "", -1)
                if not perf and (not before or _SETTING_WORD.search(s)):
                    continue  # a pair of figures that sets something, or no pair at all
                seen.add(s)
                first = found[0] if found else None
                if at < 0 and first is not None:
                    at = first.start()
                end = next((m.end() for m in found if m.start() == at), at)
                metric, trend = _metric(s, at, end, bool(before)) if at >= 0 else ("", "")
                if metric and _SETTING_WORD.search(metric):
                    continue  # "reduce single-node job timeout from 600 to 120 minutes" sets it
                out.append(
                    Claim(
                        kind="accuracy" if acc else "performance",
                        sentence=s,
                        figures=tuple(dict.fromkeys(figs)),
                        metric=metric,
                        before=before,
                        after=after,
                        trend=trend,
                    )
                )
                if len(out) >= MAX_SEEN_CLAIMS:
                    break
            if len(out) >= MAX_SEEN_CLAIMS:
                break
        if len(out) >= MAX_SEEN_CLAIMS:
            break
    if tables:
        # a results table is what a change measured: it keeps a place beside the sentences
        rows = [c for sec in sections for c in _table_claims(sec.raw) if c.sentence not in seen]
        if rows:
            out = _ordered(out, named) if len(out) > 1 else out
            keep = max(0, min(len(out), MAX_CLAIMS - min(len(rows), 2)))
            out = out[:keep] + rows
    if len(out) > 1:
        out = _ordered(out, named)
    return tuple(out[:MAX_CLAIMS])


def _printed_only(lines: list[str], any_acc: bool) -> bool:
    """Whether every line of a unit that holds a figure is a row of a table a tool printed."""
    return all(
        _PRINTED_ROW.search(ln.strip()) is not None
        for ln in lines
        if _FIG_GATE.search(ln) or (any_acc and _DEC_GATE.search(ln))
    )


MAX_SEEN_CLAIMS = 12  # sentences read for claims before the ones that matter are picked
# the change of a figure: its sign, number and unit ("~50%", "603.63ms", "10,000 tps", "3.0x")
_FIG_VALUE = re.compile(r"([+\-−]?)(\d+(?:[.,]\d+)*)\s?([a-zA-Zµ%×/]*)")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
# a unit's scale to its base, and which base (a time's or a size's): "603.63ms" and "2.64 s" compare
_SCALE = {
    **dict.fromkeys(("ns",), (1e-9, "s")),
    **dict.fromkeys(("us", "µs"), (1e-6, "s")),
    **dict.fromkeys(("ms",), (1e-3, "s")),
    **dict.fromkeys(("s", "sec", "secs", "seconds"), (1.0, "s")),
    **dict.fromkeys(("min", "mins", "minutes"), (60.0, "s")),
    **dict.fromkeys(("h", "hour", "hours"), (3600.0, "s")),
    **{u: (1000.0**i, "B") for i, u in enumerate(("b", "kb", "mb", "gb", "tb"))},
    **{u: (1024.0**i, "B") for i, u in enumerate(("kib", "mib", "gib", "tib"), 1)},
}
SMALL_CHANGE = 0.02  # a change under it never heads a description's claims beside a larger one


def _value(fig: str) -> tuple[float, str] | None:
    """A figure's number and unit, the number scaled to the unit's base (ms → s), or None."""
    m = _FIG_VALUE.search(fig)
    if m is None:
        return None
    num = m.group(2)
    num = num.replace(",", "") if _THOUSANDS.match(num) else num.replace(",", ".")
    try:
        v = float(num)
    except ValueError:
        return None
    unit = m.group(3).lower()
    if unit in _SCALE:
        scale, unit = _SCALE[unit]
        v *= scale
    return (-v if m.group(1) else v), unit


def _change(c: Claim) -> float | None:
    """How much a claim says its metric changed, relative to where it was (0.5: by half); None
    for a level alone ("TTFT 330ms")."""
    if c.before and c.after:
        b, a = _value(c.before), _value(c.after)
        if b is None or a is None or (b[1] and a[1] and b[1] != a[1]):
            return None
        if b[0] == 0:
            return float("inf") if a[0] else 0.0
        return abs(a[0] - b[0]) / abs(b[0])
    if not c.trend:
        return None
    for f in c.figures:
        v = _value(f)
        if v is None:
            continue
        if f.rstrip().endswith(("%", "pp")):
            return abs(v[0]) / 100
        if f.rstrip()[-1:] in "x×" or f.rstrip().endswith("times"):
            return abs(v[0] - 1)
    return None


_GENERIC_METRIC_WORD = frozenset(
    "mean avg average total max min median overall time times rate per the and with of"
    " before after this pr main baseline".split()
)
_WORD = re.compile(r"[a-z][a-z0-9_]{2,}")


def _named_in(c: Claim, named: set[str]) -> bool:
    """Whether the title or what-sentence (`named`, its words in lower case) names the claim's
    metric: one of its words, not a generic one ("mean", "total", "time")."""
    return any(
        w in named and w not in _GENERIC_METRIC_WORD for w in _WORD.findall(c.metric.lower())
    )


def _ordered(claims: list[Claim], named: str) -> list[Claim]:
    """The claims, the one that matters first: a change of the metric the title or what-sentence
    names, else the largest relative change (one under `SMALL_CHANGE` never before a larger
    one, a change of a named metric before one of an unnamed); levels keep their order after
    the changes, a table's rows at most `MAX_TABLE_CLAIMS` of one table."""
    changes = [_change(c) for c in claims]
    largest = max((x for x in changes if x is not None), default=-1.0)
    words = set(_WORD.findall(named)) if largest >= 0 else set()

    def key(i: int) -> tuple[bool, bool, bool, bool, float, int]:
        x = changes[i]
        if x is None:
            return (True, True, True, True, 0.0, i)
        small = x < SMALL_CHANGE < largest
        return (small or not _named_in(claims[i], words), False, small, not claims[i].metric, -x, i)

    out: list[Claim] = []
    per_table: Counter[str] = Counter()
    for i in sorted(range(len(claims)), key=key):
        c = claims[i]
        if c.header:
            per_table[c.header] += 1
            if per_table[c.header] > MAX_TABLE_CLAIMS:
                continue
        out.append(c)
    return out


# what went wrong, when it is grave: a hang or deadlock, a crash, memory run out or leaking,
# wrong output — what an operator must hear of even on a day without issues (2026-07-17: "the two
# operators will be deadlocked … the system is suspended", "wait indefinitely")
SEVERE_PROBLEM = re.compile(
    r"\b(?:dead-?lock\w*|hang(?:s|ing)?|hung|stuck|wait\w* (?:indefinitely|forever)|freez(?:e|es|ing)"
    r"|crash\w*|segfault\w*|segmentation fault|core ?dump\w*|oom|out of memory|"
    + MEMORY_LEAK.pattern.removeprefix("(?i)")
    + r"|garbled|wrong (?:output|result|answer)s?|accuracy (?:drop|loss|regression|issue|problem|error)s?"
    r"|precision (?:issue|problem|error|loss)s?|nan values?)\b",
    re.I,
)
_SEVERE_GATE = re.compile(
    r"(?i)dead|hang|hung|stuck|indefinite|forever|freez|crash|segf|segmentation|core ?dump"
    r"|oom|out of memory|leak|garbled|wrong|accuracy|precision|nan"
)
# the same words, for `_severe_gate` on text that is ASCII (where lower() is what (?i) matches)
_SEVERE_WORDS = (
    "dead", "hang", "hung", "stuck", "indefinite", "forever", "freez", "crash", "segf",
    "segmentation", "core dump", "coredump", "oom", "out of memory", "leak", "garbled", "wrong",
    "accuracy", "precision", "nan",
)  # fmt: skip


def _severe_gate(text: str, low: str) -> bool:
    """Whether `text` (`low`: its lower()) may name a grave problem: `_SEVERE_GATE.search`,
    as substring tests when the text is ASCII (an alternation of 19 words under (?i) costs
    ~0.1 µs per character; the tests ~2 µs per description)."""
    if text.isascii():
        return any(w in low for w in _SEVERE_WORDS)
    return _SEVERE_GATE.search(text) is not None


def _symptom(sections: list[_Section]) -> str:
    """The first sentence outside the test sections that names a grave problem (not a log line)."""
    for sec in sections:
        if sec.kind in ("test", "uf"):
            continue
        for u in sec.units:
            t = u.text
            if not (_severe_gate(t, t.lower()) and SEVERE_PROBLEM.search(t)):
                continue
            for s in sentences(t):
                if SEVERE_PROBLEM.search(s) and not _LOG_LINE.search(s) and not _IN_TESTS.search(s):
                    return clip(s)
    return ""


# a grave problem of the tests, not of what users run: "to avoid crashes in config-only test
# cases" (real #10146), "Avoid oom during CI" (#4755), "CI jobs are stuck in pending" (#13584)
_IN_TESTS = re.compile(
    r"(?i)\b(?:test cases?|unit[- ]?tests?|uts?|test suites?|(?:during|in) (?:the )?ci|ci jobs?)\b"
)


# an error a user hits, in the description's words: an exception or assertion raised, "no
# attribute", something that fails to start or load, a failure of a named feature (real #4973
# "which will cause assert error in vllm KVOutputAggregator", #5165 "fix failure of
# `enable_force_load_balance`"); a day without issues tells fixes of them after the grave ones
USER_ERROR = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b"
    r"|(?i:\b(?:exceptions?|traceback|assert(?:ion)?\s*(?:error|fail\w*)|no attr(?:ibute)?"
    r"|(?:raise[sd]?|throw[sn]?|throws|cause[sd]?|causing|report(?:s|ed)?|hit(?:s|ting)?|get(?:s|ting)?)"
    r"\s+(?:an?\s+|the\s+|this\s+)?(?:[\w`'\".-]+\s+){0,2}?(?:errors?|exceptions?)"
    r"|fail(?:s|ed|ing)?\s+to\s+(?:start|load|launch|run|initiali[sz]e|import|serve|compile|build|work)"
    r"|failures?\s+(?:of|in|when|while)|(?:cannot|can't|can not|unable to)\s+(?:be\s+)?"
    r"(?:load|start|launch|run|initiali[sz]e|import|serve)\w*)\b)"
)
_ERROR_GATE = ("rror", "xception", "raceback", "ssert", "attr", "fail", "cannot", "can't",
               "can not", "unable")  # fmt: skip
# an error of the tooling, not one a user hits: CI, tests, lint, docs, typos, a log's wording
_TOOLING_ERROR = re.compile(
    r"(?i)\b(?:ci|uts?|unit ?tests?|e2e|tests?|test cases?|smoke|pytest|lint\w*|mypy|pre-commit|typos?"
    r"|docs?|documentation|spelling|error (?:logs?|messages?|msgs?|handling|codes?))\b"
)


def _error_gate(text: str) -> bool:
    """Whether `text` may name a `USER_ERROR`: every match holds one of `_ERROR_GATE` (tested on
    ASCII text, where lower() is what (?i) matches; other text is left to the expression)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(w in low for w in _ERROR_GATE)


def _error(sections: list[_Section]) -> str:
    """The first sentence outside the test sections that names an error a user hits (an
    exception, an assertion, something failing to start or load), not one of CI, tests or
    docs, nor a log line."""
    for sec in sections:
        if sec.kind in ("test", "uf"):
            continue
        for u in sec.units:
            t = u.text
            if not (_error_gate(t) and USER_ERROR.search(t)):
                continue
            for s in sentences(t):
                if (
                    len(s) >= 30  # not a heading over a pasted trace ("Error Traceback:")
                    and USER_ERROR.search(s)
                    and not _TOOLING_ERROR.search(s)
                    and not _LOG_LINE.search(s)
                ):
                    return clip(s)
    return ""


# ---------------------------------------------------------------- references

_GH = r"https?://(?:www\.)?github\.com/"
# a reference: a GitHub pull/issue/commit URL, `owner/name#N` or `#N`
_REF_TEXT = (
    _GH
    + r"(?P<repo>[\w.-]+/[\w.-]+)/(?:(?:pull|issues|pulls)/(?P<urln>\d+)|commit/(?P<sha>[0-9a-f]{7,40}))"
    r"|#(?P<num>\d+)\b"
)
_REF = re.compile(_REF_TEXT, re.I)
# a commit named by its hash alone ("This PR reverts commit 8134146…", "git revert 8835236…",
# "Reverted merge commit: `f6b33f4…`", "introduced by commit abc1234"): 7 to 40 lower-case hex
# digits with a digit and a letter among them (neither a number nor a word such as "decade"),
# the word "commit" and a backtick before it kept with it. Like a bare #N it is a reference only
# where the words before it say how (reverts, fix-up, backport, follow-up).
_HASH = (
    r"(?<![\w/.@#-])(?:commit\s*:?\s*)?`?"
    r"(?-i:(?P<hash>(?=[0-9a-f]{0,39}[0-9])(?=[0-9a-f]{0,39}[a-f])[0-9a-f]{7,40}))(?![\w-])"
)
_HASH_GATE = re.compile(
    r"(?<![\w/.@#-])(?=[0-9a-f]{0,39}[0-9])(?=[0-9a-f]{0,39}[a-f])[0-9a-f]{7,40}(?![\w-])"
)
_REF_OR_HASH = re.compile(_REF_TEXT + "|" + _HASH, re.I)
_OWNER_NAME = re.compile(
    r"(?<![\w./-])([A-Za-z0-9][\w.-]*/[\w.-]+)$"
)  # `owner/name` right before `#N`
_PR = r"(?:(?:the\s+)?(?:merge\s+)?(?:pr|pull request|change|commit)\s*:?\s*)?"
# what precedes a reference and says how it is referred to (searched in the ~100 characters
# before each reference: a few references a body, instead of a scan of the whole body)
_CONTEXT = re.compile(
    "".join(
        (
            r"\b(?:(?P<fix_up>(?:fix(?:es|ed|ing)?|hot-?fix(?:es|ed)?|repair(?:s|ed)?|address(?:es|ed)?)",
            r"\s+(?:(?:the|a|an|some|two|several)\s+)?(?:[\w-]+\s+){0,3}?",
            r"(?:bugs?|regressions?|issues?|problems?|errors?|breakages?|failures?|crash(?:es)?)\s+",
            r"(?:(?:which|that)\s+(?:was|were|is|are)\s+)?(?:introduced|caused|brought|added)\s+(?:by|in|from|with)\s+",
            _PR,
            r"|fix[- ]?ups?\s+(?:of|for|to|on)\s+",
            _PR,
            r"|hot-?fix\s+(?:of|for|to|on)\s+",
            _PR,
            r"|(?:regression|bug|issue|breakage)s?\s+(?:was\s+|were\s+)?(?:introduced|caused)\s+(?:by|in)\s+",
            _PR,
            r"|regressions?\s+(?:(?:observed|seen|found)\s+)?(?:after|since)\s+",
            _PR,
            # "Fixes <a CI run>, caused by <the PR>" (real #9869): what broke is named by a link
            r"|(?:caused|broken|regressed)\s+by\s+",
            _PR,
            # "**Root cause**: `d7bca903` introduced …" (real #10241): what this change repairs
            r"|root[\s-]+causes?(?:\*\*|__)?\s*(?:[:：]|is|was)\s*(?:\*\*|__)?\s*(?:(?:in|by)\s+)?",
            _PR,
            # "Recover … test case that been incorrectly skipped in PR: <link>" (real #7505)
            r"|(?:incorrectly|wrongly|mistakenly|accidentally)\s+(?:[\w-]+\s+){1,2}(?:in|by)\s+",
            _PR,
            ")",
            r"|(?P<follow_up>(?:follow[- ]?ups?\s*(?:pr\s*)?(?:(?:of|to|for|on)\s+)?",
            # "In addition to #4168, #5011, this PR adds two more patterns" (real #5077)
            r"|in\s+addition\s+to\s+|on\s+top\s+of\s+|builds?\s+(?:up)?on\s+",
            r"|continu(?:es|ing|ation\s+of)\s+)",
            _PR,
            r":?\s*)",
            r"|(?P<reverts>revert(?:s|ed|ing)?\s+(?:of\s+)?",
            _PR,
            ")",
            r"|(?P<backport>back-?port(?:s|ed|ing)?\s*(?:of\s+|from\s+)?",
            _PR,
            r"|cherry[- ]?pick(?:s|ed|ing)?\s*(?:of\s+|from\s+)?",
            _PR,
            r"|(?:forward[- ])?ports?\s+",
            _PR,
            ")",
            r"|(?P<fixes>(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s*)",
            r")\(?$",
        )
    ),
    re.I,
)
_CONTEXT_WORDS = (
    "fix",
    "follow",
    "addition",
    "top of",
    "build",
    "continu",
    "revert",
    "port",
    "pick",
    "close",
    "resolve",
    "regression",
    "bug",
    "issue",
    "breakage",
    "repair",
    "address",
    "caused",
    "root",
    "broken",
    "regressed",
    "incorrectly",
    "wrongly",
    "mistakenly",
    "accidentally",
)
# what follows "reverting #N" when it reports an experiment ("... restores BF16 accuracy")
_TRIED = re.compile(
    r"\s+(?:restores|fixes|recovers|resolves|solves|avoids|brings back|makes|helps|removes)\b",
    re.I,
)
_MD_LINK_OPEN = re.compile(r"\[(?:[^\[\]\n]{0,80}\]\()?$")  # "[" or "[#4168](" before a link
_LIST_SEP = re.compile(r"\s*(?:,|&|and|,\s*and|/)\s*$", re.I)
_PORT_TO = re.compile(r"\s+(?:to|into|onto)\b", re.I)
_REVERT_TITLE = re.compile(
    r"""^\s*(?:\[[^\]]*\]\s*)*(?:[\w-]+(?:\([^)]*\))?!?:\s*)?revert(?:s|ed)?\b[\s:]*(?P<rest>.*)$"""
    r"""|^\s*(?:\[[^\]]*\]\s*)*?\[revert\]\s*(?:\[[^\]]*\]\s*)*(?P<quoted>["“].*)$""",
    re.I,
)
_QUOTED = re.compile(r"""^["“'](?P<inner>.*)["”'](?P<after>.*)$""")
_TRAIL_NUM = re.compile(r"\s*\(\s*#(\d+)\s*\)\s*$")
_ANY_NUM = re.compile(r"\(\s*#(\d+)\s*\)")
_BARE_REVERT = re.compile(r"(?:pr\s*)?#(\d+)", re.I)
_REVERTS_SHA = re.compile(r"\bThis reverts commit ([0-9a-f]{7,40})\b", re.I)
_REF_GATE = re.compile(r"#\d|github\.com/|revert", re.I)
UPSTREAM = "vllm-project/vllm"
_KINDS = ("fix_up", "follow_up", "reverts", "backport", "fixes")


def _same_commit(a: str, b: str) -> bool:
    """Whether two hashes name one commit (one is the other's prefix, as a short hash is)."""
    return a.startswith(b) or b.startswith(a)


def _link_end(src: str, at: int) -> int:
    """Where a reference ends: after the ")" of a Markdown link `[text](url)` whose url ends at
    `at`, else `at`."""
    return at + 1 if src[at : at + 1] == ")" else at


def _revert_of_title(title: str) -> tuple[str | None, int | None] | None:
    """(reverted title, its number) of a `[Tag] Revert "<title> (#N)"` title, else None."""
    t = _REVERT_TITLE.match(title)
    if not t:
        return None
    rest = (t.group("rest") if t.group("rest") is not None else t.group("quoted")).strip()
    if UNSKIP.match(rest):
        return None  # "Revert temporary skip on mtp1/mtp2 correctness tests": tests back on
    q = _QUOTED.match(rest)
    n = None
    if q:
        inner = q.group("inner")
        tn = _TRAIL_NUM.search(inner) or _TRAIL_NUM.search(q.group("after"))
        if tn:
            n = int(tn.group(1))
            if tn.string is inner:
                inner = inner[: tn.start()]
    else:
        inner = rest.lstrip("\"“'")  # a title cut short ("…") loses its closing quote
        tn = _ANY_NUM.search(inner)
        if tn:
            n = int(tn.group(1))
            inner = inner[: tn.start()]
    inner = inner.strip().rstrip("…").strip()
    bare = _BARE_REVERT.fullmatch(inner)
    if bare:
        return None, int(bare.group(1))
    if not inner and n is None:
        return None
    return inner or None, n


# what a "Revert …" title undoes when it turns tests back on: a skip, a disable, an xfail (real
# #5039 "[Fix]Revert temporary skip on mtp1/mtp2 correctness tests"): coverage restored, no code
# undone — no revert of a change
UNSKIP = re.compile(
    r"(?i)(?:the\s+|a\s+)?(?:temporar\w*\s+)?(?:skip\w*|disabl\w*|xfail\w*|mark\.skip\w*)\b"
)

_UNDO_TITLE = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*:?\s*)*(?:restore|roll\s*back|rollback|undo|back\s*out)\b", re.I
)
# a description that calls the change itself a revert ("The revert showed a clear accuracy
# improvement", "this reverts the mask change"), not one that reports an experiment ("reverting
# #13268 restores BF16 accuracy": real #13412 fixes #13268's regression, it reverts nothing)
_SELF_REVERT = re.compile(
    r"\b(?:the|this|a)\s+revert\b|\brevert(?:s|ed)\s+(?:#\d+|the|that|this|pr|commit|change)\b",
    re.I,
)
_INTRODUCED = re.compile(
    r"\b(?:introduced|added|brought in|caused)\s+(?:by|in)\s+(?:pr\s*)?$", re.I
)
_REGRESSED = re.compile(
    r"[^.]{0,80}?\b(?:caus(?:es|ed|ing)|introduc(?:es|ed)|leads? to|led to|results? in"
    r"|breaks?|broke)\b[^.]{0,60}?\b(?:regressions?|bugs?|breakages?|failures?|crash(?:es)?"
    r"|errors?|hangs?|degradation|drops?)\b",
    re.I,
)
# "After PR [non-sp-padding](<link>), kimi2.5 with flashcomm1 will raise an error" (real #7614):
# a change that broke something, named as what came before the breakage
_AFTER_PR = re.compile(
    r"\b(?:after|since)\s+(?:the\s+)?(?:pr|pull request|commit|change)\s*:?\s*(?:\[[^\]]*\]\()?$",
    re.I,
)
_BROKE_AFTER = re.compile(
    r"(?:[^.]|\.(?=\w)){0,160}?\b(?:raises?|raised|throws?|errors?|fails?|failed|failures?|crash(?:es|ed)?"
    r"|breaks?|broke|broken|regress(?:es|ed|ions?)?|hangs?|wrong|incorrect|nan)\b",
    re.I,
)
_TOLD = ("reverts", "fix_up")


# "Revert PR 5253 to fix the smoking problem" says why; "Revert #12" alone does not
_REVERT_BECAUSE = re.compile(
    r"(?i)\b(?:to fix|to avoid|because|as it|as this|since|due to|which|that)\b"
)
# how it was tested is no reason: "It was tested in the failure case."
_TEST_NOTE = re.compile(r"(?i)[-*>\s]*(?:it\s+(?:was|is|has been)\s+|was\s+|been\s+)?tested\b")


def _why_line(text: str) -> str:
    """The first sentence of a revert's description that says why (for a revert named by its
    title): "break CI", "It breaks the test", "The new version … lead to the image build failure"."""
    pos = 0
    for line in text.split("\n"):
        t = line.strip()
        m = REASON_WORDS.search(line)
        if (
            m
            and not _REVERTS_SHA.search(t)
            and not t.startswith(("#", "|"))
            and not (re.match(r"(?i)[-*>\s]*revert\b", t) and not _REVERT_BECAUSE.search(t))
            and not _TEST_NOTE.match(t)
        ):
            found = _context(text, pos + m.start(), pos + m.end())
            # up to a pointer ("… failure. see <url>") or inline HTML (an <img> pasted after it)
            found = re.split(
                r"(?i)(?<=[.!?])\s+(?=(?:see|refer to|cf)\b|https?://)|\s*<[a-z/!]",
                found,
                maxsplit=1,
            )[0]
            found = re.sub(r"[:：]\s*$", "", found).strip()
            if "](" in found or found.count("[") != found.count("]") or not is_span(found, text):
                return ""  # (a Markdown link cut in two is no span of the body)
            return found

        pos += len(line) + 1
    return ""


def _context(text: str, start: int, end: int) -> str:
    """The sentence of `text` (one line of prose) around [start, end), cut to CONTEXT_MAX."""
    # descriptions wrap their sentences over lines: the lines of its paragraph around it, up to
    # a heading, list item or line that ends a sentence
    lines = text.split("\n")
    offsets, pos = [], 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    i = max(k for k, o in enumerate(offsets) if o <= start)
    first = last = i
    while (
        first > 0
        and i - first < 5
        and not _STRUCTURAL.match(lines[first])
        and not _ENDS.search(lines[first - 1])
        and not _STRUCTURAL.match(lines[first - 1])
    ):
        first -= 1
    while (
        last + 1 < len(lines)
        and last - i < 5
        and not _ENDS.search(lines[last])
        and not _STRUCTURAL.match(lines[last + 1])
    ):
        last += 1
    line_start = offsets[first]
    line = " ".join(lines[first : last + 1])
    at, begin = start - line_start, 0
    for stop in _sentence_ends(line):
        if stop > at:
            sentence = line[begin:stop].strip()
            break
        begin = stop
    else:
        sentence = line.strip()
    sentence = re.sub(r"^\s*(?:\d+[.)]|[-*•])\s+", "", sentence)  # a list's marker
    # a link at the end says where, not why, and leaves its preposition ("which broke CI in <url>")
    sentence = re.sub(r"(?:\s+<?https?://\S+>?)+\s*$", "", sentence)
    sentence = re.sub(r"(?i)[\s,]+(?:in|at|by|on|from|see|of|to|here)\s*:?$", "", sentence)
    if len(sentence) > CONTEXT_MAX:
        sentence = _word_cut(sentence, CONTEXT_MAX).rstrip(" ,;:") + "…"
    return sentence


CONTEXT_MAX = 240
_STRUCTURAL = re.compile(r"\s*(?:#|[-*+>|]\s|\d{1,3}[.)]\s|```|~~~|-{3,}|\*{3,}|_{3,}|$)")
_ENDS = re.compile(r"[.!?。！？:：]\s*$")


def _refs(title: str, text: str, repo: str | None, number: int | None) -> tuple[Reference, ...]:
    refs: dict[tuple, Reference] = {}
    own = repo.lower() if repo else None

    def add(
        kind: str,
        n: int | None,
        other: str | None = None,
        sha: str | None = None,
        title_: str | None = None,
        context: str = "",
    ) -> None:
        if n is not None and other is None and n == number:
            return
        key = (kind, other, n, sha)
        if sha is None and n is not None and any(k[:3] == key[:3] for k in refs):
            return  # (the same change again: "This reverts commit …" and "revert [the pr](…)")
        same = next((k for k in refs if k[3] and sha and _same_commit(k[3], sha)), None)
        if same is not None:
            # the same commit again, by its address, its hash, a shorter hash: one reference,
            # with the full hash and the sentence that says how
            had = refs[same]
            longer = sha if len(sha or "") > len(had.sha or "") else had.sha
            refs[same] = had.model_copy(update={"sha": longer, "context": had.context or context})
            return
        if key not in refs:
            refs[key] = Reference(
                kind=kind, number=n, repo=other, sha=sha, title=title_, context=context
            )

    reverted = _revert_of_title(title) if title else None
    if reverted is not None:
        add("reverts", reverted[1], title_=reverted[0], context=_why_line(text))
    shas = _REVERTS_SHA.findall(text) if "everts commit" in text else []
    if shas:
        open_ = [k for k, r in refs.items() if r.kind == "reverts" and r.sha is None]
        if open_ and len(shas) == 1:
            old = refs.pop(open_[0])
            sha = shas[0].lower()
            refs[("reverts", old.repo, old.number, sha)] = old.model_copy(update={"sha": sha})
        else:
            for s in shas:
                add("reverts", None, sha=s.lower())

    for src in (title, text):
        if not src:
            continue
        hashes = _HASH_GATE.search(src) is not None
        if not hashes and "#" not in src and "github.com/" not in src and "GitHub.com/" not in src:
            continue
        last_kind, last_end = None, -1
        for m in (_REF_OR_HASH if hashes else _REF).finditer(src):
            g = m.group
            hashed = hashes and g("hash") is not None
            if hashed:
                other, n, sha = None, None, g("hash").lower()
            elif g("urln") or g("sha"):
                other = g("repo").removesuffix(".git")
                n = int(g("urln")) if g("urln") else None
                sha = g("sha").lower() if g("sha") else None
            else:
                other, n, sha = None, int(g("num")), None
                if src[m.start() - 1 : m.start()] == "[" and src.startswith("](", m.end()):
                    continue  # "[#7](address)": the address says which repository's #7
                before = src[m.start() - 1] if m.start() else " "
                if before.isalnum() or before in "_.-/":
                    o = _OWNER_NAME.search(src, max(0, m.start() - 100), m.start())
                    if o is None:
                        continue  # `abc#1`: no reference
                    other = o.group(1)
            start = m.start() - (len(other) if other is not None and not hashed and g("num") else 0)
            # a hash's "commit" and backtick are read with the words before it ("reverted merge
            # commit:", "after commit:"); a list of references is joined up to them ("reverts
            # #9865 / commit `9099b7f…`", real #11562)
            joined_at = start
            if hashed:
                start = m.start("hash") - (src[m.start("hash") - 1 : m.start("hash")] == "`")
            # an address into the item's own repository is local (`other` None) and, unlike a
            # bare #N, kept as `related` when nothing says how (the summarizer ties changes by it)
            own_address = (
                not hashed and g("urln") is not None and other is not None and other.lower() == own
            )
            if other is not None and own is not None and other.lower() == own:
                other = None
            # (a Markdown link's "[" or "[#N](" before its number or address says nothing)
            window = _MD_LINK_OPEN.sub("", src[max(0, start - 100) : start])
            low = window.lower()
            c = _CONTEXT.search(window) if any(w in low for w in _CONTEXT_WORDS) else None
            kind = next(k for k in _KINDS if c.group(k)) if c else None
            if (
                kind is None
                and last_kind in _KINDS
                and _LIST_SEP.fullmatch(
                    _MD_LINK_OPEN.sub("", src[_link_end(src, last_end) : joined_at])
                )
            ):
                kind = last_kind
            if kind == "reverts" and c and _TRIED.match(src, m.end()) and "ing" in c.group(0):
                # "reverting #13268 restores BF16 accuracy": what was tried, not what this does
                kind = None
            if (
                kind == "backport"
                and c
                and c.group("backport").lower().lstrip().startswith(("port", "forward"))
            ):
                if not _PORT_TO.match(src, m.end()):
                    kind = None
            if (
                kind is None
                and other is None
                and _INTRODUCED.search(window)
                and _REGRESSED.match(src, m.end(), min(len(src), m.end() + 160))
            ):
                # "the optimization introduced by #11266 causes an accuracy regression": this
                # change answers a regression of that one
                kind = "fix_up"
            if (
                kind is None
                and other is None
                and _AFTER_PR.search(window)
                and _BROKE_AFTER.match(src, _link_end(src, m.end()), min(len(src), m.end() + 200))
            ):
                kind = "fix_up"
            if kind == "fixes" and hashed:
                kind = "fix_up"  # ("fixes abc1234": a commit is repaired, not an issue closed)
            if kind is None:
                last_kind, last_end = None, m.end()
                if other is None and not own_address:
                    continue  # a bare #N or hash: mentioned, not said how
                kind = "upstream" if other is not None and other.lower() == UPSTREAM else "related"
            last_kind, last_end = kind, m.end()
            if other is not None and other.lower() == UPSTREAM and kind in ("fix_up", "follow_up"):
                kind = "upstream"  # adapting to an upstream change is a sync, whatever the wording
            add(
                kind,
                n,
                other,
                sha,
                # ("This reverts commit <hash>." is git's own line, never the reason: a revert's
                # reason is told by its title's reference or its what, as before hashes were read)
                context=_context(src, start, m.end())
                if src is text and kind in _TOLD and not (hashed and kind == "reverts")
                else "",
            )
    # "Restore FIA decode mask handling" whose body says the change #11266 made caused a
    # regression and "the revert showed a clear accuracy improvement": a revert of that change
    # under another title (2026-W30)
    if (
        title
        and not any(r.kind == "reverts" for r in refs.values())
        and _UNDO_TITLE.match(title)
        and _SELF_REVERT.search(text)
    ):
        undone = [
            k
            for k, r in refs.items()
            if r.kind in ("fix_up", "related") and r.repo is None and r.number is not None
        ]
        if len(undone) == 1:
            r = refs.pop(undone[0])
            add("reverts", r.number, context=r.context or _why_line(text))
    # a revert named by its title or number and, in the body, by its commit's hash ("This PR
    # reverts commit 8134146…" under 'Revert "… (#6241)"', real #6497): one reference, with both
    by_number = [k for k, r in refs.items() if r.kind == "reverts" and r.sha is None]
    by_hash = [
        k
        for k, r in refs.items()
        if r.kind == "reverts" and r.sha and r.number is None and r.title is None
    ]
    if len(by_number) == 1 and len(by_hash) == 1:
        old, hashed_ref = refs.pop(by_number[0]), refs.pop(by_hash[0])
        refs[("reverts", old.repo, old.number, hashed_ref.sha)] = old.model_copy(
            update={"sha": hashed_ref.sha, "context": old.context or hashed_ref.context}
        )
    # an own change linked as related and named again by how it is referred to: one reference
    told = {(r.repo, r.number) for r in refs.values() if r.kind != "related"}
    for k in [k for k, r in refs.items() if r.kind == "related" and (r.repo, r.number) in told]:
        del refs[k]
    # a sentence that only says where the change comes from ("The PR is the cherry-pick from
    # v0.9.1 <link>", "It comes from 0.9.1dev [title] (#1547)", "This PR ports #2312 #2506 #2531
    # to main branch."; real #2124, #2088, #2532): its own changes are what it backports
    if text and ("port" in text or "pick" in text or "from" in text or "same" in text):
        for said in _provenance_sentences(text):
            for m in _REF.finditer(said):
                other = m.group("repo").removesuffix(".git") if m.group("urln") else None
                n = int(m.group("urln") or m.group("num") or 0)
                if (
                    not n
                    or "/issues/" in m.group(0)  # (an issue is where it comes from, no change)
                    or (other is not None and (own is None or other.lower() != own))
                ):
                    continue
                for k in [k for k, r in refs.items() if r.number == n and r.repo is None]:
                    if refs[k].kind == "related":
                        del refs[k]
                # the sentence says which branch or release it comes from (a release's line of
                # work reads it: "It comes from 0.9.1dev …", real #2088)
                context = re.sub(r"(?:\s+[-=_*]{3,})+$", "", said)  # (a rule after it)
                if len(context) > CONTEXT_MAX:
                    context = _word_cut(context, CONTEXT_MAX).rstrip(" ,;:") + "…"
                add("backport", n, context=context)
    # a revert named by its title only, and by "reverts #N" in the body: one reference
    reverts = [k for k, r in refs.items() if r.kind == "reverts"]
    if len(reverts) == 2:
        a, b = (refs[k] for k in reverts)
        if a.title and a.number is None and a.sha is None and b.title is None:
            del refs[reverts[0]]
            refs[reverts[1]] = b.model_copy(update={"title": a.title})
    return tuple(refs.values())


# ---------------------------------------------------------------- the digest


def _settings_seen(sections: list[_Section], user_facing: str) -> str:
    """What `interface_of` is told of users: the user-facing answer, but "unknown" for "No
    breaking user-facing changes. A new configuration option enable_reduce_sample is added …"
    (real #8308): no break, yet a setting users may use — the answer is read as a what."""
    if user_facing == "no" and any(
        s.kind == "uf" and any(_NO_BREAK.match(u.text) for u in s.units[:1]) for s in sections
    ):
        return "unknown"
    return user_facing


def setting_type_changes(title: str, body: str) -> list[tuple[str, str]]:
    """The settings whose new type a description tells, as (name, sentence), as `digest_of`
    reads them (its `interface` tells them as kind "type" where the fact model has the kind,
    `said.TYPE_CHANGES`)."""
    digest = digest_of(title, body)
    body = _clean_body(body)
    if digest is None or not body.strip():
        return []
    sections, _template, _prose = _sections(body)
    found: list[tuple[str, str]] = []
    seen = _settings_seen(sections, digest.user_facing)
    interface_of(title, sections, seen, sentences, clip, type_changes=found)
    return found


# the harm a change did, that its revert undoes: breakage, failure, errors, wrong output, a
# crash, hang or running out of memory, memory overwritten, slowness
_HARM = re.compile(
    r"(?i)\b(?:break|breaks|broke|broken|fail\w*|errors?|accuracy|regress\w*|crash\w*|oom"
    r"|out of memory|hangs?|hanging|hung|deadlock\w*|overwrit\w*|corrupt\w*|wrong|incorrect"
    r"|leak\w*|timeouts?|slow\w*|degrad\w*|(?:compatibility|precision|performance)\s+"
    r"(?:issues?|problems?))\b"
)
# a what that speaks of the change reverted: the revert, a number or "PR4214"
_OF_REVERTED = re.compile(r"(?i)\brevert|\b(?:pr|pull request)\s*#?\d|#\d")


def _harm_of(sections: list[_Section], what: str) -> str:
    """For a revert whose what says only what the reverted change meant to do ("PR #10077
    introduced new functionality for MooncakeLayerwiseConnector."), the first sentence of its
    description that names the harm it did (`_HARM`): joined on to the what when it follows it
    within one span, else alone, cut to its clause of the harm when too long; "" for none."""
    head = what.removesuffix(ELLIPSIS)
    for sec in sections:
        if sec.kind not in ("what", "", "other"):
            continue
        for u in sec.units:
            if u.kind not in ("p", "li"):
                continue
            text = u.text
            start = 0
            for end in _sentence_ends(text):
                sent = text[start:end].strip()
                start = end
                m = _HARM.search(sent)
                if (
                    m is None
                    or _REVERTS_SHA.search(sent)
                    or _TEST_NOTE.match(sent)
                    or len(sent.split()) < 2
                    or _only_asides(sent)
                ):
                    continue
                at = text.find(head)
                if at >= 0 and not what.endswith(ELLIPSIS):
                    both = text[at:end].strip()
                    if both.endswith(sent) and len(both) <= MAX_TEXT:
                        return both.rstrip(" :：")
                if len(sent) <= MAX_TEXT:
                    return sent.rstrip(" :：")
                return _harm_clause(sent, m.start(), m.end())
    return ""


def _harm_clause(sent: str, start: int, end: int) -> str:
    """The clause of `sent` around its harm word (between commas or semicolons), clipped."""
    left = max(sent.rfind(c, 0, start) for c in ",;，；")
    right = [i for i in (sent.find(c, end) for c in ",;，；") if i >= 0]
    clause = sent[left + 1 : min(right) if right else len(sent)].strip()
    return clip(clause if len(clause.split()) >= 3 else sent[left + 1 :].strip())


def _clean_body(body: str | None) -> str:
    """A description as the digest reads it: Unix line ends, escaped line breaks undone, no HTML
    comments."""
    body = (body or "").replace("\r\n", "\n")
    if "\\n\\n" in body or ("\\n" in body and body.count("\\n") > body.count("\n")):
        # a description whose line breaks were escaped on the way ("…mode.\\n\\nThe decode …",
        # real #12605): its lines, as written
        body = body.replace("\\r\\n", "\n").replace("\\n", "\n")
    if "<!--" in body:
        body = _COMMENT.sub("", body)
    return body


_EMPTY = Digest()


def digest_of(
    title: str,
    body: str,
    kind: str = "pull_request",
    *,
    repo: str | None = None,
    number: int | None = None,
) -> Digest | None:
    """What `body` (a pull request's or issue's description) says of the change: what and why,
    user-facing or not, how tested, claims with numbers, references; `repo`/`number`, when given,
    are the item's own (a link into `repo` is local; the item's own number is never a reference).
    An empty body still gives the references of the title (a `Revert "..."`); the result is
    always a Digest (fields empty where the description says nothing), `| None` being the type
    of `Tags.digest`."""
    title = title or ""
    body = _clean_body(body)
    if not body.strip():
        title_refs = (
            _refs(title or "", "", repo, number) if title and _REF_GATE.search(title) else ()
        )
        return Digest(refs=title_refs) if title_refs else _EMPTY
    sections, template, prose = _sections(body)
    what_secs = [s for s in sections if s.kind == "what"]
    what = ""
    for s in what_secs:
        what = _what_of(s.units, title)
        if what:
            break
    if not what or _only_asides(what):
        # (a template section that only says where the change comes from — "Extracted from PR
        # #5513", real #5702 — gives way to the section after it that says what it does)
        for s in sections:
            if s.kind in ("", "other"):
                said = _what_of(s.units, title)
                if said and not _only_pointers(said):
                    what = said
                    break
    pointed = bool(what) and _says_nothing(what)
    if pointed:
        # only a reference or where the change comes from, no sentence after it: no what (the
        # references tell it), though the description is no bare template
        what = ""
    what_told_as_answer = False
    if not what and what_secs and not any(u.text.strip() for s in what_secs for u in s.units):
        # the template's what left empty and the change told under the next heading ("### Does
        # this PR introduce _any_ user-facing change? Fix vllm break: 1. … Fix Solution: Add
        # …", real #5223): an answer that is no yes/no is the what — never the headings
        for s in sections:
            first = next((u.text.strip() for u in s.units if u.text.strip()), "")
            if s.kind == "uf" and first and not _YES.match(first) and not _NO.search(first):
                what = _what_of(s.units, title)
                what_told_as_answer = not _TALKS_USERS.search(sentences(first)[0])
                break
    user_facing, uf_text = "unknown", ""
    tested: tuple[str, ...] = ()
    tested_text = ""
    if kind != "issue":
        for s in sections:
            if s.kind == "uf":
                user_facing, uf_text = _user_facing(s.units)
                if user_facing == "yes" and what_told_as_answer:
                    # the answer is the change's own description, no word of users: not a yes
                    user_facing, uf_text = "unknown", ""
                if user_facing != "unknown":
                    break
        if user_facing == "unknown" and (said := _said_impact(sections)):
            user_facing, uf_text = "yes", said
        tsecs = [s for s in sections if s.kind == "test"]
        if tsecs:
            tested, tested_text = _tested(tsecs)
    low = body.lower()
    any_acc = any(w in low for w in _ACC_GATE) and _is_acc(low)
    tables = "|" in body and _TABLE_GATE.search(body) is not None
    claims = (
        _claims(sections, any_acc, tables, f"{title} {what}".lower())
        if any_acc or tables or _FIG_GATE.search(body)
        else ()
    )
    refs: tuple[Reference, ...] = ()
    if (
        "#" in body
        or "github.com/" in body
        or "evert" in body
        or "#" in title
        or "evert" in title
        or _HASH_GATE.search(body)
    ):
        refs = _refs(title, "\n".join(prose), repo, number)
    if (
        what
        and "evert" in title
        and not _HARM.search(what)
        and _REVERT_TITLE.match(title)
        and any(r.kind == "reverts" for r in refs)
        and _OF_REVERTED.search(what)
    ):
        # a revert's what that speaks of the reverted change tells the harm it did, not only
        # what it meant to do (a what that is the reverted change's own description, pasted
        # under its quoted title, is left as it is: its harm words are of another problem)
        what = _harm_of(sections, what) or what
    template_only = (
        template
        and not pointed
        and not what
        and user_facing == "unknown"
        and not tested
        and not claims
    )
    symptom = _symptom(sections) if _severe_gate(body, low) else ""
    error = _error(sections) if any(w in low for w in _ERROR_GATE) else ""
    interface = interface_of(
        title, sections, _settings_seen(sections, user_facing), sentences, clip
    )
    next_steps = next_steps_of(sections, sentences, clip) if kind != "issue" else ()
    default_change = (
        default_change_of(sections, user_facing, sentences, clip)
        if kind != "issue" and "default" in low
        else ""
    )
    told = user_facing
    if user_facing == "no" and _adds_support(title, what):
        # a template's "No" to a change that adds support for a model, a hardware or a scheme
        # ("[Feature] Adapt GLM-5.2" answers "No", real #11264): users meet it — not told "no
        # user-facing change"; unknown (what the answer says is still read as the author's, above)
        told = "unknown"
    return Digest(
        what=what,
        user_facing=told,
        user_facing_text=uf_text,
        tested=tested,
        tested_text=tested_text,
        claims=claims,
        refs=refs,
        template_only=template_only,
        symptom=symptom,
        error=error,
        interface=interface,
        next_steps=next_steps,
        default_change=default_change,
    )
