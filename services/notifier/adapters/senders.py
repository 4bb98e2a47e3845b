"""Posting a digest: chat webhooks over HTTP (httpx), e-mail over SMTP (smtplib, in a thread),
GitHub comments through PyGithub (in a thread). Each failure is a DeliveryError that says whether
it is worth retrying, with a reason that holds no secret (no URL, no password, no token)."""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import httpx

from services.notifier.config import EmailRoute, GithubRoute, WebhookRoute
from services.notifier.domain.digest import (
    Digest,
    discord_payload,
    email_html,
    email_text,
    github_markdown,
    slack_payload,
    teams_payload,
)
from shared.http import retry_after_seconds


class DeliveryError(Exception):
    def __init__(self, reason: str, *, permanent: bool, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent
        self.retry_after = retry_after


def classify_status(
    status: int, phrase: str, retry_after: float | None, detail: str = ""
) -> DeliveryError:
    """429, 408 and 5xx are worth retrying; any other 4xx is permanent (a revoked or mistyped
    webhook, a payload the service refuses): retrying would only repeat it."""
    reason = f"HTTP {status} {phrase}".strip() + (f": {detail}" if detail else "")
    transient = status in (408, 425, 429) or status >= 500
    return DeliveryError(reason, permanent=not transient, retry_after=retry_after)


@dataclass
class Attachment:
    filename: str
    data: bytes
    content_type: str


DISCUSSION_QUERY = """
query Q($repo: String!, $owner: String!, $number: Int!) {
  repository(name: $repo, owner: $owner) { discussion(number: $number) { id number } }
}"""

PAYLOADS = {"slack": slack_payload, "discord": discord_payload, "teams": teams_payload}


class Senders:
    def __init__(self, timeout: float, github_token: str | None, github_api_url: str) -> None:
        self.timeout = timeout
        self.github_token = github_token
        self.github_api_url = github_api_url
        self._http: httpx.AsyncClient | None = None

    @property
    def http(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(
                timeout=self.timeout,
                follow_redirects=False,
                headers={"User-Agent": "repodigest-notifier"},
            )
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def send(
        self,
        route: Any,
        digest: Digest,
        key: str,
        attachment: Attachment | None = None,
        uncertain: bool = False,
    ) -> None:
        """`uncertain`: an earlier attempt may have posted (its record says `sending`); where
        the destination can be asked (GitHub issue comments), it is asked first."""
        if isinstance(route, WebhookRoute):
            await self.post_webhook(route, digest)
        elif isinstance(route, EmailRoute):
            await asyncio.to_thread(self.send_email, route, digest, key, attachment)
        elif isinstance(route, GithubRoute):
            await asyncio.to_thread(self.post_github, route, digest, key, uncertain)
        else:  # pragma: no cover - the settings' union has no other kind
            raise DeliveryError(f"unknown route kind {type(route).__name__}", permanent=True)

    # ------------------------------------------------------------ chat webhooks

    async def post_webhook(self, route: WebhookRoute, digest: Digest) -> None:
        payload = PAYLOADS[route.kind](digest)
        try:
            response = await self.http.post(route.url.get_secret_value(), json=payload)
        except httpx.TimeoutException as exc:
            # the post may have arrived: retrying can duplicate it (at-least-once, README)
            raise DeliveryError(
                f"no answer in {self.timeout:.0f} s ({type(exc).__name__})", permanent=False
            ) from None
        except httpx.TransportError as exc:
            raise DeliveryError(
                f"cannot reach the webhook ({type(exc).__name__})", permanent=False
            ) from None
        if response.is_success:
            return
        retry_after = retry_after_seconds(response.headers.get("retry-after"))
        if response.status_code == 429 and retry_after is None:
            try:  # Discord says it in the body too (seconds, fractional)
                retry_after = float(response.json().get("retry_after"))
            except (ValueError, TypeError, AttributeError):
                pass
        detail = " ".join(response.text.split())[:200]
        raise classify_status(response.status_code, response.reason_phrase, retry_after, detail)

    # ------------------------------------------------------------ e-mail

    def message(
        self, route: EmailRoute, digest: Digest, key: str, attachment: Attachment | None
    ) -> EmailMessage:
        msg = EmailMessage()
        msg["Subject"] = digest.title
        msg["From"] = route.mail_from
        msg["To"] = ", ".join(route.mail_to)
        msg["Date"] = email.utils.formatdate(localtime=False)
        # the same id for every attempt of this route and revision: mail systems that drop
        # duplicate Message-IDs drop a repeated post too
        domain = route.mail_from.rpartition("@")[2] or "repodigest"
        msg["Message-ID"] = f"<{hashlib.sha256(key.encode()).hexdigest()[:32]}@{domain}>"
        msg["Content-Language"] = digest.lang
        msg.set_content(email_text(digest))
        msg.add_alternative(email_html(digest), subtype="html")
        if attachment is not None:
            maintype, _, subtype = attachment.content_type.partition("/")
            msg.add_attachment(
                attachment.data,
                maintype=maintype,
                subtype=subtype or "pdf",
                filename=attachment.filename,
            )
        return msg

    def send_email(
        self, route: EmailRoute, digest: Digest, key: str, attachment: Attachment | None
    ) -> None:
        msg = self.message(route, digest, key, attachment)
        try:
            if route.smtp_security == "tls":
                client: smtplib.SMTP = smtplib.SMTP_SSL(
                    route.smtp_host,
                    route.smtp_port,
                    timeout=self.timeout,
                    context=ssl.create_default_context(),
                )
            else:
                client = smtplib.SMTP(route.smtp_host, route.smtp_port, timeout=self.timeout)
            with client:
                if route.smtp_security == "starttls":
                    client.starttls(context=ssl.create_default_context())
                if route.smtp_user and route.smtp_password:
                    client.login(route.smtp_user, route.smtp_password.get_secret_value())
                client.send_message(msg)
        except smtplib.SMTPAuthenticationError as exc:
            raise DeliveryError(f"SMTP login refused ({exc.smtp_code})", permanent=True) from None
        except smtplib.SMTPRecipientsRefused as exc:
            codes = sorted({str(code) for code, _ in exc.recipients.values()})
            transient = all(c.startswith("4") for c in codes)
            raise DeliveryError(
                f"SMTP refused every recipient ({', '.join(codes)})", permanent=not transient
            ) from None
        except smtplib.SMTPNotSupportedError as exc:
            raise DeliveryError(
                f"SMTP server lacks what the route needs ({exc})", permanent=True
            ) from None
        except smtplib.SMTPResponseException as exc:
            text = (
                exc.smtp_error.decode(errors="replace")
                if isinstance(exc.smtp_error, bytes)
                else str(exc.smtp_error)
            )
            raise DeliveryError(
                f"SMTP {exc.smtp_code} {' '.join(text.split())[:200]}",
                permanent=not 400 <= exc.smtp_code < 500,
            ) from None
        except ssl.SSLCertVerificationError as exc:
            raise DeliveryError(
                f"SMTP TLS certificate refused ({exc.verify_message})", permanent=True
            ) from None
        except (smtplib.SMTPException, OSError) as exc:
            raise DeliveryError(
                f"SMTP server unreachable or gone ({type(exc).__name__})", permanent=False
            ) from None

    # ------------------------------------------------------------ GitHub

    def post_github(
        self, route: GithubRoute, digest: Digest, key: str, uncertain: bool = False
    ) -> None:
        import github
        from github import Auth, Github, GithubException

        token = route.token.get_secret_value() if route.token else self.github_token
        if not token:
            raise DeliveryError(
                "no GitHub token (set the route's token or REPODIGEST_GITHUB_TOKEN)", permanent=True
            )
        body = github_markdown(digest, key)
        # PyGithub's own retries are off: the notifier's (with Retry-After) are the only ones
        gh = Github(
            auth=Auth.Token(token),
            base_url=route.api_url or self.github_api_url,
            timeout=int(max(1, self.timeout)),
            retry=None,
            lazy=True,
        )
        where = route.repo or digest.repo
        try:
            repo = gh.get_repo(where)
            if route.target == "issue":
                issue = repo.get_issue(route.number)
                marker = body.rstrip().rsplit("\n", 1)[-1]
                if uncertain and any(marker in (c.body or "") for c in issue.get_comments()):
                    return  # the earlier attempt did post: its comment carries this marker
                issue.create_comment(body)
            else:
                # Repository.get_discussion's query, by the route's owner/name (a lazy
                # repository does not know its name without a GET)
                from github.RepositoryDiscussion import RepositoryDiscussion

                owner, name = where.split("/", 1)
                discussion = gh.requester.graphql_query_class(
                    DISCUSSION_QUERY,
                    {"owner": owner, "repo": name, "number": route.number},
                    ["repository", "discussion"],
                    RepositoryDiscussion,
                )
                discussion.add_comment(body)
        except GithubException as exc:
            headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
            message = exc.data.get("message", "") if isinstance(exc.data, dict) else ""
            status = exc.status
            if status == 403 and (
                "rate limit" in message.lower()
                or "retry-after" in headers
                or headers.get("x-ratelimit-remaining") == "0"
            ):
                status = 429  # GitHub's rate limits answer 403 as often as 429
            raise classify_status(
                status,
                "",
                retry_after_seconds(headers.get("retry-after")),
                f"{where} {route.target} #{route.number}: {message[:200]}",
            ) from None
        except (github.BadAttributeException, ValueError, json.JSONDecodeError) as exc:
            raise DeliveryError(
                f"GitHub's answer was not understood ({type(exc).__name__})", permanent=False
            ) from None
        except OSError as exc:
            raise DeliveryError(
                f"GitHub unreachable ({type(exc).__name__})", permanent=False
            ) from None
        finally:
            gh.close()
