"""Storylines: terms that stand out against the history, reference chains, roles, leads, and the
real vllm-ascend history (a week of DeepSeek-V4 and MTP work)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from services.summarizer.domain.storylines import (
    ItemLink,
    StoryItem,
    _short_name,
    find_storylines,
    resolve_links,
    role_of,
    term_counts_of,
    terms_of,
)
from shared.events import Digest, Reference
from tests.conftest import require_shared_data

T0 = datetime(2026, 6, 8, tzinfo=UTC)


def it(
    number: int,
    title: str,
    *,
    day: float = 1.0,
    files=("src/core.py",),
    categories=(),
    digest: Digest | None = None,
    lines: int = 10,
    bot: bool = False,
    merged: bool = True,
) -> StoryItem:
    return StoryItem(
        number=number,
        title=title,
        merged_at=T0 + timedelta(days=day) if merged else None,
        digest=digest,
        files=tuple(files),
        categories=tuple(categories),
        modules=(),
        additions=lines,
        deletions=lines // 2,
        bot=bot,
    )


# a history of 1,000 titles: "fix" and "support" everywhere, "cache" now and then, "DeepSeek-V4"
# and "MTP" rare, "build cache" never
HISTORY = (
    [f"[BugFix] fix crash in worker {i}" for i in range(300)]
    + [f"[Feature] support model family {i}" for i in range(200)]
    + [f"Add option {i} to scheduler" for i in range(150)]
    + [f"[Perf] cache attention metadata {i}" for i in range(40)]
    + ["[Model] DeepSeek-V4 weights loader", "MTP draft head"]
    + [f"[Doc] update guide section {i}" for i in range(208)]
    + [f"[CI] pin runner image {i}" for i in range(100)]
)
COUNTS = term_counts_of(HISTORY)
FILLER = [
    it(500 + i, f"[Misc] tidy component{i} internals", day=i % 7, files=(f"src/c{i}.py",))
    for i in range(30)
]


def titles(lines) -> set[str]:
    return {s.name for s in lines}


def test_terms_normalise_case_separators_tags_and_references():
    for title in (
        "[Model] DeepSeek-V4 loader (#12)",
        "deepseek_v4 loader",
        "DeepSeek V4 loader #3",
        "Loader for DeepSeekV4",
    ):
        assert "deepseekv4" in terms_of(title), title
    t = terms_of("[BugFix][DSV4] Fix the build cache of Qwen3.5 (#99)")
    assert {"dsv4", "bugfix", "buildcache", "build", "cache", "qwen3.5"} <= t
    assert not {"the", "of", "99", "#99"} & t
    assert "2026" not in "".join(terms_of("[Doc] Translated Doc files 2026-06-10"))
    assert COUNTS["fix"] == 300 and COUNTS["support"] == 200


@pytest.mark.parametrize(
    "title,categories,digest,role",
    [
        ('[Misc] Revert "add ops log (#10)"', ("feature",), None, "revert"),
        ("[Bugfix][Revert] Revert Build cache temporarily", (), None, "revert"),
        (
            "Undo the cache",
            ("bugfix",),
            Digest(refs=(Reference(kind="reverts", number=3),)),
            "revert",
        ),
        ("Undo the cache", ("bugfix",), Digest(refs=(Reference(kind="fix_up", number=3),)), "fix"),
        ("[Feature] add MTP for Qwen", ("feature", "test"), None, "feature"),
        ("[BugFix][Performance] Fix MTP sync", ("bugfix", "performance"), None, "fix"),
        ("[Perf] faster sampler", (), None, "perf"),
        ("[Doc] Update guide", (), None, "docs"),
        ("[CI] fix nightly", ("platform-ci",), None, "ci"),
        ("[Test] add e2e case", (), None, "test"),
        ("Support W8A8 on 310P", (), None, "feature"),
        ("Fix typo", (), None, "fix"),
        ("Rework things", (), None, "other"),
    ],
)
def test_roles(title, categories, digest, role):
    assert role_of(it(1, title, categories=categories, digest=digest)) == role


def test_links_by_number_and_by_quoted_revert_title():
    items = {
        1: it(1, "[Feature] Add incremental build cache", day=0),
        2: it(2, '[CI] Revert "Add incremental build cache"', day=1),
        3: it(
            3,
            "[BugFix] Fix build cache key",
            day=2,
            digest=Digest(
                refs=(
                    Reference(kind="fix_up", number=1),
                    Reference(kind="related", number=2),
                    Reference(kind="fixes", number=77),
                )
            ),
        ),
        4: it(4, 'Revert "Fix build cache key (#3)"', day=3),
        5: it(
            5,
            "Later",
            digest=Digest(
                refs=(
                    Reference(kind="reverts", title="[Feature] Add incremental build cache"),
                    Reference(kind="follow_up", number=9, repo="other/repo"),
                )
            ),
        ),
    }
    assert sorted(resolve_links(items), key=lambda link: link.source) == [
        ItemLink(2, 1, "reverts"),
        ItemLink(3, 1, "fix_up"),
        ItemLink(4, 3, "reverts"),
        ItemLink(5, 1, "reverts"),
    ]


def test_a_term_frequent_here_and_rare_in_history_forms_a_storyline_and_fix_support_do_not():
    current = FILLER + [
        it(
            1,
            "[Model] Support DeepSeek-V4 sparse attention",
            day=1,
            files=("m/deepseek_v4.py",),
            lines=900,
            categories=("feature",),
            digest=Digest(what="Adds DeepSeek-V4 sparse attention."),
        ),
        it(
            2,
            "[BugFix] Fix DeepSeek V4 rope",
            day=2,
            files=("m/deepseek_v4.py",),
            categories=("bugfix",),
        ),
        it(3, "[BugFix] fix deepseek_v4 weight loading", day=3, files=("m/deepseek_v4.py",)),
        it(4, "[Test] Add DeepSeek-V4 accuracy test", day=4, files=("tests/test_dsv4.py",)),
        it(10, "[Feature] Support MTP for Qwen", day=1, files=("spec/mtp.py",)),
        it(11, "[BugFix] Fix MTP placeholder", day=2, files=("spec/mtp.py",)),
        it(12, "[Perf] Faster MTP sampling", day=3, files=("spec/mtp.py",)),
        it(20, "[BugFix] fix support for scheduler", day=1),
        it(21, "[Feature] support option", day=2),
        it(22, "[BugFix] fix worker support", day=3),
        it(23, "Add support for X", day=4),
    ]
    lines = find_storylines(current, [], COUNTS, len(HISTORY))
    by_key = {s.key: s for s in lines}
    dsv4 = by_key["deepseekv4"]
    assert dsv4.name == "DeepSeek-V4" and dsv4.evidence == "term"
    assert [m.number for m in dsv4.items] == [1, 2, 3, 4]
    assert [m.role for m in dsv4.items] == ["feature", "fix", "fix", "test"]
    assert dsv4.lead == 1 and dsv4.summary == "Adds DeepSeek-V4 sparse attention."
    assert dsv4.merged == 4 and dsv4.lines_added == 900 + 30 and dsv4.status == "new"
    assert by_key["mtp"].name == "MTP" and {m.number for m in by_key["mtp"].items} == {10, 11, 12}
    for generic in ("fix", "support", "add", "bugfix", "feature"):
        assert generic not in by_key
    assert lines[0].key == "deepseekv4"  # the larger one first


def test_a_bigram_is_named_as_written_and_absorbs_its_words():
    current = FILLER + [
        it(1, "[CI] Add ninja build cache for csrc", files=("CMakeLists.txt", "setup.py")),
        it(2, "[CI] Fix build cache in CI env", files=("setup.py",)),
        it(
            3,
            "[CI] build cache: hash-based keys",
            files=("CMakeLists.txt", ".github/workflows/build.yaml"),
        ),
        it(4, "Warm the Build cache nightly", files=(".github/workflows/nightly.yaml",)),
    ]
    lines = find_storylines(current, [], COUNTS, len(HISTORY))
    assert [(s.key, s.name, len(s.items)) for s in lines] == [("buildcache", "build cache", 4)]
    assert lines[0].terms[0] == "build cache"
    # a plain phrase (no capitals, digits or '_') must also hold its items together by their files
    scattered = [replace(i, files=(f"x/{i.number}.py",)) for i in current]
    assert find_storylines(scattered, [], COUNTS, len(HISTORY)) == []


def test_an_identifier_or_a_bare_version_is_named_as_a_reader_would():
    # a code identifier as the stand-out term: the largest change's headline names the line
    selection = FILLER + [
        it(
            1,
            "[CI] Refactor test selection: config-driven routing, estimated_times",
            lines=900,
            files=(".github/workflows/a.yaml",),
        ),
        it(2, "[CI] Fix schedule_update_estimated_times bug", files=(".github/workflows/b.yaml",)),
        it(3, "[CI] Fix estimated_times permission", files=(".github/workflows/c.yaml",)),
    ]
    lines = find_storylines(selection, [], COUNTS, len(HISTORY))
    assert [(s.name, len(s.items)) for s in lines] == [("Refactor test selection", 3)]
    # a version alone is the upgrade's target, as the upgrade's title writes it
    upgrade = FILLER + [
        it(1, "[Misc] Main2main Upgrade vLLM to v0.21.0", lines=300, files=("requirements.txt",)),
        it(2, "[BugFix] fix GLM load weight error on v0.21.0", files=("m/glm.py",)),
        it(3, "[Test] update upstream cases to v0.21.0", files=("tests/e2e/x.py",)),
    ]
    lines = find_storylines(upgrade, [], COUNTS, len(HISTORY))
    assert [(s.name, len(s.items)) for s in lines] == [("vLLM v0.21.0", 3)]


def _with_modules(item: StoryItem, *modules: str) -> StoryItem:
    return replace(item, modules=modules)


def test_a_busy_module_no_storyline_took_is_a_line_of_its_own_after_the_named_ones():
    # 2026-W02: fourteen speculative-decoding changes, no term standing out, had no theme
    spec = [
        _with_modules(
            it(100 + i, title, day=i % 6, files=(f"spec/p{i}.py",)), "speculative-decoding"
        )
        for i, title in enumerate(
            (
                "Refactor the eagle proposer",
                "[BugFix] wrong draft ids",
                "Tune the acceptance threshold",
                "Cache drafted tokens",
                "Guard the rejection sampler",
            )
        )
    ]
    tests_only = [
        _with_modules(
            it(200 + i, f"[Test] cover the worker case {i}", files=(f"tests/ut/test_w{i}.py",)),
            "worker",
        )
        for i in range(5)
    ]
    current = FILLER + spec + tests_only
    lines = find_storylines(current, [], COUNTS, len(HISTORY))
    assert [(s.key, s.name, s.evidence, len(s.items)) for s in lines] == [
        ("module:speculative-decoding", "speculative-decoding", "module", 5)
    ]
    # a quiet window is told by its modules already: no module storyline there
    assert find_storylines(spec + FILLER[:20], [], COUNTS, len(HISTORY)) == []


def test_a_change_and_its_revert_alone_are_no_storyline():
    # 2026-W29: "ViT encoder ACL graph" was a fix (#10824, fixing an earlier #10549) and its revert
    earlier = it(10549, "[BugFix] ViT encoder ACL graph pads the sequence", day=-20)
    fix = it(
        10824,
        "[BugFix][Worker] Fix padded sequence length handling for ViT encoder ACL graph",
        day=1,
        digest=Digest(refs=(Reference(kind="fix_up", number=10549),)),
    )
    revert = it(
        11994,
        'Revert "[BugFix][Worker] Fix padded sequence length handling for ViT encoder '
        'ACL graph (#10824)"',
        day=3,
    )
    lines = find_storylines(
        FILLER + [fix, revert], [], COUNTS, len(HISTORY), referenced={10549: earlier}
    )
    assert not [s for s in lines if {m.number for m in s.items} & {10824, 11994}]


def test_a_line_of_documentation_alone_is_told_after_the_lines_of_code():
    # 2025-W52: "R1" (four tutorials) was one of the week's three main lines
    docs = [
        it(300 + i, f"[Doc] R1 tutorial part {w}", files=(f"docs/source/tutorials/r1_{i}.md",))
        for i, w in enumerate(("alpha", "bravo", "charlie", "delta"))
    ]
    code = [
        it(400 + i, f"[Model] Qwen3-Next gating {w}", files=(f"m/qwen3_next_{i}.py",))
        for i, w in enumerate(("alpha", "bravo", "charlie"))
    ]
    lines = find_storylines(FILLER + docs + code, [], COUNTS, len(HISTORY))
    assert [len(s.items) for s in lines] == [3, 4] and lines[1].items[0].role == "docs"


def test_a_word_for_a_kind_of_change_names_no_line_of_work():
    # 2025-W50: "e2e" in seven titles was a fusion rename, a test skip and a script deletion
    current = FILLER + [
        it(1, "[Fusion] normalize fusion naming and enable e2e test", files=("a/fusion.py",)),
        it(2, "[Fix] skip xlite e2e test", files=("tests/e2e/test_xlite.py",)),
        it(3, "[CI] split the e2e jobs", files=(".github/workflows/e2e.yaml",)),
        it(4, "[Test] e2e for the scheduler", files=("tests/e2e/test_sched.py",)),
    ]
    assert find_storylines(current, [], COUNTS, len(HISTORY)) == []


def test_removals_that_take_a_body_of_code_out_are_one_line_led_by_the_biggest():
    # 2025-W50: "Drop torchair" (+77/-16,881), its clean-ups and removed environment variables
    current = FILLER + [
        it(
            1,
            "Drop torchair",
            day=1,
            files=(".github/workflows/torchair.yaml", "a/torchair/x.py"),
            lines=0,
            categories=("platform-ci",),
        ),
        it(2, "cleanup useless torchair logic", day=2, files=("a/runner.py",)),
        it(3, "[MoE][TorchAir] Remove FusedMoEState", day=3, files=("a/moe.py",)),
        it(
            4,
            "Remove VLLM_ASCEND_ENABLE_TOPK_TOPP_OPTIMIZATION",
            day=4,
            files=("a/envs.py",),
            categories=("performance",),
        ),
    ]
    removed = {1: 16881, 2: 307, 3: 9, 4: 40}
    current = [
        replace(i, deletions=removed[i.number], additions=5) if i.number in removed else i
        for i in current
    ]
    (line,) = find_storylines(current, [], COUNTS, len(HISTORY))
    assert line.key == "removals" and [m.number for m in line.items] == [1, 2, 3, 4]
    assert line.lead == 1 and {m.role for m in line.items} == {"refactor"}
    # a change that only touches what a removal took out, or adds more than it removes, is no removal
    joiner = it(
        5, "[Feature] Support batch job aware scheduler", day=5, files=("a/runner.py", "a/moe.py")
    )
    joiner = replace(joiner, additions=1899, deletions=0)
    (line,) = find_storylines(current + [joiner], [], COUNTS, len(HISTORY))
    assert 5 not in {m.number for m in line.items}
    # three small removals are no line of work
    small = [replace(i, deletions=20) if i.number in removed else i for i in current]
    assert find_storylines(small, [], COUNTS, len(HISTORY)) == []


@pytest.mark.parametrize(
    "title,name",
    [
        (
            "[Bugfix] support mtp kv transfer and pp partition by hand in kv transfer",
            "Support mtp kv transfer and pp partition",
        ),
        ("[Kernel] add custom moe ops for prefill", "Add custom moe ops for prefill"),
        (
            "Refactor the attention metadata builder dispatch table layout entirely",
            "Refactor the attention metadata builder dispatch…",
        ),
    ],
)
def test_a_name_from_a_title_ends_at_a_phrase_boundary(title, name):
    assert _short_name(title) == name


def test_a_revert_chain_is_grouped_and_the_lead_is_not_the_revert():
    current = FILLER + [
        it(
            1,
            "[Feature] Add incremental compile of kernels",
            day=1,
            lines=500,
            categories=("feature",),
        ),
        it(2, '[CI] Revert "[Feature] Add incremental compile of kernels (#1)"', day=2, lines=900),
        it(
            3,
            "[Feature] Add incremental compile of kernels again",
            day=3,
            lines=400,
            digest=Digest(
                what="Re-lands #1 with a fixed key.", refs=(Reference(kind="fix_up", number=1),)
            ),
        ),
    ]
    lines = find_storylines(current, [], COUNTS, len(HISTORY))
    chain = next(s for s in lines if {m.number for m in s.items} >= {1, 2, 3})
    assert [m.role for m in chain.items] == ["feature", "revert", "feature"]
    assert chain.lead in (1, 3) and chain.lead != 2


def test_the_parts_of_a_series_are_one_line_of_work():
    """2025-W43: "[Model][1/N] Delete deepseek v2/v3 modeling codes." and "[Model][2/N] Remove
    deepseek_mtp modeling." are one planned line; a [1/N] of another tag and words is not."""
    current = FILLER + [
        it(1, "[Model][1/N] Delete legacy modeling codes.", day=1, files=("models/a.py",)),
        it(2, "[Model][2/N] Remove mtp modeling.", day=3, files=("models/b.py",)),
        it(3, "[1/N][CI] Add multi node test", day=2, files=("ci/x.yaml",)),
    ]
    lines = find_storylines(current, [], COUNTS, len(HISTORY))
    (series,) = [s for s in lines if {m.number for m in s.items} & {1, 2}]
    assert {m.number for m in series.items} == {1, 2}
    assert series.name == "Delete legacy modeling codes"
    assert not any(3 in {m.number for m in s.items} for s in lines)
    # a part already in a storyline (MTP, by its term) brings the other parts with it
    mtp = [
        it(10 + i, f"[Spec] {w} for MTP", day=i % 5, files=(f"spec/m{i}.py",))
        for i, w in enumerate(("faster drafts", "graph capture", "sampler fix"))
    ]
    lines = find_storylines(FILLER + mtp + [current[-3], current[-2]], [], COUNTS, len(HISTORY))
    (home,) = [s for s in lines if 2 in {m.number for m in s.items}]
    assert home.name == "MTP" and {1, 10, 11, 12} <= {m.number for m in home.items}


