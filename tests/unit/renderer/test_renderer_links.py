"""Which item URLs a report links (only https on the repository's own forge) and how a Markdown
link target is written (it ends where the URL ends); titles are bounded."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from services.renderer.adapters.documents import render_html, render_markdown
from services.renderer.domain.links import forge_url, md_target
from services.renderer.domain.text import TITLE_MAX, bounded_title
from shared.events import Appendix, KeyPR

from .samples import REPO, daily_summary, pr

BASE = f"https://github.com/{REPO}"


@pytest.mark.parametrize(
    "url, linked",
    [
        (f"{BASE}/pull/1", True),
        (f"{BASE}/issues/22#issuecomment-3", True),
        (f"https://GitHub.com/{REPO.upper()}/pull/1", True),  # hosts and names are case-insensitive
        (f"{BASE}/pull/1)", True),  # linked, but escaped in Markdown (test below)
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)//https://github.com/vllm-project/vllm/pull/1", False),
        ("data:text/html,<script>alert(1)</script>", False),
        ("https://evil.example/x", False),
        (f"http://github.com/{REPO}/pull/1", False),  # not https
        ("https://github.com/other/repo/pull/1", False),  # another repository
        (f"https://github.com/{REPO}-fork/pull/1", False),
        (f"https://github.com.evil.example/{REPO}/pull/1", False),
        (f"https://user:pw@github.com/{REPO}/pull/1", False),
        (f"https://github.com:8443/{REPO}/pull/1", False),
        (f"https://github.com/{REPO}/../../evil/x", False),
        (f"https://github.com\\@evil.example/{REPO}/pull/1", False),
        (f"https://github.com/{REPO}/pull/1\njavascript:x", False),
        (f"{BASE}", False),  # the repository itself is not an item
        ("", False),
        ("https://[::1/x", False),  # does not parse
    ],
)
def test_only_https_urls_of_the_repository_are_linked(url: str, linked: bool) -> None:
    assert forge_url(url, BASE) == (url if linked else "")


def test_an_enterprise_forge_is_its_own_base() -> None:
    ghe = "https://ghe.example.com/team/app"
    assert forge_url("https://ghe.example.com/team/app/pull/7", ghe)
    assert not forge_url(f"{BASE}/pull/7", ghe)


def test_markdown_targets_are_percent_encoded() -> None:
    assert md_target(f"{BASE}/pull/1)") == f"{BASE}/pull/1%29"
    assert md_target('https://x/a b(c)<d>[e]"`') == "https://x/a%20b%28c%29%3Cd%3E%5Be%5D%22%60"
    assert (
        md_target(f"{BASE}/issues/2#issuecomment-3?x=1&y=%41")
        == f"{BASE}/issues/2#issuecomment-3?x=1&y=%41"
    )


class _Hrefs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "a":
            self.hrefs += [v or "" for k, v in attrs if k == "href"]


def hrefs(html: str) -> list[str]:
    parser = _Hrefs()
    parser.feed(html)
    return parser.hrefs


HOSTILE_URLS = {
    50001: "javascript:alert(1)",
    50002: "https://evil.example/x",
    50003: f"{BASE}/pull/1)",
}


def hostile_summary():
    items = tuple(
        pr(n, f"Item {n}", "mallory", modules=("moe",)).model_copy(update={"url": url})
        for n, url in HOSTILE_URLS.items()
    )
    return daily_summary(
        appendix=Appendix(merged_prs=items),
        key_prs=tuple(KeyPR(item=i, score=9.0 - k) for k, i in enumerate(items)),
    )


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_hostile_item_urls_are_not_linked(lang: str) -> None:
    summary = hostile_summary()
    html = render_html(summary, lang)
    links = hrefs(html)
    assert not [h for h in links if "javascript" in h.lower() or "evil" in h]
    assert f"{BASE}/pull/1)" in links  # the forge's URL stays a link
    assert "#50001" in html and "#50002" in html  # shown, as plain text

    md = render_markdown(summary, lang)
    assert "javascript" not in md.lower() and "evil.example" not in md
    assert f"[#50003]({BASE}/pull/1%29)" in md
    # as a CommonMark reader sees it: every item link is whole and goes where it should
    md_html = MarkdownIt("commonmark").render(md)
    md_links = hrefs(md_html)
    assert f"{BASE}/pull/1%29" in md_links
    assert not [h for h in md_links if "javascript" in h.lower() or "evil" in h]
    assert not re.search(r"\(https?://[^)\s]*\)\)|%29\)\)", md)  # no link cut short by the ')'
    assert ">#50003</a>)" not in md_html


def test_long_titles_are_cut_with_an_ellipsis() -> None:
    title = "x" * 100_000
    cut = bounded_title(title)
    assert len(cut) == TITLE_MAX + 1 and cut.endswith("…")
    words = ("word " * 1000).strip()
    assert bounded_title(words).endswith("word…") and len(bounded_title(words)) <= TITLE_MAX + 1
    assert bounded_title("A short title") == "A short title"

    item = pr(50001, title, "mallory", modules=("moe",))
    summary = daily_summary(
        appendix=Appendix(merged_prs=(item,)), key_prs=(KeyPR(item=item, score=9.0),)
    )
    md, html = render_markdown(summary, "en"), render_html(summary, "en")
    assert "x" * (TITLE_MAX + 1) not in md and "x" * (TITLE_MAX + 1) not in html
    assert "x" * TITLE_MAX + "…" in md and "x" * TITLE_MAX + "…" in html
