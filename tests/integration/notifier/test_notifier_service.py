"""The notifier on a real nats-server, posting to local servers that speak each protocol: an HTTP
receiver for the Slack, Discord and Teams webhooks, a real SMTP server (aiosmtpd) with AUTH, and
the GitHub emulator (issue comments over REST, Discussion comments over GraphQL, via PyGithub).

Proved here: one post per report revision per route across a redelivered report-ready and across
a notifier restart; a 500 then 200 is retried and posts once; a 429's Retry-After is the wait; a
route that keeps failing is nacked and redelivered, and the routes already posted are not posted
again; a 404 route is dead-lettered with its reason while the other routes post; no webhook URL,
password or token in any log record or dead letter."""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import UTC, datetime

import nats
import pytest

from services.notifier.adapters.state import delivery_key
from services.notifier.app import build_service
from services.notifier.config import NotifierSettings
from services.renderer.adapters.documents import render_html, render_json
from shared.config import CommonSettings
from shared.events import Artifact, ReportReady, ReportReadyData, Storyline, StorylineItem
from shared.events.dead import DeadLetter
from shared.messaging import KV_NOTIFIER_STATE, OBJECT_BUCKET, STREAM_DEAD, Subjects, event_headers
from shared.service import Runtime
from tests.github_emulator import GithubEmulator
from tests.integration.notifier.servers import MailHandler, WebhookReceiver, start_smtp
from tests.signals import stats_reach
from tests.unit.renderer.samples import daily_summary

pytestmark = pytest.mark.timeout(180)

REPO = "vllm-project/vllm"
SLACK_TOKEN = "xoxb-SLACKSECRET9f3a"
DISCORD_TOKEN = "DISCORDSECRET-7c1e"
TEAMS_SIG = "TEAMSSIGSECRET4d2b"
SMTP_PASSWORD = "smtp-pass-SECRET-81"
GITHUB_TOKEN = "ghp_GITHUBSECRET0042"
SECRETS = (SLACK_TOKEN, DISCORD_TOKEN, TEAMS_SIG, SMTP_PASSWORD, GITHUB_TOKEN)
PDF = b"%PDF-1.7\n% a stand-in PDF for the attachment\n%%EOF\n"


def summary():
    return daily_summary(
        synthetic=False,
        storylines=(
            Storyline(
                key="moerunner",
                name="MoERunner",
                items=(StorylineItem(number=41184, role="refactor"),),
                lead=41184,
                merged=1,
            ),
            Storyline(
                key="gguf",
                name="GGUF out of core",
                items=(StorylineItem(number=39612, role="refactor"),),
                lead=39612,
                merged=1,
            ),
        ),
    )


async def store_report(js, s) -> ReportReady:
    """The renderer's own HTML and JSON of a summary (and a PDF) in RD_ARTIFACTS, announced by
    a report-ready as the renderer announces them."""
    store = await js.object_store(OBJECT_BUCKET)
    artifacts = []
    for fmt, data, ctype in (
        ("html", render_html(s, "en").encode(), "text/html; charset=utf-8"),
        ("json", render_json(s).encode(), "application/json"),
        ("pdf", PDF, "application/pdf"),
    ):
        key = f"reports/vllm-project/vllm/{s.window.label}/r{s.revision}/en/report.{fmt}"
        await store.put(key, data)
        artifacts.append(
            Artifact(
                format=fmt,
                language="en",
                uri=f"nats://{OBJECT_BUCKET}/{key}",
                key=key,
                size=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
                content_type=ctype,
            )
        )
    return ReportReady.create(
        ReportReadyData(
            repo=s.repo,
            window=s.window,
            revision=s.revision,
            languages=("en",),
            artifacts=tuple(artifacts),
            summary_id="summary-1",
            rendered_at=datetime(2026, 3, 27, 4, 5, tzinfo=UTC),
        )
    )


async def start(nats_url: str, routes: list[dict], **extra):
    settings = NotifierSettings(
        nats_url=nats_url,
        notifier_routes=routes,
        notifier_public_base_url="https://reports.example.org/rd",
        notifier_backoff=0.0,
        notifier_attempts=3,
        **extra,
    )
    runtime = Runtime(CommonSettings(nats_url=nats_url), "notifier-test")
    service = build_service(settings, runtime)
    runtime.add(service)
    await runtime.start()
    return runtime, service


