"""Use case of the notifier: post one report revision's digest to every route it matches, once.

Per route: read the delivery record (`route/repo/window/revision`); `sent` or `dead` means done.
Otherwise claim it as `sending` (compare-and-set), post with retries (5xx, 429, time-outs; a
Retry-After is honoured), then record `sent`, or, for a permanent refusal, dead-letter the
report-ready with the route and reason and record `dead`. Only then is the report-ready acked.
A route that still fails transiently after its attempts is recorded `failed` and the report-ready
is nacked: the redelivery posts that route again and skips those already `sent`.

The one window this cannot close: a crash (or a lost answer, a time-out) after the receiver took
the post and before `sent` is recorded. The record then says `sending`, and the next delivery
posts again: at-least-once there, never a lost digest (README: delivery guarantees).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
)

from shared.events import Artifact, ReportReady, SummaryData
from shared.messaging import Transient
from shared.telemetry import meter, tracer

from .adapters.redact import Redactor
from .adapters.senders import Attachment, DeliveryError
from .adapters.state import AlreadyClaimed, Record, delivery_key, now_text
from .config import EmailRoute
from .domain.digest import Digest, build_digest, lead_of

log = logging.getLogger("repodigest.notifier")

_tracer = tracer("notifier")
_posts = meter("notifier").create_counter(
    "repodigest.notifier.posts",
    unit="{post}",
    description="route deliveries of a report revision, by kind and outcome (sent, skipped, "
    "dead, failed)",
)


class DeliveryLog(Protocol):
    async def get(self, key: str) -> Record | None: ...

    async def claim(self, key: str, current: Record | None, record: Record) -> int: ...

    async def put(self, key: str, record: Record) -> None: ...


class Sender(Protocol):
    async def send(
        self,
        route: Any,
        digest: Digest,
        key: str,
        attachment: Attachment | None = None,
        uncertain: bool = False,
    ) -> None: ...


class Reader(Protocol):
    async def read(self, artifact: Artifact) -> bytes: ...


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    backoff: float = 1.0
    backoff_max: float = 60.0
    deadline: float = 300.0


@dataclass
class Outcome:
    sent: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    dead: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Delivery:
    """A decoded report-ready and its bytes as delivered (a dead letter carries them intact)."""

    event: ReportReady
    raw: bytes

    @property
    def id(self) -> str:  # the bus's spans find each message's trace by event id
        return self.event.id


def decode(raw: bytes) -> Delivery:
    return Delivery(ReportReady.model_validate_json(raw), raw)


def _wait(policy: RetryPolicy) -> Callable[[RetryCallState], float]:
    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, DeliveryError) and exc.retry_after is not None:
            return exc.retry_after  # the service said when; sooner would be refused again
        base = policy.backoff * 2 ** (state.attempt_number - 1)
        return min(policy.backoff_max, base + random.uniform(0, policy.backoff))

    return wait


class Material:
    """What a report's digest needs, read once per report-ready and language."""

    def __init__(
        self,
        event: ReportReady,
        reader: Reader,
        links: Callable[[Artifact], str | None],
        storylines: int,
        attach_max: int,
    ) -> None:
        self.event, self.reader, self.links = event, reader, links
        self.storylines, self.attach_max = storylines, attach_max
        self._digests: dict[str, Digest] = {}
        self._pdf: dict[str, Attachment | None] = {}
        self._lock = asyncio.Lock()

    def artifact(self, lang: str, fmt: str) -> Artifact | None:
        return next(
            (a for a in self.event.data.artifacts if a.language == lang and a.format == fmt), None
        )

    def language(self, wanted: str | None) -> str:
        langs = self.event.data.languages
        return wanted if wanted in langs else (langs[0] if langs else "en")

    async def digest(self, lang: str) -> Digest:
        async with self._lock:
            if lang not in self._digests:
                self._digests[lang] = await self._build(lang)
            return self._digests[lang]

    async def _build(self, lang: str) -> Digest:
        d = self.event.data
        summary = lead = None
        if (art := self.artifact(lang, "json")) is not None:
            summary = SummaryData.model_validate_json(await self.reader.read(art))
        if (art := self.artifact(lang, "html")) is not None:
            lead = lead_of((await self.reader.read(art)).decode("utf-8", "replace"))
        html, pdf = self.artifact(lang, "html"), self.artifact(lang, "pdf")
        return build_digest(
            summary,
            repo=d.repo,
            window=d.window.label,
            window_kind=d.window.kind,
            revision=d.revision,
            lang=lang,
            lead=lead or "",
            html_url=self.links(html) if html else None,
            pdf_url=self.links(pdf) if pdf else None,
            storylines=self.storylines,
        )

    async def pdf(self, lang: str) -> Attachment | None:
        async with self._lock:
            if lang not in self._pdf:
                art = self.artifact(lang, "pdf")
                self._pdf[lang] = (
                    None
                    if art is None or art.size > self.attach_max
                    else Attachment(
                        art.key.rsplit("/", 1)[-1], await self.reader.read(art), "application/pdf"
                    )
                )
            return self._pdf[lang]


