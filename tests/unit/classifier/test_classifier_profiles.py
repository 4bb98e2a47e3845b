"""Profiles: validation errors that name the file, the rule and the problem; `extends`; the
rule-set version (stable for the same content, new for any change); choosing a profile by repo."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from services.classifier.adapters.profiles import BUILTIN_PROFILES, load_registry, read_profiles
from services.classifier.domain.rules import (
    ProfileError,
    ProfileRegistry,
    build_registry,
    compile_profile,
    resolve_profile,
)

from .factory import compile_yaml, item, names


def raws_with(**profiles: str) -> dict:
    raws = dict(read_profiles())
    for name, text in profiles.items():
        raws[name] = (f"/profiles/{name}.yaml", yaml.safe_load(text))
    return raws


ERROR_CASES = [
    (
        "unknown field",
        "profile: p\nmodules:\n  - name: rocm\n    title_prefix: [rocm]\n",
        [
            "/profiles/p.yaml",
            "modules rule 'rocm'",
            "title_prefix",
            "Extra inputs are not permitted",
        ],
    ),
    (
        "bad regex",
        "profile: p\nmodules:\n  - name: odd\n    title_regex: ['(unclosed']\n",
        [
            "/profiles/p.yaml",
            "modules rule 'odd'",
            "title_regex",
            "invalid regular expression '(unclosed'",
        ],
    ),
    (
        "bad labeler key",
        "profile: p\nmodules:\n  - name: docs\n    files: [{changed-files: [{any-glob-to-some-file: ['docs/**']}]}]\n",
        ["modules rule 'docs'", "files", "labeler syntax", "any-glob-to-some-file"],
    ),
    (
        "bad glob",
        "profile: p\nrisks:\n  - name: r\n    paths: ['']\n",
        ["risks rule 'r'", "paths", "non-empty string"],
    ),
    (
        "risk without a condition",
        "profile: p\nrisks:\n  - name: empty\n    severity: high\n",
        ["risks rule 'empty'", "at least one condition"],
    ),
    (
        "bad severity",
        "profile: p\nrisks:\n  - name: r\n    severity: critical\n    keywords: [x]\n",
        ["risks rule 'r'", "severity", "'low', 'medium' or 'high'"],
    ),
    (
        "size without thresholds",
        "profile: p\nrisks:\n  - name: big\n    kind: size\n",
        ["risks rule 'big'", "needs `lines` or `files_count`"],
    ),
    (
        "duplicate names",
        "profile: p\nmodules:\n  - {name: a, keywords: [x]}\n  - {name: a, keywords: [y]}\n",
        ["/profiles/p.yaml", "two rules named 'a'"],
    ),
    (
        "unnamed rule",
        "profile: p\nmodules:\n  - keywords: [x]\n",
        ["modules rule '#1'", "name", "Field required"],
    ),
    (
        "unknown extends",
        "profile: p\nextends: nowhere\n",
        ["extends", "unknown profile 'nowhere'", "known profiles"],
    ),
]


@pytest.mark.parametrize(
    "text,fragments", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_validation_errors_name_file_rule_and_problem(text, fragments):
    with pytest.raises(ProfileError) as err:
        resolve_profile("p", raws_with(p=text))
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)


def test_errors_in_a_parent_name_the_parent_file():
    raws = raws_with(
        child="profile: child\nextends: parent\n",
        parent="profile: parent\nmodules:\n  - {name: x, labels: 5}\n",
    )
    with pytest.raises(ProfileError, match=r"/profiles/parent.yaml: modules rule 'x'"):
        resolve_profile("child", raws)


def test_extends_loops_are_reported():
    raws = raws_with(a="profile: a\nextends: b\n", b="profile: b\nextends: a\n")
    with pytest.raises(ProfileError, match="loops: a -> b -> a"):
        resolve_profile("a", raws)


def test_yaml_errors_and_file_names(tmp_path):
    from services.classifier.adapters.profiles import read_profile_file

    bad = tmp_path / "broken.yaml"
    bad.write_text("profile: broken\nmodules:\n  - name: [unclosed\n")
    with pytest.raises(ProfileError, match=r"broken.yaml \(line \d+, column \d+\): invalid YAML"):
        read_profile_file(bad)
    other = tmp_path / "mine.yaml"
    other.write_text("profile: theirs\n")
    with pytest.raises(ProfileError, match="must equal the file name"):
        read_profile_file(other)


def test_child_rules_replace_parent_rules_by_name_and_inherit_the_rest():
    rs = compile_yaml("""
