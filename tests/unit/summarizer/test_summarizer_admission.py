"""What the fold counts: accepted repositories, future times, snapshot order (pure)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from services.summarizer.domain.admission import FUTURE, UNKNOWN_REPO, Admission, snapshot_order
from tests.unit.summarizer.summarizer_builders import utc

NOW = utc(2026, 6, 10, 12, 0)


@pytest.mark.parametrize(
    "repos, repo, accepted",
    [
        ((), "any/thing", True),
        (("vllm-project/vllm",), "vllm-project/vllm", True),
        (("vllm-project/vllm",), "VLLM-Project/vllm", True),  # GitHub names are case-insensitive
        (("vllm-project/vllm",), "vllm-project/vllm-ascend", False),
        (("vllm-project/*",), "vllm-project/vllm-ascend", True),
        (("vllm-project/*",), "other/vllm", False),
    ],
)
def test_accept_list(repos, repo, accepted):
    verdict = Admission(repos=repos).verdict(repo, NOW, NOW)
    assert (verdict is None) is accepted
    if not accepted:
        assert verdict.reason == UNKNOWN_REPO and "REPODIGEST_ACCEPT_REPOS" in verdict.detail


def test_future_beyond_tolerance_is_held_and_the_boundary_is_not():
    adm = Admission(future_tolerance=timedelta(minutes=10))
    assert adm.verdict("a/b", NOW + timedelta(minutes=10), NOW) is None
    held = adm.verdict("a/b", NOW + timedelta(minutes=10, seconds=1), NOW)
    assert held.reason == FUTURE and "ahead" in held.detail
    assert adm.verdict("a/b", NOW - timedelta(days=400), NOW) is None
    assert Admission(future_tolerance=None).verdict("a/b", NOW + timedelta(days=900), NOW) is None


def test_unknown_repo_wins_over_future():
    adm = Admission(repos=("a/b",), future_tolerance=timedelta(0))
    assert adm.verdict("c/d", NOW + timedelta(days=1), NOW).reason == UNKNOWN_REPO


def test_snapshot_order_prefers_updated_at_then_fact_time_then_id():
    polled = snapshot_order(
        utc(2026, 6, 10, 9), utc(2026, 6, 10, 1), "aaa"
    )  # merged at 1, seen at 9
    webhook = snapshot_order(utc(2026, 6, 10, 3), utc(2026, 6, 10, 3), "bbb")  # comment at 3
    assert polled > webhook
    assert snapshot_order(None, utc(2026, 6, 10, 4), "a") > webhook
    assert snapshot_order(None, NOW, "b") > snapshot_order(None, NOW, "a")
