"""Narrator adapters: the templates (default) and an OpenAI-compatible chat-completions client.

The client sends the structured summary (domain/narrator.py `narration_input`) with a versioned
prompt (`services/renderer/prompts/narrate.<version>.<lang>.md`) and parses the JSON answer. It
never fails a report: a model that is down, slow, over the token budget or answering malformed
JSON gives `Narration(unavailable=<why>)` and the report keeps its template prose and says so.

Answers are cached in the artifact store (`narrator-cache/<sha256>.json`), keyed by the hash of
the model's input (derived from the summary) + prompt version and text + model + language. The
artifact store is shared by every renderer replica and outlives restarts, so a re-render (a
redelivery, a replay, another replica) costs no request; only well-formed answers are cached
(a failure is retried on the next render), and they are re-verified each time they are used.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from pydantic import SecretStr
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from services.renderer.domain.narrator import (
    OUTPUT_SCHEMA,
    MalformedProse,
    Narration,
    NarrationCache,
    input_json,
    parse_model_prose,
)
from services.renderer.ports import ObjectNotFound, ObjectStore
from shared.events import SummaryData

log = logging.getLogger("repodigest.renderer.narrator")

PROMPTS = Path(__file__).resolve().parents[1] / "prompts"
CACHE_PREFIX = "narrator-cache/"


class PromptMissing(ValueError):
    pass


def load_prompt(version: str, lang: str) -> str:
    path = PROMPTS / f"narrate.{version}.{lang}.md"
    if not path.is_file():
        have = sorted(p.name for p in PROMPTS.glob("narrate.*.md"))
        raise PromptMissing(
            f"no narrator prompt {path.name} in {PROMPTS} (have: {', '.join(have)}); "
            "set REPODIGEST_NARRATOR_PROMPT_VERSION to one of them"
        )
    return path.read_text(encoding="utf-8")


_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """A conservative token count without the model's tokenizer: one per CJK character, one per
    three other characters (BPE tokenizers average about four for English and JSON)."""
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 2) // 3


class TemplateNarrator:
    """The default: the templates' prose, nothing to note."""

    async def narrate(self, summary: SummaryData, lang: str) -> Narration | None:
        return None

    async def close(self) -> None:
        return None


class StoreNarrationCache:
    """Model answers in the artifact store under `narrator-cache/` (shared by replicas)."""

    def __init__(self, store: Callable[[], ObjectStore]) -> None:
        self._store = store  # a callable: the NATS store exists only after connect

    async def get(self, key: str) -> str | None:
        try:
            return (await self._store().get(CACHE_PREFIX + key + ".json")).decode()
        except ObjectNotFound:
            return None

    async def put(self, key: str, content: str) -> None:
        await self._store().put(CACHE_PREFIX + key + ".json", content.encode(), "application/json")


@dataclass(frozen=True)
class ChatOptions:
    url: str  # base URL, e.g. http://vllm:8000/v1 (".../chat/completions" is appended)
    model: str
    api_key: SecretStr | None = None
    prompt_version: str = "v1"
    timeout: float = 30.0  # seconds per request
    deadline: float = 90.0  # seconds for all attempts together
    attempts: int = 3
    backoff: float = 1.0  # first wait between attempts (doubles, capped at 8x)
    max_tokens: int = 2048  # the answer's limit
    token_budget: int = 12000  # prompt + answer, per report and language
    temperature: float = 0.2
    json_mode: bool = True  # response_format json_object (vLLM, OpenAI, most servers)


class _Retryable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, (_Retryable, httpx.TimeoutException, httpx.TransportError))


def _code(exc: BaseException) -> str:
    if isinstance(exc, _Refused):
        return "refused"
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.TransportError):
        return "unreachable"
    return "server_error"


def _reason(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, (_Retryable, _Refused)):
        return exc.reason
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, httpx.TransportError):
        return f"cannot reach the model server ({type(exc).__name__})"
    return (
        f"the model server request failed ({type(exc).__name__})"  # its text may echo the request
    )


