"""Every payload in ../shared/data/github-webhooks/ through the receiver: each is mapped to facts
or refused with a stated reason, and services/ingest/WEBHOOK_PAYLOADS.md lists which are which.

Regenerate the list after a change of policy or data:

    REPODIGEST_WRITE_WEBHOOK_LIST=1 .venv/bin/python -m pytest -q \
        tests/integration/ingest_webhooks/test_webhook_payloads.py -k list
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import httpx
import pytest

from services.ingest.adapters.webhooks import build_webhook_app
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark, fact_time, make_fact
from shared.messaging import STREAM_GITHUB
from tests.conftest import ROOT as REPO_ROOT
from tests.conftest import SHARED_DATA, require_shared_data
from tests.webhook_signing import github_signature

from .serving import served_webhook

pytestmark = pytest.mark.shared_data

SECRET = "webhook-catalogue-secret"
ROOT = SHARED_DATA / "github-webhooks"
LIST = REPO_ROOT / "services" / "ingest" / "WEBHOOK_PAYLOADS.md"

# the policy, written independently of the mapping: which (event, action) is which fact
FACTS = {
    "pull_request": {
        "opened": "pull_request.opened",
        "reopened": "pull_request.reopened",
        "edited": "pull_request.edited",
        "labeled": "pull_request.labeled",
        "ready_for_review": "pull_request.ready_for_review",
        "converted_to_draft": "pull_request.converted_to_draft",
        "closed": None,
    },  # merged or closed, per merged_at
    "issues": {
        "opened": "issue.opened",
        "closed": "issue.closed",
        "reopened": "issue.reopened",
        "edited": "issue.edited",
        "labeled": "issue.labeled",
    },
    "issue_comment": {"created": "comment.created"},
    "pull_request_review": {"submitted": "review.submitted"},
    "pull_request_review_comment": {"created": "comment.created"},
}
# the GitHub time each fact carries
TIME_OF = {
    "opened": ("created_at",),
    "merged": ("merged_at",),
    "closed": ("closed_at",),
    "created": ("comment", "created_at"),
    "submitted": ("review", "submitted_at"),
}


def payload_files() -> list[Path]:
    if not ROOT.is_dir():
        return []
    return sorted(p for p in ROOT.glob("*/*.json") if p.parent.name != "schemas")


PAYLOADS = payload_files()


def expected(event: str, payload: dict) -> tuple[int, str | None]:
    """(status, fact kind.action or None) the policy asks for."""
    if event == "ping":
        return 200, None
    action = payload.get("action")
    if event not in FACTS or action not in FACTS[event]:
        return 202, None
    if event == "pull_request" and action == "closed":
        merged = payload["pull_request"].get("merged_at")
        return 202, "pull_request.merged" if merged else "pull_request.closed"
    return 202, FACTS[event][action]


async def deliver(
    path: Path, app=None, published: list | None = None
) -> tuple[httpx.Response, list]:
    published = [] if published is None else published

    async def publish(repo, facts):
        published.extend(facts)

    app = app or build_webhook_app(SECRET, publish)
    body = path.read_bytes()
    event = path.parent.name
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://h") as c:
        response = await c.post(
            "/webhooks/github",
            content=body,
            headers={
                "X-GitHub-Event": event,
                "X-GitHub-Delivery": str(uuid.uuid4()),
                "X-Hub-Signature-256": github_signature(SECRET.encode(), body),
                "Content-Type": "application/json",
            },
        )
    return response, published


@pytest.mark.parametrize(
    "path", PAYLOADS or [None], ids=[f"{p.parent.name}/{p.name}" for p in PAYLOADS] or ["no-data"]
)
async def test_every_payload_is_mapped_or_refused_with_a_reason(path):
    if path is None:
        require_shared_data("github-webhooks")
        pytest.fail("../shared/data/github-webhooks holds no payloads")
    payload = json.loads(path.read_bytes())
    status, fact = expected(path.parent.name, payload)
    response, facts = await deliver(path)
    assert response.status_code == status, response.text
    body = response.json()
    if fact is None:
        assert facts == []
        if status == 202:
            assert body["reason"] and "ignored" in body
    else:
        assert body == {"accepted": 1, "repo": payload["repository"]["full_name"]}
        assert [f"{f.kind}.{f.action}" for f in facts] == [fact]
        action = fact.split(".")[1]
        if action in TIME_OF:
            *holder, field = TIME_OF[action]
            obj = (
                payload[holder[0]]
                if holder
                else (payload.get("pull_request") or payload.get("issue"))
            )
            assert fact_time(facts[0]).isoformat().replace("+00:00", "Z") == obj[field]


def outcome(path: Path, response: httpx.Response, facts: list) -> str:
    body = response.json()
    if facts:
        return "facts: " + ", ".join(f"`{f.kind}.{f.action}`" for f in facts)
    if response.status_code == 200:
        return "answered (ping)"
    return f"ignored: {body.get('reason') or body.get('error')}"


async def render_list() -> str:
    lines = [
        "# Webhook payloads through the receiver",
        "",
        "Every example payload in `../shared/data/github-webhooks/` (octokit/webhooks, the",
        "payloads GitHub documents), signed and POSTed to the receiver. Generated by",
        "`tests/integration/ingest_webhooks/test_webhook_payloads.py`",
        "(`REPODIGEST_WRITE_WEBHOOK_LIST=1`); a test fails when this file is out of date.",
        "",
        "| event | payload | status | result |",
        "| --- | --- | ---: | --- |",
    ]
    counts = {"facts": 0, "ignored": 0, "ping": 0}
    for path in PAYLOADS:
        response, facts = await deliver(path)
        text = outcome(path, response, facts)
        counts["facts" if facts else "ping" if response.status_code == 200 else "ignored"] += 1
        lines.append(f"| {path.parent.name} | `{path.name}` | {response.status_code} | {text} |")
    lines[1:1] = [
        "",
        f"{len(PAYLOADS)} payloads: {counts['facts']} mapped to facts, "
        f"{counts['ignored']} acknowledged (202) and ignored with the reason "
        "stated in the answer, "
        f"{counts['ping']} pings answered.",
    ]
    return "\n".join(lines) + "\n"


async def test_the_committed_payload_list_is_up_to_date():
    require_shared_data("github-webhooks")
    text = await render_list()
    if os.environ.get("REPODIGEST_WRITE_WEBHOOK_LIST"):
        LIST.write_text(text, encoding="utf-8")
    assert LIST.exists(), f"{LIST} is missing: regenerate it (see this module's docstring)"
    assert LIST.read_text(encoding="utf-8") == text, (
        f"{LIST} is out of date: regenerate it (see this module's docstring)"
    )


async def test_all_payloads_through_the_served_endpoint_into_the_stream_without_watermark(
    nats_server,
):
    """The whole folder against the real uvicorn endpoint and a real nats-server: the stream
    holds exactly the accepted facts, and never a watermark (a delivery cannot say that
    everything up to some time was published, so it must not close windows)."""
    require_shared_data("github-webhooks")
    accepted: list = []
    async with served_webhook(nats_server.url, "test-webhook-catalogue", SECRET) as (
        _runtime,
        js,
        server,
    ):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}") as client:
            for path in PAYLOADS:
                body = path.read_bytes()
                r = await client.post(
                    "/webhooks/github",
                    content=body,
                    headers={
                        "X-GitHub-Event": path.parent.name,
                        "X-GitHub-Delivery": str(uuid.uuid4()),
                        "X-Hub-Signature-256": github_signature(SECRET.encode(), body),
                        "Content-Type": "application/json",
                    },
                )
                assert r.status_code in (200, 202), (path, r.text)
                _, facts = await deliver(path)
                accepted.extend(make_fact(f).id for f in facts)
        info = await js.stream_info(STREAM_GITHUB)
        events = [
            GITHUB_EVENT_ADAPTER.validate_json((await js.get_msg(STREAM_GITHUB, s)).data)
            for s in range(info.state.first_seq, info.state.last_seq + 1)
        ]
    assert not any(isinstance(e, SyncWatermark) for e in events)
    # payload examples repeat some facts (same item, same time): JetStream keeps one of each
    assert sorted(e.id for e in events) == sorted(set(accepted))
    # the pull request's head branch arrives in the stored snapshot (labeler head-branch rules);
    # every pull request of octokit's examples is opened from the branch `changes`
    pulls = [e for e in events if e.data.item.kind == "pull_request" and e.data.kind != "comment"]
    assert pulls and {e.data.item.head_branch for e in pulls} == {"changes"}
