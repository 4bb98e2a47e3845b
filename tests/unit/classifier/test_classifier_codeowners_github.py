"""CODEOWNERS against GitHub's own documentation, as an oracle independent of our code.

Source: GitHub Docs, "About code owners" (github/docs, content/repositories/
managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners.md,
at 6a7b3341537797a6e617b201f67f2e1392cdc502): its "Example of a CODEOWNERS file" with the
comments that say what each line owns, its "Syntax exceptions", "the last matching pattern takes the
most precedence", "If the code owners are not on the same line, the pattern matches only the last
mentioned code owner", and "CODEOWNERS paths are case sensitive". The expected owners below are
read off those comments, line by line; nothing here is derived from our implementation.
"""

from __future__ import annotations

import pytest
from codeowners import CodeOwners

from services.classifier.domain.codeowners import (
    OwnersMatcher,
    parse_codeowners,
    parse_codeowners_checked,
)

from .factory import compile_yaml, item, names, rules

# the docs' example file (comments shortened; the lines as the docs write them)
EXAMPLE = """\
# This is a comment.
# Each line is a file pattern followed by one or more owners.

# These owners will be the default owners for everything in the repo.
*       @global-owner1 @global-owner2

# Order is important; the last matching pattern takes the most precedence.
*.js    @js-owner #This is an inline comment.

# You can also use email addresses if you prefer.
*.go docs@example.com

# Teams can be specified as code owners as well.
*.txt @octo-org/octocats

# @doctocat owns any files in the build/logs directory at the root of the repository and any
# of its subdirectories.
/build/logs/ @doctocat

# The `docs/*` pattern will match files like `docs/getting-started.md` but not further nested
# files like `docs/build-app/troubleshooting.md`.
docs/*  docs@example.com

# @octocat owns any file in an apps directory anywhere in your repository.
apps/ @octocat

# @doctocat owns any file in the `/docs` directory in the root of your repository and any of
# its subdirectories.
/docs/ @doctocat

# Any change inside the `/scripts` directory will require approval from @doctocat or @octocat.
/scripts/ @doctocat @octocat

# @octocat owns any file in a `/logs` directory such as `/build/logs`, `/scripts/logs`, and
# `/deeply/nested/logs`.
**/logs @octocat

# @octocat owns any file in the `/apps` directory in the root of your repository except for the
# `/apps/github` subdirectory, as its owners are left empty.
/apps/ @octocat
/apps/github
"""
# "... except for the `/apps/github` subdirectory, as this subdirectory has its own owner @doctocat"
EXAMPLE_OWN_OWNER = "/apps/ @octocat\n/apps/github @doctocat\n"
# "If the code owners are not on the same line, the pattern matches only the last mentioned"
NOT_ON_ONE_LINE = "/apps/ @doctocat\n/apps/ @octocat\n"
# the /scripts/ rule for another root directory (the brief's `/.github/`)
DOT_GITHUB = "* @everyone\n/.github/ @ci-team\n"

G = ("@global-owner1", "@global-owner2")
OCTO, DOCTO = ("@octocat",), ("@doctocat",)

