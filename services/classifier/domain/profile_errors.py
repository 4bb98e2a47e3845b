"""Errors in a profile a person can act on: `ProfileError`, and the YAML line of a value
(`LocatedMapping` keeps every key's line; `error_line` finds the one a message is about).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class LocatedMapping(dict):
    """A profile's YAML content with the line of every key and list element, so that an error
    can name the line: `lines[("modules", 3, "title_regex", 0)] == 41` (1-based)."""

    lines: dict[tuple[Any, ...], int]

    def __init__(self, data: Mapping[str, Any], lines: Mapping[tuple[Any, ...], int]) -> None:
        super().__init__(data)
        self.lines = dict(lines)


class ProfileError(ValueError):
    """A profile is invalid; the message names the file, the rule and the problem."""


def _find_value(value: Any, msg: str, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The path (below a field) of the string the message quotes: which glob, which regex."""
    if isinstance(value, str):
        return path if value and repr(value) in msg else None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, sub in items:
        found = _find_value(sub, msg, (*path, key))
        if found is not None:
            return found
    return None


def error_line(raw: Mapping[str, Any], loc: Sequence[Any], msg: str = "") -> int | None:
    """The 1-based line of `loc` in the YAML file `raw` came from (None when unknown)."""
    lines: dict[tuple[Any, ...], int] = getattr(raw, "lines", None) or {}
    if not lines:
        return None
    loc = tuple(loc)
    value: Any = raw
    for i, part in enumerate(loc):
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            loc = loc[:i]
            break
    inner = _find_value(value, msg) if msg and not isinstance(value, str) else None
    if inner:
        loc = (*loc, *inner)
    while loc and loc not in lines:
        loc = loc[:-1]
    return lines.get(loc)
