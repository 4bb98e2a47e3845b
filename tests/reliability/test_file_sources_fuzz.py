"""Hostile values in every file source (events, replay, GH Archive): hypothesis draws a value for
one integer, time, text or size field of one record among good ones, and the file is read the way
`repodigest report` reads it (`load_source`, then every event made and checked before publishing).

Each input is either accepted — and then every fact of it can be stored (folded into real SQLite
and PostgreSQL projections, through the enriched copy the summarizer decodes) and every good fact
is there — or rejected with a one-line SourceError that names the drawn record (its line or its
number), never another exception (a traceback in the CLI). A few drawn files go through the real
CLI too: exit 0 with every good fact in the report, or exit 1 with one line and no traceback.

REPODIGEST_RELIABILITY_FILE_FUZZ (default 300) inputs per source, _FILE_CLI_FUZZ (default 4) per
source through the CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.ingest.adapters.files import load_source
from services.ingest.domain.sources import SourceError
from services.ingest.handlers import (
    DEFAULT_MAX_PAYLOAD,
    ENRICHMENT_ROOM,
    FUTURE_TOLERANCE,
    publishable,
)
from services.summarizer.adapters.store import SqlProjections
from shared.events import ENRICHED_EVENT_ADAPTER, EnrichedFact, RuleSetRef, Tags
from tests.conftest import postgres_url_for

FUZZ = int(os.environ.get("REPODIGEST_RELIABILITY_FILE_FUZZ", "300"))
CLI_FUZZ = int(os.environ.get("REPODIGEST_RELIABILITY_FILE_CLI_FUZZ", "4"))
REPO = "fuzz-owner/fuzz-files"
GOOD_NUMBERS = (11, 12, 14, 15)  # the drawn record is #13, third of five lines
BAD_LINE, BAD_NUMBER = 3, 13
RULESET = RuleSetRef(profile="fuzz", version="f1")
TRIED: dict[str, Counter] = {}

# ---------------------------------------------------------------- values

OFFSETS = st.builds(
    lambda m: timezone(timedelta(minutes=m)), st.integers(-23 * 60 - 59, 23 * 60 + 59)
)
INTS = st.one_of(
    st.integers(),
    st.sampled_from([0, -1, 1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 2**70, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
)
TIMES = st.one_of(
    st.datetimes(
        min_value=datetime(1, 1, 1),
        max_value=datetime(9999, 12, 31, 23, 59),
        timezones=st.none() | OFFSETS,
    ).map(lambda d: d.isoformat()),
    st.sampled_from(
        [
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00Z",
            "2200-12-31T23:59:59Z",
            "2201-01-01T00:00:00Z",
            "9999-12-31T23:59:59-12:00",
            "0001-01-01T00:00:00+14:00",
            "2150-01-01T00:00:00Z",
            "2026-06-03",
            "",
        ]
    ),
    st.text(max_size=30),
    INTS,
)
TEXTS = st.one_of(
    st.text(max_size=80),
    st.sampled_from(["\x00", "a\x00b", "\ud800", "x\udfffy", "\u2028", "\ufeff", "é" * 3]),
    # sizes up to past a message's limit (a fact may take 1 MiB less 64 KiB)
    st.one_of(st.integers(0, 1_200_000), st.sampled_from([900_000, 983_000, 1_000_000])).map(
        lambda n: "y" * n
    ),
    INTS,
)
LISTS = st.one_of(  # sizes of repeated parts: many labels, many or long file paths
    st.lists(st.text(max_size=20), max_size=50),
    st.integers(0, 3000).map(lambda n: [f"label-{i}" for i in range(n)]),
    st.tuples(st.integers(0, 2000), st.integers(1, 2000)).map(lambda t: ["p" * t[1]] * t[0]),
)

# ---------------------------------------------------------------- records and their fields


def replay_row(n: int) -> dict:
    return {
        "sha": f"{n:040x}",
        "pr_number": n,
        "title": f"change {n}",
        "author_name": "a",
        "author_email": "a@example.com",
        "authored_at": "2026-06-02T10:00:00+00:00",
        "merged_at": "2026-06-02T12:00:00+00:00",
        "body": "why",
        "files": [{"path": "src/a.py", "additions": 1, "deletions": 1}],
    }


def events_row(n: int) -> dict:
    from shared.events import Actor, FactData, FileChange, ItemSnapshot, make_fact

    at = datetime(2026, 6, 2, 10, tzinfo=UTC)
    fact = make_fact(
        FactData(
            repo=REPO,
            kind="pull_request",
            action="opened",
            item=ItemSnapshot(
                repo=REPO,
                number=n,
                kind="pull_request",
                title=f"change {n}",
                author=Actor(login="a"),
                state="open",
                created_at=at,
                updated_at=at,
                labels=("x",),
                additions=1,
                deletions=1,
                changed_files=1,
                files=(FileChange(path="src/a.py", additions=1, deletions=1),),
                body_excerpt="why",
            ),
        )
    )
    return json.loads(fact.to_bytes())


def gharchive_row(n: int) -> dict:
    pull = {
        "number": n,
        "title": f"change {n}",
        "user": {"login": "a"},
        "state": "open",
        "created_at": "2026-06-02T10:00:00Z",
        "updated_at": "2026-06-02T10:00:00Z",
        "html_url": f"https://github.com/{REPO}/pull/{n}",
        "body": "why",
        "comments": 0,
        "review_comments": 0,
        "additions": 1,
        "deletions": 1,
        "changed_files": 1,
        "labels": [{"name": "x"}],
        "draft": False,
    }
    return {
        "type": "PullRequestEvent",
        "repo": {"name": REPO},
        "actor": {"login": "a"},
        "created_at": "2026-06-02T10:00:00Z",
        "payload": {"action": "opened", "pull_request": pull},
    }


ITEM = ("data", "item")
PR = ("payload", "pull_request")
# source -> (record builder, {field path: kind of value}); a path into lists uses indexes
FIELDS: dict[str, tuple[Any, dict[tuple, str]]] = {
    "replay": (
        replay_row,
        {
            ("pr_number",): "int",
            ("title",): "text",
            ("author_name",): "text",
            ("author_email",): "text",
            ("authored_at",): "time",
            ("merged_at",): "time",
            ("body",): "text",
            ("sha",): "text",
            ("files", 0, "path"): "text",
            ("files", 0, "additions"): "int",
            ("files", 0, "deletions"): "int",
            ("files",): "files",
        },
    ),
    "events": (
        events_row,
        {
            ("time",): "time",
            ("id",): "text",
            ("source",): "text",
            ("subject",): "text",
            ("data", "actor"): "text",
            ("data", "label"): "text",
            (*ITEM, "number"): "int",
            (*ITEM, "title"): "text",
            (*ITEM, "labels"): "list",
            (*ITEM, "url"): "text",
            (*ITEM, "body_excerpt"): "text",
            (*ITEM, "author", "login"): "text",
            (*ITEM, "merged_by"): "text",
            (*ITEM, "base_branch"): "text",
            (*ITEM, "head_branch"): "text",
            **{
                (*ITEM, f): "int"
                for f in (
                    "comments",
                    "review_comments",
                    "reviews",
                    "reactions",
                    "additions",
                    "deletions",
                    "changed_files",
                )
            },
            **{(*ITEM, f): "time" for f in ("created_at", "updated_at", "closed_at", "merged_at")},
            (*ITEM, "files", 0, "path"): "text",
            (*ITEM, "files", 0, "additions"): "int",
            (*ITEM, "files"): "files",
        },
    ),
    "gharchive": (
        gharchive_row,
        {
            ("created_at",): "time",
            ("actor", "login"): "text",
            (*PR, "number"): "int",
            (*PR, "title"): "text",
            (*PR, "body"): "text",
            (*PR, "user", "login"): "text",
            (*PR, "html_url"): "text",
            (*PR, "labels"): "labels",
            (*PR, "labels", 0, "name"): "text",
            **{
                (*PR, f): "int"
                for f in ("comments", "review_comments", "additions", "deletions", "changed_files")
            },
            **{(*PR, f): "time" for f in ("created_at", "updated_at", "closed_at", "merged_at")},
        },
    ),
}
VALUES = {
    "int": INTS,
    "time": TIMES,
    "text": TEXTS,
    "list": LISTS,
    "files": LISTS.map(lambda paths: [{"path": p, "additions": 1, "deletions": 0} for p in paths]),
    "labels": LISTS.map(lambda names: [{"name": n} for n in names]),
}


def drawn(kind: str):
    """(field path, value) for one field of `kind`'s records."""
    fields = FIELDS[kind][1]
    return st.sampled_from(sorted(fields, key=repr)).flatmap(
        lambda path: st.tuples(st.just(path), VALUES[fields[path]])
    )


