"""A report across repositories (issue #19 item 4), pure: each repository's report model is built by
the summarizer from its own events, then combined; the combined figures are checked against the
repositories' reports and the scenarios' specs."""

from __future__ import annotations

from datetime import timedelta

import pytest

from services.summarizer.domain.combined import (
    NUMBER_STRIDE,
    CombineError,
    combine,
    combined_key,
    cross_links,
    decode,
    item_label,
    item_url,
)
from services.summarizer.domain.report import build_summary
from shared.events import Digest
from shared.events.enriched import Reference
from shared.windows import week_window
from tests.unit.summarizer.summarizer_builders import (
    ItemSpec,
    Scenario,
    random_scenario,
    utc,
    window_input,
)

WEEK = week_window(2026, 13, "UTC")
NOW = utc(2026, 4, 10, 0, 0)
UP, DOWN = "acme/engine", "acme/engine-npu"
FIVE = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")


def summarize(sc: Scenario):
    return build_summary(window_input(sc.events(), WEEK), now=NOW)


def test_the_key_names_the_owner_and_cannot_be_one_of_its_repositories():
    assert combined_key([UP, DOWN]) == combined_key([DOWN, UP]) == "acme/_..engine..engine-npu"
    assert combined_key([UP, DOWN], whole_owner=True) == "acme/_..all"
    long = [f"acme/{'x' * 60}{i}" for i in range(3)]
    key = combined_key(long)
    assert key.startswith("acme/_..") and len(key.split("/")[1]) <= 100
    # stored, announced and listed under its own name, apart from any repository's
    from services.renderer.domain.keys import artifact_key
    from shared.messaging import Subjects

    assert artifact_key("acme/_..all", "2026-W13", 1, "en", "report.md").startswith(
        "reports/acme/_..all/"
    )
    assert Subjects.report_ready("acme/_..all") != Subjects.report_ready("acme/all")
    with pytest.raises(CombineError, match="one owner"):
        combined_key(["acme/a", "other/b"])


def test_numbers_of_two_repositories_stay_apart_and_read_as_name_and_number():
    assert decode(NUMBER_STRIDE + 12) == (0, 12)
    assert decode(12) == (None, 12)
    assert item_label(2 * NUMBER_STRIDE + 7, [UP, DOWN]) == "engine-npu#7"
    assert item_label(7, [UP, DOWN]) == "#7"
    assert item_url(2 * NUMBER_STRIDE + 7, [UP, DOWN]) == f"https://github.com/{DOWN}/issues/7"


@pytest.mark.parametrize("seeds", [(1, 2), (3, 4)])
def test_counts_are_the_sums_of_the_repositories_reports(seeds):
    a = summarize(random_scenario(seeds[0], WEEK.start, 7.0, n_items=80, repo=UP))
    b = summarize(random_scenario(seeds[1], WEEK.start, 7.0, n_items=80, repo=DOWN))
    both = combine(
        [b, a], combined_key([UP, DOWN]), revision=a.revision + b.revision, generated_at=NOW
    )
    assert both.repo == "acme/_..engine..engine-npu"
    assert [p.repo for p in both.repos] == [UP, DOWN]
    assert [p.counts for p in both.repos] == [a.counts, b.counts]
    for name in FIVE + ("comments", "reviews", "lines_added", "lines_removed", "key_prs"):
        assert getattr(both.counts, name) == getattr(a.counts, name) + getattr(b.counts, name), name
    assert len(both.appendix.merged_prs) == len(a.appendix.merged_prs) + len(b.appendix.merged_prs)
    # the same numbers in both repositories (both scenarios count from 1) stay two items
    listed = both.appendix.merged_prs + both.appendix.new_prs
    own = {(i.repo, decode(i.number)[1]) for i in listed}
    assert len({i.number for i in listed}) == len(own)
    assert len({n for _, n in own}) < len(own)  # some numbers are in both repositories
    assert {i.repo for i in both.appendix.merged_prs} == {UP, DOWN}
    for item in both.appendix.merged_prs:
        place, own = decode(item.number)
        assert [UP, DOWN][place] == item.repo and f"/{item.repo}/" in item.url
    # a person active in both repositories is one person
    people_a = {c.login for c in a.contributors if not c.bot}
    people_b = {c.login for c in b.contributors if not c.bot}
    assert both.counts.active_contributors == len(people_a | people_b)
    assert len(people_a & people_b) > 0  # the scenarios share people: the union is smaller
    assert (
        both.counts.active_contributors
        < a.counts.active_contributors + b.counts.active_contributors
    )
    # every key PR and risk of each repository is there, naming its repository
    assert len(both.key_prs) == len(a.key_prs) + len(b.key_prs)
    assert all(k.item.repo in (UP, DOWN) for k in both.key_prs)
    for risk in {r.risk for r in a.risks + b.risks}:
        mine = [r for r in both.risks if r.risk == risk]
        assert len(mine) == 1
        assert mine[0].count == sum(r.count for r in a.risks + b.risks if r.risk == risk)
    assert sum(d.prs_merged for d in both.activity) == both.counts.merged_prs


