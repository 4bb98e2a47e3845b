"""Planning the demo fortnight: `generate_demo(week, seed)` plans two ISO weeks (the requested
one and the one before it, for trends) of a vLLM-like project, seeded, then derives the facts
from the plan (`facts.facts_of`). Same week, seed and time zone: identical facts."""

from __future__ import annotations

import math
import random
import re
from datetime import datetime, timedelta

from shared.events import Actor, FileChange
from shared.events.github import FILES_CAP
from shared.windows import week_window

from .facts import facts_of
from .plan import DemoData, PlannedComment, PlannedItem, PlannedReview, parse_week
from .vocabulary import (
    AMD_CONTRIBUTORS,
    AMD_HARDWARE,
    AREA_NOUNS,
    AREAS,
    BOTS,
    COLLABORATORS,
    CONTRIBUTORS,
    DEMO_REPO,
    FEATURES,
    FIRST_TIMERS,
    GENERIC_TITLES,
    HARDWARE,
    ISSUE_KINDS,
    LARGE_CHANGES,
    MAINTAINERS,
    MERGIFY_TEXT,
    MODELS,
    NVIDIA_HARDWARE,
    PERF_AREAS,
    PICKABLE,
    PREFIXES,
    REPORTERS,
    STORY_MODEL,
    SYMPTOMS,
    SYNTHETIC,
    USER_FACING_YES,
    WHY,
)

_REF = re.compile(r"\{ref:(\d+)\}")


