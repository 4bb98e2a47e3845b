"""The ingest service as composed by build_service: an organisation-wide hook only ingests the
configured repositories, and problems a person must fix (token, repository) make /readyz fail
with the reason while transient ones do not."""

from __future__ import annotations

import asyncio
import hashlib
import hmac

import httpx
import pytest

from services.ingest.app import IngestNotReady, build_service
from services.ingest.config import IngestSettings
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark
from shared.health import readiness
from shared.messaging import STREAM_GITHUB
from shared.service import Runtime
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator

pytestmark = pytest.mark.shared_data

REPO = "PyGithub/PyGithub"
FILES = ("Repository.testGetIssues.txt", "Repository.testGetPullsWithArguments.txt")


async def _started(url: str, **settings):
    cfg = IngestSettings(nats_url=url, **settings)
    runtime = Runtime(cfg, "ingest-test")
    service = runtime.add(build_service(cfg, runtime))
    await runtime.start()
    return runtime, service


async def test_org_wide_hook_ingests_only_configured_repositories(nats_server):
    secret = "org-hook-secret-of-the-test"
    other = require_shared_data(
        "github-webhooks", "pull_request", "opened.payload.json"
    ).read_bytes()
    with GithubEmulator([require_shared_data("github-rest-replay", f) for f in FILES]) as gh:
        runtime, service = await _started(
            nats_server.url,
            repos=REPO,
            github_api_url=gh.base_url,
            github_token=gh.token,
            poll_interval=3600,
            poll_backfill_days=None,
            webhook_enabled=True,
            webhook_secret=secret,
            webhook_host="127.0.0.1",
            webhook_port=0,
        )
        try:
            poller, server = service.pollers
            await asyncio.wait_for(poller.polled.wait(), 60)
            async with httpx.AsyncClient() as client:
                r = await client.post(
                    f"http://127.0.0.1:{server.port}{service.settings.webhook_path}",
                    content=other,
                    headers={
                        "X-GitHub-Event": "pull_request",
                        "X-GitHub-Delivery": "0d4a5e3c-1b2f-4c6d-8e9f-0a1b2c3d4e5f",
                        "Content-Type": "application/json",
                        "X-Hub-Signature-256": "sha256="
                        + hmac.new(secret.encode(), other, hashlib.sha256).hexdigest(),
                    },
                )
            assert r.status_code == 202
            assert "Codertocat/Hello-World is not configured" in r.json()["ignored"]
            assert await service.ready() is True
            js = runtime.js
            info = await js.stream_info(STREAM_GITHUB)
            stored = [
                GITHUB_EVENT_ADAPTER.validate_json((await js.get_msg(STREAM_GITHUB, s)).data)
                for s in range(info.state.first_seq, info.state.last_seq + 1)
            ]
        finally:
            await runtime.stop()
    assert stored and {e.data.repo for e in stored} == {REPO}
    assert not any(e.data.origin == "webhook" for e in stored if not isinstance(e, SyncWatermark))


@pytest.mark.parametrize(
    "repo, token, fragment",
    [
        ("nobody/nothing", None, "polling nobody/nothing: repository nobody/nothing not found"),
        (REPO, "wrong", "GITHUB_TOKEN was rejected"),
    ],
)
async def test_poll_problems_a_person_must_fix_make_the_service_unready(
    nats_server, repo, token, fragment
):
    with GithubEmulator([require_shared_data("github-rest-replay", f) for f in FILES]) as gh:
        runtime, service = await _started(
            nats_server.url,
            repos=repo,
            github_api_url=gh.base_url,
            github_token=token or gh.token,
            poll_interval=3600,
            poll_backfill_days=None,
        )
        try:
            (poller,) = service.pollers
            await asyncio.wait_for(poller.polled.wait(), 60)
            with pytest.raises(IngestNotReady, match=fragment):
                await service.ready()
            checks = await readiness(runtime)
            assert fragment in checks["ingest"]
            assert token not in checks["ingest"] if token else True
        finally:
            await runtime.stop()


async def test_transient_poll_failures_keep_the_service_ready(nats_server):
    with GithubEmulator([require_shared_data("github-rest-replay", f) for f in FILES]) as gh:
        gh.fail(502, times=1000)
        runtime, service = await _started(
            nats_server.url,
            repos=REPO,
            github_api_url=gh.base_url,
            github_token=gh.token,
            poll_interval=3600,
            poll_backfill_days=None,
        )
        try:
            (poller,) = service.pollers
            poller.source.max_attempts = 2
            poller.source.backoff_base = poller.source.backoff_max = 0.01
            await asyncio.wait_for(poller.polled.wait(), 60)
            assert "kept failing" in poller.errors[REPO]
            assert await service.ready() is True
        finally:
            await runtime.stop()
