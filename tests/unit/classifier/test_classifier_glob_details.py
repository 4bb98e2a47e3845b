"""Glob and labeler-condition details by hand, from the survivors of mutation testing globs.py
(issue #20 item 4): a brace glob matches every alternative (one regex per alternative, each
tried alone), a glob that expands past wcmatch's limit is refused naming itself, and what a
condition says when it has nothing to judge (no files; no branch for a branch rule inside
`all`) — never a match."""

from __future__ import annotations

import re

import pytest

from services.classifier.domain.globs import (
    FileSet, GlobError, GlobTable, compile_glob, glob_alternatives, parse_labeler,
)


@pytest.mark.parametrize("path,matches", [
    ("docs/guide/intro.txt", True),     # the first alternative
    ("src/pkg/notes.md", True),         # the second
    ("README.md", True),
    ("src/pkg/notes.py", False),
])
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
    assert str(info.value) == ("invalid glob '{1..1000000}': Pattern limit exceeded the limit "
                               "of 1000")


def labeler(config) -> tuple:
    table = GlobTable()
    return parse_labeler(config, table), table


@pytest.mark.parametrize("op", ["any-glob-to-any-file", "any-glob-to-all-files",
                                "all-globs-to-any-file", "all-globs-to-all-files"])
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
    config, table = labeler([{"all": [{"changed-files": [
        {"any-glob-to-any-file": ["**/*.py"]}, {"all-globs-to-all-files": ["src/**"]}]}]}])
    assert config.test(FileSet.build(table, ["src/a.py", "src/b.txt"])) is True
    assert config.test(FileSet.build(table, ["src/a.py", "docs/b.txt"])) is False
