"""Deterministic object keys for report artifacts, and the per-repository index of reports.

Keys: `reports/<owner>/<repo>/<window label>/r<revision>/<lang>/report.<ext>`; every component is
sanitised so that no key can climb out of its prefix, whatever a repository or label contains.
"""

from __future__ import annotations

import re
from typing import Any

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_KEY_PART = re.compile(r"^[A-Za-z0-9._-]+$")
INDEX_VERSION = 1
ENTRY_NAME = "index-entry.json"


class UnsafeKey(ValueError):
    pass


def component(text: str) -> str:
    """One safe path component: [A-Za-z0-9._-], never empty, never `.` or `..`."""
    cleaned = _UNSAFE.sub("_", text.strip()).strip(".") or "_"
    return cleaned[:128]


def check_key(key: str) -> str:
    """Reject keys that are absolute, empty, or have `.`/`..`/odd components (a store's last guard)."""
    parts = key.split("/")
    if (
        not key
        or key.startswith("/")
        or any(p in ("", ".", "..") or not _KEY_PART.match(p) for p in parts)
    ):
        raise UnsafeKey(f"object key {key!r} is not a safe relative path")
    return key


def repo_prefix(repo: str) -> str:
    owner, _, name = repo.partition("/")
    return f"reports/{component(owner)}/{component(name)}"


def report_prefix(repo: str, window_label: str, revision: int) -> str:
    return f"{repo_prefix(repo)}/{component(window_label)}/r{int(revision)}"


def artifact_key(repo: str, window_label: str, revision: int, lang: str, filename: str) -> str:
    return check_key(
        f"{report_prefix(repo, window_label, revision)}/{component(lang)}/{component(filename)}"
    )


def index_key(repo: str) -> str:
    return f"{repo_prefix(repo)}/index.json"


def entry_key(repo: str, window_label: str, revision: int, lang: str) -> str:
    """Where one language of one report revision records its index entry (the index is rebuilt
    from these, so two renderers finishing at once cannot drop each other's report)."""
    return artifact_key(repo, window_label, revision, lang, ENTRY_NAME)


def is_entry_key(key: str) -> bool:
    return key.rsplit("/", 1)[-1] == ENTRY_NAME


def entry_keys(index: dict[str, Any] | None, repo: str) -> set[str]:
    """The entry keys an index already covers: one per (window, revision, language) it lists."""
    return {
        entry_key(repo, r["window"]["label"], r["revision"], lang)
        for r in (index or {}).get("reports", [])
        for lang in r.get("languages", [])
    }


def split_entry(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """A report's index entry as one entry per language (what each entry object holds)."""
    return [
        {
            **entry,
            "languages": [lang],
            "artifacts": [a for a in entry["artifacts"] if a.get("language") == lang],
        }
        for lang in entry["languages"]
    ]


def merge_index(index: dict[str, Any] | None, repo: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The repository's index with `entry` added or replaced, newest window first.

    An entry is identified by (window label, revision); a later rendering of the same revision (new
    languages, a redelivery) replaces its artifacts for the languages it carries.
    """
    reports = [dict(r) for r in (index or {}).get("reports", [])]
    same = next(
        (
            r
            for r in reports
            if r.get("window", {}).get("label") == entry["window"]["label"]
            and r.get("revision") == entry["revision"]
        ),
        None,
    )
    if same is not None:
        languages = sorted(set(same.get("languages", [])) | set(entry["languages"]))
        kept = [a for a in same.get("artifacts", []) if a.get("language") not in entry["languages"]]
        merged = {
            **same,
            **entry,
            "languages": languages,
            "artifacts": sorted(
                kept + list(entry["artifacts"]), key=lambda a: (a["language"], a["format"])
            ),
        }
        reports[reports.index(same)] = merged
    else:
        reports.append(entry)
    reports.sort(
        key=lambda r: (r["window"]["start"], r["window"]["label"], r["revision"]), reverse=True
    )
    latest: dict[str, int] = {}
    for r in reports:
        label = r["window"]["label"]
        latest[label] = max(latest.get(label, 0), r["revision"])
    for r in reports:
        r["latest"] = r["revision"] == latest[r["window"]["label"]]
    return {"version": INDEX_VERSION, "repo": repo, "reports": reports}
