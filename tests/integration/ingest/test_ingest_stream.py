"""Ingest on a real nats-server: facts and one watermark land in RD_GITHUB, re-runs add nothing,
and a backfill configured in settings runs when the service starts."""

from __future__ import annotations

import asyncio

import pytest

from services.ingest.adapters.demo import DEMO_REPO, generate_demo
from services.ingest.app import IngestNotReady, build_service
from services.ingest.config import IngestSettings
from services.ingest.handlers import ingest_source
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark, make_fact
from shared.messaging import STREAM_GITHUB, Subjects
from shared.service import Runtime
from tests.conftest import require_shared_data


async def _started(url: str, **settings) -> tuple[Runtime, object]:
    cfg = IngestSettings(nats_url=url, **settings)
    runtime = Runtime(cfg, "ingest-test")
    service = runtime.add(build_service(cfg, runtime))
    await runtime.start()
    return runtime, service


async def _stream(runtime: Runtime) -> list:
    """Every event in RD_GITHUB, decoded, in stream order."""
    js = runtime.js
    info = await js.stream_info(STREAM_GITHUB)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(STREAM_GITHUB, seq)
        event = GITHUB_EVENT_ADAPTER.validate_json(msg.data)
        assert msg.headers["Nats-Msg-Id"] == event.id
        out.append((msg.subject, event))
    return out


async def test_demo_published_once_with_a_watermark_and_deduplicated(nats_server):
    runtime, _ = await _started(nats_server.url)
    try:
        bus = runtime.bus("ingest")
        expected = generate_demo("2026-W24", seed=7)
        first = await ingest_source(bus, "demo", None, demo_week="2026-W24")
        assert first.facts_published == len(expected.facts) and first.duplicates == 0
        stored = await _stream(runtime)
        assert len(stored) == len(expected.facts) + 1
        *facts, (mark_subject, mark) = stored
        assert isinstance(mark, SyncWatermark) and mark_subject == Subjects.watermark(DEMO_REPO)
        assert mark.data.watermark == expected.watermark == first.watermark
        assert {e.id for _, e in facts} == {make_fact(f).id for f in expected.facts}
        for subject, event in facts:
            assert subject == Subjects.fact(event.data.kind, event.data.action, DEMO_REPO)

        again = await ingest_source(bus, "demo", None, demo_week="2026-W24")
        assert again.duplicates == again.facts_published == len(expected.facts)
        info = await runtime.js.stream_info(STREAM_GITHUB)
        assert info.state.messages == len(expected.facts) + 1
    finally:
        await runtime.stop()


async def test_backfill_from_settings_runs_at_start(nats_server):
    path = require_shared_data("gharchive", "2021-07-21-few-hours.json")
    runtime, service = await _started(
        nats_server.url, backfill_source=f"gharchive:{path}", backfill_repo="magma/magma"
    )
    try:
        await asyncio.wait_for(service.backfill_done.wait(), 30)
        assert service.backfill_error is None and await service.ready()
        stored = await _stream(runtime)
        kinds = sorted(
            (e.data.kind, getattr(e.data, "action", "watermark"))
            for _, e in stored
            if not isinstance(e, SyncWatermark)
        )
        assert kinds == [("comment", "created"), ("review", "submitted")]
        assert isinstance(stored[-1][1], SyncWatermark)
        assert stored[-1][1].data.watermark == max(e.time for _, e in stored[:-1])
    finally:
        await runtime.stop()


async def test_failed_backfill_makes_the_service_unready(nats_server, tmp_path):
    runtime, service = await _started(
        nats_server.url, backfill_source=f"replay:{tmp_path / 'missing.jsonl'}"
    )
    try:
        await asyncio.wait_for(service.backfill_done.wait(), 30)
        with pytest.raises(IngestNotReady, match="backfill from replay:.*does not exist"):
            await service.ready()
        assert "does not exist" in service.backfill_error
        info = await runtime.js.stream_info(STREAM_GITHUB)
        assert info.state.messages == 0
    finally:
        await runtime.stop()


async def test_pollers_hook_starts_and_stops_live_sources(nats_server):
    from services.ingest.app import Background

    events: list[str] = []
    running = asyncio.Event()

    class FakePoller:
        async def start(self) -> None:
            events.append("start")

        async def stop(self) -> None:
            events.append("stop")

    async def forever() -> None:
        running.set()
        await asyncio.Event().wait()

    async def factory(service):
        assert service.bus.js is not None  # built once the broker is connected
        return [FakePoller()]

    cfg = IngestSettings(nats_url=nats_server.url)
    runtime = Runtime(cfg, "ingest-test")
    service = build_service(cfg, runtime)
    assert service.poller_factories == []  # no REPODIGEST_REPOS: no GitHub poller
    background = Background("webhooks", forever)
    service.pollers.append(background)
    service.poller_factories.append(factory)
    runtime.add(service)
    await runtime.start()
    try:
        await asyncio.wait_for(running.wait(), 10)
        assert events == ["start"] and service.backfill_done.is_set()
    finally:
        await runtime.stop()
    assert events == ["start", "stop"] and background.task is None


