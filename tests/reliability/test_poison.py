"""Hostile bytes on every consumer's subjects, between good input: the services keep running,
each bad message lands in RD_DEAD with a reason and its original bytes (or, when it happens to be
a valid event, is processed), and the good input around it makes its report.

Payloads are drawn with hypothesis (`hostile_payloads`): arbitrary bytes, invalid UTF-8, malformed
and truncated JSON, deep nesting, bodies near NATS's 1 MiB limit, valid envelopes with wrong types,
an event of another type than its subject says, replayed (redelivered) copies of good events.
REPODIGEST_RELIABILITY_FUZZ (default 100) payloads per subject family.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.classifier.app import build_service as build_classifier
from services.classifier.config import ClassifierSettings
from services.ingest.adapters.demo import generate_demo
from services.renderer.app import build_service as build_renderer
from services.renderer.config import RendererSettings
from services.summarizer.app import build_service as build_summarizer
from services.summarizer.config import SummarizerSettings
from shared.config import CommonSettings
from shared.events import (
    ENRICHED_EVENT_ADAPTER,
    GITHUB_EVENT_ADAPTER,
    ReportReady,
    ReportRequestData,
    ReportRequested,
    WindowRef,
    WindowSummarized,
    make_fact,
)
from shared.messaging import (
    DURABLE_CLASSIFIER,
    DURABLE_RENDERER,
    DURABLE_SUMMARIZER,
    DURABLE_SUMMARIZER_REQUESTS,
    Subjects,
)
from shared.service import Runtime

from .harness import JsPublisher, connect, dead_letters, settled, watch_acks

FUZZ = int(os.environ.get("REPODIGEST_RELIABILITY_FUZZ", "100"))
REPO = "fuzz-owner/fuzz-repo"


def _deep(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def hostile_payloads(good: list[bytes], n: int) -> list[tuple[str, bytes]]:
    """(kind, payload) drawn by hypothesis; `good` are valid events of the subject family."""
    json_values = st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=True)
        | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    )

    def wrong_types(draw_value, base: bytes) -> bytes:
        doc = json.loads(base)
        key = sorted(doc)[draw_value[0] % len(doc)]
        doc[key] = draw_value[1]
        # (not when `data` itself was replaced: setting the value inside itself makes a cycle)
        if (
            key != "data"
            and isinstance(doc.get("data"), dict)
            and doc["data"]
            and draw_value[0] % 2
        ):
            dkey = sorted(doc["data"])[draw_value[0] % len(doc["data"])]
            doc["data"][dkey] = json.loads(json.dumps(draw_value[1]))
        return json.dumps(doc).encode()

    strategy = st.one_of(
        st.tuples(st.just("bytes"), st.binary(max_size=300)),
        st.tuples(
            st.just("invalid-utf8"),
            st.binary(min_size=1, max_size=50).map(lambda b: b'{"id": "' + b"\xff\xfe" + b + b'"}'),
        ),
        st.tuples(st.just("json-not-event"), json_values.map(lambda v: json.dumps(v).encode())),
        st.tuples(
            st.just("truncated"),
            st.tuples(st.sampled_from(good), st.floats(0.05, 0.95)).map(
                lambda t: t[0][: int(len(t[0]) * t[1])]
            ),
        ),
        st.tuples(st.just("deep-nesting"), st.integers(200, 100_000).map(_deep)),
        st.tuples(
            st.just("huge"),
            st.integers(100_000, 900_000).map(
                lambda k: b'{"specversion": "1.0", "pad": "' + b"x" * k + b'"}'
            ),
        ),
        st.tuples(
            st.just("wrong-types"),
            st.tuples(st.tuples(st.integers(0, 1000), json_values), st.sampled_from(good)).map(
                lambda t: wrong_types(t[0], t[1])
            ),
        ),
    )
    out: list[tuple[str, bytes]] = []

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(item):
        out.append(item)

    collect()
    return out


async def test_hostile_input_on_every_consumer(nats_server, tmp_path):
    demo = generate_demo("2026-W24", seed=11)
    window = demo.window
    events = [
        e
        for e in (make_fact(f.model_copy(update={"repo": REPO})) for f in demo.facts)
        if window.contains(e.time)
    ][:300]
    facts = [e.data for e in events]
    common = CommonSettings(nats_url=nats_server.url)
    runtime = Runtime(common, "reliability-fuzz")
    classifier = runtime.add(
        build_classifier(ClassifierSettings(nats_url=nats_server.url), runtime)
    )
    summarizer = runtime.add(
        build_summarizer(
            SummarizerSettings(
                nats_url=nats_server.url, database_url=f"sqlite:///{tmp_path / 'p.db'}"
            ),
            runtime,
        )
    )
    renderer = runtime.add(build_renderer(RendererSettings(nats_url=nats_server.url), runtime))
    await runtime.start()
    nc, js = await connect(nats_server.url)
    ready: asyncio.Queue = asyncio.Queue()
    summaries: asyncio.Queue = asyncio.Queue()

    async def on_ready(msg) -> None:
        await ready.put(msg.data)

    async def on_summary(msg) -> None:
        await summaries.put(msg.data)

    await nc.subscribe(Subjects.report_ready(REPO), cb=on_ready)
    await nc.subscribe(Subjects.summary_ready(REPO), cb=on_summary)
    durables = (
        DURABLE_CLASSIFIER,
        DURABLE_SUMMARIZER,
        DURABLE_SUMMARIZER_REQUESTS,
        DURABLE_RENDERER,
    )
    acks = await watch_acks(nc, durables)  # every ack, nak and term from the first message on
    pub = JsPublisher(js)
    tried: dict[str, int] = {}
    sent: set[bytes] = set()
    undecodable: dict[str, int] = {}  # dead letters each service owes: what its decoder refuses
    decoders = {
        "github": ("classifier", GITHUB_EVENT_ADAPTER.validate_json),
        "enriched": ("summarizer", ENRICHED_EVENT_ADAPTER.validate_json),
        "summary.requested": ("summarizer", ReportRequested.model_validate_json),
        "summary.ready": ("renderer", WindowSummarized.model_validate_json),
    }

    async def hostile(subject: str, good: list[bytes]) -> None:
        for kind, payload in hostile_payloads(good, FUZZ):
            # another Nats-Msg-Id each time: JetStream must not drop a hostile copy as duplicate
            await pub.publish_raw(payload, subject, {"Nats-Msg-Id": uuid.uuid4().hex})
            tried[f"{subject.split('.')[1]}.{subject.split('.')[2]}:{kind}"] = (
                tried.get(f"{subject.split('.')[1]}.{subject.split('.')[2]}:{kind}", 0) + 1
            )
            sent.add(payload)
            family = subject.split(".")[1]
            family = f"summary.{subject.split('.')[2]}" if family == "summary" else family
            service, decode = decoders[family]
            try:
                decode(payload)
            except ValueError:
                undecodable[service] = undecodable.get(service, 0) + 1

    try:
        good_bytes = [e.to_bytes() for e in events[:20]]
        half = len(events) // 2
        for e in events[:half]:
            await pub.publish(e, Subjects.fact(e.data.kind, e.data.action, REPO))
        await hostile(Subjects.fact("pull_request", "merged", REPO), good_bytes)
        # replayed deliveries: the same good events again under new message ids
        for e in events[:50]:
            await pub.publish(
                e, Subjects.fact(e.data.kind, e.data.action, REPO), msg_id=uuid.uuid4().hex
            )
            tried["github:replayed"] = tried.get("github:replayed", 0) + 1
        await hostile(Subjects.enriched("issue", "opened", REPO), good_bytes)
        for e in events[half:]:
            await pub.publish(e, Subjects.fact(e.data.kind, e.data.action, REPO))
        from shared.events import SyncWatermark, WatermarkData

        await pub.publish(
            SyncWatermark.create(WatermarkData(repo=REPO, watermark=window.end)),
            Subjects.watermark(REPO),
        )
        request = ReportRequested.create(
            ReportRequestData(
                repo=REPO,
                window=WindowRef.of(window),
                as_of=window.end,
                formats=("md", "json"),
                synthetic=True,
            ),
            nonce=uuid.uuid4().hex,
            at=datetime.now(UTC),
        )
        await hostile(Subjects.report_requested(REPO), [request.to_bytes()])
        await hostile(Subjects.summary_ready(REPO), [request.to_bytes()])
        await pub.publish(request, Subjects.report_requested(REPO))

        async with asyncio.timeout(120):
            while True:
                got = ReportReady.model_validate_json(await ready.get())
                if got.data.request_id == request.id:
                    break

        await settled(js, acks, durables, 120, "every hostile message to be settled")
        dead = await dead_letters(js)
        total = sum(tried.values())
        print(
            f"\nfuzz: {total} hostile or replayed messages tried: "
            f"{dict(sorted(tried.items()))}; {len(dead)} dead-lettered"
        )
        by_service: dict[str, int] = {}
        for subject, headers, body in dead:
            assert headers.get("Rd-Dead-Reason"), f"a dead letter without a reason: {headers}"
            assert body in sent, "a dead letter lost its original bytes"
            by_service[subject] = by_service.get(subject, 0) + 1
        print(f"dead letters by service: {by_service}")
        hostile_count = total - tried["github:replayed"]
        # every message its decoder refuses is dead-lettered (a decodable one may be too, when
        # its handler finds it violates the contract); nothing else is
        for service, owed in undecodable.items():
            assert by_service.get(f"rd.dead.{service}", 0) >= owed > 0, service
        assert len(dead) <= hostile_count
        # the good input: every fact counted once (the replayed copies too), a report made
        assert got.data.artifacts
        summary = None
        while not summaries.empty():
            try:
                candidate = WindowSummarized.model_validate_json(summaries.get_nowait())
            except ValueError:
                continue  # one of the hostile messages on the subject
            if candidate.data.request_id == request.id:
                summary = candidate.data
        assert summary is not None and summary.facts_counted == len(events)
        merged = {f.item.number for f in facts if (f.kind, f.action) == ("pull_request", "merged")}
        assert summary.counts.merged_prs == len(merged)
        for consumer in (classifier.consumer, summarizer.fold_consumer, renderer.consumer):
            assert consumer.stats.retried == 0, consumer.stats.last_error
    finally:
        await nc.close()
        await runtime.stop()
