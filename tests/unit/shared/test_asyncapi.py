"""docs/asyncapi.json: the services' contracts as FastStream documents them, committed and kept
up to date (like the events' JSON Schemas, tests/unit/shared/test_contracts.py)."""

from __future__ import annotations

import json
import re

from services.asyncapi import DOCUMENT, current
from services.registry import SERVICES, consumers, contracts
from shared.messaging import Subjects, subject_matches


def test_the_committed_document_is_what_the_services_declare():
    """Fails when a contract changes without `python -m services.asyncapi --write`."""
    assert DOCUMENT.exists(), "docs/asyncapi.json is missing: python -m services.asyncapi --write"
    assert DOCUMENT.read_text(encoding="utf-8") == current(), (
        "docs/asyncapi.json is out of date: python -m services.asyncapi --write (or "
        "python -m shared.events.schema --write, which regenerates it with the schemas)"
    )


def addresses() -> list[str]:
    doc = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    assert doc["asyncapi"] == "3.0.0" and doc["info"]["title"] == "repodigest"
    # `{owner}` and the like are one token each
    return [re.sub(r"\{[^}]+\}", "*", c["address"]) for c in doc["channels"].values()]


def test_every_subject_the_services_use_is_documented():
    repo = "acme/widgets.io"
    used = [
        Subjects.fact("pull_request", "merged", repo),
        Subjects.watermark(repo),
        Subjects.enriched("issue", "opened", repo),
        Subjects.enriched_watermark(repo),
        Subjects.report_requested(repo),
        Subjects.summary_ready(repo),
        Subjects.report_ready(repo),
        Subjects.report_answer("req-1"),
    ]
    used += [Subjects.dead(name) for name in SERVICES if contracts()[name].consumers]
    known = addresses()
    for subject in used:
        assert any(subject_matches(a, subject) for a in known), (subject, known)


def test_every_durable_is_documented_with_its_settings():
    doc = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    for spec in consumers():
        (channel,) = [
            c for name, c in doc["channels"].items() if name.startswith(f"{spec.durable}:")
        ]
        assert channel["address"] == spec.filter_subject
        assert f"stream {spec.stream}, durable {spec.durable}" in channel["description"]
        assert f"ack_wait {spec.ack_wait:g} s" in channel["description"]
    # the renderer's long ack_wait is the renderer's own declaration
    renderer = {c.durable: c for c in contracts()["renderer"].consumers}
    assert renderer["renderer-render"].ack_wait == 600.0


def test_payloads_are_the_event_models():
    doc = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    schemas = doc["components"]["schemas"]
    for model in (
        "ReportReady",
        "WindowSummarized",
        "ReportRequested",
        "EnrichedFact",
        "WatermarkForwarded",
        "SyncWatermark",
        "GithubFact",
    ):
        assert model in schemas, sorted(schemas)