class OpenAIChatNarrator:
    """Prose from an OpenAI-compatible `/chat/completions` endpoint (vLLM, llama.cpp, OpenAI...)."""

    def __init__(
        self,
        options: ChatOptions,
        cache: NarrationCache | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.o = options
        self.cache = cache
        headers = {"Content-Type": "application/json"}
        self._key = options.api_key.get_secret_value() if options.api_key is not None else ""
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self._client = httpx.AsyncClient(
            base_url=options.url.rstrip("/") + "/",
            headers=headers,
            timeout=options.timeout,
            transport=transport,
        )
        self.requests = 0  # requests sent (cache hits send none)

    def cache_key(self, payload: str, prompt: str, lang: str) -> str:
        h = hashlib.sha256()
        for part in (
            payload,
            self.o.prompt_version,
            hashlib.sha256(prompt.encode()).hexdigest(),
            self.o.model,
            lang,
        ):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()

    def _narration(self, **kw) -> Narration:
        return Narration(model=self.o.model, prompt_version=self.o.prompt_version, **kw)

    async def narrate(self, summary: SummaryData, lang: str) -> Narration:
        try:
            prompt = load_prompt(self.o.prompt_version, lang)
        except PromptMissing as exc:
            log.warning("narrator skipped: %s", exc)
            return self._narration(
                unavailable=f"no prompt {self.o.prompt_version} for {lang}", code="no_prompt"
            )
        payload = input_json(summary)
        key = self.cache_key(payload, prompt, lang)
        cached = await self._cache_get(key)
        if cached is not None:
            try:
                prose = parse_model_prose(cached, self.o.model, self.o.prompt_version)
                return self._narration(prose=prose, cached=True)
            except MalformedProse:
                log.warning("cached narration %s is unreadable; asking the model again", key[:12])
        system = prompt.replace("{output_schema}", json.dumps(OUTPUT_SCHEMA, ensure_ascii=False))
        need = estimate_tokens(system) + estimate_tokens(payload) + self.o.max_tokens
        if need > self.o.token_budget:
            reason = (
                f"prompt over the token budget (about {need} tokens with the answer's "
                f"{self.o.max_tokens}; budget {self.o.token_budget}, "
                "REPODIGEST_NARRATOR_TOKEN_BUDGET)"
            )
            log.warning("narrator skipped for %s %s: %s", summary.repo, lang, reason)
            return self._narration(unavailable=reason, code="over_budget")
        body = {
            "model": self.o.model,
            "temperature": self.o.temperature,
            "max_tokens": self.o.max_tokens,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": payload},
            ],
        }
        if self.o.json_mode:
            body["response_format"] = {"type": "json_object"}
        try:
            async with asyncio.timeout(self.o.deadline):
                content = await self._complete(body)
            prose = parse_model_prose(content, self.o.model, self.o.prompt_version)
        except TimeoutError:
            reason, code = f"no answer within the {self.o.deadline:g} s deadline", "timeout"
        except MalformedProse as exc:
            reason, code = f"malformed answer: {exc}", "malformed"
        except (_Retryable, _Refused, httpx.HTTPError) as exc:
            reason, code = _reason(exc, self.o.timeout), _code(exc)
        else:
            await self._cache_put(key, content)
            return self._narration(prose=prose)
        log.warning(
            "narrator unavailable for %s %s (%s); template prose used",
            summary.repo,
            lang,
            reason,
            extra={"repo": summary.repo, "lang": lang},
        )
        return self._narration(unavailable=reason, code=code)

    async def _complete(self, body: dict) -> str:
        async for attempt in AsyncRetrying(
            stop=stop_after_attempt(self.o.attempts),
            wait=wait_exponential(multiplier=self.o.backoff, max=self.o.backoff * 8),
            retry=retry_if_exception(_retryable),
            reraise=True,
        ):
            with attempt:
                self.requests += 1
                response = await self._client.post("chat/completions", json=body)
                status = response.status_code
                if status == 429 or status >= 500:
                    raise _Retryable(f"the model server answered HTTP {status}")
                if status >= 400:
                    # never the server's own text: one that echoes the request (the API key in
                    # its Authorization header) would put it into every report and log
                    raise _Refused(
                        f"the model server refused the request: HTTP {status}; check "
                        "REPODIGEST_NARRATOR_URL, _MODEL and _API_KEY"
                    )
                try:
                    data = response.json()
                    content = data["choices"][0]["message"]["content"]
                except (ValueError, LookupError, TypeError):
                    raise MalformedProse("the answer is not a chat completion") from None
                if not isinstance(content, str):
                    raise MalformedProse("the completion has no text content")
                if self._key and self._key in content:
                    raise MalformedProse("the answer repeats the API key")
                return content
        raise AssertionError("unreachable")  # pragma: no cover - tenacity reraises

    async def _cache_get(self, key: str) -> str | None:
        if self.cache is None:
            return None
        try:
            return await self.cache.get(key)
        except Exception as exc:  # noqa: BLE001 - a cache outage costs a request, not a report
            log.warning("narrator cache unreadable (%s); asking the model", type(exc).__name__)
            return None

    async def _cache_put(self, key: str, content: str) -> None:
        if self.cache is None:
            return
        try:
            await self.cache.put(key, content)
        except Exception as exc:  # noqa: BLE001 - the answer is still used for this report
            log.warning("narrator cache not written (%s)", type(exc).__name__)

    async def close(self) -> None:
        await self._client.aclose()
