"""Reading rule profiles (YAML) and CODEOWNERS files from disk into the pure rule engine."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from services.classifier.domain.rules import ProfileError, ProfileRegistry, build_registry

BUILTIN_PROFILES = Path(__file__).resolve().parent.parent / "profiles"


def read_profile_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the profile: {exc.strerror or exc}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ProfileError(f"{path}{where}: invalid YAML: {problem}") from None
    if not isinstance(raw, dict):
        raise ProfileError(f"{path}: a profile is a mapping (profile:, modules:, risks:, ...)")
    name = raw.get("profile")
    if name != path.stem:
        raise ProfileError(f"{path}: `profile: {name}` must equal the file name ({path.stem!r}), "
                           "so that `extends:` and --profile find it")
    return raw


def read_profiles(*directories: Path | None) -> dict[str, tuple[str, dict[str, Any]]]:
    """Profiles by name from the built-in folder, then from each directory (later ones win)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for directory in (BUILTIN_PROFILES, *directories):
        if directory is None:
            continue
        if not directory.is_dir():
            raise ProfileError(f"{directory}: the profiles directory does not exist")
        for path in sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")]):
            out[path.stem] = (str(path), read_profile_file(path))
    return out


def read_codeowners(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the CODEOWNERS file: {exc.strerror or exc}") from None


def load_registry(profiles_dir: Path | None = None,
                  codeowners: Mapping[str, Path] | None = None,
                  overrides: Mapping[str, str] | None = None) -> ProfileRegistry:
    """Every profile compiled, ready for `registry.for_repo(repo).classify(item)`.

    `codeowners` maps a profile name (or `*` for every profile) to a CODEOWNERS file.
    """
    raws = read_profiles(profiles_dir)
    texts = {name: read_codeowners(path) for name, path in (codeowners or {}).items()}
    return build_registry(raws, texts, overrides)
