"""The demo source: a seeded, synthetic but realistic fortnight of an LLM-serving repository
(`--source demo`), for trying repodigest without GitHub and for tests and benchmarks.

`generate_demo(week, seed)` plans two ISO weeks (the requested one and the one before it, for
trends) of pull requests, issues, comments and reviews in a vLLM-like project (`planner`, drawing
from `vocabulary`), then derives the facts from the plan (`facts`). The expected counts per window
are computed from the plan (`plan.DemoData.expected`), not from the facts, so tests can check one
against the other. Same week, seed and time zone: identical facts.
"""

from .facts import facts_of, snapshot_at
from .plan import DemoCounts, DemoData, PlannedComment, PlannedItem, PlannedReview, parse_week
from .planner import generate_demo
from .vocabulary import DEMO_REPO, STORY_MODEL

__all__ = [
    "DEMO_REPO",
    "STORY_MODEL",
    "DemoCounts",
    "DemoData",
    "PlannedComment",
    "PlannedItem",
    "PlannedReview",
    "facts_of",
    "generate_demo",
    "parse_week",
    "snapshot_at",
]
