"""The webhook signature against oracles that do not come from the code under test.

- GitHub's published known answer ("Validating webhook deliveries", "Testing the webhook payload
  validation"): secret "It's a Secret to Everybody", payload "Hello, World!", X-Hub-Signature-256
  sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17. The served endpoint must
  let exactly that header through (it then refuses the body as not JSON: 400, not 401), and the
  tests' own signer (tests/webhook_signing.py) must produce it.
- The comparison in constant time (README: "checked ... in constant time"): the endpoint is seen
  calling `hmac.compare_digest` with the header it was given, and no `==` / `!=` in the module
  touches a signature (a structural check: `given == expected` is the mistake GitHub warns about).
"""

from __future__ import annotations

import ast
import contextlib
import hmac
import inspect
import json
import uuid

import httpx

from services.ingest.adapters import webhooks
from services.ingest.adapters.webhooks import WebhookServer, build_webhook_app, signature_of
from tests.webhook_signing import github_signature

# GitHub's documented test values, verbatim
DOC_SECRET = "It's a Secret to Everybody"
DOC_PAYLOAD = b"Hello, World!"
DOC_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
PATH = "/webhooks/github"


@contextlib.asynccontextmanager
async def served(secret: str):
    published: list = []

    async def publish(repo, facts):
        published.extend(facts)

    server = WebhookServer(build_webhook_app(secret, publish), "127.0.0.1", 0)
    await server.start()
    try:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", timeout=10
        ) as client:
            yield client, published
    finally:
        await server.stop()


def headers(signature: str | None, event: str = "ping") -> dict:
    out = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "Content-Type": "application/json",
    }
    if signature is not None:
        out["X-Hub-Signature-256"] = signature
    return out


def test_the_tests_signer_gives_githubs_documented_signature():
    assert github_signature(DOC_SECRET, DOC_PAYLOAD) == DOC_SIGNATURE


def test_the_endpoints_signature_is_githubs_documented_one():
    assert signature_of(DOC_SECRET.encode(), DOC_PAYLOAD) == DOC_SIGNATURE


async def test_the_endpoint_lets_githubs_documented_signature_through():
    async with served(DOC_SECRET) as (client, published):
        # the documented signature passes; the body is then refused for not being JSON
        r = await client.post(PATH, content=DOC_PAYLOAD, headers=headers(DOC_SIGNATURE))
        assert r.status_code == 400, r.text
        assert "not JSON" in r.json()["error"]
        # one hex digit off, no prefix, or none at all: refused as unsigned before the body counts
        wrong = DOC_SIGNATURE[:-1] + ("6" if DOC_SIGNATURE[-1] != "6" else "7")
        for bad in (wrong, DOC_SIGNATURE.removeprefix("sha256="), None):
            r = await client.post(PATH, content=DOC_PAYLOAD, headers=headers(bad))
            assert r.status_code == 401, (bad, r.text)
        # a JSON ping signed by GitHub's recipe (not by the code's helper) is accepted
        ping = json.dumps({"zen": "Design for failure.", "hook_id": 1}).encode()
        r = await client.post(
            PATH, content=ping, headers=headers(github_signature(DOC_SECRET, ping))
        )
        assert r.status_code == 200, r.text
        assert published == []  # a ping carries no fact


async def test_the_endpoint_compares_signatures_with_compare_digest(monkeypatch):
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def observed(a, b):
        as_bytes = [x.encode() if isinstance(x, str) else bytes(x) for x in (a, b)]
        calls.append((as_bytes[0], as_bytes[1]))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", observed)
    wrong = "sha256=" + "0" * 64
    async with served(DOC_SECRET) as (client, _published):
        r = await client.post(PATH, content=DOC_PAYLOAD, headers=headers(wrong))
        assert r.status_code == 401, r.text
        r = await client.post(PATH, content=DOC_PAYLOAD, headers=headers(DOC_SIGNATURE))
        assert r.status_code == 400, r.text
    pairs = {frozenset(pair) for pair in calls}
    assert frozenset({wrong.encode(), DOC_SIGNATURE.encode()}) in pairs, calls
    assert frozenset({DOC_SIGNATURE.encode()}) in pairs, calls  # equal values: one-element set


def _signature_names(tree: ast.AST) -> set[str]:
    """Names bound (anywhere in the module) to a signature: the header's value, `signature_of`
    or an HMAC digest, or to something computed from another such name."""

    def tainted(node: ast.AST, names: set[str]) -> bool:
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Constant)
                and isinstance(sub.value, str)
                and "signature-256" in sub.value.lower()
            ):
                return True
            if isinstance(sub, ast.Call):
                func = sub.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in ("signature_of", "hexdigest", "digest"):
                    return True
            if isinstance(sub, ast.Name) and sub.id in names:
                return True
        return False

    names: set[str] = set()
    while True:
        before = len(names)
        for node in ast.walk(tree):
            if (
                isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
                and node.value is not None
                and tainted(node.value, names)
            ):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if len(names) == before:
            return names


def test_no_signature_is_compared_with_equality_operators():
    """GitHub: "Never use a plain == operator"; `==` on str/bytes returns at the first difference."""
    tree = ast.parse(inspect.getsource(webhooks))
    names = _signature_names(tree)
    assert names, "the structural check found no signature at all"

    def mentions_signature(node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in names:
                return True
            if isinstance(sub, ast.Call):
                func = sub.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in ("signature_of", "hexdigest", "digest"):
                    return True
        return False

    offending = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)
        and mentions_signature(node)
    ]
    assert not offending, f"signatures compared with ==/!= (not constant time): {offending}"
    # and the comparison that is made is hmac.compare_digest, over a signature
    digests = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compare_digest"
        and any(mentions_signature(arg) for arg in node.args)
    ]
    assert digests, "no hmac.compare_digest over the signature"
