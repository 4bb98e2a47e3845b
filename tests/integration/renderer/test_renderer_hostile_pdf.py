"""The PDF (real WeasyPrint in its worker) from hostile items: no link annotation leaves the
repository's forge, and a 100,000-character title renders, cut with an ellipsis."""

from __future__ import annotations

import asyncio
import os
import select

import pytest

from services.renderer.adapters.documents import render_html
from services.renderer.adapters.pdf import PdfError, PdfRenderer
from services.renderer.domain.text import TITLE_MAX
from shared.events import Appendix, KeyPR
from tests.unit.renderer.samples import daily_summary, pr
from tests.unit.renderer.test_renderer_links import BASE, hostile_summary

from .test_renderer_pdf import _run, need


async def test_pdf_links_only_the_forge(pdf_engine, tmp_path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(await pdf_engine.render(render_html(hostile_summary(), "en")))
    urls = _run(need("pdfinfo"), "-url", str(path))
    assert f"{BASE}/pull/1)" in urls  # the link annotations are listed
    assert "javascript" not in urls.lower() and "evil.example" not in urls
    text = _run(need("pdftotext"), str(path), "-")
    assert "#50001" in text and "#50002" in text  # shown, not linked


async def test_a_100k_title_renders_cut(pdf_engine, tmp_path) -> None:
    item = pr(50001, "y" * 100_000, "mallory", modules=("moe",))
    summary = daily_summary(
        appendix=Appendix(merged_prs=(item,)), key_prs=(KeyPR(item=item, score=9.0),)
    )
    path = tmp_path / "report.pdf"
    path.write_bytes(await pdf_engine.render(render_html(summary, "en")))
    text = "".join(_run(need("pdftotext"), "-raw", str(path), "-").split())
    assert "y" * (TITLE_MAX + 1) not in text
    assert "y" * 40 in text and "y…" in text  # the title, wrapped on lines, ends in an ellipsis


# an unbroken run in a table cell that may break anywhere (the appendix's): layout time grows with
# its square; 3,000 characters take several seconds (8,000 took 97 s)
SLOW_HTML = (
    "<html><body><table><tr><td style='overflow-wrap: anywhere'>"
    + "z" * 3000
    + "</td></tr></table></body></html>"
)


async def test_a_render_past_its_timeout_ends_its_worker(tmp_path) -> None:
    """The worker of a document past the timeout is ended (it went on for minutes and the retry
    queued behind it); the next document gets a fresh worker."""
    engine = PdfRenderer(workers=1, timeout=1.0)
    try:
        await engine.warm()
        (pid,) = list(engine._pool._processes)
        pidfd = os.pidfd_open(pid)
        slow = SLOW_HTML
        with pytest.raises(PdfError, match="longer than 1s"):
            await engine.render(slow)
        try:
            assert select.select([pidfd], [], [], 0)[0], "the timed-out worker is still running"
        finally:
            os.close(pidfd)
        engine.timeout = 120
        assert (await engine.render("<html><body><p>next</p></body></html>")).startswith(b"%PDF-")
    finally:
        engine.close()


async def test_a_killed_renderer_stops_its_busy_worker_and_starts_none() -> None:
    engine = PdfRenderer(workers=1, timeout=120)
    await engine.warm()
    (pid,) = list(engine._pool._processes)
    pidfd = os.pidfd_open(pid)
    try:
        busy = asyncio.ensure_future(engine.render(SLOW_HTML))
        engine.kill()
        assert select.select([pidfd], [], [], 0)[0], "the busy worker is still running"
        with pytest.raises(PdfError):
            await busy
        with pytest.raises(PdfError, match="stopping"):
            await engine.render("<html><body>x</body></html>")
    finally:
        os.close(pidfd)
        engine.close()
