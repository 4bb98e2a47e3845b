"""The archive site's pure parts: which keys it publishes, relative links, sparklines, what moved
between revisions, windows and revisions in order; request paths the web server refuses."""

from __future__ import annotations

import pytest

from services.renderer.domain.archive import (
    FIVE,
    Figures,
    count_moves,
    home_key,
    is_artifact_key,
    is_page_key,
    is_public_key,
    relative,
    repo_page_key,
    repository_from_index,
    site_languages,
    sparkline,
    window_page_key,
)
from services.renderer.web import key_of

REPO = "vllm-project/vllm-ascend"
BASE = "reports/vllm-project/vllm-ascend"


def entry(label: str, start: str, revision: int, langs=("en",), formats=("html", "json")) -> dict:
    return {
        "window": {"kind": "week", "label": label, "start": start, "end": start, "tz": "UTC"},
        "revision": revision,
        "languages": list(langs),
        "rendered_at": f"2026-06-{10 + revision:02d}T00:00:00+00:00",
        "artifacts": [
            {
                "format": f,
                "language": lang,
                "key": f"{BASE}/{label}/r{revision}/{lang}/report.{f}",
                "size": 10,
            }
            for lang in langs
            for f in formats
        ],
    }


def figures(merged: int, new_prs: int | None = 5) -> Figures:
    return Figures(
        counts={
            "new_issues": 1,
            "closed_issues": 2,
            "new_prs": new_prs,
            "merged_prs": merged,
            "closed_unmerged_prs": 0,
        },
        merged_series=(1, merged),
    )


def test_published_keys_are_the_pages_and_the_revisions_artifacts():
    assert is_page_key("index.html") and is_page_key("index.zh-CN.html")
    assert is_page_key(f"{BASE}/index.html") and is_page_key(f"{BASE}/2026-W24/index.zh-CN.html")
    for fmt in ("html", "pdf", "md", "json", "schema.json"):
        assert is_artifact_key(f"{BASE}/2026-W24/r3/zh-CN/report.{fmt}")
    for key in (
        f"{BASE}/index.json",
        f"{BASE}/2026-W24/r1/en/index-entry.json",
        f"{BASE}/2026-W24/r1/en/report-ready.json",
        "narrator-cache/ab/cd.json",
        f"{BASE}/2026-W24/r0/en/report.html",
        f"{BASE}/2026-W24/r1/report.html",
        "reports/index.html",
        f"{BASE}/2026-W24/r1/index.html",
        "index.fr.html",
        f"{BASE}/2026-W24/r1/en/report.exe",
        f"{BASE}/../x/2026-W24/r1/en/report.html",
    ):
        assert not is_public_key(key), key


def test_links_between_pages_are_relative():
    assert relative(home_key("en"), repo_page_key(REPO, "en")) == f"{BASE}/index.html"
    assert (
        relative(window_page_key(REPO, "2026-W24", "zh-CN"), home_key("zh-CN"))
        == "../../../../index.zh-CN.html"
    )
    assert (
        relative(window_page_key(REPO, "2026-W24", "en"), f"{BASE}/2026-W24/r2/en/report.pdf")
        == "r2/en/report.pdf"
    )
    assert (
        relative(repo_page_key(REPO, "en"), window_page_key(REPO, "2026-W24", "en"))
        == "2026-W24/index.html"
    )


def test_sparkline_spans_its_box_from_zero():
    s = sparkline([0, 5, 10, 5])
    assert s is not None and (s.peak, s.total, s.values) == (10, 20, (0, 5, 10, 5))
    points = [tuple(map(float, p.split(","))) for p in s.points.split()]
    assert [x for x, _ in points] == sorted(x for x, _ in points)
    assert points[0] == (2.0, 22.0) and points[2][1] == 2.0 and points[-1][0] == 94.0
    assert sparkline([3]) is None and sparkline([]) is None
    flat = sparkline([0, 0, 0])
    assert flat is not None and {p.split(",")[1] for p in flat.points.split()} == {"22.0"}


def test_moves_are_the_counts_that_differ_in_header_order():
    before = {
        "new_issues": 1,
        "closed_issues": 2,
        "new_prs": 5,
        "merged_prs": 10,
        "closed_unmerged_prs": 0,
    }
    after = {**before, "merged_prs": 13, "new_issues": None}
    moves = count_moves(before, after)
    assert [(m.name, m.before, m.after, m.delta) for m in moves] == [
        ("new_issues", 1, None, None),
        ("merged_prs", 10, 13, 3),
    ]
    assert count_moves(before, dict(before)) == ()
    assert FIVE[3] == "merged_prs"


def test_repository_from_index_orders_windows_and_revisions():
    index = {
        "repo": REPO,
        "reports": [
            entry("2026-W23", "2026-06-01T00:00:00+00:00", 1),
            entry("2026-W24", "2026-06-08T00:00:00+00:00", 2, ("en", "zh-CN")),
            entry("2026-W24", "2026-06-08T00:00:00+00:00", 1),
            {"window": {"label": "broken"}, "revision": 1},  # no dates: left out
        ],
    }
    figs = {
        f"{BASE}/2026-W24/r1/en/report.json": figures(10),
        f"{BASE}/2026-W24/r2/en/report.json": figures(13, None),
        f"{BASE}/2026-W23/r1/en/report.json": figures(7),
    }
    repo = repository_from_index(index, figs)
    assert [w.label for w in repo.windows] == ["2026-W24", "2026-W23"]
    w24 = repo.windows[0]
    assert [r.revision for r in w24.revisions] == [2, 1]
    r2, r1 = w24.revisions
    assert r2.latest and not r1.latest and r2.previous == 1 and r1.previous is None
    assert [(m.name, m.before, m.after) for m in r2.moves] == [
        ("new_prs", 5, None),
        ("merged_prs", 10, 13),
    ]
    assert [a.format for a in r2.artifacts_in("zh-CN")] == ["html", "json"]
    assert w24.languages == ("en", "zh-CN") and repo.languages == ("en", "zh-CN")
    assert w24.spark().values == (1, 13)
    # merged PRs of each window, oldest to newest
    assert repo.spark().values == (7, 13)
    assert site_languages([repo]) == ("en", "zh-CN")
    # a revision whose JSON is missing has no figures, and moves nothing
    repo = repository_from_index(index, {})
    assert repo.windows[0].latest.figures is None and repo.windows[0].latest.moves == ()


def test_site_languages_always_have_the_default_page():
    zh_only = repository_from_index(
        {"repo": REPO, "reports": [entry("2026-W24", "2026-06-08T00:00:00+00:00", 1, ("zh-CN",))]},
        {},
    )
    assert site_languages([zh_only]) == ("en", "zh-CN")
    assert site_languages([]) == ("en",)


@pytest.mark.parametrize(
    "path, key",
    [
        ("/", "index.html"),
        ("/index.zh-CN.html", "index.zh-CN.html"),
        (f"/{BASE}/", f"{BASE}/index.html"),
        (f"/{BASE}/2026-W24/r1/en/report.pdf", f"{BASE}/2026-W24/r1/en/report.pdf"),
        ("/reports/../index.html", None),
        ("/reports/./index.html", None),
        ("//etc/passwd", None),
        ("/reports\\..\\index.html", None),
        ("/reports/\x00/index.html", None),
        ("/reports//index.html", None),
        ("/reports/%2e%2e/index.html", None),  # a path is decoded before: '%' is no key character
        ("index.html", None),
    ],
)
def test_request_paths_to_keys(path, key):
    assert key_of(path) == key
