"""A release as a line of work (issue #15): the window's changes that name one release as the
work for it — a [v0.16.0] tag, a release branch ("v0.9.1-dev", "releases/v0.13.0"), "release
note for v0.13.0rc1", a cherry-pick from the release branch — with the ports of changes beside
them, when they are a share of the window; on real vllm-ascend windows, read in place."""

from __future__ import annotations

from services.summarizer.domain.storylines import RELEASE_KEY, release_of, releases_named
from tests.conftest import history_prs
from tests.unit.summarizer.test_storylines_real_windows import _item, lines_of, numbers, week


def test_a_release_is_named_as_the_work_for_it_never_as_a_version_of_something():
    title = {n: history_prs()[n]["title"] for n in (6286, 2188, 1825, 2234, 5250, 6564)}
    assert release_of(title[6286]) == "0.14.1"  # "[0.14.1][bugfix][sched] fix …"
    assert release_of(title[2188]) == "0.9.1"  # "Add release note for v0.9.1rc2"
    assert release_of(title[1825]) == "0.9.1"  # "[MISC] Cherry pick #1291 from v0.9.1-dev"
    assert release_of(title[2234]) == "0.9.1"  # "Remove transformer pins for v0.9.1-dev"
    assert release_of("[P/D][v0.16.0]Adapt to RecomputeScheduler in vLLM 0.16.0") == "0.16.0"
    # a version of a dependency or an upstream project is no release of the work
    assert release_of(title[5250]) is None  # "fix transformer version to 4.57.3"
    assert release_of(title[6564]) is None  # "Update UT CANN version to 8.5.0"
    assert release_of("[Main2Main] Upgrade vllm to v0.14.1") is None
    assert release_of("[Model] Support Qwen3.5 release weights") is None


def test_the_description_footers_pin_names_no_release():
    """2025-W52: 74 of 111 descriptions end with the template's "- vLLM version: release/
    v0.13.0", the upstream version CI ran against — said of every change, the work of none.
    The digest holds what a description says the change does, never that footer."""
    week52 = {i.number for i in lines_of(week(2025, 52), 7)[1].values()}
    rows = history_prs()
    footed = [n for n in sorted(week52) if "release/v0.13.0" in (rows[n]["body"] or "")]
    assert len(footed) >= 70
    named = [n for n in footed if releases_named(_item(n))]
    # the release note and the freeze's two reverts say so in their own words
    assert named == [5334, 5410, 5434]
    # what a description says the change does does name one (a cherry-pick, real #2147)
    assert releases_named(_item(2147)) == {"0.9.1"}


def test_changes_for_one_release_are_a_line_with_the_ports_beside_them():
    """2025-W31: three changes cherry-picked from v0.9.1-dev (#1825, #2088, #2147) and four
    ports of release-branch changes (#1844, #1939, #2132, #2148: "backport of #1378") in 51
    merged: "Release v0.9.1"; changes that only touch the files they touch stay out."""
    lines, _items = lines_of(week(2025, 31), 7)
    (line,) = [s for s in lines if s.key == RELEASE_KEY]
    assert line.name == "Release v0.9.1"
    assert {1825, 2088, 2147} <= numbers(line)
    assert {1844, 1939, 2132, 2148} <= numbers(line)
    assert not numbers(line) & {1508, 1890}  # (mla_v1.py, which #2088 changes too)


def test_a_release_note_and_a_few_mentions_in_a_busy_week_are_no_line():
    """2025-W52: the v0.13.0rc1 release note and two reverts for the freeze ("We'll release
    0.13.0 soon") in 111; 2025-12-27, the day of those reverts: a revert is no work for a
    release, and the changes it undid stay in their own lines; 2026-W24 and W30: one or two."""
    for first, days in ((week(2025, 52), 7), (week(2026, 5), 7), (week(2026, 24), 7)):
        lines, _items = lines_of(first, days)
        assert not [s for s in lines if s.key == RELEASE_KEY], first
    from datetime import date

    lines, _items = lines_of(date(2025, 12, 27), 1)
    assert not [s for s in lines if s.key == RELEASE_KEY]
    assert any({5275, 5410} <= numbers(s) for s in lines)  # MLA prefill and its revert
    lines, _items = lines_of(week(2026, 30), 7)
    assert not [s for s in lines if s.key == RELEASE_KEY or "release" in s.name.casefold()]
