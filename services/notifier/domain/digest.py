"""The short digest of a report (lead, the five counts, top storylines, links) and its shape for
each destination: Slack Block Kit, a Discord embed, a Teams Adaptive Card, an e-mail, a GitHub
comment. Pure: the report's JSON model and lead come in, payloads go out."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from shared.events import SummaryData

COUNTS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "title.day": "{repo} daily report {label}",
        "title.week": "{repo} weekly report {label}",
        "title.month": "{repo} monthly report {label}",
        "title.custom": "{repo} report {label}",
        "new_issues": "New issues",
        "closed_issues": "Closed issues",
        "new_prs": "New PRs",
        "merged_prs": "Merged PRs",
        "closed_unmerged_prs": "Closed unmerged PRs",
        "storylines": "Top storylines",
        "storyline": "{merged} merged of {items}",
        "sep": ": ",
        "links": "Full report",
        "revision": "Revision {revision} (replaces an earlier one)",
        "no_links": "(the report's links are not public)",
    },
    "zh-CN": {
        "title.day": "{repo} 日报 {label}",
        "title.week": "{repo} 周报 {label}",
        "title.month": "{repo} 月报 {label}",
        "title.custom": "{repo} 报告 {label}",
        "new_issues": "新增 Issue",
        "closed_issues": "关闭 Issue",
        "new_prs": "新增 PR",
        "merged_prs": "合并 PR",
        "closed_unmerged_prs": "未合并关闭 PR",
        "storylines": "主要工作线",
        "storyline": "{items} 项，已合并 {merged}",
        "sep": "：",
        "links": "完整报告",
        "revision": "第 {revision} 版（替换先前版本）",
        "no_links": "（报告链接未公开）",
    },
}


@dataclass(frozen=True)
class Count:
    name: str
    label: str
    value: int | None
    delta: int | None = None

    def text(self) -> str:
        value = "n/a" if self.value is None else f"{self.value:,}"
        if self.delta:
            value += f" ({self.delta:+,})"
        return value


@dataclass(frozen=True)
class StorylineLine:
    name: str
    merged: int
    items: int
    url: str | None  # the storyline's lead PR on the forge


@dataclass(frozen=True)
class Digest:
    repo: str
    window: str
    window_kind: str
    revision: int
    lang: str
    title: str
    lead: str
    counts: tuple[Count, ...]
    storylines: tuple[StorylineLine, ...]
    html_url: str | None
    pdf_url: str | None
    labels: dict[str, str] = field(default_factory=dict)

    def storyline_rest(self, s: StorylineLine) -> str:
        return self.labels["storyline"].format(merged=s.merged, items=s.items)

    def storyline_text(self, s: StorylineLine) -> str:
        return s.name + self.labels["sep"] + self.storyline_rest(s)


class _LeadParser(HTMLParser):
    """The text of the report's `<p class="lead">` (the renderer's HTML, narrated or not)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.parts: list[str] = []
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        if self.depth:
            self.depth += 1 if tag == "p" else 0
        elif tag == "p" and "lead" in (dict(attrs).get("class") or "").split():
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "p":
            self.depth -= 1
            self.done = self.done or self.depth == 0

    def handle_data(self, data: str) -> None:
        if self.depth and not self.done:
            self.parts.append(data)


def lead_of(report_html: str) -> str:
    parser = _LeadParser()
    parser.feed(report_html)
    return " ".join("".join(parser.parts).split())


def build_digest(
    summary: SummaryData | None,
    *,
    repo: str,
    window: str,
    window_kind: str,
    revision: int,
    lang: str,
    lead: str,
    html_url: str | None,
    pdf_url: str | None,
    storylines: int = 3,
) -> Digest:
    labels = LABELS.get(lang, LABELS["en"])
    counts: tuple[Count, ...] = ()
    lines: tuple[StorylineLine, ...] = ()
    if summary is not None:
        prev = summary.previous_counts
        counts = tuple(
            Count(
                name,
                labels[name],
                getattr(summary.counts, name),
                None
                if prev is None
                or getattr(prev, name) is None
                or getattr(summary.counts, name) is None
                else getattr(summary.counts, name) - getattr(prev, name),
            )
            for name in COUNTS
        )
        urls = {i.number: i.url for k in summary.key_prs for i in (k.item,)}
        for lst in (summary.appendix.merged_prs, summary.appendix.new_prs):
            urls.update({i.number: i.url for i in lst})
        top = sorted(summary.storylines, key=lambda s: (-s.merged, -len(s.items), s.name))
        lines = tuple(
            StorylineLine(
                s.name, s.merged, len(s.items), urls.get(s.lead) if s.lead is not None else None
            )
            for s in top[:storylines]
        )
    title = labels.get(f"title.{window_kind}", labels["title.custom"]).format(
        repo=repo, label=window
    )
    return Digest(
        repo=repo,
        window=window,
        window_kind=window_kind,
        revision=revision,
        lang=lang,
        title=title,
        lead=lead,
        counts=counts,
        storylines=lines,
        html_url=html_url,
        pdf_url=pdf_url,
        labels=labels,
    )


