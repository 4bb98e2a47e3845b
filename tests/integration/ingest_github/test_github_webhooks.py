"""The webhook endpoint with GitHub's real example payloads, signed by the test, publishing into a
real nats-server: signatures, de-duplication, ignored events, limits, and the same ids as polling."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import httpx
import pytest

from services.ingest.adapters.kv import KvIngestState
from services.ingest.adapters.webhooks import (
    MemoryDeliveries,
    WebhookConfigError,
    build_webhook_app,
    webhook_server,
)
from services.ingest.domain.mapping import facts_from_webhook
from services.ingest.sync import publish_facts, sync_once
from shared.config import CommonSettings
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark, make_fact
from shared.messaging import STREAM_GITHUB
from shared.service import Runtime
from tests.conftest import require_shared_data
from tests.github_emulator import GithubEmulator
from tests.webhook_signing import github_signature

pytestmark = pytest.mark.shared_data

SECRET = "It's a Secret to Everybody"


def payload_bytes(event: str, name: str) -> bytes:
    return require_shared_data("github-webhooks", event, name).read_bytes()


def headers(event: str, body: bytes, *, delivery: str | None = None, secret: str = SECRET) -> dict:
    return {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": github_signature(secret.encode(), body),
        "Content-Type": "application/json",
    }


class Harness:
    def __init__(self, url: str) -> None:
        self.runtime = Runtime(CommonSettings(nats_url=url), "test-webhooks")
        self.bus = self.runtime.bus("ingest")
        self.publish_calls = 0
        self.fail_publish = False

    async def __aenter__(self) -> Harness:
        await self.runtime.start()
        self.state = await KvIngestState.open(self.runtime.js)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.runtime.stop()

    async def publish(self, repo: str, facts) -> None:
        self.publish_calls += 1
        if self.fail_publish:
            raise ConnectionError("broker unavailable")
        await publish_facts(self.bus, facts)

    def app(self, **kw):
        return build_webhook_app(SECRET, self.publish, **kw)

    def client(self, app) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://hook")

    async def published(self) -> list:
        js = self.runtime.js
        info = await js.stream_info(STREAM_GITHUB)
        out = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            if info.state.messages == 0:
                break
            out.append(
                GITHUB_EVENT_ADAPTER.validate_json((await js.get_msg(STREAM_GITHUB, seq)).data)
            )
        return out


DELIVERIES = [
    ("pull_request", "opened.payload.json"),
    ("pull_request", "closed.payload.json"),
    ("pull_request", "labeled.payload.json"),
    ("pull_request", "ready_for_review.payload.json"),
    ("issues", "opened.payload.json"),
    ("issues", "labeled.payload.json"),
    ("issue_comment", "created.payload.json"),
    ("pull_request_review", "submitted.payload.json"),
    ("pull_request_review_comment", "created.payload.json"),
]


async def test_signed_deliveries_publish_their_facts(nats_server):
    async with Harness(nats_server.url) as h:
        app = h.app()
        expected = []
        async with h.client(app) as client:
            for event, name in DELIVERIES:
                body = payload_bytes(event, name)
                expected += [make_fact(f).id for f in facts_from_webhook(event, json.loads(body))]
                r = await client.post(
                    "/webhooks/github", content=body, headers=headers(event, body)
                )
                assert r.status_code == 202, r.text
                assert r.json()["accepted"] == 1
        events = await h.published()
        assert [e.id for e in events] == expected
        assert all(e.data.origin == "webhook" for e in events)
        assert app.state.stats["facts"] == len(DELIVERIES)


@pytest.mark.parametrize("mutate", ["missing", "wrong-secret", "tampered"])
async def test_bad_signatures_are_refused_and_nothing_is_published(nats_server, mutate):
    body = payload_bytes("pull_request", "opened.payload.json")
    hdrs = headers("pull_request", body)
    if mutate == "missing":
        del hdrs["X-Hub-Signature-256"]
    elif mutate == "wrong-secret":
        hdrs = headers("pull_request", body, secret="not the secret")
    else:
        body = body.replace(b"Codertocat", b"Mallory00", 1)
    async with Harness(nats_server.url) as h:
        async with h.client(h.app()) as client:
            r = await client.post("/webhooks/github", content=body, headers=hdrs)
        assert r.status_code == 401
        assert "REPODIGEST_WEBHOOK_SECRET" in r.json()["error"]
        assert h.publish_calls == 0 and await h.published() == []


async def test_redelivery_is_deduplicated_even_across_restarts(nats_server):
    body = payload_bytes("issues", "opened.payload.json")
    hdrs = headers("issues", body, delivery="72d3162e-cc78-11e3-81ab-4c9367dc0958")
    async with Harness(nats_server.url) as h:
        async with h.client(h.app(deliveries=MemoryDeliveries(store=h.state))) as client:
            first = await client.post("/webhooks/github", content=body, headers=hdrs)
            again = await client.post("/webhooks/github", content=body, headers=hdrs)
        # a new process: its memory is empty, the KV bucket remembers
        async with h.client(h.app(deliveries=MemoryDeliveries(store=h.state))) as client:
            later = await client.post("/webhooks/github", content=body, headers=hdrs)
        assert (first.status_code, again.status_code, later.status_code) == (202, 200, 200)
        assert again.json()["duplicate"] == hdrs["X-GitHub-Delivery"]
        assert h.publish_calls == 1 and len(await h.published()) == 1


async def test_publish_failure_answers_503_and_allows_redelivery(nats_server):
    body = payload_bytes("issues", "opened.payload.json")
    hdrs = headers("issues", body)
    async with Harness(nats_server.url) as h:
        async with h.client(h.app(deliveries=MemoryDeliveries(store=h.state))) as client:
            h.fail_publish = True
            failed = await client.post("/webhooks/github", content=body, headers=hdrs)
            h.fail_publish = False
            redelivered = await client.post("/webhooks/github", content=body, headers=hdrs)
        assert (failed.status_code, redelivered.status_code) == (503, 202)
        assert len(await h.published()) == 1


@pytest.mark.parametrize(
    "event,name,status",
    [
        ("ping", "payload.json", 200),
        ("push", "payload.json", 202),
        ("release", "published.payload.json", 202),
        ("label", "created.payload.json", 202),
        ("pull_request", "synchronize.payload.json", 202),
    ],
)
async def test_ping_and_events_that_are_not_facts(nats_server, event, name, status):
    body = payload_bytes(event, name)
    async with Harness(nats_server.url) as h:
        async with h.client(h.app()) as client:
            r = await client.post("/webhooks/github", content=body, headers=headers(event, body))
        assert r.status_code == status
        if event == "ping":
            assert r.json()["zen"] == json.loads(body)["zen"]
        else:
            assert "ignored" in r.json()
        assert await h.published() == []


async def test_limits_and_malformed_bodies(nats_server):
    async with Harness(nats_server.url) as h:
        async with h.client(h.app(max_body=1024)) as client:
            big = payload_bytes("pull_request", "opened.payload.json")
            assert len(big) > 1024
            r = await client.post(
                "/webhooks/github", content=big, headers=headers("pull_request", big)
            )
            assert r.status_code == 413
            bad = b'{"action": "opened", '
            r = await client.post("/webhooks/github", content=bad, headers=headers("issues", bad))
            assert r.status_code == 400
            broken = json.dumps({"action": "created", "repository": {"full_name": "a/b"}}).encode()
            r = await client.post(
                "/webhooks/github", content=broken, headers=headers("issue_comment", broken)
            )
            assert r.status_code == 422
        assert await h.published() == []


def test_refuses_to_start_without_a_secret():
    from pydantic import SecretStr

    async def publish(repo, facts): ...

    for secret in (None, "", SecretStr(""), " ", SecretStr(" " * 20), "fifteen-chars15"):
        with pytest.raises(WebhookConfigError, match="REPODIGEST_WEBHOOK_SECRET"):
            build_webhook_app(secret, publish)
    build_webhook_app("sixteen-chars-16", publish)
    with pytest.raises(WebhookConfigError):
        webhook_server(None, None, None)


async def test_webhook_and_poll_of_the_same_pull_request_are_one_event(nats_server):
    """A real uvicorn server receives `pull_request opened`; then a poll of the same pull request
    (served by the emulator from the very same JSON) must add no second `opened` event."""
    body = payload_bytes("pull_request", "opened.payload.json")
    pr = json.loads(body)["pull_request"]
    repo = json.loads(body)["repository"]["full_name"]
    async with Harness(nats_server.url) as h:
        server = webhook_server(h.bus, h.state, SECRET, host="127.0.0.1", port=0)
        await server.start()
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}") as client:
                r = await client.post(
                    "/webhooks/github", content=body, headers=headers("pull_request", body)
                )
            assert r.status_code == 202
        finally:
            await server.stop()
        with GithubEmulator() as gh:
            gh.add(f"/repos/{repo}/pulls", [pr])
            gh.add(f"/repos/{repo}/issues", [])
            result = await sync_once(
                h.bus,
                repo,
                token=gh.token,
                api_url=gh.base_url,
                now=datetime(2026, 6, 1, tzinfo=UTC),
                seconds_between_requests=None,
            )
        assert result.facts_published == result.duplicates == 1  # de-duplicated by JetStream
        events = [e for e in await h.published() if not isinstance(e, SyncWatermark)]
        opened = [e for e in events if e.data.action == "opened"]
        assert len(opened) == 1 and opened[0].data.origin == "webhook"
        assert len(events) == 1
        assert opened[0].data.item.number == pr["number"]


async def test_label_seen_by_webhook_is_not_published_again_by_a_later_poll(nats_server):
    """poll (PR without label) -> webhook `labeled` -> poll after more activity: one `labeled`."""
    opened = json.loads(payload_bytes("pull_request", "opened.payload.json"))
    labeled = json.loads(payload_bytes("pull_request", "labeled.payload.json"))
    repo = opened["repository"]["full_name"]
    body = opened["pull_request"]["body"]
    before = dict(opened["pull_request"], labels=[])
    labeled["pull_request"]["body"] = body  # the example payloads differ in body text
    hook = json.dumps(labeled).encode()
    after = dict(labeled["pull_request"], updated_at="2019-05-15T15:25:00Z")  # later activity
    now = datetime(2026, 6, 1, tzinfo=UTC)
    async with Harness(nats_server.url) as h:
        with GithubEmulator() as gh:
            gh.add(f"/repos/{repo}/pulls", [before])
            gh.add(f"/repos/{repo}/issues", [])
            kw = dict(token=gh.token, api_url=gh.base_url, seconds_between_requests=None)
            await sync_once(h.bus, repo, now=now, **kw)
            server = webhook_server(h.bus, h.state, SECRET, host="127.0.0.1", port=0)
            await server.start()
            try:
                async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}") as c:
                    r = await c.post(
                        "/webhooks/github", content=hook, headers=headers("pull_request", hook)
                    )
                assert r.status_code == 202
            finally:
                await server.stop()
            gh.add(f"/repos/{repo}/pulls", [after])
            second = await sync_once(h.bus, repo, now=now, **kw)
        facts = [e for e in await h.published() if not isinstance(e, SyncWatermark)]
    labels = [(e.data.label, e.data.origin) for e in facts if e.data.action == "labeled"]
    assert labels == [(labeled["label"]["name"], "webhook")]
    assert second.items_changed == 1 and second.facts_published == 0


async def test_deliveries_of_other_repositories_are_ignored_when_repos_are_configured(nats_server):
    body = payload_bytes("issues", "opened.payload.json")
    repo = json.loads(body)["repository"]["full_name"]
    async with Harness(nats_server.url) as h:
        async with h.client(h.app(repos=["someone/else"])) as client:
            r = await client.post("/webhooks/github", content=body, headers=headers("issues", body))
            assert r.status_code == 202 and "not configured" in r.json()["ignored"]
        async with h.client(h.app(repos=[repo.upper()])) as client:  # GitHub names ignore case
            r = await client.post("/webhooks/github", content=body, headers=headers("issues", body))
            assert r.status_code == 202 and r.json()["accepted"] == 1
        assert len(await h.published()) == 1


async def test_form_encoded_deliveries_are_understood(nats_server):
    from urllib.parse import urlencode

    raw = payload_bytes("issues", "opened.payload.json")
    body = urlencode({"payload": raw.decode()}).encode()
    hdrs = dict(headers("issues", body), **{"Content-Type": "application/x-www-form-urlencoded"})
    async with Harness(nats_server.url) as h:
        async with h.client(h.app()) as client:
            r = await client.post("/webhooks/github", content=body, headers=hdrs)
            assert r.status_code == 202, r.text
            empty = b"payload="
            r = await client.post(
                "/webhooks/github",
                content=empty,
                headers=dict(
                    headers("issues", empty),
                    **{"Content-Type": "application/x-www-form-urlencoded"},
                ),
            )
            assert r.status_code == 400
        (event,) = await h.published()
        assert event.id == make_fact(facts_from_webhook("issues", json.loads(raw))[0]).id


async def test_old_delivery_ids_are_pruned_from_kv(nats_server):
    from datetime import timedelta

    async with Harness(nats_server.url) as h:
        for d in ("a-1", "b-2"):
            assert await h.state.claim_delivery(d)
        now = datetime.now(UTC)
        assert await h.state.prune_deliveries(now - timedelta(hours=1)) == 0
        assert not await h.state.claim_delivery("a-1")  # still remembered
        assert await h.state.prune_deliveries(now + timedelta(minutes=1)) == 2
        assert await h.state.claim_delivery("a-1")  # forgotten: a new claim succeeds