async def deliver(runtime: Runtime, ready: ReportReady, copy: int = 0) -> None:
    """Publish the report-ready; copy > 0 is the same event as another stream message (what a
    redelivery or a renderer's retry after the dedup window looks like to the consumer)."""
    headers = event_headers(ready)
    if copy:
        headers["Nats-Msg-Id"] = f"{ready.id}:copy{copy}"
    await runtime.bus("renderer").publish_raw(
        ready.to_bytes(), Subjects.report_ready(ready.data.repo), headers
    )


async def processed(service, n: int) -> None:
    await stats_reach(
        service.consumer.stats,
        lambda stats: stats.processed >= n,
        60,
        f"{n} report-ready acknowledged by the notifier",
    )


def messages(caplog) -> list[str]:
    out = []
    for r in caplog.records:
        out.append(r.getMessage())
        if r.exc_info and r.exc_info[1] is not None:
            out.append(str(r.exc_info[1]))
    return out


def assert_no_secret(texts) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"a secret reached the output: {text[:300]}"


async def test_every_route_posts_once_across_redelivery_and_restart(nats_server, caplog):
    caplog.set_level(logging.DEBUG)
    receiver = await WebhookReceiver().start()
    mail = MailHandler()
    smtp, smtp_port, logins = await start_smtp(mail, "digest", SMTP_PASSWORD)
    gh = GithubEmulator(token=GITHUB_TOKEN).start()
    gh.repos.add(REPO)
    gh.add_discussion(REPO, 7)
    base = receiver.base_url
    routes = [
        {
            "name": "slack",
            "kind": "slack",
            "url": f"{base}/slack/services/T0/B0/{SLACK_TOKEN}",
            "repos": ["vllm-project/*"],
            "windows": ["day"],
        },
        {"name": "discord", "kind": "discord", "url": f"{base}/discord/webhooks/1/{DISCORD_TOKEN}"},
        {"name": "teams", "kind": "teams", "url": f"{base}/teams/workflows/run?sig={TEAMS_SIG}"},
        {
            "name": "mail",
            "kind": "email",
            "smtp_host": "127.0.0.1",
            "smtp_port": smtp_port,
            "smtp_security": "none",
            "smtp_user": "digest",
            "smtp_password": SMTP_PASSWORD,
            "mail_from": "repodigest@example.org",
            "mail_to": ["team@example.org"],
        },
        {
            "name": "gh-issue",
            "kind": "github",
            "target": "issue",
            "number": 100,
            "token": GITHUB_TOKEN,
            "api_url": gh.base_url,
        },
        {
            "name": "gh-discussion",
            "kind": "github",
            "target": "discussion",
            "number": 7,
            "token": GITHUB_TOKEN,
            "api_url": gh.base_url,
        },
        # matches neither the window kind nor the repository: never posts
        {"name": "weekly-only", "kind": "slack", "url": f"{base}/weekly/x", "windows": ["week"]},
        {"name": "other-repo", "kind": "slack", "url": f"{base}/other/x", "repos": ["acme/*"]},
    ]
    runtime, service = await start(nats_server.url, routes)
    runtime2 = None
    try:
        nc = await nats.connect(nats_server.url)
        js = nc.jetstream()
        s = summary()
        ready = await store_report(js, s)
        await deliver(runtime, ready)
        await processed(service, 1)

        def counts():
            return (
                len(receiver.ok("slack")),
                len(receiver.ok("discord")),
                len(receiver.ok("teams")),
                len(mail.messages),
                sum(1 for c in gh.comments if c[1] == "issue"),
                sum(1 for c in gh.comments if c[1] == "discussion"),
            )

        assert counts() == (1, 1, 1, 1, 1, 1)
        assert not receiver.tries("weekly") and not receiver.tries("other")

        # what each protocol received: the report's own lead, the five counts, storylines, links
        html_url = (
            "https://reports.example.org/rd/reports/vllm-project/vllm/2026-03-26/r2/en/report.html"
        )
        pdf_url = html_url.replace(".html", ".pdf")
        slack = receiver.ok("slack")[0].payload
        assert slack["blocks"][0]["text"]["text"] == "vllm-project/vllm daily report 2026-03-26"
        lead = slack["blocks"][1]["text"]["text"]
        assert lead.startswith("Over the day, vllm-project/vllm merged 41 pull requests")
        fields = [f["text"] for f in slack["blocks"][2]["fields"]]
        assert fields == [
            "*New issues*\n37 (+6)",
            "*Closed issues*\n33 (+8)",
            "*New PRs*\n96 (+8)",
            "*Merged PRs*\n41 (-3)",
            "*Closed unmerged PRs*\n29 (+8)",
        ]
        assert (
            "<https://github.com/vllm-project/vllm/pull/41184|MoERunner>"
            in slack["blocks"][3]["text"]["text"]
        )
        assert f"<{html_url}|HTML>" in slack["blocks"][4]["elements"][0]["text"]
        assert f"<{pdf_url}|PDF>" in slack["blocks"][4]["elements"][0]["text"]
        discord = receiver.ok("discord")[0].payload
        assert discord["allowed_mentions"] == {"parse": []}
        embed = discord["embeds"][0]
        assert embed["url"] == html_url and embed["description"] == lead
        assert [f["value"] for f in embed["fields"][:5]] == [
            "37 (+6)",
            "33 (+8)",
            "96 (+8)",
            "41 (-3)",
            "29 (+8)",
        ]
        teams = receiver.ok("teams")[0].payload
        card = teams["attachments"][0]
        assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
        assert card["content"]["type"] == "AdaptiveCard"
        assert {a["url"] for a in card["content"]["actions"]} == {html_url, pdf_url}
        facts = next(b for b in card["content"]["body"] if b["type"] == "FactSet")["facts"]
        assert facts[3] == {"title": "Merged PRs", "value": "41 (-3)"}

        message = mail.messages[0]
        assert message["Subject"] == "vllm-project/vllm daily report 2026-03-26"
        assert message["To"] == "team@example.org" and logins == ["ok"]
        body = message.get_body(("html",)).get_content()
        assert lead.split(",")[0] in body and html_url in body
        [attachment] = list(message.iter_attachments())
        assert attachment.get_filename() == "report.pdf"
        assert attachment.get_content() == PDF

        issue_comment = next(c for c in gh.comments if c[1] == "issue")
        assert issue_comment[:3] == (REPO, "issue", 100)
        assert "| 37 (+6) | 33 (+8) | 96 (+8) | 41 (-3) | 29 (+8) |" in issue_comment[3]
        key = delivery_key("gh-issue", REPO, "2026-03-26", 2)
        assert f"<!-- repodigest-notifier {key} -->" in issue_comment[3]
        assert next(c for c in gh.comments if c[1] == "discussion")[:3] == (REPO, "discussion", 7)

        kv = await js.key_value(KV_NOTIFIER_STATE)
        for name in ("slack", "discord", "teams", "mail", "gh-issue", "gh-discussion"):
            entry = await kv.get(delivery_key(name, REPO, "2026-03-26", 2))
            assert json.loads(entry.value)["state"] == "sent", name

        # the same report-ready again (another stream message): nothing is posted again
        await deliver(runtime, ready, copy=1)
        await processed(service, 2)
        assert counts() == (1, 1, 1, 1, 1, 1)

        # a new notifier process (the delivery record is in JetStream, not in memory)
        await runtime.stop()
        runtime = None
        runtime2, service2 = await start(nats_server.url, routes)
        await deliver(runtime2, ready, copy=2)
        await processed(service2, 1)
        assert counts() == (1, 1, 1, 1, 1, 1)

        # a new revision of the window is a new digest on every matching route
        s3 = summary().model_copy(update={"revision": 3})
        ready3 = await store_report(js, s3)
        await deliver(runtime2, ready3)
        await processed(service2, 2)
        assert counts() == (2, 2, 2, 2, 2, 2)
        await nc.close()
    finally:
        if runtime is not None:
            await runtime.stop()
        if runtime2 is not None:
            await runtime2.stop()
        gh.stop()
        smtp.close()
        await receiver.stop()
    texts = messages(caplog)
    # the client library did log each request: the test would see a leaked URL
    requests = [t for t in texts if t.startswith("HTTP Request: POST")]
    assert requests and all("***" in t for t in requests)
    assert_no_secret(texts)


