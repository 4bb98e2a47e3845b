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
import uuid
from collections import Counter

import httpx
from hypothesis import HealthCheck, given, settings, strategies as st

from services.ingest.adapters.webhooks import build_webhook_app, signature_of
from services.ingest.domain.mapping import facts_from_webhook
from shared.events import make_fact
from tests.integration.ingest_github.test_github_webhooks import (
    DELIVERIES, SECRET, headers, payload_bytes,
)

EXAMPLES = int(os.environ.get("REPODIGEST_RELIABILITY_WEBHOOK_FUZZ", "300"))
MAX_BODY = 64 * 1024
PATH = "/webhooks/github"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=3),
    max_leaves=10)


def mutate(doc, path: list[int], value):
    """Replace one value somewhere in `doc` (chosen by `path`) with `value`."""
    node = doc
    for step in path:
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) \
            if isinstance(node, list) else []
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
    kind = draw(st.sampled_from(["good", "unsigned", "bad-signature", "signed-garbage",
                                 "signed-invalid-utf8", "signed-deep", "signed-not-object",
                                 "signed-wrong-types", "oversize", "replayed", "no-event",
                                 "form-garbage"]))
    body = good
    hdrs = headers(event, good)
    if kind == "unsigned":
        body = draw(st.binary(max_size=200)) if draw(st.booleans()) else good
        hdrs = headers(event, body)
        del hdrs["X-Hub-Signature-256"]
    elif kind == "bad-signature":
        hdrs = headers(event, good, secret=draw(st.text(min_size=1, max_size=20).filter(
            lambda s: s != SECRET)))
    elif kind == "signed-garbage":
        body = draw(st.binary(max_size=500))
    elif kind == "signed-invalid-utf8":
        body = b'{"action": "opened", "x": "' + draw(st.binary(min_size=1, max_size=20)) + b'\xff"}'
    elif kind == "signed-deep":
        depth = draw(st.integers(100, 30_000))
        body = (b'{"a":' * depth + b"1" + b"}" * depth) if draw(st.booleans()) else (
            b"[" * depth + b"]" * depth)
    elif kind == "signed-not-object":
        body = json.dumps(draw(json_values.filter(lambda v: not isinstance(v, dict)))).encode()
    elif kind == "signed-wrong-types":
        doc = mutate(json.loads(good), draw(st.lists(st.integers(0, 50), min_size=1, max_size=6)),
                     draw(json_values))
        body = json.dumps(doc).encode()
    elif kind == "oversize":
        body = good + b" " * (MAX_BODY + draw(st.integers(1, 5 * MAX_BODY)) - len(good))
    elif kind == "no-event":
        del hdrs["X-GitHub-Event"]
    elif kind == "form-garbage":
        body = b"payload=" + draw(st.binary(max_size=100))
        hdrs["Content-Type"] = "application/x-www-form-urlencoded"
    if kind not in ("unsigned", "bad-signature"):
        hdrs["X-Hub-Signature-256"] = signature_of(SECRET.encode(), body)
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
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                                     base_url="http://hook") as client:
            return await client.post(PATH, content=body, headers=hdrs)

    @settings(max_examples=EXAMPLES, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
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
                expected.extend(make_fact(f).id for f in facts_from_webhook(event, json.loads(body)))
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
    for kind, event, body, status in (("regression-deep", "issues", deep, 400),
                                      ("regression-id-list", "issue_comment",
                                       json.dumps(comment).encode(), 422)):
        tried[kind] += 1
        response = asyncio.run(post(body, headers(event, body)))
        assert response.status_code == status, (kind, response.status_code, response.text[:200])
    print(f"\nwebhook fuzz: {sum(tried.values())} deliveries tried: {dict(sorted(tried.items()))}")
    print(f"responses: {dict(sorted(statuses.items()))}")
    assert published == expected
    assert tried["good"] > 0 and sum(v for k, v in tried.items() if k != "good") > tried["good"]