def test_repos_setting_plugs_in_the_github_poller():
    from services.ingest.app import github_pollers

    cfg = IngestSettings(repos="vllm-project/vllm, a/b")
    service = build_service(cfg, Runtime(cfg, "ingest-test"))
    assert cfg.repos == ["vllm-project/vllm", "a/b"]
    assert service.poller_factories == [github_pollers]


async def test_repos_setting_polls_github_into_the_stream(nats_server):
    """REPODIGEST_REPOS + the GitHub URL and token are all it takes (GitHub emulated from real
    recorded responses)."""
    from tests.github_emulator import GithubEmulator

    repo = "PyGithub/PyGithub"
    files = [
        require_shared_data("github-rest-replay", f)
        for f in ("Repository.testGetIssues.txt", "Repository.testGetPullsWithArguments.txt")
    ]
    with GithubEmulator(files) as gh:
        runtime, service = await _started(
            nats_server.url,
            repos=repo,
            github_api_url=gh.base_url,
            github_token=gh.token,
            poll_interval=3600,
            poll_backfill_days=None,
        )
        try:
            (poller,) = service.pollers
            await asyncio.wait_for(poller.polled.wait(), 60)
            assert poller.errors == {}
            stored = [e for _, e in await _stream(runtime)]
        finally:
            await runtime.stop()
    facts = [e for e in stored if not isinstance(e, SyncWatermark)]
    marks = [e for e in stored if isinstance(e, SyncWatermark)]
    assert facts and all(e.data.repo == repo and e.data.origin == "poll" for e in facts)
    assert {e.data.kind for e in facts} >= {"issue", "pull_request"}
    assert len(marks) == 1 and marks[0].data.repo == repo and marks[0].data.origin == "poll"


async def test_github_source_syncs_once_and_explains_failures(nats_server):
    from services.ingest.domain.sources import SourceError
    from tests.github_emulator import GithubEmulator

    repo = "PyGithub/PyGithub"
    files = [
        require_shared_data("github-rest-replay", f)
        for f in ("Repository.testGetIssues.txt", "Repository.testGetPullsWithArguments.txt")
    ]
    runtime, _ = await _started(nats_server.url)
    try:
        bus = runtime.bus("ingest")
        with GithubEmulator(files) as gh:
            with pytest.raises(SourceError) as err:
                await ingest_source(bus, "github", repo, token="wrong", github_api_url=gh.base_url)
            assert "token" in str(err.value).lower() and "wrong" not in str(err.value)
            result = await ingest_source(
                bus, "github", repo, token=gh.token, github_api_url=gh.base_url
            )
        with pytest.raises(SourceError, match="needs the repository"):
            await ingest_source(bus, "github", None, token="t")
        stored = [e for _, e in await _stream(runtime)]
        facts = [e for e in stored if not isinstance(e, SyncWatermark)]
        assert result.origin == "poll" and result.facts_published == len(facts) > 0
        assert (
            isinstance(stored[-1], SyncWatermark) and stored[-1].data.watermark == result.watermark
        )
    finally:
        await runtime.stop()


async def test_webhook_setting_serves_signed_deliveries_into_the_stream(nats_server):
    import hashlib
    import hmac

    import httpx

    payload = require_shared_data(
        "github-webhooks", "pull_request", "opened.payload.json"
    ).read_bytes()
    secret = "s3cret-for-the-test"
    runtime, service = await _started(
        nats_server.url,
        webhook_enabled=True,
        webhook_secret=secret,
        webhook_host="127.0.0.1",
        webhook_port=0,
    )
    try:
        (server,) = service.pollers
        url = f"http://127.0.0.1:{server.port}{service.settings.webhook_path}"
        signature = "sha256=" + hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()
        headers = {
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": "6b3c52a0-4f1e-11ee-8c99-0242ac120002",
            "X-Hub-Signature-256": signature,
            "Content-Type": "application/json",
        }
        async with httpx.AsyncClient() as client:
            forged = await client.post(
                url,
                content=payload,
                headers={**headers, "X-Hub-Signature-256": "sha256=" + "0" * 64},
            )
            accepted = await client.post(url, content=payload, headers=headers)
        assert forged.status_code == 401 and accepted.status_code == 202
        stored = [e for _, e in await _stream(runtime)]
        assert [(e.data.kind, e.data.action, e.data.origin) for e in stored] == [
            ("pull_request", "opened", "webhook")
        ]
    finally:
        await runtime.stop()


async def test_webhook_without_secret_is_refused_at_start(nats_server):
    cfg = IngestSettings(nats_url=nats_server.url, webhook_enabled=True)
    runtime = Runtime(cfg, "ingest-test")
    runtime.add(build_service(cfg, runtime))
    try:
        with pytest.raises(ValueError, match="REPODIGEST_WEBHOOK_SECRET"):
            await runtime.start()
    finally:
        await runtime.stop()
