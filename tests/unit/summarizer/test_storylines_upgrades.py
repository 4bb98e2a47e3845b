"""Lines of work the words of titles miss or misname: keeping up with an upstream project (its
upgrades and the fixes in its area), a name worked on for weeks, a chain whose first change was
undone, names spelled with their capitals (readings of 2026-W27 and W30 beside seed 000)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from services.summarizer.domain.storylines import (
    StoryItem,
    _upgrade_name,
    find_storylines,
    term_counts_of,
)
from shared.events import Digest, Reference
from tests.unit.summarizer.test_summarizer_explained import at, pr, summarize

T0 = datetime(2026, 6, 8, tzinfo=UTC)
HISTORY = (
    [f"[BugFix] fix crash in worker {i}" for i in range(400)]
    + [f"[Feature] support model family {i}" for i in range(300)]
    + [f"[Doc] update guide section {i}" for i in range(280)]
    + [f"[Model] DSV4 bring-up part {i}" for i in range(12)]
    + ["[Feature] DSpark draft head", "[Perf] qwen3.5 kernel"] * 4
)
COUNTS = term_counts_of(HISTORY)
FILLER = [f"[Misc] tidy component{i} internals" for i in range(100)]


def item(
    number: int,
    title: str,
    *,
    day: float = 1.0,
    files=(),
    modules=(),
    lines: int = 20,
    digest: Digest | None = None,
    categories=(),
) -> StoryItem:
    return StoryItem(
        number=number,
        title=title,
        merged_at=T0 + timedelta(days=day),
        digest=digest,
        files=tuple(files) or (f"vllm_ascend/f{number}.py",),
        categories=tuple(categories),
        modules=tuple(modules),
        additions=lines,
        deletions=lines // 2,
    )


def filler(start: int = 500, count: int = 30) -> list[StoryItem]:
    return [
        item(start + i, t, day=i % 7, files=(f"src/c{i}.py",)) for i, t in enumerate(FILLER[:count])
    ]


def test_upgrades_and_the_changes_in_the_upgrade_area_are_one_line_named_after_the_release():
    current = filler() + [
        item(1, "[Misc] Upgrade vllm to 0.25.0", day=0, lines=3000, modules=("dependencies",)),
        item(
            2,
            "[CI] Main2main: upgrade vLLM commit to 0717",
            day=2,
            modules=("ci/build", "upstream-sync"),
        ),
        item(
            3,
            "[Bugfix] Fix main2main eplb",
            day=3,
            modules=("upstream-sync", "moe"),
            categories=("bugfix",),
        ),
        item(4, '[Revert] "[Bugfix] Fix main2main eplb"', day=4, modules=("upstream-sync",)),
        item(
            5,
            "[Bugfix] fix main2main eplb",
            day=5,
            modules=("upstream-sync", "moe"),
            categories=("bugfix",),
        ),
        item(6, "[CI] Upgrade vllm to v0.25.1", day=5, lines=30, modules=("ci/build",)),
        # a GitHub action's bump is CI tooling, not keeping up with upstream
        item(7, "Bump actions/checkout from 4 to 5", day=1, files=(".github/workflows/ci.yaml",)),
        # a fix elsewhere that merely mentions eplb stays out
        item(8, "[Bugfix] eplb metric typo", day=2, modules=("moe",), categories=("bugfix",)),
    ]
    lines = find_storylines(
        current, [], COUNTS, len(HISTORY), upgrade_modules=("upstream-sync", "dependencies")
    )
    up = next(s for s in lines if s.key == "upgrades")
    assert {m.number for m in up.items} >= {1, 2, 3, 5, 6}
    assert not {7, 8} & {m.number for m in up.items}
    assert up.name == "vLLM v0.25.1"  # the newest release, with the capitals a title gives it
    assert up.lead == 1  # the biggest upgrade speaks for the line
    # without upgrade modules only the upgrades themselves form it
    bare = find_storylines(current, [], COUNTS, len(HISTORY))
    assert {m.number for m in next(s for s in bare if s.key == "upgrades").items} == {1, 2, 6}


def test_what_titles_tie_to_the_upgrade_joins_it_and_no_removal_takes_it():
    """2026-W26: the v0.23.0 upgrade's companions were scattered — dropping v0.22.1
    compatibility and removing upstreamed patches went to the clean-up line, two fixes for
    vLLM 0.22.1 to no line — and the upgrade was told nowhere."""
    current = filler() + [
        item(1, "[Misc] main2main upgrade vllm to v0.23.0", day=0, lines=900),
        item(2, "[Misc] Drop vLLM v0.22.1 compatibility from main", day=2, lines=40),
        item(3, "[Ops][Misc] Remove upstreamed platform patches", day=3, lines=4000),
        item(4, "[BugFix] Fix AttributeError with vLLM 0.22.1", day=3, categories=("bugfix",)),
        # a model doc "updated to M2.7" is no upgrade; a version alone ("Qwen3.5") ties nothing
        item(5, "[Doc] Update MiniMax-M2.5 doc to M2.7", day=1, files=("docs/minimax.md",)),
        item(6, "[BugFix] Fix Qwen3.5 precision with vLLM graphs", day=4, categories=("bugfix",)),
    ]
    for n in (2, 3):  # they take more out than they add: removals, were they not the upgrade's
        current = [replace(i, deletions=5000) if i.number == n else i for i in current]
    current.append(item(7, "[Misc] Remove the legacy scheduler", day=5, lines=10))
    lines = find_storylines(current, [], COUNTS, len(HISTORY))
    up = next(s for s in lines if s.key == "upgrades")
    assert {m.number for m in up.items} == {1, 2, 3, 4}
    assert up.name == "vLLM v0.23.0"  # the capitals of the titles beside it
    assert up.lead == 1  # the upgrade speaks for the line, not a larger change that followed it


def test_an_upgrade_is_named_by_commit_only_as_its_project():
    bumps = [
        item(1, "[CI] upgrade vllm to 0619"),
        item(2, "[Misc] upgrade vLLM to a30addc7548a9a8b9b3323a7bc3eb7d7c4895d1c"),
        item(3, "Bump mooncake to v0.3.11.post1"),
    ]
    assert _upgrade_name(bumps) == "vLLM"
    assert _upgrade_name([bumps[2]]) == "mooncake v0.3.11.post1"


def test_fewer_than_three_upgrade_changes_are_no_line():
    current = filler() + [
        item(1, "[Misc] Upgrade vllm to 0.25.0", modules=("dependencies",)),
        item(2, "[BugFix] adapt to upstream", modules=("upstream-sync",)),
    ]
    assert not any(
        s.key == "upgrades"
        for s in find_storylines(
            current, [], COUNTS, len(HISTORY), upgrade_modules=("upstream-sync",)
        )
    )


def test_a_rare_name_busy_in_the_previous_window_continues_without_standing_out():
    previous = filler(700, 100) + [
        item(90, "[Feature] DSV4 sparse attention"),
        item(91, "[BugFix] dsv4 weights"),
    ]
    current = filler(count=100) + [
        item(1, "[Feature] Support dsv4 mtp graph", files=("a.py",)),
        item(2, "[Performance] DSV4 prefix cache hit rate optimize", files=("b.py",)),
        item(3, "[BugFix][Model] fix act fn in dsv4", files=("c.py",)),
    ]
    # 3 of 103 items against 12 of 1,000 titles: too little surprise to stand out on its own
    assert not any(s.key == "dsv4" for s in find_storylines(current, [], COUNTS, len(HISTORY)))
    lines = find_storylines(current, previous, COUNTS, len(HISTORY))
    dsv4 = next(s for s in lines if s.key == "dsv4")
    assert dsv4.name == "DSV4" and dsv4.status == "continuing" and dsv4.previous_items == 2


def test_a_name_is_spelled_with_the_capitals_a_title_gives_it():
    current = filler() + [
        item(1, "[Feature] dspark for dsv4", files=("a.py", "s.py")),
        item(2, "[BugFix] dspark acceptance rate", files=("s.py",)),
        item(3, "[BugFix] DSpark multi-DP", files=("s.py",)),
        item(4, "fix dspark sp", files=("s.py",)),
    ]
    names = {s.key: s.name for s in find_storylines(current, [], COUNTS, len(HISTORY))}
    assert names.get("dspark") == "DSpark"


def test_a_chain_is_not_named_after_a_change_undone_in_the_window():
    current = filler() + [
        item(1, "[BugFix] Fix decode mask handling", day=0, files=("attn.py",)),
        item(
            2,
            "[Perf] Split mixed chunked prefill into two calls",
            day=1,
            files=("attn.py",),
            digest=Digest(refs=(Reference(kind="follow_up", number=1),)),
        ),
        item(
            3,
            "[BugFix] Restore decode mask handling",
            day=2,
            files=("attn.py",),
            digest=Digest(refs=(Reference(kind="reverts", number=1),)),
        ),
    ]
    chain = next(
        s for s in find_storylines(current, [], COUNTS, len(HISTORY)) if s.key == "chain:1"
    )
    assert chain.name.startswith("Split mixed chunked prefill") and chain.lead == 2


def test_upgrade_fallout_goes_to_the_biggest_upgrade_before_the_fix():
    items = [
        pr(
            40,
            "[Misc] Upgrade vllm to 0.25.0",
            at(0),
            additions=2000,
            deletions=3000,
            modules=("upstream-sync",),
            files=("Dockerfile", "requirements.txt", "vllm_ascend/worker/model_runner.py"),
        ),
        pr(
            41,
            "[CI] Upgrade vllm to v0.25.1",
            at(1),
            additions=30,
            deletions=30,
            modules=("upstream-sync",),
        ),
        pr(
            42,
            "[BugFix] fix eplb after upstream change",
            at(2),
            modules=("upstream-sync",),
            categories=("bugfix",),
        ),
    ]
    fallout = [i for i in summarize(items).incidents if i.kind == "upgrade_fallout"]
    assert [i.items for i in fallout] == [(40, 42)]


def test_an_upgrade_landed_again_another_way_relands_the_reverted_one():
    """2026-W27: "Bump Mooncake to v0.3.11.post1 in Dockerfiles" (#10891) was reverted for a
    failed image build (#11366) and came back as "Upgrade mooncake from 0.3.9 to 0.3.11.post1"
    (#10871) with the official wheel: re-landed, so no follow-up asks to find what broke."""
    items = [
        pr(
            10891,
            "[Misc] Bump Mooncake to v0.3.11.post1 in Dockerfiles",
            at(0),
            files=("Dockerfile",),
        ),
        pr(
            11366,
            '[BugFix] Revert "[Misc] Bump Mooncake to v0.3.11.post1 in Dockerfiles (#10891)"',
            at(1),
            files=("Dockerfile",),
        ),
        pr(
            10871,
            "[CI] Upgrade mooncake from 0.3.9 to 0.3.11.post1",
            at(2),
            files=("Dockerfile.a3",),
        ),
        pr(10872, "[CI] Upgrade mooncake from 0.3.9 to 0.3.12", at(3), files=("Dockerfile.a5",)),
    ]
    s = summarize(items)
    (rev,) = [i for i in s.incidents if i.kind == "revert"]
    assert rev.items == (11366, 10891, 10871) and rev.roles[-1] == "relanded"
    assert not [f for f in s.follow_ups if f.kind == "revert"]


def test_a_title_that_calls_the_change_temporary_is_a_follow_up_to_lift_it():
    """A title that calls the change temporary ("Temporarily disable …") is one follow-up to
    lift it; "the temporary buffer" is no stopgap. 2026-W27's #11437 "UT use case issue
    temporarily blocked and skipped execution" skips tests: asked once, as a loosened check
    ("when they come back"), not a second time as temporary."""
    items = [
        pr(11437, "[BugFix]UT use case issue temporarily blocked and skipped execution", at(1)),
        pr(11438, "[BugFix] Fix the temporary buffer size of the sampler", at(2)),
        pr(11439, "[BugFix] Temporarily disable the fused rope kernel on A2", at(3)),
    ]
    follow = summarize(items).follow_ups
    (f,) = [f for f in follow if f.kind == "temporary"]
    assert (f.item.number, f.items) == (11439, (11439,))
    assert [f.kind for f in follow if 11437 in (f.item.number, *f.items)] == ["loosened"]


def test_a_series_is_named_without_its_place_in_the_series():
    from services.summarizer.domain.storylines import _short_name

    assert (
        _short_name("[Style] Convert `vllm-ascend/` to ruff format(Batch #3)")
        == "Convert `vllm-ascend/` to ruff format"
    )
    assert _short_name("Refactor the cache (part 2/5)") == "Refactor the cache"
    assert _short_name("Add MoE (DeepSeek) support") == "Add MoE (DeepSeek) support"


def test_a_line_of_shared_files_ranks_by_its_size_not_after_every_named_one():
    """Real 2026-W04: "fusion" (five graph-fusion passes sharing their files) ranked after every
    three-item named line and was never told; a files line weighs three quarters of a named one."""
    from tests.unit.summarizer.test_storylines import real_items, week_lines

    _current, lines = week_lines(real_items(), 2026, 4)
    names = [(s.name, s.evidence, len(s.items)) for s in lines]
    fusion = next(
        i
        for i, (name, evidence, _n) in enumerate(names)
        if name == "fusion" and evidence == "files"
    )
    assert names[fusion][2] == 5
    smaller = [i for i, (_name, evidence, n) in enumerate(names) if evidence == "term" and n <= 3]
    assert smaller and fusion < min(smaller), names


def test_a_change_of_tests_alone_represents_no_module():
    """2026-W23: a test-folder move (239 files) was the representative PR of sampling, distributed
    and xlite; a module's row shows the work on its code first."""
    items = [
        pr(
            9807,
            "[CI] Move the e2e tests to pull_request/full and light",
            at(0),
            additions=3000,
            deletions=3000,
            modules=("sampling",),
            files=("tests/e2e/sampling/test_a.py", "tests/e2e/sampling/test_b.py"),
        ),
        pr(
            9735,
            "[Feature] Reduce sampling for DFlash and MTP",
            at(1),
            additions=40,
            deletions=5,
            modules=("sampling",),
            files=("vllm_ascend/sample/sampler.py",),
        ),
    ]
    (row,) = [m for m in summarize(items).modules if m.module == "sampling"]
    assert row.representative[:2] == (9735, 9807)


def test_in_a_day_two_changes_sharing_a_rare_name_are_a_line_of_work():
    """2026-08-05: "[KV Offload] Add layerwise prefill KV buffer reuse" and "[KV Offload]
    Support Sparse KV Cache Offload" were the day's line of work; a week needs three."""
    pair = [
        item(1, "[Feature][KV Offload] Add layerwise prefill KV buffer reuse", lines=1500),
        item(2, "[feature][KV Offload] Support Sparse KV Cache Offload", day=1.2, lines=2600),
    ]
    day = find_storylines(filler(count=15) + pair, [], COUNTS, len(HISTORY))
    assert [(s.name, {m.number for m in s.items}) for s in day] == [("KV Offload", {1, 2})]
    week = find_storylines(filler(count=60) + pair, [], COUNTS, len(HISTORY))
    assert not any({m.number for m in s.items} == {1, 2} for s in week)


def test_a_rare_name_may_hold_a_fifth_of_the_week_a_plain_word_may_not():
    """2026-W21: "DeepSeek V4" was in 15 of 93 changes — more than the sixth a plain word may
    hold — so the line was cut to its "V4" and missed "Support DeepseekV4", the week's central
    change."""
    v4 = [
        item(1, "[Feature] Support DeepseekV4", lines=9000),
        item(2, "[Ops][Feature] Add DeepSeek V4 custom operators", day=1.5),
        item(3, "[Ops][BugFix] Register DeepSeek V4 custom ops for 910B", day=2),
        item(4, "[BugFix] Fix DeepSeek-V4 precision anomaly on A2", day=3),
        item(5, "[Perf] DeepSeek V4 multistream overlap", day=4),
        item(6, "[BugFix] DeepSeek V4 async scheduling with MTP", day=5),
        item(7, "[Feature] The DeepSeek V4 model supports kv pool adaptation", day=5.5),
        item(8, "[BugFix] Fix DeepSeek V4 serial inference anomaly", day=6),
    ] + [item(8 + i, f"[BugFix] DeepSeek V4 fix number {i}", day=i % 7) for i in range(1, 5)]
    # 12 of 60 changes: over a sixth of the window, and over the floor of ten a day may hold
    lines = find_storylines(filler(count=48) + v4, [], COUNTS, len(HISTORY))
    (line,) = [s for s in lines if {m.number for m in s.items} & {1, 2}]
    assert line.name == "DeepSeek V4" and {m.number for m in line.items} == set(range(1, 13))
    # a plain word in a fifth of the week is no line of work
    plain = [item(20 + i, f"[Misc] tidy scheduler part{i}", day=i % 7) for i in range(12)]
    assert not any(
        s.name == "tidy"
        for s in find_storylines(filler(count=32) + plain, [], COUNTS, len(HISTORY))
    )


def test_keeping_up_continues_whatever_version_the_previous_window_moved_to():
    """2026-W13 moved to vLLM 0.18.0 and its line read "New in this window", though W12 had kept
    up with 0.17.x the same way (#7412): keeping up is one line across versions."""
    current = filler() + [
        item(1, "[Misc] Upgrade vllm to 0.18.0", day=0, lines=3000, modules=("dependencies",)),
        item(2, "[Bugfix] fix main2main spec decode", day=2, modules=("upstream-sync",)),
        item(3, "[Misc] adapt to vLLM 0.18.0 sampler", day=3, modules=("upstream-sync",)),
    ]
    previous = [
        item(90, "[Main2Main] Upgrade vllm commit to 0316", day=-5, modules=("upstream-sync",)),
        item(91, "[Bugfix] fix main2main eagle", day=-4, modules=("upstream-sync",)),
        item(92, "[Doc] update the FAQ", day=-3, modules=("docs",)),
    ]
    modules = ("upstream-sync", "dependencies")
    up = next(
        s
        for s in find_storylines(current, previous, COUNTS, len(HISTORY), upgrade_modules=modules)
        if s.key == "upgrades"
    )
    assert (up.status, up.previous_items) == ("continuing", 2)
    alone = next(
        s
        for s in find_storylines(
            current, previous[2:], COUNTS, len(HISTORY), upgrade_modules=modules
        )
        if s.key == "upgrades"
    )
    assert alone.status == "new"