# (why, CODEOWNERS text, path, owners of the winning line; None: no line matches)
CASES = [
    ("* owns everything", EXAMPLE, "README.md", G),
    ("* owns everything, at any depth", EXAMPLE, "src/deep/module.py", G),
    ("* owns dot directories too", EXAMPLE, ".github/workflows/ci.yml", G),
    ("*.js: a later match wins over *", EXAMPLE, "index.js", ("@js-owner",)),
    (
        "*.js at any depth; the inline comment is no owner",
        EXAMPLE,
        "src/lib/app.js",
        ("@js-owner",),
    ),
    ("*.js is not *.jsx", EXAMPLE, "src/lib/app.jsx", G),
    ("paths are case sensitive", EXAMPLE, "src/app.JS", G),
    ("an e-mail address owns *.go", EXAMPLE, "cmd/tool/main.go", ("docs@example.com",)),
    ("a team owns *.txt", EXAMPLE, "notes/todo.txt", ("@octo-org/octocats",)),
    ("/build/logs/ is rooted: not under src/", EXAMPLE, "src/build/logs/run.md", OCTO),
    ("/build/logs/ then **/logs: the later line wins", EXAMPLE, "build/logs/run.md", OCTO),
    (
        "docs/* matches a file directly in docs/ (/docs/ comes later)",
        EXAMPLE,
        "docs/getting-started.md",
        DOCTO,
    ),
    (
        "docs/build-app/troubleshooting.md: /docs/ owns it",
        EXAMPLE,
        "docs/build-app/troubleshooting.md",
        DOCTO,
    ),
    ("apps/ anywhere", EXAMPLE, "src/apps/main.c", OCTO),
    ("a FILE named apps is not an apps directory (trailing /)", EXAMPLE, "apps", G),
    ("a file named apps deeper down neither", EXAMPLE, "src/apps", G),
    ("/apps/ owns the root apps directory", EXAMPLE, "apps/web/index.html", OCTO),
    ("/apps/github with no owners: no owners", EXAMPLE, "apps/github/hooks.rb", ()),
    (
        "/apps/github matches the directory at any depth below it",
        EXAMPLE,
        "apps/github/a/b/c.rb",
        (),
    ),
    ("/scripts/: two owners", EXAMPLE, "scripts/deploy.sh", ("@doctocat", "@octocat")),
    ("/scripts/ is rooted", EXAMPLE, "tools/scripts/deploy.sh", G),
    ("**/logs: /scripts/logs", EXAMPLE, "scripts/logs/today.md", OCTO),
    ("**/logs: /deeply/nested/logs", EXAMPLE, "deeply/nested/logs/today.md", OCTO),
    ("**/logs: a root logs directory too", EXAMPLE, "logs/today.md", OCTO),
    ("/apps/github has its own owner", EXAMPLE_OWN_OWNER, "apps/github/hooks.rb", DOCTO),
    ("the rest of /apps/ stays @octocat", EXAMPLE_OWN_OWNER, "apps/other/x.rb", OCTO),
    ("no line matches: no owners", EXAMPLE_OWN_OWNER, "README.md", None),
    ("owners on two lines: the last line only", NOT_ON_ONE_LINE, "apps/x.rb", OCTO),
    (
        "/.github/ owns the root .github directory",
        DOT_GITHUB,
        ".github/workflows/ci.yml",
        ("@ci-team",),
    ),
    ("/.github/ is rooted", DOT_GITHUB, "src/.github/x.yml", ("@everyone",)),
]

# one pattern on its own: (pattern, path, matches)
PATTERNS = [
    ("docs/*", "docs/getting-started.md", True),
    ("docs/*", "docs/build-app/troubleshooting.md", False),  # GitHub: not further nested files
    ("docs/*", "site/docs/getting-started.md", False),  # a middle '/' anchors at the root
    ("apps/", "apps/x.js", True),
    ("apps/", "apps", False),  # trailing '/': directories only
    ("/build/logs/", "build/logs/x.log", True),
    ("/build/logs/", "build/logs/2024/01/x.log", True),  # "and any of its subdirectories"
    ("/build/logs/", "build/logs", False),  # trailing '/': a file named logs is not it
    ("/docs/", "site/docs/a.md", False),
    ("/apps/github", "apps/github", True),  # no trailing '/': a file of that name too
]


def owners(text: str, path: str) -> tuple[str, ...] | None:
    rule = OwnersMatcher(parse_codeowners(text)).owner_rule(path)
    return None if rule is None else rule.effective_owners


