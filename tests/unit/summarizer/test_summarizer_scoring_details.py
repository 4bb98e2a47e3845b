"""Key-PR scoring details by hand, from the survivors of mutation testing report.py (issue #20
item 4). The rules, as a reader applies them (report.py `score_pr`, `key_reasons`, `_key_prs`):
- support (1 point): the title announces new capability (add/support/enable/introduce/new) in a
  model area (the main module names "model", not a loader; or one of the first three does and
  the title says "model") or a platform/hardware area (first two modules); never for a bug fix,
  nor a test, docs, CI or refactor change
- upgrade (1 point): a bump/sync title of a dependency or upstream touching 10+ files, in an
  upgrade module (upstream-sync, dependencies) or saying bump/upgrade
- removal (2 points): the title removes something and deletions - additions >= 1,000
- reviews 0.5 each up to 2; notable labels 0.75 each up to 1.5; reactions / 5 up to 1;
  user-facing 0.75; a measured claim 1.5
- reasons, at most 4, most telling first: new_model/new_hardware, upgrade, removal (else
  feature), measured_claim (else performance), storyline_lead, user_facing, large (500+ lines),
  core, discussed (5+ comments), reviewed (3+ reviews), notable_label
- at most 2 key PRs per storyline: the next best of another line takes the place
Expected values are literals worked out from these rules."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from services.summarizer.domain.report import (
    ReportPolicy,
    _has_tests,
    build_summary,
    key_reasons,
    score_pr,
)
from shared.events import Claim, Digest
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import ItemSpec, Scenario, enrich, utc, window_input

T0 = utc(2026, 3, 26, 4)
DAY = day_window(date(2026, 3, 26), "UTC")


def pr(number: int = 1, **kw) -> ItemSpec:
    base = dict(additions=9, deletions=0, files=("src/a.py", "src/b.py"))
    return ItemSpec(
        number,
        "pull_request",
        T0,
        merged=T0 + timedelta(hours=1),
        title=kw.pop("title", f"change {number}"),
        **{**base, **kw},
    )


def scored(spec: ItemSpec, lead: bool = False):
    snap, tags = spec.snapshot(spec.merged), spec.tags()
    score, signals = score_pr(snap, tags, ReportPolicy(), storyline_lead=lead)
    return ({s.name: (s.value, s.points) for s in signals}, key_reasons(snap, tags, signals))


# --------------------------------------------------------------------------- support


@pytest.mark.parametrize(
    "title,modules,categories,reason",
    [
        ("Add Qwen3 support", ("models",), (), "new_model"),
        ("Add Qwen3 support", ("Models",), (), "new_model"),  # module names fold case
        ("Add Qwen3 support", ("models", "engine"), (), "new_model"),  # the main module
        ("Enable the TPU backend", ("platform/tpu",), (), "new_hardware"),
        ("Introduce Gaudi3", ("hardware-gaudi",), (), "new_hardware"),
        ("Add Qwen3 support", ("engine", "models"), (), None),  # not the main module...
        (
            "Add the Qwen3 model",
            ("engine", "models"),
            (),
            "new_model",
        ),  # ...unless the title says so
        ("Add the Qwen3 model", ("engine", "core", "models"), (), "new_model"),
        ("Add the Qwen3 model", ("engine", "core", "cache", "models"), (), None),  # past the third
        ("Enable ROCm", ("engine", "core", "platform/rocm"), (), None),
        ("Add a GGUF model loader", ("model-loader",), (), None),  # a loader is not a model
        ("Fix Qwen3 output", ("models",), (), None),  # no new capability said
        ("Add Qwen3 support", ("models",), ("bugfix",), None),  # a bug fix is not support
        ("Add Qwen3 tests", ("models",), ("test",), None),
        ("Add Qwen3 docs", ("models",), ("docs",), None),
        ("Add Qwen3 CI job", ("models",), ("ci",), None),
        ("Add Qwen3 nightly", ("models",), ("platform-ci",), None),
        ("Add Qwen3 layout", ("models",), ("refactor",), None),
    ],
)
def test_support_for_a_new_model_or_hardware(title, modules, categories, reason):
    signals, reasons = scored(pr(title=title, modules=modules, categories=categories))
    assert signals.get("support") == ((1, 1.0) if reason else None)
    assert (reasons[0] if reasons else None) == reason


# --------------------------------------------------------------------------- upgrade, removal


def files(n: int) -> tuple[str, ...]:
    return tuple(f"src/f{i}.py" for i in range(n))


@pytest.mark.parametrize(
    "title,n_files,modules,upgrade",
    [
        ("Bump torch to 2.5", 10, (), True),  # 10 files: enough; says bump
        ("Bump torch to 2.5", 9, (), False),
        ("Bump torch to 2.5", 3, (), False),
        ("Sync with upstream main", 12, ("upstream-sync",), True),  # an upgrade module
        ("Sync with upstream main", 12, ("Dependencies",), True),
        ("Sync with upstream main", 12, ("engine",), False),  # neither module nor bump word
        ("Update docs to match v2.0", 15, ("docs",), False),
        ("Upgrade the vLLM commit to main", 37, (), True),
    ],
)
def test_a_broad_upgrade(title, n_files, modules, upgrade):
    signals, reasons = scored(pr(title=title, files=files(n_files), modules=modules))
    assert signals.get("upgrade") == ((1, 1.0) if upgrade else None)
    assert ("upgrade" in reasons) is upgrade


@pytest.mark.parametrize(
    "title,additions,deletions,removal",
    [
        ("Remove the old scheduler", 500, 1500, True),  # 1,000 net lines out: enough
        ("Remove the old scheduler", 300, 1200, False),  # 900 net
        ("Remove the old scheduler", 0, 1000, True),
        ("Remove the old scheduler", None, 1000, True),  # additions unknown count as none
        ("Rework the old scheduler", 0, 5000, False),  # does not say it removes anything
    ],
)
def test_a_large_removal(title, additions, deletions, removal):
    signals, reasons = scored(pr(title=title, additions=additions, deletions=deletions))
    assert signals.get("removal") == ((1, 2.0) if removal else None)
    assert ("removal" in reasons) is removal


# --------------------------------------------------------------------------- capped signals


def test_reviews_labels_and_reactions_at_and_past_their_caps():
    signals, _ = scored(pr(reviews=5, labels=("RFC", "breaking", "security"), reactions=2))
    assert (signals["reviews"], signals["labels"], signals["reactions"]) == (
        (5, 2.0),
        (3, 1.5),
        (2, 0.4),
    )


def test_user_facing_and_a_measured_claim():
    digest = Digest(
        user_facing="yes",
        claims=(
            Claim(kind="performance", sentence="Throughput is 1.3x higher.", figures=("1.3x",)),
        ),
    )
    signals, reasons = scored(pr(digest=digest, categories=("performance",)))
    assert (signals["user_facing"], signals["claims"]) == ((1, 0.75), (1, 1.5))
    assert reasons == ("measured_claim", "user_facing")


# --------------------------------------------------------------------------- reasons


@pytest.mark.parametrize(
    "fields,lead,reasons",
    [
        ({"categories": ("feature",)}, False, ("feature",)),
        (
            {"title": "Add Qwen3 support", "modules": ("models",), "categories": ("feature",)},
            False,
            ("new_model",),
        ),  # support says more than feature
        ({"categories": ("performance",)}, False, ("performance",)),
        ({}, True, ("storyline_lead",)),
        ({"additions": 499, "deletions": 0}, False, ()),
        ({"additions": 250, "deletions": 250}, False, ("large",)),  # 500 lines
        ({"additions": 0, "deletions": 499}, False, ()),
        ({"additions": None, "deletions": 499}, False, ()),
        ({"comments": 2, "review_comments": 3}, False, ("discussed",)),  # 5 comments
        ({"comments": 4}, False, ()),
        ({"reviews": 3}, False, ("reviewed",)),
        ({"reviews": 2}, False, ()),
        ({"labels": ("security",)}, False, ("notable_label",)),
        ({"labels": ("good first issue",)}, False, ()),
        # more than four reasons: the first four
        (
            {
                "categories": ("feature",),
                "additions": 600,
                "reviews": 3,
                "comments": 5,
                "labels": ("rfc",),
            },
            True,
            ("feature", "storyline_lead", "large", "discussed"),
        ),
    ],
)
def test_key_reasons_in_order(fields, lead, reasons):
    assert scored(pr(**fields), lead=lead)[1] == reasons


# --------------------------------------------------------------------------- the key-PR list


def test_at_most_two_key_prs_per_storyline_and_the_lead_is_marked():
    """Three large removals make the 'removals' storyline, led by the biggest (#3); five small
    changes fill the rest. 8 merged: quota 5. The removals score highest (#3 with its lead
    point, then #1 and #2 tied: the lower number first), but only two may represent their line:
    #2 gives way to the small changes #4, #5, #6."""
    removals = [
        pr(
            n,
            title=f"Remove legacy part{n}",
            additions=10,
            deletions=1000 * n + 1000,
            author=f"u{n}",
        )
        for n in (1, 2, 3)
    ]
    small = [
        pr(n, title=f"alpha{n} tweak", author=f"v{n}", additions=10, deletions=2)
        for n in (4, 5, 6, 7, 8)
    ]
    s = build_summary(window_input(Scenario(items=removals + small).events(), DAY), now=DAY.end)
    assert [(k.item.number, k.storyline) for k in s.key_prs] == [
        (3, "removals"),
        (1, "removals"),
        (4, None),
        (5, None),
        (6, None),
    ]
    lead = s.key_prs[0]
    assert {sig.name: (sig.value, sig.points) for sig in lead.signals}["storyline_lead"] == (1, 1.0)
    assert "storyline_lead" not in {sig.name for sig in s.key_prs[1].signals}
    # the report line is the item's latest snapshot, with the body excerpt
    assert (lead.item.title, lead.item.body_excerpt) == ("Remove legacy part3", "body of 3")


def test_a_key_pr_shows_its_latest_title():
    specs = [pr(n, title=f"area{n} change", author=f"u{n}") for n in range(1, 6)]
    events = Scenario(items=specs).events()
    renamed = pr(1, title="area1 change, renamed", author="u1")
    events.append(enrich(renamed, "edited", T0 + timedelta(hours=3)))
    s = build_summary(window_input(sorted(events, key=lambda e: (e.time, e.id)), DAY), now=DAY.end)
    titles = {k.item.number: k.item.title for k in s.key_prs}
    assert titles[1] == "area1 change, renamed"


# --------------------------------------------------------------------------- minor, files, tests


@pytest.mark.parametrize(
    "title,categories,minor",
    [
        ("Fix typo in logging", (), True),
        # a feature is a tweak when a typo or a log line is what it adds (2026-03-24: real #7574
        # "[Feat] Add npugraph_ex enablement logging"), not when logging is only its context
        ("Fix typo in logging", ("feature",), True),
        ("Support the scheduler with logging of stats", ("feature",), False),
        ("Tidy the scheduler", (), False),
    ],
)
def test_a_minor_change_sinks(title, categories, minor):
    signals, _ = scored(pr(title=title, categories=categories))
    assert signals.get("minor") == ((1, -2.5) if minor else None)


def test_files_are_the_changed_file_count_capped_at_one_and_a_half():
    signals, _ = scored(pr(files=files(40)))
    assert signals["files"] == (40, 1.5)
    # GitHub's changed-file count, when the snapshot lists fewer files than changed
    spec = pr()
    snap = spec.snapshot(spec.merged).model_copy(update={"changed_files": 30})
    _, got = score_pr(snap, spec.tags(), ReportPolicy())
    assert {s.name: (s.value, s.points) for s in got}["files"] == (30, 1.5)


@pytest.mark.parametrize(
    "paths,has",
    [
        (("src/a.py", "tests/test_a.py"), True),
        (("src/a.py", "src/Tests/Helpers.java"), True),  # any case
        (("src/a.py", "docs/guide.md"), False),
    ],
)
def test_a_change_has_tests_when_a_path_says_test(paths, has):
    spec = pr(files=paths)
    assert _has_tests(spec.snapshot(spec.merged)) is has
