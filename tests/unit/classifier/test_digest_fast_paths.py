"""The digest's fast paths give what the plain expressions they replace give (hypothesis).

`_not_words` (links, references, mentions and code out of a sentence), `_severe_gate` (may the
description name a grave problem?), `_sentence_ends` and `_ref_only` (a paragraph of references
alone) each ran one regular expression; they now run a cheaper form of it (bench/README.md,
"Where the pipeline's time goes"). So do `plain` and `squashed` (inline markup, whitespace),
`_path_token`, `_process_after`, and the gates before `USER_ERROR` and `SEVERE_PROBLEM` in a
unit. These compare them with the original expressions, kept here, on text built from the
characters that matter to them."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from services.classifier.domain.digest import (
    _ABBREV,
    _AUTOLINK,
    _EM_STAR,
    _EM_UNDER,
    _IMAGE,
    _LINK,
    _PATH_TOKEN,
    _PROCESS,
    _STRONG,
    _TAG,
    SEVERE_PROBLEM,
    USER_ERROR,
    _error_gate,
    _not_words,
    _path_token,
    _process_after,
    _ref_only,
    _sentence_ends,
    _severe_gate,
    plain,
    squashed,
)

# the expressions as they were before the fast paths
NOT_WORDS = re.compile(r"https?://\S+|(?:[\w.-]+/[\w.-]+)?#\d+|@[\w-]+|`[^`]*`")
SEVERE_GATE = re.compile(
    r"(?i)dead|hang|hung|stuck|indefinite|forever|freez|crash|segf|segmentation|core ?dump"
    r"|oom|out of memory|leak|garbled|wrong|accuracy|precision|nan"
)
SENT_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[`*]?[A-Z0-9\u4e00-\u9fff])|(?<=[。！？；])\s*(?=\S)")
REF_ONLY = re.compile(
    r"^\s*(?:[A-Za-z-]+:?\s+){0,3}(?:#\d*|(?:https?://)?github\.com/\S+|[\w.-]+/[\w.-]+#\d+)"
    r"(?:[\s,;&]+(?:and\s+)?(?:[A-Za-z-]+:?\s+){0,2}(?:#\d+|https?://\S+|[\w.-]+/[\w.-]+#\d+))*"
    r"\s*[.]?\s*$",
    re.I,
)


def sentence_ends(text: str) -> list[int]:
    """`_sentence_ends` as it was: the ends found by what follows the punctuation."""
    ends: list[int] = []
    for m in SENT_END.finditer(text):
        end = m.start()
        if _ABBREV.search(text, max(0, end - 8), end):
            continue
        if not text[ends[-1] if ends else 0 : end].isspace():
            ends.append(end)
    if not ends or text[ends[-1] :].strip():
        ends.append(len(text))
    return ends


# pieces of references, links, mentions and code, and the characters between them: runs of
# word characters, digits (ASCII and Arabic-Indic), dots and dashes beside # / @ `
reference_text = st.lists(
    st.sampled_from(
        ["a", "Z", "_", "1", "42", "\u0662", "é", ".", "-", "/", "#", "#7", "@", "@dev", "`"]
        + [" ", "\n", "http://x.y/", "https://github.com/o/r/pull/3", "o/r#12", "x" * 30]
    ),
    max_size=30,
).map("".join)

severe_text = st.lists(
    st.sampled_from(
        ["DEAD", "Hang", "hung", "sTuck", "indefinite", "Forever", "FREEZ", "crash", "SegF"]
        + ["segmentation", "core dump", "CoreDump", "core  dump", "OOM", "out of memory"]
        + ["Leak", "garbled", "wrong", "accuracy", "precision", "NaN", "na", "n", "d", "ead"]
        + [" ", "x", "é", "\u017f", "\u212a", "\u0130", "ſtuck", "K"]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=2000, deadline=None)
@given(text=reference_text)
def test_not_words_is_the_original_substitution(text: str) -> None:
    assert _not_words(text) == NOT_WORDS.sub(" ", text)


def test_not_words_examples() -> None:
    # the owner/repo part of a reference, a reference right after another, after a mention
    assert _not_words("see o/r#12 and #3a/b#4 by @x.y/z#5") == NOT_WORDS.sub(
        " ", "see o/r#12 and #3a/b#4 by @x.y/z#5"
    )
    assert _not_words("x" * 400) == "x" * 400  # no reference: as it was
    assert _not_words("fixes vllm-project/vllm#12 `a b`") == "fixes    "


@settings(max_examples=2000, deadline=None)
@given(text=severe_text)
def test_severe_gate_is_the_original_search(text: str) -> None:
    assert _severe_gate(text, text.lower()) == (SEVERE_GATE.search(text) is not None)


def test_severe_gate_examples() -> None:
    assert _severe_gate("It HANGS forever", "it hangs forever")
    assert not _severe_gate("Adds a kernel", "adds a kernel")
    # (?i) also matches the Kelvin sign and the long s to k and s: the regular expression
    # decides for text that is not ASCII
    assert _severe_gate("ſtuck", "ſtuck")


sentence_text = st.lists(
    st.sampled_from(
        ["a", "A", "7", "e.g", "No", ".", "!", "?", "。", "！", "？", "；", " ", "\n", "\t"]
        + ['"', "(", "[", "`", "*", "好", "\u3000", "x" * 20]
    ),
    max_size=25,
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(text=sentence_text)
def test_sentence_ends_are_the_original_ones(text: str) -> None:
    assert _sentence_ends(text) == sentence_ends(text)


def test_sentence_ends_examples() -> None:
    text = "It hangs. See e.g. the log! Then 好。。好 (done)"
    assert _sentence_ends(text) == sentence_ends(text) == [9, 27, 35, 36, len(text)]


@settings(max_examples=2000, deadline=None)
@given(text=reference_text)
def test_ref_only_is_the_original_match(text: str) -> None:
    assert _ref_only(text) == (REF_ONLY.match(text) is not None)


def test_ref_only_examples() -> None:
    assert _ref_only("Fixes #10989, fixes #10987.")
    assert _ref_only("See GitHub.com/o/r/pull/1")
    assert not _ref_only("Adds a kernel")


# ---------------------------------------------------------------- gates before expressions
# (issue #18 item 6: an expression that cannot start with a literal is tried at every character,
# ~30-100 ns each; a substring test or a cheaper form rules most texts out first)

PATH_TOKEN = _PATH_TOKEN  # the expression `_path_token` answers for
CODE_TICKS = re.compile(r"`+")
SPACE = re.compile(r"\s+")


def plain_before(line: str) -> str:
    """`plain` as it was: every inline substitution run whenever one of its marks is there."""
    if "[" in line:
        line = _IMAGE.sub("", line)
        line = _LINK.sub(r"\1", line)
    if "<" in line:
        line = _AUTOLINK.sub(r"\1", line)
        line = _TAG.sub("", line)
    if "`" in line:
        line = CODE_TICKS.sub("", line)
    if "*" in line or "_" in line or "~" in line:
        line = _STRONG.sub("", line)
        line = _EM_STAR.sub(r"\1", line)
        line = _EM_UNDER.sub(r"\1", line)
    return line


markup_text = st.lists(
    st.sampled_from(
        ["a", "Z", "1", " ", "\n", "\t", "\u3000", "\x1f", "*", "**", "_", "__", "~~", "`", "``"]
        + ["[x](http://y)", "![i](p.png)", "<b>", "<https://z>", "x" * 30, "é", "|", ":", "-"]
        + [".", "/", "a.py", "x/y", "|---|"]
    ),
    max_size=25,
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(text=markup_text)
def test_plain_and_squashed_are_the_original_substitutions(text: str) -> None:
    assert plain(text) == plain_before(text)
    assert squashed(text) == SPACE.sub(" ", text).strip()


@settings(max_examples=3000, deadline=None)
@given(text=markup_text)
def test_path_token_is_the_original_fullmatch(text: str) -> None:
    for word in text.split() or [text]:
        if word:
            assert _path_token(word) == (PATH_TOKEN.fullmatch(word) is not None)


process_text = st.lists(
    st.sampled_from(
        ["I ", "we ", "We have ", "also ", "refactored ", "restored ", "this PR", "the commit"]
        + [",", ";", "，", "；", " ", "but ", "and ", "x" * 12, "Fix", "."]
    ),
    max_size=14,
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(text=process_text, pos=st.sampled_from([1, 10, 20, 40]))
def test_process_after_is_the_original_search(text: str, pos: int) -> None:
    mine, theirs = _process_after(text, pos), _PROCESS.search(text, pos)
    assert (mine and mine.span()) == (theirs and theirs.span())


error_text = st.lists(
    st.sampled_from(
        ["ValueError", "KeyError", "Exception", "exceptions", "Traceback", "assert", "ion"]
        + ["error", "fail", "failed", "to", "start", "load", "failure", "of", "no attr"]
        + ["raises", "an", "cannot", "can't", "can not", "unable to", "be", "import", "cause"]
        + [" ", "x", "\u017f", "\u212a", "\u0130", "ASSERT", "ERROR", "Rror"]
    ),
    max_size=12,
).map(" ".join)


@settings(max_examples=3000, deadline=None)
@given(text=error_text)
def test_error_gate_lets_every_user_error_through(text: str) -> None:
    if USER_ERROR.search(text):
        assert _error_gate(text)


@settings(max_examples=3000, deadline=None)
@given(text=severe_text)
def test_severe_gate_lets_every_severe_problem_through(text: str) -> None:
    if SEVERE_PROBLEM.search(text):
        assert _severe_gate(text, text.lower())


def test_gates_examples() -> None:
    assert not _error_gate("x" * 400) and _error_gate("Raises a KeyError")
    assert _error_gate("ſ")  # not ASCII: the expression decides
    assert not _path_token("x" * 400) and _path_token("|---|") and _path_token("a/b.py")
    assert _process_after("x" * 400, 10) is None
    text = "This was meant for #1, but I accidentally restored a commit."
    m = _process_after(text, 10)
    assert m is not None and m.span() == _PROCESS.search(text, 10).span()  # type: ignore[union-attr]
    assert squashed("  a \n\t b\u3000 ") == "a b"
