"""Titles, logins and notes come from GitHub users: whatever they contain, the report's structure
holds (one Markdown line per item, no HTML injection, tables keep their columns)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.renderer.adapters.documents import render_html, render_markdown
from shared.events import Appendix, KeyPR

from .samples import daily_summary, pr

HOSTILE = st.lists(
    st.sampled_from(list("ab 中文|*_[]()<>`#\\!-\n\r\t&\"'") + ["<script>", "](http://x)"]),
    max_size=30,
).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=HOSTILE, note=HOSTILE)
def test_hostile_titles_keep_the_structure(title: str, note: str) -> None:
    item = pr(50001, title, "mallory", modules=("moe",))
    summary = daily_summary(
        appendix=Appendix(merged_prs=(item,)),
        data_note=note or None,
        key_prs=(KeyPR(item=item, score=1.0),),
    )
    md = render_markdown(summary, "en")
    lines = [ln for ln in md.splitlines() if "[#50001](" in ln]
    # the appendix line and the key PR's quick-view line: each item stays on exactly one line
    starts = [ln for ln in lines if ln.startswith("- [#50001](")]
    assert len(starts) >= 2
    key = next(ln for ln in starts if " **" in ln)
    assert key.count("**") == 2  # the title's emphasis opens and closes on its own line
    html = render_html(summary, "en")
    assert "<script>" not in html
    assert html.count("<table") == html.count("</table>")
