"""The people the activity sentence counts are the contributors' table's people: a login the
classifier tagged a bot ("vllm-ascend-ci", a CI account named after its project) is neither
(2026-W33 said "70 people" beside a table of 69 people and 2 bots)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from services.summarizer.domain.report import ReportPolicy, RequestMeta, build_summary
from shared.events.github import ItemSnapshot
from shared.windows import week_window

from .summarizer_builders import ItemSpec, Scenario, window_input

WEEK = week_window(2026, 33, "Asia/Shanghai")
DAY = datetime(2026, 8, 11, 4, tzinfo=UTC)


@dataclass
class TaggedBot(ItemSpec):
    """An author GitHub does not mark a bot, whom the classifier's rules tag one."""

    def snapshot(self, at: datetime, repo: str = "vllm-project/vllm-ascend") -> ItemSnapshot:
        s = super().snapshot(at, repo)
        return s.model_copy(update={"author": s.author.model_copy(update={"is_bot": False})})


def test_a_login_tagged_a_bot_is_no_person_in_the_counts_or_the_table():
    items = [
        ItemSpec(1, "pull_request", opened=DAY, merged=DAY + timedelta(hours=1), author="alice"),
        ItemSpec(2, "pull_request", opened=DAY, merged=DAY + timedelta(hours=2), author="bob"),
        TaggedBot(
            3,
            "pull_request",
            opened=DAY,
            merged=DAY + timedelta(hours=3),
            author="vllm-ascend-ci",
            bot=True,
        ),
    ]
    s = build_summary(
        window_input(Scenario(items=items).events(), WEEK),
        now=datetime(2026, 8, 17, tzinfo=UTC),
        policy=ReportPolicy(),
        meta=RequestMeta(),
    )
    people = [c.login for c in s.contributors if not c.bot]
    assert sorted(people) == ["alice", "bob"]
    assert s.counts.active_contributors == len(people) == 2
    assert [c.login for c in s.contributors if c.bot] == ["vllm-ascend-ci"]