def test_a_chain_reaching_before_the_window_is_its_own_storyline_named_from_the_first_item():
    before = it(1, "[Feature] Rework the token sampler for speed", day=-10, categories=("feature",))
    current = FILLER + [
        it(2, '[Misc] Revert "Rework the token sampler for speed (#1)"', day=1),
        it(
            3,
            "[BugFix] Keep the sampler seeds",
            day=2,
            digest=Digest(refs=(Reference(kind="fix_up", number=1),)),
        ),
    ]
    lines = find_storylines(current, [], COUNTS, len(HISTORY), referenced={1: before})
    chain = next(s for s in lines if s.evidence == "chain")
    assert chain.key == "chain:1" and chain.name.startswith("Rework the token sampler")
    assert [(m.number, m.role) for m in chain.items] == [(2, "revert"), (3, "fix")]
    assert chain.lead == 3


def test_continuing_against_the_previous_window_and_new_otherwise():
    previous = [
        it(90, "[Feature] MTP for DeepSeek", day=-5),
        it(91, "[BugFix] MTP crash", day=-4),
        it(92, "[Doc] unrelated", day=-3),
    ]
    current = FILLER + [
        it(1, "[Feature] MTP draft head"),
        it(2, "MTP sampler"),
        it(3, "Faster MTP"),
        it(4, "[Feature] Ascend950 kernels"),
        it(5, "Ascend950 docs"),
        it(6, "Ascend950 CI"),
    ]
    by_key = {s.key: s for s in find_storylines(current, previous, COUNTS, len(HISTORY))}
    assert (by_key["mtp"].status, by_key["mtp"].previous_items) == ("continuing", 2)
    assert (by_key["ascend950"].status, by_key["ascend950"].previous_items) == ("new", 0)


