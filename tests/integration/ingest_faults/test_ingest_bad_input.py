"""Bad input never crashes ingest and never costs the good input around it.

Webhooks (served endpoint, real nats-server): malformed, truncated and non-object JSON, a missing
event header, unknown events, missing fields, bad signatures and oversized bodies get a 4xx (or a
202 with the reason for events that are not facts) and publish nothing, while good deliveries
before and after them are published. File sources (replay, events, GH Archive) are all-or-nothing:
a bad line stops the source with an error naming the line and the problem, nothing is published
(never half a file), and the same file without that line publishes every good fact; GH Archive
event types that are not facts are skipped, as the format intends."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path

import httpx
import pytest

from services.ingest.adapters.demo import generate_demo
from services.ingest.adapters.kv import KvIngestState
from services.ingest.adapters.webhooks import webhook_server
from services.ingest.domain.sources import SourceError, gharchive_repos
from services.ingest.handlers import ingest_source
from shared.config import CommonSettings
from shared.events import GITHUB_EVENT_ADAPTER, SyncWatermark, make_fact
from shared.messaging import STREAM_GITHUB
from shared.service import Runtime
from tests.conftest import require_shared_data
from tests.webhook_signing import github_signature

pytestmark = pytest.mark.shared_data

SECRET = "bad-input-secret"


class Recorder:
    """Publisher port that keeps what was published (file sources need no broker to prove it)."""

    def __init__(self) -> None:
        self.events: list = []

    async def publish(self, event, subject):
        self.events.append(event)
        return None

    async def publish_many(self, batch):
        return [await self.publish(event, subject) for event, subject, _ in batch]


def signed(event: str | None, body: bytes, **extra) -> dict:
    headers = {
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "Content-Type": "application/json",
        "X-Hub-Signature-256": github_signature(SECRET.encode(), body),
    }
    if event is not None:
        headers["X-GitHub-Event"] = event
    headers.update(extra)
    return headers


async def test_bad_deliveries_between_good_ones(nats_server):
    opened = require_shared_data(
        "github-webhooks", "pull_request", "opened.payload.json"
    ).read_bytes()
    comment = require_shared_data(
        "github-webhooks", "issue_comment", "created.payload.json"
    ).read_bytes()
    no_comment = json.dumps(
        {k: v for k, v in json.loads(comment).items() if k != "comment"}
    ).encode()
    bad_time = json.loads(opened)
    bad_time["pull_request"]["created_at"] = "yesterday"
    cases = [  # (event, body, headers override, expected status, fragment of the answer)
        ("pull_request", opened, {}, 202, "accepted"),
        ("pull_request", b'{"action": "opened", ', {}, 400, "not JSON"),
        ("pull_request", opened[: len(opened) // 2], {}, 400, "not JSON"),
        ("pull_request", b"[1, 2, 3]", {}, 400, "not a JSON object"),
        (None, opened, {}, 400, "X-GitHub-Event"),
        ("sponsorship", b'{"action": "created"}', {}, 202, "not pull request or issue activity"),
        ("issue_comment", no_comment, {}, 422, "no 'comment'"),
        ("pull_request", json.dumps(bad_time).encode(), {}, 422, "not a GitHub timestamp"),
        ("pull_request", opened, {"X-Hub-Signature-256": "sha256=" + "0" * 64}, 401, "secret"),
        ("pull_request", opened, {"X-Hub-Signature-256": ""}, 401, "secret"),
        ("pull_request", b"x" * 200_000, {}, 413, "larger than"),
        ("issue_comment", comment, {}, 202, "accepted"),
    ]
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "test-bad-input")
    await runtime.start()
    try:
        js = runtime.js
        server = webhook_server(
            runtime.bus("ingest"),
            await KvIngestState.open(js),
            SECRET,
            host="127.0.0.1",
            port=0,
            max_body=100_000,
        )
        await server.start()
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}") as client:
                for event, body, override, status, fragment in cases:
                    headers = {k: v for k, v in {**signed(event, body), **override}.items() if v}
                    r = await client.post("/webhooks/github", content=body, headers=headers)
                    assert (r.status_code, fragment in r.text) == (status, True), (event, r.text)
        finally:
            await server.stop()
        assert server.app.state.stats["accepted"] == 2
        info = await js.stream_info(STREAM_GITHUB)
        stored = [
            GITHUB_EVENT_ADAPTER.validate_json((await js.get_msg(STREAM_GITHUB, s)).data)
            for s in range(info.state.first_seq, info.state.last_seq + 1)
        ]
    finally:
        await runtime.stop()
    assert [(e.data.kind, e.data.action) for e in stored] == [
        ("pull_request", "opened"),
        ("comment", "created"),
    ]


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def _check_file_source(
    kind: str,
    good: list[str],
    bad: dict[str, tuple[int, str, str]],
    tmp_path: Path,
    repo: str | None,
) -> None:
    """`bad`: name -> (index to insert at, line, fragment of the error)."""
    clean = Recorder()
    result = await ingest_source(clean, f"{kind}:{_write(tmp_path, 'clean', good)}", repo)
    facts = [e for e in clean.events if not isinstance(e, SyncWatermark)]
    assert facts and result.facts_published == len(facts)
    for name, (at, line, fragment) in bad.items():
        lines = good[:at] + [line] + good[at:]
        recorder = Recorder()
        with pytest.raises(SourceError) as err:
            await ingest_source(recorder, f"{kind}:{_write(tmp_path, name, lines)}", repo)
        message = str(err.value)
        assert f"line {at + 1}" in message and fragment in message, (name, message)
        assert recorder.events == [], f"{name}: half a file was published"


async def test_events_file_with_bad_lines(tmp_path):
    demo = generate_demo("2026-W24", 7, "UTC")
    good = [make_fact(f).model_dump_json() for f in list(demo.facts)[:20]]
    first = json.loads(good[0])
    bad = {
        "malformed": (3, "{not json", "Invalid JSON"),
        "truncated": (20, good[5][: len(good[5]) // 2], "Invalid JSON"),
        "unknown-type": (
            7,
            json.dumps({**first, "type": "dev.repodigest.github.pull_request.vanished.v1"}),
            "unknown event type 'dev.repodigest.github.pull_request.vanished.v1'",
        ),
        "missing-field": (
            9,
            json.dumps({k: v for k, v in first.items() if k != "data"}),
            "data: Field required",
        ),
    }
    await _check_file_source("events", good, bad, tmp_path, None)


async def test_replay_history_with_bad_lines(tmp_path):
    path = require_shared_data("vllm-ascend-history", "merged_prs.jsonl")
    good = [line for line in path.read_text(encoding="utf-8").splitlines()[:30] if line.strip()]
    record = json.loads(good[0])
    bad = {
        "malformed": (2, "{'sha': 1}", "line 3 is not JSON"),
        "truncated": (30, good[4][:40], "is not JSON"),
        "not-an-object": (5, "[]", "not a JSON object"),
        "missing-field": (
            11,
            json.dumps({k: v for k, v in record.items() if k != "merged_at"}),
            "missing field(s) merged_at",
        ),
        "bad-time": (12, json.dumps({**record, "merged_at": "soon"}), "not an ISO 8601 time"),
    }
    await _check_file_source("replay", good, bad, tmp_path, None)


async def test_gharchive_with_bad_lines_and_event_types_that_are_not_facts(tmp_path):
    path = require_shared_data("gharchive", "2021-07-21-few-hours.json")
    lines = path.read_text(encoding="utf-8").splitlines()
    repos = gharchive_repos(enumerate(lines, 1))
    repo = repos.most_common(1)[0][0]
    mine = [line for line in lines if json.loads(line)["repo"]["name"] == repo]
    types = Counter(json.loads(line)["type"] for line in mine)
    assert len(mine) >= 2, types
    other_types = [
        line
        for line in lines
        if json.loads(line)["type"] in ("WatchEvent", "ForkEvent", "PushEvent")
    ][:5]
    good = mine + other_types  # event types that are not facts are part of any real hour
    pr_like = json.loads(mine[0])
    bad = {
        "malformed": (1, '{"id": "1", "type": ', "line 2 is not JSON"),
        "truncated": (len(good), mine[0][: len(mine[0]) // 3], "is not JSON"),
        "no-type": (
            1,
            json.dumps({k: v for k, v in pr_like.items() if k != "type"}),
            "not a GH Archive event",
        ),
    }
    await _check_file_source("gharchive", good, bad, tmp_path, repo)
    # the types that are not facts were skipped, not refused, and every fact is the repo's
    recorder = Recorder()
    await ingest_source(recorder, f"gharchive:{_write(tmp_path, 'mixed', good)}", repo)
    assert recorder.events and all(e.data.repo == repo for e in recorder.events)
