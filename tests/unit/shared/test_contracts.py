"""Event contracts: envelope rules, deterministic ids, round trips, committed schemas."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import jsonschema
import pytest
from pydantic import ValidationError

import shared.events as ev
from shared.events.schema import SCHEMA_DIR, expected_files, schema_of

T0 = datetime(2026, 6, 8, 3, 0, tzinfo=UTC)


def snapshot(**over) -> ev.ItemSnapshot:
    base = dict(
        repo="vllm-project/vllm",
        number=41184,
        kind="pull_request",
        title="[MoE] Invert FusedMoE ownership",
        author=ev.Actor(login="alice"),
        state="closed",
        created_at=T0,
        merged_at=T0 + timedelta(days=2),
        closed_at=T0 + timedelta(days=2),
        additions=900,
        deletions=300,
        files=(ev.FileChange(path="vllm/model_executor/layers/fused_moe/layer.py"),),
    )
    base.update(over)
    return ev.ItemSnapshot(**base)


def test_fact_id_is_deterministic_and_ignores_origin():
    a = ev.make_fact(
        ev.FactData(
            repo="vllm-project/vllm",
            kind="pull_request",
            action="merged",
            item=snapshot(),
            origin="webhook",
        )
    )
    b = ev.make_fact(
        ev.FactData(
            repo="vllm-project/vllm",
            kind="pull_request",
            action="merged",
            item=snapshot(title="edited later"),
            origin="poll",
        )
    )
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
        ev.make_fact(
            ev.FactData(
                repo=item.repo,
                kind="comment",
                action="created",
                item=item,
                comment=ev.CommentInfo(id=i, author=ev.Actor(login="bob"), created_at=T0),
            )
        ).id
        for i in (1, 2)
    }
    assert len(ids) == 3 and len(comments) == 2


def test_round_trip_through_the_discriminated_union():
    fact = ev.make_fact(
        ev.FactData(
            repo="a/b",
            kind="issue",
            action="opened",
            item=snapshot(repo="a/b", kind="issue", state="open"),
        )
    )
    back = ev.GITHUB_EVENT_ADAPTER.validate_json(fact.to_bytes())
    assert back == fact and type(back) is ev.IssueOpened


def test_consumers_tolerate_unknown_fields():
    fact = ev.make_fact(
        ev.FactData(repo="a/b", kind="pull_request", action="opened", item=snapshot(repo="a/b"))
    )
    raw = json.loads(fact.to_bytes())
    raw["newfield"] = 1
    raw["data"]["item"]["future"] = {"x": 1}
    assert ev.GITHUB_EVENT_ADAPTER.validate_python(raw).id == fact.id


@pytest.mark.parametrize("repo", ["../etc", "a/..", "a b/c", "a/b/c", "", "owner/"])
def test_repository_names_are_validated(repo):
    with pytest.raises(ValidationError):
        snapshot(repo=repo)


def test_wrong_specversion_and_unknown_type_are_rejected():
    fact = ev.make_fact(
        ev.FactData(repo="a/b", kind="pull_request", action="opened", item=snapshot(repo="a/b"))
    )
    raw = json.loads(fact.to_bytes())
    with pytest.raises(ValidationError):
        ev.GITHUB_EVENT_ADAPTER.validate_python({**raw, "specversion": "0.3"})
    with pytest.raises(ValidationError):
        ev.GITHUB_EVENT_ADAPTER.validate_python({**raw, "type": "dev.repodigest.github.x.v1"})


def test_every_type_is_versioned_and_unique():
    types = [cls.TYPE for cls in ev.ALL_EVENT_TYPES]
    assert len(types) == len(set(types))
    assert all(
        t.startswith("dev.repodigest.") and t.rsplit(".", 1)[1].startswith("v") for t in types
    )


def test_committed_schemas_match_the_models():
    """Fails when a model changes without `python -m shared.events.schema --write`."""
    expected = expected_files()
    committed = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.json")}
    assert set(committed) == set(expected), "schema files missing or stale: regenerate them"
    for name, text in expected.items():
        assert committed[name] == text, (
            f"{name} is out of date: python -m shared.events.schema --write"
        )


def test_events_validate_against_their_committed_schema():
    fact = ev.make_fact(
        ev.FactData(repo="a/b", kind="pull_request", action="merged", item=snapshot(repo="a/b"))
    )
    schema = json.loads((SCHEMA_DIR / f"{fact.type}.json").read_text())
    jsonschema.validate(json.loads(fact.to_bytes()), schema)
    assert schema == schema_of(type(fact))


def test_dead_letter_headers_round_trip_and_stay_single_line():
    letter = ev.DeadLetter(
        service="classifier",
        reason="bad\r\njson",
        subject="rd.github.x",
        stream="RD_GITHUB",
        sequence=7,
        deliveries=1,
        failed_at=T0,
    )
    headers = letter.to_headers()
    assert "\n" not in headers["Rd-Dead-Reason"]
    back = ev.DeadLetter.from_headers(headers)
    assert back.sequence == 7 and back.reason == "bad json"


# ---------------------------------------------------------------- what storage can hold (issue 16)


def _fact_json(**item_over) -> dict:
    fact = ev.make_fact(
        ev.FactData(repo="a/b", kind="pull_request", action="merged", item=snapshot(repo="a/b"))
    )
    raw = json.loads(fact.to_bytes())
    raw["data"]["item"].update(item_over)
    return raw


@pytest.mark.parametrize(
    "over",
    [
        {"number": 2**70},
        {"number": 2**31},
        {"number": 0},
        {"additions": 2**63},
        {"comments": -(2**63) - 1},
        {"files": [{"path": "a.py", "additions": 2**64}]},
        {"title": "a\x00b"},
        {"body_excerpt": "x\x00"},
        {"labels": ["ok", "b\x00d"]},
        {"author": {"login": "nul\x00"}},
        {"files": [{"path": "a\x00.py"}]},
        {"created_at": "0001-01-01T00:00:00+01:00"},
        {"merged_at": "9999-12-31T23:59:59-12:00"},
        {"closed_at": "1969-12-31T23:59:59+00:00"},
        {"updated_at": "2201-01-01T00:00:00+00:00"},
    ],
)
def test_the_contract_refuses_what_storage_cannot_hold(over):
    with pytest.raises(ValidationError):
        ev.GITHUB_EVENT_ADAPTER.validate_python(_fact_json(**over))
    # and the models the sources build in Python
    with pytest.raises(ValidationError):
        if "files" in over:
            ev.FileChange(**over["files"][0])
        elif "author" in over:
            ev.Actor(**over["author"])
        else:
            snapshot(**over)


@pytest.mark.parametrize(
    "when",
    [
        "0001-01-01T00:00:00+00:00",
        "9999-12-31T23:00:00-12:00",
        "1969-12-31T23:59:59Z",
        "2201-01-01T00:00:00Z",
    ],
)
def test_event_times_and_comment_ids_are_bounded(when):
    raw = _fact_json()
    with pytest.raises(ValidationError):
        ev.GITHUB_EVENT_ADAPTER.validate_python({**raw, "time": when})
    with pytest.raises(ValidationError):
        ev.CommentInfo(id=1, author=ev.Actor(login="bob"), created_at=when)
    with pytest.raises(ValidationError):
        ev.WatermarkData(repo="a/b", watermark=when)
    with pytest.raises(ValidationError):
        ev.CommentInfo(id=2**63, author=ev.Actor(login="bob"), created_at=T0)


def test_the_bounds_keep_what_github_really_sends():
    edge = snapshot(
        number=2**31 - 1,
        additions=2**63 - 1,
        title="ünïcode ✓ 中文",
        created_at=datetime(1970, 1, 1, tzinfo=UTC),
        merged_at=datetime(2200, 12, 31, 23, 59, tzinfo=UTC),
        closed_at=datetime(2026, 6, 8, 10, tzinfo=timezone(timedelta(hours=-12))),
    )
    assert edge.closed_at == datetime(2026, 6, 8, 22, tzinfo=UTC)
    comment = ev.CommentInfo(
        id=2**63 - 1, author=ev.Actor(login="b"), created_at=datetime(2026, 1, 1)
    )  # naive: taken to be UTC
    assert comment.created_at.tzinfo is UTC


# ---------------------------------------------------------------- dataschema (issue 17)


@pytest.mark.parametrize("cls", ev.ALL_EVENT_TYPES, ids=lambda c: c.TYPE)
def test_every_type_names_its_committed_schema_as_dataschema(cls):
    """`dataschema` of every type is the `$id` of its committed file in shared/events/schemas/."""
    committed = json.loads((SCHEMA_DIR / f"{cls.TYPE}.json").read_text(encoding="utf-8"))
    assert committed["properties"]["dataschema"]  # the contract declares the attribute
    field = cls.model_fields["dataschema"]
    assert field.default_factory({"type": cls.TYPE}) == committed["$id"]


def test_events_carry_dataschema_and_older_events_get_it_on_reading():
    fact = ev.make_fact(
        ev.FactData(repo="a/b", kind="pull_request", action="merged", item=snapshot(repo="a/b"))
    )
    committed = json.loads((SCHEMA_DIR / f"{fact.type}.json").read_text(encoding="utf-8"))
    raw = json.loads(fact.to_bytes())
    assert (
        raw["dataschema"] == committed["$id"] == f"https://repodigest.dev/schemas/{fact.type}.json"
    )
    del raw["dataschema"]  # logged before the attribute existed
    assert ev.GITHUB_EVENT_ADAPTER.validate_python(raw).dataschema == committed["$id"]
    report = ev.ReportReady.create(
        ev.ReportReadyData.model_validate(
            {
                "repo": "a/b",
                "window": {
                    "kind": "week",
                    "label": "2026-W24",
                    "tz": "UTC",
                    "start": "2026-06-08T00:00:00Z",
                    "end": "2026-06-15T00:00:00Z",
                },
                "revision": 1,
                "languages": ["en"],
                "rendered_at": T0,
                "artifacts": [],
                "summary_id": "s1",
            }
        )
    )
    assert report.dataschema == "https://repodigest.dev/schemas/dev.repodigest.report.ready.v1.json"
