"""The renderer on a real nats-server: WindowSummarized in on RD_REPORTS, ReportReady out, with
artifacts whose bytes read back from the object store match their SHA-256; an index per repository;
a summary that asks for nothing dead-lettered with its reason."""

from __future__ import annotations

import asyncio
import hashlib
import json

import nats
import pytest

from services.renderer.adapters.stores import fetch_uri, open_store
from services.renderer.app import build_service, s3_options
from services.renderer.config import RendererSettings
from shared.config import CommonSettings
from shared.events import ReportReady, WindowSummarized
from shared.events.dead import DeadLetter
from shared.messaging import STREAM_DEAD, Subjects
from shared.service import Runtime
from tests.unit.renderer.samples import daily_summary, weekly_summary

pytestmark = pytest.mark.timeout(240)


async def _next(queue: asyncio.Queue, timeout: float = 150.0):
    return await asyncio.wait_for(queue.get(), timeout)


@pytest.mark.parametrize("artifacts", ["nats", "s3", "directory"])
async def test_summary_in_report_ready_out(
    nats_server, tmp_path, artifacts: str, request, monkeypatch
) -> None:
    s3 = {}
    if artifacts == "nats":
        url = "nats"
    elif artifacts == "s3":
        endpoint, bucket = request.getfixturevalue("s3_bucket")
        url = f"s3://{bucket}/rd"
        # the endpoint and credentials as an operator would set them (settings, not the URL)
        s3 = {
            "s3_endpoint_url": endpoint,
            "s3_region": "us-east-1",
            "s3_access_key_id": "testing",
            "s3_secret_access_key": "testing",
        }
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)  # for fetch_uri's s3:// reads
    else:
        url = str(tmp_path / "reports-dir")
    settings = RendererSettings(nats_url=nats_server.url, artifacts_url=url, **s3)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "renderer-test")
    runtime.add(build_service(settings, runtime))
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    ready: asyncio.Queue = asyncio.Queue()

    async def on_ready(msg) -> None:
        await ready.put(ReportReady.model_validate_json(msg.data))

    try:
        summary = daily_summary()
        await nc.subscribe(Subjects.report_ready(summary.repo), cb=on_ready)
        event = WindowSummarized.create(summary)
        await runtime.bus("test").publish(event, Subjects.summary_ready(summary.repo))

        report: ReportReady = await _next(ready)
        d = report.data
        assert d.summary_id == event.id and d.request_id == summary.request_id
        assert d.revision == summary.revision and d.languages == ("en", "zh-CN")
        assert {(a.language, a.format) for a in d.artifacts} == {
            (lang, fmt) for lang in ("en", "zh-CN") for fmt in ("md", "html", "pdf", "json")
        }
        for a in d.artifacts:
            data = await fetch_uri(a.uri, js)
            assert hashlib.sha256(data).hexdigest() == a.sha256 and len(data) == a.size, a.key
            assert a.key == (
                f"reports/vllm-project/vllm/2026-03-26/r2/{a.language}/report.{a.format}"
            )
        by = {(a.language, a.format): a for a in d.artifacts}
        zh_md = (await fetch_uri(by["zh-CN", "md"].uri, js)).decode()
        assert "开发动态报告" in zh_md and str(summary.counts.new_prs) in zh_md
        assert (await fetch_uri(by["en", "pdf"].uri, js)).startswith(b"%PDF-")
        assert json.loads(await fetch_uri(by["en", "json"].uri, js))["counts"]["merged_prs"] == 41
        if artifacts == "nats":
            assert by["en", "md"].uri.startswith("nats://RD_ARTIFACTS/reports/")
        elif artifacts == "s3":
            assert by["en", "md"].uri.startswith(f"{url}/reports/")
        else:
            assert by["en", "md"].uri.startswith("file://")

        store = open_store(url, js, s3=s3_options(settings))
        schema = json.loads(
            await store.get("reports/vllm-project/vllm/2026-03-26/r2/en/report.schema.json")
        )
        assert "counts" in schema["properties"]
        # the JSON artifact names its schema; the other formats have none
        assert json.loads(await fetch_uri(by["en", "json"].schema_uri, js)) == schema
        assert by["en", "json"].schema_uri.endswith("/en/report.schema.json")
        assert all(a.schema_uri is None for a in d.artifacts if a.format != "json")

        # a second window of the same repository: the index lists both, newest first
        weekly = weekly_summary(languages=("en",), formats=("md",))
        await runtime.bus("test").publish(
            WindowSummarized.create(weekly), Subjects.summary_ready(weekly.repo)
        )
        second = await _next(ready)
        assert [a.format for a in second.data.artifacts] == ["md"]
        index = json.loads(await store.get("reports/vllm-project/vllm/index.json"))
        assert [(r["window"]["label"], r["revision"]) for r in index["reports"]] == [
            ("2026-W24", 1),
            ("2026-03-26", 2),
        ]
        assert {a["sha256"] for a in index["reports"][1]["artifacts"]} == {
            a.sha256 for a in d.artifacts
        }
    finally:
        await nc.close()
        await runtime.stop()