async def test_retries_500_then_200_and_honours_retry_after(nats_server, caplog):
    caplog.set_level(logging.INFO)
    receiver = await WebhookReceiver().start()
    receiver.answer("slack", (500, {}))
    receiver.answer("discord", (429, {"Retry-After": "1"}))
    base = receiver.base_url
    routes = [
        {"name": "slack", "kind": "slack", "url": f"{base}/slack/hook/{SLACK_TOKEN}"},
        {"name": "discord", "kind": "discord", "url": f"{base}/discord/hook/{DISCORD_TOKEN}"},
    ]
    runtime, service = await start(nats_server.url, routes)
    try:
        nc = await nats.connect(nats_server.url)
        ready = await store_report(nc.jetstream(), summary())
        await deliver(runtime, ready)
        await processed(service, 1)
        await nc.close()
    finally:
        await runtime.stop()
        await receiver.stop()
    assert [r.status for r in receiver.tries("slack")] == [500, 200]
    assert [r.status for r in receiver.tries("discord")] == [429, 200]
    assert service.consumer.stats.retried == 0  # retried inside the delivery, not redelivered
    texts = messages(caplog)
    # backoff is 0 in this test: the one wait of a second is the service's Retry-After
    assert any(
        t.startswith("route discord: attempt 1 failed (HTTP 429 Too Many Requests")
        and t.endswith("retrying in 1.0s")
        for t in texts
    ), texts
    assert any(
        t.startswith("route slack: attempt 1 failed (HTTP 500 Internal Server Error")
        and t.endswith("retrying in 0.0s")
        for t in texts
    ), texts
    assert_no_secret(texts)


