"""Report latency: from the watermark that closes a week to report-ready, for 50, 256 and 1,000
merged PRs, per format, beside rendering the same summary directly (no bus, no store).

    .venv/bin/python -m bench.report_latency [--merged 50,256,1000] [--formats md,html,pdf,json]

The real summarizer and renderer run in this process on an embedded nats-server (SQLite
projections, the NATS object store for artifacts, one warmed PDF worker). For each size and
format, a repository of its own gets the week's enriched facts (each PR opened and merged inside
the week) and a report request for that format; once they are folded, the clock starts when the
watermark past the week's end is published (the summarizer and the renderer idle: the week folded,
its merged changes' per-item results worked out as the summarizer does while its fold rests, the
previous report's archive pages written) and stops when report-ready for that request
arrives; the window's summary arriving on the bus splits it into summarize and render+store.
One untimed report per format comes first (a running renderer has its templates compiled).
Baseline in the same run: `render_documents` on the very summary that came over the bus, in this
process, without bus or object store. Prints seconds; exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nats

from shared.config import CommonSettings
from shared.events import (
    ReportReady,
    ReportRequestData,
    ReportRequested,
    WindowRef,
    WindowSummarized,
)
from shared.messaging import (
    DURABLE_RENDERER,
    DURABLE_SUMMARIZER,
    STREAM_ENRICHED,
    STREAM_REPORTS,
    Subjects,
)
from shared.natsserver import EmbeddedNats
from shared.service import Runtime
from shared.windows import week_window
from tests.unit.summarizer.summarizer_builders import MODULES, PEOPLE, ItemSpec, Scenario, watermark

FORMATS = ("md", "html", "pdf", "json")
WARM_UP = 7  # merged PRs in the untimed first report of each format


def week_events(repo: str, merged: int, start: datetime) -> list:
    """`merged` pull requests opened and merged inside the week starting at `start`."""
    step = timedelta(days=6.5) / max(1, merged)
    items = [
        ItemSpec(
            number=i + 1,
            kind="pull_request",
            opened=start + step * i,
            merged=start + step * i + timedelta(hours=3),
            author=PEOPLE[i % len(PEOPLE)],
            modules=(MODULES[i % len(MODULES)],),
            additions=10 + i % 300,
            files=(f"vllm/{MODULES[i % len(MODULES)]}/file{i % 40}.py",),
            title=f"[{MODULES[i % len(MODULES)]}] change number {i}",
        )
        for i in range(merged)
    ]
    return Scenario(repo=repo, items=items).events()


async def until_idle(js, warmer=None) -> None:
    """The week's facts folded (and the merged changes' per-item results worked out, which the
    summarizer does while its fold rests: `warmer`), and the renderer done with the previous
    run's report (its archive pages are written after its report-ready): the clock starts on an
    idle pipeline."""
    for stream, durable in (
        (STREAM_ENRICHED, DURABLE_SUMMARIZER),
        (STREAM_REPORTS, DURABLE_RENDERER),
    ):
        while True:
            info = await js.consumer_info(stream, durable)
            if info.num_pending == 0 and info.num_ack_pending == 0:
                break
            await asyncio.sleep(0.05)  # polling a server state, not waiting for a result of ours
    if warmer is not None:
        await asyncio.wait_for(warmer.idle.wait(), 60)


async def one(js, nc, merged: int, fmt: str, week, pdf, warmer=None) -> tuple[float, float, float]:
    """(close -> summary, close -> report-ready, baseline render) seconds for one size and format."""
    from services.renderer.handlers import render_documents

    repo = f"bench-org/latency-{merged}-{fmt}"
    summaries: asyncio.Queue = asyncio.Queue()
    ready: asyncio.Queue = asyncio.Queue()

    async def on_summary(msg) -> None:
        summaries.put_nowait((time.perf_counter(), msg.data))

    async def on_ready(msg) -> None:
        ready.put_nowait((time.perf_counter(), msg.data))

    subs = [
        await nc.subscribe(Subjects.summary_ready(repo), cb=on_summary),
        await nc.subscribe(Subjects.report_ready(repo), cb=on_ready),
    ]
    futures = []
    for e in week_events(repo, merged, week.start):
        subject = Subjects.enriched(e.data.fact.kind, e.data.fact.action, repo)
        futures.append(await js.publish_async(subject, e.to_bytes(), headers={"Nats-Msg-Id": e.id}))
    close_at = week.end + timedelta(hours=1)
    request = ReportRequested.create(
        ReportRequestData(
            repo=repo,
            window=WindowRef(
                kind=week.kind,
                label=week.label,
                start=week.start,
                end=week.end,
                tz=week.tz,
                cutoff=week.cutoff,
            ),
            languages=("en",),
            formats=(fmt,),
            as_of=close_at,
            requested_by="bench",
        ),
        nonce=uuid.uuid4().hex,
        at=datetime.now(UTC),
    )
    futures.append(
        await js.publish_async(
            Subjects.report_requested(repo), request.to_bytes(), headers={"Nats-Msg-Id": request.id}
        )
    )
    await asyncio.gather(*futures)
    await until_idle(js, warmer)
    mark = watermark(close_at, repo)
    start = time.perf_counter()
    await js.publish(
        Subjects.enriched_watermark(repo), mark.to_bytes(), headers={"Nats-Msg-Id": mark.id}
    )
    summary: WindowSummarized | None = None
    while True:
        at, data = await asyncio.wait_for(ready.get(), 600)
        if ReportReady.model_validate_json(data).data.request_id == request.id:
            break
    end = at
    summarized_at = None
    while not summaries.empty():
        t, data = summaries.get_nowait()
        event = WindowSummarized.model_validate_json(data)
        if event.data.request_id == request.id:
            summary, summarized_at = event, t
    for sub in subs:
        await sub.unsubscribe()
    assert summary is not None and summarized_at is not None
    t0 = time.perf_counter()
    await render_documents(summary.data, "en", (fmt,), pdf if fmt == "pdf" else None)
    direct = time.perf_counter() - t0
    return summarized_at - start, end - start, direct


async def run(sizes: list[int], formats: list[str]) -> list[tuple[int, str, float, float, float]]:
    from services.renderer.adapters.documents import stylesheet
    from services.renderer.adapters.pdf import PdfRenderer
    from services.renderer.app import build_service as build_renderer
    from services.renderer.config import RendererSettings
    from services.summarizer.app import build_service as build_summarizer
    from services.summarizer.config import SummarizerSettings

    week = week_window(2026, 24, "UTC")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedNats(store_dir=Path(tmp) / "js") as server:
            url = server.url
            runtime = Runtime(CommonSettings(nats_url=url), "bench")
            summarizer = build_summarizer(
                SummarizerSettings(
                    nats_url=url, database_url=f"sqlite:///{Path(tmp) / 'latency.db'}"
                ),
                runtime,
            )
            runtime.add(summarizer)
            # (a summarizer that works out per-item results while its fold rests has one)
            warmer = getattr(summarizer, "warmer", None)
            runtime.add(build_renderer(RendererSettings(nats_url=url), runtime))
            pdf = PdfRenderer(workers=1)
            await pdf.warm(stylesheet())
            nc = await nats.connect(url)
            js = nc.jetstream()
            await runtime.start()
            try:
                # a running renderer has its templates compiled and catalogs read: one small
                # report per format first, not timed (the first report of a process is cold)
                for fmt in formats:
                    print(f"  warm-up, {fmt} ...", file=sys.stderr)
                    await one(js, nc, WARM_UP, fmt, week, pdf, warmer)
                for merged in sizes:
                    for fmt in formats:
                        print(f"  {merged} merged PRs, {fmt} ...", file=sys.stderr)
                        rows.append(
                            (merged, fmt, *await one(js, nc, merged, fmt, week, pdf, warmer))
                        )
            finally:
                await runtime.stop()
                await nc.close()
                pdf.close()
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--merged", default="50,256,1000", help="merged PRs per week, comma-separated"
    )
    parser.add_argument("--formats", default=",".join(FORMATS))
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.merged.split(",") if x]
    formats = [f for f in args.formats.split(",") if f]
    rows = asyncio.run(run(sizes, formats))
    print(
        f"\nweek closed by the watermark -> report-ready, one language (en), SQLite, NATS object "
        f"store, 1 PDF worker, {os.cpu_count()} CPUs\n"
    )
    print(
        f"{'merged PRs':>10} {'format':<7} {'close->summary s':>17} {'close->ready s':>15} "
        f"{'baseline: render only s':>24}"
    )
    for merged, fmt, summarized, done, direct in rows:
        print(f"{merged:>10} {fmt:<7} {summarized:>17.3f} {done:>15.3f} {direct:>24.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