def test_an_item_is_in_at_most_one_storyline_and_initials_join_their_long_form():
    current = FILLER + [
        it(1, "[DSV4] fused kernel", day=1),
        it(2, "[DSV4] MTP sampler", day=2),
        it(3, "DSV4 test", day=3),
        it(4, "DeepSeek-V4 loader", day=4),
        it(5, "MTP draft", day=4),
        it(6, "MTP proposer", day=5),
        it(7, "MTP accept rate", day=5),
        it(8, "Qwen MTP", day=6),
        it(9, "DeepSeek V4 rope", day=6),
        it(10, "[DSV4] MTP layer", day=6),
    ]
    lines = find_storylines(current, [], COUNTS, len(HISTORY))
    numbers = [m.number for s in lines for m in s.items]
    assert len(numbers) == len(set(numbers))
    # MTP, the strongest, takes #2 and #10; "DSV4" is the initials of "DeepSeek V4" written in
    # the same window, so #1, #3, #4 and #9 are one line of work, named by the long form
    assert {s.key: len(s.items) for s in lines} == {"mtp": 6, "deepseekv4": 4}
    assert {s.key: s for s in lines}["deepseekv4"].name in ("DeepSeek-V4", "DeepSeek V4")
    assert set(range(1, 11)) <= set(numbers)


