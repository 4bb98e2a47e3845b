"""IngestSettings from REPODIGEST_* variables: repository lists, secrets kept secret."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from services.ingest.config import IngestSettings


@pytest.mark.parametrize(
    "value, repos",
    [
        ("vllm-project/vllm", ["vllm-project/vllm"]),
        (" vllm-project/vllm , acme/widgets.io ,", ["vllm-project/vllm", "acme/widgets.io"]),
        ('["a/b", "c/d"]', ["a/b", "c/d"]),
        ("", []),
    ],
)
def test_repos_from_environment(monkeypatch, value, repos):
    monkeypatch.setenv("REPODIGEST_REPOS", value)
    assert IngestSettings().repos == repos


def test_bad_repository_is_named(monkeypatch):
    monkeypatch.setenv("REPODIGEST_REPOS", "vllm-project/vllm,not a repo")
    with pytest.raises(ValidationError, match="'not a repo' is not a GitHub repository name"):
        IngestSettings()


def test_secrets_never_show(monkeypatch):
    monkeypatch.setenv("REPODIGEST_GITHUB_TOKEN", "ghp_supersecret")
    monkeypatch.setenv("REPODIGEST_WEBHOOK_SECRET", "hook-secret")
    s = IngestSettings()
    assert s.github_token.get_secret_value() == "ghp_supersecret"
    shown = repr(s) + str(s.model_dump()) + s.model_dump_json()
    assert "ghp_supersecret" not in shown and "hook-secret" not in shown


def test_defaults(monkeypatch):
    for name in ("REPODIGEST_REPOS", "REPODIGEST_BACKFILL_SOURCE", "REPODIGEST_WEBHOOK_ENABLED"):
        monkeypatch.delenv(name, raising=False)
    s = IngestSettings()
    assert s.repos == [] and s.backfill_source is None and not s.webhook_enabled
    assert s.github_api_url == "https://api.github.com" and s.poll_interval == 300.0


@pytest.mark.parametrize(
    "values, fragment",
    [
        ({"webhook_enabled": True}, "needs a secret: set REPODIGEST_WEBHOOK_SECRET"),
        ({"backfill_source": "kafka:x"}, "REPODIGEST_BACKFILL_SOURCE: unknown source"),
        ({"backfill_source": "github"}, "needs REPODIGEST_BACKFILL_REPO"),
        ({"backfill_source": "github-graphql"}, "github-graphql needs REPODIGEST_BACKFILL_REPO"),
    ],
)
def test_settings_problems_are_actionable(values, fragment):
    from services.ingest.app import settings_problems

    problems = settings_problems(IngestSettings(**values))
    assert len(problems) == 1 and fragment in problems[0]


def test_good_settings_have_no_problems():
    from services.ingest.app import settings_problems

    assert (
        settings_problems(
            IngestSettings(
                webhook_enabled=True,
                webhook_secret="a-webhook-secret-of-real-length",
                backfill_source="github",
                backfill_repo="a/b",
            )
        )
        == []
    )
    assert settings_problems(IngestSettings(backfill_source="demo")) == []


@pytest.mark.parametrize("secret", [" ", "x", "hook-secret", " " * 40, "short secret   \t  "])
def test_a_webhook_secret_must_be_of_real_length(secret):
    """One space (or any guessable handful of characters) used to be accepted as the secret every
    delivery is signed with; the start-up error names the setting, never the value."""
    from services.ingest.app import settings_problems

    (problem,) = settings_problems(IngestSettings(webhook_enabled=True, webhook_secret=secret))
    assert "REPODIGEST_WEBHOOK_SECRET is too short" in problem and "at least 16" in problem
    assert len(secret.strip()) < 2 or secret.strip() not in problem
    # a disabled endpoint does not care
    assert settings_problems(IngestSettings(webhook_enabled=False, webhook_secret=secret)) == []


def test_webhook_limits_come_from_settings(monkeypatch):
    monkeypatch.setenv("REPODIGEST_WEBHOOK_MAX_BODIES", "2")
    monkeypatch.setenv("REPODIGEST_WEBHOOK_HEADER_TIMEOUT", "2.5")
    s = IngestSettings()
    assert (s.webhook_max_bodies, s.webhook_header_timeout) == (2, 2.5)
    assert s.webhook_max_body == 25 * 1024 * 1024 and s.webhook_max_connections == 64
    monkeypatch.setenv("REPODIGEST_WEBHOOK_MAX_BODY", str(26 * 1024 * 1024))
    with pytest.raises(ValidationError, match="webhook_max_body"):
        IngestSettings()
