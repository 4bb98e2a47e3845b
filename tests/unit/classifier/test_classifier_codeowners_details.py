"""CODEOWNERS details by hand, from the survivors of mutation testing codeowners.py (issue #20
item 4): the exact warning for each line GitHub skips, brackets on either side alone, comments
that look like invalid lines, escaped spaces, section default owners, owner-to-area lookups in any
case, aliases, derived areas of dotted and dot-leading names, and how the areas of a change are
ordered (lines changed per area, a file without line counts as 1, ties by name)."""

from __future__ import annotations

import pytest

from services.classifier.domain.codeowners import (
    OwnerRule,
    OwnersMatcher,
    area_of,
    derived_area,
    parse_codeowners,
    parse_codeowners_checked,
)

from .factory import compile_yaml, item, names

SKIPS = "GitHub skips the line, so does the classifier"


@pytest.mark.parametrize(
    "line,token,why",
    [
        (
            "\\#notes @a",
            "'\\\\#notes'",
            "escaping a leading '#' with '\\' does not work in CODEOWNERS",
        ),
        ("!docs/ @a", "'!docs/'", "'!' negation does not work in CODEOWNERS"),
        ("docs/[ab].md @a", "'docs/[ab].md'", "'[ ]' character ranges do not work in CODEOWNERS"),
        ("docs/a[b.md @a", "'docs/a[b.md'", "'[ ]' character ranges do not work in CODEOWNERS"),
        ("docs/a]b.md @a", "'docs/a]b.md'", "'[ ]' character ranges do not work in CODEOWNERS"),
    ],
)
def test_each_line_github_skips_gets_its_own_warning(line, token, why):
    rules, problems = parse_codeowners_checked(f"* @all\n{line}\n/src/ @dev\n")
    assert problems == [f"CODEOWNERS line 2: {token}: {why}; {SKIPS}"]
    # the lines after a skipped one are read all the same
    assert [(r.line, r.pattern, r.owners) for r in rules] == [
        (1, "*", ("@all",)),
        (3, "/src/", ("@dev",)),
    ]


def test_brackets_outside_the_pattern_do_not_make_a_line_invalid():
    rules, problems = parse_codeowners_checked(
        "#[docs] a comment that starts like a range\n/docs/ @writers # see [style guide]\n"
    )
    assert problems == []
    assert [(r.line, r.pattern, r.owners) for r in rules] == [(2, "/docs/", ("@writers",))]


def test_an_escaped_space_is_part_of_the_pattern_and_matches_it():
    rules = parse_codeowners("/my\\ notes/ @writer\n")
    assert [(r.pattern, r.owners) for r in rules] == [("/my notes/", ("@writer",))]
    matcher = OwnersMatcher(rules)
    assert matcher.owner_rule("my notes/today.txt") == rules[0]
    assert matcher.owner_rule("my/today.txt") is None


def test_a_file_without_rules_owns_nothing():
    for text in ("", "# only a comment\n", "[Docs]\n"):
        assert OwnersMatcher(parse_codeowners(text)).owner_rule("docs/a.md") is None


def test_a_section_without_default_owners_gives_none():
    rules = parse_codeowners("[Docs]\n/docs/\n[Web] @web-team\n/web/\n")
    assert [(r.pattern, r.section, r.effective_owners) for r in rules] == [
        ("/docs/", "Docs", ()),
        ("/web/", "Web", ("@web-team",)),
    ]


def test_owner_areas_are_looked_up_as_written_then_in_lower_case():
    rule = OwnerRule(1, "/ui/", ("@Org/Web",))
    assert area_of(rule, {"@Org/Web": "frontend"}, {}, False, False) == "frontend"
    assert area_of(rule, {"@org/web": "frontend"}, {}, False, False) == "frontend"
    assert area_of(rule, {"@ORG/WEB": "frontend"}, {}, False, False) is None


def test_an_alias_is_found_by_the_lower_case_name_then_as_written():
    rule = OwnerRule(1, "/x/", ("@a",), section="Frontend")
    assert area_of(rule, {}, {"frontend": "web"}, True, False) == "web"
    assert area_of(rule, {}, {"Frontend": "web"}, True, False) == "web"
    assert area_of(rule, {}, {}, True, False) == "frontend"


@pytest.mark.parametrize(
    "pattern,area",
    [
        ("/src/app.min.js", "app.min"),  # only the last extension goes
        ("/tools/a.b", "a"),
        ("/.github/", "github"),  # a leading dot is not an extension, and is dropped
        ("/config/.env.local", "env"),
        ("/Xcode/", "Xcode"),
        ("/Makefile", "Makefile"),
    ],
)
def test_derived_area_of_dotted_names(pattern, area):
    assert derived_area(OwnerRule(1, pattern, ("@x",))) == area


PROFILE = """
profile: co-weights
codeowners:
  mode: fallback
modules:
  - name: rocm
    title_prefixes: [rocm]
"""

OWNERS = "/api/ @a\n/web/ @b\n"


@pytest.mark.parametrize(
    "files,order",
    [
        # lines changed (additions + deletions) per area, summed over its files
        ([("api/a.py", 10, 0), ("web/a.ts", 6, 0), ("web/b.ts", 5, 0)], ["web", "api"]),
        ([("web/a.ts", 8, 0), ("api/a.py", 1, 9)], ["api", "web"]),
        # a file without line counts (a binary, a rename) weighs 1
        ([("api/logo.png", 0, 0), ("api/font.woff", 0, 0), ("web/a.ts", 3, 0)], ["web", "api"]),
        ([("api/logo.png", 0, 0), ("api/font.woff", 0, 0), ("web/a.ts", 1, 0)], ["api", "web"]),
        # a tie is broken by name, whatever the files' order
        ([("web/a.ts", 2, 2), ("api/a.py", 4, 0)], ["api", "web"]),
    ],
)
def test_areas_are_ordered_by_lines_changed(files, order):
    rs = compile_yaml(PROFILE, codeowners=OWNERS)
    assert names(rs.classify(item("Tweak things", files)).modules) == order
