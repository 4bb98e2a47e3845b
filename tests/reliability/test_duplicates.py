"""Every input published twice, within and after JetStream's duplicate window, and late copies
after the report: the counts do not move.

Within the window JetStream drops a copy (same Nats-Msg-Id). After it (simulated by a copy with
another Nats-Msg-Id: what a re-publish after `duplicate_window` looks like to the stream) the
copy is stored and delivered again, and the consumers must drop it by the event id. A webhook and
a poll reporting the same transition are one event id: that case is proven at ingest by
tests/integration/ingest_github/test_github_webhooks.py
(test_webhook_and_poll_of_the_same_pull_request_are_one_event,
test_label_seen_by_webhook_is_not_published_again_by_a_later_poll).
"""

from __future__ import annotations

from services.ingest.handlers import ingest_facts
from shared.events import SyncWatermark, WatermarkData, make_fact
from shared.messaging import (
    DURABLE_CLASSIFIER,
    DURABLE_SUMMARIZER,
    STREAM_ENRICHED,
    STREAM_GITHUB,
    Subjects,
)

from .harness import (
    EVENTS,
    Run,
    baseline,
    demo_inputs,
    publish_subject,
    report_request,
    run_pipeline,
    stream_count,
)


async def test_every_input_twice_and_late_copies_count_once(tmp_path):
    inputs = demo_inputs(EVENTS)
    undisturbed = await baseline(inputs)
    tried = {
        "same_msg_id": 0,
        "deduplicated_by_jetstream": 0,
        "other_msg_id": 0,
        "late": 0,
        "late_enriched": 0,
    }

    async def publish_twice(run: Run) -> None:
        for inp in run.inputs:
            await ingest_facts(
                run.publisher, inp.repo, inp.facts, origin="replay", watermark=inp.watermark
            )
            # the same again: odd facts with the same Nats-Msg-Id (inside the window), even ones
            # as after the window (another Nats-Msg-Id, the same event id)
            for i, fact in enumerate(inp.facts):
                event = make_fact(fact)
                if i % 2:
                    ack = await run.publisher.publish(event, publish_subject(fact))
                    tried["same_msg_id"] += 1
                    tried["deduplicated_by_jetstream"] += bool(ack.duplicate)
                else:
                    await run.publisher.publish(
                        event, publish_subject(fact), msg_id=f"{event.id}:after-window"
                    )
                    tried["other_msg_id"] += 1
            mark = SyncWatermark.create(
                WatermarkData(repo=inp.repo, watermark=inp.watermark, origin="replay")
            )
            await run.publisher.publish(
                mark, Subjects.watermark(inp.repo), msg_id=f"{mark.id}:after-window"
            )

    extra = sum(len(i.facts) // 2 + len(i.facts) % 2 + 1 for i in inputs)  # other msg ids
    total = sum(len(i.facts) + 1 for i in inputs)
    later: dict = {}

    async def late_copies(run: Run) -> None:
        # the report is being made; now every fact arrives once more, long after the window
        for inp in run.inputs:
            for fact in inp.facts:
                event = make_fact(fact)
                await run.publisher.publish(event, publish_subject(fact), msg_id=f"{event.id}:late")
                tried["late"] += 1
        later["github"] = await stream_count(run.js, STREAM_GITHUB)
        # the classifier's enriched copies carry the first ones' ids: JetStream drops them inside
        # its window; after it they would be stored, as these copies are
        enriched = await stream_count(run.js, STREAM_ENRICHED)
        for seq in range(1, enriched + 1):
            msg = await run.js.get_msg(STREAM_ENRICHED, seq)
            await run.publisher.publish_raw(
                msg.data, msg.subject, {"Nats-Msg-Id": f"{msg.headers['Nats-Msg-Id']}:late"}
            )
            tried["late_enriched"] += 1

        # the late copies classified (their acks seen), then folded
        await run.acks[DURABLE_CLASSIFIER].drained(
            run.js, later["github"], 120, "the late copies to be classified"
        )
        await run.acks[DURABLE_SUMMARIZER].drained(
            run.js, 2 * enriched, 120, "the late copies to be folded"
        )
        assert await stream_count(run.js, STREAM_ENRICHED) == 2 * enriched
        for inp in run.inputs:  # a second report of the same windows, after the late copies
            again = report_request(inp)
            await run.publisher.publish(again, Subjects.report_requested(inp.repo))
            # nothing changed: the request is answered with the report already announced, and
            # no new summary is published (issue #17 item 2); a new revision would say otherwise
            later[inp.repo] = (await run.summaries.answer(again.id)).data.revision

    twice, run = await run_pipeline(
        tmp_path, inputs, publish=publish_twice, after_requests=late_copies, expected_enriched=total
    )
    print(f"\nduplicates tried: {tried}")
    assert tried["deduplicated_by_jetstream"] == tried["same_msg_id"] > 0
    assert later["github"] == total + extra + tried["late"]
    assert twice == undisturbed
    for inp in inputs:
        assert later[inp.repo] == 1, "a duplicate must not re-open the window as a new revision"
