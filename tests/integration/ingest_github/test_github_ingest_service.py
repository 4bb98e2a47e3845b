"""The ingest service as `app.py` composes it (REPODIGEST_REPOS set), polling the GitHub emulator:
facts and a watermark reach a real nats-server through the service's own poller."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from services.ingest.app import build_service
from services.ingest.config import IngestSettings
from services.ingest.sync import GithubPoller
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark
from shared.messaging import STREAM_GITHUB
from shared.service import Runtime
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator

pytestmark = pytest.mark.shared_data


async def test_service_polls_configured_repository(nats_server):
    payload = json.loads(
        require_shared_data("github-webhooks", "pull_request", "closed.payload.json").read_text(
            "utf-8"
        )
    )
    repo = payload["repository"]["full_name"]
    pr = payload["pull_request"]
    recent = (datetime.now(UTC) - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    pr.update(updated_at=recent, closed_at=recent)  # inside the poller's default backfill
    with GithubEmulator() as gh:
        gh.add(f"/repos/{repo}/pulls", [pr])
        gh.add(f"/repos/{repo}/issues", [])
        settings = IngestSettings(
            nats_url=nats_server.url,
            repos=[repo],
            github_token=gh.token,
            github_api_url=gh.base_url,
            poll_interval=3600,
        )
        runtime = Runtime(settings, "ingest")
        service = runtime.add(build_service(settings, runtime))
        await runtime.start()
        try:
            pollers = [p for p in service.pollers if isinstance(p, GithubPoller)]
            assert len(pollers) == 1
            await asyncio.wait_for(pollers[0].polled.wait(), 30)
            assert pollers[0].errors == {}
            js = runtime.js
            info = await js.stream_info(STREAM_GITHUB)
            events = [
                GITHUB_EVENT_ADAPTER.validate_json((await js.get_msg(STREAM_GITHUB, s)).data)
                for s in range(info.state.first_seq, info.state.last_seq + 1)
            ]
        finally:
            await runtime.stop()
    facts = [e for e in events if not isinstance(e, SyncWatermark)]
    # the example pull request was closed without merging: opened + closed, then a watermark
    assert [(e.data.kind, e.data.action) for e in facts] == [
        ("pull_request", "opened"),
        ("pull_request", "closed"),
    ]
    assert isinstance(events[-1], SyncWatermark) and events[-1].data.origin == "poll"
