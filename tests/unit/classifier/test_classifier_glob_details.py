"""Glob and labeler-condition details by hand, from the survivors of mutation testing globs.py
(issue #20 item 4): a brace glob matches every alternative (one regex per alternative, each
tried alone), a glob that expands past wcmatch's limit is refused naming itself, and what a
condition says when it has nothing to judge (no files; no branch for a branch rule inside
`all`; nothing the labeler knows) — never a match; the messages for empty globs; and what a file
rule says it fired on (a branch, every file for a negated glob, the labeler's file)."""

from __future__ import annotations

import re

import pytest

from services.classifier.domain.globs import (
    FileSet,
    GlobError,
    GlobTable,
    compile_glob,
    glob_alternatives,
    parse_labeler,
)

from .factory import compile_yaml, item


@pytest.mark.parametrize(
    "path,matches",
    [
        ("docs/guide/intro.txt", True),  # the first alternative
        ("src/pkg/notes.md", True),  # the second
        ("README.md", True),
        ("src/pkg/notes.py", False),
    ],
)
def test_a_brace_glob_matches_each_alternative(path, matches):
    assert (compile_glob("{docs/**,**/*.md}").fullmatch(path) is not None) is matches


def test_a_brace_glob_is_split_into_its_alternatives():
    parts = glob_alternatives("{docs/**,**/*.md}")
    assert [glob for glob, _ in parts] == ["docs/**", "**/*.md"]
    docs, md = (regex for _, regex in parts)
    assert docs.fullmatch("docs/a/b.txt") and not docs.fullmatch("src/b.md")
    assert md.fullmatch("src/b.md") and not md.fullmatch("docs/a/b.txt")
    # a glob without braces is itself
    (only,) = glob_alternatives("src/**/*.py")
    assert only[0] == "src/**/*.py" and isinstance(only[1], re.Pattern)


def test_a_glob_expanding_past_the_limit_is_refused_naming_it():
    with pytest.raises(GlobError) as info:
        compile_glob("{1..1000000}")
    assert str(info.value) == (
        "invalid glob '{1..1000000}': Pattern limit exceeded the limit of 1000"
    )


def labeler(config) -> tuple:
    table = GlobTable()
    return parse_labeler(config, table), table


@pytest.mark.parametrize(
    "op",
    [
        "any-glob-to-any-file",
        "any-glob-to-all-files",
        "all-globs-to-any-file",
        "all-globs-to-all-files",
    ],
)
def test_no_files_is_no_match_whatever_the_option(op):
    config, table = labeler([{"changed-files": [{op: ["**"]}]}])
    assert config.test(FileSet.build(table, [])) is False
    assert config.test(FileSet.build(table, ["a.py"])) is True


def test_inside_all_a_branch_rule_without_a_branch_is_no_match():
    config, table = labeler([{"all": [{"head-branch": ["^feature/"]}]}])
    files = FileSet.build(table, ["a.py"])
    assert config.test(files, head="feature/x") is True
    assert config.test(files, head=None) is False
    assert config.test(files, head="") is False


def test_inside_all_a_changed_files_option_that_fails_fails_the_group():
    config, table = labeler(
        [
            {
                "all": [
                    {
                        "changed-files": [
                            {"any-glob-to-any-file": ["**/*.py"]},
                            {"all-globs-to-all-files": ["src/**"]},
                        ]
                    }
                ]
            }
        ]
    )
    assert config.test(FileSet.build(table, ["src/a.py", "src/b.txt"])) is True
    assert config.test(FileSet.build(table, ["src/a.py", "docs/b.txt"])) is False


def test_the_inside_any_rule_with_a_branch_alternative_and_no_files_is_no_match():
    # a branch alternative makes the files shortcut unsafe: the option itself must say no
    for op in (
        "any-glob-to-any-file",
        "any-glob-to-all-files",
        "all-globs-to-any-file",
        "all-globs-to-all-files",
    ):
        config, table = labeler(
            [{"any": [{"head-branch": ["^release/"]}, {"changed-files": [{op: ["**"]}]}]}]
        )
        assert config.test(FileSet.build(table, []), head="main") is False, op
        assert config.test(FileSet.build(table, ["a.py"]), head="main") is True, op


def test_inside_all_a_base_branch_that_does_not_match_fails_the_group():
    config, table = labeler(
        [
            {
                "all": [
                    {"base-branch": ["^main$"]},
                    {"changed-files": [{"any-glob-to-any-file": ["**"]}]},
                ]
            }
        ]
    )
    files = FileSet.build(table, ["a.py"])
    assert config.test(files, base="main") is True
    assert config.test(files, base="dev") is False


def test_a_label_with_nothing_the_labeler_knows_never_matches():
    config, table = labeler([{"any": [{"head-branhc": ["^x"]}]}])  # a misspelt key
    assert config.test(FileSet.build(table, ["a.py"]), head="x") is False


