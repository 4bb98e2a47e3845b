"""Rule changes on a real nats-server: reload on request (a broken file is refused with its line and
the old rules keep working; a good one gives a new version), and `reclassify` replaying history."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nats
import pytest

import shared.events as ev
from services.classifier.adapters.profiles import load_registry
from services.classifier.app import build_service
from services.classifier.cli import reclassify_command, reload_command
from services.classifier.config import ClassifierSettings
from services.classifier.handlers import RELOAD_SUBJECT, ReloadReply
from services.classifier.reclassify import reclassify
from services.registry import consumers
from shared.config import CommonSettings
from shared.messaging import Subjects, ensure_topology
from shared.service import Runtime

from .test_classifier_service import read_all

pytestmark = pytest.mark.timeout(120)

REPO = "acme/widgets"
OTHER = "acme/gadgets"
T0 = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)

PROFILE_V1 = """\
profile: acme
extends: generic
repos: [acme/*]
modules:
  - name: engine
    title_prefixes: [engine]
    paths: ["engine/**"]
"""
# the same profile with one more rule and a topic: a new version
PROFILE_V2 = (
    PROFILE_V1
    + """\
  - name: web
    title_prefixes: [web]
    paths: ["web/**"]
topics:
  - name: Web UI
    title_prefixes: [web, webui]
"""
)
BROKEN = (
    PROFILE_V1
    + """\
  - name: api
    title_regex: ['api (v1|v2']
"""
)


def fact(
    n: int, title: str, files: list[str], repo: str = REPO, action: str = "merged"
) -> ev.GithubFact:
    at = T0 + timedelta(minutes=n)
    item = ev.ItemSnapshot(
        repo=repo,
        number=n,
        kind="pull_request",
        title=title,
        author=ev.Actor(login="dev"),
        state="closed" if action == "merged" else "open",
        created_at=T0,
        closed_at=at if action == "merged" else None,
        merged_at=at if action == "merged" else None,
        files=tuple(ev.FileChange(path=p, additions=3, deletions=1) for p in files),
    )
    return ev.make_fact(ev.FactData(repo=repo, kind="pull_request", action=action, item=item))


async def publish_facts(js, facts: list[ev.GithubFact]) -> None:
    for f in facts:
        d = f.data
        await js.publish(
            Subjects.fact(d.kind, d.action, d.repo), f.to_bytes(), headers={"Nats-Msg-Id": f.id}
        )


def enriched(msgs) -> list:
    return [ev.ENRICHED_EVENT_ADAPTER.validate_json(m.data) for m in msgs]


async def ask_reload(nc) -> ReloadReply:
    answer = await nc.request(RELOAD_SUBJECT, b"{}", timeout=30)
    return ReloadReply.model_validate_json(answer.data)


async def test_reload_refuses_a_broken_file_keeps_old_rules_then_takes_a_good_one(
    nats_server, tmp_path: Path
):
    profile = tmp_path / "acme.yaml"
    profile.write_text(PROFILE_V1)
    settings = ClassifierSettings(nats_url=nats_server.url, profiles_dir=tmp_path)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "classifier-test")
    service = runtime.add(build_service(settings, runtime))
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        await publish_facts(js, [fact(1, "[Web] dark mode", ["web/app.ts"])])
        first = enriched(await read_all(js, "RD_ENRICHED", "rd.enriched.>", 1))[0].data
        v1 = first.ruleset.version
        assert first.ruleset.profile == "acme" and first.tags.modules[0].fallback  # no web rule yet

        profile.write_text(BROKEN)
        reply = await ask_reload(nc)
        line = BROKEN.splitlines().index("    title_regex: ['api (v1|v2']") + 1
        assert not reply.ok and reply.changed == ()
        assert f"{profile}:{line}: modules rule 'api', field 'title_regex'" in reply.error
        assert "invalid regular expression" in reply.error
        assert reply.profiles["acme"] == v1
        # enrichment goes on with the old rules
        await publish_facts(js, [fact(2, "[Web] light mode", ["web/app.ts"])])
        second = enriched(await read_all(js, "RD_ENRICHED", "rd.enriched.>", 2))[1].data
        assert second.fact.item.number == 2 and second.ruleset.version == v1

        profile.write_text(PROFILE_V2)
        out, err = io.StringIO(), io.StringIO()
        # the CLI's way of asking (a blocking function: run it off the event loop)
        import asyncio

        code = await asyncio.to_thread(reload_command, nats_server.url, 30.0, 1, out, err)
        assert code == 0, err.getvalue()
        assert "changed: acme" in out.getvalue()
        v2 = service.registry.get("acme").ref.version
        assert v2 != v1
        await publish_facts(js, [fact(3, "[Web] high contrast", ["web/app.ts"])])
        third = enriched(await read_all(js, "RD_ENRICHED", "rd.enriched.>", 3))[2].data
        assert third.fact.item.number == 3 and third.ruleset.version == v2
        assert [t.name for t in third.tags.modules] == ["web"]
        assert third.tags.modules[0].rule == "module:web/title-prefix"
    finally:
        await nc.close()
        await runtime.stop()


async def test_reclassify_replays_every_fact_under_the_new_rules(nats_server, tmp_path: Path):
    profile = tmp_path / "acme.yaml"
    profile.write_text(PROFILE_V1)
    settings = ClassifierSettings(nats_url=nats_server.url, profiles_dir=tmp_path)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "classifier-test")
    runtime.add(build_service(settings, runtime))
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        facts = [
            fact(n, f"[Web] change {n}", [f"web/p{n}.ts"], action="merged" if n % 2 else "opened")
            for n in range(1, 8)
        ]
        other = [fact(50, "[Engine] other repo", ["engine/x.py"], repo=OTHER)]
        await publish_facts(js, facts[:4] + other + facts[4:])
        mark = ev.SyncWatermark.create(
            ev.WatermarkData(repo=REPO, watermark=T0 + timedelta(hours=2))
        )
        await js.publish(Subjects.watermark(REPO), mark.to_bytes())
        live = enriched(await read_all(js, "RD_ENRICHED", "rd.enriched.>", len(facts) + 2))
        v1 = {e.data.ruleset.version for e in live if isinstance(e, ev.EnrichedFact)}
        assert len(v1) == 1

        # profile B: the changed file, re-read by the replay (the service still has A)
        profile.write_text(PROFILE_V2)
        registry = load_registry(tmp_path)
        v2 = registry.get("acme").ref.version
        assert v2 not in v1
        result = await reclassify(js, REPO, registry=registry)
        assert (result.facts, result.skipped) == (len(facts), 0)
        assert result.watermarks == {REPO: mark.data.watermark}

        out = enriched(
            await read_all(js, "RD_ENRICHED", "rd.enriched.>", len(facts) + 2 + len(facts) + 1)
        )
        replayed = out[len(facts) + 2 :]
        replayed_facts = [e for e in replayed if isinstance(e, ev.EnrichedFact)]
        assert len(replayed_facts) == len(facts)
        assert {e.data.fact_id for e in replayed_facts} == {f.id for f in facts}  # every fact, once
        assert {e.data.ruleset.version for e in replayed_facts} == {v2}
        assert all(e.data.tags.modules[0].name == "web" for e in replayed_facts)
        # the new rules' topics too (the live ones had none)
        assert all(e.data.tags.topic_names() == ["Web UI"] for e in replayed_facts)
        assert not any(e.data.tags.topics for e in live if isinstance(e, ev.EnrichedFact))
        # new version, new enriched id: the summarizer folds them (and replaces the tags)
        assert not {e.id for e in replayed_facts} & {e.id for e in live}
        # then the latest watermark once more, under an id the summarizer has not processed
        assert isinstance(replayed[-1], ev.WatermarkForwarded)
        assert replayed[-1].data.watermark == mark.data.watermark
        assert replayed[-1].id not in {e.id for e in live}
        assert (await js.stream_info("RD_ENRICHED")).state.messages == len(out)

        # --since keeps older facts as they are; the command reports and exits 0
        since = (T0 + timedelta(minutes=5)).isoformat()
        newer = sorted(f.data.item.number for f in facts if f.time >= T0 + timedelta(minutes=5))
        assert 0 < len(newer) < len(facts)
        text, err = io.StringIO(), io.StringIO()
        import asyncio

        code = await asyncio.to_thread(
            reclassify_command,
            nats_server.url,
            REPO,
            since,
            "generic",
            progress=False,
            out=text,
            err=err,
        )
        assert code == 0, err.getvalue()
        assert (
            f"reclassified {len(newer)} facts of acme/widgets ({len(facts) - len(newer)} "
            "before --since"
        ) in text.getvalue()
        assert "generic@" in text.getvalue()
        tail = enriched(
            await read_all(js, "RD_ENRICHED", "rd.enriched.>", len(out) + len(newer) + 1)
        )[len(out) :]
        assert (
            sorted(e.data.fact.item.number for e in tail if isinstance(e, ev.EnrichedFact)) == newer
        )
        assert {e.data.ruleset.profile for e in tail if isinstance(e, ev.EnrichedFact)} == {
            "generic"
        }
    finally:
        await nc.close()
        await runtime.stop()


async def test_reclassify_command_says_what_is_wrong(nats_server, tmp_path: Path):
    broken = tmp_path / "mine.yaml"
    broken.write_text("profile: mine\nmodules:\n  - {name: x, paths: ['!']}\n")
    err = io.StringIO()
    assert (
        reclassify_command(
            nats_server.url, REPO, None, str(broken), progress=False, out=io.StringIO(), err=err
        )
        == 2
    )
    assert f"{broken}:3: modules rule 'x', field 'paths'" in err.getvalue()
    err = io.StringIO()
    assert reclassify_command(nats_server.url, "widgets", None, None, err=err) == 2
    assert "OWNER/NAME" in err.getvalue()
    err = io.StringIO()
    assert reclassify_command(nats_server.url, REPO, "last tuesday", None, err=err) == 2
    assert "is not a date" in err.getvalue()
    err = io.StringIO()
    import asyncio

    assert (
        await asyncio.to_thread(
            reclassify_command, "nats://127.0.0.1:1", REPO, None, None, progress=False, err=err
        )
        == 2
    )
    assert "cannot reach NATS" in err.getvalue()


async def test_reclassify_with_nothing_to_replay_returns(nats_server):
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_topology(js, consumers=consumers())
        await publish_facts(js, [fact(1, "x", [], repo=OTHER)])
        result = await reclassify(js, REPO)
        assert (result.facts, result.read, result.watermarks) == (0, 0, {})
        everything = await reclassify(js, None)
        assert everything.facts == 1 and json.loads(json.dumps(everything.rulesets))[
            OTHER
        ].startswith("generic@")
    finally:
        await nc.close()
