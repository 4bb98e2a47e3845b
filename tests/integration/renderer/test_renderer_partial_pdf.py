"""Partial summaries through every format, PDF included (WeasyPrint in its worker process): the
no-data notes are in the PDF's text, in the report's language, and nothing crashes."""

from __future__ import annotations

import json
import subprocess

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.pdf import PdfRenderer
from services.renderer.domain.view import LEFT_OUT_EMPTY
from services.renderer.handlers import render_documents
from tests.integration.renderer.test_renderer_pdf import need
from tests.unit.renderer.test_renderer_partial import CASES, _summary

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def pdf_engine():
    engine = PdfRenderer(workers=1, timeout=180)
    engine.start()
    try:
        yield engine
    finally:
        engine.close()


@pytest.mark.parametrize(
    "case,lang",
    [("nothing at all", "zh-CN"), ("a day window with zero events", "en"), ("no modules", "en")],
)
async def test_partial_summary_in_all_formats_pdf_included(
    pdf_engine, tmp_path, case: str, lang: str
) -> None:
    s = _summary(case)
    docs = await render_documents(s, lang, ("md", "html", "pdf", "json"), pdf_engine)
    assert set(docs) == {"md", "html", "pdf", "json"}
    assert json.loads(docs["json"])["window"]["label"] == s.window.label
    path = tmp_path / "report.pdf"
    path.write_bytes(docs["pdf"])
    text = subprocess.run(
        [need("pdftotext"), str(path), "-"], check=True, capture_output=True, text=True, timeout=60
    ).stdout
    note = messages(lang).t("labels.none")
    # hot discussions and ecosystems are left out when empty (LEFT_OUT_EMPTY), not noted
    missing = CASES[case][1] - LEFT_OUT_EMPTY
    # a note per section without data (and in an empty chart), the same number as in the HTML
    html = docs["html"].decode()
    assert html.count(f'<p class="none">{note}</p>') >= len(missing)
    html_notes = html.count(note)
    # pdftotext may wrap a note over two lines: compare without whitespace
    assert "".join(text.split()).count("".join(note.split())) == html_notes
    for present in CASES[case][2]:
        assert present in text