def test_initials_name_the_same_line_only_when_the_long_form_is_there():
    from services.summarizer.domain.storylines import acronym

    assert acronym("DeepSeek V4") == "DSV4" and acronym("Model Runner V2") == "MRV2"
    assert acronym("build cache") == "BC"
    current = FILLER + [
        it(1, "[DSV4] fused kernel", day=1),
        it(2, "DSV4 test", day=2),
        it(3, "[DSV4] rope", day=3),
    ]
    (line,) = find_storylines(current, [], COUNTS, len(HISTORY))
    assert line.name == "DSV4"  # no long form in the window: the initials are the name


def test_bots_and_lonely_terms_make_no_storyline():
    current = (
        FILLER
        + [it(n, f"[CI] Auto-update estimated times {n}", bot=True) for n in (1, 2, 3, 4)]
        + [it(5, "Ascend950 kernel"), it(6, "Ascend950 docs")]
    )
    assert find_storylines(current, [], COUNTS, len(HISTORY)) == []
    assert find_storylines([], [], COUNTS, len(HISTORY)) == []


# ---------------------------------------------------------------- the real vllm-ascend history

SHANGHAI = ZoneInfo("Asia/Shanghai")


def _digest_of():
    try:
        from services.classifier.domain.digest import digest_of
    except ImportError:  # the classifier's digest is not there yet: storylines work without it
        return lambda title, body, number: None
    return lambda title, body, number: digest_of(
        title, body, repo="vllm-project/vllm-ascend", number=number
    )


