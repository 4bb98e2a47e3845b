"""Report charts as inline SVG, drawn by pygal: activity per day, modules vs previous, PR flow.

The SVG is made deterministic (pygal's random chart id and its dated comment are replaced), has no
script, and carries no XML declaration, so it can be inlined into the HTML and printed by
WeasyPrint.
"""

from __future__ import annotations

import re

import pygal
from pygal.style import Style

from shared.events import SummaryData
from services.renderer.domain.i18n import Messages

FONT = '"Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif'
MAX_MODULES = 12

STYLE = Style(
    font_family=FONT,
    background="transparent",
    plot_background="transparent",
    foreground="#333",
    foreground_strong="#111",
    foreground_subtle="#888",
    colors=("#2f6fb3", "#3a9d5d", "#c4532d", "#8c64b8", "#d19a1f", "#5b7083"),
    label_font_size=12,
    major_label_font_size=12,
    legend_font_size=13,
    title_font_size=15,
    value_font_size=11,
    no_data_font_size=18,
    opacity=".85",
    guide_stroke_color="#d0d7de",
    major_guide_stroke_color="#d0d7de",
    guide_stroke_dasharray="2,4",
    major_guide_stroke_dasharray="2,4",
    transition="0ms",
)

_ID = re.compile(r"chart-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
# pygal always embeds a config <script> (for its optional tooltips); reports carry no JavaScript
_SCRIPT = re.compile(r"<script\b[^>]*?(?:/>|>.*?</script>)", re.S)


def _config(**extra):
    return dict(style=STYLE, js=[], disable_xml_declaration=True, width=800, height=340,
                legend_at_bottom=True, legend_at_bottom_columns=3, margin=12, spacing=10,
                explicit_size=False, print_values=False, truncate_label=-1,
                truncate_legend=-1, **extra)


def _finish(chart, name: str, title: str) -> str:
    svg = chart.render(is_unicode=True)
    svg = _ID.sub(f"chart-{name}", svg)
    svg = _SCRIPT.sub("", _COMMENT.sub("", svg))
    # accessible name, for screen readers and the DOM tests
    return svg.replace("<svg ", f'<svg role="img" aria-label="{_attr(title)}" ', 1)


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def activity_chart(s: SummaryData, m: Messages) -> str:
    comments = [d.comments for d in s.activity]
    chart = pygal.Bar(**_config(title=m.t("labels.chart_activity"),
                                no_data_text=m.t("labels.none"), x_label_rotation=0,
                                # both axes start at zero so bar heights compare honestly
                                secondary_range=(0, max(comments, default=0) or 1),
                                value_formatter=lambda x: f"{x:,.0f}"))
    chart.x_labels = [d.day.strftime("%m-%d") for d in s.activity]
    if s.activity:
        chart.add(m.t("labels.issues_opened_series"), [d.issues_opened for d in s.activity])
        chart.add(m.t("labels.issues_closed_series"), [d.issues_closed for d in s.activity])
        chart.add(m.t("labels.comments_series"), comments, secondary=True)
    return _finish(chart, "activity", m.t("labels.chart_activity"))


def flow_chart(s: SummaryData, m: Messages) -> str:
    chart = pygal.Bar(**_config(title=m.t("labels.chart_flow"), no_data_text=m.t("labels.none")))
    chart.x_labels = [d.day.strftime("%m-%d") for d in s.activity]
    if s.activity:
        chart.add(m.t("labels.prs_opened_series"), [d.prs_opened for d in s.activity])
        chart.add(m.t("labels.prs_merged_series"), [d.prs_merged for d in s.activity])
        chart.add(m.t("labels.prs_closed_series"), [d.prs_closed_unmerged for d in s.activity])
    return _finish(chart, "flow", m.t("labels.chart_flow"))


def modules_chart(s: SummaryData, m: Messages) -> str:
    mods = sorted((t for t in s.modules if t.total or t.previous_total),
                  key=lambda t: (t.fallback, -t.total, t.module))[:MAX_MODULES]
    mods.reverse()  # pygal draws horizontal bars bottom-up; the busiest module goes on top
    height = max(320, 170 + 36 * len(mods))
    # pygal puts a bottom legend over the value axis of horizontal bars: keep room below
    chart = pygal.HorizontalBar(**{**_config(title=m.t("labels.chart_modules"),
                                             no_data_text=m.t("labels.none")),
                                   "height": height, "margin_bottom": 34})
    chart.x_labels = [m.name("module_names", t.module) for t in mods]
    if mods:
        chart.add(m.t("labels.previous_window"), [t.previous_total for t in mods])
        chart.add(m.t("labels.this_window"), [t.total for t in mods])
    return _finish(chart, "modules", m.t("labels.chart_modules"))


def charts(s: SummaryData, m: Messages) -> dict[str, str]:
    """Every chart of a report, by name, as an inline SVG string."""
    return {"activity": activity_chart(s, m), "modules": modules_chart(s, m),
            "flow": flow_chart(s, m)}
