"""Renderer replicas finishing reports of one repository at the same moment: the per-repository
index ends up listing every report, on each object store (NATS object store, S3, directory)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from datetime import UTC, datetime, timedelta

import nats
import pytest

from services.renderer.adapters.stores import open_store
from services.renderer.domain.keys import index_key
from services.renderer.handlers import update_index
from shared.events import Artifact, ReportReady, ReportReadyData, WindowRef

pytestmark = pytest.mark.timeout(180)

WRITERS = 8


def _ready(repo: str, day: int, lang: str = "en", revision: int = 1) -> ReportReady:
    start = datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=day)
    label = start.strftime("%Y-%m-%d")
    body = f"{repo} {label} {lang}".encode()
    artifact = Artifact(
        format="md",
        language=lang,
        uri=f"x://{label}/{lang}",
        key=f"reports/{repo}/{label}/r{revision}/{lang}/report.md",
        size=len(body),
        sha256=hashlib.sha256(body).hexdigest(),
        content_type="text/markdown",
    )
    return ReportReady.create(
        ReportReadyData(
            repo=repo,
            window=WindowRef(kind="day", label=label, start=start, end=start + timedelta(days=1)),
            revision=revision,
            languages=(lang,),
            artifacts=(artifact,),
            summary_id=f"s-{label}",
            rendered_at=start + timedelta(days=1, hours=1),
        )
    )


@pytest.fixture(params=["nats", "s3", "directory"])
async def replica_stores(request, tmp_path, nats_server):
    """A factory of independent store instances on one backend (one per simulated replica)."""
    conns = []
    if request.param == "nats":

        async def make():
            nc = await nats.connect(nats_server.url)
            conns.append(nc)
            return open_store("nats", nc.jetstream())
    elif request.param == "s3":
        endpoint, bucket = request.getfixturevalue("s3_bucket")

        async def make():
            return open_store(f"s3://{bucket}/rd?endpoint_url={endpoint}")
    else:

        async def make():
            return open_store(str(tmp_path / "artifacts"))

    try:
        yield make
    finally:
        for nc in conns:
            await nc.close()


async def test_concurrent_index_updates_drop_no_report(replica_stores) -> None:
    repo = f"o/race-{uuid.uuid4().hex[:8]}"
    # one legacy entry, written before index entries existed: kept by every rebuild
    legacy_store = await replica_stores()
    legacy = {
        "version": 1,
        "repo": repo,
        "reports": [
            {
                "window": {
                    "kind": "day",
                    "label": "2026-02-01",
                    "start": "2026-02-01T00:00:00+00:00",
                    "end": "2026-02-02T00:00:00+00:00",
                    "tz": "UTC",
                },
                "revision": 1,
                "languages": ["en"],
                "artifacts": [],
            }
        ],
    }
    await legacy_store.put(index_key(repo), json.dumps(legacy).encode(), "application/json")

    readies = [_ready(repo, day) for day in range(WRITERS - 2)]
    # two languages of one revision rendered by two replicas at once
    readies += [_ready(repo, 20, "en"), _ready(repo, 20, "zh-CN")]
    stores = [await replica_stores() for _ in readies]
    await asyncio.gather(*(update_index(s, r) for s, r in zip(stores, readies)))

    index = json.loads(await (await replica_stores()).get(index_key(repo)))
    got = {(r["window"]["label"], r["revision"], tuple(r["languages"])) for r in index["reports"]}
    expected = {(r.data.window.label, 1, ("en",)) for r in readies[:-2]}
    expected |= {("2026-03-21", 1, ("en", "zh-CN")), ("2026-02-01", 1, ("en",))}
    assert got == expected
    starts = [r["window"]["start"] for r in index["reports"]]
    assert starts == sorted(starts, reverse=True)
    both = next(r for r in index["reports"] if r["window"]["label"] == "2026-03-21")
    assert [a["language"] for a in both["artifacts"]] == ["en", "zh-CN"]


async def test_a_lost_index_is_rebuilt_from_the_entries(replica_stores) -> None:
    repo = f"o/lost-{uuid.uuid4().hex[:8]}"
    store = await replica_stores()
    for day in range(3):
        await update_index(store, _ready(repo, day))
    # the index object is overwritten with garbage (or lost): the next report rebuilds it all
    await store.put(index_key(repo), b"{not json", "application/json")
    await update_index(store, _ready(repo, 5))
    index = json.loads(await store.get(index_key(repo)))
    assert [r["window"]["label"] for r in index["reports"]] == [
        "2026-03-06",
        "2026-03-03",
        "2026-03-02",
        "2026-03-01",
    ]
