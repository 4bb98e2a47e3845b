"""actions/labeler's own test cases, translated by hand, run through the classifier.

Upstream: github.com/actions/labeler at bf12e9b00b37c5c0ca2b87b79b2daf7891dbda13 (v7.0.0, the
matching of v5 with the v6.1 options; v7 only moved it to ESM):
  __tests__/changedFiles.test.ts, __tests__/branch.test.ts, __tests__/labeler.test.ts,
  __tests__/main.test.ts and the YAML files of __tests__/fixtures/ (rewritten below as Python data).
Each case names the upstream `describe`/`it` it comes from. Cases of the action's plumbing (the
API client, pr-number inputs, the configuration-path lookup, GitHub's 100-label cap, sync-labels
removing labels from GitHub) have nothing to match here and are left out, as are the `dot: false`
cases: `dot` is an input of the action, not part of labeler.yml, and the classifier matches as its
default `dot: true`.

Deliberate difference, kept visible: a changed-files condition on an item whose files are not
known (an issue; a webhook snapshot) is false, where the action calls any-glob-to-all-files and
all-globs-to-all-files vacuously true on a pull request with no changed files.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from services.classifier.domain.globs import FileSet, GlobError, GlobTable, parse_labeler
from services.classifier.domain.rules import CompiledRuleSet, ProfileError, validate_profile
from tests.unit.classifier.factory import compile_yaml, item

CF = "changed-files"
AA, AL, LA, LL = (
    "any-glob-to-any-file",
    "any-glob-to-all-files",
    "all-globs-to-any-file",
    "all-globs-to-all-files",
)


def ruleset(labeler: dict[str, Any]) -> CompiledRuleSet:
    return compile_yaml(yaml.safe_dump({"profile": "upstream", "labeler": labeler}))


def labels_of(
    rs: CompiledRuleSet,
    files: list[str],
    *,
    head: str | None,
    base: str | None,
    existing: tuple[str, ...] = (),
) -> list[str]:
    """The labeler labels the classifier gives a pull request (its modules from `labeler:`)."""
    tags = rs.classify(
        item("a pull request", files, head_branch=head, base_branch=base, labels=existing)
    )
    own = set(rs.profile.labeler_labels())
    return [t.name for t in tags.modules if t.name in own and not t.fallback]


# ---------------------------------------------------------------- one label: does it match?
# (upstream ref, label config, changed files, head branch, base branch, expected)
# The action's test context: head 'head-branch' / base 'base-branch' (labeler.test.ts),
# 'head'/'base' (changedFiles.test.ts), 'test/feature/123' / 'main' (branch.test.ts).
TXT = ["foo.txt", "bar.txt"]
MATCH_CASES = [
    # changedFiles.test.ts
    (
        "checkAllChangedFiles: all given glob pattern configs matched",
        [{"all": [{CF: [{AA: ["foo.txt"]}, {AL: ["*.txt"]}, {LL: ["**"]}]}]}],
        TXT,
        "head",
        "base",
        True,
    ),
    (
        "checkAllChangedFiles: some given glob pattern config did not match",
        [{"all": [{CF: [{AA: ["*.md"]}, {AL: ["*.txt"]}, {LL: ["**"]}]}]}],
        TXT,
        "head",
        "base",
        False,
    ),
    (
        "checkAnyChangedFiles: any given glob pattern config matched",
        [{"any": [{CF: [{AA: ["*.md"]}, {AL: ["*.txt"]}]}]}],
        TXT,
        "head",
        "base",
        True,
    ),
    (
        "checkAnyChangedFiles: none of the given glob pattern configs matched",
        [{"any": [{CF: [{AA: ["*.md"]}, {AL: ["!*.txt"]}]}]}],
        TXT,
        "head",
        "base",
        False,
    ),
    (
        "checkIfAnyGlobMatchesAnyFile: any given glob pattern matched any file",
        [{CF: [{AA: ["*.md", "foo.txt"]}]}],
        TXT,
        "head",
        "base",
        True,
    ),
    (
        "checkIfAnyGlobMatchesAnyFile: none of the given glob pattern matched any file",
        [{CF: [{AA: ["*.md", "!*.txt"]}]}],
        TXT,
        "head",
        "base",
        False,
    ),
    (
        "checkIfAllGlobsMatchAnyFile: all given glob patterns matched any file",
        [{CF: [{LA: ["**/bar.txt", "bar.txt"]}]}],
        TXT,
        "head",
        "base",
        True,
    ),
    (
        "checkIfAllGlobsMatchAnyFile: some of the given glob patterns did not match any file",
        [{CF: [{LA: ["*.txt", "*.md"]}]}],
        TXT,
        "head",
        "base",
        False,
    ),
    (
        "checkIfAnyGlobMatchesAllFiles: any given glob pattern matched all files",
        [{CF: [{AL: ["*.md", "*.txt"]}]}],
        TXT,
        "head",
        "base",
        True,
    ),
    (
        "checkIfAnyGlobMatchesAllFiles: none of the given glob patterns matched all files",
        [{CF: [{AL: ["*.md", "bar.txt", "foo.txt"]}]}],
        TXT,
        "head",
        "base",
        False,
    ),
    (
        "checkIfAllGlobsMatchAllFiles: all given glob patterns matched all files",
        [{CF: [{LL: ["*.txt", "**"]}]}],
        TXT,
        "head",
        "base",
        True,
    ),
    (
        "checkIfAllGlobsMatchAllFiles: some of the given glob patterns did not match all files",
        [{CF: [{LL: ["**", "foo.txt"]}]}],
        TXT,
        "head",
        "base",
        False,
    ),
    (
        "toChangedFilesMatchConfig: the value is a string (read as a one-glob list)",
        [{CF: [{AA: "foo.txt"}]}],
        TXT,
        "head",
        "base",
        True,
    ),
    # branch.test.ts (head test/feature/123, base main)
    (
        "checkAllBranch: a single pattern matches the head branch",
        [{"all": [{"head-branch": ["^test"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "checkAllBranch: a single pattern does not match the head branch",
        [{"all": [{"head-branch": ["^feature/"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        False,
    ),
    (
        "checkAllBranch: not all patterns matched",
        [{"all": [{"head-branch": ["^test/", "^feature/"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        False,
    ),
    (
        "checkAllBranch: all patterns match",
        [{"all": [{"head-branch": ["^test/", "/feature/"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "checkAllBranch: no patterns match",
        [{"all": [{"head-branch": ["^feature/", "/test$"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        False,
    ),
    (
        "checkAllBranch: the pattern matches the base branch",
        [{"all": [{"base-branch": ["^main$"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "checkAnyBranch: a single pattern matches the head branch",
        [{"any": [{"head-branch": ["^test"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "checkAnyBranch: a single pattern does not match the head branch",
        [{"any": [{"head-branch": ["^feature/"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        False,
    ),
    (
        "checkAnyBranch: at least one pattern matches",
        [{"any": [{"head-branch": ["^test/", "^feature/"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "checkAnyBranch: all patterns match",
        [{"any": [{"head-branch": ["^test/", "/feature/"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "checkAnyBranch: no patterns match",
        [{"any": [{"head-branch": ["^feature/", "/test$"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        False,
    ),
    (
        "checkAnyBranch: the pattern matches the base branch",
        [{"any": [{"base-branch": ["^main$"]}]}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "toBranchMatchConfig: the head-branch option is a string",
        [{"head-branch": "^test"}],
        ["a"],
        "test/feature/123",
        "main",
        True,
    ),
    (
        "getBranchName: no branch name (an item without a head branch) matches nothing",
        [{"head-branch": ".*"}],
        ["a"],
        None,
        "main",
        False,
    ),
    # labeler.test.ts: checkMatchConfigs (head 'head-branch', base 'base-branch')
    (
        "checkMatchConfigs single: returns true when our pattern does match changed files",
        [{"any": [{CF: [{AA: ["*.txt"]}]}]}],
        TXT,
        "head-branch",
        "base-branch",
        True,
    ),
    (
        "checkMatchConfigs single: returns false when our pattern does not match changed files",
        [{"any": [{CF: [{AA: ["*.txt"]}]}]}],
        ["foo.docx"],
        "head-branch",
        "base-branch",
        False,
    ),
    (
        "checkMatchConfigs single: true when either the branch or changed files pattern matches",
        [{"any": [{CF: [{AA: ["*.txt"]}]}, {"head-branch": ["some-branch"]}]}],
        TXT,
        "head-branch",
        "base-branch",
        True,
    ),
    (
        "checkMatchConfigs single: true for a file starting with dot if `dot` option is true",
        [{"any": [{CF: [{AA: ["*.txt"]}]}]}],
        [".foo.txt"],
        "head-branch",
        "base-branch",
        True,
    ),
    (
        "checkMatchConfigs multiple: returns false when only one config matches",
        [{"any": [{CF: [{AA: ["*.txt"]}]}]}, {"any": [{"head-branch": ["some-branch"]}]}],
        ["foo.txt", "bar.md"],
        "head-branch",
        "base-branch",
        False,
    ),
    (
        "checkMatchConfigs multiple: returns true when only both config matches",
        [{"any": [{CF: [{AA: ["*.txt"]}]}]}, {"any": [{"head-branch": ["head-branch"]}]}],
        ["foo.txt", "bar.md"],
        "head-branch",
        "base-branch",
        True,
    ),
    # src/api/get-label-configs.ts getLabelConfigMapFromObject: a top-level option joins the
    # label's first `any` group, an explicit one too (README: "default to any")
    (
        "top-level changed-files after an any: group is OR-ed into it",
        [{"any": [{"head-branch": "^release/"}]}, {CF: [{AA: "docs/**"}]}],
        ["docs/a.md"],
        "fix/x",
        "main",
        True,
    ),
    (
        "top-level head-branch after an any: group is OR-ed into it",
        [{"any": [{CF: [{AA: "docs/**"}]}]}, {"head-branch": "^docs/"}],
        ["src/a.py"],
        "docs/typo",
        "main",
        True,
    ),
    (
        "top-level options before an all: group stay AND-ed with it",
        [{CF: [{AA: "docs/**"}]}, {"all": [{"head-branch": "^docs/"}]}],
        ["docs/a.md"],
        "fix/x",
        "main",
        False,
    ),
    # labeler.test.ts toMatchConfig "and there are also unexpected options present": ignored
    (
        "toMatchConfig: unexpected options are left out",
        [{"any": [{CF: [{AA: ["*.txt"]}], "test-test": "testing"}]}],
        TXT,
        "head",
        "base",
        True,
    ),
]


@pytest.mark.parametrize(
    "config,files,head,base,expected", [c[1:] for c in MATCH_CASES], ids=[c[0] for c in MATCH_CASES]
)
def test_one_label_matches_as_the_action_decides(config, files, head, base, expected):
    # the glob level (globs.parse_labeler) ...
    table = GlobTable()
    assert parse_labeler(config, table).test(FileSet.build(table, files), base, head) is expected
    # ... and the classifier's (candidate index, caches, module tags)
    rs = ruleset({"the-label": config})
    assert labels_of(rs, files, head=head, base=base) == (["the-label"] if expected else [])


# ---------------------------------------------------------------- main.test.ts: whole files
# The fixtures of __tests__/fixtures/, rewritten as Python data.
ONLY_PDFS = {"touched-a-pdf-file": [{CF: [{AA: ["*.pdf"]}]}]}
NOT_SUPPORTED = {"label": [{"all": [{"unknown": "this-is-not-supported"}]}]}
BRANCHES = {
    "test-branch": [{"head-branch": "^test/"}],
    "feature-branch": [{"head-branch": "/feature/"}],
    "bug-branch": [{"head-branch": "^bug/|fix/"}],
    "array-branch": [{"head-branch": ["^array/"]}],
}
ANY_AND_ALL = {
    "tests": [
        {"any": [{"head-branch": ["^tests/", "^test/"]}, {CF: [{AA: ["tests/**/*"]}]}]},
        {"all": [{CF: [{LL: ["!tests/requirements.txt"]}]}]},
    ]
}
COMPONENTS = {f"component-{c}": [{CF: [{AA: [f"components/{c}/**"]}]}] for c in "abcd"}
BRANCH_ONLY = {
    "test-branch": [{"head-branch": "^test/"}],
    "feature-branch": [{"head-branch": "/feature/"}],
}
MIXED_LABELS = {**COMPONENTS, **BRANCH_ONLY}


def limit(n: int, components: str = "abcd") -> dict:
    return {
        "changed-files-labels-limit": n,
        **{k: v for k, v in COMPONENTS.items() if k[-1] in components},
        **BRANCH_ONLY,
    }


MIXED_RULES = {
    "changed-files-labels-limit": 0,
    "mixed-label": [{"any": [{"head-branch": "^test/"}, {CF: [{AA: ["components/a/**"]}]}]}],
    "pure-branch-label": [{"head-branch": "^test/"}],
}
MAX_FILES_5 = {"max-files-changed": 5, **{k: v for k, v in COMPONENTS.items() if k[-1] in "abc"}}
MAX_FILES_WITH_BRANCH = {
    "max-files-changed": 3,
    **{k: v for k, v in COMPONENTS.items() if k[-1] in "ab"},
    "test-branch": [{"head-branch": ["^test/"]}],
}
HEAD = "head-branch-name"


def comps(*names: str) -> list[str]:
    return [f"components/{n}" for n in names]


# (it, fixture, changed files, head branch, labels already on the PR, labels from the labeler)
RUN_CASES = [
    (
        "(with dot: false) adds labels to PRs that match our glob patterns",
        ONLY_PDFS,
        ["foo.pdf"],
        HEAD,
        (),
        ["touched-a-pdf-file"],
    ),
    (
        "(with dot: true) adds labels to PRs that match our glob patterns",
        ONLY_PDFS,
        [".foo.pdf"],
        HEAD,
        (),
        ["touched-a-pdf-file"],
    ),
    (
        "(with dot: true) does not add labels to PRs that do not match our glob patterns",
        ONLY_PDFS,
        ["foo.txt"],
        HEAD,
        (),
        [],
    ),
    (
        "does not add a label when the match config options are not supported",
        NOT_SUPPORTED,
        ["foo.txt"],
        HEAD,
        (),
        [],
    ),
    (
        "adds labels based on the branch names that match the regexp pattern",
        BRANCHES,
        ["a.txt"],
        "test/testing-time",
        (),
        ["test-branch"],
    ),
    (
        "adds multiple labels based on branch names that match different regexp patterns",
        BRANCHES,
        ["a.txt"],
        "test/feature/123",
        (),
        ["test-branch", "feature-branch"],
    ),
    (
        "can support multiple branches by batching",
        BRANCHES,
        ["a.txt"],
        "fix/123",
        (),
        ["bug-branch"],
    ),
    (
        "can support multiple branches by providing an array",
        BRANCHES,
        ["a.txt"],
        "array/123",
        (),
        ["array-branch"],
    ),
    ("branch labels need no changed files", BRANCHES, [], "test/testing-time", (), ["test-branch"]),
    (
        "adds a label when matching any and all patterns are provided",
        ANY_AND_ALL,
        ["tests/test.ts"],
        HEAD,
        (),
        ["tests"],
    ),
    (
        "does not add a label when not all any and all patterns are matched",
        ANY_AND_ALL,
        ["tests/requirements.txt"],
        HEAD,
        (),
        [],
    ),
    (
        "(with sync-labels) a preexisting label that no longer matches is not the labeler's",
        ONLY_PDFS,
        ["foo.txt"],
        HEAD,
        ("touched-a-pdf-file", "manually-added"),
        [],
    ),
    ("does not add labels to PRs that have no changed files", ONLY_PDFS, [], HEAD, (), []),
    # changed-files-labels-limit
    (
        "limit: applies all labels when count is within limit",
        limit(3),
        comps("a/file.ts", "b/file.ts"),
        "main",
        (),
        ["component-a", "component-b"],
    ),
    (
        "limit: skips changed-files labels when count exceeds limit",
        limit(2),
        comps("a/file.ts", "b/file.ts", "c/file.ts"),
        "main",
        (),
        [],
    ),
    (
        "limit: still applies branch-based labels when changed-files limit is exceeded",
        limit(1),
        comps("a/file.ts", "b/file.ts", "c/file.ts"),
        "test/some-feature",
        (),
        ["test-branch"],
    ),
    (
        "limit: applies all labels when no limit is set",
        MIXED_LABELS,
        comps("a/file.ts", "b/file.ts", "c/file.ts", "d/file.ts"),
        "main",
        (),
        ["component-a", "component-b", "component-c", "component-d"],
    ),
    (
        "limit: does not count preexisting labels toward the limit",
        limit(2),
        comps("a/file.ts", "b/file.ts", "c/file.ts", "d/file.ts"),
        "main",
        ("component-a", "component-b"),
        ["component-a", "component-b", "component-c", "component-d"],
    ),
    (
        "limit: skips new labels when new count exceeds limit even with preexisting",
        limit(2),
        comps("a/file.ts", "b/file.ts", "c/file.ts", "d/file.ts"),
        "main",
        ("component-a",),
        ["component-a"],
    ),
    (
        "limit: applies labels when new count equals the limit",
        limit(2),
        comps("a/file.ts", "b/file.ts"),
        "main",
        (),
        ["component-a", "component-b"],
    ),
    (
        "limit: skips all changed-files labels when limit is 0",
        limit(0, "ab"),
        comps("a/file.ts"),
        "test/some-feature",
        (),
        ["test-branch"],
    ),
    (
        "limit: treats labels with mixed rules as changed-files labels",
        MIXED_RULES,
        ["unrelated/file.ts"],
        "test/some-feature",
        (),
        ["pure-branch-label"],
    ),
    # max-files-changed
    (
        "max-files: applies labels when changed files count is within limit",
        MAX_FILES_5,
        comps("a/file.ts", "b/file.ts", "c/file.ts"),
        "main",
        (),
        ["component-a", "component-b", "component-c"],
    ),
    (
        "max-files: skips file-based labels when changed files exceed limit",
        MAX_FILES_5,
        comps("a/file1.ts", "a/file2.ts", "b/file1.ts", "b/file2.ts", "c/file1.ts", "c/file2.ts"),
        "main",
        (),
        [],
    ),
    (
        "max-files: applies labels when changed files count equals limit",
        MAX_FILES_5,
        comps("a/file1.ts", "a/file2.ts", "b/file1.ts", "b/file2.ts", "c/file.ts"),
        "main",
        (),
        ["component-a", "component-b", "component-c"],
    ),
    (
        "max-files: still applies branch-based labels when max-files-changed is exceeded",
        MAX_FILES_WITH_BRANCH,
        comps("a/file1.ts", "a/file2.ts", "b/file1.ts", "b/file2.ts"),
        "test/some-feature",
        (),
        ["test-branch"],
    ),
    (
        "max-files: preserves preexisting changed-files labels (nothing new from the labeler)",
        MAX_FILES_5,
        [f"unrelated/file{i}.ts" for i in range(1, 7)],
        "main",
        ("component-a",),
        [],
    ),
]


@pytest.mark.parametrize(
    "fixture,files,head,existing,expected",
    [c[1:] for c in RUN_CASES],
    ids=[c[0] for c in RUN_CASES],
)
def test_a_labeler_yml_labels_a_pull_request_as_the_action_does(
    fixture, files, head, existing, expected
):
    rs = ruleset(fixture)
    got = labels_of(rs, files, head=head, base="base-branch-name", existing=existing)
    assert sorted(got) == sorted(expected)


def test_max_files_changed_counts_all_changed_files_not_only_the_listed_ones():
    """A snapshot lists at most FILES_CAP files; `changed_files` is GitHub's count."""
    rs = ruleset(MAX_FILES_5)
    few = item("x", comps("a/x.ts"), head_branch="main")
    assert labels_of(rs, comps("a/x.ts"), head="main", base="main") == ["component-a"]
    assert rs.classify(few.model_copy(update={"changed_files": 6})).modules[0].fallback


