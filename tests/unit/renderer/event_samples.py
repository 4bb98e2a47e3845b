"""A day of hand-written input events (pull requests, issues, comments, reviews) for the golden
report that is built from events: the summarizer folds them, the renderer writes the report, and
tests/unit/renderer/test_renderer_golden.py recounts every figure from the records below.

The window is 2026-03-26 with the daily cut-off 11:45 in Asia/Shanghai: 03:45 UTC on the 26th
to 03:45 UTC on the 27th (by hand: UTC+8). The previous window is the day before.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from services.summarizer.domain.report import RequestMeta, build_summary
from shared.events import SummaryData
from shared.windows import day_window
from tests.unit.summarizer.summarizer_builders import ItemSpec, Scenario, window_input

WINDOW = day_window(date(2026, 3, 26), "Asia/Shanghai", "11:45")
START = datetime(2026, 3, 26, 3, 45, tzinfo=UTC)
END = datetime(2026, 3, 27, 3, 45, tzinfo=UTC)
PREV_START = START - timedelta(days=1)
NOW = END + timedelta(minutes=20)


def at(hours: float) -> datetime:
    """An instant `hours` after the window's start (negative: before it)."""
    return START + timedelta(hours=hours)


def scenario() -> Scenario:
    sc = Scenario(repo="acme/widgets")
    sc.items += [
        # merged in the window
        ItemSpec(
            101,
            "pull_request",
            at(-30),
            author="alice",
            merged=at(2),
            modules=("scheduler",),
            additions=640,
            deletions=120,
            files=("src/scheduler/core.py", "src/scheduler/queue.py"),
            risks=(("core-path", "high"),),
            categories=("feature",),
            comments=4,
            review_comments=9,
            reviews=3,
            title="[Scheduler] Add priority queues for long prompts",
        ),
        ItemSpec(
            102,
            "pull_request",
            at(1),
            author="bob",
            merged=at(5),
            modules=("scheduler",),
            additions=35,
            deletions=12,
            files=("src/scheduler/queue.py", "tests/test_queue.py"),
            categories=("bugfix",),
            title="[Bugfix] Off-by-one in queue drain",
        ),
        ItemSpec(
            103,
            "pull_request",
            at(3),
            author="carol-amd",
            affiliations=("amd",),
            ecosystems=("rocm",),
            merged=at(9),
            modules=("rocm", "kernels"),
            additions=210,
            deletions=40,
            files=("csrc/rocm/attn.cu",),
            categories=("performance",),
            title="[ROCm] Faster paged attention on MI300",
        ),
        ItemSpec(
            104,
            "pull_request",
            at(-3),
            author="dave",
            merged=at(20),
            modules=("docs",),
            additions=18,
            deletions=3,
            files=("docs/usage.md",),
            categories=("docs",),
            title="Document the priority queue options",
        ),
        ItemSpec(
            105,
            "pull_request",
            at(4),
            author="renovate[bot]",
            bot=True,
            merged=at(6),
            modules=("dependencies",),
            additions=2,
            deletions=2,
            files=("requirements.txt",),
            title="Bump numpy to 2.1",
        ),
        ItemSpec(
            106,
            "pull_request",
            at(6),
            author="erin",
            association="FIRST_TIME_CONTRIBUTOR",
            merged=at(23.5),
            modules=("kernels",),
            additions=75,
            deletions=0,
            files=("csrc/kernels/topk.cu", "tests/kernels/test_topk.py"),
            categories=("performance",),
            title="[Kernel] Fused top-k sampling",
        ),
        # merged exactly at the window's end: the next day's
        ItemSpec(
            107,
            "pull_request",
            at(10),
            author="bob",
            merged=END,
            modules=("scheduler",),
            additions=500,
            deletions=500,
            title="[Scheduler] Rework preemption",
        ),
        # opened in the window, still open / closed without merging
        ItemSpec(
            108,
            "pull_request",
            at(7),
            author="frank",
            modules=("kernels",),
            additions=90,
            deletions=5,
            title="[Kernel] Experimental FP8 GEMM",
        ),
        ItemSpec(
            109,
            "pull_request",
            at(8),
            author="alice",
            closed=at(12),
            modules=("scheduler",),
            additions=3,
            deletions=3,
            title="Try a smaller queue",
        ),
        ItemSpec(
            110,
            "pull_request",
            START,
            author="grace",
            modules=("docs",),
            additions=5,
            deletions=1,
            title="Fix a typo in the README",
        ),
        # issues
        ItemSpec(
            201,
            "issue",
            at(2.5),
            author="heidi",
            modules=("scheduler",),
            title="Long prompts starve short ones",
        ),
        ItemSpec(
            202,
            "issue",
            at(-50),
            author="ivan",
            closed=at(11),
            modules=("kernels",),
            title="Top-k slow on large vocabularies",
        ),
        ItemSpec(
            203,
            "issue",
            at(13),
            author="erin",
            association="FIRST_TIME_CONTRIBUTOR",
            modules=("rocm",),
            title="Build fails on ROCm 6.3",
        ),
        ItemSpec(
            204, "issue", END - timedelta(seconds=1), author="judy", title="Question about the docs"
        ),
        # the previous window
        ItemSpec(
            90,
            "pull_request",
            at(-20),
            author="alice",
            merged=at(-10),
            modules=("scheduler",),
            additions=100,
            deletions=10,
            title="[Scheduler] Track queue age",
        ),
        ItemSpec(
            91,
            "pull_request",
            at(-22),
            author="bob",
            merged=at(-2),
            modules=("scheduler",),
            additions=20,
            deletions=20,
            title="Rename queue helpers",
        ),
        ItemSpec(92, "pull_request", at(-5), author="dave", modules=("docs",), title="Docs: typos"),
        ItemSpec(
            93, "issue", at(-6), author="ivan", modules=("kernels",), title="Kernel crash on start"
        ),
    ]
    sc.comments += [
        (201, at(3), "alice"),
        (201, at(4), "bob"),
        (201, at(4.5), "heidi"),
        (108, at(9), "carol-amd"),
        (108, at(10), "frank"),
        (101, at(1), "mergify[bot]"),
        (93, at(-4), "alice"),  # previous window
        (204, END, "alice"),  # exactly at the end: next window
    ]
    sc.reviews += [
        (101, at(1.5), "bob"),
        (102, at(4), "alice"),
        (103, at(8), "bob"),
        (106, at(20), "carol-amd"),
        (108, at(11), "alice"),
    ]
    return sc


def events_summary(**meta) -> SummaryData:
    sc = scenario()
    return build_summary(
        window_input(sc.events(), WINDOW),
        now=NOW,
        meta=RequestMeta(languages=("en", "zh-CN"), formats=("md",), **meta),
    )
