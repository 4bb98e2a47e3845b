"""Renders a summary into documents: Markdown and HTML through Jinja2 templates, JSON and its schema.

The view (all prose and figures) comes from the pure domain; this module only lays it out.
Everything here is CPU-bound but quick; callers run it in a thread to keep the event loop free.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.charts import charts
from services.renderer.domain.links import md_target
from services.renderer.domain.narrator import Narration, ProseReport, apply_narration
from services.renderer.domain.view import Figure, Link, ReportView, build_view
from shared.events import ProseNote, SummaryData

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
FILE_NAMES = {"md": "report.md", "html": "report.html", "pdf": "report.pdf", "json": "report.json"}
SCHEMA_NAME = "report.schema.json"
CONTENT_TYPES = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
    "json": "application/json",
    "schema": "application/schema+json",
}
FORMAT_LABELS = {"md": "Markdown", "html": "HTML", "pdf": "PDF", "json": "JSON"}

# an underscore inside a word (store_kv_block) never makes emphasis: left as written
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


def _backslashed(m: re.Match[str]) -> str:
    return "\\" + m.group(0)


def md_escape(text: object) -> str:
    """Text safe inside Markdown lines and table cells (no accidental emphasis, links or cells).
    (A function, not a template, replaces: a report escapes a thousand texts.)"""
    return _MD_SPECIAL.sub(_backslashed, " ".join(str(text).split()))


def md_link(link: Link) -> str:
    """`[#N](url)`; the URL percent-encoded so the link ends where it does, and only "#N" for an
    item whose URL is not on the repository's forge (the view left it empty)."""
    if not link.url:
        return md_escape(link.label)
    return f"[{link.label}]({md_target(link.url)})"


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default=False),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.filters["md"] = md_escape
    env.filters["mdlink"] = md_link
    return env


@lru_cache(maxsize=1)
def stylesheet() -> str:
    return (TEMPLATES / "report.css").read_text(encoding="utf-8")


def view_for(
    summary: SummaryData,
    lang: str,
    formats: tuple[str, ...] = (),
    narration: Narration | None = None,
) -> ReportView:
    view = build_view(summary, messages(lang))
    view.downloads = tuple(Figure(FORMAT_LABELS[f], FILE_NAMES[f]) for f in formats)
    if narration is not None:
        apply_narration(view, summary, narration, messages(lang))
    return view


def prose_report(summary: SummaryData, lang: str, narration: Narration) -> ProseReport:
    """Which prose a narrated report carries (model-written parts, replaced sentences, why)."""
    view = build_view(summary, messages(lang))
    return apply_narration(view, summary, narration, messages(lang))


def _tidy_markdown(text: str) -> str:
    # templates leave blank-line runs where optional parts are absent; Markdown needs at most one
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n"


def render_markdown(summary: SummaryData, lang: str, narration: Narration | None = None) -> str:
    others = tuple(f for f in summary.formats if f != "md")
    view = view_for(summary, lang, others, narration)
    return _tidy_markdown(environment().get_template("report.md.j2").render(v=view))


def render_html(summary: SummaryData, lang: str, narration: Narration | None = None) -> str:
    others = tuple(f for f in summary.formats if f != "html")
    view = view_for(summary, lang, others, narration)
    return (
        environment()
        .get_template("report.html.j2")
        .render(v=view, css=stylesheet(), charts=charts(summary, messages(lang)))
    )


def render_json(summary: SummaryData, prose: ProseReport | None = None) -> str:
    """The report model itself; its JSON Schema is stored beside it as report.schema.json.
    With a narrator, `prose` says which prose was model-written and which checks failed."""
    if prose is not None:
        summary = summary.model_copy(update={"prose": ProseNote.model_validate(prose.as_dict())})
    return summary.model_dump_json(indent=2) + "\n"


@lru_cache(maxsize=1)
def summary_schema() -> str:
    schema = SummaryData.model_json_schema()
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://repodigest.dev/schemas/summary-data.v1.json",
        **schema,
    }
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
