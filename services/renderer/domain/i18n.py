"""Message catalogs as the domain sees them: a nested mapping of templates, plural forms and names.

Catalog files live in `services/renderer/i18n/<lang>.yaml`; an adapter loads them and hands the
mapping in. Templates use `str.format` named fields. A plural message is a mapping with `one`
and `other` (languages without plural forms, such as zh-CN, give `other` only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class MissingMessage(KeyError):
    """A catalog lacks a key the renderer needs (a bug in a catalog file, caught by tests)."""


class Messages:
    """Look-ups in one language's catalog, with an optional fallback catalog (English)."""

    def __init__(self, lang: str, catalog: Mapping[str, Any],
                 fallback: Mapping[str, Any] | None = None) -> None:
        self.lang = lang
        self._catalog = catalog
        self._fallback = fallback

    def raw(self, key: str) -> Any:
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
        raise MissingMessage(f"message {key!r} is missing from the {self.lang} catalog")

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
        return str(template).format(**fields)

    def tn(self, key: str, n: int | float, /, **fields: Any) -> str:
        """A message that depends on a count (`one` for exactly 1, `other` otherwise)."""
        template = self.raw(key)
        if isinstance(template, Mapping):
            form = "one" if n == 1 and "one" in template else "other"
            template = template[form]
        return str(template).format(n=n, **fields)

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
        return sep.join(parts[:-1]) + last + parts[-1]
