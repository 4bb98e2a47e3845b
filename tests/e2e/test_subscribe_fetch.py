"""`repodigest subscribe` and `repodigest fetch` as a person runs them, on a real nats-server."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
from datetime import UTC, datetime

import nats

import shared.events as ev
from services.renderer.adapters.stores import open_store
from shared.config import CommonSettings
from shared.messaging import Bus, Subjects, ensure_topology
from shared.service import Runtime

CLI = [sys.executable, "-m", "repodigest"]
REPO = "acme/widgets"


async def run(*args: str, timeout: float = 60) -> tuple[int, bytes, str]:
    proc = await asyncio.create_subprocess_exec(
        *CLI,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ},
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out, err.decode(errors="replace")


async def test_fetch_downloads_an_artifact_and_explains_a_missing_one(nats_server, tmp_path):
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    await ensure_topology(js, consumers=())
    data = "# report\n\n合并 PR 103\n".encode() * 500
    stored = await open_store("nats", js).put(
        "reports/acme/widgets/2026-W24/r1/en/report.md", data, "text/markdown"
    )
    await nc.close()

    target = tmp_path / "report.md"
    code, _, err = await run("fetch", stored.uri, "-o", str(target), "--nats-url", nats_server.url)
    assert code == 0, err
    assert hashlib.sha256(target.read_bytes()).hexdigest() == stored.sha256

    code, _, err = await run("fetch", stored.uri.replace("r1", "r9"), "--nats-url", nats_server.url)
    assert code == 1 and "does not exist" in err and "Traceback" not in err


async def test_subscribe_prints_report_ready_events_as_json_lines(nats_server):
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "test")
    await runtime.start()
    try:
        bus = Bus(runtime, "renderer")
        window = ev.WindowRef(
            kind="week",
            label="2026-W24",
            start=datetime(2026, 6, 8, tzinfo=UTC),
            end=datetime(2026, 6, 15, tzinfo=UTC),
        )
        sent = []
        for repo, revision in ((REPO, 1), ("other/repo", 1), (REPO, 2)):
            ready = ev.ReportReady.create(
                ev.ReportReadyData(
                    repo=repo,
                    window=window,
                    revision=revision,
                    languages=("en",),
                    artifacts=(),
                    summary_id=f"s{revision}",
                    rendered_at=datetime.now(UTC),
                )
            )
            await bus.publish(ready, Subjects.report_ready(repo))
            sent.append(ready)
    finally:
        await runtime.stop()

    code, out, err = await run(
        "subscribe", REPO, "--history", "--count", "2", "--nats-url", nats_server.url
    )
    assert code == 0, err
    lines = [json.loads(line) for line in out.decode().splitlines()]
    assert [line["id"] for line in lines] == [sent[0].id, sent[2].id]  # only this repository

    code, _, err = await run("subscribe", "not a repo", "--nats-url", nats_server.url)
    assert code == 2 and "OWNER/NAME" in err
