"""The renderer service with a narrator configured the way an operator does it (REPODIGEST_NARRATOR_*
environment variables), on a real nats-server with the NATS object store: the report carries the
model's verified prose and its note, the answer is cached in the object store, and the API key
appears in no artifact, cached answer, event or log."""

from __future__ import annotations

import asyncio
import json
import logging

import nats
import pytest

from services.renderer.adapters.llm import CACHE_PREFIX, OpenAIChatNarrator, TemplateNarrator
from services.renderer.adapters.stores import fetch_uri, open_store
from services.renderer.app import build_narrator, build_service
from services.renderer.config import RendererSettings
from shared.config import CommonSettings
from shared.events import ReportReady, WindowSummarized
from shared.messaging import Subjects
from shared.service import Runtime
from tests.unit.renderer.samples import daily_summary

from .test_narrator_llm import API_KEY, MODEL, completion, good, llm  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(180)


async def test_service_narrates_from_environment_settings(
    nats_server,
    llm,  # noqa: F811 - the fixture imported above
    monkeypatch,
    caplog,
) -> None:
    caplog.set_level(logging.DEBUG)
    llm.answer = lambda lang, req: completion(good(lang))
    for name, value in (
        ("URL", llm.url),
        ("MODEL", MODEL),
        ("API_KEY", API_KEY),
        ("TIMEOUT", "10"),
        ("ATTEMPTS", "2"),
    ):
        monkeypatch.setenv(f"REPODIGEST_NARRATOR_{name}", value)
    settings = RendererSettings(nats_url=nats_server.url, artifacts_url="nats")
    assert API_KEY not in repr(settings) and API_KEY not in settings.model_dump_json()
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "renderer-test")
    service = build_service(settings, runtime)
    assert isinstance(service.narrator, OpenAIChatNarrator)
    runtime.add(service)
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    ready: asyncio.Queue = asyncio.Queue()

    async def on_ready(msg) -> None:
        await ready.put(msg.data)

    try:
        summary = daily_summary(formats=("md", "json"))
        await nc.subscribe(Subjects.report_ready(summary.repo), cb=on_ready)
        await runtime.bus("test").publish(
            WindowSummarized.create(summary), Subjects.summary_ready(summary.repo)
        )
        raw = await asyncio.wait_for(ready.get(), 120)
        report = ReportReady.model_validate_json(raw)
        by = {(a.language, a.format): a for a in report.data.artifacts}
        md = (await fetch_uri(by["en", "md"].uri, js)).decode()
        assert "Prose: model-written (test-model-7b, prompt v1)" in md
        assert "MoE dominated the day" in md
        assert (
            json.loads(await fetch_uri(by["zh-CN", "json"].uri, js))["prose"]["source"] == "model"
        )
        store = open_store("nats", js)
        cached = [k for k in await store.list(CACHE_PREFIX)]
        assert len(cached) == 2  # one answer per language
        texts = [await fetch_uri(a.uri, js) for a in report.data.artifacts]
        texts += [await store.get(k) for k in cached]
        assert all(API_KEY.encode() not in t for t in texts)
        assert API_KEY.encode() not in raw and API_KEY not in caplog.text
        assert len(llm.requests) == 2
    finally:
        await nc.close()
        await runtime.stop()


def test_without_a_url_the_templates_narrate(monkeypatch) -> None:
    monkeypatch.delenv("REPODIGEST_NARRATOR_URL", raising=False)
    assert isinstance(build_narrator(RendererSettings(), lambda: None), TemplateNarrator)


def test_a_url_without_a_model_is_a_clear_error(monkeypatch) -> None:
    settings = RendererSettings(narrator_url="http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match="REPODIGEST_NARRATOR_MODEL"):
        build_narrator(settings, lambda: None)
    with pytest.raises(ValueError, match="no narrator prompt narrate.v9.en.md"):
        build_narrator(
            RendererSettings(
                narrator_url="http://127.0.0.1:1/v1",
                narrator_model="m",
                narrator_prompt_version="v9",
            ),
            lambda: None,
        )
