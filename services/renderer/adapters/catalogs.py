"""Loads the message catalogs (`services/renderer/i18n/<lang>.yaml`) into domain `Messages`."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from services.renderer.domain.i18n import Messages

I18N_DIR = Path(__file__).resolve().parents[1] / "i18n"
SUPPORTED_LANGUAGES = ("en", "zh-CN")
FALLBACK_LANGUAGE = "en"


class UnknownLanguage(ValueError):
    pass


@cache
def _catalog(lang: str) -> dict[str, Any]:
    path = I18N_DIR / f"{lang}.yaml"
    if not path.is_file():
        raise UnknownLanguage(
            f"no message catalog for language {lang!r} (looked for {path}); "
            f"supported: {', '.join(SUPPORTED_LANGUAGES)}"
        )
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise UnknownLanguage(f"{path} is not a YAML mapping")
    return data


def messages(lang: str) -> Messages:
    """The catalog for `lang`, falling back to English for keys it lacks."""
    fallback = None if lang == FALLBACK_LANGUAGE else _catalog(FALLBACK_LANGUAGE)
    return Messages(lang, _catalog(lang), fallback)
