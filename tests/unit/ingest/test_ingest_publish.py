"""ingest_facts with an in-memory publisher: subjects, order, watermark, duplicates, errors."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from services.ingest.adapters.demo import generate_demo
from services.ingest.domain.sources import SourceError
from services.ingest.handlers import demo_week_of, ingest_facts, ingest_source
from shared.events import GithubFact, SyncWatermark, fact_time, make_fact
from shared.messaging import Subjects
from shared.windows import parse_window


class InMemoryPublisher:
    """Records what was published; acknowledges an id it has seen as a duplicate, like JetStream."""

    def __init__(self) -> None:
        self.sent: list[tuple[object, str]] = []
        self.ids: set[str] = set()

    async def publish(self, event, subject):
        self.sent.append((event, subject))
        duplicate = event.id in self.ids
        self.ids.add(event.id)
        return SimpleNamespace(duplicate=duplicate)

    async def publish_many(self, batch):
        return [await self.publish(event, subject) for event, subject, _ in batch]


@pytest.fixture(scope="module")
def facts():
    return list(generate_demo("2026-W24", seed=5).facts[:700])


async def test_facts_then_one_watermark(facts):
    pub = InMemoryPublisher()
    result = await ingest_facts(pub, facts[0].repo, facts, origin="demo")
    assert result.facts_published == len(facts) and result.duplicates == 0
    assert result.watermark == max(fact_time(f) for f in facts)
    events = [e for e, _ in pub.sent]
    assert all(isinstance(e, GithubFact) for e in events[:-1])
    assert isinstance(events[-1], SyncWatermark) and events[-1].data.facts_published == len(facts)
    assert pub.sent[-1][1] == Subjects.watermark(facts[0].repo)
    for event, subject in pub.sent[:-1]:
        assert subject == Subjects.fact(event.data.kind, event.data.action, event.data.repo)
    assert [e.id for e in events[:-1]] == [make_fact(f).id for f in facts]  # order kept
    assert sum(result.counts.values()) == len(facts)
    assert result.counts[("pull_request", "opened")] == sum(
        1 for f in facts if (f.kind, f.action) == ("pull_request", "opened")
    )


async def test_rerun_counts_duplicates_and_explicit_watermark(facts):
    pub = InMemoryPublisher()
    await ingest_facts(pub, facts[0].repo, facts, origin="demo")
    mark = datetime(2026, 6, 15, tzinfo=UTC)
    again = await ingest_facts(
        pub, facts[0].repo, iter(facts), origin="demo", watermark=mark, progress=True
    )
    assert again.duplicates == len(facts) and again.new_facts == 0
    assert again.watermark == mark and pub.sent[-1][0].time == mark


async def test_nothing_to_say_publishes_nothing():
    pub = InMemoryPublisher()
    result = await ingest_facts(pub, "a/b", [], origin="replay")
    assert pub.sent == [] and result.watermark is None and not result.watermark_published


async def test_fact_of_another_repository_is_refused(facts):
    with pytest.raises(SourceError, match="filter the source by repository"):
        await ingest_facts(InMemoryPublisher(), "other/repo", facts[:3], origin="demo")


async def test_ingest_source_demo_follows_the_window():
    window = parse_window("day:2026-03-26", "Asia/Shanghai", "11:45")
    assert demo_week_of(window) == "2026-W13"
    pub = InMemoryPublisher()
    result = await ingest_source(pub, "demo", None, window=window)
    assert result.repo == "repodigest-demo/llm-serve" and result.origin == "demo"
    week = parse_window("week:2026-W13", "Asia/Shanghai")
    assert result.watermark == week.end
    day_facts = [e for e, _ in pub.sent[:-1] if window.contains(e.time)]
    assert day_facts  # the requested day has activity


@pytest.mark.parametrize(
    "source, repo, fragment",
    [
        ("demo", "vllm-project/vllm", "only generates repodigest-demo/llm-serve"),
        ("replay:/nonexistent/h.jsonl", None, "does not exist"),
        ("demo", "not a repo", "not a GitHub repository name"),
    ],
)
async def test_ingest_source_errors_publish_nothing(source, repo, fragment):
    pub = InMemoryPublisher()
    with pytest.raises(SourceError, match=fragment):
        await ingest_source(pub, source, repo)
    assert pub.sent == []


async def test_bad_demo_week_is_a_source_error():
    with pytest.raises(SourceError, match="ISO week"):
        await ingest_source(InMemoryPublisher(), "demo", demo_week="June")
