"""Reclassification reaches the report: the classifier and the summarizer on a real nats-server
(SQLite projections); a replay under new rules makes the summarizer publish revision 2 of the
closed window, with the new module figures and the same fact counts (nothing counted twice)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import nats
import pytest

import shared.events as ev
from services.classifier.adapters.profiles import load_registry
from services.classifier.app import build_service as build_classifier
from services.classifier.config import ClassifierSettings
from services.classifier.reclassify import reclassify
from services.summarizer.app import build_service as build_summarizer
from services.summarizer.config import SummarizerSettings
from shared.config import CommonSettings
from shared.messaging import STREAM_REPORTS, Subjects
from shared.service import Runtime

pytestmark = pytest.mark.timeout(180)

REPO = "acme/widgets"
DAY = datetime(2026, 6, 8, tzinfo=UTC)
B_PROFILE = """\
profile: acme-b
extends: generic
modules:
  - name: frontend
    paths: ["web/**"]
"""


def merged(n: int, path: str, day: datetime = DAY) -> ev.GithubFact:
    at = day + timedelta(hours=1, minutes=n)
    item = ev.ItemSnapshot(
        repo=REPO,
        number=n,
        kind="pull_request",
        title=f"Change {n}",
        author=ev.Actor(login=f"dev{n % 3}"),
        state="closed",
        created_at=day,
        closed_at=at,
        merged_at=at,
        files=(ev.FileChange(path=path, additions=5, deletions=1),),
    )
    return ev.make_fact(ev.FactData(repo=REPO, kind="pull_request", action="merged", item=item))


async def next_summary(sub, timeout: float = 60.0) -> ev.WindowSummarized:
    msgs = await sub.fetch(1, timeout=timeout)
    await msgs[0].ack()
    return ev.WindowSummarized.model_validate_json(msgs[0].data)


async def test_reclassify_gives_the_window_a_new_revision(nats_server, tmp_path: Path):
    common = dict(nats_url=nats_server.url)
    runtime = Runtime(CommonSettings(**common), "reclassify-test")
    runtime.add(build_classifier(ClassifierSettings(**common), runtime))
    runtime.add(
        build_summarizer(
            SummarizerSettings(
                **common,
                database_url=f"sqlite:///{tmp_path / 'p.db'}",
                close_grace_minutes=0,
                window_debounce_seconds=0.2,
                scheduled_formats=["json"],
                schedules={REPO: [{"kind": "day", "tz": "UTC"}]},
            ),
            runtime,
        )
    )
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        summaries = await js.pull_subscribe(Subjects.summary_ready(REPO), stream=STREAM_REPORTS)
        facts = [merged(n, "web/app.ts" if n % 2 else "engine/core.py") for n in range(1, 8)]
        for f in facts:
            await js.publish(
                Subjects.fact("pull_request", "merged", REPO),
                f.to_bytes(),
                headers={"Nats-Msg-Id": f.id},
            )
        mark = ev.SyncWatermark.create(
            ev.WatermarkData(repo=REPO, watermark=DAY + timedelta(days=1, hours=1))
        )
        await js.publish(Subjects.watermark(REPO), mark.to_bytes())

        first = (await next_summary(summaries)).data
        assert first.revision == 1 and first.window.start == DAY
        modules_before = {t.module: t.total for t in first.modules}
        web = sum(1 for f in facts if f.data.item.files[0].path.startswith("web/"))
        assert modules_before.get("web") == web and "frontend" not in modules_before

        registry = load_registry(pinned=str(_write(tmp_path / "acme-b.yaml", B_PROFILE)))
        result = await reclassify(runtime, REPO, registry=registry)  # the runtime's connection
        assert result.facts == len(facts)

        second = (await next_summary(summaries)).data
        assert second.revision == 2 and second.window.label == first.window.label
        modules_after = {t.module: t.total for t in second.modules}
        assert modules_after.get("frontend") == web and "web" not in modules_after
        assert second.counts == first.counts and second.facts_counted == first.facts_counted == len(
            facts
        )
        assert second.changed_figures  # the revision says what changed
        # one revision for the replay, not one per batch: the next day closed after the replay is
        # the marker — had the replay's facts made another revision of this day, it would be
        # summarized (debounced the same) before the next day, whose fact and watermark follow
        # the replayed facts on the streams
        next_day = DAY + timedelta(days=1)
        later = merged(8, "engine/core.py", day=next_day)
        await js.publish(
            Subjects.fact("pull_request", "merged", REPO),
            later.to_bytes(),
            headers={"Nats-Msg-Id": later.id},
        )
        mark = ev.SyncWatermark.create(
            ev.WatermarkData(repo=REPO, watermark=next_day + timedelta(days=1, hours=1))
        )
        await js.publish(Subjects.watermark(REPO), mark.to_bytes())
        marker = (await next_summary(summaries)).data
        assert (marker.window.start, marker.revision) == (next_day, 1)
        assert marker.facts_counted == 1
    finally:
        await nc.close()
        await runtime.stop()


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
