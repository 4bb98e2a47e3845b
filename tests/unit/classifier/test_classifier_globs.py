"""Glob matching and the actions/labeler v5 `changed-files` syntax."""

from __future__ import annotations

import re

import pytest
from wcmatch import glob as wcglob

from services.classifier.domain.globs import (
    GLOB_FLAGS,
    FileSet,
    GlobError,
    GlobTable,
    parse_labeler,
)

PATHS = [
    "vllm/v1/core/sched/scheduler.py",
    "csrc/rocm/attention.cu",
    "docs/features/spec_decode.md",
    "README.md",
    ".github/workflows/ci.yml",
    "tests/v1/core/test_scheduler.py",
    "vllm/model_executor/layers/fused_moe/layer.py",
    "vllm_ascend/ops/fused_moe/fused_moe.py",
    "a/.hidden/x.py",
    "setup.py",
    "docker/Dockerfile.rocm",
]
GLOBS = [
    "**/*.py",
    "vllm/**",
    "**/rocm/**",
    "docs/**",
    "*.md",
    "**/*.md",
    "**/fused_moe/**",
    "{docs/**,**/*.md}",
    ".github/**",
    "tests/**/test_*.py",
    "**/*moe*.py",
    "docker/Dockerfile.rocm*",
    "**/.hidden/**",
    "vllm/v1/core/**",
    "**/[st]etup.py",
    "csrc/**/*.cu",
]


@pytest.mark.parametrize("glob", GLOBS)
def test_table_masks_agree_with_wcmatch_globmatch(glob):
    table = GlobTable()
    bit = table.bit(glob)
    for other in GLOBS:  # other globs in the table must not disturb this one's bit
        table.bit(other)
    for path in PATHS:
        expected = wcglob.globmatch(path, glob, flags=GLOB_FLAGS)
        assert bool(table.mask(path) >> bit & 1) == expected, (glob, path)


def test_negated_glob_matches_paths_the_pattern_does_not():
    table = GlobTable()
    bit = table.bit("!**/*.md")
    assert table.mask("README.md") >> bit & 1 == 0
    assert table.mask("vllm/x.py") >> bit & 1 == 1


def check(config, files, base=None) -> bool:
    table = GlobTable()
    compiled = parse_labeler(config, table)
    return compiled.test(FileSet.build(table, files), base)


CF = "changed-files"
CASES = [
    # (id, labeler config, files, expected)
    (
        "any-any hit",
        [{CF: [{"any-glob-to-any-file": ["docs/**", "**/*.md"]}]}],
        ["vllm/a.py", "docs/x.md"],
        True,
    ),
    ("any-any miss", [{CF: [{"any-glob-to-any-file": "docs/**"}]}], ["vllm/a.py"], False),
    (
        "any-all hit",
        [{CF: [{"any-glob-to-all-files": ["docs/**", "**/*.md"]}]}],
        ["docs/a.md", "docs/b.rst"],
        True,
    ),
    (
        "any-all miss (no single glob covers all)",
        [{CF: [{"any-glob-to-all-files": ["docs/**", "**/*.py"]}]}],
        ["docs/a.rst", "vllm/b.py"],
        False,
    ),
    (
        "all-any hit",
        [{CF: [{"all-globs-to-any-file": ["vllm/**", "**/*.py"]}]}],
        ["docs/a.md", "vllm/b.py"],
        True,
    ),
    (
        "all-any miss",
        [{CF: [{"all-globs-to-any-file": ["vllm/**", "**/*.cu"]}]}],
        ["csrc/a.cu", "vllm/b.py"],
        False,
    ),
    (
        "all-all hit with negation",
        [{CF: [{"all-globs-to-all-files": ["**/*.py", "!tests/**"]}]}],
        ["vllm/a.py", "vllm/b.py"],
        True,
    ),
    (
        "all-all miss with negation",
        [{CF: [{"all-globs-to-all-files": ["**/*.py", "!tests/**"]}]}],
        ["vllm/a.py", "tests/test_a.py"],
        False,
    ),
    (
        "entries inside changed-files are OR-ed in an any group",
        [{CF: [{"any-glob-to-any-file": "csrc/**"}, {"any-glob-to-all-files": "vllm/**"}]}],
        ["vllm/x.py"],
        True,
    ),
    (
        "explicit all group: every entry must hold",
        [
            {
                "all": [
                    {
                        CF: [
                            {"any-glob-to-any-file": "vllm/**"},
                            {"all-globs-to-all-files": ["!docs/**"]},
                        ]
                    }
                ]
            }
        ],
        ["vllm/x.py", "docs/y.md"],
        False,
    ),
    (
        "explicit all group holds",
        [
            {
                "all": [
                    {
                        CF: [
                            {"any-glob-to-any-file": "vllm/**"},
                            {"all-globs-to-all-files": ["!docs/**"]},
                        ]
                    }
                ]
            }
        ],
        ["vllm/x.py", "csrc/y.cu"],
        True,
    ),
    (
        "top-level groups are AND-ed",
        [
            {"any": [{CF: [{"any-glob-to-any-file": "vllm/**"}]}]},
            {"all": [{CF: [{"any-glob-to-all-files": "csrc/**"}]}]},
        ],
        ["vllm/x.py"],
        False,
    ),
    ("no files never match", [{CF: [{"any-glob-to-all-files": "**"}]}], [], False),
]


