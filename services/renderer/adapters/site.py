"""The archive site: pages generated from what the object store holds, written back into it, or
exported to a directory (publishable as is, e.g. on GitHub Pages).

Inputs are the repositories' indexes (`reports/<owner>/<repo>/index.json`, kept by the renderer)
and each revision's JSON artifact (its figures); pages are laid out by Jinja2
(`templates/site/`) with the renderer's message catalogs (`i18n/<lang>.yaml`, section `site`).
Pages are a pure function of those inputs (no clock, no random ids), so regenerating them after a
redelivered report writes the same bytes (and skips the write). See `domain/archive.py` for the
layout of keys.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from pydantic import ValidationError

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import FORMAT_LABELS, TEMPLATES
from services.renderer.domain import archive
from services.renderer.domain.archive import (
    FIVE,
    Figures,
    Repository,
    Revision,
    Window,
    figures_of,
    home_key,
    relative,
    repo_page_key,
    repository_from_index,
    site_languages,
    window_page_key,
)
from services.renderer.domain.i18n import Messages
from services.renderer.domain.text import num
from services.renderer.domain.view import _Writer
from services.renderer.ports import ObjectNotFound, ObjectStore
from shared.events import SummaryData

log = logging.getLogger("repodigest.renderer.site")

HTML = "text/html; charset=utf-8"
FIGURES_KEPT = 20_000  # revisions whose figures a process keeps (a few KB each)
ROUNDS = 8  # regenerations while another renderer changes the same inputs (see `publish`)


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES / "site")),
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2")),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = lambda n: "—" if n is None else num(n)
    return env


@lru_cache(maxsize=1)
def stylesheet() -> str:
    return (TEMPLATES / "site" / "site.css").read_text(encoding="utf-8")


def _index_repo(key: str) -> bool:
    parts = key.split("/")
    return len(parts) == 4 and parts[0] == "reports" and parts[3] == "index.json"


class SiteBuilder:
    """Reads the archive from a store and lays out its pages."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store
        # figures by (artifact key, sha256): a revision's artifacts never change once announced,
        # so each JSON artifact is read and parsed once per process
        self._figures: dict[tuple[str, str], Figures | None] = {}

    # ------------------------------------------------------------ reading

    async def index_keys(self) -> list[str]:
        return [k for k in await self.store.list("reports/") if _index_repo(k)]

    async def read_index(self, key: str) -> tuple[dict | None, bytes]:
        try:
            raw = await self.store.get(key)
        except ObjectNotFound:
            return None, b""
        try:
            index = json.loads(raw)
            if not isinstance(index, dict) or not isinstance(index.get("repo"), str):
                raise ValueError("not an index")
        except ValueError:
            log.warning("%s is not a readable index; its repository is left out of the site", key)
            return None, raw
        return index, raw

    async def figures(self, art: dict) -> Figures | None:
        cache = (str(art.get("key")), str(art.get("sha256")))
        if cache not in self._figures:
            if len(self._figures) >= FIGURES_KEPT:  # a long-running renderer: the oldest go
                del self._figures[next(iter(self._figures))]
            self._figures[cache] = await self._read_figures(cache[0])
        return self._figures[cache]

    async def _read_figures(self, key: str) -> Figures | None:
        try:
            summary = SummaryData.model_validate_json(await self.store.get(key))
        except ObjectNotFound:
            log.warning("%s is listed in its index but absent; its revision shows no counts", key)
            return None
        except ValidationError as exc:
            log.warning(
                "%s is not a report model (%d errors); its revision shows no counts",
                key,
                exc.error_count(),
            )
            return None
        changed = {}
        for lang in archive.SITE_LANGUAGES:
            m = messages(lang)
            writer = _Writer(summary, m)
            changed[lang] = tuple(
                m.t("changed.key_prs")
                if f.name == "key_pr_numbers"
                else m.t(
                    "changed.figure",
                    name=writer.figure_name(f.name),
                    before="-" if f.before is None else num(f.before),
                    after="-" if f.after is None else num(f.after),
                )
                for f in summary.changed_figures
            )
        return figures_of(summary, changed)

    async def repository(
        self,
        index: dict,
        focus: str | None = None,
        recent: int | None = None,
        everything: bool = True,
    ) -> Repository:
        """A repository's windows and revisions with their figures. With `everything` false,
        figures are read only for each window's latest revision (of its `recent` newest
        windows, if given: the home page's sparkline) and for every revision of the `focus`
        window: what the pages regenerated for one report show."""
        entries = [e for e in index.get("reports", []) if isinstance(e, dict)]
        latest: dict[str, int] = {}
        starts: dict[str, str] = {}
        for e in entries:
            label = str((e.get("window") or {}).get("label", ""))
            latest[label] = max(latest.get(label, 0), int(e.get("revision", 0)))
            starts[label] = str((e.get("window") or {}).get("start", ""))
        newest = sorted(latest, key=lambda label: (starts[label], label), reverse=True)
        shown = set(newest if recent is None else newest[:recent])
        wanted: dict[str, Figures | None] = {}
        for e in entries:
            label, revision = str((e.get("window") or {}).get("label", "")), e.get("revision")
            if not (everything or label == focus or (label in shown and revision == latest[label])):
                continue
            arts = [a for a in e.get("artifacts", []) if isinstance(a, dict)]
            # the figures of one JSON artifact per revision (they do not depend on the language)
            jsons = sorted(
                (a for a in arts if a.get("format") == "json"),
                key=lambda a: a.get("language") != archive.DEFAULT_LANGUAGE,
            )
            if jsons:
                wanted[str(jsons[0].get("key"))] = await self.figures(jsons[0])
        return repository_from_index(index, {k: v for k, v in wanted.items() if v is not None})

    async def fingerprint(self) -> str:
        """A digest of every repository's index as stored now."""
        digest = hashlib.sha256()
        for key in sorted(await self.index_keys()):
            try:
                raw = await self.store.get(key)
            except ObjectNotFound:
                raw = b""
            digest.update(key.encode() + b"\0" + hashlib.sha256(raw).digest())
        return digest.hexdigest()

    async def load(
        self, repo: str | None = None, window: str | None = None
    ) -> tuple[list[Repository], str]:
        """The repositories in the archive, and a fingerprint of the indexes read. With `repo`,
        only what its pages and the home pages show is read (see `repository`)."""
        repos, digest = [], hashlib.sha256()
        for key in sorted(await self.index_keys()):
            index, raw = await self.read_index(key)
            digest.update(key.encode() + b"\0" + hashlib.sha256(raw).digest())
            if index is None:
                continue
            mine = repo is not None and str(index.get("repo", "")).lower() == repo.lower()
            try:
                repos.append(
                    await self.repository(
                        index,
                        focus=window if mine else None,
                        recent=None if mine else archive.SPARK_WINDOWS,
                        everything=repo is None,
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("%s could not be read (%s); its repository is left out", key, exc)
        repos.sort(key=lambda r: r.repo.lower())
        return repos, digest.hexdigest()

    # ------------------------------------------------------------ laying out

    def pages(
        self, repos: list[Repository], only: str | None = None, window: str | None = None
    ) -> dict[str, bytes]:
        """Every page (key -> bytes); with `only`, the home pages and that repository's pages
        (with `window`, only that window's among them)."""
        langs = site_languages(repos)
        out: dict[str, bytes] = {}
        for lang in langs:
            out[home_key(lang)] = self._home(repos, lang, langs)
            for repo in repos:
                if only is not None and repo.repo.lower() != only.lower():
                    continue
                out[repo_page_key(repo.repo, lang)] = self._repo(repo, lang, langs)
                for w in repo.windows:
                    if window is None or w.label == window:
                        out[window_page_key(repo.repo, w.label, lang)] = self._window(
                            repo, w, lang, langs
                        )
        return out

    def _common(
        self,
        key: str,
        lang: str,
        langs: tuple[str, ...],
        title: str,
        crumbs: list[tuple[str, str]],
        rendered: datetime | None,
    ) -> dict[str, Any]:
        m = messages(lang)
        base = key.rsplit("/", 1)[0] + "/" if "/" in key else ""
        alternates = [
            (
                other,
                messages(other).t("site.language_name"),
                relative(key, base + archive.page_name(other)),
            )
            for other in langs
            if other != lang
        ]
        return {
            "lang": lang,
            "html_lang": m.t("html_lang"),
            "title": title,
            "t": m.t,
            "tn": m.tn,
            "css": stylesheet(),
            "alternates": alternates,
            "crumbs": crumbs,
            "footer": m.t("site.footer", at=_when(rendered)) if rendered else None,
        }

    def _home(self, repos: list[Repository], lang: str, langs: tuple[str, ...]) -> bytes:
        m = messages(lang)
        key = home_key(lang)
        rows = []
        for r in repos:
            latest = r.windows[0] if r.windows else None
            spark = r.spark()
            kind = r.spark_kind()
            rows.append(
                {
                    "repo": r.repo,
                    "href": relative(key, repo_page_key(r.repo, lang)),
                    "windows": m.tn("site.windows_count", len(r.windows), n=num(len(r.windows))),
                    "latest": latest.label if latest else "",
                    "latest_href": relative(key, window_page_key(r.repo, latest.label, lang))
                    if latest
                    else "",
                    "last_report": _when(r.last_rendered()),
                    "languages": ", ".join(
                        messages(x).t("site.language_name") for x in r.languages
                    ),
                    "spark": spark,
                    "spark_label": m.t(
                        "site.spark_windows",
                        kind=m.t(f"site.kinds.{kind}"),
                        last=num(spark.values[-1]),
                        peak=num(spark.peak),
                    )
                    if spark
                    else "",
                }
            )
        times = [t for r in repos if (t := r.last_rendered())]
        ctx = self._common(key, lang, langs, m.t("site.title"), [], max(times) if times else None)
        return _render("home.html.j2", ctx, repos=rows, heads=self._heads(m))

    def _heads(self, m: Messages) -> list[str]:
        return [m.t(f"counts.{n}") for n in FIVE]

    def _repo(self, repo: Repository, lang: str, langs: tuple[str, ...]) -> bytes:
        m = messages(lang)
        key = repo_page_key(repo.repo, lang)
        rows = []
        for w in repo.windows:
            latest = w.latest
            spark = w.spark()
            rows.append(
                {
                    "label": w.label,
                    "kind": m.t(f"site.kinds.{w.kind}")
                    if m.has(f"site.kinds.{w.kind}")
                    else w.kind,
                    "period": _period(w),
                    "href": relative(key, window_page_key(repo.repo, w.label, lang)),
                    "revision": latest.revision,
                    "revisions": m.tn(
                        "site.revisions_count", len(w.revisions), n=num(len(w.revisions))
                    ),
                    "counts": _cells(latest, ()),
                    "synthetic": bool(latest.figures and latest.figures.synthetic),
                    "spark": spark,
                    "spark_label": m.t(
                        "site.spark_day" if w.kind == "day" else "site.spark_days",
                        label=w.label,
                        peak=num(spark.peak),
                        total=num(spark.total),
                    )
                    if spark
                    else "",
                }
            )
        ctx = self._common(
            key,
            lang,
            langs,
            m.t("site.repo_title", repo=repo.repo),
            [(m.t("site.home"), relative(key, home_key(lang)))],
            repo.last_rendered(),
        )
        return _render("repo.html.j2", ctx, repo=repo.repo, windows=rows, heads=self._heads(m))

    def _window(self, repo: Repository, w: Window, lang: str, langs: tuple[str, ...]) -> bytes:
        m = messages(lang)
        key = window_page_key(repo.repo, w.label, lang)
        revs = []
        for rev in w.revisions:
            changes = []
            if rev.figures is None:
                changes.append(m.t("site.unreadable"))
            elif rev.previous is None:
                changes.append(m.t("site.first"))
            else:
                if rev.moves:
                    changes.append(
                        m.t(
                            "site.moved",
                            previous=rev.previous,
                            moves=m.t("list.comma").join(
                                m.t(
                                    "changed.figure",
                                    name=m.t(f"counts.{mv.name}"),
                                    before=_n(mv.before),
                                    after=_n(mv.after),
                                )
                                for mv in rev.moves
                            ),
                        )
                    )
                else:
                    changes.append(m.t("site.unchanged", previous=rev.previous))
                text = rev.figures.changed_text.get(lang, ())
                if text:
                    changes.append(
                        m.t("site.figures_changed", figures=m.t("list.comma").join(text))
                    )
            # the page's language first, then the others the revision has
            order = [lang] + [x for x in rev.languages if x != lang]
            arts = [
                {
                    "language": messages(x).t("site.language_name")
                    if x in archive.SITE_LANGUAGES
                    else x,
                    "code": x,
                    "links": [
                        {
                            "label": FORMAT_LABELS.get(a.format, a.format),
                            "href": relative(key, a.key),
                            "size": _size(a.size),
                        }
                        for a in rev.artifacts_in(x)
                    ],
                }
                for x in order
                if rev.artifacts_in(x)
            ]
            revs.append(
                {
                    "revision": rev.revision,
                    "latest": rev.latest,
                    "rendered": _when(rev.rendered_at),
                    "counts": _cells(rev, {mv.name for mv in rev.moves}),
                    "changes": changes,
                    "artifacts": arts,
                    "synthetic": bool(rev.figures and rev.figures.synthetic),
                }
            )
        times = [r.rendered_at for r in w.revisions if r.rendered_at]
        ctx = self._common(
            key,
            lang,
            langs,
            m.t("site.window_title", repo=repo.repo, label=w.label),
            [
                (m.t("site.home"), relative(key, home_key(lang))),
                (
                    m.t("site.back_repo", repo=repo.repo),
                    relative(key, repo_page_key(repo.repo, lang)),
                ),
            ],
            max(times) if times else None,
        )
        return _render(
            "window.html.j2",
            ctx,
            repo=repo.repo,
            label=w.label,
            period=_period(w),
            kind=m.t(f"site.kinds.{w.kind}") if m.has(f"site.kinds.{w.kind}") else w.kind,
            revisions=revs,
            heads=self._heads(m),
        )

    # ------------------------------------------------------------ writing

    async def publish(self, repo: str | None = None, window: str | None = None) -> int:
        """Regenerate the pages into the store (with `repo`: the home pages and that
        repository's; with `window` too, only that window's page among them); returns how many
        pages changed. A report changes only its window, its repository's page and the home
        pages, so only they are made again (and only the figures they show are read).

        Renderer replicas may finish reports at the same moment and no store offers a lock, so
        after writing, the indexes are read again: if one changed meanwhile (another report
        landed), the pages are made again from it. The last writer always checks after its own
        write, so the pages converge to every report stored (as `update_index` does)."""
        written = 0
        for _ in range(ROUNDS):
            repos, before = await self.load(repo, window)
            if repo is not None and not await self._complete(site_languages(repos)):
                # no pages yet (an archive older than the site), or a first report in a new
                # language: every page, so that each links to the other language
                repo = window = None
                repos, before = await self.load()
            pages = self.pages(repos, repo, window)
            written += await self._write(pages)
            if await self.fingerprint() == before:
                return written
        log.warning(
            "the archive's indexes still change after %d rounds; the next report "
            "completes its pages",
            ROUNDS,
        )
        return written

    async def _complete(self, langs: tuple[str, ...]) -> bool:
        """Whether the store has the home page of each of these languages."""
        for lang in langs:
            try:
                await self.store.get(home_key(lang))
            except ObjectNotFound:
                return False
        return True

    async def _write(self, pages: dict[str, bytes]) -> int:
        changed = 0
        for key, data in pages.items():
            try:
                if await self.store.get(key) == data:
                    continue  # a redelivery: same inputs, same bytes, nothing to write
            except ObjectNotFound:
                pass
            await self.store.put(key, data, HTML)
            changed += 1
        return changed

    async def export(self, out: Path) -> Export:
        """The whole archive as a directory: every page and every revision's artifacts (what
        `archive.is_public_key` admits), nothing else from the store."""
        repos, _ = await self.load()
        pages = self.pages(repos)
        artifacts = sorted(
            {a.key for r in repos for w in r.windows for rev in w.revisions for a in rev.artifacts}
        )
        out = out.expanduser()
        written = 0
        for key, data in pages.items():
            await asyncio.to_thread(_write_file, out, key, data)
            written += 1
        for key in artifacts:
            try:
                data = await self.store.get(key)
            except ObjectNotFound:
                log.warning("%s is listed in its index but absent; not exported", key)
                continue
            await asyncio.to_thread(_write_file, out, key, data)
            written += 1
        return Export(out, len(repos), len(pages), written - len(pages))


@dataclass(frozen=True)
class Export:
    path: Path
    repositories: int
    pages: int
    artifacts: int


def _write_file(root: Path, key: str, data: bytes) -> None:
    path = root.joinpath(*key.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _render(template: str, ctx: dict[str, Any], **more: Any) -> bytes:
    return environment().get_template(template).render(**ctx, **more).encode("utf-8")


def _n(value: Any) -> str:
    return "-" if value is None else num(value)


def _cells(rev: Revision, moved: Iterable[str]) -> list[dict[str, Any]]:
    moved = set(moved)
    counts = rev.figures.counts if rev.figures is not None else {}
    return [{"name": n, "value": counts.get(n), "moved": n in moved} for n in FIVE]


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at is not None else ""


def _period(w: Window) -> str:
    """The window's dates in its own time zone (end inclusive: the last day it covers)."""
    try:
        tz = ZoneInfo(w.tz)
    except (KeyError, ValueError):
        tz = ZoneInfo("UTC")
    first = w.start.astimezone(tz).date()
    last = (w.end - timedelta(microseconds=1)).astimezone(tz).date()
    span = first.isoformat() if first == last else f"{first.isoformat()} – {last.isoformat()}"
    return f"{span} ({w.tz})"


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1024 or unit == "MB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} MB"  # pragma: no cover
