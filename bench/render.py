"""Renderer speed: a busy week (256 merged PRs) to Markdown, HTML with charts, PDF and JSON.

    .venv/bin/python -m bench.render [--merged 256] [--runs 3] [--languages en[,zh-CN]]
                                     [--pdf-workers 1]

Prints where the time goes (md, charts, html, pdf, json + schema, store + index) as the median
of `--runs` warm runs, then the whole use case (`render_report`: render, store in a directory,
index, publish) with and without the PDF, beside the goals (3 s with the PDF, 0.3 s without).
Baselines measured in the same run: Jinja2 rendering the same appendix rows into a trivial
template, pydantic dumping the same summary as JSON, and WeasyPrint printing a one-page HTML in
the same worker process. Before/after of the renderer's speed-ups, in the same run: the first
report on a cold PDF worker vs one warmed at service start, and the JSON schema generated per
report vs cached. Figures, not assertions; exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import re
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from jinja2 import Environment

from services.renderer.adapters import documents
from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.charts import charts
from services.renderer.adapters.pdf import PdfRenderer
from services.renderer.adapters.stores import DirectoryObjectStore
from services.renderer.handlers import render_report
from shared.events import ReportReady, SummaryData, WindowSummarized
from tests.unit.renderer.samples import large_weekly_summary

GOAL_WITH_PDF = 3.0
GOAL_WITHOUT_PDF = 0.3

TRIVIAL = (
    "<table>{% for i in items %}<tr><td>{{ i.number }}</td><td>{{ i.title }}</td>"
    "<td>{{ i.author }}</td></tr>{% endfor %}</table>"
)
ONE_PAGE = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body><h1>One page</h1>"
    "<p>WeasyPrint printing a single short page.</p></body></html>"
)


_SPEED_CSS = re.compile(r"/\* speed:.*?/\* end speed \*/", re.S)


def without_speed_css(html: str) -> str:
    """The report HTML as it was before the print speed-ups (auto table layout)."""
    return _SPEED_CSS.sub("", html)


def pdf_cpu(html: str) -> float:
    """CPU seconds WeasyPrint spends on `html` (runs in the worker: excludes other load)."""
    from services.renderer.adapters.pdf import html_to_pdf

    start = time.process_time()
    html_to_pdf(html)
    return time.process_time() - start


def now() -> datetime:
    return datetime(2026, 6, 15, 2, tzinfo=UTC)


async def timed(fn: Callable[[], Awaitable[object]], runs: int) -> tuple[float, float]:
    """(median, min) seconds over `runs` calls."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def sync(fn: Callable[[], object]) -> Callable[[], Awaitable[object]]:
    async def run() -> object:
        return fn()

    return run


async def nothing(_: ReportReady) -> None:
    return None


def row(label: str, median: float, best: float, note: str = "") -> None:
    print(f"  {label:<44} {median * 1000:9.1f} {best * 1000:9.1f}   {note}")


def header(title: str) -> None:
    print(f"\n{title}")
    print(f"  {'':<44} {'median ms':>9} {'min ms':>9}")


