"""The narrator against a real OpenAI-compatible HTTP server (scripted per test): good prose is
published (golden output in en and zh-CN), an invented number or a wrong PR number is replaced by
template text, malformed JSON, a 500 and a hang leave the template prose, and every report says
which. The API key never reaches an artifact or a log; the cache makes a re-render send nothing."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pydantic import SecretStr

from services.renderer.adapters import documents
from services.renderer.adapters.llm import ChatOptions, OpenAIChatNarrator, StoreNarrationCache
from services.renderer.adapters.stores import DirectoryObjectStore
from services.renderer.handlers import render_report
from shared.events import ReportReady, WindowSummarized
from shared.natsserver import free_port
from tests.unit.renderer.samples import daily_summary

pytestmark = pytest.mark.timeout(120)

GOLDEN = Path(__file__).parents[2] / "unit" / "renderer" / "golden" / "narrator"
API_KEY = "sk-narrator-TEST-5f3c9e1d7a"
MODEL = "test-model-7b"

Answer = Callable[[str, dict], tuple[int, object]]  # (lang, request) -> (status, body | "hang")


class ScriptedModel:
    """An OpenAI-compatible `/v1/chat/completions` on a free port; answers come from `answer`."""

    def __init__(self) -> None:
        self.answer: Answer = lambda lang, req: (500, {"error": {"message": "no script"}})
        self.requests: list[dict] = []
        self.release = threading.Event()  # ends hanging answers at teardown
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                lang = "zh-CN" if "简体中文" in body["messages"][0]["content"] else "en"
                with model.lock:
                    model.requests.append(
                        {
                            "path": self.path,
                            "lang": lang,
                            "body": body,
                            "authorization": self.headers.get("Authorization"),
                        }
                    )
                status, payload = model.answer(lang, body)
                if payload == "hang":
                    model.release.wait(60)
                    return
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # a port of its own
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def completion(content: str) -> tuple[int, dict]:
    return 200, {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
    }


def good(lang: str) -> str:
    return (GOLDEN / f"answer.{lang}.json").read_text(encoding="utf-8")


@pytest.fixture
def llm():
    model = ScriptedModel()
    model.thread.start()
    yield model
    model.release.set()
    model.server.shutdown()
    model.server.server_close()


def narrator(llm: ScriptedModel, store, **kw) -> OpenAIChatNarrator:
    options = dict(
        url=llm.url,
        model=MODEL,
        api_key=SecretStr(API_KEY),
        timeout=5.0,
        deadline=20.0,
        attempts=3,
        backoff=0.01,
    )
    options.update(kw)
    return OpenAIChatNarrator(ChatOptions(**options), StoreNarrationCache(lambda: store))


async def render(store, narr) -> tuple[ReportReady, dict[tuple[str, str], str]]:
    """One report (md, html, json in en and zh-CN) through the renderer's use case; the narrator
    is closed afterwards, as the renderer does when it stops."""
    published: list[ReportReady] = []

    async def publish(event: ReportReady) -> None:
        published.append(event)

    summary = daily_summary(formats=("md", "html", "json"))
    try:
        ready = await asyncio.wait_for(
            render_report(
                WindowSummarized.create(summary),
                store,
                publish,
                None,
                lambda: summary.generated_at,
                narr,
            ),
            60,
        )
    finally:
        await narr.close()
    assert published == [ready]
    docs = {(a.language, a.format): (await store.get(a.key)).decode() for a in ready.data.artifacts}
    return ready, docs


def all_stored_text(root: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file()
    )


async def test_good_prose_is_published_as_golden_and_cached(llm, tmp_path, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    llm.answer = lambda lang, req: completion(good(lang))
    store = DirectoryObjectStore(tmp_path / "store")
    narr = narrator(llm, store)
    ready, docs = await render(store, narr)
    assert len(llm.requests) == 2  # one per language
    for lang in ("en", "zh-CN"):
        assert docs[(lang, "md")] == (GOLDEN / f"daily.{lang}.md").read_text(encoding="utf-8")
        prose = json.loads(docs[(lang, "json")])["prose"]
        assert prose["source"] == "model" and prose["model"] == MODEL
        assert prose["prompt_version"] == "v1" and not prose["replaced"] and not prose["cached"]
    assert "model-written (test-model-7b, prompt v1)" in docs[("en", "html")]
    # what the model was sent: the structured summary as JSON, the versioned prompt, JSON mode
    req = llm.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["body"]["model"] == MODEL
    assert json.loads(req["body"]["messages"][1]["content"])["counts"]["merged_prs"] == 41
    assert req["body"]["response_format"] == {"type": "json_object"}
    assert {r["authorization"] for r in llm.requests} == {f"Bearer {API_KEY}"}
    # the API key is sent in the header only: never in a body, an artifact, the cache or a log
    assert all(API_KEY not in json.dumps(r["body"]) for r in llm.requests)
    assert API_KEY not in all_stored_text(tmp_path / "store")
    assert API_KEY not in ready.model_dump_json() and API_KEY not in caplog.text
    assert API_KEY not in repr(narr.o)

    # a re-render (a redelivery of a delivery that failed before its report-ready was stored,
    # another replica: a new client on the same store) asks nothing
    for stored in (tmp_path / "store").rglob("report-ready.json"):
        stored.unlink()
    again = narrator(llm, store)
    ready2, docs2 = await render(store, again)
    assert len(llm.requests) == 2 and again.requests == 0
    assert docs2[("en", "md")] == docs[("en", "md")]
    assert json.loads(docs2[("zh-CN", "json")])["prose"]["cached"] is True


async def test_an_invented_number_is_replaced_by_template_text(llm, tmp_path) -> None:
    def answer(lang: str, req: dict):
        data = json.loads(good(lang))
        data["lead"] = (
            "MoE dominated the day with 26 items. The team merged 42 PRs."
            if lang == "en"
            else "今天的重心在 MoE，相关条目 26 个。本窗口合并了 42 个 PR。"
        )
        return completion(json.dumps(data, ensure_ascii=False))

    llm.answer = answer
    store = DirectoryObjectStore(tmp_path / "store")
    narr = narrator(llm, store)
    _, docs = await render(store, narr)
    plain_lead = documents.view_for(daily_summary(), "en").lead
    assert f"MoE dominated the day with 26 items. {plain_lead}" in docs[("en", "md")]
    assert "42" not in docs[("en", "md")].split("> Prose")[1].split("\n## ")[0].replace(
        "invented number 42", ""
    )
    assert "1 sentence replaced by template text: invented number 42" in docs[("en", "md")]
    assert "虚构的数字 42" in docs[("zh-CN", "md")]
    prose = json.loads(docs[("en", "json")])["prose"]
    assert prose["source"] == "mixed"
    assert [(c["part"], c["check"], c["value"]) for c in prose["replaced"]] == [
        ("lead", "invented_number", "42")
    ]
    # the rest of the model's prose stayed (the daily layout shows the lead; the other parts are
    # kept for the sections a weekly report has)
    assert set(prose["model_parts"]) - {"lead"}


async def test_a_wrong_pr_number_is_replaced_by_template_text(llm, tmp_path) -> None:
    def answer(lang: str, req: dict):
        data = json.loads(good(lang))
        data["themes"][0]["text"] = "The MoE rework landed in #41185. It matters for DeepEP."
        return completion(json.dumps(data, ensure_ascii=False))

    llm.answer = answer
    store = DirectoryObjectStore(tmp_path / "store")
    narr = narrator(llm, store)
    _, docs = await render(store, narr)
    md = docs[("en", "md")]
    # the daily layout (seed 003) has no theme sections: the replaced sentence is reported, and
    # the unknown number appears nowhere but in that note
    assert "#41185" not in md.replace("unknown reference #41185", "")
    assert "unknown reference #41185" in md
    prose = json.loads(docs[("en", "json")])["prose"]
    assert prose["replaced"][0]["part"] == "themes.moe"
    assert prose["replaced"][0]["check"] == "unknown_reference"


@pytest.mark.parametrize(
    "script, attempts, reason, code, zh",
    [
        (
            lambda lang, req: completion("Sure! Here is your report: {lead: 'MoE'}"),
            1,
            "malformed answer: the answer is not JSON",
            "malformed",
            "模型的回答格式不正确",
        ),
        (
            lambda lang, req: (200, {"unexpected": True}),
            1,
            "malformed answer: the answer is not a chat completion",
            "malformed",
            "模型的回答格式不正确",
        ),
        (
            lambda lang, req: (500, {"error": {"message": "CUDA out of memory"}}),
            3,
            "the model server answered HTTP 500",
            "server_error",
            "模型服务出错",
        ),
        (
            lambda lang, req: (401, {"error": {"message": "invalid api key"}}),
            1,
            "the model server refused the request: HTTP 401; check",
            "refused",
            "模型服务拒绝了请求",
        ),
        (
            lambda lang, req: (200, "hang"),
            2,
            "no answer within 0.5 s",
            "timeout",
            "模型未在时限内回答",
        ),
    ],
    ids=["malformed-json", "not-a-completion", "http-500", "http-401", "hang"],
)
async def test_a_failing_model_never_fails_the_report(
    llm, tmp_path, caplog, script, attempts, reason, code, zh
) -> None:
    caplog.set_level(logging.DEBUG)
    llm.answer = script
    store = DirectoryObjectStore(tmp_path / "store")
    # a hang costs timeout x attempts: two attempts keep the test short
    narr = narrator(llm, store, timeout=0.5, attempts=2 if reason.startswith("no answer") else 3)
    ready, docs = await render(store, narr)
    assert len(llm.requests) == attempts * 2  # per language; only transient failures retried
    plain = documents.render_markdown(daily_summary(formats=("md", "html", "json")), "en")
    md = docs[("en", "md")]
    # template prose throughout, and the report says why
    assert (
        md.replace(next(ln for ln in md.splitlines() if ln.startswith("> Prose")) + "\n\n", "")
        == plain
    )
    assert f"the model ({MODEL}, prompt v1) was not used: {reason}" in md
    assert f"未采用模型（{MODEL}，提示词 v1）的输出：{zh}（{reason}" in docs[("zh-CN", "md")]
    prose = json.loads(docs[("en", "json")])["prose"]
    assert prose["source"] == "template" and prose["unavailable"].startswith(reason)
    assert prose["unavailable_code"] == code
    assert len(ready.data.artifacts) == 6
    assert API_KEY not in caplog.text and API_KEY not in all_stored_text(tmp_path / "store")
    # nothing was cached: the next render asks again
    assert not list((tmp_path / "store").rglob("narrator-cache/*"))


@pytest.mark.parametrize(
    "status, reason",
    [
        (400, "the model server refused the request: HTTP 400; check REPODIGEST_NARRATOR_URL"),
        (401, "the model server refused the request: HTTP 401; check REPODIGEST_NARRATOR_URL"),
        (403, "the model server refused the request: HTTP 403; check REPODIGEST_NARRATOR_URL"),
        (500, "the model server answered HTTP 500"),
        (200, "malformed answer: the answer repeats the API key"),
    ],
)
async def test_a_server_echoing_the_key_never_puts_it_anywhere(
    llm, tmp_path, caplog, status, reason
) -> None:
    """A server that quotes the request back (its Authorization header) in its error text or its
    answer: the report says a fixed reason; no artifact and no log record holds the key."""
    caplog.set_level(logging.DEBUG)

    def echo(lang: str, req: dict) -> tuple[int, object]:
        auth = llm.requests[-1]["authorization"]
        text = f"rejected request with header Authorization: {auth}"
        if status == 200:
            return completion(
                json.dumps(
                    {"lead": text, "highlights": [], "themes": [], "risks": [], "follow_ups": []}
                )
            )
        return status, {"error": {"message": text[:200]}}

    llm.answer = echo
    store = DirectoryObjectStore(tmp_path / "store")
    ready, docs = await render(store, narrator(llm, store, attempts=2))
    assert API_KEY in llm.requests[0]["authorization"]  # the server did see (and echo) it
    prose = json.loads(docs[("en", "json")])["prose"]
    assert prose["source"] == "template" and prose["unavailable"].startswith(reason)
    assert reason in docs[("en", "md")]
    assert len(ready.data.artifacts) == 6
    assert API_KEY not in all_stored_text(tmp_path / "store")
    assert not [r for r in caplog.records if API_KEY in r.getMessage()]
    assert "Authorization" not in all_stored_text(tmp_path / "store") + caplog.text


async def test_a_prompt_over_the_token_budget_is_not_sent(llm, tmp_path) -> None:
    store = DirectoryObjectStore(tmp_path / "store")
    narr = narrator(llm, store, token_budget=3000, max_tokens=2048)
    _, docs = await render(store, narr)
    assert llm.requests == []
    prose = json.loads(docs[("en", "json")])["prose"]
    assert prose["source"] == "template" and "over the token budget" in prose["unavailable"]
    assert "budget 3000" in prose["unavailable"] and prose["unavailable_code"] == "over_budget"
    assert "提示词超出 token 预算" in docs[("zh-CN", "md")]


async def test_an_unreachable_server_leaves_template_prose(tmp_path) -> None:
    store = DirectoryObjectStore(tmp_path / "store")
    narr = OpenAIChatNarrator(
        ChatOptions(
            url=f"http://127.0.0.1:{free_port()}/v1",
            model=MODEL,
            api_key=SecretStr(API_KEY),
            timeout=2.0,
            attempts=2,
            backoff=0.01,
        ),
        StoreNarrationCache(lambda: store),
    )
    ready, docs = await render(store, narr)
    assert narr.requests == 2 * 2  # retried once per language
    prose = json.loads(docs[("en", "json")])["prose"]
    assert prose["unavailable_code"] == "unreachable"
    assert "cannot reach the model server (ConnectError)" in docs[("en", "md")]
    assert len(ready.data.artifacts) == 6
