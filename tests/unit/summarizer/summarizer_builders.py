"""Hand-built enriched events for summarizer tests: a scenario spec and the events it implies.

Tests derive expected figures from the `Scenario` specs (plain Python filters), never from the
summarizer's own code, and compare them with what the summarizer computed from the events.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from shared.events import (
    Actor,
    CommentInfo,
    EnrichedFact,
    FactData,
    FileChange,
    ItemSnapshot,
    ReviewInfo,
    RiskTag,
    RuleSetRef,
    Tag,
    Tags,
    WatermarkData,
    WatermarkForwarded,
    make_fact,
)
from shared.events.enriched import TopicTag

REPO = "acme/widgets"
RULESET = RuleSetRef(profile="test", version="t1")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def tags(
    modules=(),
    risks=(),
    affiliations=(),
    ecosystems=(),
    categories=(),
    bot=False,
    digest=None,
    topics=(),
) -> Tags:
    return Tags(
        modules=tuple(Tag(name=m, rule=f"module:{m}") for m in modules),
        risks=tuple(
            # "large-change/lines": the risk large-change, fired by its rule's "lines" check
            RiskTag(name=r.split("/")[0], severity=sev, reason=f"{r} reason", rule=f"risk:{r}")
            for r, sev in (x if isinstance(x, tuple) else (x, "medium") for x in risks)
        ),
        affiliations=tuple(Tag(name=a, rule=f"aff:{a}") for a in affiliations),
        ecosystems=tuple(Tag(name=e, rule=f"eco:{e}") for e in ecosystems),
        categories=tuple(Tag(name=c, rule=f"cat:{c}") for c in categories),
        # a topic by its name, or (name, its names in other languages)
        topics=tuple(
            TopicTag(name=t, rule=f"topic:{t}")
            if isinstance(t, str)
            else TopicTag(name=t[0], rule=f"topic:{t[0]}", names=t[1])
            for t in topics
        ),
        bot=bot,
        bot_rule="login" if bot else None,
        digest=digest,
    )


@dataclass
class ItemSpec:
    number: int
    kind: str  # pull_request | issue
    opened: datetime
    author: str = "alice"
    association: str = "CONTRIBUTOR"
    merged: datetime | None = None
    closed: datetime | None = None
    modules: tuple[str, ...] = ()
    risks: tuple = ()
    affiliations: tuple[str, ...] = ()
    ecosystems: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    additions: int = 10
    deletions: int = 2
    files: tuple[str, ...] = ("src/core.py",)
    comments: int = 0
    review_comments: int = 0  # comments on the diff (GitHub counts them apart from `comments`)
    reviews: int = 0
    reactions: int = 0
    draft: bool = False
    bot: bool = False
    title: str | None = None
    digest: object = None  # shared.events.Digest
    body: str | None = None  # the description (default: "body of <number>")
    # the profile's topics the classifier gave it: a name, or (name, {language: name})
    topics: tuple = ()

    def tags(self) -> Tags:
        return tags(
            self.modules,
            self.risks,
            self.affiliations,
            self.ecosystems,
            self.categories,
            self.bot,
            self.digest,
            self.topics,
        )

    def snapshot(self, at: datetime, repo: str = REPO) -> ItemSnapshot:
        merged = self.merged if self.merged and self.merged <= at else None
        closed = self.merged or self.closed
        closed = closed if closed and closed <= at else None
        return ItemSnapshot(
            repo=repo,
            number=self.number,
            kind=self.kind,
            title=self.title or f"{self.kind} {self.number}",
            author=Actor(login=self.author, association=self.association, is_bot=self.bot),
            labels=self.labels,
            state="closed" if closed else "open",
            draft=self.draft,
            created_at=self.opened,
            updated_at=at,
            closed_at=closed,
            merged_at=merged,
            comments=self.comments,
            review_comments=self.review_comments if self.kind == "pull_request" else 0,
            reviews=self.reviews,
            reactions=self.reactions,
            additions=self.additions if self.kind == "pull_request" else None,
            deletions=self.deletions if self.kind == "pull_request" else None,
            changed_files=len(self.files) if self.kind == "pull_request" else None,
            files=tuple(FileChange(path=p, additions=1) for p in self.files)
            if self.kind == "pull_request"
            else (),
            body_excerpt=f"body of {self.number}" if self.body is None else self.body,
        )


@dataclass
class Scenario:
    repo: str = REPO
    items: list[ItemSpec] = field(default_factory=list)
    comments: list[tuple[int, datetime, str]] = field(default_factory=list)  # (number, at, login)
    reviews: list[tuple[int, datetime, str]] = field(default_factory=list)
    _ids: int = 1000

    def item(self, number: int) -> ItemSpec:
        return next(i for i in self.items if i.number == number)

    def events(self, ruleset: RuleSetRef = RULESET) -> list[EnrichedFact]:
        out = []
        for spec in self.items:
            out.append(enrich(spec, "opened", spec.opened, ruleset=ruleset, repo=self.repo))
            if spec.merged:
                out.append(enrich(spec, "merged", spec.merged, ruleset=ruleset, repo=self.repo))
            elif spec.closed:
                out.append(enrich(spec, "closed", spec.closed, ruleset=ruleset, repo=self.repo))
        for i, (number, at, login) in enumerate(self.comments):
            spec = self.item(number)
            info = CommentInfo(
                id=10_000 + i, author=Actor(login=login), created_at=at, body_excerpt="+1"
            )
            out.append(
                enrich(
                    spec,
                    "created",
                    at,
                    kind="comment",
                    comment=info,
                    ruleset=ruleset,
                    repo=self.repo,
                )
            )
        for i, (number, at, login) in enumerate(self.reviews):
            spec = self.item(number)
            info = ReviewInfo(
                id=20_000 + i, author=Actor(login=login), state="APPROVED", submitted_at=at
            )
            out.append(
                enrich(
                    spec,
                    "submitted",
                    at,
                    kind="review",
                    review=info,
                    ruleset=ruleset,
                    repo=self.repo,
                )
            )
        return sorted(out, key=lambda e: (e.time, e.id))


def enrich(
    spec: ItemSpec,
    action: str,
    at: datetime,
    *,
    kind: str | None = None,
    comment=None,
    review=None,
    ruleset: RuleSetRef = RULESET,
    repo: str = REPO,
) -> EnrichedFact:
    data = FactData(
        repo=repo,
        kind=kind or spec.kind,
        action=action,
        item=spec.snapshot(at, repo),
        actor=spec.author,
        comment=comment,
        review=review,
    )
    return EnrichedFact.create(make_fact(data), spec.tags(), ruleset)


def watermark(at: datetime, repo: str = REPO) -> WatermarkForwarded:
    return WatermarkForwarded.create(WatermarkData(repo=repo, watermark=at))


MODULES = ("moe", "spec-decode", "rocm", "quantization", "kv-transfer")
PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank-amd", "grace", "heidi")


def random_scenario(
    seed: int, start: datetime, days: float, n_items: int = 60, repo: str = REPO
) -> Scenario:
    """A reproducible mix of PRs and issues opened, merged and closed around [start, start+days)."""
    rnd = random.Random(seed)
    sc = Scenario(repo=repo)

    def at() -> datetime:
        # from a window before to a window after, to the minute
        offset = rnd.uniform(-days, 2 * days)
        return (start + timedelta(days=offset)).replace(second=0, microsecond=0)

    for n in range(1, n_items + 1):
        opened = at()
        kind = rnd.choice(("pull_request", "pull_request", "issue"))
        author = rnd.choice(PEOPLE)
        fate = rnd.random()
        end = opened + timedelta(hours=rnd.uniform(1, 72))
        spec = ItemSpec(
            number=n,
            kind=kind,
            opened=opened,
            author=author,
            association=rnd.choice(("CONTRIBUTOR", "MEMBER", "FIRST_TIME_CONTRIBUTOR", "NONE")),
            merged=end if kind == "pull_request" and fate < 0.5 else None,
            closed=end
            if (kind == "issue" and fate < 0.5) or (kind == "pull_request" and 0.5 <= fate < 0.7)
            else None,
            modules=tuple(sorted(rnd.sample(MODULES, rnd.choice((0, 1, 1, 2))))),
            risks=tuple(
                rnd.sample(("core-path", "cuda-graph", "thread-safety"), rnd.choice((0, 0, 1)))
            ),
            affiliations=("amd",) if author.endswith("-amd") else (),
            categories=(rnd.choice(("performance", "bugfix", "ci", "feature")),),
            additions=rnd.randint(0, 800),
            deletions=rnd.randint(0, 400),
            comments=rnd.randint(0, 20),
            reviews=rnd.randint(0, 4),
            reactions=rnd.randint(0, 9),
            # diff comments, without drawing from `rnd` (the same seed keeps giving the same items)
            review_comments=(n * 7) % 13 if kind == "pull_request" else 0,
        )
        sc.items.append(spec)
    for _ in range(n_items):
        spec = rnd.choice(sc.items)
        when = spec.opened + timedelta(hours=rnd.uniform(0.1, 48))
        is_review = spec.kind == "pull_request" and rnd.random() >= 0.7
        (sc.reviews if is_review else sc.comments).append(
            (spec.number, when.replace(microsecond=0), rnd.choice(PEOPLE))
        )
    return sc


def rows(events) -> list:
    from services.summarizer.domain.report import FactRow

    return [
        FactRow(
            fact_id=e.data.fact_id,
            time=e.data.fact_time,
            fact=e.data.fact,
            tags=e.data.tags,
            ruleset=e.data.ruleset.version,
        )
        for e in events
    ]


def window_input(events, window, previous=None, **extra):
    """What the store would load, built in memory: facts of both windows, latest item snapshots."""
    from services.summarizer.domain.report import ItemRow, WindowInput
    from services.summarizer.domain.windows import previous_window

    previous = previous or previous_window(window)
    all_rows = rows(events)
    items: dict[int, ItemRow] = {}
    for row in sorted(all_rows, key=lambda r: (r.time, r.fact_id)):
        n = row.fact.item.number
        first = items[n].first_seen if n in items else row.time
        items[n] = ItemRow(snapshot=row.fact.item, tags=row.tags, first_seen=first)
    return WindowInput(
        repo=events[0].data.fact.repo if events else REPO,
        window=window,
        previous=previous,
        # as the store's query selects them: start <= time < end
        facts=[r for r in all_rows if window.start <= r.time < window.end],
        previous_facts=[r for r in all_rows if previous.start <= r.time < previous.end],
        items=items,
        **extra,
    )


def real_pr(row: dict, merged: datetime, *, with_files: bool = True, **kw) -> ItemSpec:
    """A real PR of the vllm-ascend history (a row of merged_prs_with_bodies.jsonl: its title,
    description and digest) merged at `merged`, opened five hours before; its files unless
    `with_files` is false."""
    from services.classifier.domain.digest import digest_of

    number, body = row["pr_number"], row["body"] or ""
    files = {"files": tuple(f["path"] for f in row["files"])} if with_files else {}
    return ItemSpec(
        number,
        "pull_request",
        opened=merged - timedelta(hours=5),
        merged=merged,
        title=row["title"],
        body=body,
        digest=digest_of(row["title"], body, repo="vllm-project/vllm-ascend", number=number),
        **files,
        **kw,
    )
