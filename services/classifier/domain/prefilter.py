"""Literal gates for rule regexes: skip a regex search when the text lacks a literal every match
of the regex contains.

Most rule regexes spend their time failing (`default-behaviour-change` scans the whole title for
"by default"); a plain substring test rules most texts out for a fraction of the cost. The gate is
exact: it only ever says "cannot match" when the regex cannot match, so the search still decides.
"""

from __future__ import annotations

import re
import re._constants as sre_constants  # the standard library's regex parser (no public API)
import re._parser as sre_parse
from collections.abc import Callable, Iterable
from typing import cast

_MIN_LITERAL = 3  # shorter literals are in most texts: not worth a test


def _required(seq: Iterable[tuple[object, object]]) -> frozenset[str] | None:
    """Literals of which every match of the parsed sequence `seq` contains at least one (None when
    no such set is known). Picks the run or group whose shortest literal is the longest."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def consider(option: frozenset[str] | None) -> None:
        nonlocal best
        if (
            option
            and min(map(len, option)) >= _MIN_LITERAL
            and (best is None or min(map(len, option)) > min(map(len, best)))
        ):
            best = option

    for op, av in seq:
        if op is sre_constants.LITERAL:
            run.append(chr(av))  # type: ignore[arg-type]
            continue
        consider(frozenset(["".join(run)]) if run else None)
        run = []
        if op is sre_constants.SUBPATTERN:
            _group, add_flags, del_flags, sub = cast("tuple[object, int, int, list]", av)
            if not add_flags and not del_flags:  # (?-i:...) matches other characters
                consider(_required(sub))
        elif op is sre_constants.BRANCH:
            alternatives = [_required(alt) for alt in av[1]]  # type: ignore[index]
            if all(alternatives):
                consider(frozenset().union(*alternatives))  # type: ignore[arg-type]
    consider(frozenset(["".join(run)]) if run else None)
    return best


def required_literals(rx: re.Pattern[str]) -> frozenset[str] | None:
    """Literals of which every match of `rx` contains one, or None (then the regex always runs)."""
    try:
        literals = _required(sre_parse.parse(rx.pattern, rx.flags))
    except Exception:  # noqa: BLE001 - an unusual pattern is simply not gated
        return None
    if not literals:
        return None
    # "default" in the text is implied by "by default": keep the shorter one
    return frozenset(s for s in literals if not any(o != s and o in s for o in literals))


def literal_gate(rx: re.Pattern[str]) -> Callable[[str], bool]:
    """A test of a text that is False only where `rx` cannot match it: none of its required
    literals is there (compared in lower case on ASCII text when `rx` ignores case, where that is
    what ignoring case means; any other text passes, the search decides)."""
    literals = required_literals(rx)
    if literals is None:
        return _always
    if not rx.flags & re.IGNORECASE:
        exact = tuple(literals)
        return lambda text: any(s in text for s in exact)
    if not all(s.isascii() for s in literals):
        return _always
    lower = tuple(s.lower() for s in literals)

    def may_match(text: str) -> bool:
        if not text.isascii():
            return True
        low = text.lower()
        return any(s in low for s in lower)

    return may_match


def _always(text: str) -> bool:
    return True


class RegexGate:
    """Rule ids whose regex may match a text: regexes without a required literal always may."""

    def __init__(self) -> None:
        self.ungated: list[int] = []
        # (owner, literals to find in text.lower() for an ASCII text, the same as one regex)
        self.gated: list[tuple[int, tuple[str, ...] | None, re.Pattern[str]]] = []
        # (lower-case literal, owner) of every owner with ASCII literals, for ASCII texts
        self.plain: list[tuple[str, int]] = []

    def add(self, owner: int, rx: re.Pattern[str]) -> None:
        literals = required_literals(rx)
        if literals is None:
            self.ungated.append(owner)
            return
        # for ASCII texts and ASCII literals, ignoring case is exactly comparing lower case
        plain = (
            tuple(s.lower() for s in literals)
            if rx.flags & re.IGNORECASE and all(s.isascii() for s in literals)
            else None
        )
        either = "|".join(re.escape(s) for s in sorted(literals))
        self.gated.append((owner, plain, re.compile(either, rx.flags & ~re.VERBOSE)))
        self.plain.extend((s, owner) for s in plain or ())

    def __bool__(self) -> bool:
        return bool(self.ungated or self.gated)

    def hits(self, text: str) -> set[int]:
        out = set(self.ungated)
        if text.isascii():
            low = text.lower()
            for s, owner in self.plain:
                if s in low:
                    out.add(owner)
            for owner, plain, either in self.gated:
                if plain is None and either.search(text) is not None:
                    out.add(owner)
        else:
            for owner, _, either in self.gated:
                if either.search(text) is not None:
                    out.add(owner)
        return out
