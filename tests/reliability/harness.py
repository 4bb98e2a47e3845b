"""Shared machinery of the reliability tests: facts at scale, services as killable processes,
waits on the consumers' acks (seen as they are sent, tests/signals.py), report requests and the
comparable part of a summary."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import signal
import subprocess
import sys
import uuid
import weakref
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nats.js.errors import NoStreamResponseError, NotFoundError

from services.registry import consumers
from shared.events import (
    ReportReady,
    ReportRequestData,
    ReportRequested,
    WindowRef,
    WindowSummarized,
)
from shared.messaging import (
    DURABLE_CLASSIFIER,
    DURABLE_RENDERER,
    DURABLE_SUMMARIZER,
    DURABLE_SUMMARIZER_REQUESTS,
    STREAM_DEAD,
    STREAM_GITHUB,
    Subjects,
    Topology,
    ensure_topology,
)
from tests.signals import AckWatch, DeliveryWatch, Reconnects, Signal

ROOT = Path(__file__).resolve().parents[2]
DEMO_FACTS_PER_REPO = 2352  # generate_demo's fortnight (two ISO weeks) of one repository

# The issue's full size by default (9 synthetic repositories, about 21,000 facts: the folder takes
# about 2.5 minutes on two shared cores); REPODIGEST_RELIABILITY_EVENTS=2000 is a quick run.
EVENTS = int(os.environ.get("REPODIGEST_RELIABILITY_EVENTS", "20000"))
# A redelivery after a kill -9 waits for ack_wait; the tests' consumers use a short one so a
# crash costs seconds, not the production two minutes (the semantics are the same).
TEST_ACK_WAIT = 4.0


@dataclasses.dataclass
class RepoInput:
    repo: str
    window: Any  # shared.windows.Window: the requested ISO week
    watermark: datetime
    facts: list  # FactData, in publication order
    expected: Any  # DemoCounts from the plan


def demo_inputs(events: int = EVENTS) -> list[RepoInput]:
    """At least `events` facts: one synthetic fortnight (generate_demo) per repository."""
    from services.ingest.adapters.demo import DEMO_REPO, generate_demo

    out = []
    for i in range(max(1, math.ceil(events / DEMO_FACTS_PER_REPO))):
        demo = generate_demo("2026-W24", seed=7 + i)
        repo = DEMO_REPO if i == 0 else f"{DEMO_REPO}-{i}"
        facts = [f.model_copy(update={"repo": repo}) for f in demo.facts]
        out.append(
            RepoInput(
                repo,
                demo.window,
                demo.watermark,
                facts,
                demo.expected(demo.window.start, demo.window.end),
            )
        )
    return out


DURABLES = {
    "classifier": (DURABLE_CLASSIFIER,),
    "summarizer": (DURABLE_SUMMARIZER, DURABLE_SUMMARIZER_REQUESTS),
    "renderer": (DURABLE_RENDERER,),
}
SERVICES = tuple(DURABLES)
# reports in the cheap formats (PDF is the renderer's own tests' business)
FORMATS = ("md", "json")


async def prepare_topology(js) -> None:
    """Streams as the services create them, and the durables created up front with
    TEST_ACK_WAIT: a service that starts later finds them and keeps their settings."""
    await ensure_topology(js, Topology(), consumers=())
    await keep_short(js)


async def shorten_ack_wait(js, service: str, timeout: float = 60.0) -> None:
    """After a (re)start, check that the service's durables still have TEST_ACK_WAIT.

    `ensure_topology` creates a durable only when it is missing and never re-applies the code's
    settings to an existing one, so this is a check (and a repair if a durable was deleted)."""
    await keep_short(js, DURABLES[service])


ALL_DURABLES = tuple(d for ds in DURABLES.values() for d in ds)


async def keep_short(js, durables=ALL_DURABLES) -> None:
    """TEST_ACK_WAIT on these durables (again, if a late start-up re-applied the default)."""
    for durable in durables:
        spec = dataclasses.replace(_spec(durable), ack_wait=TEST_ACK_WAIT)
        try:
            info = await js.consumer_info(spec.stream, durable)
        except NotFoundError:
            info = None
        if info is None or abs(info.config.ack_wait - TEST_ACK_WAIT) > 0.01:
            await js.add_consumer(spec.stream, config=spec.config())  # create = update


def _spec(durable: str):
    """The durable's declaration, by the service that owns it."""
    return {c.durable: c for c in consumers()}[durable]


