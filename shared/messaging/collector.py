"""Garbage-collector tuning for batch consumers: thresholds once per process, no collection while
a batch is in hand."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

GC_GEN0_THRESHOLD = 20_000


def batch_friendly_gc() -> None:
    """Decoding a batch allocates many short-lived objects (pydantic models, dicts, datetimes):
    with CPython's default thresholds (700, 10, 10) the collector runs every few events and
    rescans the long-lived heap (FastStream, SQLAlchemy, compiled rules) over and over. Once per
    process, when the thresholds are still the defaults: move what exists after start-up out of
    the collector's sight (gc.freeze) and collect young objects every 20,000 allocations."""
    import gc

    if gc.get_threshold() != (700, 10, 10):
        return  # already tuned here, or by the operator: leave it
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, 20, 100)


_paused_batches = 0  # batches in progress in this process with the collector paused
_resume_collector = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a batch is handled. A batch's decoded events (tens of
    thousands of small objects) are alive until its end, so every collection during the batch
    traverses all of them again: ~15-20 µs per event in each service (bench.pipeline). They are
    freed by reference counting when the batch ends; the collector resumes then, finding only
    what really survived (cycles included: nothing is lost, only postponed to the batch's end).
    Batches of several consumers in one process share one pause: the last to finish resumes."""
    import gc

    global _paused_batches, _resume_collector
    if _paused_batches == 0:
        _resume_collector = gc.isenabled()
        gc.disable()
    _paused_batches += 1
    try:
        yield
    finally:
        _paused_batches -= 1
        if _paused_batches == 0 and _resume_collector:
            gc.enable()
