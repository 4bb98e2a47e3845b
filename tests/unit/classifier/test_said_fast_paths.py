"""The settings' fast paths (services/classifier/domain/said.py) let through every text their
expressions match (hypothesis): `_may_name` before `_NAME` (a flag, an environment variable, a
snake_case key: each holds "--" or "_"), `_may_value` before `_VALUE_OF` ("options for x: y").
Issue #18 item 6: the expressions are tried at every character of a description; the substring
tests rule most texts out first (bench/README.md, "Where the pipeline's time goes")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.classifier.domain.said import _NAME, _VALUE_OF, _may_name, _may_value

name_text = st.lists(
    st.sampled_from(
        ["a", "Z", "1", "_", "-", "--", ".", "/", "(", " ", "x" * 20, "max_len", "--load-format"]
        + ["VLLM_USE_V1", "a.b_c", "é", "ENV_X", "\u017f", "\u0130"]
    ),
    max_size=15,
).map("".join)

value_text = st.lists(
    st.sampled_from(
        ["options", "Option", "VALUES", "choice", "Modes", "for", "of", "to", "load-format"]
        + [":", "=", "rfork", "x", "optıon", "OPTİON", "mode\u017f", " "]
    ),
    max_size=10,
).map(" ".join)


@settings(max_examples=3000, deadline=None)
@given(text=name_text)
def test_may_name_lets_every_name_through(text: str) -> None:
    if _NAME.search(text):
        assert _may_name(text)


@settings(max_examples=3000, deadline=None)
@given(text=value_text)
def test_may_value_lets_every_option_value_through(text: str) -> None:
    if _VALUE_OF.search(text):
        assert _may_value(text)


def test_examples() -> None:
    assert not _may_name("x" * 400) and _may_name("set max_num_seqs") and _may_name("--flag")
    assert not _may_value("x" * 400) and _may_value("options for load-format: rfork")
    assert _may_value("optıon for x: y")  # (?i) folds "ı" to "i": not ASCII, the expression decides
    assert _VALUE_OF.search("optıon for x: y")