def real_items() -> list[StoryItem]:
    path = require_shared_data("vllm-ascend-history", "merged_prs_with_bodies.jsonl")
    digest = _digest_of()
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["pr_number"] is None:
                continue
            files = r["files"] or []
            out.append(
                StoryItem(
                    number=r["pr_number"],
                    title=r["title"],
                    merged_at=datetime.fromisoformat(r["merged_at"]),
                    digest=digest(r["title"], r.get("body") or "", r["pr_number"]),
                    files=tuple(f["path"] for f in files),
                    categories=(),
                    modules=(),
                    additions=sum(f["additions"] or 0 for f in files),
                    deletions=sum(f["deletions"] or 0 for f in files),
                    bot="[bot]" in (r["author_email"] or ""),
                )
            )
    return out


def week_lines(items, year: int, week: int, **kw):
    start = datetime.combine(date.fromisocalendar(year, week, 1), time(), SHANGHAI)
    end, before = start + timedelta(days=7), start - timedelta(days=7)
    current = [i for i in items if start <= i.merged_at < end]
    previous = [i for i in items if before <= i.merged_at < start]
    history = [i.title for i in items if i.merged_at < start]
    known = {i.number: i for i in items if i.merged_at < before}
    return current, find_storylines(
        current, previous, term_counts_of(history), len(history), referenced=known, **kw
    )


