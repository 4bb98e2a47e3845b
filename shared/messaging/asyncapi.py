"""The AsyncAPI document of every service, from their contracts (services/X/messaging.py).

Each service's contract is declared to FastStream on a router of its own (`ServiceRouter` in
document mode: its durable consumers become documented subscribers with their stream, durable
and pull batch), all on one `NatsBroker` that is never connected; FastStream's AsyncAPI
generator writes the document. `repodigest asyncapi --write` writes it to docs/asyncapi.json, and a
test fails when the committed file differs from what the code declares.
(`services.asyncapi`, `repodigest asyncapi`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .router import Contract, ServiceRouter

TITLE = "repodigest"
DESCRIPTION = (
    "Event-sourced GitHub activity reports on NATS JetStream. Streams: RD_GITHUB (rd.github.>), "
    "RD_ENRICHED (rd.enriched.>), RD_REPORTS (rd.summary.>, rd.report.>), RD_DEAD (rd.dead.>). "
    "Subjects end with the repository as two tokens, {owner}.{repo} (percent-encoded). Durable "
    "consumers pull with explicit acks; a message a service cannot process is parked in RD_DEAD "
    "with the reason in headers."
)


def application(contracts: Iterable[Contract], version: str = "1") -> Any:
    """A FastStream application holding `contracts` on a broker that is never started: what
    `faststream docs gen` reads (`faststream docs gen services.asyncapi:app --factory`)."""
    from faststream import FastStream
    from faststream.nats import NatsBroker
    from faststream.specification import AsyncAPI

    broker = NatsBroker("nats://127.0.0.1:4222", apply_types=True)
    for contract in contracts:
        router = ServiceRouter(document=True)
        router.declare(contract)
        broker.include_router(router)
    return FastStream(
        broker,
        specification=AsyncAPI(
            broker, title=TITLE, version=version, description=DESCRIPTION, schema_version="3.0.0"
        ),
    )


def document(contracts: Iterable[Contract], version: str = "1") -> dict:
    """The AsyncAPI 3.0 document (a JSON-able dict) of `contracts`."""
    return json.loads(application(contracts, version).schema.to_specification().to_json())


def render(contracts: Iterable[Contract], version: str = "1") -> str:
    """The document as committed: indented JSON, keys sorted, a final newline."""
    return (
        json.dumps(document(contracts, version), indent=2, sort_keys=True, ensure_ascii=False)
        + "\n"
    )