@pytest.mark.parametrize("config,files,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_labeler_semantics(config, files, expected):
    assert check(config, files) is expected


def test_base_branch_regex():
    config = [{"base-branch": ["^releases/"]}]
    assert check(config, ["a.py"], base="releases/v0.11.0") is True
    assert check(config, ["a.py"], base="main") is False


@pytest.mark.parametrize(
    "config,message",
    [
        (
            [{CF: [{"any-glob-to-some-file": ["x"]}]}],
            'unknown config options were under "changed-files": any-glob-to-some-file',
        ),
        # a glob where an option mapping belongs: actions/labeler refuses it too
        ([{CF: ["docs/**"]}], 'the "changed-files" section must have a valid config structure'),
        ("docs/**", "found unexpected type (should be a list of match objects"),
        ([{"base-branch": ["(unclosed"]}], "invalid regular expression"),
    ],
)
def test_invalid_labeler_configs_say_what_is_wrong(config, message):
    with pytest.raises(GlobError, match=re.escape(message)):
        parse_labeler(config, GlobTable())


def test_unknown_keys_are_ignored_with_a_warning_as_the_action_does():
    compiled = parse_labeler(
        [{"changed_files": ["x"]}, {CF: [{"any-glob-to-any-file": "a/**"}]}], GlobTable()
    )
    assert compiled.warnings == (
        "unknown config option 'changed_files' ignored (as actions/labeler "
        "does); expected any, all, changed-files, base-branch, head-branch",
    )
    assert check([{"changed_files": ["x"]}, {CF: [{"any-glob-to-any-file": "a/**"}]}], ["a/b"])


LABELER_YML = """
profile: pasted
labeler:
  # a repository's .github/labeler.yml (v5), pasted as is
  documentation:
    - changed-files:
        - any-glob-to-any-file: ['docs/**', 'guides/*.md']
  frontend:
    - all:
        - changed-files:
            - any-glob-to-any-file: 'src/**/*.js'
            - all-globs-to-all-files: ['!src/main.js']
  release:
    - base-branch: '^releases/'
"""


def test_a_pasted_labeler_yml_makes_modules():
    from .factory import compile_yaml, item, names

    rs = compile_yaml(LABELER_YML)
    assert names(rs.classify(item("x", ["guides/a.md"])).modules) == ["documentation"]
    assert names(rs.classify(item("x", ["src/app/x.js"])).modules) == ["frontend"]
    tags = rs.classify(item("x", ["src/main.js"]))
    assert tags.modules[0].fallback  # frontend excludes src/main.js
    tags = rs.classify(item("x", ["lib/a.c"], base_branch="releases/v1"))
    assert [(t.name, t.rule) for t in tags.modules] == [("release", "module:release/files")]


def test_labeler_errors_name_the_label():
    from services.classifier.domain.rules import ProfileError, validate_profile

    with pytest.raises(
        ProfileError,
        match=r"p.yaml: labeler: .*label 'docs': unknown config options "
        r"were under \"changed-files\": any-file",
    ):
        validate_profile(
            {"profile": "p", "labeler": {"docs": [{"changed-files": [{"any-file": "x"}]}]}},
            "p.yaml",
        )
