"""Project news in the report model: 2025-W51 of vllm-project/vllm-ascend on its REAL merged PRs
(../shared/data/vllm-ascend-history, read in place) — release notes for v0.11.0 (#4918), vLLM
0.12.0 dropped (#5146), three maintainers (#5152) — and a dropped version told once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.summarizer.domain.report import ReportPolicy, RequestMeta, build_summary
from shared.windows import week_window

from .summarizer_builders import ItemSpec, Scenario, real_pr, window_input
from .test_news import _rows

pytestmark = pytest.mark.shared_data

WEEK = week_window(2025, 51, "Asia/Shanghai")


def real(number: int, day: int) -> ItemSpec:
    return real_pr(_rows()[number], datetime(2025, 12, 15, 4, tzinfo=UTC) + timedelta(days=day))


def test_2025_w51_news_told_once() -> None:
    sc = Scenario(items=[real(4918, 1), real(5152, 3), real(5146, 5), real(5088, 5)])
    s = build_summary(
        window_input(sc.events(), WEEK),
        now=datetime(2025, 12, 22, tzinfo=UTC),
        policy=ReportPolicy(),
        meta=RequestMeta(),
    )
    assert [(n.kind, n.items) for n in s.news] == [
        ("release", (4918,)),
        ("support_dropped", (5146,)),
        ("governance", (5152,)),
    ]
    narrowed = {n for i in s.incidents if i.kind == "narrowed" for n in i.items}
    # dropping vLLM 0.12.0 is told as project news, not again as support narrowed; a removal of
    # code that narrows support (#5088, "Remove PanguProMoEV1 related code") stays a risk
    assert 5146 not in narrowed
    assert 5088 in narrowed
    assert 5146 not in {n for f in s.follow_ups if f.kind == "narrowed" for n in f.items}