@pytest.fixture(scope="module")
def vllm_ascend():
    return real_items()


def test_real_week_24_has_deepseek_v4_and_mtp_storylines(vllm_ascend):
    current, lines = week_lines(vllm_ascend, 2026, 24)
    assert len(current) == 120
    names = [s.name.lower().replace("-", " ") for s in lines]
    assert "deepseek v4" in names and "mtp" in names, names
    for s in lines:
        assert s.name.lower() not in ("fix", "support", "ascend", "bugfix", "feature", "add")
        assert s.lead is None or dict((m.number, m.role) for m in s.items)[s.lead] != "revert"
    numbers = [m.number for s in lines for m in s.items]
    assert len(numbers) == len(set(numbers))
    # no storyline is named by a code identifier or a bare version (W24 had "estimated_times"
    # and "v0.21.0"; the reports now say "Refactor test selection" and "vLLM v0.21.0")
    assert "vLLM v0.21.0" in [s.name for s in lines]
    assert all(
        not re.fullmatch(r"[a-z0-9]+(?:_[a-z0-9]+)+|v?\d+(?:\.\d+)+", s.name) for s in lines
    ), names
    # DSV4 is the initials of DeepSeek V4, written beside it: one line, and it leads the week
    assert names[0] == "deepseek v4", names


@pytest.mark.parametrize("year,week", [(2026, 28), (2026, 23), (2025, 51), (2026, 4)])
def test_real_busy_weeks_print_their_storylines(vllm_ascend, year, week, capsys):
    current, lines = week_lines(vllm_ascend, year, week)
    by_number = {i.number: i for i in current}
    with capsys.disabled():
        print(f"\n{year}-W{week:02d}: {len(current)} merged")
        for s in lines:
            print(f"  {s.name} [{s.evidence}, {s.status}] {len(s.items)} items, lead #{s.lead}")
            for m in s.items:
                print(f"      {m.role:8} #{m.number} {by_number[m.number].title[:80]}")
    generic = {"fix", "support", "ascend", "add", "bugfix", "feature", "update", "misc", "vllm"}
    # (the upgrades line is named after the project it keeps up with: "Keeping up with vLLM")
    assert not generic & {s.name.lower() for s in lines if s.key != "upgrades"}


