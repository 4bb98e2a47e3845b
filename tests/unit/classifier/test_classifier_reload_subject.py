"""The classifier's reload subject, a FastStream subscriber, through FastStream's TestNatsBroker:
the service's router as the runtime includes it, a request in, the reply out, no server. (The
same request on a real nats-server: tests/integration/classifier/test_classifier_labeler_reload.py
and tests/integration/telemetry/test_telemetry_service_names.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from faststream.nats import TestNatsBroker

from services.classifier.adapters.profiles import load_registry
from services.classifier.handlers import RELOAD_SUBJECT
from services.registry import bootstrap
from shared.config import CommonSettings
from shared.service import Runtime


async def test_a_reload_request_is_answered_with_the_new_versions(tmp_path: Path):
    (tmp_path / "acme.yaml").write_text("profile: acme\nmodules:\n  - {name: a, keywords: [a]}\n")
    runtime = Runtime(CommonSettings(), "classifier-test")
    boot = bootstrap("classifier")  # as `serve` builds it, the rule loader injected
    service = boot.add(runtime, boot.settings(), loader=lambda: load_registry(tmp_path))
    before = service.registry.get("acme").ref.version
    (tmp_path / "acme.yaml").write_text("profile: acme\nmodules:\n  - {name: a, keywords: [b]}\n")
    async with TestNatsBroker(runtime.broker) as broker:
        reply = json.loads((await broker.request({}, RELOAD_SUBJECT, timeout=60)).body)
    assert reply["ok"] is True and reply["changed"] == ["acme"]
    assert reply["profiles"]["acme"] == service.registry.get("acme").ref.version != before


async def test_a_broken_profile_is_refused_and_the_rules_stay(tmp_path: Path):
    (tmp_path / "acme.yaml").write_text("profile: acme\n")
    runtime = Runtime(CommonSettings(), "classifier-test")
    boot = bootstrap("classifier")
    service = boot.add(runtime, boot.settings(), loader=lambda: load_registry(tmp_path))
    current = service.registry
    (tmp_path / "acme.yaml").write_text("profile: acme\nmodules:\n  - {name: x, nonsense: 1}\n")
    async with TestNatsBroker(runtime.broker) as broker:
        reply = json.loads((await broker.request({}, RELOAD_SUBJECT, timeout=60)).body)
    assert reply["ok"] is False and "acme.yaml" in reply["error"]
    assert service.registry is current
