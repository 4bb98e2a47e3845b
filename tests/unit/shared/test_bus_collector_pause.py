"""The cyclic collector pauses while batches are handled and resumes when the last one ends."""

from __future__ import annotations

import gc

import pytest

from shared.messaging import collector_paused


@pytest.fixture
def collector():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_paused_during_a_batch_and_resumed_after(collector):
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_batches_resume_when_the_last_one_ends(collector):
    gc.enable()
    first, second = collector_paused(), collector_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first batch ends while the second still runs
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_operator_stays_off(collector):
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_resumed_when_a_batch_fails(collector):
    gc.enable()
    with pytest.raises(RuntimeError):
        with collector_paused():
            raise RuntimeError("handler failed")
    assert gc.isenabled()