# ---------------------------------------------------------------- Slack (Block Kit, mrkdwn)


def _slack_escape(text: str) -> str:
    # Slack's three control characters; nothing else is escaped in mrkdwn text
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def slack_payload(d: Digest) -> dict[str, Any]:
    """Block Kit blocks with a plain `text` fallback (notifications, screen readers)."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _cut(d.title, 150)}},
    ]
    if d.lead:
        blocks.append(
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": _cut(_slack_escape(d.lead), 3000)},
            }
        )
    if d.counts:
        blocks.append(
            {
                "type": "section",
                "fields": [
                    {"type": "mrkdwn", "text": f"*{_slack_escape(c.label)}*\n{c.text()}"}
                    for c in d.counts
                ],
            }
        )
    if d.storylines:
        rows = [
            f"• <{s.url}|{_slack_escape(s.name)}>{d.labels['sep']}"
            + _slack_escape(d.storyline_rest(s))
            if s.url
            else f"• {_slack_escape(d.storyline_text(s))}"
            for s in d.storylines
        ]
        blocks.append(
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": _cut(
                        f"*{_slack_escape(d.labels['storylines'])}*\n" + "\n".join(rows), 3000
                    ),
                },
            }
        )
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": _links_mrkdwn(d)}]})
    return {
        "text": _cut(f"{d.title}: {d.lead}" if d.lead else d.title, 3000),
        "blocks": blocks,
        "unfurl_links": False,
    }


def _links_mrkdwn(d: Digest) -> str:
    parts = [f"<{u}|{n}>" for n, u in (("HTML", d.html_url), ("PDF", d.pdf_url)) if u]
    tail = " · ".join(parts) if parts else _slack_escape(d.labels["no_links"])
    return f"{_slack_escape(d.labels['links'])}: {tail} · r{d.revision}"


# ---------------------------------------------------------------- Discord (content + embed)


def discord_payload(d: Digest) -> dict[str, Any]:
    embed: dict[str, Any] = {
        "title": _cut(d.title, 256),
        "description": _cut(d.lead, 4096) if d.lead else None,
        "fields": [{"name": c.label, "value": c.text(), "inline": True} for c in d.counts],
        "footer": {"text": f"r{d.revision}"},
    }
    if d.html_url:
        embed["url"] = d.html_url
    if d.storylines:
        embed["fields"].append(
            {
                "name": _cut(d.labels["storylines"], 256),
                "inline": False,
                "value": _cut(
                    "\n".join(
                        f"[{s.name}]({s.url}){d.labels['sep']}{d.storyline_rest(s)}"
                        if s.url
                        else d.storyline_text(s)
                        for s in d.storylines
                    ),
                    1024,
                ),
            }
        )
    links = " · ".join(f"[{n}]({u})" for n, u in (("HTML", d.html_url), ("PDF", d.pdf_url)) if u)
    embed = {k: v for k, v in embed.items() if v is not None}
    return {
        "content": _cut(
            f"**{d.title}**" + (f" — {d.labels['links']}: {links}" if links else ""), 2000
        ),
        "embeds": [embed],
        # a PR title such as "@everyone ..." must not ping a server
        "allowed_mentions": {"parse": []},
    }


# ---------------------------------------------------------------- Teams (Adaptive Card)


def teams_payload(d: Digest) -> dict[str, Any]:
    """A message with one Adaptive Card, as a Teams Workflows ("Post to a channel when a webhook
    request is received") webhook takes it; Office 365 connector MessageCards are retired."""
    body: list[dict[str, Any]] = [
        {"type": "TextBlock", "text": d.title, "weight": "Bolder", "size": "Medium", "wrap": True},
    ]
    if d.lead:
        body.append({"type": "TextBlock", "text": d.lead, "wrap": True})
    if d.counts:
        body.append(
            {"type": "FactSet", "facts": [{"title": c.label, "value": c.text()} for c in d.counts]}
        )
    if d.storylines:
        body.append(
            {"type": "TextBlock", "text": d.labels["storylines"], "weight": "Bolder", "wrap": True}
        )
        body.append(
            {
                "type": "TextBlock",
                "wrap": True,
                "text": "\n".join(
                    f"- [{s.name}]({s.url}){d.labels['sep']}{d.storyline_rest(s)}"
                    if s.url
                    else f"- {d.storyline_text(s)}"
                    for s in d.storylines
                ),
            }
        )
    actions = [
        {"type": "Action.OpenUrl", "title": n, "url": u}
        for n, u in (("HTML", d.html_url), ("PDF", d.pdf_url))
        if u
    ]
    card: dict[str, Any] = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": body,
    }
    if actions:
        card["actions"] = actions
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": "application/vnd.microsoft.card.adaptive",
                "contentUrl": None,
                "content": card,
            }
        ],
    }