async def run(merged: int, runs: int, languages: tuple[str, ...], workers: int) -> None:
    summary: SummaryData = large_weekly_summary(merged=merged).model_copy(
        update={"languages": languages}
    )
    items = [
        i
        for name in ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
        for i in getattr(summary.appendix, name)
    ]
    print(
        f"summary: {summary.counts.merged_prs} merged PRs, {len(items)} appendix rows, "
        f"{len(summary.model_dump_json()) // 1024} KiB of JSON; languages {', '.join(languages)}; "
        f"{runs} warm runs each; {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f} at start"
    )

    # ------------------------------------------------------------ before/after: a warmed worker
    cold = PdfRenderer(workers=1)
    cold.start()
    html_en = documents.render_html(summary, languages[0])
    start = time.perf_counter()
    await cold.render(html_en)
    first_cold = time.perf_counter() - start
    cold.close()
    pdf = PdfRenderer(workers=workers)
    start = time.perf_counter()
    await pdf.warm(documents.stylesheet())
    warming = time.perf_counter() - start
    start = time.perf_counter()
    await pdf.render(html_en)
    first_warm = time.perf_counter() - start

    try:
        # ------------------------------------------------------------ baselines
        env = Environment(autoescape=True)
        trivial = env.from_string(TRIVIAL)
        header("baselines (same data, same machine, same run)")
        row(
            "jinja2: appendix rows into a trivial template",
            *await timed(sync(lambda: trivial.render(items=items)), runs),
        )
        row(
            "pydantic: summary.model_dump_json()", *await timed(sync(summary.model_dump_json), runs)
        )
        row(
            "weasyprint: one-page HTML (warm worker)",
            *await timed(lambda: pdf.render(ONE_PAGE), runs),
        )

        # ------------------------------------------------------------ stages
        for lang in languages:
            m = messages(lang)
            html = documents.render_html(summary, lang)
            header(f"where the time goes ({lang}; html {len(html) // 1024} KiB)")
            row(
                "md: view + Markdown template",
                *await timed(
                    sync(functools.partial(documents.render_markdown, summary, lang)), runs
                ),
            )
            row(
                "charts: three pygal SVGs",
                *await timed(sync(functools.partial(charts, summary, m)), runs),
            )
            row(
                "html: view + template + charts",
                *await timed(sync(functools.partial(documents.render_html, summary, lang)), runs),
            )
            row(
                "pdf: WeasyPrint in the warm worker process",
                *await timed(functools.partial(pdf.render, html), runs),
            )
            row(
                "json: model dump + cached schema",
                *await timed(
                    sync(lambda: (documents.render_json(summary), documents.summary_schema())), runs
                ),
            )
            with tempfile.TemporaryDirectory() as tmp:
                store = DirectoryObjectStore(tmp)
                docs = {
                    "md": documents.render_markdown(summary, lang).encode(),
                    "html": html.encode(),
                    "pdf": await pdf.render(html),
                    "json": documents.render_json(summary).encode(),
                }

                async def put_all(docs=docs, store=store, lang=lang) -> None:
                    for fmt, data in docs.items():
                        await store.put(
                            f"reports/o/r/w/r1/{lang}/report.{fmt}",
                            data,
                            documents.CONTENT_TYPES[fmt],
                        )

                row("store: four artifacts into a directory", *await timed(put_all, runs))

        # ------------------------------------------------------------ before/after
        header("before / after")
        html = documents.render_html(summary, languages[0])
        old_html = without_speed_css(html)
        assert old_html != html, "the speed CSS block is missing from report.css"
        loop = asyncio.get_running_loop()
        row("pdf, auto table layout (before)", *await timed(lambda: pdf.render(old_html), runs))
        row(
            "pdf, fixed appendix table layout (after)", *await timed(lambda: pdf.render(html), runs)
        )
        cpu_before = [await loop.run_in_executor(pdf._pool, pdf_cpu, old_html) for _ in range(runs)]
        cpu_after = [await loop.run_in_executor(pdf._pool, pdf_cpu, html) for _ in range(runs)]
        row(
            "  the same, CPU seconds in the worker (before)",
            statistics.median(cpu_before),
            min(cpu_before),
            "not slowed by other processes",
        )
        row(
            "  the same, CPU seconds in the worker (after)",
            statistics.median(cpu_after),
            min(cpu_after),
        )
        schema_uncached = documents.summary_schema.__wrapped__
        row("json schema generated per report (before)", *await timed(sync(schema_uncached), runs))
        row("json schema cached (after)", *await timed(sync(documents.summary_schema), runs))
        row(
            "first PDF on a cold worker (before)",
            first_cold,
            first_cold,
            "spawn + imports + fonts inside the first report",
        )
        row(
            "first PDF on a worker warmed at start (after)",
            first_warm,
            first_warm,
            f"warming took {warming * 1000:.0f} ms in the background at start",
        )

        # ------------------------------------------------------------ the use case
        header("render_report: render, store (directory), index, publish")
        with tempfile.TemporaryDirectory() as tmp:
            store = DirectoryObjectStore(tmp)
            results = {}
            for label, formats in (
                ("all four formats", ("md", "html", "pdf", "json")),
                ("without the PDF", ("md", "html", "json")),
            ):
                event = WindowSummarized.create(summary.model_copy(update={"formats": formats}))
                results[label] = await timed(
                    functools.partial(render_report, event, store, nothing, pdf, now), runs
                )
                row(label, *results[label])
        with_pdf, without_pdf = results["all four formats"][0], results["without the PDF"][0]
        per = f" ({len(languages)} languages)" if len(languages) > 1 else ""
        print(f"load average now {os.getloadavg()[0]:.2f} (other processes share the CPUs)")
        print(
            f"goals{per}: with the PDF {with_pdf:.2f} s (goal {GOAL_WITH_PDF:.1f} s: "
            f"{'met' if with_pdf <= GOAL_WITH_PDF else 'missed'}); without {without_pdf:.3f} s "
            f"(goal {GOAL_WITHOUT_PDF:.1f} s: "
            f"{'met' if without_pdf <= GOAL_WITHOUT_PDF else 'missed'})"
        )
    finally:
        pdf.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--merged", type=int, default=256, help="merged PRs in the week")
    parser.add_argument("--runs", type=int, default=3, help="warm runs per figure (median)")
    parser.add_argument("--languages", default="en", help="comma-separated: en, zh-CN")
    parser.add_argument(
        "--pdf-workers",
        type=int,
        default=1,
        help="PDF worker processes (REPODIGEST_PDF_WORKERS); languages' PDFs "
        "render in parallel on as many",
    )
    args = parser.parse_args()
    languages = tuple(x.strip() for x in args.languages.split(",") if x.strip())
    asyncio.run(run(args.merged, max(1, args.runs), languages, max(1, args.pdf_workers)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