async def test_a_route_still_failing_is_redelivered_without_reposting_the_others(nats_server):
    receiver = await WebhookReceiver().start()
    receiver.answer("slack", (502, {}), (503, {}), (500, {}))  # all three attempts of delivery 1
    base = receiver.base_url
    routes = [
        {"name": "slack", "kind": "slack", "url": f"{base}/slack/hook/{SLACK_TOKEN}"},
        {"name": "discord", "kind": "discord", "url": f"{base}/discord/hook/{DISCORD_TOKEN}"},
    ]
    runtime, service = await start(nats_server.url, routes)
    try:
        nc = await nats.connect(nats_server.url)
        js = nc.jetstream()
        ready = await store_report(js, summary())
        await deliver(runtime, ready)
        await processed(service, 1)  # acked on the second delivery
        kv = await js.key_value(KV_NOTIFIER_STATE)
        record = json.loads((await kv.get(delivery_key("slack", REPO, "2026-03-26", 2))).value)
        await nc.close()
    finally:
        await runtime.stop()
        await receiver.stop()
    assert service.consumer.stats.retried == 1
    assert [r.status for r in receiver.tries("slack")] == [502, 503, 500, 200]
    assert [r.status for r in receiver.tries("discord")] == [200]
    assert record["state"] == "sent" and record["attempts"] == 4


async def test_a_refused_route_is_dead_lettered_and_the_others_post(nats_server, caplog):
    caplog.set_level(logging.DEBUG)
    receiver = await WebhookReceiver().start()
    receiver.answer("teams", (404, {}))
    gh = GithubEmulator(token=GITHUB_TOKEN).start()  # knows no repository: 404 on the comment
    base = receiver.base_url
    routes = [
        {"name": "slack", "kind": "slack", "url": f"{base}/slack/hook/{SLACK_TOKEN}"},
        {"name": "teams", "kind": "teams", "url": f"{base}/teams/run?sig={TEAMS_SIG}"},
        {
            "name": "gh",
            "kind": "github",
            "number": 5,
            "token": GITHUB_TOKEN,
            "api_url": gh.base_url,
        },
    ]
    runtime, service = await start(nats_server.url, routes)
    try:
        nc = await nats.connect(nats_server.url)
        js = nc.jetstream()
        ready = await store_report(js, summary())
        await deliver(runtime, ready)
        await processed(service, 1)
        await deliver(runtime, ready, copy=1)  # refused routes are not tried again either
        await processed(service, 2)
        sub = await js.pull_subscribe("rd.dead.notifier", stream=STREAM_DEAD)
        letters = await sub.fetch(10, timeout=5)
        with pytest.raises(nats.errors.TimeoutError):
            await sub.fetch(1, timeout=1)
        await nc.close()
    finally:
        await runtime.stop()
        gh.stop()
        await receiver.stop()
    assert len(receiver.ok("slack")) == 1
    assert [r.status for r in receiver.tries("teams")] == [404]  # not retried
    assert gh.count("/issues/5/comments", 404) == 1
    assert len(letters) == 2
    dead = {DeadLetter.from_headers(m.headers).reason: m for m in letters}
    teams = next(r for r in dead if r.startswith("route teams (teams): HTTP 404 Not Found"))
    assert teams.endswith("(permanent: not retried)")
    gh_reason = next(r for r in dead if r.startswith("route gh (github): HTTP 404"))
    assert "vllm-project/vllm issue #5: Not Found" in gh_reason
    for reason, msg in dead.items():
        assert msg.data == ready.to_bytes()  # the report-ready itself, intact
        letter = DeadLetter.from_headers(msg.headers)
        assert letter.service == "notifier" and letter.event_id == ready.id
        assert letter.subject == Subjects.report_ready(REPO)
        assert_no_secret([reason, json.dumps(msg.headers)])
    assert_no_secret(messages(caplog))