async def consumer_state(js, durable: str) -> tuple[int, int, int]:
    """(last delivered stream sequence, pending, ack pending) of a durable."""
    spec = _spec(durable)
    info = await js.consumer_info(spec.stream, durable)
    return (
        int(info.delivered.stream_seq or 0),
        int(info.num_pending or 0),
        int(info.num_ack_pending or 0),
    )


async def stream_count(js, stream: str) -> int:
    try:
        return int((await js.stream_info(stream)).state.messages)
    except NotFoundError:
        return 0


async def messages_for(js, durable: str) -> int:
    """How many messages of its stream the durable's filter takes (read once, after
    publishing)."""
    spec = _spec(durable)
    info = await js.stream_info(spec.stream, subjects_filter=spec.filter_subject)
    return sum((info.state.subjects or {}).values())


async def watch_acks(nc, durables=ALL_DURABLES, changed: Signal | None = None) -> dict:
    """{durable: AckWatch} from now on, sharing `changed` (a new Signal if None)."""
    changed = changed if changed is not None else Signal()
    return {d: await AckWatch.start(nc, _spec(d).stream, d, changed) for d in durables}


async def settled(js, acks: dict, durables, timeout: float, what: str) -> None:
    """Every message each durable's filter takes was settled (acked or terminated; acks seen as
    they were sent), confirmed by the consumer's state; in the order given (upstream first)."""
    for durable in durables:
        n = await messages_for(js, durable)
        await acks[durable].drained(js, n, timeout, f"{what} ({durable}: {n} messages)")


async def dead_letters(js) -> list[tuple[str, dict[str, str], bytes]]:
    """Every message in RD_DEAD: (subject, headers, body)."""
    out = []
    n = await stream_count(js, STREAM_DEAD)
    for seq in range(1, n + 1):
        msg = await js.get_msg(STREAM_DEAD, seq)
        out.append((msg.subject, dict(msg.headers or {}), msg.data or b""))
    return out