async def notify_report(
    delivery: Delivery,
    routes: Sequence[Any],
    *,
    state: DeliveryLog,
    sender: Sender,
    material: Material,
    dead_letter: Callable[[Delivery, str], Awaitable[None]],
    policy: RetryPolicy,
    redact: Redactor,
    owner: str = "",
) -> Outcome:
    """Post to every route this report matches, concurrently; raises Transient when a route
    must be tried again (the report-ready is nacked, its `sent` routes are skipped next time).

    `owner` names this notifier instance in the records it writes: another instance's fresh
    `sending` claim (younger than the deadline and a minute) means it is posting that route now
    (a copy of the event on another replica), so this one waits for its record; an older one,
    or this instance's own, is an attempt that ended without a record, and is posted again."""
    lease = policy.deadline + 60.0
    d = delivery.event.data
    matching = [r for r in routes if r.matches(d.repo, d.window.kind, d.synthetic)]
    outcome = Outcome()
    if not matching:
        return outcome

    async def one(route: Any) -> str:
        key = delivery_key(route.name, d.repo, d.window.label, d.revision)
        fields = {
            "route": route.name,
            "repo": d.repo,
            "window": d.window.label,
            "revision": d.revision,
        }
        current = await state.get(key)
        if current is not None and current.state in ("sent", "dead"):
            log.info(
                "route %s already %s %s %s r%d; not posted again",
                route.name,
                current.state,
                d.repo,
                d.window.label,
                d.revision,
                extra=fields,
            )
            outcome.skipped.append(route.name)
            return "skipped"
        if (
            current is not None
            and current.state == "sending"
            and current.owner != owner
            and current.age() < lease
        ):
            log.info(
                "route %s: another notifier is posting %s %s r%d now; its record is awaited",
                route.name,
                d.repo,
                d.window.label,
                d.revision,
                extra=fields,
            )
            outcome.failed.append(route.name)
            return "busy"
        uncertain = current is not None and current.state == "sending"
        if uncertain:
            log.warning(
                "route %s: an earlier attempt at %s %s r%d ended without a record "
                "(a crash or a lost answer); posting again, which may repeat it",
                route.name,
                d.repo,
                d.window.label,
                d.revision,
                extra=fields,
            )
        attempts = current.attempts if current is not None else 0
        # read before claiming: an artifact that cannot be read now leaves the record as it was
        lang = material.language(route.language)
        digest = await material.digest(lang)
        pdf = (
            await material.pdf(lang) if isinstance(route, EmailRoute) and route.attach_pdf else None
        )
        try:
            await state.claim(key, current, Record("sending", now_text(), attempts, owner=owner))
        except AlreadyClaimed:
            outcome.failed.append(route.name)  # another replica is at it; look again later
            return "busy"
        tries = 0

        def before_sleep(rs: RetryCallState) -> None:
            exc = rs.outcome.exception() if rs.outcome else None
            log.warning(
                "route %s: attempt %d failed (%s); retrying in %.1fs",
                route.name,
                rs.attempt_number,
                redact(str(exc)),
                rs.next_action.sleep if rs.next_action else 0.0,
                extra=fields,
            )

        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(policy.attempts) | stop_before_delay(policy.deadline),
                wait=_wait(policy),
                reraise=True,
                before_sleep=before_sleep,
                retry=retry_if_exception(
                    lambda e: isinstance(e, DeliveryError) and not e.permanent
                ),
            ):
                with attempt:
                    tries += 1
                    await sender.send(route, digest, key, pdf, uncertain)
        except DeliveryError as exc:
            reason = redact(f"route {route.name} ({route.kind}): {exc.reason}")
            if exc.permanent:
                await dead_letter(delivery, reason + " (permanent: not retried)")
                await state.put(key, Record("dead", now_text(), attempts + tries, reason))
                log.error("%s; dead-lettered", reason, extra=fields)
                outcome.dead.append(route.name)
                return "dead"
            await state.put(key, Record("failed", now_text(), attempts + tries, reason))
            log.warning(
                "%s after %d attempts; the report comes back later", reason, tries, extra=fields
            )
            outcome.failed.append(route.name)
            return "failed"
        await state.put(key, Record("sent", now_text(), attempts + tries, owner=owner))
        log.info(
            "posted %s %s r%d to route %s",
            d.repo,
            d.window.label,
            d.revision,
            route.name,
            extra=fields,
        )
        outcome.sent.append(route.name)
        return "sent"

    async def traced(route: Any) -> None:
        with _tracer.start_as_current_span(
            f"notifier.post {route.kind}",
            attributes={
                "repodigest.route": route.name,
                "repodigest.route.kind": route.kind,
                "repodigest.repo": d.repo,
                "repodigest.revision": d.revision,
            },
        ) as span:
            done = "error"  # the record or an artifact could not be read or written
            try:
                done = await one(route)
            finally:
                span.set_attribute("repodigest.outcome", done)
                _posts.add(1, {"kind": route.kind, "outcome": done})

    results = await asyncio.gather(*(traced(r) for r in matching), return_exceptions=True)
    errors = [r for r in results if isinstance(r, BaseException)]
    if errors:
        # the store or the record failed (not a route's answer): all of it again later
        raise Transient(redact("; ".join(f"{type(e).__name__}: {e}" for e in errors))[:600])
    if outcome.failed:
        raise Transient(f"route(s) {', '.join(sorted(outcome.failed))} not posted yet")
    return outcome
