"""The webhook endpoint under hypothesis-drawn hostile deliveries, between good ones: never a 5xx,
every bad delivery a 4xx (or an ignored 2xx for a well-formed event it does not read), replays
de-duplicated, and exactly the good deliveries' facts published.

GitHub's real example payloads (../shared/data/github-webhooks) are the good input and the seeds
of the mutations. REPODIGEST_RELIABILITY_WEBHOOK_FUZZ (default 300) examples, plus the regressions the fuzz
found (a body nested too deep for the parser; a signed comment whose `id` is a list).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import uuid
from collections import Counter
from datetime import datetime

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.ingest.adapters.webhooks import build_webhook_app
from services.ingest.domain.mapping import facts_from_webhook
from shared.events import make_fact
from tests.integration.ingest_github.test_github_webhooks import (
    DELIVERIES,
    SECRET,
    headers,
    payload_bytes,
)
from tests.webhook_signing import github_signature

EXAMPLES = int(os.environ.get("REPODIGEST_RELIABILITY_WEBHOOK_FUZZ", "300"))
MAX_BODY = 64 * 1024
PATH = "/webhooks/github"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3)
    ),
    max_leaves=10,
)


def mutate(doc, path: list[int], value):
    """Replace one value somewhere in `doc` (chosen by `path`) with `value`."""
    node = doc
    for step in path:
        children = (
            list(node.items())
            if isinstance(node, dict)
            else list(enumerate(node))
            if isinstance(node, list)
            else []
        )
        if not children:
            break
        key, child = children[step % len(children)]
        if not isinstance(child, (dict, list)) or not child:
            node[key] = value
            return doc
        node = child
    if isinstance(node, dict) and node:
        node[sorted(node)[0]] = value
    return doc


@st.composite
def deliveries(draw):
    event, name = draw(st.sampled_from(DELIVERIES))
    good = payload_bytes(event, name)
    kind = draw(
        st.sampled_from(
            [
                "good",
                "unsigned",
                "bad-signature",
                "signed-garbage",
                "signed-invalid-utf8",
                "signed-deep",
                "signed-not-object",
                "signed-wrong-types",
                "oversize",
                "replayed",
                "no-event",
                "form-garbage",
            ]
        )
    )
    body = good
    hdrs = headers(event, good)
    if kind == "unsigned":
        body = draw(st.binary(max_size=200)) if draw(st.booleans()) else good
        hdrs = headers(event, body)
        del hdrs["X-Hub-Signature-256"]
    elif kind == "bad-signature":
        hdrs = headers(
            event, good, secret=draw(st.text(min_size=1, max_size=20).filter(lambda s: s != SECRET))
        )
    elif kind == "signed-garbage":
        body = draw(st.binary(max_size=500))
    elif kind == "signed-invalid-utf8":
        body = b'{"action": "opened", "x": "' + draw(st.binary(min_size=1, max_size=20)) + b'\xff"}'
    elif kind == "signed-deep":
        depth = draw(st.integers(100, 30_000))
        body = (
            (b'{"a":' * depth + b"1" + b"}" * depth)
            if draw(st.booleans())
            else (b"[" * depth + b"]" * depth)
        )
    elif kind == "signed-not-object":
        body = json.dumps(draw(json_values.filter(lambda v: not isinstance(v, dict)))).encode()
    elif kind == "signed-wrong-types":
        doc = mutate(
            json.loads(good),
            draw(st.lists(st.integers(0, 50), min_size=1, max_size=6)),
            draw(json_values),
        )
        body = json.dumps(doc).encode()
    elif kind == "oversize":
        body = good + b" " * (MAX_BODY + draw(st.integers(1, 5 * MAX_BODY)) - len(good))
    elif kind == "no-event":
        del hdrs["X-GitHub-Event"]
    elif kind == "form-garbage":
        body = b"payload=" + draw(st.binary(max_size=100))
        hdrs["Content-Type"] = "application/x-www-form-urlencoded"
    if kind not in ("unsigned", "bad-signature"):
        hdrs["X-Hub-Signature-256"] = github_signature(SECRET.encode(), body)
    return kind, event, body, hdrs


def test_hostile_webhook_deliveries():
    tried: Counter = Counter()
    statuses: Counter = Counter()
    published: list = []
    expected: list[str] = []
    deliveries_seen: set[str] = set()

    async def publish(repo, facts) -> None:
        published.extend(make_fact(f).id for f in facts)

    app = build_webhook_app(SECRET, publish, max_body=MAX_BODY)

    async def post(body: bytes, hdrs: dict) -> httpx.Response:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
            base_url="http://hook",
        ) as client:
            return await client.post(PATH, content=body, headers=hdrs)

    @settings(
        max_examples=EXAMPLES, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(deliveries())
    def one(delivery):
        kind, event, body, hdrs = delivery
        tried[kind] += 1
        if kind == "replayed":
            # the same delivery twice (GitHub's redelivery): published once
            hdrs["X-GitHub-Delivery"] = str(uuid.uuid4())
            first = asyncio.run(post(body, hdrs))
            assert first.status_code == 202, first.text
            expected.extend(make_fact(f).id for f in facts_from_webhook(event, json.loads(body)))
        response = asyncio.run(post(body, hdrs))
        statuses[(kind, response.status_code)] += 1
        assert response.status_code < 500, (kind, response.status_code, response.text[:300])
        if kind == "good":
            assert response.status_code == 202, response.text
            expected.extend(make_fact(f).id for f in facts_from_webhook(event, json.loads(body)))
        elif kind == "replayed":
            assert response.status_code == 200 and response.json().get("duplicate")
        elif kind in ("unsigned", "bad-signature"):
            assert response.status_code == 401
        elif kind == "oversize":
            assert response.status_code == 413
        elif kind == "signed-wrong-types":
            # a mutation may leave a readable delivery: then it is published as a good one
            if response.status_code == 202 and "accepted" in response.json():
                expected.extend(
                    make_fact(f).id for f in facts_from_webhook(event, json.loads(body))
                )
            else:
                assert 400 <= response.status_code < 500 or response.status_code == 202
        else:
            assert 400 <= response.status_code < 500, (kind, response.status_code)
        deliveries_seen.add(hdrs.get("X-GitHub-Delivery", ""))

    one()
    # regressions the fuzz found (each was a 500): kept whatever hypothesis draws next time
    deep = b"[" * 30_000 + b"]" * 30_000  # under MAX_BODY, deeper than the parser goes
    comment = json.loads(payload_bytes("issue_comment", "created.payload.json"))
    comment["comment"]["id"] = []
    for kind, event, body, status in (
        ("regression-deep", "issues", deep, 400),
        ("regression-id-list", "issue_comment", json.dumps(comment).encode(), 422),
    ):
        tried[kind] += 1
        response = asyncio.run(post(body, headers(event, body)))
        assert response.status_code == status, (kind, response.status_code, response.text[:200])
    print(f"\nwebhook fuzz: {sum(tried.values())} deliveries tried: {dict(sorted(tried.items()))}")
    print(f"responses: {dict(sorted(statuses.items()))}")
    assert published == expected
    assert tried["good"] > 0 and sum(v for k, v in tried.items() if k != "good") > tried["good"]


# ------------------------------------------------------------ the served endpoint, over the wire
#
# The same endpoint as the ingest service runs it (uvicorn on a socket, facts published into a
# real nats-server, deliveries remembered in its KV bucket), with every header, integer, time and
# size drawn by hypothesis. After each hostile delivery a good one must be accepted and published:
# a hostile input may be refused (4xx) but never answered 5xx, never cost a later good delivery,
# never leave the service disconnected (issue 16: one crafted X-GitHub-Delivery closed the NATS
# connection for good).

WIRE_EXAMPLES = int(os.environ.get("REPODIGEST_RELIABILITY_WEBHOOK_WIRE_FUZZ", "300"))
WIRE_MAX_BODY = 3 * 1024 * 1024  # above NATS's 1 MB max_payload: facts too large for the log

# header values a client can send (no CR, LF or NUL: HTTP itself refuses those)
header_text = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=300)
hostile_delivery = st.one_of(
    header_text,
    st.just("ä" * 700),
    st.integers(1, 12_000).map(lambda n: "a" * n),
    st.uuids().map(lambda u: str(u) + "x"),
    st.uuids().map(lambda u: str(u).replace("-", "")),
    st.just("72d3162e-cc78-11e3-81ab-4c9367dc095>"),
    st.none(),
)
hostile_event = st.one_of(
    header_text,
    st.integers(65, 12_000).map(lambda n: "e" * n),
    st.sampled_from(["issues.>", "pull_request*", "Issues", "ping ", "_"]),
    st.none(),
)
integers = st.one_of(
    st.integers(),
    st.integers(-(2**80), 2**80),
    st.sampled_from([0, -1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1]),
)
number_literals = st.one_of(
    integers.map(str),
    st.sampled_from(
        ["1e400", "-1e400", "1.5", "1e18", "-0.0", "1E308", "123456789012345678901234567890e10"]
    ),
)
times = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)).map(
        lambda t: t.isoformat() + "Z"
    ),
    st.sampled_from(
        [
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "1969-12-31T23:59:59Z",
            "2200-01-01T00:00:01Z",
            "2026-02-30T00:00:00Z",
            "yesterday",
            "",
            "2026-06-01T00:00:00+14:00",
            "2026-06-01T00:00:00-12:00",
        ]
    ),
    header_text,
)
INT_FIELDS = (
    ("number",),
    ("id",),
    ("user", "id"),
    ("comments",),
    ("additions",),
    ("deletions",),
    ("changed_files",),
)
TIME_FIELDS = ("created_at", "updated_at", "closed_at", "merged_at")


def _item(doc: dict) -> dict:
    return doc.get("pull_request") or doc.get("issue") or {}


@st.composite
def wire_deliveries(draw):
    """(kind, event, body, headers) with one thing of a real delivery made hostile."""
    event, name = draw(st.sampled_from(DELIVERIES))
    doc = json.loads(payload_bytes(event, name))
    kind = draw(
        st.sampled_from(
            [
                "delivery-header",
                "event-header",
                "extra-header",
                "content-type",
                "integer",
                "time",
                "title-size",
                "body-size",
                "nested-time",
            ]
        )
    )
    hdrs = headers(event, b"")
    literal = None
    if kind == "integer":
        path = draw(st.sampled_from(INT_FIELDS))
        target = _item(doc)
        for key in path[:-1]:
            target = target.get(key) or {}
        # a placeholder replaced in the text: json.dumps cannot write 1e400
        target[path[-1]] = "@@NUMBER@@"
        literal = draw(number_literals)
    elif kind == "time":
        _item(doc)[draw(st.sampled_from(TIME_FIELDS))] = draw(times)
    elif kind == "nested-time":
        for holder in ("comment", "review"):
            if holder in doc:
                doc[holder]["created_at" if holder == "comment" else "submitted_at"] = draw(times)
    elif kind == "title-size":
        _item(doc)["title"] = draw(st.sampled_from(["t", "ä", "\u202e", "😀"])) * draw(
            st.one_of(st.integers(0, 5000), st.integers(500_000, 1_400_000))
        )
    body = json.dumps(doc).encode()
    if literal is not None:
        body = body.replace(b'"@@NUMBER@@"', literal.encode(), 1)
    if kind == "body-size":
        body = body + b" " * draw(
            st.one_of(
                st.integers(0, 1000),
                st.integers(WIRE_MAX_BODY - len(body) - 10, WIRE_MAX_BODY + 10_000),
            )
        )
    hdrs = headers(event, body)
    if kind == "delivery-header":
        value = draw(hostile_delivery)
        if value is None:
            del hdrs["X-GitHub-Delivery"]
        else:
            hdrs["X-GitHub-Delivery"] = value
    elif kind == "event-header":
        value = draw(hostile_event)
        if value is None:
            del hdrs["X-GitHub-Event"]
        else:
            hdrs["X-GitHub-Event"] = value
    elif kind == "extra-header":
        hdrs[draw(st.sampled_from(["X-Pad", "traceparent", "Nats-Msg-Id", "X-GitHub-Hook-ID"]))] = (
            draw(header_text) + "z" * draw(st.integers(0, 20_000))
        )
    elif kind == "content-type":
        hdrs["Content-Type"] = draw(
            st.one_of(
                header_text,
                st.sampled_from(
                    [
                        "application/x-www-form-urlencoded",
                        "text/plain",
                        "application/json; charset=latin-1",
                    ]
                ),
            )
        )
    return kind, event, body, hdrs


class ServedEndpoint:
    """nats-server, a runtime and the served webhook endpoint on a loop of their own (a thread),
    so that hypothesis's synchronous examples talk to it over real sockets."""

    def __init__(self, store) -> None:
        import threading

        self.store = store
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def call(self, coro, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def __enter__(self) -> ServedEndpoint:
        self.thread.start()
        self.call(self._start())
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.call(self._stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(30)

    async def _start(self) -> None:
        from services.ingest.adapters.kv import KvIngestState
        from services.ingest.adapters.webhooks import webhook_server
        from shared.config import CommonSettings
        from shared.natsserver import EmbeddedNats
        from shared.service import Runtime

        self.nats = EmbeddedNats(store_dir=self.store)
        await self.nats.start()
        self.runtime = Runtime(CommonSettings(nats_url=self.nats.url), "webhook-wire-fuzz")
        await self.runtime.start()
        state = await KvIngestState.open(self.runtime.js)
        self.server = webhook_server(
            self.runtime.bus("ingest"),
            state,
            SECRET,
            host="127.0.0.1",
            port=0,
            max_body=WIRE_MAX_BODY,
        )
        await self.server.start()

    async def _stop(self) -> None:
        await self.server.stop()
        await self.runtime.stop()
        await self.nats.stop()

    async def _stored_ids(self) -> list[str]:
        from shared.events import GITHUB_EVENT_ADAPTER
        from shared.messaging import STREAM_GITHUB

        js = self.runtime.js
        info = await js.stream_info(STREAM_GITHUB)
        if not info.state.messages:
            return []
        return [
            GITHUB_EVENT_ADAPTER.validate_json((await js.get_msg(STREAM_GITHUB, s)).data).id
            for s in range(info.state.first_seq, info.state.last_seq + 1)
        ]

    def stored_ids(self) -> list[str]:
        return self.call(self._stored_ids())

    def connected(self) -> bool:
        conn = self.runtime.nc
        return bool(
            conn.is_connected and not conn.is_closed and not self.runtime.connection_lost.is_set()
        )


def test_hostile_headers_integers_times_and_sizes_over_the_wire(tmp_path):
    tried: Counter = Counter()
    statuses: Counter = Counter()
    expected: set[str] = set()
    good_number = [100_000]

    def accepted_ids(event: str, body: bytes) -> list[str]:
        return [make_fact(f).id for f in facts_from_webhook(event, json.loads(body))]

    def good_delivery(client: httpx.Client) -> None:
        # a fresh item each time: its fact is new, so losing it would show
        good_number[0] += 1
        doc = json.loads(payload_bytes("issues", "opened.payload.json"))
        doc["issue"]["number"] = good_number[0]
        body = json.dumps(doc).encode()
        r = client.post(PATH, content=body, headers=headers("issues", body))
        assert r.status_code == 202 and r.json()["accepted"] == 1, r.text[:300]
        expected.update(accepted_ids("issues", body))

    with (
        ServedEndpoint(tmp_path / "nats") as served,
        httpx.Client(base_url=f"http://127.0.0.1:{served.server.port}", timeout=60) as client,
    ):

        @settings(
            max_examples=WIRE_EXAMPLES,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(wire_deliveries())
        def one(delivery):
            kind, event, body, hdrs = delivery
            tried[kind] += 1
            # HTTP strips white space around a value; h11 will not send a value it would strip
            hdrs = {k: v.strip(" \t") for k, v in hdrs.items()}
            raw = [(k.encode(), v.encode("utf-8")) for k, v in hdrs.items()]
            try:
                response = client.post(PATH, content=body, headers=raw)
            except httpx.LocalProtocolError:
                tried["unsendable (refused by the client)"] += 1
                good_delivery(client)
                return
            status = response.status_code
            statuses[(kind, status)] += 1
            assert status < 500, (kind, status, response.text[:300])
            if status == 202 and "accepted" in response.text:
                expected.update(accepted_ids(hdrs["X-GitHub-Event"], body))
            elif status not in (200, 202):
                assert 400 <= status < 500, (kind, status)
            if kind in ("delivery-header", "event-header") and status != 400:
                # only what GitHub itself could send gets past the header check
                assert re.fullmatch(
                    r"[0-9a-fA-F-]{36}", hdrs.get("X-GitHub-Delivery", "")
                ) and re.fullmatch(r"[a-z][a-z0-9_]{0,63}", hdrs.get("X-GitHub-Event", "")), (
                    kind,
                    status,
                )
            if kind == "body-size" and len(body) > WIRE_MAX_BODY:
                assert status == 413
            good_delivery(client)

        one()
        assert served.connected(), "the service was left disconnected from NATS"
        stored = served.stored_ids()
    print(
        f"\nwebhook wire fuzz: {sum(tried.values())} deliveries tried: "
        f"{dict(sorted(tried.items()))}"
    )
    print(f"responses: {dict(sorted(statuses.items()))}")
    # every accepted fact is in the stream once, and nothing else is
    assert len(stored) == len(set(stored)) and set(stored) == expected
    assert statuses and any(s == 400 for (_, s) in statuses)
