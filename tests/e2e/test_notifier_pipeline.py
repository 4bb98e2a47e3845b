"""Renderer and notifier together on a real nats-server: a window summary in, the rendered
report's digest out at a webhook — the lead the renderer wrote into the HTML, the counts of its
JSON, and links to the artifacts the report-ready announced."""

from __future__ import annotations

import asyncio

import nats
import pytest

from services.notifier.app import build_service as build_notifier
from services.notifier.config import NotifierSettings
from services.notifier.domain.digest import lead_of
from services.renderer.adapters.stores import fetch_uri
from services.renderer.app import build_service as build_renderer
from services.renderer.config import RendererSettings
from shared.config import CommonSettings
from shared.events import ReportReady, WindowSummarized
from shared.messaging import Subjects
from shared.service import Runtime
from tests.integration.notifier.servers import WebhookReceiver
from tests.signals import signalled
from tests.unit.renderer.samples import daily_summary

pytestmark = pytest.mark.timeout(300)


async def test_a_rendered_report_reaches_a_webhook_as_its_digest(nats_server):
    receiver = await WebhookReceiver().start()
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "renderer+notifier")
    runtime.add(build_renderer(RendererSettings(nats_url=nats_server.url), runtime))
    notifier = build_notifier(
        NotifierSettings(
            nats_url=nats_server.url,
            notifier_public_base_url="https://reports.example.org",
            notifier_routes=[
                {
                    "name": "team",
                    "kind": "slack",
                    "windows": ["day"],
                    "url": f"{receiver.base_url}/slack/T0/B0/hook-secret",
                }
            ],
        ),
        runtime,
    )
    runtime.add(notifier)
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    ready: asyncio.Queue = asyncio.Queue()

    async def on_ready(msg) -> None:
        await ready.put(ReportReady.model_validate_json(msg.data))

    try:
        summary = daily_summary(synthetic=False, languages=("en",), formats=("html", "pdf", "json"))
        await nc.subscribe(Subjects.report_ready(summary.repo), cb=on_ready)
        await runtime.bus("summarizer").publish(
            WindowSummarized.create(summary), Subjects.summary_ready(summary.repo)
        )
        report: ReportReady = await asyncio.wait_for(ready.get(), 240)

        # the receiver tells its waiters of each post it takes
        await signalled(
            receiver.wait_for(lambda: receiver.ok("slack"), 120), 60, "the digest at the webhook"
        )
        [post] = receiver.ok("slack")
        by = {a.format: a for a in report.data.artifacts}
        html = (await fetch_uri(by["html"].uri, nc.jetstream())).decode()
    finally:
        await nc.close()
        await runtime.stop()
        await receiver.stop()
    blocks = post.payload["blocks"]
    lead = lead_of(html)
    assert lead and blocks[1]["text"]["text"] == lead.replace("&", "&amp;").replace(
        "<", "&lt;"
    ).replace(">", "&gt;")
    assert f"*Merged PRs*\n{summary.counts.merged_prs}" in blocks[2]["fields"][3]["text"]
    links = blocks[-1]["elements"][0]["text"]
    assert f"<https://reports.example.org/{by['html'].key}|HTML>" in links
    assert f"<https://reports.example.org/{by['pdf'].key}|PDF>" in links
    assert notifier.consumer.stats.processed == 1
