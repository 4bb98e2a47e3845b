"""The report archive as a browsable site: what each page shows, computed from the repositories'
indexes (`reports/<owner>/<repo>/index.json`) and the figures of each revision's JSON artifact.

Pure: no I/O, no templates. The adapter (`services/renderer/adapters/site.py`) reads the store,
hands the indexes and the figures in, lays the pages out with Jinja2 and writes them back.

Layout of the pages (object keys, the same in the store, an exported directory and on the web;
every link between them is relative, so the archive works from any base URL or from disk):

    index.html, index.zh-CN.html                      repositories
    reports/<owner>/<repo>/index[.zh-CN].html         its windows, newest first
    reports/<owner>/<repo>/<window>/index[.zh-CN].html  its revisions, what changed, artifacts
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from services.renderer.domain.keys import component, repo_prefix

# the five counts of a report's header, in its order
FIVE = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
FORMATS = ("html", "pdf", "md", "json")
DEFAULT_LANGUAGE = "en"
SPARK_WINDOWS = 60  # the newest windows of a repository its home-page sparkline is drawn from
SITE_LANGUAGES = ("en", "zh-CN")

# the artifacts of a revision the archive publishes; everything else in the store (index.json and
# index entries, which carry the store's URIs; report-ready.json; the narrator's cache) is not
_ARTIFACT = re.compile(
    r"^reports/[A-Za-z0-9._-]+/[A-Za-z0-9._-]+/[A-Za-z0-9_-]+/r[1-9][0-9]*/[A-Za-z0-9._-]+/"
    r"report\.(html|pdf|md|json|schema\.json)$"
)
_PAGE = re.compile(
    r"^(reports/[A-Za-z0-9._-]+/[A-Za-z0-9._-]+/([A-Za-z0-9_-]+/)?)?index(\.zh-CN)?\.html$"
)


def page_name(lang: str) -> str:
    """`index.html` for the default language, `index.<lang>.html` for the others."""
    return "index.html" if lang == DEFAULT_LANGUAGE else f"index.{lang}.html"


def home_key(lang: str) -> str:
    return page_name(lang)


def repo_page_key(repo: str, lang: str) -> str:
    return f"{repo_prefix(repo)}/{page_name(lang)}"


def window_page_key(repo: str, label: str, lang: str) -> str:
    return f"{repo_prefix(repo)}/{component(label)}/{page_name(lang)}"


def is_page_key(key: str) -> bool:
    return bool(_PAGE.match(key))


def is_artifact_key(key: str) -> bool:
    """A revision's artifact: immutable once its report-ready is published."""
    return bool(_ARTIFACT.match(key))


def is_public_key(key: str) -> bool:
    """What the archive publishes (exported, served): its pages and the revisions' artifacts."""
    return is_page_key(key) or is_artifact_key(key)


def relative(from_key: str, to_key: str) -> str:
    """The relative link from the page at `from_key` to the object at `to_key`."""
    return posixpath.relpath(to_key, posixpath.dirname(from_key) or ".")


# ---------------------------------------------------------------- what the pages need


@dataclass(frozen=True)
class Figures:
    """What the archive shows of one revision, read from its JSON artifact."""

    counts: Mapping[str, int | None]
    # merged PRs per day of the window (per hour for a day window): the sparkline
    merged_series: tuple[int, ...] = ()
    # the figures the summarizer says this revision changed: (name, before, after)
    changed: tuple[tuple[str, Any, Any], ...] = ()
    # those changes as a person reads them, by page language ("merged PRs 41 → 44")
    changed_text: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    synthetic: bool = False


def figures_of(
    summary: Any,
    changed_text: Mapping[str, tuple[str, ...]] | None = None,
) -> Figures:
    """The figures of a SummaryData (the JSON artifact's model); `changed_text` the changed
    figures worded per language (the adapter words them with the catalogs)."""
    counts = {name: getattr(summary.counts, name) for name in FIVE}
    if summary.window.kind == "day" and summary.hourly:
        series = tuple(h.prs_merged for h in sorted(summary.hourly, key=lambda h: h.start))
    else:
        series = tuple(d.prs_merged for d in sorted(summary.activity, key=lambda d: d.day))
    return Figures(
        counts=counts,
        merged_series=series,
        changed=tuple((f.name, f.before, f.after) for f in summary.changed_figures),
        changed_text=dict(changed_text or {}),
        synthetic=summary.synthetic,
    )


@dataclass(frozen=True)
class Sparkline:
    """A small polyline of a series, in a `width` x `height` box (y grows downwards)."""

    points: str
    width: int
    height: int
    peak: int
    total: int
    values: tuple[int, ...]


def sparkline(
    values: Sequence[int],
    width: int = 96,
    height: int = 24,
    pad: int = 2,
) -> Sparkline | None:
    """The points of a sparkline of `values` (None for fewer than two values); every series
    starts at zero, so two windows' sparklines compare by shape, the peak is printed beside."""
    values = tuple(max(0, int(v)) for v in values)
    if len(values) < 2:
        return None
    peak = max(values)
    step = (width - 2 * pad) / (len(values) - 1)
    span = height - 2 * pad
    pts = []
    for i, v in enumerate(values):
        x = pad + i * step
        y = pad + span - (span * v / peak if peak else 0)
        pts.append(f"{x:.1f},{y:.1f}")
    return Sparkline(" ".join(pts), width, height, peak, sum(values), values)


@dataclass(frozen=True)
class Move:
    """A figure that moved between two revisions."""

    name: str
    before: Any
    after: Any

    @property
    def delta(self) -> int | float | None:
        if isinstance(self.before, (int, float)) and isinstance(self.after, (int, float)):
            return self.after - self.before
        return None


