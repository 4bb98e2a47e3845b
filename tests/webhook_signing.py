"""How a test signs a webhook delivery: GitHub's recipe written out here (HMAC-SHA256 of the body,
keyed by the secret, hex, `sha256=` prefix), never the endpoint's own `signature_of` — a test that
signs with the code under test would pass with the code's mistake on both sides. The recipe is
pinned to GitHub's published known answer in
tests/integration/ingest_webhooks/test_webhook_signature.py."""

from __future__ import annotations

import hashlib
import hmac


def github_signature(secret: str | bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body` under `secret`."""
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, msg=body, digestmod=hashlib.sha256).hexdigest()
