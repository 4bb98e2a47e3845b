"""Fix-ups after a change, with their time, and reverts told exactly (issue #15, 2025-W51): the
profile_run refactor #4993 was followed by #5093 ("fix mtp accept rate by disabling
in_profile_run"), #5122, #5136 and #5165 within 53 hours — the report said "1 feature and 3
fixes"; #5093 is a fix that also reverts #5082 (item 4 of 4), not a revert; #5039 turns skipped
tests back on ("Revert temporary skip …"), no revert and no loosened check; #5035 removes
earlier temporary patches, no stopgap of its own. Real titles, bodies, files and merge times."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from services.classifier.domain.digest import digest_of
from services.summarizer.domain.report import FIXUP_HOURS
from services.summarizer.domain.storylines import role_of
from shared.events import Digest
from tests.conftest import history_prs

from .summarizer_builders import ItemSpec, real_pr
from .test_storylines import it
from .test_summarizer_explained import WEEK
from .test_summarizer_fix_burst import FILLER, at, bursts, summarize

REPO = "vllm-project/vllm-ascend"


_rows = history_prs  # the real history, by number (tests/conftest.py)


def _merged(number: int) -> datetime:
    return datetime.fromisoformat(_rows()[number]["merged_at"])


def real(number: int, categories=(), shift: timedelta | None = None) -> ItemSpec:
    """Real #number merged as long after #4993 as it was, #4993 on the week's day 1.2."""
    row = _rows()[number]
    merged = at(1.2) + (_merged(number) - _merged(4993)) + (shift or timedelta())
    return real_pr(
        row,
        merged,
        additions=sum(f["additions"] for f in row["files"]),
        deletions=sum(f["deletions"] for f in row["files"]),
        categories=categories,
    )


def chain(**shift):
    return [
        real(4993, ("feature",)),
        *(real(n, ("bugfix",), shift.get(f"s{n}")) for n in (5093, 5122, 5136, 5165)),
    ]


def test_a_change_and_its_quick_fix_ups_are_one_chain_in_merge_order():
    s = summarize([*FILLER, *chain()])
    (burst,) = bursts(s)
    assert burst.items == (4993, 5093, 5122, 5136, 5165)
    assert burst.roles == ("added", *("fixed",) * 4)
    # the time from the change to its last fix: 52.7 hours, within FIXUP_HOURS
    assert _merged(5165) - _merged(4993) < timedelta(hours=FIXUP_HOURS)
    assert WEEK.start <= at(1.2)


def test_a_fix_of_other_files_counts_only_quickly_and_beside_fixes_of_its_code():
    # #5136 ("fix profile run for vl model", worker_v1.py only) names the line's term: three
    # days later it is no fix-up, and the chain holds the three of its code
    late = summarize([*FILLER, *chain(s5136=timedelta(hours=FIXUP_HOURS))])
    (burst,) = bursts(late)
    assert burst.items == (4993, 5093, 5122, 5165)
    # without the fixes that touch its code, the title alone is no evidence
    alone = [real(4993, ("feature",)), real(5136, ("bugfix",))]
    assert not bursts(summarize([*FILLER, *alone]))
    # #5093 joins by its description's "in_profile_run" and #4993's files: without the first
    # it is another line's fix, and only two fix #4993 — no chain
    plain = [
        real(4993, ("feature",)),
        replace(real(5093, ("bugfix",)), body="fix mtp accept rate"),
        real(5122, ("bugfix",)),
        real(5136, ("bugfix",)),
    ]
    assert not bursts(summarize([*FILLER, *plain]))


def test_a_fix_joined_by_its_words_shares_real_code_not_a_packages_init():
    # (2026-W21: #9410 removed a GLM parser patch, named "DeepSeek V4" and shared only
    # patch/platform/__init__.py with it)
    init = "vllm_ascend/__init__.py"
    lead = real(4993, ("feature",))
    lead = replace(lead, files=(*lead.files, init))
    words = replace(real(5093, ("bugfix",)), files=(init,))
    rest = [real(n, ("bugfix",)) for n in (5122, 5136, 5165)]
    (burst,) = bursts(summarize([*FILLER, lead, words, *rest]))
    assert burst.items == (4993, 5122, 5136, 5165)


def test_a_fix_that_also_reverts_a_change_keeps_its_role():
    row = _rows()[5093]
    d = digest_of(row["title"], row["body"], repo=REPO, number=5093)
    assert role_of(it(5093, row["title"], categories=("bugfix",), digest=d)) == "fix"
    # a title that says nothing else is a revert by its description's "Reverts #N"
    assert role_of(it(1, "Undo the cache", categories=("bugfix",), digest=d)) == "revert"
    # a "Revert" title is a revert, whatever it is tagged
    assert role_of(it(2, "[Bugfix][Revert] Revert Build cache temporarily")) == "revert"
    s = summarize([*FILLER, *chain(), real(5082, ("bugfix",), timedelta(hours=-1))])
    (rev,) = [i for i in s.incidents if i.kind == "revert"]
    assert rev.items[:2] == (5093, 5082)


def test_undoing_a_skip_is_no_revert_nor_a_loosened_check():
    row = _rows()[5039]
    d = digest_of(row["title"], row["body"], repo=REPO, number=5039)
    assert role_of(it(5039, row["title"], categories=("bugfix",), digest=d)) != "revert"
    s = summarize([*FILLER, real(5039, ("bugfix",))])
    told = {(i.kind, n) for i in s.incidents for n in i.items}
    assert not {k for k, n in told if n == 5039}
    # a skip added is still a loosened check
    skip = ItemSpec(
        77,
        "pull_request",
        opened=at(2) - timedelta(hours=5),
        merged=at(2),
        title="[CI] Skip the mtp2 correctness tests on A3",
        files=("tests/e2e/test_mtp.py",),
        digest=Digest(what="x"),
    )
    s = summarize([*FILLER, skip])
    assert [i.kind for i in s.incidents if 77 in i.items] == ["loosened"]


def test_removing_a_stopgap_is_no_stopgap():
    # real #5035 "Remove the process patches …": "Before we add the patches temporarily"
    s = summarize([*FILLER, real(5035, ("refactor",))])
    assert not [f for f in s.follow_ups if f.kind == "temporary" and 5035 in (f.items or ())]
    assert not [f for f in s.follow_ups if f.item.number == 5035]
    # a stopgap it says it adds is one
    row = _rows()[4765]
    s = summarize([*FILLER, real(4765, ("bugfix",))])
    assert [f.kind for f in s.follow_ups if f.item.number == 4765] == ["temporary"], row["title"]


def test_lifting_a_stopgap_leaves_none():
    # real #14391 "[CI] Re-enable DeepSeek V4 test": its description says the test had been
    # "temporarily skipped" — it ends the stopgap, it asks no "lift it later"
    row = _rows()[14391]
    s = summarize([*FILLER, real_pr(row, at(2))])
    assert not [f for f in s.follow_ups if f.item.number == 14391], row["title"]
    # the same description under a title that skips the test loosens a check: asked once
    skip = real_pr({**row, "title": "[CI] Skip DeepSeek V4 test"}, at(2))
    s = summarize([*FILLER, skip])
    assert [f.kind for f in s.follow_ups if f.item.number == 14391] == ["loosened"]
