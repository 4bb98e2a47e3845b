"""Use cases of the renderer: render a window summary in every language and format, store, announce."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

from pydantic import ValidationError

from services.renderer.adapters import documents
from services.renderer.domain.keys import (
    artifact_key,
    entry_key,
    entry_keys,
    index_key,
    is_entry_key,
    merge_index,
    repo_prefix,
    split_entry,
)
from services.renderer.domain.narrator import Narrator
from services.renderer.ports import ObjectNotFound, ObjectStore, PdfEngine, StoredObject
from shared.answers import UnchangedRequest
from shared.events import Artifact, ReportReady, ReportReadyData, SummaryData, WindowSummarized
from shared.messaging import Poison
from shared.telemetry import meter, tracer

log = logging.getLogger("repodigest.renderer")

SUPPORTED = ("en", "zh-CN")

_tracer = tracer("renderer")
_render_seconds = meter("renderer").create_histogram(
    "repodigest.renderer.render.duration",
    unit="s",
    description="time to render one document, by format",
)


@contextlib.contextmanager
def _rendering(fmt: str, lang: str):
    start = time.perf_counter()
    with _tracer.start_as_current_span(
        f"renderer.render {fmt}", attributes={"repodigest.format": fmt, "repodigest.language": lang}
    ):
        yield
    _render_seconds.record(time.perf_counter() - start, {"format": fmt})


async def render_documents(
    data: SummaryData,
    lang: str,
    formats: tuple[str, ...],
    pdf: PdfEngine | None,
    narrator: Narrator | None = None,
) -> dict[str, bytes]:
    """The bytes of each requested format for one language (Markdown/HTML in a thread, PDF in a
    worker process). With a narrator, its verified prose replaces the template prose; a model
    that is down or slow leaves the template prose (the narrator answers why, never raises)."""
    out: dict[str, bytes] = {}
    html: str | None = None
    narration = None
    if narrator is not None:
        with _tracer.start_as_current_span(
            "renderer.narrate", attributes={"repodigest.language": lang}
        ) as span:
            narration = await narrator.narrate(data, lang)
            if narration is not None:
                span.set_attribute("repodigest.narrator.model", narration.model)
                span.set_attribute(
                    "repodigest.narrator.outcome",
                    "unavailable"
                    if narration.unavailable
                    else "cached"
                    if narration.cached
                    else "answered",
                )
    if "md" in formats:
        with _rendering("md", lang):
            out["md"] = (
                await asyncio.to_thread(documents.render_markdown, data, lang, narration)
            ).encode()
    if "html" in formats or "pdf" in formats:
        with _rendering("html", lang):
            html = await asyncio.to_thread(documents.render_html, data, lang, narration)
    if "html" in formats and html is not None:
        out["html"] = html.encode()
    if "pdf" in formats and html is not None:
        if pdf is None:
            raise RuntimeError("PDF requested but the renderer has no PDF engine")
        log.info(
            "rendering the PDF of %s %s r%d (%s)", data.repo, data.window.label, data.revision, lang
        )
        with _rendering("pdf", lang):
            out["pdf"] = await pdf.render(html)
    if "json" in formats:
        with _rendering("json", lang):
            prose = None if narration is None else documents.prose_report(data, lang, narration)
            out["json"] = documents.render_json(data, prose).encode()
    return out


READY_NAME = "report-ready.json"


# what `announced_artifacts` answers for a language whose entry this very summary wrote
_MINE = b"(this summary's own entry)"


async def announced_artifacts(
    store: ObjectStore, event: WindowSummarized, lang: str
) -> tuple[list[Artifact], bytes | None]:
    """The artifacts of this revision and language that a report-ready already announced (from
    another summary than this one), and that report-ready's bytes; ([], None) when none did.

    A redelivery of the very summary that wrote them is not an announcement: ([], _MINE); the
    retry completes what the first delivery left (see `finished_attempt`)."""
    data = event.data
    try:
        entry = json.loads(
            await store.get(entry_key(data.repo, data.window.label, data.revision, lang))
        )
    except (ObjectNotFound, ValueError):
        return [], None
    if entry.get("summary_id") == event.id:
        return [], _MINE
    try:
        ready = await store.get(
            artifact_key(data.repo, data.window.label, data.revision, lang, READY_NAME)
        )
    except ObjectNotFound:
        ready = None
    return [Artifact.model_validate(a) for a in entry.get("artifacts", [])], ready


async def render_report(
    event: WindowSummarized,
    store: ObjectStore,
    publish: Callable[[ReportReady], Awaitable[object]],
    pdf: PdfEngine | None,
    now: Callable[[], datetime],
    narrator: Narrator | None = None,
    reply: Callable[[ReportReady, bytes], Awaitable[object]] | None = None,
) -> ReportReady:
    """Render every language x format of a summary, put each artifact, update the repository's
    index, then publish one ReportReady that lists them all.

    A revision is immutable once announced: artifacts a report-ready of this revision already
    listed are never rendered or written again. When every artifact asked for exists, nothing is
    published; `reply` gets the report-ready that announced them (the requester's answer)."""
    data = event.data
    languages = tuple(dict.fromkeys(data.languages))
    formats = tuple(f for f in documents.FILE_NAMES if f in data.formats)
    if not languages:
        raise Poison(f"summary {event.id} asks for no language; expected some of {SUPPORTED}")
    if not formats:
        raise Poison(f"summary {event.id} asks for no format; expected some of md, html, pdf, json")
    existing: dict[str, dict[str, Artifact]] = {}
    earlier: dict[str, bytes | None] = {}
    for lang in languages:
        arts, earlier[lang] = await announced_artifacts(store, event, lang)
        existing[lang] = {a.format: a for a in arts if a.language == lang}
    finished = None
    if all(raw is _MINE for raw in earlier.values()):
        finished = await finished_attempt(store, event, languages, formats)
    if finished is not None:
        # a redelivery of a summary whose report was stored (e.g. the pages failed after the
        # report-ready): nothing is rendered again; the index is completed and the same
        # report-ready published again (same id: the stream keeps it once)
        await update_index(store, finished, languages)
        await publish(finished)
        return finished
    earlier = {lang: None if raw is _MINE else raw for lang, raw in earlier.items()}
    todo = {lang: tuple(f for f in formats if f not in existing[lang]) for lang in languages}
    if not any(todo.values()):
        ready, raw = _earlier_ready(event, existing, earlier, formats)
        log.info(
            "%s %s r%d was already reported: nothing rendered or published",
            data.repo,
            data.window.label,
            data.revision,
            extra={"repo": data.repo, "window": data.window.label, "revision": data.revision},
        )
        if reply is not None:
            await reply(ready, raw)
        return ready
    artifacts: list[Artifact] = []
    # languages render concurrently (PDFs on as many worker processes as configured)
    rendered = await asyncio.gather(
        *(
            render_documents(data, lang, todo[lang], pdf, narrator)
            for lang in languages
            if todo[lang]
        )
    )
    rendered_by = dict(zip([lang for lang in languages if todo[lang]], rendered))
    # every put uses a deterministic key: a failed attempt leaves objects that the retry simply
    # overwrites, and no ReportReady is published until every artifact and the index are written
    for lang in languages:
        docs = rendered_by.get(lang, {})
        if not todo[lang]:
            artifacts += [existing[lang][f] for f in formats]
            continue
        schema_uri = None
        if "json" in formats and "json" not in todo[lang]:
            schema_uri = existing[lang]["json"].schema_uri
        elif "json" in formats:
            key = artifact_key(
                data.repo, data.window.label, data.revision, lang, documents.SCHEMA_NAME
            )
            schema = await store.put(
                key, documents.summary_schema().encode(), documents.CONTENT_TYPES["schema"]
            )
            schema_uri = schema.uri
        for fmt in formats:
            if fmt not in todo[lang]:
                artifacts.append(existing[lang][fmt])
                continue
            key = artifact_key(
                data.repo, data.window.label, data.revision, lang, documents.FILE_NAMES[fmt]
            )
            stored = await store.put(key, docs[fmt], documents.CONTENT_TYPES[fmt])
            artifacts.append(_artifact(stored, fmt, lang, schema_uri if fmt == "json" else None))
    ready = ReportReady.create(
        ReportReadyData(
            repo=data.repo,
            window=data.window,
            revision=data.revision,
            languages=languages,
            artifacts=tuple(artifacts),
            summary_id=event.id,
            changed_figures=data.changed_figures,
            rendered_at=now(),
            synthetic=data.synthetic,
            request_id=data.request_id,
        )
    )
    # kept beside the artifacts: a later request for this revision is answered with it
    for lang in languages:
        if todo[lang]:
            await store.put(
                artifact_key(data.repo, data.window.label, data.revision, lang, READY_NAME),
                ready.to_bytes(),
                "application/json",
            )
    await update_index(store, ready, tuple(lang for lang in languages if todo[lang]))
    await publish(ready)
    log.info(
        "rendered %s %s r%d: %d artifacts",
        data.repo,
        data.window.label,
        data.revision,
        len(artifacts),
        extra={"repo": data.repo, "window": data.window.label, "revision": data.revision},
    )
    return ready


async def finished_attempt(
    store: ObjectStore,
    event: WindowSummarized,
    languages: tuple[str, ...],
    formats: tuple[str, ...],
) -> ReportReady | None:
    """The report-ready an earlier delivery of this very summary stored beside its artifacts,
    when it rendered every language and format asked for: it is written after the last
    artifact, so those are complete. None otherwise (then the report is rendered)."""
    data = event.data
    raws = set()
    for lang in languages:
        try:
            raws.add(
                await store.get(
                    artifact_key(data.repo, data.window.label, data.revision, lang, READY_NAME)
                )
            )
        except ObjectNotFound:
            return None
    if len(raws) != 1:
        return None
    try:
        ready = ReportReady.model_validate_json(raws.pop())
    except ValidationError:
        return None
    have = {(a.language, a.format) for a in ready.data.artifacts}
    if (
        ready.data.summary_id != event.id
        or not {(lang, f) for lang in languages for f in formats} <= have
    ):
        return None
    return ready


def _earlier_ready(
    event: WindowSummarized,
    existing: dict[str, dict[str, Artifact]],
    earlier: dict[str, bytes | None],
    formats: tuple[str, ...],
) -> tuple[ReportReady, bytes]:
    """The report-ready that announced every artifact asked for; when the languages were
    announced by different report-readies, one that lists them (not published: a reply)."""
    kept = {raw for raw in earlier.values() if raw is not None}
    if len(kept) == 1 and None not in earlier.values():
        raw = kept.pop()
        ready = ReportReady.model_validate_json(raw)
        wanted = {(f, lang) for lang in existing for f in formats}
        if wanted <= {(a.format, a.language) for a in ready.data.artifacts}:
            return ready, raw  # as published, byte for byte
    data = event.data
    artifacts = tuple(existing[lang][f] for lang in existing for f in formats)
    ready = ReportReady.create(
        ReportReadyData(
            repo=data.repo,
            window=data.window,
            revision=data.revision,
            languages=tuple(existing),
            artifacts=artifacts,
            summary_id=event.id,
            changed_figures=data.changed_figures,
            rendered_at=data.generated_at,
            synthetic=data.synthetic,
            request_id=data.request_id,
        )
    )
    return ready, ready.to_bytes()


async def answer_unchanged(store: ObjectStore, ask: UnchangedRequest) -> bytes | None:
    """The report-ready that answers a repeated request for an unchanged revision, as announced
    (byte for byte when one report-ready announced every language and format asked for), or None
    when something asked for was not announced yet: then the summary is published and rendered
    as usual (shared/answers.py)."""
    formats = tuple(f for f in documents.FILE_NAMES if f in ask.formats)
    languages = tuple(dict.fromkeys(ask.languages))
    if not formats or not languages:
        return None
    readies: dict[str, bytes] = {}
    artifacts: list[Artifact] = []
    for lang in languages:
        try:
            entry = json.loads(
                await store.get(entry_key(ask.repo, ask.window_label, ask.revision, lang))
            )
            raw = await store.get(
                artifact_key(ask.repo, ask.window_label, ask.revision, lang, READY_NAME)
            )
        except (ObjectNotFound, ValueError):
            return None
        have = {
            a["format"]: Artifact.model_validate(a)
            for a in entry.get("artifacts", [])
            if a.get("language") == lang
        }
        if any(f not in have for f in formats):
            return None
        readies[lang] = raw
        artifacts += [have[f] for f in formats]
    wanted = {(f, lang) for lang in languages for f in formats}
    for raw in dict.fromkeys(readies.values()):
        ready = ReportReady.model_validate_json(raw)
        if wanted <= {(a.format, a.language) for a in ready.data.artifacts}:
            return raw  # one report-ready announced them all: as published
    # the languages were announced by different report-readies: one that lists them (a reply)
    first = ReportReady.model_validate_json(readies[languages[0]])
    return ReportReady.create(
        first.data.model_copy(
            update={
                "languages": languages,
                "artifacts": tuple(artifacts),
                "request_id": ask.request_id,
            }
        )
    ).to_bytes()


def _artifact(stored: StoredObject, fmt: str, lang: str, schema_uri: str | None) -> Artifact:
    return Artifact(
        format=fmt,
        language=lang,
        uri=stored.uri,
        key=stored.key,
        size=stored.size,
        sha256=stored.sha256,
        content_type=stored.content_type,
        schema_uri=schema_uri,
    )


INDEX_ROUNDS = 8


def index_entry(ready: ReportReady) -> dict:
    d = ready.data
    return {
        "window": {
            "kind": d.window.kind,
            "label": d.window.label,
            "start": d.window.start.isoformat(),
            "end": d.window.end.isoformat(),
            "tz": d.window.tz,
        },
        "revision": d.revision,
        "languages": list(d.languages),
        "rendered_at": d.rendered_at.isoformat(),
        "synthetic": d.synthetic,
        "summary_id": d.summary_id,
        "report_id": ready.id,
        "artifacts": [a.model_dump(mode="json") for a in d.artifacts],
    }


def _dumps(obj: dict | None) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()


async def update_index(
    store: ObjectStore, ready: ReportReady, languages: tuple[str, ...] | None = None
) -> dict | None:
    """Add this report to `reports/<owner>/<repo>/index.json` (newest window first).

    Renderer replicas may finish reports of one repository at the same instant, and no store
    here offers a lock, so the index is rebuilt rather than edited: each report first writes its
    entry objects (`.../r<rev>/<lang>/index-entry.json`, deterministic keys); a writer then merges
    the current index with its own entries, writes it, and lists the entries. If one is there
    that its index lacks, it merges and writes again. The last writer of the index always
    runs that check after its write, so it cannot leave out an entry written before it: the
    index converges to every report stored.
    """
    d = ready.data
    key = index_key(d.repo)
    prefix = repo_prefix(d.repo) + "/"
    # only the languages this report rendered: an announced language keeps its first entry
    mine = {
        entry_key(d.repo, d.window.label, d.revision, e["languages"][0]): e
        for e in split_entry(index_entry(ready))
        if languages is None or e["languages"][0] in languages
    }
    for ekey, entry in mine.items():
        await store.put(ekey, _dumps(entry), "application/json")
    # the entries of other reports are looked for after the write (listing a store is its
    # slowest call: the NATS object store lists the whole bucket): the common case lists once
    listed: set[str] = set()
    index: dict | None = {}  # None: no index yet and no entry to make one of
    for _ in range(INDEX_ROUNDS):
        try:
            current = json.loads(await store.get(key))
        except (ObjectNotFound, ValueError):
            current = None  # absent or unreadable: rebuilt from the entries
        have = entry_keys(current, d.repo)
        index = current
        for entry in mine.values():
            index = merge_index(index, d.repo, entry)
        for ekey in sorted(listed - have - set(mine)):
            try:
                index = merge_index(index, d.repo, json.loads(await store.get(ekey)))
            except (ObjectNotFound, ValueError, KeyError) as exc:
                log.warning("index entry %s is unreadable (%s); left out of the index", ekey, exc)
        await store.put(key, _dumps(index), "application/json")
        listed = {k for k in await store.list(prefix) if is_entry_key(k)}
        if listed <= entry_keys(index, d.repo):
            return index
    log.warning(
        "index of %s still changing after %d rounds; the next report completes it",
        d.repo,
        INDEX_ROUNDS,
        extra={"repo": d.repo},
    )
    return index
