"""Report charts as inline SVG, drawn by pygal: activity per day, modules vs previous, PR flow.

The SVG is made deterministic (pygal's random chart id and its dated comment are replaced), has no
script, and carries no XML declaration, so it can be inlined into the HTML and printed by
WeasyPrint.
"""

from __future__ import annotations

import re
import unicodedata
from zoneinfo import ZoneInfo

import pygal
from pygal.style import Style

from services.renderer.domain.i18n import Messages
from shared.events import SummaryData

FONT = '"Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif'
MAX_MODULES = 10

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
    return dict(
        style=STYLE,
        js=[],
        disable_xml_declaration=True,
        width=800,
        height=340,
        legend_at_bottom=True,
        legend_at_bottom_columns=3,
        margin=12,
        spacing=10,
        explicit_size=False,
        print_values=False,
        truncate_label=-1,
        truncate_legend=-1,
        **extra,
    )


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
    chart = pygal.Bar(
        **_config(
            title=m.t("labels.chart_activity"),
            no_data_text=m.t("labels.none"),
            x_label_rotation=0,
            # both axes start at zero so bar heights compare honestly
            secondary_range=(0, max(comments, default=0) or 1),
            value_formatter=lambda x: f"{x:,.0f}",
        )
    )
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


# ---------------------------------------------------------------- labels that are never clipped
# pygal sizes the label margin as 0.6 em per character, which clips CJK labels (a CJK character
# is a full em wide): the left margin is widened by what pygal underestimates, and a label longer
# than LABEL_BUDGET em is cut with an ellipsis.
LABEL_BUDGET = 14.0  # em: about a quarter of the 800-unit chart width at 12 units per em


def text_em(text: str) -> float:
    """The width of a label in em (CJK and other wide characters 1 em, the rest about 0.6)."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in text)


def fit_label(text: str, budget: float = LABEL_BUDGET) -> str:
    """The label whole when it fits the budget, else cut and ended with "…"."""
    if text_em(text) <= budget:
        return text
    out = ""
    for c in text:
        if text_em(out + c) > budget - 1.0:
            break
        out += c
    return out.rstrip() + "…"


def _label_margin(labels: list[str], font_size: float) -> float:
    """Extra left margin so that pygal's estimate (0.6 em per character) covers the labels."""
    extra = max((text_em(t) - 0.6 * len(t) for t in labels), default=0.0)
    return max(0.0, extra) * font_size + 6


def hourly_chart(s: SummaryData, m: Messages) -> str:
    """A day window's activity by local hour (24 bars; 23 or 25 on a DST change day)."""
    tz = ZoneInfo(s.window.tz)
    hours = sorted(s.hourly, key=lambda h: h.start)
    chart = pygal.Bar(
        **_config(
            title=m.t("labels.chart_hourly"),
            no_data_text=m.t("labels.none"),
            x_label_rotation=0,
            value_formatter=lambda x: f"{x:,.0f}",
        )
    )
    chart.x_labels = [h.start.astimezone(tz).strftime("%H") for h in hours]
    chart.add(m.t("labels.prs_opened_series"), [h.prs_opened for h in hours])
    chart.add(m.t("labels.prs_merged_series"), [h.prs_merged for h in hours])
    chart.add(m.t("labels.issues_opened_series"), [h.issues_opened for h in hours])
    chart.add(m.t("labels.comments_series"), [h.comments for h in hours])
    return _finish(chart, "hourly", m.t("labels.chart_hourly"))


def modules_chart(s: SummaryData, m: Messages) -> str:
    mods = sorted(
        (t for t in s.modules if t.total or t.previous_total),
        key=lambda t: (t.fallback, -t.total, t.module),
    )[:MAX_MODULES]
    mods.reverse()  # pygal draws horizontal bars bottom-up; the busiest module goes on top
    height = max(300, 160 + 30 * len(mods))
    # pygal puts a bottom legend over the value axis of horizontal bars: keep room below
    labels = [fit_label(m.name("module_names", t.module)) for t in mods]
    chart = pygal.HorizontalBar(
        **{
            **_config(title=m.t("labels.chart_modules"), no_data_text=m.t("labels.none")),
            "height": height,
            "margin_bottom": 34,
            "margin_left": 12 + _label_margin(labels, STYLE.label_font_size),
        }
    )
    chart.x_labels = labels
    if mods:
        chart.add(m.t("labels.previous_window"), [t.previous_total for t in mods])
        chart.add(m.t("labels.this_window"), [t.total for t in mods])
    return _finish(chart, "modules", m.t("labels.chart_modules"))


def charts(s: SummaryData, m: Messages) -> dict[str, str]:
    """The report's charts that have data, by name, as inline SVG strings (an all-zero chart is
    not drawn). A day window shows its activity by hour instead of the per-day charts."""
    out: dict[str, str] = {}
    if s.window.kind == "day":
        if any(h.prs_opened or h.prs_merged or h.issues_opened or h.comments for h in s.hourly):
            out["hourly"] = hourly_chart(s, m)
    else:
        if any(d.issues_opened or d.issues_closed or d.comments for d in s.activity):
            out["activity"] = activity_chart(s, m)
    if any(t.total or t.previous_total for t in s.modules):
        out["modules"] = modules_chart(s, m)
    if s.window.kind != "day" and any(
        d.prs_opened or d.prs_merged or d.prs_closed_unmerged for d in s.activity
    ):
        out["flow"] = flow_chart(s, m)
    return out