def test_a_skipped_label_is_explained():
    rs = ruleset(limit(2))
    trace: dict[str, str] = {}
    rs.classify(item("x", comps("a/1", "b/1", "c/1"), head_branch="main"), trace)
    assert trace["labeler:limits"] == (
        "skipped component-a, component-b, component-c: "
        "3 new changed-files labels > changed-files-labels-limit 2"
    )


# ---------------------------------------------------------------- labeler.test.ts: parsing


def shape(config: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    """A parsed label as plain data: [(any|all, [{option: value}])], like the action's MatchConfig."""
    table = GlobTable()
    parsed = parse_labeler(config, table)

    def globs(bits: int) -> list[str]:
        return [table.pattern(i) for i in range(len(table)) if bits >> i & 1]

    out = []
    for group in parsed.groups:
        bases = []
        for b in group.bases:
            d: dict[str, Any] = {}
            if b.files:
                d["changedFiles"] = [{c.op: globs(c.bits)} for c in b.files]
            if b.head_branch is not None:
                d["headBranch"] = [p.pattern for p in b.head_branch]
            if b.base_branch is not None:
                d["baseBranch"] = [p.pattern for p in b.base_branch]
            bases.append(d)
        out.append((group.mode, bases))
    return out


ALL_OPTIONS = {  # __tests__/fixtures/all_options.yml
    "label1": [
        {"any": [{CF: [{AA: ["glob"]}]}, {"head-branch": ["regexp"]}, {"base-branch": ["regexp"]}]},
        {"all": [{CF: [{LL: ["glob"]}]}, {"head-branch": ["regexp"]}, {"base-branch": ["regexp"]}]},
    ],
    "label2": [{CF: [{AA: ["glob"]}]}, {"head-branch": ["regexp"]}, {"base-branch": ["regexp"]}],
}


def test_get_label_config_map_from_object_returns_a_match_config():
    bases = [
        {"changedFiles": [{AA: ["glob"]}]},
        {"headBranch": ["regexp"]},
        {"baseBranch": ["regexp"]},
    ]
    all_bases = [
        {"changedFiles": [{LL: ["glob"]}]},
        {"headBranch": ["regexp"]},
        {"baseBranch": ["regexp"]},
    ]
    assert shape(ALL_OPTIONS["label1"]) == [("any", bases), ("all", all_bases)]
    assert shape(ALL_OPTIONS["label2"]) == [("any", bases)]


@pytest.mark.parametrize(
    "config,expected",
    [
        # toMatchConfig: all expected config options are present (+ unexpected ones, left out)
        (
            [
                {
                    "any": [
                        {
                            CF: [{AA: ["testing-files"]}],
                            "head-branch": ["testing-head"],
                            "base-branch": ["testing-base"],
                            "test-test": "testing",
                        }
                    ]
                }
            ],
            [
                (
                    "any",
                    [
                        {
                            "changedFiles": [{AA: ["testing-files"]}],
                            "headBranch": ["testing-head"],
                            "baseBranch": ["testing-base"],
                        }
                    ],
                )
            ],
        ),
        # toBranchMatchConfig
        ([{"any": [{CF: [{"any": ["testing"]}]}]}], GlobError),  # unknown changed-files option
        ([{"head-branch": ["testing"]}], [("any", [{"headBranch": ["testing"]}])]),
        ([{"head-branch": "testing"}], [("any", [{"headBranch": ["testing"]}])]),
        ([{"base-branch": ["testing"]}], [("any", [{"baseBranch": ["testing"]}])]),
        ([{"base-branch": "testing"}], [("any", [{"baseBranch": ["testing"]}])]),
        (
            [{"base-branch": ["testing"], "head-branch": ["testing"]}],
            [("any", [{"baseBranch": ["testing"]}, {"headBranch": ["testing"]}])],
        ),
        # toChangedFilesMatchConfig: no changed-files key; an array value; a string value
        ([{"any": [{"head-branch": "test"}]}], [("any", [{"headBranch": ["test"]}])]),
        ([{CF: [{AA: ["testing"]}]}], [("any", [{"changedFiles": [{AA: ["testing"]}]}])]),
        ([{CF: [{AA: "testing"}]}], [("any", [{"changedFiles": [{AA: ["testing"]}]}])]),
    ],
)
def test_match_config_shapes(config, expected):
    if expected is GlobError:
        with pytest.raises(GlobError):
            shape(config)
    else:
        assert shape(config) == expected


@pytest.mark.parametrize(
    "config,message",
    [
        # toChangedFilesMatchConfig: "but the glob pattern config key is not provided"
        ([{CF: ["bar"]}], 'the "changed-files" section must have a valid config structure'),
        # "but the glob pattern config key is not valid"
        (
            [{CF: [{"NotValidConfigKey": ["bar"]}]}],
            'unknown config options were under "changed-files": NotValidConfigKey',
        ),
    ],
)
def test_changed_files_errors(config, message):
    with pytest.raises(GlobError, match=re.escape(message)):
        parse_labeler(config, GlobTable())


@pytest.mark.parametrize(
    "config,uses",
    [
        # configUsesChangedFiles
        ([{"any": [{CF: [{AA: ["*.txt"]}]}]}], True),
        ([{"all": [{CF: [{LL: ["*.txt"]}]}]}], True),
        ([{"any": [{"head-branch": ["^test/"]}]}, {"any": [{"base-branch": ["main"]}]}], False),
        ([{"any": [{CF: []}]}], False),
        ([{"any": [{CF: [{}]}]}], False),
        ([{"any": [{CF: [{AA: ["*.txt"]}]}, {"head-branch": ["^feature/"]}]}], True),
    ],
)
def test_config_uses_changed_files(config, uses):
    assert parse_labeler(config, GlobTable()).uses_files is uses


def test_not_supported_options_are_ignored_and_logged():
    """fixtures/not_supported.yml: the action logs the unknown key and never applies the label."""
    rs = ruleset(NOT_SUPPORTED)
    assert rs.warnings == (
        "profile 'upstream': labeler label 'label': all: unknown config option "
        "'unknown' ignored (as actions/labeler does); expected changed-files, "
        "base-branch, head-branch",
    )
    rs = ruleset({"docs": [{CF: [{AA: "docs/**"}]}, {"colour": "blue"}]})
    assert len(rs.warnings) == 1 and "'colour' ignored" in rs.warnings[0]
    assert labels_of(rs, ["docs/a.md"], head="x", base="main") == ["docs"]


# getLabelConfigResultFromObject: the v6.1+ top-level options
LABEL1 = [{CF: [{AA: ["*.txt"]}]}]


@pytest.mark.parametrize(
    "options,limit_,max_files",
    [
        ({"changed-files-labels-limit": 5}, 5, None),  # extracts ... as a number
        ({"changed-files-labels-limit": "10"}, 10, None),  # parses ... from string
        ({"changed-files-labels-limit": " 5 "}, 5, None),  # trims whitespace
        ({}, None, None),  # returns undefined when not set
        ({"changed-files-labels-limit": 0}, 0, None),  # accepts zero
        ({"max-files-changed": 100}, None, 100),
        ({"max-files-changed": "50"}, None, 50),
        ({"max-files-changed": 0}, None, 0),
        ({"changed-files-labels-limit": 5, "max-files-changed": 100}, 5, 100),  # both together
    ],
)
def test_top_level_options_are_read(options, limit_, max_files):
    rs = ruleset({**options, "label1": LABEL1})
    assert (rs.changed_files_labels_limit, rs.max_files_changed) == (limit_, max_files)
    assert list(rs.profile.labeler_labels()) == ["label1"]  # options are not labels


@pytest.mark.parametrize(
    "options,message",
    [
        (
            {"changed-files-labels-limit": "invalid"},
            "invalid value for 'changed-files-labels-limit'",
        ),
        ({"changed-files-labels-limit": -1}, "must be a non-negative integer"),
        ({"changed-files-labels-limit": "10abc"}, "must be a non-negative integer"),
        ({"changed-files-labels-limit": "3.2"}, "must be a non-negative integer"),
        ({"changed-files-labels-limit": 3.2}, "must be a non-negative integer"),
        ({"max-files-changed": "invalid"}, "invalid value for 'max-files-changed'"),
        ({"max-files-changed": -1}, "must be a non-negative integer"),
        (
            {"max-files-changed": LABEL1},
            "reserved top-level option and cannot be used as a label name",
        ),
        (
            {"changed-files-labels-limit": LABEL1},
            "reserved top-level option and cannot be used as a label name",
        ),
    ],
)
def test_bad_top_level_options_are_refused(options, message):
    with pytest.raises(ProfileError, match=re.escape(message)):
        validate_profile({"profile": "p", "labeler": {**options, "label1": LABEL1}}, "p.yaml")


def test_classify_cli_warns_and_explains(tmp_path):
    import io
    import json

    from services.classifier.cli import classify_command

    profile = tmp_path / "lp.yaml"
    profile.write_text(
        yaml.safe_dump(
            {
                "profile": "lp",
                "labeler": {
                    **limit(1, "ab"),
                    "component-b": [{CF: [{AA: "components/b/**"}]}, {"colour": "blue"}],
                },
            }
        )
    )
    items = tmp_path / "items.jsonl"
    items.write_text(
        json.dumps(
            {"number": 1, "title": "x", "head_branch": "test/x", "files": comps("a/1", "b/1")}
        )
        + "\n"
    )
    out, err = io.StringIO(), io.StringIO()
    assert classify_command(str(profile), str(items), explain=True, out=out, err=err) == 0
    assert err.getvalue() == (
        "warning: profile 'lp': labeler label 'component-b': unknown config "
        "option 'colour' ignored (as actions/labeler does); expected any, "
        "all, changed-files, base-branch, head-branch\n"
    )
    text = out.getvalue()
    assert "- test-branch: head branch test/x  <module:test-branch/files>" in text
    assert (
        "(labeler: skipped component-a, component-b: 2 new changed-files labels > "
        "changed-files-labels-limit 1)"
    ) in text
