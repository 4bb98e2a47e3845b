"""One bootstrap per service (shared/bootstrap.py, services/registry.py): settings problems are
found and said the same way by `python -m services.X`, `repodigest serve` and the CLI's run."""

from __future__ import annotations

import json

import pytest

from services.registry import SERVICES, bootstrap, consumers, contracts
from shared.bootstrap import SettingsProblem


def test_every_service_has_a_bootstrap_and_a_contract():
    assert SERVICES == ("ingest", "classifier", "summarizer", "renderer", "notifier")
    for name in SERVICES:
        boot = bootstrap(name)
        assert boot.name == name and contracts()[name].service == name
        assert boot.settings_class.__module__ == f"services.{name}.config"
    assert [c.durable for c in consumers()] == [
        "classifier-enrich",
        "summarizer-fold",
        "summarizer-requests",
        "renderer-render",
        "notifier-deliver",
    ]
    with pytest.raises(KeyError, match="unknown service 'web'"):
        bootstrap("web")


def test_a_short_webhook_secret_is_a_settings_problem_never_quoted(monkeypatch):
    monkeypatch.setenv("REPODIGEST_WEBHOOK_ENABLED", "true")
    monkeypatch.setenv("REPODIGEST_WEBHOOK_SECRET", "tiny-Kq3")
    with pytest.raises(SettingsProblem) as info:
        bootstrap("ingest").settings()
    (problem,) = info.value.problems
    assert "REPODIGEST_WEBHOOK_SECRET is too short" in problem
    assert "tiny-Kq3" not in str(info.value)


def test_an_invalid_value_is_named_by_field_without_the_value(monkeypatch):
    secret = "hook-secret-Pw77"
    monkeypatch.setenv(
        "REPODIGEST_NOTIFIER_ROUTES",
        json.dumps([{"name": "Hook", "kind": "slack", "url": f"https://hooks.example/{secret}"}]),
    )
    with pytest.raises(SettingsProblem) as info:
        bootstrap("notifier").settings()
    assert str(info.value).startswith(
        "notifier settings are invalid: notifier_routes.0.slack.name: "
    )
    assert secret not in str(info.value)


def test_python_m_says_each_problem_and_exits_1(monkeypatch, capsys):
    monkeypatch.setenv("REPODIGEST_WEBHOOK_ENABLED", "true")
    monkeypatch.delenv("REPODIGEST_WEBHOOK_SECRET", raising=False)
    monkeypatch.setenv("REPODIGEST_BACKFILL_SOURCE", "github")
    monkeypatch.delenv("REPODIGEST_BACKFILL_REPO", raising=False)
    assert bootstrap("ingest").main() == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("ingest: ") for line in lines)
    assert "needs a secret" in lines[0] and "needs REPODIGEST_BACKFILL_REPO" in lines[1]
