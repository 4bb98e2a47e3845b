"""The HTML report in a real headless browser (Debian chromium): it loads, has its charts, no
script errors; a screenshot is kept under test-artifacts/ for people to look at."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.charts import charts
from services.renderer.adapters.documents import render_html
from tests.unit.renderer.samples import daily_summary, weekly_summary

IN_CI = bool(os.environ.get("CI"))
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"

pytestmark = pytest.mark.browser


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name) or (
            f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None
        )
        if path:
            return path
    message = "chromium is not installed (Debian package `chromium`)"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("lang, make", [("en", weekly_summary), ("zh-CN", daily_summary)])
def test_report_loads_with_charts_in_chromium(tmp_path: Path, lang: str, make) -> None:
    summary = make()
    page = tmp_path / "report.html"
    page.write_text(render_html(summary, lang), encoding="utf-8")

    dom = run_chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert "Uncaught" not in dom.stderr, dom.stderr[-2000:]
    # the charts that have data: a week's three; a day's modules chart (and hourly, when filled)
    drawn = len(charts(summary, messages(lang)))
    assert drawn == (3 if summary.window.kind == "week" else 1)
    assert len(re.findall(r"<svg\b", html)) == drawn
    assert html.count('class="pygal-chart"') == drawn
    assert "<script" not in html
    assert f"#{summary.key_prs[0].item.number}" in html
    assert f'href="{summary.key_prs[0].item.url}"' in html
    assert f"<strong>{summary.counts.merged_prs}" in html

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"renderer-report.{lang}.png"
    shot.unlink(missing_ok=True)
    result = run_chromium(
        tmp_path,
        f"--screenshot={shot}",
        "--window-size=1280,2000",
        "--hide-scrollbars",
        page.as_uri(),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Uncaught" not in result.stderr
    assert shot.exists() and shot.read_bytes().startswith(b"\x89PNG")
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank image
