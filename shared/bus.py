"""Moved to `shared.messaging` (subjects, topology, publisher, consumer, outcomes, tracing).

A thin re-export for modules not yet moved over; import from `shared.messaging` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared.messaging import *  # noqa: F401,F403
from shared.messaging import ConsumerSpec, Topology
from shared.messaging import ensure_topology as _ensure_topology


def __getattr__(name: str) -> Any:
    if name == "CONSUMERS":  # every service's durable, by name (declared by the services)
        from services.registry import consumers

        return {spec.durable: spec for spec in consumers()}
    raise AttributeError(name)


async def ensure_topology(js: Any, topology: Topology | None = None,
                          consumers: Sequence[str | ConsumerSpec] | None = None) -> None:
    """`shared.messaging.ensure_topology`, with durables by name (None: every service's)."""
    table = __getattr__("CONSUMERS")
    specs = list(table.values()) if consumers is None else [
        table[c] if isinstance(c, str) else c for c in consumers]
    await _ensure_topology(js, topology, specs)
