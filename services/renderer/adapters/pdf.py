"""PDF from the report HTML by WeasyPrint, in worker processes so the event loop never blocks."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from shared.tasks import stop_processes

log = logging.getLogger("repodigest.renderer.pdf")


class PdfError(RuntimeError):
    pass


def _worker_init() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent decides what stops (and
    # kills a worker it abandons); a worker must not die mid-document with a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def html_to_pdf(html: str, base_url: str | None = None) -> bytes:
    """Render HTML to PDF bytes (blocking; runs in a worker process)."""
    from weasyprint import HTML  # imported in the worker: heavy, and not needed by the parent

    return HTML(string=html, base_url=base_url).write_pdf()


_WARM_HTML = """<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><style>{css}</style>
</head><body><h1>repodigest 周报</h1><p>Warm-up: <strong>fonts</strong> 字体, 12,345.</p>
<table><thead><tr><th>#</th><th>Title</th></tr></thead><tbody><tr><td>1</td><td>合并 PR</td></tr>
</tbody></table><svg width="10" height="10"><rect width="10" height="10"/></svg></body></html>"""


def _warm(css: str = "") -> bool:
    """Pay the first report's fixed costs now: importing WeasyPrint, loading the Latin and CJK
    fonts (fontconfig), parsing a stylesheet like the report's, and writing a PDF."""
    html_to_pdf(_WARM_HTML.replace("{css}", css))
    return True


class PdfRenderer:
    """A pool of worker processes running WeasyPrint; created at service start, shut at stop.

    Workers are spawned (not forked: the parent runs an event loop and threads) and recycled after
    `max_tasks_per_child` documents to bound WeasyPrint's memory growth.
    """

    def __init__(
        self, workers: int = 1, timeout: float = 300.0, max_tasks_per_child: int = 50
    ) -> None:
        self.workers, self.timeout, self.max_tasks = workers, timeout, max_tasks_per_child
        self._pool: ProcessPoolExecutor | None = None
        self._killed = False

    def start(self) -> None:
        if self._killed:
            raise PdfError("the PDF renderer is stopping")
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                max_tasks_per_child=self.max_tasks,
                initializer=_worker_init,
            )

    async def warm(self, css: str = "") -> None:
        """Start every worker and render a tiny document in each (fonts loaded, imports done)."""
        self.start()
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._pool, _warm, css) for _ in range(self.workers))
        )

    async def render(self, html: str, base_url: str | None = None) -> bytes:
        self.start()
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(
                loop.run_in_executor(self._pool, html_to_pdf, html, base_url), self.timeout
            )
        except BrokenProcessPool:
            # a worker died (out of memory, killed): start a fresh pool; the message is retried
            broken, self._pool = self._pool, None
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
            raise PdfError("the PDF worker process died; the report will be retried") from None
        except TimeoutError:
            # the worker would go on with the document for as long as it takes, and the retry
            # would queue behind it: end it (and its pool) now
            stuck, self._pool = self._pool, None
            if stuck is not None:
                _terminate(stuck)
            raise PdfError(
                f"PDF rendering took longer than {self.timeout:.0f}s "
                "(raise REPODIGEST_PDF_TIMEOUT for very large reports)"
            ) from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def kill(self, grace: float = 2.0) -> None:
        """Stop now (an interrupted run): terminate the workers, a document in progress included
        (its render fails with PdfError), and start none again."""
        self._killed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            _terminate(pool, grace)


def _terminate(pool: ProcessPoolExecutor, grace: float = 2.0) -> None:
    """End a pool's workers now (SIGTERM, then SIGKILL after `grace` seconds), busy or not."""
    stop_processes((getattr(pool, "_processes", None) or {}).values(), grace)
    pool.shutdown(wait=False, cancel_futures=True)
