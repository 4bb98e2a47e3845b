"""Hostile request headers at the served webhook endpoint (uvicorn, a real nats-server): a signed
delivery with a crafted `X-GitHub-Delivery` or `X-GitHub-Event` is refused with 400 and never
reaches NATS, so the connection stays up and a later good delivery is published.

The HMAC covers the body only: anyone who saw one accepted body can replay it with any headers.
Before the fix the delivery id went into a KV key (a NATS subject); 10,000 characters, or 700 of
'ä' percent-encoded, passed the server's control-line limit, nats-server closed the connection and
nats-py never reconnected."""

from __future__ import annotations

import uuid

import httpx
import pytest

from shared.messaging import STREAM_GITHUB
from tests.conftest import require_shared_data
from tests.webhook_signing import github_signature

from .serving import served_webhook

pytestmark = pytest.mark.shared_data

SECRET = "hostile-headers-secret"
PATH = "/webhooks/github"

CRAFTED = {
    "delivery: 700 x ä": {"X-GitHub-Delivery": "ä" * 700},
    "delivery: 10,000 ASCII": {"X-GitHub-Delivery": "a" * 10_000},
    "delivery: a subject wildcard": {"X-GitHub-Delivery": "72d3162e-cc78-11e3-81ab-4c9367dc095>"},
    "delivery: not a GUID": {"X-GitHub-Delivery": "org-1"},
    "delivery: GUID plus a suffix": {"X-GitHub-Delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958.x"},
    "delivery: missing": {"X-GitHub-Delivery": None},
    "event: 10,000 ASCII": {"X-GitHub-Event": "issues" * 1700},
    "event: non-ASCII": {"X-GitHub-Event": "issuesä"},
    "event: a subject token": {"X-GitHub-Event": "issues.>"},
}


def signed(body: bytes, **override: str | None) -> dict:
    hdrs = {
        "X-GitHub-Event": "issues",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": github_signature(SECRET.encode(), body),
        "Content-Type": "application/json",
    }
    for name, value in override.items():
        if value is None:
            hdrs.pop(name, None)
        else:
            hdrs[name] = value
    return hdrs


def encoded(hdrs: dict) -> list[tuple[bytes, bytes]]:
    # httpx refuses non-ASCII str header values; a hostile client sends raw UTF-8 bytes
    return [(k.encode(), v.encode("utf-8")) for k, v in hdrs.items()]


@pytest.mark.parametrize("case", list(CRAFTED))
async def test_a_crafted_header_gets_400_and_the_connection_stays_up(nats_server, case):
    body = require_shared_data("github-webhooks", "issues", "opened.payload.json").read_bytes()
    async with served_webhook(nats_server.url, "test-hostile-headers", SECRET) as (
        runtime,
        js,
        server,
    ):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}") as client:
            hostile = signed(body, **CRAFTED[case])
            r = await client.post(PATH, content=body, headers=encoded(hostile))
            assert r.status_code == 400, r.text
            name = "X-GitHub-Event" if case.startswith("event") else "X-GitHub-Delivery"
            assert name in r.json()["error"]
            # the same body with good headers: accepted and published
            good = await client.post(PATH, content=body, headers=signed(body))
            assert good.status_code == 202, good.text
        conn = runtime.nc
        assert conn.is_connected and not conn.is_closed
        assert (await js.stream_info(STREAM_GITHUB)).state.messages == 1
