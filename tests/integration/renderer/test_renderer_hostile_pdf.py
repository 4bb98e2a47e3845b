"""The PDF (real WeasyPrint in its worker) from hostile items: no link annotation leaves the
repository's forge, and a 100,000-character title renders, cut with an ellipsis."""

from __future__ import annotations

import pytest

from services.renderer.adapters.documents import render_html
from services.renderer.adapters.pdf import PdfRenderer
from services.renderer.domain.text import TITLE_MAX
from shared.events import Appendix, KeyPR
from tests.unit.renderer.samples import daily_summary, pr
from tests.unit.renderer.test_renderer_links import BASE, hostile_summary

from .test_renderer_pdf import _run, need


@pytest.fixture
async def pdf_engine():
    engine = PdfRenderer(workers=1, timeout=180)
    engine.start()
    try:
        yield engine
    finally:
        engine.close()


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
    summary = daily_summary(appendix=Appendix(merged_prs=(item,)), key_prs=(KeyPR(item=item, score=9.0),))
    path = tmp_path / "report.pdf"
    path.write_bytes(await pdf_engine.render(render_html(summary, "en")))
    text = "".join(_run(need("pdftotext"), "-raw", str(path), "-").split())
    assert "y" * (TITLE_MAX + 1) not in text
    assert "y" * 40 in text and "y…" in text  # the title, wrapped on lines, ends in an ellipsis