def _pair(refs_to_up: bool):
    """An upstream change in acme/engine and its downstream adaptation in acme/engine-npu, whose
    description names the upstream change (as vllm-ascend's do vllm's)."""
    merged = WEEK.start + timedelta(days=2)
    up = Scenario(
        repo=UP,
        items=[
            ItemSpec(
                number=500,
                kind="pull_request",
                opened=WEEK.start + timedelta(hours=3),
                merged=merged,
                title="[Core] new KV cache layout",
                modules=("kv-cache",),
            ),
            ItemSpec(
                number=501,
                kind="pull_request",
                opened=WEEK.start + timedelta(hours=5),
                merged=merged,
                title="[Docs] typo",
                modules=("docs",),
            ),
        ],
    )
    ref = (
        Reference(kind="upstream", repo=UP, number=500)
        if refs_to_up
        else Reference(kind="related", repo="someone/else", number=500)
    )
    down = Scenario(
        repo=DOWN,
        items=[
            ItemSpec(
                number=77,
                kind="pull_request",
                opened=merged + timedelta(hours=1),
                merged=merged + timedelta(days=1),
                title="adapt to the new KV cache layout",
                modules=("kv-cache",),
                digest=Digest(what="Adapt to upstream.", refs=(ref,)),
            ),
            ItemSpec(
                number=500,
                kind="pull_request",
                opened=WEEK.start + timedelta(hours=2),
                merged=merged,
                title="[CI] bump runner",
                modules=("ci",),
            ),
        ],
    )
    return summarize(up), summarize(down)


def test_an_upstream_change_and_its_downstream_adaptation_are_one_storyline():
    up, down = _pair(refs_to_up=True)
    # the summarizer records the reference of every item of the window, key PR or not
    assert [(c.number, c.repo, c.ref_number, c.kind) for c in down.cross_refs] == [
        (77, UP, 500, "upstream")
    ]
    assert up.cross_refs == ()
    assert cross_links([up, down]) == [((DOWN, 77), (UP, 500))]
    # without the key PRs' digests, the recorded references alone join them
    bare = down.model_copy(update={"key_prs": ()})
    assert cross_links([up, bare]) == [((DOWN, 77), (UP, 500))]
    both = combine([up, down], combined_key([UP, DOWN]), revision=2, generated_at=NOW)
    up500, down77 = NUMBER_STRIDE + 500, 2 * NUMBER_STRIDE + 77
    lines = [st for st in both.storylines if {up500, down77} & {i.number for i in st.items}]
    assert len(lines) == 1, lines
    assert {up500, down77} <= {i.number for i in lines[0].items}
    # downstream #500 (another change with upstream's number) is not pulled in
    assert 2 * NUMBER_STRIDE + 500 not in {i.number for i in lines[0].items}


def test_without_a_cross_repository_reference_nothing_is_joined():
    up, down = _pair(refs_to_up=False)
    assert cross_links([up, down]) == []
    both = combine([up, down], combined_key([UP, DOWN]), revision=2, generated_at=NOW)
    up500, down77 = NUMBER_STRIDE + 500, 2 * NUMBER_STRIDE + 77
    assert not any({up500, down77} <= {i.number for i in st.items} for st in both.storylines)
    assert not any(st.key.startswith("cross:") for st in both.storylines)


def test_one_repository_or_different_windows_are_refused():
    a = summarize(random_scenario(1, WEEK.start, 7.0, n_items=20, repo=UP))
    with pytest.raises(CombineError, match="two"):
        combine([a], "acme/..x", revision=1, generated_at=NOW)
    other = build_summary(
        window_input(
            random_scenario(2, WEEK.start, 7.0, n_items=20, repo=DOWN).events(),
            week_window(2026, 14, "UTC"),
        ),
        now=NOW,
    )
    with pytest.raises(CombineError, match="different windows"):
        combine([a, other], "acme/..x", revision=1, generated_at=NOW)
    with pytest.raises(CombineError, match="twice"):
        combine([a, a], "acme/..x", revision=1, generated_at=NOW)