async def test_summary_asking_for_nothing_is_dead_lettered(nats_server, tmp_path) -> None:
    settings = RendererSettings(nats_url=nats_server.url, artifacts_url=str(tmp_path / "out"))
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "renderer-test")
    runtime.add(build_service(settings, runtime))
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        summary = daily_summary(formats=())
        await runtime.bus("test").publish(
            WindowSummarized.create(summary), Subjects.summary_ready(summary.repo)
        )
        sub = await js.pull_subscribe("rd.dead.>", stream=STREAM_DEAD)
        msgs = []
        for _ in range(30):
            try:
                msgs = await sub.fetch(1, timeout=2.0)
                break
            except nats.errors.TimeoutError:
                continue
        assert msgs, "nothing was dead-lettered"
        letter = DeadLetter.from_headers(msgs[0].headers)
        assert letter.service == "renderer" and "no format" in letter.reason
        assert WindowSummarized.model_validate_json(msgs[0].data).data.formats == ()
    finally:
        await nc.close()
        await runtime.stop()


async def test_python_m_services_renderer_runs_renders_and_drains(nats_server, tmp_path) -> None:
    """The deployable process: `python -m services.renderer` renders a PDF through its spawned
    worker pool (which must not re-run the service) and exits 0 on SIGTERM."""
    import os
    import signal
    import sys

    out = tmp_path / "artifacts"
    env = {
        **os.environ,
        "REPODIGEST_NATS_URL": nats_server.url,
        "REPODIGEST_ARTIFACTS_URL": str(out),
        "REPODIGEST_LOG_LEVEL": "INFO",
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.renderer",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    nc = await nats.connect(nats_server.url)
    ready: asyncio.Queue = asyncio.Queue()
    seen: list[str] = []

    async def on_ready(msg) -> None:
        await ready.put(ReportReady.model_validate_json(msg.data))

    async def until_started() -> None:
        while True:
            line = (await proc.stdout.readline()).decode(errors="replace")
            if not line:
                raise AssertionError("renderer exited before starting:\n" + "".join(seen))
            seen.append(line)
            if "started renderer" in line:
                return

    try:
        summary = weekly_summary(languages=("zh-CN",), formats=("pdf",))
        await nc.subscribe(Subjects.report_ready(summary.repo), cb=on_ready)
        await asyncio.wait_for(until_started(), 60)
        event = WindowSummarized.create(summary)
        await nc.jetstream().publish(
            Subjects.summary_ready(summary.repo),
            event.to_bytes(),
            headers={"Nats-Msg-Id": event.id},
        )
        report = await _next(ready)
        (artifact,) = report.data.artifacts
        data = (out / artifact.key).read_bytes()
        assert data.startswith(b"%PDF-") and hashlib.sha256(data).hexdigest() == artifact.sha256
    finally:
        await nc.close()
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 60)
        log = "".join(seen) + (await proc.stdout.read()).decode(errors="replace")
    assert code == 0, log[-3000:]
    assert log.count("started renderer") == 1, log[-3000:]  # the worker did not start a service
