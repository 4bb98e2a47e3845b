"""The digest's fast paths give what the plain expressions they replace give (hypothesis).

`_not_words` (links, references, mentions and code out of a sentence) and `_severe_gate` (may
the description name a grave problem?) were each one regular expression; they are now cheaper
forms of it (bench/README.md, "Where the pipeline's time goes"). These compare them with the
original expressions, kept here, on text built from the characters that matter to them."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from services.classifier.domain.digest import _not_words, _severe_gate

# the expressions as they were before the fast paths
NOT_WORDS = re.compile(r"https?://\S+|(?:[\w.-]+/[\w.-]+)?#\d+|@[\w-]+|`[^`]*`")
SEVERE_GATE = re.compile(
    r"(?i)dead|hang|hung|stuck|indefinite|forever|freez|crash|segf|segmentation|core ?dump"
    r"|oom|out of memory|leak|garbled|wrong|accuracy|precision|nan"
)

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
