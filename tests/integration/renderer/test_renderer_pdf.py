"""The PDF (WeasyPrint in a worker process): counts in the text, Chinese that extracts as Chinese,
an embedded CJK font, A4 pages with page numbers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from services.renderer.adapters.documents import render_html
from services.renderer.adapters.pdf import PdfRenderer
from tests.unit.renderer.samples import daily_summary, large_weekly_summary

IN_CI = bool(os.environ.get("CI"))


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        message = f"{tool} (Debian poppler-utils) is not installed"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return path


def _run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=60).stdout


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
async def test_pdf_text_fonts_and_pages(pdf_engine, tmp_path, lang: str) -> None:
    summary = daily_summary()
    pdf = await pdf_engine.render(render_html(summary, lang))
    assert pdf.startswith(b"%PDF-")
    path = tmp_path / f"report.{lang}.pdf"
    path.write_bytes(pdf)
    os.makedirs("test-artifacts", exist_ok=True)
    shutil.copy(path, f"test-artifacts/renderer-report.{lang}.pdf")

    text = _run(need("pdftotext"), "-layout", str(path), "-")
    c = summary.counts
    for figure in (c.new_issues, c.closed_issues, c.new_prs, c.merged_prs, c.closed_unmerged_prs):
        assert re.search(rf"(?<![\d,]){figure}(?![\d,])", text), f"{figure} missing from the PDF"
    assert "#41184" in text
    if lang == "zh-CN":  # a daily report: seed 003's sections
        assert "开发动态报告" in text and "每日开发状态摘要" in text and "关闭未合并" in text
    else:
        assert "Daily status summary" in text
    assert "\ufffd" not in text  # no replacement characters from missing glyphs

    fonts = _run(need("pdffonts"), str(path))
    rows = [line.split() for line in fonts.splitlines()[2:]]
    cjk = [r for r in rows if "CJK" in r[0]]
    assert cjk, f"no CJK font in the PDF:\n{fonts}"
    # columns: name type... emb sub uni: every font is embedded (emb = yes)
    assert all(r[-5] == "yes" for r in rows), fonts

    info = _run(need("pdfinfo"), str(path))
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    width, height = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups())
    assert (round(width), round(height)) == (595, 842)  # A4 in points
    assert pages >= 2
    # "i / n" in the footer of every page (pdftotext may drop the spaces around "/")
    for i, page in enumerate(text.split("\f")[:pages], start=1):
        assert re.search(rf"(?<!\d){i} ?/ ?{pages}\s*$", page), f"page {i} has no page number"


async def test_table_headers_repeat_on_every_page_of_a_long_table(pdf_engine, tmp_path) -> None:
    summary = large_weekly_summary()
    pdf = await pdf_engine.render(render_html(summary, "en"))
    path = tmp_path / "large.pdf"
    path.write_bytes(pdf)
    pages = _run(need("pdftotext"), "-layout", str(path), "-").split("\f")
    # pages holding rows of the appendix tables (merged PRs, new issues)
    rows = [p for p in pages if re.search(r"#\d{5}\s+(\[[\w-]+\] change number|Issue report)", p)]
    assert len(rows) >= 4, f"expected the appendix tables to span pages, got {len(rows)}"
    with_header = [p for p in rows if re.search(r"#\s+Title\s+Author\s+Modules", p)]
    # every page that continues the table repeats its header (the first page of each table too)
    assert len(with_header) == len(rows)
    text = "\f".join(pages)
    assert "#40259" in text and "#40000" in text  # first and last rows both printed


async def test_a_dead_pdf_worker_fails_the_render_and_the_next_one_recovers(tmp_path) -> None:
    import signal

    from services.renderer.adapters.pdf import PdfError

    engine = PdfRenderer(workers=1, timeout=180)
    try:
        html = render_html(daily_summary(), "en")
        await engine.warm()  # the worker process exists once warm-up has run in it
        for pid in list(engine._pool._processes):
            os.kill(pid, signal.SIGKILL)
        # whether the pool noticed the death before the render was submitted or only while it
        # waited for it, the render fails with the same error
        with pytest.raises(PdfError, match="worker process died"):
            await engine.render(html)
        assert (await engine.render(html)).startswith(b"%PDF-")
    finally:
        engine.close()


@pytest.mark.parametrize("mode", ["compact", "full", "none"])
async def test_the_appendix_in_each_mode(pdf_engine, tmp_path, mode: str) -> None:
    """compact: a dense table (a row per item: number, title, author, modules, in a small font);
    full: the same lists; none: one line with the counts and no item rows."""
    summary = large_weekly_summary(merged=120, issues=30).model_copy(update={"appendix_mode": mode})
    pdf = await pdf_engine.render(render_html(summary, "zh-CN"))
    path = tmp_path / f"appendix-{mode}.pdf"
    path.write_bytes(pdf)
    text = _run(need("pdftotext"), "-layout", str(path), "-")
    appendix = text[text.index("附录：详细数据列表") :]
    # a table row: the number, then the title on the same line
    rows = re.findall(r"(#4\d{4})\s+\[[\w-]+\] change number", appendix)
    if mode == "none":
        assert rows == [] and "已合并 PR 120" in appendix
        return
    assert len(set(rows)) == 120, len(set(rows))  # every merged PR is a row of the table
    assert "已合并 PR 120" in appendix  # the counts line (the <summary> of the collapsed HTML)
    if mode == "compact":
        assert "点击展开" not in appendix  # nothing to click on paper
        full = await pdf_engine.render(
            render_html(summary.model_copy(update={"appendix_mode": "full"}), "zh-CN")
        )
        (tmp_path / "full.pdf").write_bytes(full)

        def pages(name: str) -> int:
            info = _run(need("pdfinfo"), str(tmp_path / name))
            return int(re.search(r"Pages:\s+(\d+)", info).group(1))

        assert pages(path.name) < pages("full.pdf")  # denser than the full lists