def put(doc: Any, path: tuple, value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def write_source(tmp: Path, kind: str, path: tuple, value: Any) -> Path:
    build = FIELDS[kind][0]
    rows = [build(n) for n in (*GOOD_NUMBERS[:2], BAD_NUMBER, *GOOD_NUMBERS[2:])]
    put(rows[BAD_LINE - 1], path, value)
    file = tmp / f"{kind}.jsonl"
    # json.dumps writes what a hostile file may hold: NaN, Infinity, huge integers, lone surrogates
    file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return file


def read_as_report_does(file: Path, kind: str):
    loaded = load_source(f"{kind}:{file}", REPO)
    return publishable(
        loaded.facts, DEFAULT_MAX_PAYLOAD - ENRICHMENT_ROOM, datetime.now(UTC) + FUTURE_TOLERANCE
    )


def verdict(file: Path, kind: str) -> tuple[str, Any]:
    """("accepted", events) or ("rejected", message); anything else raised is a defect."""
    try:
        return "accepted", read_as_report_does(file, kind)
    except SourceError as exc:
        message = str(exc)
        assert "\n" not in message and "Traceback" not in message, message
        # it names the drawn record, by its line or by its number
        assert f"line {BAD_LINE}" in message or f"#{BAD_NUMBER}" in message, message
        return "rejected", message


def store_everything(stores: list[SqlProjections], events: list) -> None:
    """Fold the accepted facts the way the summarizer receives them: the classifier's enriched
    copy, decoded from its bytes (which must fit a message), into every store."""
    enriched = []
    for event in events:
        raw = EnrichedFact.create(event, Tags(), RULESET).to_bytes()
        assert len(raw) <= DEFAULT_MAX_PAYLOAD, (
            f"enriched copy of #{event.data.item.number}: {len(raw)} B"
        )
        enriched.append(ENRICHED_EVENT_ADAPTER.validate_json(raw))
    for store in stores:
        store.reset()
        result = store.fold(enriched, now=datetime.now(UTC))
        assert result.facts == len({e.data.fact_id for e in enriched})


@pytest.fixture
def stores(tmp_path, postgres_schema):
    made = [
        SqlProjections(f"sqlite:///{tmp_path / 'fuzz.db'}"),
        SqlProjections(postgres_url_for(postgres_schema)),
    ]
    for store in made:
        store.migrate()
    yield made
    for store in made:
        store.close()


@pytest.mark.parametrize("kind", sorted(FIELDS))
def test_every_drawn_value_is_accepted_and_stored_or_rejected_alone(kind, stores, tmp_path_factory):
    counts = TRIED.setdefault(kind, Counter())

    @settings(
        max_examples=FUZZ,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,
        ],
    )
    @given(drawn(kind))
    def check(field):
        path, value = field
        tmp = tmp_path_factory.mktemp(kind)
        outcome, detail = verdict(write_source(tmp, kind, path, value), kind)
        counts[outcome] += 1
        counts[f"{outcome}:{'.'.join(str(p) for p in path)}"] += 1
        if outcome == "accepted":
            numbers = {e.data.item.number for e in detail}
            assert set(GOOD_NUMBERS) <= numbers, "a good fact was lost"
            store_everything(stores, detail)

    check()
    tried = counts["accepted"] + counts["rejected"]
    print(
        f"\n{kind}: {tried} drawn files, {counts['accepted']} accepted and stored, "
        f"{counts['rejected']} rejected naming the drawn record; fields: "
        f"{len(FIELDS[kind][1])}"
    )
    assert tried >= min(FUZZ, 50) and counts["rejected"] > 0 and counts["accepted"] > 0


@pytest.mark.parametrize("kind", sorted(FIELDS))
def test_drawn_files_through_the_real_cli(kind, tmp_path_factory):
    @settings(
        max_examples=CLI_FUZZ,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,
        ],
    )
    @given(drawn(kind))
    def check(field):
        tmp = tmp_path_factory.mktemp(f"cli-{kind}")
        file = write_source(tmp, kind, *field)
        expected, _ = verdict(file, kind)
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "repodigest",
                "report",
                REPO,
                "--window",
                "custom:2026-06-01/2026-06-08",
                "--quiet",
                "--formats",
                "json",
                "--source",
                f"{kind}:{file}",
                "--out",
                str(tmp / "out"),
                "--timeout",
                "120",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert "Traceback" not in result.stderr, result.stderr
        if expected == "rejected":
            assert result.returncode == 1, result.stderr
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
            return
        assert result.returncode == 0, result.stderr
        report = json.loads(next((tmp / "out").rglob("report.json")).read_text())
        listed = report["appendix"]["merged_prs" if kind == "replay" else "new_prs"]
        assert set(GOOD_NUMBERS) <= {row["number"] for row in listed}

    check()
