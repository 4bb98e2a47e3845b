"""A report across repositories as a reader sees it (issue #19 item 4): the five counts of each
repository and the total, items named by repository and number and linked into their repository,
in Markdown and HTML, English and Chinese."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from services.renderer.adapters.catalogs import messages
from services.renderer.adapters.documents import render_html, render_markdown
from services.renderer.domain.view import build_view
from services.summarizer.domain.combined import combine, combined_key
from services.summarizer.domain.report import build_summary
from shared.events import Digest
from shared.events.enriched import Reference
from shared.windows import week_window
from tests.unit.summarizer.summarizer_builders import (
    ItemSpec,
    random_scenario,
    utc,
    window_input,
)

WEEK = week_window(2026, 13, "UTC")
NOW = utc(2026, 4, 10, 0, 0)
UP, DOWN = "acme/engine", "acme/engine-npu"


def _summaries():
    up = random_scenario(5, WEEK.start, 7.0, n_items=40, repo=UP)
    down = random_scenario(6, WEEK.start, 7.0, n_items=40, repo=DOWN)
    merged = WEEK.start + timedelta(days=2)
    up.items.append(
        ItemSpec(
            number=900,
            kind="pull_request",
            opened=WEEK.start + timedelta(hours=1),
            merged=merged,
            title="[Core] new KV cache layout",
            additions=3000,
            modules=("kv-cache",),
        )
    )
    down.items.append(
        ItemSpec(
            number=901,
            kind="pull_request",
            opened=merged + timedelta(hours=1),
            merged=merged + timedelta(days=1),
            title="Adapt to the new KV cache layout",
            additions=2500,
            modules=("kv-cache",),
            digest=Digest(
                what="Adapt to upstream's new KV cache layout.",
                refs=(Reference(kind="upstream", repo=UP, number=900),),
            ),
        )
    )
    return [build_summary(window_input(sc.events(), WEEK), now=NOW) for sc in (up, down)]


@pytest.fixture(scope="module")
def combined():
    a, b = _summaries()
    return (
        a,
        b,
        combine(
            [a, b], combined_key([UP, DOWN]), revision=a.revision + b.revision, generated_at=NOW
        ),
    )


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_each_repository_and_the_total_have_their_five_counts(combined, lang):
    a, b, both = combined
    view = build_view(both, messages(lang))
    rows = {r.repo: r for r in view.repo_counts}
    assert list(rows) == ["engine", "engine-npu", messages(lang).t("counts.total")]
    for part, name in ((a, "engine"), (b, "engine-npu")):
        assert rows[name].values[3].startswith(str(part.counts.merged_prs))
        assert rows[name].url == f"https://github.com/{part.repo}"
    total = rows[messages(lang).t("counts.total")]
    assert total.values[3].startswith(str(a.counts.merged_prs + b.counts.merged_prs))
    md = render_markdown(both, lang)
    assert "[engine-npu](https://github.com/acme/engine-npu)" in md
    assert "acme: engine, engine-npu" in md  # the report names its repositories, not its key
    assert "..engine" not in md


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_items_are_named_and_linked_in_their_own_repository(combined, lang):
    _, _, both = combined
    md = render_markdown(both, lang)
    html = render_html(both, lang)
    # every item link goes to its own repository under the item's own number
    links = re.findall(r"\[([\w.-]+)#(\d+)\]\((https://github\.com/[^)]+)\)", md)
    assert links, md[:2000]
    for name, number, url in links:
        assert url.startswith(f"https://github.com/acme/{name}/") and url.endswith(f"/{number}"), (
            name,
            url,
        )
    assert not re.search(r"#\d{8}", md)  # no combined number is shown to a reader
    assert not re.search(r">#\d{8}<", html)
    assert 'class="repo-counts"' in html
    # the upstream change and its downstream adaptation are told on one line
    joined = [st for st in both.storylines if st.key.startswith("cross:")]
    assert len(joined) == 1
    assert "engine#900" in md and "engine-npu#901" in md


def test_a_single_repository_report_is_unchanged_by_the_hooks():
    a, _ = _summaries()
    view = build_view(a, messages("en"))
    assert view.repo_counts == () and view.repo == UP
    md = render_markdown(a, "en")
    assert "engine#" not in md.replace("acme/engine", "") and "| Repository |" not in md