# ---------------------------------------------------------------- e-mail and GitHub


def email_text(d: Digest) -> str:
    lines = [d.title, "", d.lead, ""] if d.lead else [d.title, ""]
    lines += [f"{c.label}: {c.text()}" for c in d.counts]
    if d.storylines:
        lines += ["", d.labels["storylines"] + ":"]
        lines += [
            f"- {d.storyline_text(s)}" + (f" <{s.url}>" if s.url else "") for s in d.storylines
        ]
    links = [f"{n}: {u}" for n, u in (("HTML", d.html_url), ("PDF", d.pdf_url)) if u]
    lines += ["", d.labels["links"] + ":", *links] if links else ["", d.labels["no_links"]]
    return "\n".join(lines).strip() + "\n"


def email_html(d: Digest) -> str:
    e = html.escape
    parts = [f'<html><body lang="{e(d.lang)}">', f"<h2>{e(d.title)}</h2>"]
    if d.lead:
        parts.append(f'<p class="lead">{e(d.lead)}</p>')
    if d.counts:
        parts.append(
            "<table>"
            + "".join(
                f'<tr><th align="left">{e(c.label)}</th><td>{e(c.text())}</td></tr>'
                for c in d.counts
            )
            + "</table>"
        )
    if d.storylines:
        parts.append(
            f"<h3>{e(d.labels['storylines'])}</h3><ul>"
            + "".join(
                f'<li><a href="{e(s.url)}">{e(d.storyline_text(s))}</a></li>'
                if s.url
                else f"<li>{e(d.storyline_text(s))}</li>"
                for s in d.storylines
            )
            + "</ul>"
        )
    links = [
        f'<a href="{e(u)}">{n}</a>' for n, u in (("HTML", d.html_url), ("PDF", d.pdf_url)) if u
    ]
    parts.append(
        f"<p>{e(d.labels['links'])}: "
        + (" · ".join(links) if links else e(d.labels["no_links"]))
        + "</p>"
    )
    parts.append("</body></html>")
    return "\n".join(parts)


_MD = re.compile(r"([\\`*_\[\]<>|])")


def _md(text: str) -> str:
    return _MD.sub(r"\\\1", text)


def github_markdown(d: Digest, key: str) -> str:
    """A comment; the hidden marker names the route and revision it delivers."""
    lines = [f"### {_md(d.title)}", ""]
    if d.lead:
        lines += [_md(d.lead), ""]
    if d.counts:
        lines += [
            "| " + " | ".join(_md(c.label) for c in d.counts) + " |",
            "|" + "---|" * len(d.counts),
            "| " + " | ".join(c.text() for c in d.counts) + " |",
            "",
        ]
    if d.storylines:
        lines += [f"**{_md(d.labels['storylines'])}**", ""]
        lines += [
            f"- [{_md(d.storyline_text(s))}]({s.url})" if s.url else f"- {_md(d.storyline_text(s))}"
            for s in d.storylines
        ]
        lines.append("")
    links = [f"[{n}]({u})" for n, u in (("HTML", d.html_url), ("PDF", d.pdf_url)) if u]
    lines.append(
        f"{_md(d.labels['links'])}: " + (" · ".join(links) if links else _md(d.labels["no_links"]))
    )
    lines += ["", f"<!-- repodigest-notifier {key} -->"]
    return "\n".join(lines) + "\n"
