"""Every service by name: its bootstrap (how it is built from settings) and its contract (what it
consumes and publishes). `repodigest serve`, the CLI's in-process run, the AsyncAPI document and
the tests look services up here; nothing is found by scanning modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shared.bootstrap import Bootstrap
    from shared.messaging import ConsumerSpec, Contract

SERVICES = ("ingest", "classifier", "summarizer", "renderer", "notifier")


def bootstrap(name: str) -> Bootstrap:
    """The bootstrap of service `name` (imported on demand: the renderer's pulls WeasyPrint in)."""
    if name == "ingest":
        from services.ingest.bootstrap import BOOTSTRAP as ingest

        return ingest
    if name == "classifier":
        from services.classifier.bootstrap import BOOTSTRAP as classifier

        return classifier
    if name == "summarizer":
        from services.summarizer.bootstrap import BOOTSTRAP as summarizer

        return summarizer
    if name == "renderer":
        from services.renderer.bootstrap import BOOTSTRAP as renderer

        return renderer
    if name == "notifier":
        from services.notifier.bootstrap import BOOTSTRAP as notifier

        return notifier
    raise KeyError(f"unknown service {name!r}; choose from {', '.join(SERVICES)}")


def contracts() -> dict[str, Contract]:
    """Each service's contract, in pipeline order."""
    from services.classifier.messaging import CONTRACT as classifier
    from services.ingest.messaging import CONTRACT as ingest
    from services.notifier.messaging import CONTRACT as notifier
    from services.renderer.messaging import CONTRACT as renderer
    from services.summarizer.messaging import CONTRACT as summarizer

    return {c.service: c for c in (ingest, classifier, summarizer, renderer, notifier)}


def consumers() -> list[ConsumerSpec]:
    """Every durable consumer the services declare."""
    return [spec for contract in contracts().values() for spec in contract.consumers]