async def test_invalid_routes_are_refused_without_repeating_secrets(tmp_path):
    from pydantic import ValidationError

    from services.notifier.config import describe

    bad = [{"name": "Slack!", "kind": "slack", "url": f"https://hooks.example/{SLACK_TOKEN}"}]
    with pytest.raises(ValidationError) as info:
        NotifierSettings(notifier_routes=bad)
    text = describe(info.value)
    assert "notifier_routes.0.slack.name" in text and SLACK_TOKEN not in text
    path = tmp_path / "routes.yaml"
    path.write_text(
        f"- name: mail\n  kind: email\n  smtp_host: x\n  mail_from: a@b\n"
        f"  mail_to: [c@d]\n  smtp_password: {SMTP_PASSWORD}\n"
    )
    settings = NotifierSettings(notifier_routes_file=str(path))
    with pytest.raises(ValueError) as info2:
        settings.routes()
    assert "smtp_user and smtp_password go together" in str(info2.value)
    assert SMTP_PASSWORD not in str(info2.value)


class LosesTheFirstSentRecord:
    """The delivery log, except that recording the first `sent` fails: what a crash (or NATS going
    away) between a post and its record leaves behind."""

    def __init__(self, inner) -> None:
        self.inner, self.lost = inner, set()

    async def get(self, key):
        return await self.inner.get(key)

    async def claim(self, key, current, record):
        return await self.inner.claim(key, current, record)

    async def put(self, key, record):
        if record.state == "sent" and key not in self.lost:  # once per route
            self.lost.add(key)
            raise ConnectionError("the record was not written")
        await self.inner.put(key, record)


async def test_the_documented_gap_a_post_whose_record_is_lost_is_posted_again(nats_server, caplog):
    """README, 'the honest limit': a post the receiver took but whose `sent` record was never
    written is posted again on the redelivery (at-least-once there), with a warning; after that
    the record holds and copies post nothing. A GitHub issue comment is looked for first (its
    marker), so that route does not repeat."""
    from services.notifier.adapters.state import KvDeliveryLog

    caplog.set_level(logging.INFO)
    receiver = await WebhookReceiver().start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    log = LosesTheFirstSentRecord(await KvDeliveryLog.open(js))
    gh = GithubEmulator(token=GITHUB_TOKEN).start()
    gh.repos.add(REPO)
    settings = NotifierSettings(
        nats_url=nats_server.url,
        notifier_backoff=0.0,
        notifier_routes=[
            {
                "name": "slack",
                "kind": "slack",
                "url": f"{receiver.base_url}/slack/hook/{SLACK_TOKEN}",
            },
            {
                "name": "gh",
                "kind": "github",
                "number": 9,
                "token": GITHUB_TOKEN,
                "api_url": gh.base_url,
            },
        ],
    )
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "notifier-test")
    service = build_service(settings, runtime, state=log)
    runtime.add(service)
    await runtime.start()
    try:
        ready = await store_report(js, summary())
        await deliver(runtime, ready)
        await processed(service, 1)
        await deliver(runtime, ready, copy=1)
        await processed(service, 2)
    finally:
        await runtime.stop()
        await receiver.stop()
        await nc.close()
        gh.stop()
    assert len(log.lost) == 2 and service.consumer.stats.retried == 1
    assert len(receiver.ok("slack")) == 2  # the repeat the README owns up to, and no third
    assert len(gh.comments) == 1 and gh.count("/issues/9/comments") == 2  # a POST, then a GET
    assert any("ended without a record" in t for t in messages(caplog))


