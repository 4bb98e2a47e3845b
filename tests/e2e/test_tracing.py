"""One trace per GitHub fact across ingest, classifier and summarizer; the report's trace links to it.

The four services run in one process (as `repodigest report` runs them) on the fixture's real
nats-server, with an in-memory span exporter on the process's tracer provider.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timedelta

import pytest

from repodigest.pipeline import ReportJob, run_report
from shared.windows import parse_window

pytestmark = pytest.mark.timeout(300)


def merged_prs(window_start: datetime, n: int) -> list[dict]:
    """A small first-parent history of merged pull requests inside the window."""
    rows = []
    for i in range(n):
        at = (window_start + timedelta(hours=5 + 7 * i)).isoformat()
        rows.append(
            {
                "sha": f"{i + 1:040x}",
                "pr_number": 900 + i,
                "title": f"[Ops] tracing change number {i}",
                "author_name": f"dev{i}",
                "author_email": f"dev{i}@example.com",
                "authored_at": at,
                "merged_at": at,
                "files": [
                    {"path": f"vllm_ascend/ops/file{i}.py", "additions": 3 + i, "deletions": 1}
                ],
            }
        )
    return rows


def hexid(value: int, width: int = 32) -> str:
    return format(value, f"0{width}x")


async def test_one_trace_from_fact_to_summarizer_and_report_links(
    nats_server, tmp_path, finished_spans
):
    window = parse_window("week:2026-W33", "UTC")
    history = tmp_path / "merged_prs.jsonl"
    rows = merged_prs(window.start, 4)
    history.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    outcome = await run_report(
        ReportJob(
            repo="vllm-project/vllm-ascend",
            window=window,
            source=f"replay:{history}",
            languages=("en",),
            formats=("md", "json"),
            out_dir=tmp_path / "out",
            nats_url=nats_server.url,
            data_dir=tmp_path / "data",
            progress=False,
            run_services=True,
        )
    )
    summary = json.loads(
        next(p for _, p, _ in outcome.files if p.name == "report.json").read_bytes()
    )
    assert summary["counts"]["merged_prs"] == len(rows)
    counted = set(summary["fact_ids_sample"])
    assert counted

    spans = finished_spans.get_finished_spans()
    by_trace = defaultdict(list)
    for s in spans:
        by_trace[s.context.trace_id].append(s)

    # every fact the report counts: its classification, and the summarizer's consumption of the
    # enriched fact, are in one trace that began where ingest published the fact
    classified = {
        s.attributes["repodigest.fact_id"]: s
        for s in spans
        if s.name == "classifier.classify" and s.attributes.get("repodigest.fact_id") in counted
    }
    assert set(classified) == counted
    fact_traces = set()
    for fact_id, classify in classified.items():
        members = by_trace[classify.context.trace_id]
        names = {s.name for s in members}
        assert "classifier-enrich process" in names, names
        assert "summarizer-fold process" in names, names
        # the trace starts at ingest's publish of the fact to RD_GITHUB (headers, not bodies)
        root = [s for s in members if s.parent is None]
        assert len(root) == 1 and root[0].name.startswith("rd.github.pull_request.merged."), root
        consumed = [s for s in members if s.name == "classifier-enrich process"]
        assert consumed[0].attributes["messaging.message.id"] == fact_id
        # parent chain: the summarizer consumed what the classifier's consumer span published
        by_id = {s.context.span_id: s for s in members}
        (folded,) = [s for s in members if s.name == "summarizer-fold process"]
        chain, span = [], folded
        while span.parent is not None:
            span = by_id[span.parent.span_id]
            chain.append(span.name)
        assert "classifier-enrich process" in chain, chain
        assert any(
            n.startswith("rd.enriched.") for n in chain[: chain.index("classifier-enrich process")]
        )
        fact_traces.add(classify.context.trace_id)
    assert len(fact_traces) == len(counted), "each fact is its own trace"

    # the report: the summarize span links to the facts' traces, and rendering and report-ready
    # publishing are in the summarize span's trace
    summarize = [
        s
        for s in spans
        if s.name == "summarizer.summarize"
        and s.attributes.get("repodigest.facts_counted") == len(rows)
    ]
    assert len(summarize) == 1
    report = summarize[0]
    linked = {link.context.trace_id for link in report.links}
    assert linked == fact_traces
    assert report.context.trace_id not in fact_traces
    report_names = {s.name for s in by_trace[report.context.trace_id]}
    assert "renderer-render process" in report_names, report_names
    assert {"renderer.render md", "renderer.render json"} <= report_names, report_names
    assert "object-store put" in report_names, report_names
    assert not any(n == "summarizer-fold process" for n in report_names)

    # nothing of the trace context travelled in a body: the stored events carry no traceparent
    for _, path, _ in outcome.files:
        assert b"traceparent" not in path.read_bytes()
