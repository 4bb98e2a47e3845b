"""A fix is told as a memory problem only when what leaks is memory (an allocation, a buffer, a
device context), not state or config "leaking" into other code paths (real #10146, which
2026-06-10 told as a memory problem). The renderer's rule is the classifier's MEMORY_LEAK."""

from __future__ import annotations

import re

import pytest

from services.classifier.domain.digest import MEMORY_LEAK
from services.renderer.domain.view import _MEMORY_LEAK, _SEVERE

OOM = dict(_SEVERE)["oom"]


def _leak_sentence(body: str) -> str:
    """The sentence of a real description that first speaks of a leak (lines wrap inside one)."""
    sentences = re.split(r"(?<=[.!?])\s+|\n\s*\n", body)
    return " ".join(next(s for s in sentences if "leak" in s.lower()).split())


@pytest.mark.parametrize(
    "number,memory",
    [
        (10146, False),  # "Ascend-specific state or behavior leaking into generic … flows"
        (9763, False),  # "its page size leaked into `unify_kv_cache_spec_page_size`"
        (12126, True),  # "leaking an extra NPU context onto device 0"
    ],
)
def test_a_leak_is_a_memory_problem_only_when_memory_leaks(number, memory):
    from tests.conftest import history_prs

    said = _leak_sentence(history_prs()[number]["body"])
    assert bool(OOM.search(said)) is memory, said


@pytest.mark.parametrize(
    "text,memory",
    [
        ("[Bugfix] Fix memory leak in the scheduler", True),
        ("Fix OOM in prefill with long prompts", True),
        ("The worker runs out of memory after the first step", True),
        ("Avoid leaking config state into other platforms", False),
        ("Fix leaked env var in tests", False),
    ],
)
def test_the_oom_kind_is_memory_run_out_or_leaking(text, memory):
    assert bool(OOM.search(text)) is memory


def test_the_renderer_tells_a_leak_as_the_classifier_does():
    """The same rule on every real leak sentence of the history (the renderer keeps its own copy:
    services import no other service)."""
    from tests.conftest import history_prs

    said = [
        _leak_sentence(r["body"])
        for r in history_prs().values()
        if re.search(r"(?i)leak", r.get("body") or "")
    ]
    assert len(said) > 20
    leak = re.compile(_MEMORY_LEAK, re.I)
    assert [s for s in said if bool(leak.search(s)) != bool(MEMORY_LEAK.search(s))] == []