@pytest.mark.parametrize("text,path,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_last_matching_line_owns_a_path_as_github_documents(text, path, expected):
    assert owners(text, path) == expected


@pytest.mark.parametrize("pattern,path,expected", PATTERNS)
def test_one_pattern_as_github_documents(pattern, path, expected):
    assert (owners(f"{pattern} @x", path) is not None) is expected


# "Syntax exceptions": gitignore rules that do not work in CODEOWNERS. An invalid line is skipped.
EXCEPTIONS = """\
* @everyone
*.[ch] @c-owners
!docs/ @not-docs
\\#notes.md @hash
"""


def test_what_github_says_does_not_work_is_skipped_with_a_warning():
    rules_, skipped = parse_codeowners_checked(EXCEPTIONS)
    assert [r.pattern for r in rules_] == ["*"]
    assert [w.split(":")[0] for w in skipped] == [
        "CODEOWNERS line 2",
        "CODEOWNERS line 3",
        "CODEOWNERS line 4",
    ]
    assert "'[ ]' character ranges do not work" in skipped[0]
    assert "negation does not work" in skipped[1]
    assert owners(EXCEPTIONS, "src/main.c") == ("@everyone",)
    assert owners(EXCEPTIONS, "docs/a.md") == ("@everyone",)


def test_the_codeowners_package_on_the_same_cases():
    """The package we match with agrees with every case above; the one it disagrees on is a
    character range, which GitHub says does not work in CODEOWNERS: we skip such lines first."""
    for _, text, path, expected in CASES:
        got = CodeOwners(text).matching_line(path)
        assert (tuple(o for _, o in got[0]) if got[1] is not None else None) == expected, path
    for pattern, path, expected in PATTERNS:
        assert (CodeOwners(f"{pattern} @x").matching_line(path)[1] is not None) is expected
    assert CodeOwners("* @everyone\n*.[ch] @c-owners\n").of("src/main.c") == [
        ("USERNAME", "@c-owners")
    ]


# ---------------------------------------------------------------- areas in the classifier

PROFILE = """
profile: co-github
codeowners:
  mode: fallback
"""


@pytest.mark.parametrize(
    "path,area",
    [
        ("README.md", None),  # `*` names no area
        ("docs/getting-started.md", "docs"),
        ("apps/web/index.html", "apps"),
        ("apps/github/hooks.rb", None),  # /apps/github has no owners: it clears /apps/
        ("apps", None),  # a file named apps: `*` (directories only for apps/ and /apps/)
        ("scripts/deploy.sh", "scripts"),
        ("deeply/nested/logs/today.md", "logs"),
        ("build/logs/run.md", "logs"),
        ("src/lib/app.js", None),  # *.js wins and names no area: no area, not an earlier line's
    ],
)
def test_areas_follow_the_line_github_picks(path, area):
    rs = compile_yaml(PROFILE, codeowners=EXAMPLE)
    assert rs.path_area(path) == area


def test_a_line_without_a_derivable_area_still_wins():
    rs = compile_yaml(PROFILE, codeowners="/docs/ @doctocat\n*.md @writers\n")
    assert rs.path_area("docs/guide.png") == "docs"
    assert rs.path_area("docs/guide.md") is None  # *.md is the last match
    tags = rs.classify(item("Docs", ["docs/guide.md"]))
    assert tags.modules[0].fallback and rules(tags.modules) == ["module:fallback/top-dir"]


def test_docs_star_does_not_give_nested_files_the_docs_area():
    rs = compile_yaml(PROFILE, codeowners="docs/* @docs-team\n")
    assert names(rs.classify(item("x", ["docs/index.md"])).modules) == ["docs"]
    assert rs.classify(item("x", ["docs/build-app/troubleshooting.md"])).modules[0].fallback


def test_an_owner_less_line_clears_the_area_of_the_classified_item():
    rs = compile_yaml(PROFILE, codeowners="/apps/ @octocat\n/apps/github\n")
    assert names(rs.classify(item("x", ["apps/web/a.js"])).modules) == ["apps"]
    tags = rs.classify(item("x", ["apps/github/hooks.rb"]))
    assert [(t.name, t.fallback) for t in tags.modules] == [("apps", True)]  # the top directory


def test_skipped_lines_are_warned_about_when_the_rules_load():
    rs = compile_yaml(PROFILE, codeowners=EXCEPTIONS)
    assert [w.split(": ")[1] for w in rs.warnings] == [
        "CODEOWNERS line 2",
        "CODEOWNERS line 3",
        "CODEOWNERS line 4",
    ]


def test_gitlab_section_default_owners_apply_to_lines_without_owners():
    text = "[Docs] @docs-team\n/docs/\n/guides/ @guide-owner\n"
    assert owners(text, "docs/a.md") == ("@docs-team",)
    assert owners(text, "guides/a.md") == ("@guide-owner",)
    rs = compile_yaml(PROFILE, codeowners=text)
    assert rs.path_area("docs/a.md") == "docs"  # the section names the area
