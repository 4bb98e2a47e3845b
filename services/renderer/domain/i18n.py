"""Message catalogs as the domain sees them: a nested mapping of templates, plural forms and names.

Catalog files live in `services/renderer/i18n/<lang>.yaml`; an adapter loads them and hands the
mapping in. Templates use `str.format` named fields. A plural message is a mapping with `one`
and `other` (languages without plural forms, such as zh-CN, give `other` only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from string import Formatter
from typing import Any

# Chinese text: one space between CJK and Latin letters or digits where a field meets the
# template's own text ("合并 {merged} 个" and "集中在{modules}" both read "集中在 CI 与构建"), as
# the seeds write "合并 256 个 PR". Inside a field's value (a title, a login) nothing changes.
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # ideographs, not punctuation
_LATIN = re.compile(r"[A-Za-z0-9#+]")
# Latin text may end in a closing bracket ("mergify[bot]") or begin with an opening one, or
# with a login's "@" ("@zzzzwwjj 和 @LCAIZJ"); \x00 marks a reference the view links afterwards
# ("#123"), Latin too
_LATIN_END = re.compile(r"[A-Za-z0-9#+\])%\x00]")
_LATIN_START = re.compile(r"[A-Za-z0-9#+\-\[(@\x00]")
_FORMATTER = Formatter()


def _needs_space(left: str, right: str) -> bool:
    if not left or not right:
        return False
    a, b = left[-1], right[0]
    return bool(
        (_CJK.match(a) and _LATIN_START.match(b)) or (_LATIN_END.match(a) and _CJK.match(b))
    )


def spaced_format(template: str, fields: Mapping[str, Any]) -> str:
    """`template.format(**fields)`, with a space at each CJK/Latin boundary between the
    template's text and a field's value."""
    out = ""
    for literal, name, spec, conv in _FORMATTER.parse(template):
        if literal:
            out += (" " if _needs_space(out, literal) else "") + literal
        if name is None:
            continue
        value = _FORMATTER.get_field(name, (), fields)[0]
        value = _FORMATTER.format_field(_FORMATTER.convert_field(value, conv), spec or "")
        out += (" " if _needs_space(out, value) else "") + value
    return out


class MissingMessage(KeyError):
    """A catalog lacks a key the renderer needs (a bug in a catalog file, caught by tests)."""


class Messages:
    """Look-ups in one language's catalog, with an optional fallback catalog (English)."""

    def __init__(
        self, lang: str, catalog: Mapping[str, Any], fallback: Mapping[str, Any] | None = None
    ) -> None:
        self.lang = lang
        self._catalog = catalog
        self._fallback = fallback
        # key -> message or None (missing): catalogs do not change, and a report asks thousands
        self._found: dict[str, Any] = {}

    def raw(self, key: str) -> Any:
        try:
            found = self._found[key]
        except KeyError:
            found = self._found[key] = self._look_up(key)
        if found is None:
            raise MissingMessage(f"message {key!r} is missing from the {self.lang} catalog")
        return found

    def _look_up(self, key: str) -> Any:
        for catalog in (self._catalog, self._fallback):
            if catalog is None:
                continue
            node: Any = catalog
            for part in key.split("."):
                if not isinstance(node, Mapping) or part not in node:
                    node = None
                    break
                node = node[part]
            if node is not None:
                return node
        return None

    def has(self, key: str) -> bool:
        try:
            self.raw(key)
        except MissingMessage:
            return False
        return True

    def t(self, key: str, /, **fields: Any) -> str:
        template = self.raw(key)
        if isinstance(template, Mapping):
            template = template.get("other", "")
        return self._format(str(template), fields)

    def _format(self, template: str, fields: Mapping[str, Any]) -> str:
        if self.lang.startswith("zh"):
            return spaced_format(template, fields)
        return template.format(**fields)

    def tn(self, key: str, n: int | float, /, **fields: Any) -> str:
        """A message that depends on a count (`one` for exactly 1, `other` otherwise)."""
        template = self.raw(key)
        if isinstance(template, Mapping):
            form = "one" if n == 1 and "one" in template else "other"
            template = template[form]
        return self._format(str(template), {"n": n, **fields})

    def name(self, group: str, value: str) -> str:
        """A display name for a tag value (module, risk, category), or the value made readable."""
        key = f"{group}.{value}"
        if self.has(key):
            return self.t(key)
        return value.replace("_", " ").replace("-", " ")

    def join(self, parts: list[str]) -> str:
        if not parts:
            return ""
        sep = self.t("list.sep")
        last = self.t("list.last")
        if len(parts) == 1:
            return parts[0]
        if self.lang.startswith("zh"):  # "模型支持和 Kernel" (see spaced_format)
            head = sep.join(parts[:-1])
            return (
                head
                + (" " if _needs_space(head, last) else "")
                + last
                + (" " if _needs_space(last, parts[-1]) else "")
                + parts[-1]
            )
        return sep.join(parts[:-1]) + last + parts[-1]
