"""Signed payloads the event log cannot hold, through the served endpoint into a real nats-server:
each is the sender's error, answered with a permanent 4xx and its reason (never a 500, never a
503 that asks GitHub to redeliver what can never be accepted), nothing is published for it, and
the next good delivery is."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from shared.messaging import STREAM_GITHUB
from tests.conftest import require_shared_data
from tests.webhook_signing import github_signature

from .serving import served_webhook

pytestmark = pytest.mark.shared_data

SECRET = "payload-errors-of-the-webhook"
PATH = "/webhooks/github"


def opened() -> dict:
    return json.loads(
        require_shared_data("github-webhooks", "issues", "opened.payload.json").read_bytes()
    )


def with_number(value: str) -> bytes:
    # a JSON number json.dumps cannot write (1e400 reads as infinity)
    return json.dumps(opened()).replace('"number": 1,', f'"number": {value},', 1).encode()


def with_time(value: str) -> bytes:
    doc = opened()
    doc["issue"]["created_at"] = value
    return json.dumps(doc).encode()


def with_title(size: int) -> bytes:
    doc = opened()
    doc["issue"]["title"] = "t" * size
    return json.dumps(doc).encode()


CASES = {  # built in the test: reading the shared data outside one would skip the module
    "number 1e400": (lambda: with_number("1e400"), 422, "number 1e400 is out of range"),
    "number -1e400": (lambda: with_number("-1e400"), 422, "number -1e400 is out of range"),
    "number 2**70": (lambda: with_number(str(2**70)), None, None),  # 422 once bounded
    "created in year 1": (lambda: with_time("0001-01-01T00:00:00Z"), 422, ""),
    "created in year 9999": (lambda: with_time("9999-12-31T23:59:59Z"), 422, ""),
    "a 2 MB title": (lambda: with_title(2 * 1024 * 1024), 413, "redelivering cannot help"),
}


def signed(body: bytes) -> dict:
    return {
        "X-GitHub-Event": "issues",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": github_signature(SECRET.encode(), body),
        "Content-Type": "application/json",
    }


@pytest.mark.parametrize("case", list(CASES))
async def test_a_payload_the_event_log_cannot_hold_gets_a_permanent_4xx(nats_server, case):
    build, status, reason = CASES[case]
    body = build()
    async with served_webhook(nats_server.url, "test-payload-errors", SECRET) as (
        _runtime,
        js,
        server,
    ):
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", timeout=30
        ) as client:
            r = await client.post(PATH, content=body, headers=signed(body))
            good = opened()
            good["issue"]["number"] = 7
            good_body = json.dumps(good).encode()
            after = await client.post(PATH, content=good_body, headers=signed(good_body))
        stored = (await js.stream_info(STREAM_GITHUB)).state.messages
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if status is None:  # either accepted or refused as the sender's error
        assert r.status_code in (202, 422), r.text[:300]
    else:
        assert r.status_code == status, r.text[:300]
        assert reason in r.json()["error"]
    assert after.status_code == 202, after.text
    assert stored == (2 if r.status_code == 202 else 1)