def test_a_word_inside_an_identifier_is_not_written_as_a_name():
    """2026-W32 named a line "BUFFER" after "[Doc] Sunset ASCEND_BUFFER_POOL environment
    variable": a word of an identifier is written as the identifier needs, not as a name."""
    from services.summarizer.domain.storylines import _title_terms

    forms = {t.key: t.surface for t in _title_terms("[Doc] Sunset ASCEND_BUFFER_POOL env var")}
    assert forms["buffer"] == "buffer" and forms["ascend"] == "ascend"
    named = {t.key: t.surface for t in _title_terms("[Feature] KV BUFFER reuse for MTP")}
    assert named["buffer"] == "BUFFER" and named["mtp"] == "MTP"
    # a short identifier may be the feature's name ("Support MLP_TP feature")
    assert {t.key: t.surface for t in _title_terms("[Feat] Support MLP_TP feature")}["mlp"] == "MLP"


def test_a_line_of_removals_alone_joins_the_windows_removals_and_a_mixed_one_stays():
    # 2026-W34: four deletions of MiniMax-M2 patches were a line "Remove MiniMax" beside the
    # removal of FlashComm v1 (-4,194 lines)
    patches = [
        it(1 + k, f"[Refactor] Remove Zeta-M2 {what} patch", day=k, files=(f"a/patch/p{k}.py",))
        for k, what in enumerate(("fp8 load", "gate", "linear attn"))
    ]
    big = it(9, "[Refactor] remove FlashComm v1", day=4, files=("a/flashcomm.py",))
    current = [replace(i, additions=2, deletions=120) for i in patches]
    current += [replace(big, additions=100, deletions=2000)]
    lines = find_storylines(FILLER + current, [], COUNTS, len(HISTORY))
    (line,) = lines
    assert line.key == "removals" and {m.number for m in line.items} == {1, 2, 3, 9}
    assert "Zeta-M2" in line.terms
    # with a change that adds to it, the name's line is its own, and no removal is taken from it
    added = it(5, "[Feature] Support Zeta-M2 on new chips", day=5, files=("a/zeta.py",))
    added = replace(added, additions=900, deletions=0)
    lines = find_storylines(FILLER + current + [added], [], COUNTS, len(HISTORY))
    zeta = [s for s in lines if s.name == "Zeta-M2"]
    assert zeta and {m.number for m in zeta[0].items} == {1, 2, 3, 5}
    assert not [s for s in lines if s.key == "removals"]  # (one removal left: no line)


def test_a_version_marker_or_a_verb_led_pair_names_no_line():
    # "V1" of "FlashComm v1", "dsa_v1" and "V1/V2 migration guards" (2026-W34)
    current = [
        it(1, "[Refactor] rework FlashComm v1 paths", day=1, files=("a/x.py",)),
        it(2, "[Refactor] modularize the indexer of dsa_v1", day=2, files=("a/y.py",)),
        it(3, "[CI] Add Qwen3-32B V1/V2 performance guards", day=3, files=("a/z.py",)),
        it(4, "[CI] Add Qwen3-32B V1/V2 accuracy guards", day=4, files=("a/w.py",)),
    ]
    lines = find_storylines(FILLER + current, [], COUNTS, len(HISTORY))
    assert not [s for s in lines if s.name.casefold() in ("v1", "v2", "v1/v2")]
    # "Rework ZetaNet" (rarer in the history than "ZetaNet", so it would name the line) is led
    # by a word the window's titles start with: the line is named by its subject
    history = [*HISTORY, "[Model] ZetaNet weights loader"]
    current = [
        it(1 + k, f"[Misc] Rework ZetaNet {w} handling", day=k, files=(f"a/z{k}.py",))
        for k, w in enumerate(("gate", "cache", "loader"))
    ] + [it(8, "Rework the scheduler loop", day=5, files=("a/s.py",))]
    names = titles(find_storylines(FILLER + current, [], term_counts_of(history), len(history)))
    assert "Rework ZetaNet" not in names and "ZetaNet" in names
