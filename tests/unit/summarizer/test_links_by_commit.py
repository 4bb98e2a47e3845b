"""References to a commit named by its hash alone ("This reverts commit 8134146…", "git revert
8835236…", "after commit: 05a5611…") are resolved to the pull request merged as that commit (its
snapshot's merge_commit_sha; only a unique match), in the window's links and in the history the
store reads (the reverted change is often older than the window), and then read as references by
number. Real vllm-ascend descriptions and merge commits, read in place."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.classifier.domain.digest import digest_of
from services.ingest.domain.sources import replay_fact
from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.report import build_summary
from services.summarizer.domain.storylines import (
    StoryItem,
    commit_number,
    resolve_links,
    with_commit_numbers,
)
from services.summarizer.domain.windows import previous_window
from shared.events import Digest, EnrichedFact, Reference, make_fact
from shared.events.enriched import Tags
from shared.windows import week_window
from tests.conftest import history_prs

from .summarizer_builders import RULESET

REPO = "vllm-project/vllm-ascend"


def story(number: int, *, with_sha: bool = True) -> StoryItem:
    row = history_prs()[number]
    return StoryItem(
        number=number,
        title=row["title"],
        merged_at=datetime.fromisoformat(row["merged_at"]),
        digest=digest_of(row["title"], row["body"] or "", repo=REPO, number=number),
        files=tuple(f["path"] for f in row["files"]),
        categories=(),
        modules=(),
        merge_commit_sha=row["sha"] if with_sha else None,
    )


def links(numbers, **kw) -> set[tuple[int, int, str]]:
    items = {n: story(n, **kw) for n in numbers}
    return {(lk.source, lk.target, lk.kind) for lk in resolve_links(items)}


def test_a_revert_by_hashes_alone_links_each_reverted_change():
    # real #6891: "git revert 8835236… / git revert 64fba51… / …", its title names none of them
    got = links((6891, 6884, 6871, 6867, 6708, 6497))
    assert got == {(6891, n, "reverts") for n in (6884, 6871, 6867, 6708)}
    # without the merge commits nothing ties them (the title names no change)
    assert links((6891, 6884, 6871, 6867, 6708), with_sha=False) == set()


def test_a_fix_naming_the_commit_that_broke_it_is_tied_to_that_change():
    # real #7801: "after commit: 05a5611…, will run into a init error" — #7572's merge commit
    assert (7801, 7572, "fix_up") in links((7801, 7572))
    # real #6599 "[CI] Fix broken CI": "Revert https://github.com/…/commit/4fb3d5e1… it breaks
    # E2E Test" — the commit of #6129
    assert links((6599, 6129)) == {(6599, 6129, "reverts")}


def test_a_short_hash_matches_only_a_unique_merge_commit():
    rows = history_prs()
    commits = [(r["sha"], n) for n, r in rows.items()]
    sha = rows[6884]["sha"]
    assert commit_number(sha[:7], commits) == 6884
    assert commit_number(sha.upper(), commits) == 6884
    assert commit_number(sha[:6], commits) is None  # shorter than git ever abbreviates
    assert commit_number("0000000", commits) is None
    # another change merged as a commit that begins alike: the short hash names neither, the
    # longer one still names #6884
    twin = sha[:8] + ("0" if sha[8] != "0" else "1") * 32
    assert commit_number(sha[:8], [*commits, (twin, 99999)]) is None
    assert commit_number(sha[:9], [*commits, (twin, 99999)]) == 6884


def test_a_revert_of_a_named_revert_is_no_second_revert():
    # real #6231 'Reapply "… (#6041)" (#6227)' reverts the commit of revert #6227 'Revert "…
    # (#6041)"': git's message of #6041 brought back, not one more revert of it
    assert links((6231, 6227, 6041)) == {(6227, 6041, "reverts")}
    # a revert that names no change ("[CI] Revert auto rebase", #6867) is reverted like any
    assert (6891, 6867, "reverts") in links((6891, 6867))


def test_the_digest_reads_resolved_hashes_as_numbers():
    rows = history_prs()
    digest = story(6891).digest
    assert digest is not None
    index = [(rows[n]["sha"], n) for n in (6884, 6871, 6867, 6708, 6891)]
    titles = {n: rows[n]["title"] for n in rows}
    done = with_commit_numbers(digest, 6891, lambda s: commit_number(s, index), titles.get)
    assert [(r.kind, r.number) for r in done.refs if r.sha] == [
        ("reverts", 6884),
        ("reverts", 6871),
        ("reverts", 6867),
        ("reverts", 6708),
    ]
    assert with_commit_numbers(digest, 6891, lambda s: None, titles.get) is digest
    # a hash of the item itself, or one that repeats a reference by number, adds nothing
    own = Digest(refs=(Reference(kind="reverts", sha=rows[6891]["sha"][:9]),))
    assert with_commit_numbers(own, 6891, lambda s: 6891, titles.get) is own
    twice = Digest(
        refs=(
            Reference(kind="reverts", number=6884),
            Reference(kind="reverts", sha=rows[6884]["sha"]),
        )
    )
    assert with_commit_numbers(twice, 6891, lambda s: 6884, titles.get).refs == (
        Reference(kind="reverts", number=6884),
    )


def _fact(number: int, *, with_sha: bool = True) -> EnrichedFact:
    row = dict(history_prs()[number])
    if not with_sha:
        row["sha"] = None
    data = replay_fact(row, REPO)
    assert data is not None
    digest = digest_of(row["title"], row["body"] or "", repo=REPO, number=number)
    return EnrichedFact.create(make_fact(data), Tags(digest=digest), RULESET)


def _window_input(tmp_path, numbers, *, with_sha: bool = True):
    store = SqlProjections(f"sqlite:///{tmp_path / 'p.db'}")
    store.migrate()
    store.fold([_fact(n, with_sha=with_sha) for n in numbers], now=datetime(2027, 1, 1, tzinfo=UTC))
    week = week_window(2026, 10, "Asia/Shanghai")  # #6891 merged 2026-03-03; what it reverts before
    return store.load_window(REPO, week, previous_window(week)), week


def test_the_store_reads_the_reverted_changes_from_the_history(tmp_path):
    inp, week = _window_input(tmp_path, (6891, 6884, 6871, 6867, 6708, 6497, 6241, 6231, 6227))
    assert {6884, 6871, 6867, 6708} <= set(inp.referenced)  # outside the window, read for it
    refs = inp.items[6891].tags.digest.refs
    assert sorted(r.number or 0 for r in refs if r.sha) == [6708, 6867, 6871, 6884]
    summary = build_summary(inp, now=week.end + timedelta(days=1))
    reverted = {i.items[1] for i in summary.incidents if i.kind == "revert" and i.items[0] == 6891}
    assert {6708, 6871, 6884} <= reverted


def test_without_merge_commits_the_store_resolves_nothing(tmp_path):
    inp, _week = _window_input(tmp_path, (6891, 6884, 6871, 6867, 6708), with_sha=False)
    assert not {6884, 6871, 6867, 6708} & set(inp.referenced)
    assert all(r.number is None for r in inp.items[6891].tags.digest.refs if r.sha)


def test_the_report_s_story_items_carry_the_merge_commit():
    # what a report builds from an item's snapshot (report.story_item) keeps the commit, so the
    # window's own changes are tied by hash as above, not only those the store resolved
    from services.summarizer.domain.report import story_item

    from .test_summarizer_line_kinds import snap_tags

    def snap(number: int):
        base, _ = snap_tags(number)
        return base.model_copy(update={"merge_commit_sha": history_prs()[number]["sha"]})

    numbers = (6891, 6884, 6871, 6867, 6708)
    items = {n: story_item(snap(n), Tags(digest=story(n).digest)) for n in numbers}
    assert all(items[n].merge_commit_sha == history_prs()[n]["sha"] for n in numbers)
    got = {(lk.source, lk.target, lk.kind) for lk in resolve_links(items)}
    assert got == {(6891, n, "reverts") for n in numbers[1:]}