async def test_readiness_reads_the_delivery_record(nats_server):
    from shared.health import readiness

    runtime, service = await start(nats_server.url, [])
    try:
        checks = await readiness(runtime)
    finally:
        await runtime.stop()
    assert checks["notifier"] == "ok" and checks["consumer:notifier-deliver"] == "ok"


async def test_smtp_451_is_retried_and_a_refused_login_is_dead_lettered(nats_server, caplog):
    caplog.set_level(logging.DEBUG)
    mail = MailHandler()
    mail.refuse.append("451 4.3.0 Mail server temporarily busy")
    smtp, port, logins = await start_smtp(mail, "digest", SMTP_PASSWORD)
    common = {
        "kind": "email",
        "smtp_host": "127.0.0.1",
        "smtp_port": port,
        "smtp_security": "none",
        "smtp_user": "digest",
        "mail_from": "rd@example.org",
        "mail_to": ["team@example.org"],
    }
    routes = [
        {"name": "mail", "smtp_password": SMTP_PASSWORD, **common},
        {"name": "mail-old-password", "smtp_password": "not-" + SMTP_PASSWORD, **common},
    ]
    runtime, service = await start(nats_server.url, routes)
    try:
        nc = await nats.connect(nats_server.url)
        js = nc.jetstream()
        ready = await store_report(js, summary())
        await deliver(runtime, ready)
        await processed(service, 1)
        sub = await js.pull_subscribe("rd.dead.notifier", stream=STREAM_DEAD)
        [letter] = await sub.fetch(1, timeout=5)
        await nc.close()
    finally:
        await runtime.stop()
        smtp.close()
    # the good login twice (the 451, then the retry); the old password once, not retried:
    # smtplib tries each mechanism the server offers (PLAIN, LOGIN) before it gives up
    assert len(mail.messages) == 1 and sorted(logins) == ["ok", "ok", "refused", "refused"]
    reason = DeadLetter.from_headers(letter.headers).reason
    assert reason.startswith("route mail-old-password (email): SMTP login refused (535)")
    assert any(
        t.startswith("route mail: attempt 1 failed (SMTP 451 4.3.0 Mail server temporarily busy)")
        for t in messages(caplog)
    )
    assert_no_secret(messages(caplog) + [reason, json.dumps(letter.headers)])


async def test_another_notifiers_fresh_claim_is_awaited_and_a_stale_one_taken_over(nats_server):
    """Two replicas with copies of one report-ready: the route another notifier is posting
    right now (a fresh `sending` claim of another owner) is not posted here; its `sent` record
    ends the wait. A claim left by a notifier that died long ago is taken over (posted once)."""
    from datetime import timedelta

    from services.notifier.adapters.state import KvDeliveryLog, Record

    receiver = await WebhookReceiver().start()
    base = receiver.base_url
    routes = [
        {"name": "busy", "kind": "slack", "url": f"{base}/busy/hook/{SLACK_TOKEN}"},
        {"name": "stale", "kind": "slack", "url": f"{base}/stale/hook/{SLACK_TOKEN}"},
    ]
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    runtime, service = await start(nats_server.url, routes)
    try:
        records = await KvDeliveryLog.open(js)
        busy = delivery_key("busy", REPO, "2026-03-26", 2)
        now = datetime.now(UTC)
        await records.put(busy, Record("sending", now.isoformat(), 1, owner="replica-2"))
        await records.put(
            delivery_key("stale", REPO, "2026-03-26", 2),
            Record("sending", (now - timedelta(hours=1)).isoformat(), 1, owner="replica-gone"),
        )
        ready = await store_report(js, summary())
        await deliver(runtime, ready)

        await stats_reach(
            service.consumer.stats,
            lambda stats: stats.retried >= 1,
            30,
            "the report-ready to be nacked while replica-2 posts",
        )
        await receiver.wait_for(lambda: receiver.ok("stale"))
        # replica-2 finishes its post
        await records.put(busy, Record("sent", now.isoformat(), 1, owner="replica-2"))
        await processed(service, 1)
    finally:
        await runtime.stop()
        await receiver.stop()
        await nc.close()
    assert not receiver.tries("busy")
    assert len(receiver.ok("stale")) == 1
