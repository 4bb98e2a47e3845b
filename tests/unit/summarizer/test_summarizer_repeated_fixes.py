"""One file fixed again and again is instability (issue #15, the day 2026-07-09): the docs
translation scripts were fixed four times on 07-08 and three times on 07-09 ("Fix doc translate
workflow" twice, "Fix wrong CN translate", "Fix CN doc problem", "Fix po translate bug"), none
naming another, and the report said nothing. Real titles, files and merge times of those two days;
a busy file that features touch too, and fixes all of the day before, never fire."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from services.summarizer.domain.storylines import term_counts_of
from shared.windows import day_window
from tests.conftest import history_prs

from .summarizer_builders import ItemSpec, real_pr
from .test_summarizer_explained import summarize

DAY = day_window(date(2026, 7, 9), "Asia/Shanghai")
NOW = datetime(2026, 7, 10, 4, tzinfo=UTC)
TRANSLATION = (11597, 11605, 11606, 11625, 11644, 11652, 11664, 11688)


def real(number: int) -> ItemSpec:
    row = history_prs()[number]
    return real_pr(row, datetime.fromisoformat(row["merged_at"]))


def repeated(s):
    return [i for i in s.incidents if i.kind == "instability" and set(i.roles) == {"fixed"}]


def day(items):
    rows = history_prs().values()
    counts = term_counts_of(r["title"] for r in rows)
    return summarize(items, window=DAY, term_counts=counts, history_items=len(rows))


def test_a_file_fixed_again_and_again_over_two_days_is_one_instability_line():
    s = day([real(n) for n in TRANSLATION])
    (inc,) = repeated(s)
    assert inc.subject == "detect_po_changes.py"
    assert {11652, 11664, 11688} <= set(inc.items) and inc.across_windows
    assert list(inc.items) == sorted(inc.items, key=lambda n: history_prs()[n]["merged_at"])
    (follow,) = [f for f in s.follow_ups if f.kind == "instability"]
    assert "fixed" in follow.reason and "reverted" not in follow.reason


def test_fixes_all_of_the_day_before_or_of_a_busy_file_are_no_instability():
    # the day before alone: nothing of this window was fixed again
    assert not repeated(day([real(n) for n in TRANSLATION if n < 11650]))
    # the same fixes on a file more features touched than fixes did
    busy = "vllm_ascend/worker/model_runner_v1.py"
    fixes = [replace(real(n), files=(busy,)) for n in (11597, 11605, 11652, 11688)]
    features = [
        ItemSpec(
            20 + i,
            "pull_request",
            datetime(2026, 7, 9, 2 + i, tzinfo=UTC) - timedelta(hours=5),
            merged=datetime(2026, 7, 9, 2 + i, tzinfo=UTC),
            title=f"[Feature] Support mode {i}",
            files=(busy,),
            categories=("feature",),
        )
        for i in range(5)
    ]
    assert not repeated(day([*fixes, *features]))
    assert repeated(day(fixes))


def test_unrelated_fixes_of_a_hub_file_are_no_instability():
    # 2026-W17: five fixes of platform.py within three days, each of its own thing ("Add
    # compatibility guard for --enable-dbo", "Require kv producer for layer sharding", "fix spec
    # decode and async bug", …): no term rare in the history names most of them
    hub = "vllm_ascend/platform.py"
    base = datetime(2026, 7, 8, 6, tzinfo=UTC)
    fixes = [
        replace(real(n), files=(hub,), merged=base + timedelta(hours=6 * k), opened=base)
        for k, n in enumerate((8507, 8562, 8461, 8365, 8582))
    ]
    assert not repeated(day(fixes))
