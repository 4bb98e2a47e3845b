"""What a consumer outside repodigest sees on the wire (issue 17): every event says it is a
structured CloudEvent in its `content-type` header (RD_REPORTS once carried an empty one) and
names its committed JSON Schema as `dataschema`; a dead letter says its bytes are opaque."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import nats
from nats.js.api import DeliverPolicy

import shared.events as ev
from shared.config import CommonSettings
from shared.events.schema import SCHEMA_DIR
from shared.messaging import STREAM_DEAD, STREAM_GITHUB, STREAM_REPORTS, Subjects
from shared.service import Runtime

REPO = "acme/headers"
T0 = datetime(2026, 6, 8, tzinfo=UTC)


def committed_id(event_type: str) -> str:
    return json.loads((SCHEMA_DIR / f"{event_type}.json").read_text(encoding="utf-8"))["$id"]


def report_ready() -> ev.ReportReady:
    return ev.ReportReady.create(
        ev.ReportReadyData.model_validate(
            {
                "repo": REPO,
                "window": {
                    "kind": "week",
                    "label": "2026-W24",
                    "tz": "UTC",
                    "start": "2026-06-08T00:00:00Z",
                    "end": "2026-06-15T00:00:00Z",
                },
                "revision": 1,
                "languages": ["en"],
                "rendered_at": T0,
                "artifacts": [],
                "summary_id": "s1",
            }
        )
    )


def fact() -> ev.GithubFact:
    item = ev.ItemSnapshot(
        repo=REPO,
        number=1,
        kind="pull_request",
        title="PR 1",
        author=ev.Actor(login="dev"),
        state="open",
        created_at=T0,
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="opened", item=item))


async def last_message(nc, stream: str, subject: str):
    sub = await nc.jetstream().pull_subscribe(
        subject, stream=stream, config=nats.js.api.ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
    )
    (msg,) = await sub.fetch(1, timeout=5)
    return msg


async def test_published_events_are_structured_cloudevents_naming_their_schema(nats_server):
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "test")
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    try:
        bus = runtime.bus("test")
        ready, opened = report_ready(), fact()
        await bus.publish(ready, Subjects.report_ready(REPO))  # RD_REPORTS, through FastStream
        await bus.publish_many([(opened, Subjects.fact("pull_request", "opened", REPO), None)])
        await bus.dead_letter(
            b"\xff not json",
            ev.DeadLetter(
                service="test",
                reason="not json",
                subject="rd.github.x",
                stream=STREAM_GITHUB,
                sequence=1,
                deliveries=1,
                failed_at=T0,
            ),
        )

        for stream, subject, event in (
            (STREAM_REPORTS, Subjects.report_ready(REPO), ready),
            (STREAM_GITHUB, Subjects.fact("pull_request", "opened", REPO), opened),
        ):
            msg = await last_message(nc, stream, subject)
            assert msg.headers["content-type"] == "application/cloudevents+json", subject
            assert msg.headers["Ce-Type"] == event.type and msg.headers["Nats-Msg-Id"] == event.id
            body = json.loads(msg.data)
            assert body["dataschema"] == committed_id(event.type), subject
            assert body["datacontenttype"] == "application/json"

        dead = await last_message(nc, STREAM_DEAD, Subjects.dead("test"))
        assert dead.data == b"\xff not json"
        assert dead.headers["content-type"] == "application/octet-stream"
    finally:
        await nc.close()
        await runtime.stop()