class ServiceProcess:
    """`python -m services.<name>` as a child process that a test can kill -9 and restart."""

    def __init__(self, name: str, env: dict[str, str], log_dir: Path) -> None:
        self.name, self.env, self.log_dir = name, env, log_dir
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.kills: list[dict[str, int]] = []

    def start(self) -> None:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("REPODIGEST_", "OTEL_"))}
        env = {
            **base,
            "PYTHONPATH": str(ROOT),
            "REPODIGEST_LOG_LEVEL": "WARNING",
            "OTEL_SDK_DISABLED": "true",
            **self.env,
        }
        self.starts += 1
        log = open(self.log_dir / f"{self.name}.{self.starts}.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", f"services.{self.name}"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()

    def freeze(self) -> None:
        """SIGSTOP: the process does nothing more until it is killed (or SIGCONT)."""
        assert self.proc is not None and self.proc.poll() is None, f"{self.name} died on its own"
        self.proc.send_signal(signal.SIGSTOP)

    def kill(self, **state: int) -> None:
        assert self.proc is not None and self.proc.poll() is None, f"{self.name} died on its own"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.kills.append(state)

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    async def while_alive(self, awaitable: Awaitable[Any], what: str) -> Any:
        """`await awaitable`, failing at once (with the logs) if the process exits meanwhile:
        its exit is a signal too (a pidfd, readable when the process ends)."""
        assert self.proc is not None, f"{self.name} was never started"
        loop = asyncio.get_running_loop()
        waiting = asyncio.ensure_future(awaitable)
        exited = loop.create_future()
        fd = os.pidfd_open(self.proc.pid)
        loop.add_reader(fd, lambda: exited.done() or exited.set_result(None))
        try:
            await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            loop.remove_reader(fd)
            os.close(fd)
        if waiting.done():
            return waiting.result()
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        raise AssertionError(f"{self.name} exited while waiting for {what}:\n{self.logs()[-3000:]}")

    def logs(self) -> str:
        return "\n".join(
            p.read_text(errors="replace") for p in sorted(self.log_dir.glob(f"{self.name}.*.log"))
        )


def report_request(inp: RepoInput) -> ReportRequested:
    return ReportRequested.create(
        ReportRequestData(
            repo=inp.repo,
            window=WindowRef.of(inp.window),
            as_of=inp.watermark,
            synthetic=True,
            data_note="reliability test",
            formats=FORMATS,
        ),
        nonce=uuid.uuid4().hex,
        at=datetime.now(UTC),
    )


class Summaries:
    """A core subscription to every window summary; `get(request_id)` waits for one."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        self.seen: dict[str, WindowSummarized] = {}
        self.reports: asyncio.Queue = asyncio.Queue()
        self.ready: dict[str, ReportReady] = {}
        self.answers: asyncio.Queue = asyncio.Queue()
        self.answered: dict[str, ReportReady] = {}
        self.sub = None
        self.received = 0  # window summaries seen
        self.changed = Signal()

    async def subscribe(self, nc) -> Summaries:
        async def on_summary(msg) -> None:
            await self.queue.put(msg.data)
            self.received += 1
            self.changed.notify()

        async def on_report(msg) -> None:
            await self.reports.put(msg.data)

        async def on_answer(msg) -> None:
            await self.answers.put((msg.subject, msg.data))

        self.sub = await nc.subscribe("rd.summary.ready.>", cb=on_summary)
        await nc.subscribe("rd.report.ready.>", cb=on_report)
        await nc.subscribe(Subjects.report_answer("x").rsplit(".", 1)[0] + ".*", cb=on_answer)
        return self

    async def answer(self, request_id: str, timeout: float = 120.0) -> ReportReady:
        """The report that answered a request for an unchanged window (the one announced before,
        sent to the requester on core NATS, shared/answers.py)."""
        subject = Subjects.report_answer(request_id)
        async with asyncio.timeout(timeout):
            while subject not in self.answered:
                got, data = await self.answers.get()
                self.answered[got] = ReportReady.model_validate_json(data)
        return self.answered[subject]

    async def report(self, request_id: str, timeout: float = 120.0) -> ReportReady:
        async with asyncio.timeout(timeout):
            while request_id not in self.ready:
                event = ReportReady.model_validate_json(await self.reports.get())
                if event.data.request_id:
                    self.ready[event.data.request_id] = event
        return self.ready[request_id]

    async def get(self, request_id: str, timeout: float = 120.0) -> WindowSummarized:
        async with asyncio.timeout(timeout):
            while request_id not in self.seen:
                event = WindowSummarized.model_validate_json(await self.queue.get())
                if event.data.request_id:
                    self.seen[event.data.request_id] = event
        return self.seen[request_id]


def comparable(summary: WindowSummarized) -> dict:
    """What a reader of the report sees, minus when and for whom it was made."""
    data = summary.data.model_dump(mode="json")
    for volatile in ("generated_at", "request_id", "revision", "changed_figures"):
        data.pop(volatile, None)
    return data


def summary_part(result: dict) -> dict:
    """A `run_pipeline` result without the report's artifacts (to compare with `comparable`)."""
    return {k: v for k, v in result.items() if k != "_artifacts"}


def assert_matches_plan(summary: WindowSummarized, inp: RepoInput) -> None:
    """The figures against the synthetic plan (independent of the pipeline)."""
    c, e = summary.data.counts, inp.expected
    got = (c.new_prs, c.merged_prs, c.closed_unmerged_prs, c.new_issues, c.closed_issues)
    want = (e.new_prs, e.merged_prs, e.closed_unmerged_prs, e.new_issues, e.closed_issues)
    assert got == want, f"{inp.repo}: counts {got} != plan {want}"
    assert (
        len(summary.data.appendix.merged_prs) + summary.data.appendix.omitted.get("merged_prs", 0)
        == e.merged_prs
    )


def publish_subject(fact) -> str:
    return Subjects.fact(fact.kind, fact.action, fact.repo)


class JsPublisher:
    """The ingest `Publisher` port over a plain JetStream context (the test's own connection)."""

    def __init__(self, js) -> None:
        self.js = js

    async def publish(self, event, subject: str, msg_id: str | None = None):
        return await self.publish_raw(
            event.to_bytes(), subject, {"Nats-Msg-Id": msg_id or event.id, "Ce-Id": event.id}
        )

    async def publish_many(self, batch):
        return list(
            await asyncio.gather(*(self.publish(event, subject) for event, subject, _ in batch))
        )

    async def publish_raw(
        self,
        data: bytes,
        subject: str,
        headers: dict[str, str] | None = None,
        within: float = 100.0,
    ):
        """Publish, retrying while a broker restarts (the Nats-Msg-Id dedupes a repeat): while
        the connection is away the next try waits for it to be back (its reconnected_cb), a
        connected one asks again at once (the request's own timeout paces the tries)."""
        import nats.errors

        nc = self.js._nc
        reconnects = _RECONNECTS.get(nc)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        what = f"the broker to take a message on {subject}"
        while True:
            before = reconnects.count if reconnects is not None else 0
            try:
                return await self.js.publish(subject, data, headers=headers, timeout=5)
            except (
                nats.errors.TimeoutError,
                nats.errors.NoRespondersError,
                nats.errors.ConnectionReconnectingError,
                NoStreamResponseError,
            ) as exc:
                failure = exc
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(
                    f"timed out after {within:.0f}s waiting for {what}: {failure!r}"
                )
            if reconnects is not None and not nc.is_connected:
                await reconnects.beyond(before, left, what)


# each test connection's reconnections (its reconnected_cb), for the publisher's retries
_RECONNECTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def connect(url: str):
    import nats

    reconnects = Reconnects()
    nc = await nats.connect(
        url,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.2,
        name="reliability-test",
        reconnected_cb=reconnects.on_reconnected,
    )
    _RECONNECTS[nc] = reconnects
    return nc, nc.jetstream()


def service_env(nats_url: str, database_url: str) -> dict[str, str]:
    return {"REPODIGEST_NATS_URL": nats_url, "REPODIGEST_DATABASE_URL": database_url}


@dataclasses.dataclass
class Run:
    """One pipeline run's handles, given to the hooks of `run_pipeline`."""

    tmp: Path
    server: Any  # EmbeddedNats
    nc: Any
    js: Any
    procs: dict[str, ServiceProcess]
    inputs: list[RepoInput]
    rng: Any
    publisher: JsPublisher
    summaries: Any = None
    # every change the waits look at: an ack of a durable, a window summary, (a test's own)
    changed: Signal = dataclasses.field(default_factory=Signal)
    acks: dict = dataclasses.field(default_factory=dict)  # durable -> AckWatch
    deliveries: dict = dataclasses.field(default_factory=dict)  # durable -> DeliveryWatch
    enriched: Any = None  # a test's StreamWatch of RD_ENRICHED, if it needs one

    @property
    def total(self) -> int:
        return sum(len(i.facts) + 1 for i in self.inputs)  # the facts and a watermark per repo


async def publish_inputs(run: Run) -> None:
    from services.ingest.handlers import ingest_facts

    for inp in run.inputs:
        await ingest_facts(
            run.publisher, inp.repo, inp.facts, origin="replay", watermark=inp.watermark
        )


Hook = Callable[[Run], Awaitable[Any]]


async def run_pipeline(
    tmp: Path,
    inputs: list[RepoInput],
    *,
    seed: int = 0,
    publish: Hook = publish_inputs,
    disturb: Hook | None = None,
    after_requests: Hook | None = None,
    expected_enriched: int | None = None,
) -> tuple[dict, Run]:
    """Classifier and summarizer processes on a fresh nats-server: publish (while `disturb`
    runs), wait until every fact is folded, request each repository's week, (`after_requests`),
    and return {repo: comparable summary} after checking the plan's figures and RD_DEAD."""
    import random

    from shared.messaging import DURABLE_CLASSIFIER, DURABLE_SUMMARIZER, STREAM_ENRICHED
    from shared.natsserver import EmbeddedNats

    tmp.mkdir(parents=True, exist_ok=True)
    server = await EmbeddedNats(store_dir=tmp / "nats").start()
    nc, js = await connect(server.url)
    env = service_env(server.url, f"sqlite:///{tmp / 'projections.db'}")
    procs = {n: ServiceProcess(n, env, tmp) for n in SERVICES}
    run = Run(tmp, server, nc, js, procs, inputs, random.Random(seed), JsPublisher(js))
    try:
        await prepare_topology(js)
        # every ack from the first message on, before a service can send one
        run.acks = await watch_acks(nc, changed=run.changed)
        run.deliveries = {
            DURABLE_RENDERER: await DeliveryWatch.start(
                nc, _spec(DURABLE_RENDERER).stream, DURABLE_RENDERER, run.changed
            )
        }
        for p in procs.values():
            p.start()
        for name in procs:
            await shorten_ack_wait(js, name)
        summaries = run.summaries = await Summaries().subscribe(nc)
        summaries.changed = run.changed
        disturbing = asyncio.create_task(disturb(run)) if disturb else None
        await publish(run)
        if disturbing is not None:
            await disturbing
        enriched = expected_enriched if expected_enriched is not None else run.total
        await keep_short(js)  # (again, if a late start-up re-applied the default)
        for watch in run.acks.values():
            await watch.resync(js)  # acks sent while this connection was away were not seen
        github = await stream_count(js, STREAM_GITHUB)
        await run.acks[DURABLE_CLASSIFIER].drained(js, github, 180, "every fact enriched")
        await run.acks[DURABLE_SUMMARIZER].drained(js, enriched, 180, "every fact folded")
        stored = await stream_count(js, STREAM_ENRICHED)
        assert stored >= enriched, f"{stored} enriched facts, {enriched} expected"
        requests = [report_request(inp) for inp in inputs]
        for req in requests:
            await run.publisher.publish(req, Subjects.report_requested(req.data.repo))
        if after_requests is not None:
            await after_requests(run)
        out = {}
        for inp, req in zip(inputs, requests):
            summary = await summaries.get(req.id, timeout=120)
            assert_matches_plan(summary, inp)
            ready = await summaries.report(req.id, timeout=120)
            assert ready.data.revision == summary.data.revision
            # the artifacts' keys and formats (their bytes carry the rendering time)
            out[inp.repo] = {
                **comparable(summary),
                "_artifacts": sorted((a.format, a.language, a.key) for a in ready.data.artifacts),
            }
        dead = await dead_letters(js)
        assert not dead, (
            f"good input was dead-lettered: {[h.get('Rd-Dead-Reason', h) for _, h, _ in dead][:5]}"
        )
        for name, p in procs.items():
            assert p.alive(), f"{name} exited:\n{p.logs()[-3000:]}"
        for name, p in procs.items():
            code = p.stop()
            assert code == 0, f"{name} did not drain on SIGTERM ({code}):\n{p.logs()[-3000:]}"
        return out, run
    finally:
        for p in procs.values():
            if p.alive():
                p.proc.kill()
                p.proc.wait(10)
        await nc.close()
        await server.close()


_BASELINE: dict[int, dict] = {}


async def baseline(inputs: list[RepoInput]) -> dict:
    """The undisturbed run's summaries, computed once per test session and input size."""
    import tempfile

    key = sum(len(i.facts) for i in inputs)
    if key not in _BASELINE:
        with tempfile.TemporaryDirectory(prefix="repodigest-baseline-") as tmp:
            _BASELINE[key], _ = await run_pipeline(Path(tmp), inputs)
    return _BASELINE[key]