class _Planner:
    def __init__(self, rng: random.Random, start: datetime, end: datetime, week: str, seed: int):
        self.rng, self.start, self.end = rng, start, end
        self.tag = f"seed {seed}, week {week}"
        self.comment_id = 3_100_000_000 + seed * 1_000_000
        self.review_id = 2_900_000_000 + seed * 1_000_000
        self.items: list[PlannedItem] = []
        self.used_titles: dict[str, int] = {}
        self.first_timers = list(FIRST_TIMERS)
        rng.shuffle(self.first_timers)
        # descriptions draw from their own stream: richer bodies do not move the plan's numbers
        self.text = random.Random(f"repodigest-demo-bodies:{week}:{seed}")

    # people
    def actor(self, login: str) -> Actor:
        if login in BOTS:
            return Actor(login=login, association="NONE", is_bot=True)
        if login in MAINTAINERS:
            return Actor(login=login, association="MEMBER")
        if login in COLLABORATORS:
            return Actor(login=login, association="COLLABORATOR")
        if login in REPORTERS:
            return Actor(login=login, association="NONE")
        if login in FIRST_TIMERS:
            return Actor(login=login, association="FIRST_TIME_CONTRIBUTOR")
        return Actor(login=login, association="CONTRIBUTOR")

    def pr_author(self, area: str) -> Actor:
        r = self.rng.random()
        if area == "rocm" and r < 0.75:
            return self.actor(self.rng.choice(AMD_CONTRIBUTORS))
        if r < 0.06 and self.first_timers:
            return self.actor(self.first_timers.pop())
        if r < 0.14:
            return self.actor(self.rng.choice(AMD_CONTRIBUTORS))
        if r < 0.34:
            return self.actor(self.rng.choice(MAINTAINERS))
        if r < 0.46:
            return self.actor(self.rng.choice(COLLABORATORS))
        return self.actor(self.rng.choice(CONTRIBUTORS))

    def discussant(self) -> Actor:
        pool = (
            MAINTAINERS * 3 + COLLABORATORS * 2 + CONTRIBUTORS + AMD_CONTRIBUTORS + REPORTERS[:20]
        )
        return self.actor(self.rng.choice(pool))

    # time
    def when(self, lo: datetime, hi: datetime) -> datetime:
        """A working-hours-weighted instant in [lo, hi) (weekends are quieter)."""
        span = (hi - lo).total_seconds()
        for _ in range(20):
            t = lo + timedelta(seconds=int(self.rng.random() * span))
            if t.weekday() < 5 or self.rng.random() < 0.35:
                return t
        return t

    def delay(self, median_hours: float, sigma: float = 1.0, floor_minutes: int = 10) -> timedelta:
        hours = math.exp(self.rng.gauss(math.log(median_hours), sigma))
        return timedelta(minutes=max(floor_minutes, int(hours * 60)))

    # pull requests
    def pull_request(self, created: datetime) -> PlannedItem:
        rng = self.rng
        names = list(PREFIXES)
        prefix = rng.choices(names, weights=[PREFIXES[n][0] for n in names])[0]
        _, area, labels = PREFIXES[prefix]
        area = area or rng.choice(PERF_AREAS if prefix == "[Perf]" else PICKABLE)
        spec = AREAS[area]
        model = rng.choice(MODELS)
        hardware = rng.choice(AMD_HARDWARE if area == "rocm" else NVIDIA_HARDWARE)
        if prefix == "[Bugfix]":
            if rng.random() < 0.3:
                thing = rng.choice(spec["titles"]).format(model=model).split(" for ")[0]
                title = f"{prefix} Fix regression after: {thing[0].lower()}{thing[1:]}"
            else:
                title = f"{prefix} Fix {rng.choice(SYMPTOMS)} in {rng.choice(AREA_NOUNS[area])}"
                r = rng.random()
                if r < 0.3:
                    title += f" with {model}"
                elif r < 0.55:
                    title += f" when {rng.choice(FEATURES)} is enabled"
                elif r < 0.7:
                    title += f" on {hardware}"
        elif prefix == "[Perf]":
            title = (
                f"{prefix} {rng.choice(spec['titles']).format(model=model)} "
                f"({rng.randint(5, 40)}% faster on {hardware})"
            )
        elif area in AREA_NOUNS and rng.random() < 0.5:
            title = f"{prefix} " + rng.choice(GENERIC_TITLES).format(
                noun=rng.choice(AREA_NOUNS[area]), feature=rng.choice(FEATURES), model=model
            )
        else:
            title = f"{prefix} {rng.choice(spec['titles']).format(model=model, hw=hardware)}"
        title = self.unique(title, f" for {rng.choice(MODELS)}", f" on {hardware}")
        author = self.pr_author(area)
        files = self.files(area, code=prefix not in ("[Doc]", "[CI]"))
        item = PlannedItem(
            key=len(self.items),
            kind="pull_request",
            title=title,
            author=author,
            created_at=created,
            labels=labels,
            area=area,
            body=self.pr_body(prefix, title, files, model, hardware),
            draft=rng.random() < 0.08,
        )
        self._set_files(item, files)
        self.outcome(item, merge_p=0.62, close_p=0.12)
        return item

    def pr_body(
        self,
        prefix: str,
        title: str,
        files: list[FileChange],
        model: str,
        hardware: str,
        *,
        why: str | None = None,
        user_facing: str | None = None,
        extra: str = "",
    ) -> str:
        """A description in one of the two templates real projects use (vLLM's Purpose / Test Plan
        / Test Result, or vllm-ascend's what-why / user-facing / tested), with the claims a
        pull request of its kind makes: throughput and latency figures for [Perf], an accuracy
        figure for a new model."""
        t = self.text
        what = title.split("] ", 1)[-1]
        why = why or t.choice(WHY).format(model=model, hw=hardware, feature=t.choice(FEATURES))
        tests = any(f.path.startswith("tests/") for f in files)
        claim = ""
        if prefix == "[Perf]":
            m = re.search(r"\((\d+)% faster on ([\w-]+)\)", title)
            pct, hw = (int(m.group(1)), m.group(2)) if m else (t.randint(5, 40), hardware)
            base = t.randint(900, 4000)
            ttft = t.randint(80, 400)
            claim = (
                f"On {hw} with {model}, output throughput rises from {base:,} to "
                f"{round(base * (1 + pct / 100)):,} tokens/s (+{pct}%) and TTFT p50 drops from "
                f"{ttft}ms -> {round(ttft / (1 + pct / 100))}ms."
            )
        elif prefix == "[Model]" or what.startswith("Add support for"):
            ref = t.uniform(0.80, 0.95)
            claim = f"GSM8K accuracy is {ref - t.uniform(0, 0.01):.3f} (reference {ref:.3f})."
        if user_facing is None:
            user_facing = (
                t.choice(USER_FACING_YES).format(model=model)
                if prefix in ("[Frontend]", "[Feature]", "[Model]")
                else t.choice(("No.", "No", "None.", "No user-facing change."))
            )
        if prefix == "[Perf]":
            plan = "vllm bench serve on the ShareGPT dataset, before and after, 3 runs each."
        elif tests:
            plan = t.choice(
                (
                    "Added unit tests; CI passed.",
                    "New unit tests and the existing e2e tests.",
                    "pytest tests/ with the new unit tests.",
                )
            )
        else:
            plan = t.choice(
                (
                    "Manual run of the affected path.",
                    f"Tested locally with an offline inference script for {model}.",
                    "CI passed with existing tests.",
                )
            )
        head = f"<!-- {SYNTHETIC.format(kind='pull request')} ({self.tag}) -->\n\n"
        if t.random() < 0.5:
            result = claim or t.choice(("All tests pass.", "Outputs match the baseline."))
            return (
                head + f"## Purpose\n{what}. {why}\n\n## Test Plan\n{plan}\n\n"
                f"## Test Result\n{result}{extra}\n\n---\n<details>\n<summary> Essential Elements of an "
                "Effective PR Description Checklist </summary>\n\n- [x] The purpose of the PR.\n"
                "- [x] The test plan.\n</details>"
            )
        body = (
            head + "<!--  Thanks for sending a pull request! -->\n"
            f"### What this PR does / why we need it?\n{what}. {why}"
            + (f"\n\n{claim}" if claim else "")
            + extra
            + f"\n\n### Does this PR introduce _any_ user-facing change?\n{user_facing}\n\n"
            f"### How was this patch tested?\n{plan}\n\n- vLLM version: v0.11.0\n"
            "- vLLM main: https://github.com/vllm-project/vllm/commit/"
            f"{t.getrandbits(160):040x}"
        )
        return body

    def sha(self) -> str:
        return f"{self.text.getrandbits(160):040x}"

    def unique(self, title: str, *alternates: str) -> str:
        """Templates repeat; real titles rarely do. A repeated title takes the first unused
        qualifier from `alternates`, else becomes `... (part N)`."""
        for candidate in (title, *(title + alt for alt in alternates)):
            if candidate not in self.used_titles:
                self.used_titles[candidate] = 1
                return candidate
        n = self.used_titles[title] = self.used_titles[title] + 1
        return f"{title} (part {n})"

    def files(self, area: str, *, code: bool) -> list[FileChange]:
        rng = self.rng
        spec = AREAS[area]
        k = min(len(spec["paths"]), 1 + int(rng.expovariate(0.6)))
        chosen = rng.sample(spec["paths"], k)
        if rng.random() < 0.15:  # touches a neighbouring area too
            other = AREAS[rng.choice(PICKABLE)]
            chosen.append(rng.choice(other["paths"]))
        if code and spec["tests"] and rng.random() < 0.62:
            chosen.append(rng.choice(spec["tests"]))
        out = []
        for path in dict.fromkeys(chosen):
            add = max(1, int(math.exp(rng.gauss(3.2, 1.2))))
            dele = max(0, int(add * rng.random() * 0.8))
            out.append(FileChange(path=path, additions=add, deletions=dele, status="modified"))
        return out

    def _set_files(self, item: PlannedItem, files: list[FileChange]) -> None:
        item.files_total = len(files)
        item.files = tuple(files[:FILES_CAP])
        item.additions = sum(f.additions for f in files)
        item.deletions = sum(f.deletions for f in files)

    def outcome(self, item: PlannedItem, *, merge_p: float, close_p: float) -> None:
        rng = self.rng
        r = rng.random()
        if r < merge_p and not item.draft:
            item.merged_at = item.created_at + self.delay(22, 1.1)
            item.closed_at = item.merged_at
        elif r < merge_p + close_p:
            item.closed_at = item.created_at + self.delay(40, 1.0)
        end = item.closed_at or self.end
        # reviews (pull requests), the last approving a merged one
        if item.kind == "pull_request" and not item.author.is_bot:
            n = rng.choice((0, 1, 1, 2, 2, 3)) if item.merged_at else rng.choice((0, 0, 1, 2))
            for j in range(n):
                at = self.between(item.created_at, end)
                last = item.merged_at is not None and j == n - 1
                state = (
                    "APPROVED"
                    if last
                    else rng.choice(("COMMENTED", "COMMENTED", "CHANGES_REQUESTED", "APPROVED"))
                )
                if last and item.merged_at is not None:  # (last: merged)
                    at = item.merged_at - timedelta(minutes=rng.randint(5, 90))
                    at = max(at, item.created_at + timedelta(minutes=1))
                self.review_id += 1
                item.reviews.append(
                    PlannedReview(
                        self.review_id,
                        self.actor(rng.choice(MAINTAINERS + COLLABORATORS)),
                        state,
                        at,
                    )
                )
                if state != "APPROVED" and rng.random() < 0.6:
                    self.comment(
                        item,
                        self.between(item.created_at, end),
                        on_review=True,
                        author=item.reviews[-1].author,
                    )
        # conversation
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3, 4))):
            self.comment(item, self.between(item.created_at, end))
        if item.kind == "pull_request" and rng.random() < 0.06:
            self.comment(
                item,
                self.between(item.created_at, end),
                author=self.actor("mergify[bot]"),
                body=MERGIFY_TEXT,
            )
        # a label added later ("ready" before merge, "stale"/"needs-rebase" otherwise)
        if item.kind == "pull_request" and rng.random() < 0.3:
            label = "ready" if item.merged_at else rng.choice(("needs-rebase", "stale"))
            at = (
                item.merged_at - timedelta(minutes=rng.randint(30, 240))
                if item.merged_at
                else self.between(item.created_at, end)
            )
            if at > item.created_at:
                item.label_events.append((label, at))

    def between(self, lo: datetime, hi: datetime) -> datetime:
        hi = max(hi, lo + timedelta(minutes=2))
        span = (hi - lo).total_seconds()
        return lo + timedelta(seconds=int(60 + self.rng.random() * max(1.0, span - 60)))

    def comment(
        self,
        item: PlannedItem,
        at: datetime,
        *,
        on_review: bool = False,
        author: Actor | None = None,
        body: str | None = None,
    ) -> None:
        self.comment_id += 1
        author = author or (item.author if self.rng.random() < 0.3 else self.discussant())
        text = body or self.rng.choice(
            (
                "Thanks for the PR! Could you add a test that covers this path?",
                "I can reproduce this on {hw}; the patch fixes it for me.",
                "Do we have benchmark numbers before and after on {hw}?",
                "This conflicts with the ongoing refactor, let's coordinate.",
                "LGTM once CI is green.",
                "Can you share the full traceback and `collect_env` output?",
                "Is this still happening on the latest nightly?",
                "We should gate this behind an environment variable for now.",
            )
        ).format(hw=self.rng.choice(HARDWARE))
        item.comments.append(
            PlannedComment(
                self.comment_id,
                author,
                at,
                f"{text}\n\n_{SYNTHETIC.format(kind='comment')}_",
                on_review,
            )
        )

    # issues
    def issue(self, created: datetime) -> PlannedItem:
        rng = self.rng
        kinds = list(ISSUE_KINDS)
        prefix = rng.choices(kinds, weights=[ISSUE_KINDS[k][0] for k in kinds])[0]
        label = ISSUE_KINDS[prefix][1]
        model, hw, feat = rng.choice(MODELS), rng.choice(HARDWARE), rng.choice(FEATURES)
        title = {
            "[Bug]": rng.choice(
                (
                    f"{model} produces {rng.choice(SYMPTOMS)} with {feat} on {hw}",
                    f"OOM when serving {model} with --max-model-len 131072",
                    f"Deadlock in the multiprocess executor when a worker dies ({hw})",
                    f"Throughput regression of {rng.randint(8, 35)}% for {model} after upgrading",
                )
            ),
            "[Feature]": f"Support {feat} for {model}",
            "[RFC]": rng.choice(
                (
                    "Unify the KV connector API for disaggregated serving",
                    "Deprecate the V0 engine code paths",
                    f"Pluggable schedulers for {feat}",
                    "A stable plugin interface for hardware backends",
                )
            ),
            "[Usage]": f"How to run {model} with {feat} on {hw}?",
        }[prefix]
        author = self.actor(rng.choice(REPORTERS)) if rng.random() < 0.7 else self.discussant()
        labels = (label,) + (("rocm",) if hw.startswith("MI") and rng.random() < 0.7 else ())
        item = PlannedItem(
            key=len(self.items),
            kind="issue",
            title=self.unique(f"{prefix}: {title}"),
            author=author,
            created_at=created,
            labels=labels,
            body=f"<!-- {SYNTHETIC.format(kind='issue')} ({self.tag}) -->\n\n"
            f"### Your current environment\n{hw}, synthetic.\n",
        )
        self.outcome(item, merge_p=0.0, close_p=0.4 if prefix != "[RFC]" else 0.1)
        return item

    # special shapes
    def revert(self, original: PlannedItem) -> PlannedItem | None:
        if original.merged_at is None:
            return None
        created = original.merged_at + self.delay(10, 0.7)
        item = PlannedItem(
            key=len(self.items),
            kind="pull_request",
            title=f'Revert "{original.title} (#{{ref:{original.key}}})"',
            author=self.actor(self.rng.choice(MAINTAINERS)),
            created_at=created,
            labels=("ready",),
            area=original.area,
            revert_of=original.key,
            body=f"<!-- {SYNTHETIC.format(kind='pull request')} ({self.tag}) -->\n\n"
            f"This reverts commit {self.sha()}.\n\n"
            "Reverts a change that broke the nightly CI.",
        )
        self._set_files(
            item,
            [
                FileChange(
                    path=f.path, additions=f.deletions, deletions=f.additions, status="modified"
                )
                for f in original.files
            ],
        )
        item.merged_at = item.closed_at = created + self.delay(2, 0.6)
        self.review_id += 1
        item.reviews.append(
            PlannedReview(
                self.review_id,
                self.actor(self.rng.choice(MAINTAINERS)),
                "APPROVED",
                item.merged_at - timedelta(minutes=3),
            )
        )
        return item

    def follow_up(self, original: PlannedItem) -> PlannedItem | None:
        """A later pull request by the same author finishing what a merged one started."""
        if original.merged_at is None:
            return None
        item = self.pull_request(original.merged_at + self.delay(30, 0.8))
        prefix = (
            original.title.split("] ", 1)[0] + "]" if original.title.startswith("[") else "[Misc]"
        )
        tail = self.rng.choice(
            (
                "address remaining review comments",
                "add missing unit tests",
                "clean up the fallback path",
                "support the remaining backends",
            )
        )
        item.title = f"{prefix} Follow-up to #{{ref:{original.key}}}: {tail}"
        item.author, item.area, item.follow_up_of = original.author, original.area, original.key
        item.body = (
            f"<!-- {SYNTHETIC.format(kind='pull request')} ({self.tag}) -->\n\n"
            f"### What this PR does / why we need it?\nFollow-up to #{{ref:{original.key}}}: "
            f"{tail}.\n\n### Does this PR introduce _any_ user-facing change?\nNo.\n\n"
            "### How was this patch tested?\nCI passed."
        )
        self._set_files(item, self.files(original.area or "misc", code=True))
        return item

    def link_fixes(self, bugs: list[PlannedItem], fixes: list[PlannedItem]) -> None:
        """Some bug reports get a fix: its body says `FIX #N`, and merging it closes the issue."""
        free = sorted(fixes, key=lambda p: p.created_at)
        for bug in sorted(bugs, key=lambda i: i.created_at):
            if self.rng.random() > 0.45:
                continue
            candidates = [
                p
                for p in free
                if bug.created_at < p.created_at < bug.created_at + timedelta(days=5)
                and p.fixes is None
            ]
            if not candidates:
                continue
            pr = self.rng.choice(candidates)
            pr.fixes = bug.key
            pr.body += f"\n\nFIX #{{ref:{bug.key}}}"
            if pr.merged_at is not None:
                closed = pr.merged_at + timedelta(minutes=1)
                if bug.closed_at is None or bug.closed_at > closed:
                    bug.closed_at = closed

    def large(self, created: datetime, *, huge: bool = False) -> PlannedItem:
        """A sweeping change: formatting, a removal or vendored code, over many files."""
        rng = self.rng
        item = self.pull_request(created)
        title, area, roots, shape, purpose = rng.choice(LARGE_CHANGES)
        item.title, item.area = self.unique(title), area
        item.labels = PREFIXES.get(title.split("] ")[0] + "]", (0, None, ()))[2]
        item.body = (
            f"<!-- {SYNTHETIC.format(kind='pull request')} ({self.tag}) -->\n\n"
            f"## Purpose\n{purpose}\n\n## Test Plan\nFull CI run."
        )
        n = rng.randint(310, 420) if huge else rng.randint(40, 200)  # huge: beyond FILES_CAP
        files = []
        for j in range(n):
            big, small = rng.randint(20, 400), rng.randint(0, 30)
            add, dele = {
                "removal": (small, big),
                "vendor": (big, small),
                "format": (big // 4, big // 4),
            }[shape]
            files.append(
                FileChange(
                    path=f"{rng.choice(roots)}synthetic_module_{j:03d}.py",
                    additions=add,
                    deletions=dele,
                    status="removed" if shape == "removal" and not add else "modified",
                )
            )
        self._set_files(item, files)
        return item

    def landed(self, item: PlannedItem, merged_at: datetime) -> PlannedItem:
        """Merged at `merged_at`, approved a few minutes before by a maintainer."""
        item.merged_at = item.closed_at = merged_at
        self.review_id += 1
        item.reviews.append(
            PlannedReview(
                self.review_id,
                self.actor(self.rng.choice(MAINTAINERS)),
                "APPROVED",
                merged_at - timedelta(minutes=self.rng.randint(5, 60)),
            )
        )
        return item

    def storylines(self, add) -> None:
        """Changes that refer to each other, for the digest of each description to find: a line
        of work on one model across both weeks; a change added, fixed up and reverted; a
        dependency bump and the fixes it needed; a follow-up; a backport."""
        rng, t = self.rng, self.text
        day = timedelta(days=1)
        w0 = self.start  # Monday of the previous week; w1 the current week's

        def pr(
            title: str,
            area: str,
            at: datetime,
            body: str,
            *,
            hours: float = 20,
            author: Actor | None = None,
            labels: tuple[str, ...] = (),
        ) -> PlannedItem:
            at += timedelta(minutes=rng.randint(0, 240))  # seeded: other seeds, other instants
            hours *= rng.uniform(0.8, 1.2)
            item = PlannedItem(
                key=0,
                kind="pull_request",
                title=self.unique(title),
                author=author or self.pr_author(area),
                created_at=at,
                body=body,
                labels=labels,
                area=area,
            )
            self._set_files(item, self.files(area, code=area not in ("doc", "ci")))
            add(self.landed(item, at + timedelta(hours=hours)))
            return item

        def ref(item: PlannedItem) -> str:
            return f"#{{ref:{item.key}}}"

        head = f"<!-- {SYNTHETIC.format(kind='pull request')} ({self.tag}) -->\n\n"
        m = STORY_MODEL
        w1 = w0 + 7 * day
        # a line of work: support, a faster router, a fix of the router, a guide
        support = pr(
            f"[Model] Add support for {m}",
            "model",
            w0 + day + timedelta(hours=9),
            "",
            labels=("new-model",),
        )
        support.body = self.pr_body(
            "[Model]",
            support.title,
            list(support.files),
            m,
            "H100",
            why=f"{m} is a popular mixture-of-experts model with 13B active parameters.",
        )
        router = pr(
            f"[Perf] Fuse the {m} MoE router (18% faster on H100)",
            "moe",
            w0 + 3 * day + timedelta(hours=10),
            "",
            labels=("performance",),
        )
        router.body = self.pr_body(
            "[Perf]",
            router.title,
            list(router.files),
            m,
            "H100",
            extra=f"\n\nBuilds on {ref(support)}.",
        )
        pr(
            f"[Bugfix] Fix NaN outputs with {m} under FP8 KV cache",
            "moe",
            w1 + timedelta(hours=11),
            head + "### What this PR does / why we need it?\nFixes the bug introduced in "
            f"{ref(router)}: the fused router read the FP8 scales before they were loaded, so {m} "
            "returned NaN logits with `--kv-cache-dtype fp8`.\n\n"
            "### Does this PR introduce _any_ user-facing change?\nNo.\n\n"
            "### How was this patch tested?\nAdded a unit test; GSM8K accuracy is back to 0.861 "
            "(0.012 before the fix).",
            labels=("bug",),
        )
        guide = pr(
            f"[Doc] Add a {m} deployment guide",
            "doc",
            w1 + 2 * day + timedelta(hours=9),
            head + f"## Purpose\nFollow-up to {ref(support)}: how to serve {m} on 8 GPUs with "
            "expert parallelism.\n\n## Test Plan\nBuilt the docs locally.\n\n## Test Result\n"
            "The page renders.",
            labels=("documentation",),
        )
        # added, fixed up, reverted
        offload = pr(
            "[Core] Add async KV cache offloading to CPU",
            "core",
            w0 + 2 * day + timedelta(hours=14),
            "",
            labels=("v1",),
        )
        offload.body = self.pr_body(
            "[Core]",
            offload.title,
            list(offload.files),
            "Llama-4-Scout",
            "H200",
            why="Long-context requests no longer need to be preempted when GPU blocks run out.",
            user_facing="Yes. A new `--kv-offload-cpu-gb` option.",
        )
        fixup = pr(
            "[Bugfix] Fix a hang in async KV cache offloading",
            "core",
            w0 + 4 * day + timedelta(hours=15),
            head + f"## Purpose\nFix the bug introduced in {ref(offload)}: the offload thread "
            "waited on a CUDA event that was never recorded when a request finished early.\n\n"
            "## Test Plan\npytest tests/v1/core -k offload\n\n## Test Result\nPasses 200 "
            "runs in a row.",
            hours=70,
            labels=("bug",),
        )
        revert = pr(
            f'Revert "{offload.title} ({ref(offload)})"',
            "core",
            w1 + day + timedelta(hours=16),
            head + f"This reverts commit {self.sha()}.\n\nThe offloading path still deadlocks "
            f"with tensor parallelism 8 even after {ref(fixup)}; reverting until it is redesigned.",
            hours=3,
            author=self.actor(rng.choice(MAINTAINERS)),
        )
        revert.revert_of = offload.key
        # a dependency bump and the fixes that refer to it
        bump = pr(
            "[CI] Bump FlashInfer to 0.5.2",
            "ci",
            w0 + timedelta(hours=10),
            head + "## Purpose\nUpgrade FlashInfer to 0.5.2 for the new sliding-window kernels "
            "(https://github.com/flashinfer-ai/flashinfer/pull/1893); it also syncs the sampler "
            "with https://github.com/vllm-project/vllm/pull/27001.\n\n## Test Plan\nFull CI run.\n\n"
            "## Test Result\nDecode throughput on B200 improves by 6%.",
            labels=("ci/build",),
        )
        pr(
            "[Bugfix] Fix FP8 GEMM dispatch after the FlashInfer 0.5.2 bump",
            "kernel",
            w0 + 3 * day + timedelta(hours=9),
            head + f"### What this PR does / why we need it?\nFixes the regression introduced by "
            f"{ref(bump)}: FlashInfer 0.5.2 renamed the FP8 GEMM entry point, so every FP8 model fell "
            "back to the slow path.\n\n### Does this PR introduce _any_ user-facing change?\nNo.\n\n"
            "### How was this patch tested?\nUnit tests and an e2e run of the FP8 models.",
            labels=("bug",),
        )
        sliding = pr(
            "[Bugfix] Fix sliding-window attention on B200 after the FlashInfer 0.5.2 bump",
            "attention",
            w1 + 2 * day + timedelta(hours=13),
            head + f"## Purpose\nFollow-up to {ref(bump)}: the new sliding-window kernel needs "
            "the window size in tokens, not blocks.\n\nFixes #{0}.\n\n## Test Plan\n"
            "pytest tests/kernels/attention\n\n## Test Result\nAll pass.",
            labels=("bug",),
        )
        sliding.body = sliding.body.replace("\n\nFixes #{0}.", "")
        # a backport of the Hunyuan fix to the release branch
        pr(
            f"[Release] Backport {m} support to v0.11",
            "model",
            w1 + 3 * day + timedelta(hours=10),
            head
            + f"Backport of {ref(support)} to releases/v0.11.1, with {ref(guide)} for the docs.\n\n"
            "### Does this PR introduce _any_ user-facing change?\n"
            f"Yes. {m} can be served from the 0.11.1 release.\n\n### How was this patch tested?\n"
            "CI passed.",
        )
        t.random()  # keep the text stream's position independent of the storyline's wording

    def hot(self, item: PlannedItem) -> None:
        """A heated thread: many comments from many people over a day or two."""
        item.hot = True
        lo = item.created_at
        hi = min(item.closed_at or self.end, lo + timedelta(days=3))
        for _ in range(self.rng.randint(15, 35)):
            self.comment(item, self.between(lo, hi))


def _bump(rng: random.Random) -> str:
    package = rng.choice(
        (
            "actions/checkout",
            "docker/build-push-action",
            "astral-sh/setup-uv",
            "actions/setup-python",
            "peter-evans/create-pull-request",
            "the minor-update group in /requirements",
        )
    )
    major, minor = rng.randint(1, 6), rng.randint(0, 20)
    return f"Bump {package} from {major}.{minor}.0 to {major}.{minor + rng.randint(1, 3)}.0"


def generate_demo(week: str = "2026-W24", seed: int = 7, tz: str = "UTC") -> DemoData:
    """Two ISO weeks (`week` and the one before it) of synthetic activity in DEMO_REPO."""
    year, wk = parse_week(week)
    current = week_window(year, wk, tz)
    previous = current.previous()
    start, end = previous.start, current.end
    rng = random.Random(f"repodigest-demo:{current.label}:{seed}:{tz}")
    plan = _Planner(rng, start, end, current.label, seed)
    lead_in = start - timedelta(days=4)  # a few items opened before the fortnight land inside it

    def add(item: PlannedItem | None) -> PlannedItem | None:
        if item is not None:
            item.key = len(plan.items)
            plan.items.append(item)
        return item

    for _ in range(rng.randint(300, 340)):
        add(plan.pull_request(plan.when(start, end)))
    for _ in range(rng.randint(25, 35)):
        add(plan.pull_request(plan.when(lead_in, start)))
    for _ in range(rng.randint(90, 110)):
        add(plan.issue(plan.when(start, end)))
    for j in range(6):
        add(plan.large(plan.when(start, end), huge=j == 0))
    for _ in range(18):  # dependabot bumps
        created = plan.when(start, end)
        item = PlannedItem(
            key=0,
            kind="pull_request",
            author=plan.actor("dependabot[bot]"),
            created_at=created,
            labels=("dependencies",),
            area="deps",
            title=plan.unique(_bump(rng)),
            body=f"<!-- {SYNTHETIC.format(kind='pull request')} ({plan.tag}) -->",
        )
        plan._set_files(
            item,
            [
                FileChange(
                    path=rng.choice(AREAS["deps"]["paths"] + [".github/workflows/pre-commit.yml"]),
                    additions=1,
                    deletions=1,
                    status="modified",
                )
            ],
        )
        plan.outcome(item, merge_p=0.5, close_p=0.3)
        add(item)
    merged = [
        i
        for i in plan.items
        if i.kind == "pull_request"
        and i.merged_at
        and i.merged_at < end
        and i.revert_of is None
        and not i.author.is_bot
    ]
    for original in rng.sample(merged, 4):
        add(plan.revert(original))
    for original in rng.sample([i for i in merged if i.area not in ("deps", "doc", "ci")], 5):
        add(plan.follow_up(original))
    # the storylines draw from their own stream, so that the rest of the plan stays as it was
    main_rng, plan.rng = (
        plan.rng,
        random.Random(f"repodigest-demo-stories:{current.label}:{seed}:{tz}"),
    )
    plan.storylines(add)
    plan.rng = main_rng
    plan.link_fixes(
        [i for i in plan.items if i.kind == "issue" and i.title.startswith("[Bug]")],
        [i for i in plan.items if i.title.startswith("[Bugfix]")],
    )
    for week_window_ in (previous, current):  # 2 hot issues and 1 hot PR a week
        in_week = [i for i in plan.items if week_window_.contains(i.created_at)]
        issues = [
            i for i in in_week if i.kind == "issue" and i.title.startswith(("[Bug]", "[RFC]"))
        ]
        prs = [i for i in in_week if i.kind == "pull_request" and not i.author.is_bot]
        for item in rng.sample(issues, min(2, len(issues))) + rng.sample(prs, min(1, len(prs))):
            plan.hot(item)

    # GitHub numbers follow creation order, shared by issues and pull requests
    base = 20_000 + (year % 100) * 1_000 + wk * 17 % 1_000
    ordered = sorted(plan.items, key=lambda i: (i.created_at, i.key))
    for n, item in enumerate(ordered, start=base):
        item.number = n
    by_key = {i.key: i for i in plan.items}

    def number_of(m: re.Match) -> str:
        return str(by_key[int(m.group(1))].number)

    for item in plan.items:  # references were planned by key: now they get their numbers
        item.title = _REF.sub(number_of, item.title)
        item.body = _REF.sub(number_of, item.body)
        item.comments.sort(key=lambda c: (c.at, c.id))
        item.reviews.sort(key=lambda r: (r.at, r.id))
    facts = tuple(f for item in ordered for f in facts_of(item, end))
    return DemoData(
        DEMO_REPO,
        current.label,
        seed,
        tz,
        (previous, current),
        tuple(ordered),
        facts,
        watermark=end,
    )
