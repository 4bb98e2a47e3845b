"""A pasted labeler.yml on a real nats-server: a key actions/labeler does not know is logged and
ignored (the file still loads, also on reload), and a `head-branch` label fires on the head
branch the published fact carries."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import nats
import pytest

import shared.events as ev
from services.classifier.app import build_service
from services.classifier.config import ClassifierSettings
from shared.config import CommonSettings
from shared.service import Runtime

from .test_classifier_rule_changes import ask_reload, enriched, publish_facts
from .test_classifier_service import read_all

pytestmark = pytest.mark.timeout(120)

T0 = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)
PROFILE = """\
profile: acme
repos: [acme/*]
labeler:
  changed-files-labels-limit: 1
  feature:
    - head-branch: ['^feature/']
  docs:
    - changed-files:
        - any-glob-to-any-file: 'docs/**'
    - reviewers: [alice]
"""


def fact(n: int, head: str | None, files: list[str]) -> ev.GithubFact:
    item = ev.ItemSnapshot(
        repo="acme/widgets",
        number=n,
        kind="pull_request",
        title="a change",
        author=ev.Actor(login="dev"),
        state="open",
        created_at=T0,
        base_branch="main",
        head_branch=head,
        files=tuple(ev.FileChange(path=p, additions=1) for p in files),
    )
    return ev.make_fact(
        ev.FactData(repo="acme/widgets", kind="pull_request", action="opened", item=item)
    )


async def test_labeler_keys_the_action_ignores_are_logged_and_head_branch_fires(
    nats_server, tmp_path: Path, caplog
):
    (tmp_path / "acme.yaml").write_text(PROFILE)
    settings = ClassifierSettings(nats_url=nats_server.url, profiles_dir=tmp_path)
    runtime = Runtime(CommonSettings(nats_url=nats_server.url), "classifier-test")
    runtime.add(build_service(settings, runtime))
    caplog.set_level(logging.WARNING, logger="repodigest.classifier")
    await runtime.start()
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        said = "labeler label 'docs': unknown config option 'reviewers' ignored"
        assert any(said in r.getMessage() for r in caplog.records), caplog.text
        caplog.clear()
        reply = await ask_reload(nc)
        assert reply.ok, reply.error
        assert any(said in r.getMessage() for r in caplog.records), caplog.text

        await publish_facts(
            js,
            [
                fact(1, "feature/dark-mode", ["src/app.ts"]),
                fact(2, "fix/typo", ["docs/index.md"]),
                fact(3, None, ["src/app.ts"]),
            ],
        )
        out = {
            e.data.fact.item.number: e.data.tags
            for e in enriched(await read_all(js, "RD_ENRICHED", "rd.enriched.>", 3))
        }
        assert [(t.name, t.rule) for t in out[1].modules] == [("feature", "module:feature/files")]
        assert [t.name for t in out[2].modules] == ["docs"]
        assert out[3].modules[0].fallback  # no head branch (an old event): no branch label
    finally:
        await nc.close()
        await runtime.stop()
