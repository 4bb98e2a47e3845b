"""Event contracts: envelope rules, deterministic ids, round trips, committed schemas."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import jsonschema
import pytest
from pydantic import ValidationError

import shared.events as ev
from shared.events.schema import SCHEMA_DIR, expected_files, schema_of

T0 = datetime(2026, 6, 8, 3, 0, tzinfo=timezone.utc)


def snapshot(**over) -> ev.ItemSnapshot:
    base = dict(repo="vllm-project/vllm", number=41184, kind="pull_request",
                title="[MoE] Invert FusedMoE ownership", author=ev.Actor(login="alice"),
                state="closed", created_at=T0, merged_at=T0 + timedelta(days=2),
                closed_at=T0 + timedelta(days=2), additions=900, deletions=300,
                files=(ev.FileChange(path="vllm/model_executor/layers/fused_moe/layer.py"),))
    base.update(over)
    return ev.ItemSnapshot(**base)


def test_fact_id_is_deterministic_and_ignores_origin():
    a = ev.make_fact(ev.FactData(repo="vllm-project/vllm", kind="pull_request", action="merged",
                                 item=snapshot(), origin="webhook"))
    b = ev.make_fact(ev.FactData(repo="vllm-project/vllm", kind="pull_request", action="merged",
                                 item=snapshot(title="edited later"), origin="poll"))
    assert a.id == b.id
    assert isinstance(a, ev.PullRequestMerged)
    assert a.time == T0 + timedelta(days=2)  # merged_at, not when observed


def test_distinct_facts_get_distinct_ids():
    item = snapshot()
    ids = {
        ev.make_fact(ev.FactData(repo=item.repo, kind="pull_request", action=a, item=item)).id
        for a in ("opened", "merged", "closed")
    }
    comments = {
        ev.make_fact(ev.FactData(repo=item.repo, kind="comment", action="created", item=item,
                                 comment=ev.CommentInfo(id=i, author=ev.Actor(login="bob"),
                                                        created_at=T0))).id
        for i in (1, 2)
    }
    assert len(ids) == 3 and len(comments) == 2


def test_round_trip_through_the_discriminated_union():
    fact = ev.make_fact(ev.FactData(repo="a/b", kind="issue", action="opened",
                                    item=snapshot(repo="a/b", kind="issue", state="open")))
    back = ev.GITHUB_EVENT_ADAPTER.validate_json(fact.to_bytes())
    assert back == fact and type(back) is ev.IssueOpened


def test_consumers_tolerate_unknown_fields():
    fact = ev.make_fact(ev.FactData(repo="a/b", kind="pull_request", action="opened",
                                    item=snapshot(repo="a/b")))
    raw = json.loads(fact.to_bytes())
    raw["newfield"] = 1
    raw["data"]["item"]["future"] = {"x": 1}
    assert ev.GITHUB_EVENT_ADAPTER.validate_python(raw).id == fact.id


@pytest.mark.parametrize("repo", ["../etc", "a/..", "a b/c", "a/b/c", "", "owner/"])
def test_repository_names_are_validated(repo):
    with pytest.raises(ValidationError):
        snapshot(repo=repo)


def test_wrong_specversion_and_unknown_type_are_rejected():
    fact = ev.make_fact(ev.FactData(repo="a/b", kind="pull_request", action="opened",
                                    item=snapshot(repo="a/b")))
    raw = json.loads(fact.to_bytes())
    with pytest.raises(ValidationError):
        ev.GITHUB_EVENT_ADAPTER.validate_python({**raw, "specversion": "0.3"})
    with pytest.raises(ValidationError):
        ev.GITHUB_EVENT_ADAPTER.validate_python({**raw, "type": "dev.repodigest.github.x.v1"})


def test_every_type_is_versioned_and_unique():
    types = [cls.TYPE for cls in ev.ALL_EVENT_TYPES]
    assert len(types) == len(set(types))
    assert all(t.startswith("dev.repodigest.") and t.rsplit(".", 1)[1].startswith("v")
               for t in types)


def test_committed_schemas_match_the_models():
    """Fails when a model changes without `python -m shared.events.schema --write`."""
    expected = expected_files()
    committed = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.json")}
    assert set(committed) == set(expected), "schema files missing or stale: regenerate them"
    for name, text in expected.items():
        assert committed[name] == text, f"{name} is out of date: python -m shared.events.schema --write"


def test_events_validate_against_their_committed_schema():
    fact = ev.make_fact(ev.FactData(repo="a/b", kind="pull_request", action="merged",
                                    item=snapshot(repo="a/b")))
    schema = json.loads((SCHEMA_DIR / f"{fact.type}.json").read_text())
    jsonschema.validate(json.loads(fact.to_bytes()), schema)
    assert schema == schema_of(type(fact))


def test_dead_letter_headers_round_trip_and_stay_single_line():
    letter = ev.DeadLetter(service="classifier", reason="bad\r\njson", subject="rd.github.x",
                           stream="RD_GITHUB", sequence=7, deliveries=1, failed_at=T0)
    headers = letter.to_headers()
    assert "\n" not in headers["Rd-Dead-Reason"]
    back = ev.DeadLetter.from_headers(headers)
    assert back.sequence == 7 and back.reason == "bad json"
