"""Reading rule profiles (YAML) and CODEOWNERS files from disk into the pure rule engine."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from services.classifier.domain.identities import IdentityBook, IdentityError
from services.classifier.domain.rules import (
    LocatedMapping,
    ProfileError,
    ProfileRegistry,
    build_registry,
    error_line,
)

BUILTIN_PROFILES = Path(__file__).resolve().parent.parent / "profiles"


def _node_lines(node: yaml.Node, path: tuple[Any, ...], out: dict[tuple[Any, ...], int]) -> None:
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                out[(*path, key.value)] = key.start_mark.line + 1
                _node_lines(value, (*path, key.value), out)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            _node_lines(value, (*path, index), out)


def parse_profile_text(text: str) -> Any:
    """The YAML content; a mapping comes back as a `LocatedMapping` that knows its lines."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    if isinstance(data, dict):
        lines: dict[tuple[Any, ...], int] = {}
        _node_lines(node, (), lines)
        return LocatedMapping(data, lines)
    return data


def read_profile_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the profile: {exc.strerror or exc}") from None
    try:
        raw = parse_profile_text(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ProfileError(f"{path}{where}: invalid YAML: {problem}") from None
    if not isinstance(raw, dict):
        raise ProfileError(f"{path}: a profile is a mapping (profile:, modules:, risks:, ...)")
    name = raw.get("profile")
    if name != path.stem:
        line = error_line(raw, ("profile",))
        raise ProfileError(
            f"{path}{f':{line}' if line else ''}: `profile: {name}` must equal the "
            f"file name ({path.stem!r}), so that `extends:` and --profile find it"
        )
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
        raise ProfileError(
            f"{path}: cannot read the CODEOWNERS file: {exc.strerror or exc}"
        ) from None


def read_identities(path: Path) -> IdentityBook:
    """The identities file (YAML: `people:`), compiled; IdentityError naming the file and the
    entry for anything unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise IdentityError(
            f"{path}: cannot read the identities file: {exc.strerror or exc}"
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise IdentityError(
            f"{path}{where}: invalid YAML: {getattr(exc, 'problem', None) or exc}"
        ) from None
    return IdentityBook.from_data(data, str(path))


def load_registry(
    profiles_dir: Path | None = None,
    codeowners: Mapping[str, Path] | None = None,
    overrides: Mapping[str, str] | None = None,
    pinned: str | None = None,
    identities: Path | None = None,
) -> ProfileRegistry:
    """Every profile compiled, ready for `registry.for_repo(repo).classify(item)`.

    `codeowners` maps a profile name (or `*` for every profile) to a CODEOWNERS file. `pinned`
    makes every repository use one profile: a name, or the path of a profile YAML file (added to
    the others, so it may `extends:` them). `identities`: the identities file (README, Identities).
    """
    raws = read_profiles(profiles_dir)
    if pinned is not None:
        path = Path(pinned)
        if path.suffix in (".yaml", ".yml") and (path.exists() or "/" in pinned):
            raws[path.stem] = (str(path), read_profile_file(path))
            pinned = path.stem
    texts = {name: read_codeowners(path) for name, path in (codeowners or {}).items()}
    book = read_identities(identities) if identities is not None else None
    return build_registry(raws, texts, overrides, pinned=pinned, identities=book)
