"""Tokenizing titles and text for the rules: title prefixes (`[Bugfix]`, `fix(core):`,
`ROCm:`), normalized tokens, words, and the short quotes the rule reasons show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_PREFIX_BLOCK = re.compile(r"^\s*((?:[\[【][^\]】]{1,60}[\]】]\s*:?\s*)+)")
_PREFIX_TOKEN = re.compile(r"[\[【]([^\]】]{1,60})[\]】]")
_CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\(([^)]{1,40})\))?!?:\s")
_PLAIN_PREFIX = re.compile(r"^\s*([A-Za-z][\w.+-]{0,20}(?:[ /][A-Za-z][\w.+-]{0,20})?)\s*:\s")
_NORM = re.compile(r"[\s_\-]+")
_SPLIT = re.compile(r"[/,|&+]")

# which way of firing is the strongest signal: title prefixes first, body text last
_TIER = {
    "title-prefix": 0,
    "label": 1,
    "title-regex": 2,
    "keyword": 3,
    "author": 4,
    "association": 4,
    "module": 5,
    "files": 6,
    "body-regex": 7,
    "body-keyword": 7,
}


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
        if "+" in text:  # "DP+EP: …" names two terms, as "[DP+EP]" does
            for part in text.split("+"):
                if part.strip():
                    out.setdefault(norm_token(part), text + ":")
    return out


# a word: letters and digits, `.` inside ("qwen3.5", "v0.9.1"); `+` joins two terms ("pcp+mtp",
# "DP+EP": two words) except after a version of three or more parts, whose local label it starts
# ("2.10.0+cpu", "v0.18.0+empty": one word, PEP 440)
_WORD = re.compile(
    r"(?<![a-z0-9.])v?\d+(?:\.\d+){2,}\+[a-z0-9]+(?:\.[a-z0-9]+)*|[a-z0-9]+(?:\.[a-z0-9]+)*"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words(text: str) -> list[str]:
    """Lower-case words: `_`, `-`, `/`, `+` and spaces separate; `.` inside a word stays, and so
    does the `+` of a version's local label ("2.10.0+cpu")."""
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
