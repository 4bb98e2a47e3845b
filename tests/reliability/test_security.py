"""Security: object keys cannot climb out of their prefix, and secrets stay out of logs.

Covered elsewhere and not repeated here: a webhook secret is required when the receiver is on,
bad or missing signatures get 401, bodies are size-limited (413) —
tests/integration/ingest_github/test_github_webhooks.py (test_refuses_to_start_without_a_secret,
test_bad_signatures_are_refused_and_nothing_is_published, test_limits_and_malformed_bodies) and
the fuzz in test_webhook_fuzz.py; the GitHub token stays out of DEBUG logs —
tests/integration/ingest_github/test_github_sync.py (test_debug_logs_carry_neither_the_token_nor_
payloads); NATS credentials in the URL are redacted — tests/integration/telemetry/
test_service_nats_credentials.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.renderer.adapters.stores import DirectoryObjectStore
from services.renderer.domain.keys import artifact_key, check_key, entry_key, index_key
from shared.natsserver import free_port

from .harness import ROOT

HOSTILE_PARTS = st.one_of(
    st.text(max_size=80),
    st.sampled_from(
        [
            "..",
            ".",
            "../..",
            "../../etc/passwd",
            "/etc/passwd",
            "a/../../b",
            "~",
            "%2e%2e%2f",
            "..\\..\\windows",
            "\x00",
            " ",
            "",
            "./.",
            "-",
            "....",
        ]
    ),
    st.lists(st.sampled_from(["..", "/", ".", "a", "%2F", "\\", "\n"]), max_size=12).map("".join),
)
TRIED: Counter = Counter()


@settings(max_examples=400, deadline=None, database=None)
@given(
    owner=HOSTILE_PARTS,
    name=HOSTILE_PARTS,
    label=HOSTILE_PARTS,
    lang=HOSTILE_PARTS,
    filename=HOSTILE_PARTS,
    revision=st.integers(1, 10**6),
)
def test_object_keys_never_escape_their_prefix(
    tmp_path_factory, owner, name, label, lang, filename, revision
):
    TRIED["keys"] += 1
    root = tmp_path_factory.getbasetemp() / "artifacts"
    store = DirectoryObjectStore(root)
    repo = f"{owner}/{name}"
    for key in (
        artifact_key(repo, label, revision, lang, filename),
        entry_key(repo, label, revision, lang),
        index_key(repo),
    ):
        assert check_key(key) == key
        parts = key.split("/")
        assert parts[0] == "reports" and len(parts) in (4, 7)
        assert not {"", ".", ".."} & set(parts)
        # the directory store resolves it under its root (its own guard agrees)
        path = store.path(key)
        assert store.root in path.parents
        assert Path(os.path.commonpath([path, store.root])) == store.root


@pytest.mark.parametrize(
    "key", ["../x", "reports/../../x", "/abs", "reports//x", "reports/./x", "reports/a b/x", ""]
)
def test_a_store_refuses_an_unsafe_key_however_it_was_made(tmp_path, key):
    with pytest.raises(ValueError):
        DirectoryObjectStore(tmp_path).path(key)


def run_service(name: str, env: dict[str, str]) -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("REPODIGEST_", "OTEL_"))}
    proc = subprocess.run(
        [sys.executable, "-m", f"services.{name}"],
        cwd=ROOT,
        timeout=90,
        env={
            **base,
            "PYTHONPATH": str(ROOT),
            "OTEL_SDK_DISABLED": "true",
            "REPODIGEST_LOG_LEVEL": "DEBUG",
            **env,
        },
        capture_output=True,
        text=True,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("service", ["classifier", "summarizer", "ingest", "renderer", "notifier"])
def test_credentials_never_reach_the_logs_of_a_failing_start(service):
    """DEBUG logs of a service that cannot start (NATS refuses, the database is unreachable)
    name what is wrong without the password, the token or the webhook secret."""
    secrets = {
        "nats": "nats-pw-7Hq2",
        "db": "db-pw-Zk81",
        "token": "ghp_reliabilityToken0123",
        "hook": "hook-secret-Qx5",
    }
    port = free_port()  # nothing listens: the start fails after it logged its settings
    env = {
        "REPODIGEST_NATS_URL": f"nats://svc:{secrets['nats']}@127.0.0.1:{port}",
        "REPODIGEST_NATS_CONNECT_TIMEOUT": "1",
        "REPODIGEST_DATABASE_URL": f"postgresql+psycopg://svc:{secrets['db']}@127.0.0.1:{port}/x",
        "REPODIGEST_GITHUB_TOKEN": secrets["token"],
        "REPODIGEST_WEBHOOK_SECRET": secrets["hook"],
        "REPODIGEST_NARRATOR_API_KEY": secrets["token"],
        # the notifier's routes: a webhook URL carries its secret, like an SMTP password
        "REPODIGEST_NOTIFIER_ROUTES": json.dumps(
            [
                {
                    "name": "hook",
                    "kind": "slack",
                    "url": f"https://hooks.example/{secrets['hook']}",
                },
                {
                    "name": "mail",
                    "kind": "email",
                    "smtp_host": "127.0.0.1",
                    "mail_from": "a@b",
                    "mail_to": ["c@d"],
                    "smtp_user": "u",
                    "smtp_password": secrets["db"],
                },
            ]
        ),
    }
    code, logs = run_service(service, env)
    TRIED["log-checks"] += 1
    assert code != 0 and logs.strip(), "the start should fail, and say why"
    assert "127.0.0.1" in logs  # it did name the server it could not reach
    for what, secret in secrets.items():
        assert secret not in logs, f"{service} logged the {what} secret"


def test_invalid_notifier_routes_are_refused_without_their_secrets():
    """A route that is wrong (here: a name with capitals) stops the notifier with the field and
    what is wrong, not pydantic's usual echo of the input, which holds the webhook URL."""
    secret = "hook-secret-Vb93"
    env = {
        "REPODIGEST_NOTIFIER_ROUTES": json.dumps(
            [{"name": "Hook", "kind": "slack", "url": f"https://hooks.example/{secret}"}]
        )
    }
    code, logs = run_service("notifier", env)
    TRIED["log-checks"] += 1
    assert code == 1 and "notifier_routes.0.slack.name" in logs, logs
    assert secret not in logs


async def test_summarizer_database_password_is_redacted_when_the_database_refuses(nats_server):
    """The summarizer connects to NATS, then its database refuses: the log names the database
    without the password."""
    import asyncio

    code, logs = await asyncio.to_thread(
        run_service,
        "summarizer",
        {
            "REPODIGEST_NATS_URL": nats_server.url,
            "REPODIGEST_DATABASE_URL": f"postgresql+psycopg://svc:db-pw-Zk81@127.0.0.1:{free_port()}/x",
        },
    )
    print(f"\nkeys tried: {TRIED['keys']}; start-failure logs checked: {TRIED['log-checks']}")
    assert code != 0
    assert "db-pw-Zk81" not in logs
    assert "svc:***@127.0.0.1" in logs  # named, with the password masked
