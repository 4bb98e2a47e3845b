"""A fix's reference to an earlier change is a fix-up, and a check someone came back to is no
follow-up (issue #15, 2026-W22): "[BugFix] fix reduce_sampling" (#9545) names #8308 by its address
and was merged the next day; "Resolve #8842 PR Bugs" (#9594) answers a change of the week before
— the report tied neither. #9681 skipped a DFlash test and #9704 updated its baseline the next
day, yet #9681 was asked twice ("temporary", "loosened") to come back. Real titles, bodies, files
and merge gaps of that week."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from tests.conftest import history_prs

from .summarizer_builders import REPO, real_pr
from .test_summarizer_fix_burst import (
    DSV4_FIXES,
    FILLER,
    OTHER_DSV4,
    SUPPORT,
    at,
    bursts,
    summarize,
)


def real(number: int, day: float, categories=()):
    """Real #number merged on the week's `day`, its description's addresses in the test's
    repository (https://github.com/vllm-project/vllm-ascend/pull/8308 -> acme/widgets)."""
    row = history_prs()[number]
    spec = real_pr(
        row,
        at(day),
        additions=sum(f["additions"] or 0 for f in row["files"]),
        deletions=sum(f["deletions"] or 0 for f in row["files"]),
        categories=categories,
    )
    return replace(spec, body=(row["body"] or "").replace("vllm-project/vllm-ascend", REPO))


def chains(s):
    return {i.items: i.roles for i in s.incidents if i.kind == "instability"}


def gap(a: int, b: int) -> float:
    rows = history_prs()
    d = datetime.fromisoformat(rows[b]["merged_at"]) - datetime.fromisoformat(rows[a]["merged_at"])
    return d / timedelta(days=1)


def test_a_fix_naming_a_change_by_its_address_and_sharing_its_code_fixes_it():
    s = summarize([*FILLER, real(8308, 0.3, ("performance",)), real(9545, 0.3 + gap(8308, 9545))])
    assert chains(s)[(8308, 9545)] == ("added", "fixed")


def test_a_fix_that_says_it_resolves_a_change_of_the_previous_window_fixes_it():
    s = summarize([*FILLER, real(8842, -2.0, ("feature",)), real(9594, -2.0 + gap(8842, 9594))])
    (chain,) = [i for i in s.incidents if i.kind == "instability"]
    assert chain.items == (8842, 9594) and chain.across_windows


def test_a_mention_alone_is_no_fix_up():
    change, fix = real(8308, 0.3, ("performance",)), real(9545, 1.3)
    # the fix of other code only names the change
    other = replace(fix, files=("vllm_ascend/distributed/elsewhere.py",))
    assert not chains(summarize([*FILLER, change, other]))
    # a change two windows back is no fix-up of this window's
    old = replace(change, merged=at(-9), opened=at(-9) - timedelta(hours=5))
    assert not chains(summarize([*FILLER, old, fix]))
    # a feature naming an earlier change builds on it, it does not fix it
    feature = replace(fix, title="[Feature] sample with fewer gathers", categories=("feature",))
    assert not chains(summarize([*FILLER, change, feature]))


def test_a_loosened_test_a_later_change_came_back_to_asks_nothing_more():
    skip = real(9681, 0.5, ("test",))
    s = summarize([*FILLER, skip])
    (loose,) = [i for i in s.incidents if i.kind == "loosened"]
    assert loose.items == (9681,) and loose.followed_by == ()
    # one line for the change: it is loosened (asked when the tests come back), not also temporary
    assert [f.kind for f in s.follow_ups if 9681 in (f.item.number, *f.items)] == ["loosened"]
    # #9704 updated the skipped test's baseline the next day: the risk says so, no follow-up
    back = real(9704, 0.5 + gap(9681, 9704), ("test",))
    s = summarize([*FILLER, skip, back])
    (loose,) = [i for i in s.incidents if i.kind == "loosened"]
    assert loose.followed_by == (9704,)
    assert not [f for f in s.follow_ups if 9681 in (f.item.number, *f.items)]
    # a change of other files is no answer, nor one of the same file that fixes nothing (real
    # #4800 "[CI]cleanup e2e test" renamed tests after #4857 skipped one)
    elsewhere = replace(back, files=("tests/e2e/singlecard/test_other.py",))
    renamed = replace(back, title=history_prs()[4800]["title"])
    for other in (elsewhere, renamed):
        s = summarize([*FILLER, skip, other])
        assert [f.kind for f in s.follow_ups if 9681 in (f.item.number, *f.items)] == ["loosened"]


def test_a_workaround_until_the_change_lands_is_over_once_it_merged():
    # #9548: "Workaround until this lands: --no-scheduler-reserve-full-isl at serve time"
    s = summarize([*FILLER, real(9548, 1.0, ("bugfix",))])
    assert not [f for f in s.follow_ups if f.kind == "next_step" and f.item.number == 9548]
    # a step still to come is one (#9363: "A dedicated E2E test can be added separately")
    s = summarize([*FILLER, real(9363, 1.0, ("bugfix",))])
    assert [f.kind for f in s.follow_ups if f.item.number == 9363] == ["next_step"]


def test_a_burst_says_how_many_of_the_lines_fixes_it_holds():
    s = summarize([*FILLER, SUPPORT, *DSV4_FIXES, *OTHER_DSV4])
    (burst,) = bursts(s)
    line = next(st for st in s.storylines if 9270 in {i.number for i in st.items})
    fixes = {m.number for m in line.items if m.role == "fix"}
    assert burst.of_fixes == len(fixes | set(burst.items[1:]))
    assert burst.of_fixes >= len(burst.items) - 1


def test_a_change_a_fix_depends_on_is_no_change_it_fixes():
    # real #7158 "Fixed the problem of drafter crashed in FULL mode … It depends on
    # https://…/pull/7144 and https://…/pull/7148" shares model_runner_v1.py with #7144
    s = summarize([*FILLER, real(7144, 0.2, ("bugfix",)), real(7158, 0.2 + gap(7144, 7158))])
    assert not chains(s)


def test_a_bursts_follow_up_counts_its_fixes_as_the_line_does():
    # one more fix of the line, days later and of other code: the line counts it, the burst
    # does not — the follow-up says "7 of its 8 fixes", as the line's "8 fixes" and the burst's 7
    late = replace(
        DSV4_FIXES[0],
        number=9990,
        files=("vllm_ascend/quantization/w8a8_other.py",),
        merged=at(6.2),
        opened=at(6.2) - timedelta(hours=5),
    )
    s = summarize([*FILLER, SUPPORT, *DSV4_FIXES, *OTHER_DSV4, late])
    (burst,) = bursts(s)
    line = next(st for st in s.storylines if 9270 in {i.number for i in st.items})
    assert 9990 in {m.number for m in line.items} and 9990 not in burst.items
    fixes = len(burst.items) - 1
    assert burst.of_fixes == fixes + 1
    (follow,) = [f for f in s.follow_ups if f.kind == "fix_burst"]
    assert f"{fixes} of its {fixes + 1} fixes followed #9270" in follow.reason


def test_an_accuracy_check_removed_is_loosened_a_baseline_updated_is_not():
    # 2026-07-10: #11794 "[CI] Remove aime2025 accuracy benchmark" went untold while #11789
    # "[Test] Modify perf baseline of …", which says no direction, was told as loosening tests;
    # #14553 "[CI] update nightly cases perf baseline" is no loosening either
    numbers = (11794, 11789, 14553, 9681)
    s = summarize([*FILLER, *(real(n, 0.3 + i, ("test",)) for i, n in enumerate(numbers))])
    loose = {n for i in s.incidents if i.kind == "loosened" for n in i.items}
    assert loose & set(numbers) == {11794, 9681}
