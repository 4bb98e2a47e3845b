"""A broken rule file fails at load with the file, the LINE and the reason; `default` still works."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.classifier.adapters.profiles import load_registry, read_profile_file
from services.classifier.domain.rules import ProfileError

from .factory import item, names

GOOD = """\
profile: acme
extends: generic
repos: [acme/widgets]
modules:
  - name: engine
    title_prefixes: [engine]
    paths: ["engine/**"]
  - name: web
    keywords: [web]
"""


def write(tmp_path: Path, text: str, name: str = "acme") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def load_error(tmp_path: Path, text: str) -> str:
    write(tmp_path, text)
    with pytest.raises(ProfileError) as info:
        load_registry(tmp_path)
    return str(info.value)


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_a_good_file_loads(tmp_path):
    write(tmp_path, GOOD)
    rs = load_registry(tmp_path).for_repo("acme/widgets")
    assert rs.name == "acme"
    assert names(rs.classify(item("[Engine] faster start", ["engine/a.py"])).modules) == ["engine"]


def test_invalid_regex_names_file_line_and_reason(tmp_path):
    text = (
        GOOD + "  - name: api\n    title_regex: ['ok', 'also ok',\n                  '(unclosed']\n"
    )
    message = load_error(tmp_path, text)
    path = tmp_path / "acme.yaml"
    assert message.startswith(
        f"{path}:{line_of(text, '(unclosed')}: modules rule 'api', field 'title_regex'"
    )
    assert "invalid regular expression '(unclosed'" in message and "missing )" in message
    assert "at position 0" in message  # where in the pattern as written


def test_a_global_flag_inside_a_pattern_is_refused_with_its_line(tmp_path):
    """`(?i)x` compiles alone but not once grouped with the field's other patterns."""
    text = GOOD + "  - name: api\n    title_regex:\n      - 'ok'\n      - '(?i)api'\n"
    message = load_error(tmp_path, text)
    assert message.startswith(
        f"{tmp_path / 'acme.yaml'}:{line_of(text, '(?i)api')}: "
        "modules rule 'api', field 'title_regex'"
    )
    assert "invalid regular expression '(?i)api'" in message and "(?i:word)" in message


def test_a_scoped_flag_is_fine(tmp_path):
    write(tmp_path, GOOD + "  - name: api\n    title_regex: ['(?i:API) v2', 'ok']\n")
    rs = load_registry(tmp_path).for_repo("acme/widgets")
    assert "api" in names(rs.classify(item("api v2 lands", [])).modules)


def test_invalid_glob_names_the_line_of_the_glob(tmp_path):
    text = GOOD.replace('paths: ["engine/**"]', 'paths:\n      - "engine/**"\n      - "!"')
    message = load_error(tmp_path, text)
    line = line_of(text, '- "!"')
    assert f"acme.yaml:{line}: modules rule 'engine', field 'paths'" in message
    assert "nothing after '!'" in message


def test_invalid_labeler_glob_inside_files(tmp_path):
    text = GOOD + (
        "  - name: ui\n    files:\n      - changed-files:\n"
        "          - any-glob-to-any-file: ['ui/**', '!']\n"
    )
    message = load_error(tmp_path, text)
    line = line_of(text, "'ui/**'")
    assert f"acme.yaml:{line}: modules rule 'ui'" in message, message


def test_unknown_key_and_wrong_type_have_lines(tmp_path):
    text = GOOD + "risks:\n  - name: big\n    kind: size\n    lines: many\n"
    message = load_error(tmp_path, text)
    assert f"acme.yaml:{line_of(text, 'lines: many')}: risks rule 'big', field 'lines'" in message
    text = GOOD.replace("    keywords: [web]", "    keywrods: [web]")
    message = load_error(tmp_path, text)
    assert f"acme.yaml:{line_of(text, 'keywrods')}: modules rule 'web', field 'keywrods'" in message


def test_yaml_syntax_error_has_line_and_column(tmp_path):
    text = GOOD + "  - name: broken\n    keywords: [a, b\n"
    path = write(tmp_path, text)
    with pytest.raises(
        ProfileError,
        match=rf"acme.yaml \(line {len(text.splitlines()) + 1}, column \d+\): invalid YAML",
    ):
        read_profile_file(path)


def test_unknown_parent_names_the_extends_line(tmp_path):
    message = load_error(tmp_path, GOOD.replace("extends: generic", "extends: nope"))
    assert f"acme.yaml:{line_of(GOOD, 'extends')}: extends unknown profile 'nope'" in message


def test_default_is_an_alias_of_generic():
    registry = load_registry(overrides={"acme/a": "default"})
    assert registry.for_repo("acme/a").name == "generic"
    assert registry.get("default") is registry.get("generic")
    assert registry.for_repo("unknown/repo").ref == registry.get("generic").ref


def test_extends_default_still_works(tmp_path):
    write(tmp_path, GOOD.replace("extends: generic", "extends: default"))
    rs = load_registry(tmp_path).get("acme")
    assert rs.profile.extends == "default"
    assert [n for n, _ in rs.modules][:2] == ["engine", "web"] and "docs" in [
        n for n, _ in rs.modules
    ]
    assert names(rs.classify(item("[Doc] fix typo", ["README.md"])).modules) == ["docs"]