profile: child
extends: default
modules:
  - name: docs
    title_prefixes: [manual]
""")
    modules = [n for n, _ in rs.modules]
    assert modules.count("docs") == 1 and "tests" in modules and "ci/build" in modules
    assert names(rs.classify(item("[Manual] update")).modules) == ["docs"]
    assert names(rs.classify(item("[Doc] update")).modules) != [
        "docs"
    ]  # the parent's docs rule was replaced
    assert "code-without-tests" in [r.name for r, _ in rs.risks]  # risks inherited


BASE = """
profile: v
modules:
  - name: rocm
    title_prefixes: [rocm]
    keywords: [aiter]
risks:
  - name: big
    kind: size
    lines: 500
"""


def version(text: str, **extra: str) -> str:
    profile, _ = resolve_profile("v", raws_with(v=text, **extra))
    return compile_profile(profile).ref.version


def test_version_is_stable_for_the_same_content():
    reordered = """
risks:
  - lines: 500
    kind: size
    name: big
modules:
  - keywords: [aiter]
    name: rocm
    title_prefixes: [rocm]
profile: v
"""
    assert version(BASE) == version(BASE) == version(reordered)
    assert len(version(BASE)) == 64


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace("lines: 500", "lines: 501"),
        lambda t: t.replace("[aiter]", "[aiter, hip]"),
        lambda t: t + "categories:\n  - {name: perf, keywords: [faster]}\n",
    ],
)
def test_any_rule_change_gives_a_new_version(change):
    assert version(change(BASE)) != version(BASE)


def test_a_change_in_the_parent_changes_the_child():
    child = BASE + "extends: parent\n"
    a = version(child, parent="profile: parent\nmodules:\n  - {name: x, keywords: [y]}\n")
    b = version(child, parent="profile: parent\nmodules:\n  - {name: x, keywords: [z]}\n")
    assert a != b


def test_enriched_events_carry_profile_and_version():
    rs = compile_yaml(BASE)
    assert rs.ref.profile == "v" and rs.ref.version == version(BASE)


@pytest.mark.parametrize(
    "repo,profile",
    [
        ("vllm-project/vllm", "vllm"),
        ("VLLM-Project/vllm-ascend", "vllm-ascend"),
        ("repodigest-demo/llm-serve", "vllm"),
        ("vllm-project/vllm-gaudi", "llm-serving"),  # other plugins: the shared base
        ("acme/widgets", "generic"),
    ],
)
def test_profile_by_repository(repo, profile):
    assert load_registry().profile_name(repo) == profile


def test_overrides_win_and_unknown_overrides_fail_early():
    registry = load_registry(
        overrides={"acme/widgets": "llm-serving", "vllm-project/vllm": "default"}
    )
    assert registry.for_repo("acme/widgets").name == "llm-serving"
    assert registry.for_repo("vllm-project/vllm").name == "generic"  # `default` is an alias
    with pytest.raises(ProfileError, match="'acme/x' is set to use profile 'nope'"):
        load_registry(overrides={"acme/x": "nope"})


def test_exact_repo_names_beat_globs():
    raws = raws_with(special="profile: special\nrepos: [vllm-project/vllm-gaudi]\n")
    registry = build_registry(raws)
    assert registry.profile_name("vllm-project/vllm-gaudi") == "special"
    assert registry.profile_name("vllm-project/vllm-spyre") == "llm-serving"


def test_profiles_dir_replaces_builtins_and_codeowners_file(tmp_path: Path):
    (tmp_path / "generic.yaml").write_text(
        "profile: generic\nmodules:\n  - {name: only, keywords: [magic]}\n"
    )
    owners = tmp_path / "CODEOWNERS"
    owners.write_text("/engine/ @core\n")
    registry = load_registry(tmp_path, codeowners={"*": owners})
    rs = registry.for_repo("acme/widgets")
    assert [n for n, _ in rs.modules] == ["only"]
    assert names(rs.classify(item("x", ["engine/run.py"])).modules) == ["engine"]
    with pytest.raises(ProfileError, match="cannot read the CODEOWNERS file"):
        load_registry(codeowners={"*": tmp_path / "missing"})
    with pytest.raises(ProfileError, match="does not exist"):
        load_registry(tmp_path / "nope")


def test_builtin_profiles_are_packaged():
    assert {p.stem for p in BUILTIN_PROFILES.glob("*.yaml")} >= {
        "generic",
        "llm-serving",
        "vllm",
        "vllm-ascend",
    }
    assert isinstance(load_registry(), ProfileRegistry)
