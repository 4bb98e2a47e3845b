"""Formatting of figures, instants and windows for report text (pure, locale-light)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from shared.events import WindowRef


def num(n: int | float | None) -> str:
    """An exact count with thousands separators (1,234). An unknown count (None) is the caller's
    to show (as the lead and the totals do): here it is an error."""
    if n is None:
        raise ValueError("num(None): an unknown count has no figure")
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.1f}"
    return f"{int(n):,}"


def one_decimal(x: float) -> str:
    return f"{x:.1f}"


def signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else (f"-{abs(n):,}" if n < 0 else "0")


def local(instant: datetime, tz: str) -> datetime:
    return instant.astimezone(ZoneInfo(tz))


def stamp(instant: datetime, tz: str) -> str:
    return local(instant, tz).strftime("%Y-%m-%d %H:%M")


def day(instant: datetime, tz: str) -> str:
    return local(instant, tz).strftime("%Y-%m-%d")


def utc_offset(instant: datetime, tz: str) -> str:
    """`UTC+8`, `UTC-3:30`, `UTC` for a zone at an instant."""
    offset = local(instant, tz).utcoffset() or timedelta()
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    h, m = divmod(abs(minutes), 60)
    return f"UTC{sign}{h}" + (f":{m:02d}" if m else "")


def window_span(window: WindowRef) -> tuple[str, str]:
    """Start and (inclusive-looking) end of a window as people read it, in the window's zone.

    Windows that start and end at local midnight show dates (the last day is end - 1 day, as in
    "2026-06-08 to 2026-06-14"); windows with a cut-off show both instants.
    """
    start, end = local(window.start, window.tz), local(window.end, window.tz)
    if start.time() == end.time() == datetime.min.time():
        return start.strftime("%Y-%m-%d"), (end - timedelta(days=1)).strftime("%Y-%m-%d")
    return start.strftime("%Y-%m-%d %H:%M"), end.strftime("%Y-%m-%d %H:%M")


def days_text(days: float) -> str:
    return f"{days:.1f}" if days < 10 else f"{days:.0f}"


_HTML_COMMENT = re.compile(r"<!--.*?(-->|$)", re.S)
_MD_BLOCK = re.compile(r"(^|\s)(#{1,6}|[-*>]|\d+\.)\s+|!\[[^\]]*\]\([^)]*\)")
_MD_INLINE = re.compile(r"`{1,3}|\*\*|__")
# a PR template's test sections say how, not what: the excerpt stops before them
_TEST_SECTIONS = re.compile(r"(^|\n)\s*#{1,6}\s*test (plan|result)s?\b.*", re.I | re.S)
_BOILERPLATE = re.compile(
    r"\b(purpose|test plan|test result|essential elements of an effective pr "
    r"description checklist)\b:?",
    re.I,
)


def excerpt(text: str, limit: int = 240) -> str:
    """A short, plain-text excerpt of a PR or issue body (template comments and markup removed)."""
    if not text:
        return ""
    plain = _TEST_SECTIONS.sub(" ", _HTML_COMMENT.sub(" ", text))
    plain = _MD_INLINE.sub("", _MD_BLOCK.sub(" ", plain))
    plain = _BOILERPLATE.sub(" ", plain)
    return cut_words(" ".join(plain.split()), limit)


_CJK_CHAR = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def word_cut(text: str, limit: int) -> str:
    """The head of `text` within `limit` characters that ends at a word's end: back to the last
    space, or between two Chinese characters (each is a word's edge); a single unbroken run
    longer than `limit` (a hash, an address) is cut where it must be. Never "rota" of "rotary"
    (2026-W22's reader: our own cuts end at word boundaries)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    nxt = text[limit]
    if nxt == " " or _CJK_CHAR.match(nxt) or _CJK_CHAR.match(cut[-1]):
        return cut
    for i in range(len(cut) - 1, 0, -1):
        if cut[i] == " ":
            return cut[:i]
        if _CJK_CHAR.match(cut[i]):
            return cut[: i + 1]
    return cut


def cut_words(text: str, limit: int, trail: str = " ,.;:") -> str:
    """`text` cut to `limit` characters at a word's end (`word_cut`), then "…" (unchanged when
    it fits)."""
    if len(text) <= limit:
        return text
    return word_cut(text, limit).rstrip(trail) + "…"


TITLE_MAX = 300  # characters of a title, name or login a document shows


def bounded_title(text: str, limit: int = TITLE_MAX) -> str:
    """A title as documents show it: whitespace collapsed and cut with "…" past `limit`
    characters, so that any title lays out in bounded time (WeasyPrint's time grows faster than
    linearly with an unbroken run: 20,000 characters took 36 s)."""
    if len(text) <= limit:
        return text
    return cut_words(" ".join(text.split()), limit)


_DIGEST = re.compile(r"[0-9a-f]{16,}")


def short_version(version: str) -> str:
    """A rule-set version as people read it: long hex digests cut to 12 characters (like git)."""
    return _DIGEST.sub(lambda m: m.group(0)[:12], version)


# "This PR adds …", "In this PR, we add …": the description's lead-in says nothing a report line
# needs; the verb after it opens the sentence ("Adds …"). Not before "is"/"has"/"does" and the
# like ("This PR is a follow-up of #1" keeps its subject).
_LEAD_IN = re.compile(
    r"^(?:in\s+)?this\s+(?:pr|pull\s+request|patch|change|commit)\b,?\s+(?:we\s+)?"
    r"(?:(?:mainly|primarily|simply|also|aims?\s+to|tries\s+to|intends?\s+to|wants?\s+to|"
    r"is\s+(?:used\s+)?to|will|would|is\s+going\s+to)\s+)*"
    r"(?!(?:is|was|has|had|does|did|doesn'?t|didn'?t|can|could|should|only|just|the|a|an|and|"
    r"not|no|also|still|must|may|might|will|would|pr|itself|on|in|for|from|to|of|by)\b)(?=[a-z])",
    re.I,
)


# a description's label before its first sentence ("Symptom: …", "Feature Integration: Added …",
# "Root cause: …"): plain capitalised words, not a name ("MTP: …", "DeepSeek-V4: …" stay)
_LABEL = re.compile(r"^[A-Z][a-z]+(?:\s+[A-Za-z][a-z]+){0,2}\s*:\s+(?=\S)")


_AIMS = re.compile(r"^(?:aims?|tries|intends?|wants?)\s+to\s+(?=[a-z])", re.I)


def without_lead_in(sentence: str) -> str:
    """`sentence` without a "This PR …" lead-in, its verb capitalised ("This PR optimizes the
    kernel" -> "Optimizes the kernel"), and without a label before it ("Symptom: With pcp=2 …"
    -> "With pcp=2 …"); unchanged when there is none."""
    label = _LABEL.match(sentence)
    if label and label.end() < len(sentence):
        sentence = sentence[label.end() :]
        sentence = sentence[:1].upper() + sentence[1:]
    m = _LEAD_IN.match(sentence) or _AIMS.match(sentence)
    if not m or m.end() >= len(sentence):
        return sentence[:1].upper() + sentence[1:] if sentence[:1].islower() else sentence
    rest = sentence[m.end() :]
    return rest[:1].upper() + rest[1:]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[`(\"'\u4e00-\u9fff])|(?<=[。！？])\s*")
_CLAUSE_END = re.compile(r"\s*[,;，；]\s+|\s+[-–—]\s+|，|；")
# a sentence opening with one of these says its point after the comma: its head is no clause
_SUBORDINATE = re.compile(
    r"(?i)^(?:to|when|if|as|since|because|during|while|although|though|after|before|in\s+order|"
    r"for|with|without|by|once|unless|until|whereas|currently|previously|now\s+that|given|"
    r"in\s+the\s+case|in\s+case|due\s+to|based\s+on|according\s+to|under|on|in|at|"
    r"当|如果|由于|因为|为了|在)\b"
)
# a parenthesised example, reference or link: what the sentence says stands without it
_ASIDE = re.compile(
    r"\s*[(（](?:e\.\s?g\.|i\.\s?e\.|such as|see|like|ref|refer|cf\.|#\d|https?://)[^()（）]*[)）]",
    re.I,
)
_PAIRS = ("()", "[]", "“”", "「」", "（）")


def _balanced(text: str) -> bool:
    if text.count('"') % 2 or text.count("`") % 2:
        return False
    return all(text.count(pair[0]) == text.count(pair[1]) for pair in _PAIRS)


# an opening that says why ("To adapt Qwen3.5 to 310P, …", "Since vLLM moved to v0.18.0, …") may
# go: the main clause after it is still true alone; a condition ("When …", "If …", "During …")
# may not ("the server crashes" is false without its "if")
_WHY_OPENING = re.compile(r"(?i)^(?:to|in\s+order\s+to|so\s+as\s+to|since|because|as|due\s+to)\b")
# the first word of a new clause's subject: the comma before it ends the opening, not a list
_SUBJECT_START = re.compile(
    r"(?i)^(?:the|a|an|this|these|that|those|we|it|its|they|our|there|users?)\b\s+\S"
)


# what opens a clause after a comma: a clause word ("…, which was caused by …", "…, so the
# scheduler …", "…, including …", "…, removing …"), a new subject ("…, the server now …") or a
# verb joined by "and" ("…, and restore the V2 test cases"); anything else after an English comma
# is a list's next item ("activated with DP>1, TP>1 and all2all backend …", real #13946) and the
# head before it says less than the sentence
_CLAUSE_WORD = re.compile(
    r"(?i)^(?:which|that|who|whose|where|when|whenever|because|bacause|while|whereas|so|but|"
    r"since|as|although|though|thus|hence|therefore|otherwise|then|if|unless|until|after|before|"
    r"including|includes|such\s+as|e\.\s?g\.|i\.\s?e\.|for\s+example|for\s+instance|"
    r"specifically|especially|particularly|primarily|mainly|mostly|instead|rather|due\s+to|"
    r"caused\s+by|via|through|along\s+with|together\s+with|in\s+addition|as\s+well\s+as|"
    r"without|with|to|so\s+that|in\s+(?:order|which|this|that)|please|see|refer|[a-z]+ing|"
    r"[a-z]+ly\s+[a-z]+ing)\b"
)
_AND_CLAUSE = re.compile(r"(?i)^(?:and|but|or)\s+(?:then\b|also\b|[a-z]+\b)")
# the next item of a list: a short piece joined by "and"/"or" ("TP>1 and all2all …", "the B and
# the C") or followed by ", and …" / ", or …"
_LIST_ITEM = re.compile(r"(?i)^(?:[^\s,;]+\s+){1,3}(?:and|or)\s|^[^,;]*,\s*(?:and|or)\s")


def _clause_after_comma(head: str, tail: str) -> bool:
    """Whether a comma between `head` and `tail` (one sentence) ends a clause rather than an item
    of a list."""
    if _CLAUSE_WORD.match(tail):
        return True
    if _AND_CLAUSE.match(tail):  # "…, and add …" ends a clause; "A, B, and C" ends a list
        return not re.search(r",\s*[^,;]*$", head) or bool(_SUBJECT_START.match(tail[4:]))
    starts = _SUBJECT_START.match(tail) or re.match(r"(?i)^(?:i|you|he|she)\s", tail)
    return bool(starts) and not _LIST_ITEM.match(tail)


def _main_clause_after(sentence: str, limit: int) -> str:
    """The main clause of a sentence that opens with its purpose or cause, capitalised, when it
    fits whole within `limit` ("To adapt the Qwen3.5 model to the Ascend 310P, the Torch
    implementation … is added" → "The Torch implementation … is added."), else ""."""
    if not _WHY_OPENING.match(sentence):
        return ""
    for m in re.finditer(r",\s+", sentence):
        tail = sentence[m.end() :]
        if not _SUBJECT_START.match(tail):
            continue
        if _balanced(sentence[: m.start()]) and _balanced(tail) and 24 <= len(tail) <= limit:
            return tail[:1].upper() + tail[1:]
        return ""
    return ""


_GITHUB_REF = re.compile(
    r"https?://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:issues|pull|pulls)/(?P<n>\d+)"
    r"(?:/[\w./-]*[\w/])?(?:[?#][^\s)]*[^\s).,;:!?])?"
)


def short_refs(text: str, repo: str) -> str:
    """A GitHub issue or PR address in a quoted sentence as GitHub writes it: "#5712" in its own
    repository, "owner/name#N" in another ("2nd PR for https://github.com/o/r/issues/5712, …"
    read as a raw URL in the middle of a line)."""
    if "github.com/" not in text:
        return text

    def short(m: re.Match[str]) -> str:
        other = m.group("repo")
        n = m.group("n")
        return f"#{n}" if other.casefold() == repo.casefold() else f"{other}#{n}"

    return _GITHUB_REF.sub(short, text)


def fit_sentence(text: str, limit: int) -> str:
    """The opening of `text` told within `limit` characters without cutting into a clause: its
    first sentences that fit; else, when the first sentence is too long, its head up to a comma,
    semicolon or dash when that head is a main clause of some length ("Adds C8 KV cache
    quantization, which …"), or the main clause after an opening that only says why ("To adapt
    …, the Torch implementation … is added"); else "" — the caller says it another way (a title) rather than
    print half a clause. A sentence that ends with a colon announces a list the line cannot show
    and ends the opening."""
    plain = " ".join(text.split())
    if len(plain) > limit:  # an aside ("(e.g., Qwen3-32B W8A8C8)", "(see #12)") goes first
        plain = " ".join(_ASIDE.sub("", plain).split())
    sentences = [s for s in _SENTENCE_END.split(plain) if s.strip()]
    out = ""
    for s in sentences:
        if s.rstrip().endswith((":", "：")):
            break
        joined = f"{out} {s}".strip() if out else s
        if len(joined) > limit:
            break
        out = joined
    if out or not sentences:
        return out
    first = sentences[0]
    if _SUBORDINATE.match(first):
        return _main_clause_after(first, limit)
    best = ""
    for m in _CLAUSE_END.finditer(first):
        head = first[: m.start()].rstrip()
        if len(head) > limit:
            break
        if _balanced(head) and (
            m.group().strip() != "," or _clause_after_comma(head, first[m.end() :])
        ):
            best = head
    return best if len(best) >= max(24, limit * 0.4) else ""
