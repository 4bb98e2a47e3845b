"""The webhook endpoint served for real: a Runtime on the test's nats-server, the ingest state KV
and uvicorn on a free port (one helper for the tests that post to it)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from services.ingest.adapters.kv import KvIngestState
from services.ingest.adapters.webhooks import webhook_server
from shared.config import CommonSettings
from shared.service import Runtime


@contextlib.asynccontextmanager
async def served_webhook(nats_url: str, name: str, secret: str) -> AsyncIterator[tuple]:
    """(runtime, JetStream context, started webhook server); stopped in reverse order."""
    runtime = Runtime(CommonSettings(nats_url=nats_url), name)
    await runtime.start()
    try:
        js = runtime.js
        state = await KvIngestState.open(js)
        server = webhook_server(runtime.bus("ingest"), state, secret, host="127.0.0.1", port=0)
        await server.start()
        try:
            yield runtime, js, server
        finally:
            await server.stop()
    finally:
        await runtime.stop()
