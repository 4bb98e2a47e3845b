"""A failed delivery is retried after 0.5 s, doubling with each delivery, at most 60 s (the
numbers by hand: 0.5, 1, 2, 4, ... 32, then 64 is capped)."""

from __future__ import annotations

import pytest

from shared.messaging import backoff_seconds


@pytest.mark.parametrize(
    "deliveries,seconds",
    [
        (0, 0.5),
        (1, 0.5),
        (2, 1.0),
        (3, 2.0),
        (4, 4.0),
        (7, 32.0),
        (8, 60.0),
        (20, 60.0),
    ],
)
def test_backoff_doubles_from_half_a_second_up_to_a_minute(deliveries, seconds):
    assert backoff_seconds(deliveries) == seconds