@pytest.mark.parametrize(
    "glob,message",
    [
        ("", "a glob must be a non-empty string, got ''"),
        ("   ", "a glob must be a non-empty string, got '   '"),
        (5, "a glob must be a non-empty string, got 5"),
        ("!", "invalid glob '!': nothing after '!'"),
    ],
)
def test_an_empty_glob_is_refused_naming_it(glob, message):
    with pytest.raises(GlobError) as info:
        GlobTable().bit(glob)
    assert str(info.value) == message


LABELS = """
profile: evidence
labeler:
  release:
    - base-branch: '^main$'
  not-docs:
    - changed-files:
      - any-glob-to-any-file: ['!**/*.md']
  either:
    - any:
      - head-branch: ['^release']
      - changed-files:
        - any-glob-to-any-file: ['!**/*.md']
modules:
  - name: engine-or-web
    paths: ['src/engine/**']
    files:
      - changed-files:
        - any-glob-to-any-file: ['web/**']
"""


def test_what_a_file_rule_says_it_fired_on():
    """A base branch alone: the branch, not the files; a negated glob (no file is evidence by
    itself): every file; a branch alternative that did not match: the files all the same; a
    `paths` rule that does not match, beside a labeler that does: the labeler's file."""
    trace: dict[str, str] = {}
    compile_yaml(LABELS).classify(
        item("x", ["web/a.ts", "b.py"], base_branch="main", head_branch="dev"), trace
    )
    assert {k: v for k, v in trace.items() if k.startswith("module:")} == {
        "module:release/files": "base branch main",
        "module:not-docs/files": "changed web/a.ts, b.py",
        "module:either/files": "changed web/a.ts, b.py",
        "module:engine-or-web/files": "changed web/a.ts",
    }


def test_an_escaped_magic_character_is_matched_literally():
    # `docs/\*.md` is the file named `*.md` in docs/, not every Markdown file there
    table = GlobTable()
    bit = table.bit("docs/\\*.md")
    assert table.mask("docs/*.md") >> bit & 1 == 1
    assert table.mask("docs/guide.md") >> bit & 1 == 0


def test_a_path_with_the_literal_but_not_the_glob_is_not_matched():
    table = GlobTable()
    star, py, md = table.bit("*"), table.bit("*.py"), table.bit("docs/**/*.md")
    assert table.mask("a.py") == 1 << star | 1 << py  # both, whichever index comes first
    assert table.mask("src/a.py") == 0  # `*` and `*.py` stop at a slash
    assert table.mask("docs/notes.md.bak") == 0  # contains ".md", is not *.md
    assert table.mask("docs/x/notes.md") == 1 << md


def test_glob_alternatives_refuses_a_glob_expanding_past_the_limit():
    with pytest.raises(GlobError):
        glob_alternatives("{1..1000000}")


RULES = """
profile: reasons
modules:
  - name: by-label
    labels: [needs-rocm]
  - name: by-title
    title_regex: ['^.*crash']
"""


def test_what_a_label_or_a_title_rule_says():
    trace: dict[str, str] = {}
    compile_yaml(RULES).classify(item("[Bugfix] fix the crash", labels=("needs-rocm",)), trace)
    assert trace["module:by-label/label"] == 'label "needs-rocm"'
    # a regex anchored at the start does not quote the title's [prefix] blocks
    assert trace["module:by-title/title-regex"] == 'title says "fix the crash"'


BY_MODULE = """
profile: by-module
modules:
  - name: engine
    paths: ['src/engine/**']
  - name: alpha
    paths: ['src/alpha/**']
risks:
  - name: engine-touched
    paths: ['src/engine/**']
    reason: 'touches {files}'
categories:
  - name: core-work
    modules: [engine]
  - name: newcomers
    associations: [first_time_contributor]
"""


def test_what_a_module_and_an_association_rule_say():
    trace: dict[str, str] = {}
    tags = compile_yaml(BY_MODULE).classify(
        item(
            "Tweak",
            ["src/engine/a.py", "src/alpha/b.py"],
            login="bob",
            association="FIRST_TIME_CONTRIBUTOR",
        ),
        trace,
    )
    # the rule's module among the item's (alpha is the item's too, not the rule's)
    assert trace["category:core-work/module"] == "module engine"
    # a risk's reason template names the files the rule fired on
    assert [r.reason for r in tags.risks if r.name == "engine-touched"] == [
        "touches src/engine/a.py"
    ]
    assert trace["category:newcomers/association"] == "author bob is first time contributor"


def test_a_group_of_unknown_options_keeps_a_label_off_even_beside_a_files_group():
    config, table = labeler(
        [{"all": [{"head-branhc": ["^x"]}]}, {"changed-files": [{"any-glob-to-any-file": ["**"]}]}]
    )
    assert config.test(FileSet.build(table, ["a.py"]), head="x") is False
