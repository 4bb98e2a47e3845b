"""One person, one row: facts classified with an identities file and folded into real SQLite and
PostgreSQL count a person once (contributors table, active and first-time contributors,
reviewers), and the ecosystem section takes the affiliation of the item's date. The same facts
re-classified under the file replace their projections (what `repodigest reclassify` does
after the file changes) and the next report has the merged people."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import yaml

from services.classifier.domain.identities import IdentityBook
from services.classifier.domain.rules import build_registry
from services.classifier.handlers import classify_fact
from services.ingest.domain.sources import replay_fact
from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.report import build_summary
from services.summarizer.domain.windows import previous_window
from services.summarizer.handlers import Deps, fold_events
from shared.events import (
    Actor,
    CommentInfo,
    FactData,
    ItemSnapshot,
    ReviewInfo,
    WindowSummarized,
    make_fact,
)
from shared.windows import week_window

REPO = "vllm-project/vllm-ascend"
WINDOW = week_window(2025, 27, "UTC")  # 2025-06-30 .. 2025-07-07
DAY = timedelta(days=1)

IDENTITIES = """
people:
  - login: xuchi-0808
    names: [XuChi]
    emails: [xuchicolson@163.com]
    affiliations:
      - {org: huawei, until: 2025-06-30}
      - {org: amd, from: 2025-07-01}
  - login: frankchen
    logins: [chenchuw886]
    names: [Frank Chen]
"""
PROFILE = {
    "profile": "generic",
    "affiliations": [{"name": "huawei", "email_domains": ["huawei.com"]}],
}


def at(day: int, hour: int = 10) -> datetime:
    return WINDOW.start + day * DAY + timedelta(hours=hour)


def commit(number: int, name: str, email: str, when: datetime) -> FactData:
    """A merged pull request as the git-history replay reads it (the real source's code)."""
    return replay_fact(
        {
            "sha": f"{number:040x}",
            "pr_number": number,
            "title": f"change {number}",
            "author_name": name,
            "author_email": email,
            "authored_at": when.isoformat(),
            "merged_at": when.isoformat(),
            "files": [{"path": "vllm_ascend/x.py", "additions": 3, "deletions": 1}],
        },
        REPO,
    )


def opened(number: int, login: str, when: datetime) -> FactData:
    item = ItemSnapshot(
        repo=REPO,
        number=number,
        kind="pull_request",
        title=f"change {number}",
        author=Actor(login=login),
        state="open",
        created_at=when,
    )
    return FactData(
        repo=REPO, kind="pull_request", action="opened", item=item, actor=login, origin="poll"
    )


def comment(on: FactData, cid: int, login: str, when: datetime) -> FactData:
    return on.model_copy(
        update={
            "kind": "comment",
            "action": "created",
            "actor": login,
            "comment": CommentInfo(id=cid, author=Actor(login=login), created_at=when),
        }
    )


def review(on: FactData, rid: int, login: str, when: datetime) -> FactData:
    return on.model_copy(
        update={
            "kind": "review",
            "action": "submitted",
            "actor": login,
            "review": ReviewInfo(
                id=rid, author=Actor(login=login), state="approved", submitted_at=when
            ),
        }
    )


def facts() -> list[FactData]:
    pr3 = opened(3, "xuchi-0808", at(2))
    return [
        # a veteran seen long before: our history reaches back, so "first seen" means something
        opened(1, "veteran", WINDOW.start - 120 * DAY),
        # the same person committing under a 163.com address (huawei days) and a noreply one
        commit(10, "XuChi", "xuchicolson@163.com", at(0)),
        commit(11, "XuChi", "117799054+xuchi-0808@users.noreply.github.com", at(2)),
        pr3,
        comment(pr3, 501, "veteran", at(3)),
        # Frank Chen under two GitHub accounts: one reviewer, one contributor
        review(pr3, 601, "chenchuw886", at(3, 12)),
        comment(pr3, 502, "frankchen", at(4)),
    ]


def registry(identities: str | None):
    book = IdentityBook.from_data(yaml.safe_load(identities)) if identities else None
    return build_registry({"generic": ("generic.yaml", PROFILE)}, identities=book)


async def report(store: SqlProjections, events) -> object:
    async def publish(event: WindowSummarized) -> None:
        raise AssertionError("nothing is due: no summary is published")

    deps = Deps(store=store, publish=publish, clock=lambda: datetime(2027, 1, 1, tzinfo=UTC))
    await fold_events(deps, events)
    return build_summary(store.load_window(REPO, WINDOW, previous_window(WINDOW)), now=WINDOW.end)


async def test_a_person_counts_once_and_keeps_the_affiliation_of_the_day(database_url):
    store = SqlProjections(database_url)
    try:
        github = [make_fact(f) for f in facts()]
        before = await report(store, [classify_fact(f, registry(None)) for f in github])
        rows = {c.login: c for c in before.contributors}
        # without the file: a commit name beside the login, two accounts of one reviewer
        assert {"XuChi", "xuchi-0808", "chenchuw886", "frankchen", "veteran"} <= set(rows)
        assert before.counts.active_contributors == 5
        assert before.counts.first_time_contributors == 4
        assert not any(s.name == "AMD/ROCm" for s in before.ecosystems)

        # the file changes: the facts are re-classified (new enriched events, same facts)
        after = await report(store, [classify_fact(f, registry(IDENTITIES)) for f in github])
        rows = {c.login: c for c in after.contributors}
        assert set(rows) == {"xuchi-0808", "frankchen", "veteran"}
        assert (rows["xuchi-0808"].prs_merged, rows["xuchi-0808"].prs_opened) == (2, 1)
        assert (rows["frankchen"].reviews, rows["frankchen"].comments) == (1, 1)
        assert rows["xuchi-0808"].first_time and rows["frankchen"].first_time
        assert not rows["veteran"].first_time
        assert after.counts.active_contributors == 3
        assert after.counts.first_time_contributors == 2
        assert after.counts.reviewers == 1
        assert after.counts.merged_prs == before.counts.merged_prs == 2  # facts are unchanged
        # the merged PR of 2025-06-30 is huawei's work; those of 2025-07-02 (#11, #3) AMD's
        amd = next(s for s in after.ecosystems if s.name == "AMD/ROCm")
        numbers = sorted(i.number for g in amd.pr_groups for i in g.items)
        assert numbers == [3, 11] and amd.contributors == ("xuchi-0808",)
        merged = {i.number: i for i in after.appendix.merged_prs}
        assert merged[10].author == merged[11].author == "xuchi-0808"
        assert merged[10].affiliations == ("huawei",) and merged[11].affiliations == ("amd",)
    finally:
        store.close()
