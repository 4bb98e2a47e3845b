"""The notifier's pure parts: the digest from a report's JSON model and lead, each destination's
payload, delivery keys, and which answers are worth retrying."""

from __future__ import annotations

import pytest

from services.notifier.adapters.senders import classify_status
from services.notifier.adapters.state import delivery_key
from services.notifier.domain.digest import (
    build_digest,
    discord_payload,
    email_html,
    email_text,
    github_markdown,
    lead_of,
    slack_payload,
    teams_payload,
)
from shared.events import Storyline, StorylineItem
from shared.http import retry_after_seconds
from tests.unit.renderer.samples import daily_summary


def digest(lang="en", lead="Lead <@here> & more.", storylines=2, summary="default", **links):
    s = (
        daily_summary(
            storylines=(
                Storyline(key="a", name="Small", items=(StorylineItem(number=1),), merged=1),
                Storyline(
                    key="b",
                    name="Big",
                    items=(StorylineItem(number=41184), StorylineItem(number=39612)),
                    lead=41184,
                    merged=2,
                ),
                Storyline(
                    key="c",
                    name="Middle",
                    items=(StorylineItem(number=2), StorylineItem(number=3)),
                    merged=1,
                ),
            )
        )
        if summary == "default"
        else summary
    )
    return build_digest(
        s,
        repo="vllm-project/vllm",
        window="2026-03-26",
        window_kind="day",
        revision=2,
        lang=lang,
        lead=lead,
        storylines=storylines,
        html_url=links.get("html"),
        pdf_url=links.get("pdf"),
    )


def test_lead_is_the_text_of_the_first_lead_paragraph():
    html = (
        '<p>before</p><p class="x lead">A &amp; <a href="#">b</a>\n <em>c</em>.</p>'
        '<p class="lead">second</p>'
    )
    assert lead_of(html) == "A & b c."
    assert lead_of("<p>no lead here</p>") == ""


def test_counts_deltas_and_top_storylines():
    d = digest()
    assert [(c.name, c.text()) for c in d.counts] == [
        ("new_issues", "37 (+6)"),
        ("closed_issues", "33 (+8)"),
        ("new_prs", "96 (+8)"),
        ("merged_prs", "41 (-3)"),
        ("closed_unmerged_prs", "29 (+8)"),
    ]
    # most merged first, then most items: the third is left out
    assert [s.name for s in d.storylines] == ["Big", "Middle"]
    assert d.storylines[0].url == "https://github.com/vllm-project/vllm/pull/41184"
    assert d.storylines[1].url is None  # its lead is not known


def test_chinese_labels():
    d = digest(lang="zh-CN")
    assert d.title == "vllm-project/vllm 日报 2026-03-26"
    assert d.counts[3].label == "合并 PR"
    assert d.storyline_text(d.storylines[0]) == "Big：2 项，已合并 2"


def test_slack_escapes_its_control_characters_and_links_as_mrkdwn():
    p = slack_payload(digest(html="https://r.example/a.html", pdf="https://r.example/a.pdf"))
    assert p["blocks"][1]["text"]["text"] == "Lead &lt;@here&gt; &amp; more."
    assert "<https://r.example/a.pdf|PDF>" in p["blocks"][-1]["elements"][0]["text"]
    assert p["text"].startswith("vllm-project/vllm daily report 2026-03-26: Lead")


def test_without_public_links_the_digest_says_so():
    for text in (
        slack_payload(digest())["blocks"][-1]["elements"][0]["text"],
        email_text(digest()),
        github_markdown(digest(), "k"),
    ):
        assert "the report's links are not public" in text
    assert "actions" not in teams_payload(digest())["attachments"][0]["content"]


def test_discord_pings_nobody_and_teams_is_an_adaptive_card():
    d = digest(html="https://r.example/a.html")
    p = discord_payload(d)
    assert p["allowed_mentions"] == {"parse": []}
    assert (
        p["embeds"][0]["url"] == "https://r.example/a.html" and len(p["embeds"][0]["fields"]) == 6
    )
    card = teams_payload(d)["attachments"][0]["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.4"
    assert card["actions"] == [
        {"type": "Action.OpenUrl", "title": "HTML", "url": "https://r.example/a.html"}
    ]


def test_without_the_json_model_the_digest_has_the_lead_and_links_only():
    d = digest(summary=None, html="https://r.example/a.html")
    assert d.counts == () and d.storylines == ()
    assert "<table>" not in email_html(d) and "https://r.example/a.html" in email_html(d)


def test_html_and_markdown_escape_titles():
    d = digest(lead="<script>x</script> *bold* | cell")
    assert "&lt;script&gt;" in email_html(d) and "<script>" not in email_html(d)
    assert "\\*bold\\* \\| cell" in github_markdown(d, "k")


def test_delivery_keys_are_kv_safe_and_distinct():
    key = delivery_key("slack-main", "my.org/re.po", "2026-W24", 3)
    assert key == "slack-main/my=2Eorg/re=2Epo/2026-W24/r3"
    assert delivery_key("a", "o/r", "w", 1) != delivery_key("a", "o/r", "w", 2)
    assert delivery_key("a", "o.r/x", "w", 1) != delivery_key("a", "o/r.x", "w", 1)


@pytest.mark.parametrize(
    "status,permanent",
    [
        (404, True),
        (400, True),
        (403, True),
        (410, True),
        (429, False),
        (408, False),
        (500, False),
        (502, False),
        (503, False),
    ],
)
def test_which_answers_are_retried(status, permanent):
    assert classify_status(status, "", None).permanent is permanent


def test_retry_after_in_seconds_or_as_a_date():
    assert retry_after_seconds("2") == 2.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None
