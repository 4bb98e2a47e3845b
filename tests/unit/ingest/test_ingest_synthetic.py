"""The demo generator: deterministic, realistic in shape, and its expected counts hold."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from services.ingest.adapters.demo import DEMO_REPO, generate_demo
from services.ingest.adapters.demo.vocabulary import AMD_CONTRIBUTORS, PREFIXES
from shared.events import fact_time, make_fact
from shared.windows import day_window, parse_window


@pytest.fixture(scope="module")
def demo():
    return generate_demo("2026-W24", seed=7)


def _fact_counts(facts, start, end) -> Counter:
    return Counter((f.kind, f.action) for f in facts if start <= fact_time(f) < end)


def test_same_seed_and_week_give_identical_facts(demo):
    again = generate_demo("2026-W24", seed=7)
    assert [make_fact(f).to_bytes() for f in again.facts] == [
        make_fact(f).to_bytes() for f in demo.facts
    ]


def test_other_seed_or_week_differs(demo):
    ids = {make_fact(f).id for f in demo.facts}
    assert ids.isdisjoint({make_fact(f).id for f in generate_demo("2026-W24", seed=8).facts})
    assert ids.isdisjoint({make_fact(f).id for f in generate_demo("2026-W30", seed=7).facts})


def test_ids_unique_and_everything_before_the_watermark(demo):
    events = [make_fact(f) for f in demo.facts]
    assert len({e.id for e in events}) == len(events)
    assert demo.watermark == parse_window("week:2026-W24").end
    assert all(e.time < demo.watermark for e in events)
    assert all(f.repo == DEMO_REPO and f.origin == "demo" for f in demo.facts)


def test_two_weeks_of_a_busy_repository(demo):
    previous, current = demo.windows
    assert (previous.label, current.label) == ("2026-W23", "2026-W24")
    items = demo.items
    prs = [i for i in items if i.kind == "pull_request"]
    issues = [i for i in items if i.kind == "issue"]
    assert 250 <= len(prs) <= 450 and 80 <= len(issues) <= 130
    for window in demo.windows:
        c = demo.expected(window.start, window.end)
        assert c.new_prs > 100 and c.merged_prs > 50 and c.closed_unmerged_prs > 5
        assert c.new_issues > 30 and c.closed_issues > 3 and c.comments > 150 and c.reviews > 50


@pytest.mark.parametrize("tz", ["UTC", "Asia/Shanghai"])
def test_expected_counts_match_the_facts_per_week(tz):
    demo = generate_demo("2026-W24", seed=11, tz=tz)
    for window in demo.windows:
        expected = demo.expected(window.start, window.end)
        got = _fact_counts(demo.facts, window.start, window.end)
        for key, n in expected.by_fact().items():
            assert got.get(key, 0) == n, (window.label, key)
        assert got[("pull_request", "labeled")] + got[("issue", "labeled")] == expected.labeled


def test_expected_counts_match_for_a_daily_window_with_cutoff(demo):
    day = day_window(demo.window.start.date() + timedelta(days=2), "Asia/Shanghai", "11:45")
    expected = demo.expected(day.start, day.end)
    got = _fact_counts(demo.facts, day.start, day.end)
    assert expected.new_prs > 0
    assert {k: got.get(k, 0) for k in expected.by_fact()} == expected.by_fact()


def test_realistic_titles_paths_and_people(demo):
    prs = [i for i in demo.items if i.kind == "pull_request"]
    prefixes = Counter(p.title.split("]")[0] + "]" for p in prs if p.title.startswith("["))
    assert set(PREFIXES) <= set(prefixes)
    issue_prefixes = {i.title.split(":")[0] for i in demo.items if i.kind == "issue"}
    assert issue_prefixes == {"[Bug]", "[RFC]", "[Feature]", "[Usage]"}
    paths = {f.path for p in prs for f in p.files}
    for root in (
        "vllm/v1/core/sched/",
        "vllm/model_executor/layers/fused_moe/",
        "vllm/v1/spec_decode/",
        "csrc/rocm/",
        "vllm/distributed/kv_transfer/",
        "vllm/entrypoints/openai/",
        "tests/",
        ".buildkite/",
        "docs/",
        "requirements/",
    ):
        assert any(p.startswith(root) for p in paths), root
    logins = {p.author.login for p in prs}
    assert {"dependabot[bot]"} <= logins and logins & set(AMD_CONTRIBUTORS)
    commenters = {c.author.login for i in demo.items for c in i.comments}
    assert "mergify[bot]" in commenters
    assert any(p.author.association == "FIRST_TIME_CONTRIBUTOR" for p in prs)
    assert all("Synthetic demo data" in i.body for i in demo.items)


def test_hard_cases_are_present(demo):
    prs = [i for i in demo.items if i.kind == "pull_request"]
    merged_code = [p for p in prs if p.merged_at and p.area not in ("doc", "ci", "deps")]
    assert any(not p.has_tests for p in merged_code)  # changes without tests
    assert any(p.files_total > 300 for p in prs)  # beyond the files cap
    assert any(p.additions + p.deletions > 2000 for p in prs)
    reverts = [p for p in prs if p.title.startswith('Revert "')]
    assert reverts and all(p.revert_of is not None for p in reverts)
    numbers = {p.number for p in prs}
    assert all(int(r.title.rsplit("(#", 1)[1].split(")")[0]) in numbers for r in reverts)
    per_week_hot = Counter()
    for item in demo.items:
        for w in demo.windows:
            if sum(w.contains(c.at) for c in item.comments) >= 15:
                per_week_hot[w.label] += 1
    assert all(per_week_hot[w.label] >= 2 for w in demo.windows), per_week_hot
    truncated = [f for f in demo.facts if f.item.files_truncated]
    assert truncated and all(len(f.item.files) == 300 for f in truncated)


def test_snapshots_follow_the_item_lifecycle(demo):
    merged = [f for f in demo.facts if (f.kind, f.action) == ("pull_request", "merged")]
    opened = {
        f.item.number: f for f in demo.facts if (f.kind, f.action) == ("pull_request", "opened")
    }
    assert merged
    for f in merged:
        assert f.item.state == "closed" and f.item.merged_at == f.item.closed_at
        if f.item.number in opened:
            o = opened[f.item.number].item
            assert o.state == "open" and o.merged_at is None and o.created_at < f.item.merged_at
    for f in demo.facts:
        if f.kind == "comment":
            assert f.comment.created_at >= f.item.created_at


def test_bad_week_is_refused():
    with pytest.raises(ValueError, match="ISO week like 2026-W24"):
        generate_demo("2026-24")


def test_fixes_close_their_issues_and_follow_ups_reference_merged_prs(demo):
    by_number = {i.number: i for i in demo.items}
    fixes = [i for i in demo.items if "FIX #" in i.body]
    assert len(fixes) >= 5
    closed_by_fix = 0
    for pr in fixes:
        issue = by_number[int(pr.body.rsplit("FIX #", 1)[1].split()[0])]
        assert issue.kind == "issue" and issue.title.startswith("[Bug]")
        assert issue.created_at < pr.created_at
        if pr.merged_at is not None:
            assert issue.closed_at is not None and issue.closed_at <= pr.merged_at + timedelta(
                minutes=1
            )
            closed_by_fix += issue.closed_at == pr.merged_at + timedelta(minutes=1)
    assert closed_by_fix >= 1
    follow_ups = [i for i in demo.items if "Follow-up to #" in i.title]
    assert follow_ups
    for pr in follow_ups:
        original = by_number[int(pr.title.split("Follow-up to #")[1].split(":")[0])]
        assert original.merged_at is not None and original.merged_at < pr.created_at
        assert original.author == pr.author
    titles = [i.title for i in demo.items]
    assert len(set(titles)) == len(titles)  # no template shows twice