def count_moves(
    before: Mapping[str, int | None], after: Mapping[str, int | None]
) -> tuple[Move, ...]:
    """The five counts that differ between two revisions, in the header's order."""
    return tuple(
        Move(n, before.get(n), after.get(n)) for n in FIVE if before.get(n) != after.get(n)
    )


@dataclass(frozen=True)
class ArtifactLink:
    format: str
    language: str
    key: str
    size: int


@dataclass
class Revision:
    revision: int
    rendered_at: datetime | None
    languages: tuple[str, ...]
    artifacts: tuple[ArtifactLink, ...]
    figures: Figures | None  # None: its JSON artifact is absent or unreadable
    latest: bool = False
    # filled by `build_archive`: the counts that moved since the revision before, and the
    # summarizer's own list of changed figures (more than the five counts)
    moves: tuple[Move, ...] = ()
    previous: int | None = None

    def artifacts_in(self, lang: str) -> tuple[ArtifactLink, ...]:
        order = {f: i for i, f in enumerate(FORMATS)}
        return tuple(
            sorted(
                (a for a in self.artifacts if a.language == lang),
                key=lambda a: order.get(a.format, 99),
            )
        )

    def json_key(self) -> str | None:
        """The key of a JSON artifact (any language: the figures do not depend on it)."""
        for lang in (DEFAULT_LANGUAGE, *self.languages):
            for a in self.artifacts:
                if a.format == "json" and a.language == lang:
                    return a.key
        return None


@dataclass
class Window:
    label: str
    kind: str
    start: datetime
    end: datetime
    tz: str
    revisions: list[Revision] = field(default_factory=list)  # newest first

    @property
    def latest(self) -> Revision:
        return self.revisions[0]

    @property
    def languages(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for r in self.revisions:
            seen.update(dict.fromkeys(r.languages))
        return tuple(seen)

    def spark(self) -> Sparkline | None:
        figures = self.latest.figures
        return sparkline(figures.merged_series) if figures is not None else None


@dataclass
class Repository:
    repo: str
    windows: list[Window] = field(default_factory=list)  # newest first

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]

    @property
    def languages(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for w in self.windows:
            seen.update(dict.fromkeys(w.languages))
        return tuple(seen)

    def last_rendered(self) -> datetime | None:
        times = [r.rendered_at for w in self.windows for r in w.revisions if r.rendered_at]
        return max(times) if times else None

    def spark_kind(self) -> str:
        """The kind of the most windows among the newest (the home page's sparkline is of it)."""
        kinds = [w.kind for w in self.windows[:SPARK_WINDOWS]]
        return max(set(kinds), key=lambda k: (kinds.count(k), k)) if kinds else "week"

    def spark(self) -> Sparkline | None:
        """Merged PRs per window of that kind, oldest to newest: at most 26, all among the
        newest SPARK_WINDOWS windows (the figures a regeneration reads of each repository)."""
        kind = self.spark_kind()
        values = [
            w.latest.figures.counts.get("merged_prs") or 0
            for w in reversed(self.windows[:SPARK_WINDOWS])
            if w.kind == kind and w.latest.figures is not None
        ]
        return sparkline(values[-26:])


def _time(text: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except (TypeError, ValueError):
        return None


def repository_from_index(index: Mapping[str, Any], figures: Mapping[str, Figures]) -> Repository:
    """A repository's windows and revisions from its index (as the renderer keeps it), with the
    figures read from each revision's JSON artifact (`figures` by artifact key; a revision whose
    JSON is missing shows no counts). Windows newest first, revisions newest first; each revision
    knows what moved since the one before it."""
    repo = Repository(str(index["repo"]))
    windows: dict[str, Window] = {}
    for entry in index.get("reports", []):
        w = entry.get("window") or {}
        label = str(w.get("label", ""))
        start, end = _time(w.get("start")), _time(w.get("end"))
        if not label or start is None or end is None:
            continue
        window = windows.get(label)
        if window is None:
            window = windows[label] = Window(
                label, str(w.get("kind", "custom")), start, end, str(w.get("tz", "UTC"))
            )
        arts = tuple(
            ArtifactLink(str(a["format"]), str(a["language"]), str(a["key"]), int(a.get("size", 0)))
            for a in entry.get("artifacts", [])
            if a.get("format") in FORMATS and is_artifact_key(str(a.get("key", "")))
        )
        rev = Revision(
            int(entry["revision"]),
            _time(entry.get("rendered_at")),
            tuple(entry.get("languages", [])),
            arts,
            None,
        )
        key = rev.json_key()
        rev.figures = figures.get(key) if key else None
        window.revisions.append(rev)
    for window in windows.values():
        window.revisions.sort(key=lambda r: r.revision, reverse=True)
        for i, rev in enumerate(window.revisions):
            rev.latest = i == 0
            older = window.revisions[i + 1] if i + 1 < len(window.revisions) else None
            if older is not None:
                rev.previous = older.revision
                if rev.figures is not None and older.figures is not None:
                    rev.moves = count_moves(older.figures.counts, rev.figures.counts)
    repo.windows = sorted(windows.values(), key=lambda w: (w.start, w.label), reverse=True)
    return repo


def site_languages(repos: Sequence[Repository]) -> tuple[str, ...]:
    """The languages of the pages: English (the default page, `index.html`, always there) and
    each other report language present that the UI speaks, in a fixed order."""
    present = {lang for r in repos for lang in r.languages}
    return (DEFAULT_LANGUAGE,) + tuple(
        lang for lang in SITE_LANGUAGES if lang != DEFAULT_LANGUAGE and lang in present
    )
