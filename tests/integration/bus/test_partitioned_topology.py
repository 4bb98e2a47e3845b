"""Summarizer partitions on a real nats-server: the streams' subject transforms deal repositories
out as `partition_of` says, requests land in the partition of their repository's facts, the rest
of RD_REPORTS is stored as published, and a process set to another count is refused."""

from __future__ import annotations

import nats
import pytest

from shared.messaging import (
    STREAM_ENRICHED,
    STREAM_REPORTS,
    PartitionMismatch,
    Subjects,
    Topology,
    ensure_topology,
    partition_of,
    repo_from_subject,
)

# owners and names with every character the subject tokens encode (`.`, `%`, space is refused
# by GitHub but not by the token encoding)
REPOS = [f"org{i % 9}/project-{i}" for i in range(150)] + [
    "vllm-project/vllm",
    "vllm-project/vllm-ascend",
    "a.b/c.d",
    "acme/widgets.io",
    "x%y/z",
]


async def stored_subjects(js, stream: str, n: int) -> list[str]:
    return [(await js.get_msg(stream, seq)).subject for seq in range(1, n + 1)]


async def test_the_server_deals_repositories_as_partition_of_does(nats_server):
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_topology(js, Topology(partitions=3))
        for repo in REPOS:
            await js.publish(Subjects.enriched("pull_request", "opened", repo), b"{}")
            await js.publish(Subjects.enriched_watermark(repo), b"{}")
            await js.publish(Subjects.report_requested(repo), b"{}")
            await js.publish(Subjects.summary_ready(repo), b"{}")
        facts = await stored_subjects(js, STREAM_ENRICHED, 2 * len(REPOS))
        reports = await stored_subjects(js, STREAM_REPORTS, 2 * len(REPOS))
        for i, repo in enumerate(REPOS):
            p = str(partition_of(repo, 3))
            fact, mark = facts[2 * i], facts[2 * i + 1]
            request, summary = reports[2 * i], reports[2 * i + 1]
            assert fact.split(".")[:4] == ["rd", "enriched", p, "pull_request"], (repo, fact)
            assert mark.split(".")[:4] == ["rd", "enriched", p, "sync"], (repo, mark)
            assert request.split(".")[:4] == ["rd", "summary", "requested", p], (repo, request)
            # what no summarizer partition reads is stored as published
            assert summary == Subjects.summary_ready(repo)
            assert {repo_from_subject(s) for s in (fact, mark, request)} == {repo}
        assert {f.split(".")[2] for f in facts} == {"0", "1", "2"}
    finally:
        await nc.close()


async def test_one_partition_is_todays_topology(nats_server):
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_topology(js, Topology())
        for stream in (STREAM_ENRICHED, STREAM_REPORTS):
            assert (await js.stream_info(stream)).config.subject_transform is None
        await js.publish(Subjects.enriched("issue", "closed", "acme/widgets"), b"{}")
        await js.publish(Subjects.report_requested("acme/widgets"), b"{}")
        assert await stored_subjects(js, STREAM_ENRICHED, 1) == [
            "rd.enriched.issue.closed.acme.widgets"
        ]
        assert await stored_subjects(js, STREAM_REPORTS, 1) == ["rd.summary.requested.acme.widgets"]
    finally:
        await nc.close()


async def test_a_process_set_to_another_count_is_refused_and_changes_nothing(nats_server):
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_topology(js, Topology(partitions=3))
        await ensure_topology(js, Topology(partitions=3))  # the same count: idempotent
        for wrong in (1, 4):
            with pytest.raises(PartitionMismatch) as refused:
                await ensure_topology(js, Topology(partitions=wrong))
            message = str(refused.value)
            assert "is partitioned for 3 summarizer(s) (its subject transform) but " in message
            assert f"REPODIGEST_SUMMARIZER_PARTITIONS is {wrong} here" in message
            assert "REPODIGEST_SUMMARIZER_PARTITIONS=3" in message
            assert f"repodigest partitions --set {wrong}" in message
        transform = (await js.stream_info(STREAM_ENRICHED)).config.subject_transform
        assert transform is not None and "partition(3,3,4)" in transform.dest
        # other stream settings still follow the code (replicas, the dead letters' age)
        await ensure_topology(js, Topology(partitions=3, dead_max_age=86400.0))
        assert (await js.stream_info("RD_DEAD")).config.max_age == 86400.0
    finally:
        await nc.close()
