"""A reverted change brought back — in the window or after it, as far as the report's watermark —
is the revert's outcome ("relands", its own relation, never a second revert): the risk line names
the change that came back and no follow-up asks to land it again. Real vllm-ascend history:
every revert of it, every change that came back, and the ones that only name a revert."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain import report
from services.summarizer.domain.report import (
    ItemRow,
    ReportPolicy,
    RequestMeta,
    brings_back_title,
    build_summary,
)
from services.summarizer.domain.storylines import plain_title, resolve_links
from services.summarizer.domain.windows import previous_window
from shared.windows import week_window
from tests.conftest import history_prs

from .summarizer_builders import Scenario, real_pr, watermark, window_input
from .test_links_by_commit import _fact, story

REPO = "vllm-project/vllm-ascend"
W27 = week_window(2026, 27, "Asia/Shanghai")


def merged(number: int) -> datetime:
    return datetime.fromisoformat(history_prs()[number]["merged_at"]).astimezone(UTC)


# every revert of the history whose reverted change came back (checked by hand: titles and
# descriptions), and how it says so
CAME_BACK = {
    (3483, 3365): [3512],  # 'Reapply "… (#3365)" (#3483)'
    (3500, 3449): [3506],  # the very title again, the same files, the same day
    (4981, 4892): [5511],  # "[Recover] … (#4892) (revert in #4981)", three weeks later
    (6227, 6041): [6231],  # 'Reapply "… (#6041)" (#6227)' (git's revert of the revert)
    (6459, 6357): [6475],  # the title again; 'This PR reverts "[ModelRunner] Revert …'
    (6873, 6645): [7111],  # "Reapply … (originally in #6645, reverted in #6873)"
    (7030, 7016): [7033],  # "… (re-pull)": "This PR is re-pull of #7016"
    (7288, 7029): [7294],  # "restore pr-7029": "This PR restores #7029"
    (11415, 11155): [11429],  # "Reapply …": "This PR reapplies #11155 after #11415 reverted it"
    # "restore <most of its title>", touching its code (#5093 reverted #5082 as its item 4)
    (5093, 5082): [5119],
    # the very title again (a [Tag] or case aside: "[redo]", "[Image]"), touching its code
    (4580, 4498): [4623],
    (5410, 5275): [5456],
    (5434, 5300): [5545],
    (5667, 5253): [5676],
    (5902, 5519): [6097],
    (5903, 5519): [6097],  # (reverted twice)
    (6164, 6110): [6428],
    (9899, 9744): [9914],
    (10868, 10825): [10878],
    (11615, 11053): [12463],
    (12619, 12515): [12650],
}


def test_every_change_the_history_brought_back_and_no_other():
    """Over all the history's reverts: the changes merged after each revert that the store would
    read (a title saying a change comes back, or the reverted title again) and that `_relands`
    takes. Not: "We did try … in #5761" (#9025), "Fix #10549 and #10824" (#12084), "Restore the
    … import … PR #13290 reverted" (#13810: a line the revert took, not the change), 42 titles
    saying "restore"/"recover" of something else."""
    rows = history_prs()
    items = {n: story(n) for n in rows}
    bodies = {n: rows[n]["body"] or "" for n in rows}
    reverts = [(lk.source, lk.target) for lk in resolve_links(items) if lk.kind == "reverts"]
    assert len(reverts) > 40
    titled = {n for n in rows if brings_back_title(rows[n]["title"])}
    assert 30 < len(titled) < 60  # what the store reads for a window with a revert: a handful
    found = {}
    for source, target in reverts:
        same = {
            n for n in rows if plain_title(rows[n]["title"]) == plain_title(items[target].title)
        }
        back = report._relands(source, target, items, (titled | same) - {source, target}, bodies)
        if back:
            found[(source, target)] = back
    assert found == CAME_BACK
    # the re-lands named by number alone, without their description, still come back by title
    # ("Reapply" and most of the title, its files) — #11429's title names no number
    no_bodies = report._relands(11415, 11155, items, {11429}, {})
    assert no_bodies == [11429]


def test_a_sentence_brings_a_change_back_only_when_it_names_it_and_says_so():
    says = report._says_it_comes_back
    body = history_prs()[11429]["body"]
    assert says(body, 11155, 11415)
    # "We did try, more than once, in #5761 and #8354" names the reverted change, says no re-land
    assert not says(history_prs()[9025]["body"], 5761, 5965)
    assert not says(history_prs()[12084]["body"], 10824, 11994)  # "Fix #10549 and #10824"
    # a wrapped line goes on; a blank line or a list item ends the sentence
    assert says("Reapply the feature (originally in\n#6645, reverted in #6873)", 6645, 6873)
    assert not says("Reapply the feature.\n\nFixes #6645", 6645, 6873)
    assert not says("- reapply the patch\n- see #6645", 6645, 6873)
    # "restore" only with the change itself named, never its revert
    assert says("This PR restores #7029, which adds W8A8C8 support", 7029, 7288)
    assert says("[bugfix] restore pr-7029 and fix patch error", 7029, 7288)
    assert not says("Restore the import that PR #13290 reverted", 12536, 13290)
    # another repository's number is not this one's
    assert not says("Reapply vllm-project/vllm#11155", 11155, 11415)
    assert says('Reapply "x (vllm-project#11155)"', 11155, 11415)
    assert not says("Reapply #111550", 11155, 11415)


def _w27(later: tuple[int, ...]):
    rows = history_prs()
    inside = [real_pr(rows[n], at) for n in rows if W27.start <= (at := merged(n)) < W27.end]
    outside = (
        window_input(
            Scenario(items=[real_pr(rows[n], merged(n)) for n in later]).events(), W27
        ).items
        if later
        else {}
    )
    inp = window_input(Scenario(items=inside).events(), W27, later=dict(outside))
    return build_summary(
        inp, now=W27.end + timedelta(days=60), policy=ReportPolicy(), meta=RequestMeta()
    )


def test_2026_w27_tells_the_revert_with_the_change_that_came_back_after_the_week():
    s = _w27((11429, 13810, 12084))
    (inc,) = [i for i in s.incidents if i.kind == "revert" and i.items[:2] == (11415, 11155)]
    assert inc.items == (11415, 11155, 11429)
    assert inc.roles == ("revert", "reverted_change", "relanded")
    # no follow-up asks to land it again; the change that came back is linked with its day
    assert not [f for f in s.follow_ups if 11155 in (f.item.number, *f.items)]
    (later,) = [r for r in s.referenced if r.number == 11429]
    assert later.merged_at is not None and later.merged_at.date().isoformat() == "2026-07-06"
    # the later changes are no items of the week: not counted, not listed, not linked otherwise
    assert s.counts.merged_prs == len(s.appendix.merged_prs)
    assert not {11429, 13810, 12084} & {i.number for i in s.appendix.merged_prs}
    assert not {13810, 12084} & {n for i in s.incidents for n in i.items}


def test_without_the_later_change_the_week_still_asks_to_land_it_again():
    s = _w27(())
    (inc,) = [i for i in s.incidents if i.kind == "revert" and i.items[:2] == (11415, 11155)]
    assert inc.items == (11415, 11155)
    assert [f for f in s.follow_ups if f.kind == "revert" and 11155 in (f.item.number, *f.items)]


def test_the_store_reads_what_came_back_up_to_the_watermark_only(tmp_path):
    """The store reads the changes that may bring a reverted one back from its title index and
    the items table, merged after the window and before the watermark: the same window at the
    same watermark says the same, and a later watermark tells what came back since."""
    store = SqlProjections(f"sqlite:///{tmp_path / 'p.db'}")
    store.migrate()
    numbers = (11155, 11415, 11429, 13810, 12084, 11081)
    now = datetime(2027, 1, 1, tzinfo=UTC)
    try:
        store.fold([_fact(n) for n in numbers], now=now)
        store.fold([watermark(datetime(2026, 7, 5, tzinfo=UTC), REPO)], now=now)
        inp = store.load_window(REPO, W27, previous_window(W27))
        assert 11429 not in inp.later  # merged 07-06, after the watermark
        assert not {11155, 11415} & set(inp.later)  # the window's own
        store.fold([watermark(datetime(2026, 8, 22, tzinfo=UTC), REPO)], now=now)
        inp = store.load_window(REPO, W27, previous_window(W27))
        # read: what says a change comes back; not read: what says nothing of it (#12084)
        assert 11429 in inp.later and 13810 in inp.later and 12084 not in inp.later
        s = build_summary(inp, now=now)
        (inc,) = [i for i in s.incidents if i.kind == "revert" and i.items[0] == 11415]
        assert inc.items == (11415, 11155, 11429)
        again = build_summary(store.load_window(REPO, W27, previous_window(W27)), now=now)
        assert again.incidents == s.incidents
    finally:
        store.close()


def test_a_window_without_a_revert_reads_nothing_after_it(tmp_path):
    store = SqlProjections(f"sqlite:///{tmp_path / 'p.db'}")
    store.migrate()
    now = datetime(2027, 1, 1, tzinfo=UTC)
    try:
        store.fold([_fact(n) for n in (11155, 11429, 13810)], now=now)
        store.fold([watermark(datetime(2026, 8, 22, tzinfo=UTC), REPO)], now=now)
        assert store.load_window(REPO, W27, previous_window(W27)).later == {}
    finally:
        store.close()


def test_later_rows_are_item_rows():
    # (the report reads them as the store gives them: snapshot, tags, first seen)
    rows = window_input(
        Scenario(items=[real_pr(history_prs()[11429], merged(11429))]).events(), W27
    ).items
    assert isinstance(rows[11429], ItemRow)
