"""Classifier settings from REPODIGEST_* variables, and what build_service makes of them."""

from __future__ import annotations

import json

import pytest

from services.classifier.app import build_service
from services.classifier.config import ClassifierSettings
from services.classifier.domain.rules import ProfileError
from shared.messaging import DURABLE_CLASSIFIER
from shared.service import Runtime


def test_settings_from_environment(monkeypatch, tmp_path):
    owners = tmp_path / "CODEOWNERS"
    owners.write_text("/engine/ @core\n")
    monkeypatch.setenv("REPODIGEST_PROFILE_OVERRIDES", json.dumps({"acme/widgets": "llm-serving"}))
    monkeypatch.setenv("REPODIGEST_CODEOWNERS_PATH", str(owners))
    monkeypatch.setenv("REPODIGEST_PROFILES_DIR", str(tmp_path))
    settings = ClassifierSettings()
    assert settings.profile_overrides == {"acme/widgets": "llm-serving"}
    assert settings.codeowners_files() == {"*": owners}
    service = build_service(settings, Runtime(settings, "t"))
    assert service.name == "classifier" and tuple(c.durable for c in service.consumers) == (
        DURABLE_CLASSIFIER,
    )
    assert service.registry.for_repo("acme/widgets").name == "llm-serving"
    # the CODEOWNERS text is part of every profile's version
    monkeypatch.delenv("REPODIGEST_CODEOWNERS_PATH")
    plain_settings = ClassifierSettings()
    plain = build_service(plain_settings, Runtime(plain_settings, "t"))
    assert plain.registry.get("default").ref.version != service.registry.get("default").ref.version


def test_a_broken_profile_stops_start_up_with_its_message(tmp_path):
    (tmp_path / "default.yaml").write_text(
        "profile: default\nmodules:\n  - {name: x, title_regex: ['(']}\n"
    )
    settings = ClassifierSettings(profiles_dir=tmp_path)
    with pytest.raises(
        ProfileError, match=r"default.yaml:3: modules rule 'x', field 'title_regex'"
    ):
        build_service(settings, Runtime(settings, "t"))
