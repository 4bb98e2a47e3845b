"""Hostile input through the real CLI (issue 16): facts that could not be processed make the run
fail naming them; bad files, numbers, times, windows and paths are one-line errors with the
CLI's exit codes (2 for an argument, 1 for data), never a traceback, and a file source publishes
all or nothing."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import sqlalchemy as sa

from services.summarizer.adapters.store import SqlProjections
from tests.e2e.test_cli import run_cli

REPO = "acme/widgets"


def merged_pr(n: int, title: str | None = None, **over) -> dict:
    row = {
        "sha": f"{n:040x}",
        "pr_number": n,
        "title": title or f"change {n}",
        "author_name": "a",
        "author_email": "a@example.com",
        "authored_at": f"2026-06-0{1 + n % 5}T10:00:00+00:00",
        "merged_at": f"2026-06-0{1 + n % 5}T12:00:00+00:00",
        "files": [],
    }
    row.update(over)
    return row


def write_lines(path: Path, rows: list) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def assert_clean_error(result, code: int, *needles: str) -> None:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


def test_a_fact_the_database_refuses_fails_the_run_naming_it(tmp_path):
    """The projections refuse one of six merged PRs (a trigger stands for any value the database
    cannot take): the report is made from the five, and the run exits 1 saying one fact is
    missing and why, instead of 0 with a report that silently lacks it."""
    db = tmp_path / "projections.db"
    store = SqlProjections(f"sqlite:///{db}")
    store.migrate()
    with store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "create trigger refuse before insert on items when new.title like "
                "'%refused%' begin select raise(abort, 'title refused here'); end"
            )
        )
    store.close()
    history = write_lines(
        tmp_path / "merged.jsonl",
        [merged_pr(n, "a refused change" if n == 3 else None) for n in range(1, 7)],
    )
    result = run_cli(
        "report",
        REPO,
        "--window",
        "week:2026-W23",
        "--quiet",
        "--formats",
        "json",
        "--source",
        f"replay:{history}",
        "--database-url",
        f"sqlite:///{db}",
        "--out",
        str(tmp_path / "out"),
    )
    assert_clean_error(
        result,
        1,
        "1 fact of acme/widgets could not be processed",
        "by the summarizer",
        "title refused here",
        "RD_DEAD",
    )
    # the five good ones are in the report that was written
    report = json.loads(next((tmp_path / "out").rglob("report.json")).read_text())
    merged = [row["number"] for row in report["appendix"]["merged_prs"]]
    assert sorted(merged) == [1, 2, 4, 5, 6]


# ---------------------------------------------------------------- item 8: clear errors, right codes


def fact_line(number: int = 1, **item) -> dict:
    """A recorded repodigest event (events:PATH), as JSON, with item fields overridden."""
    from datetime import datetime

    from shared.events import Actor, FactData, ItemSnapshot, make_fact

    at = datetime(2026, 6, 2, 10, tzinfo=UTC)
    fact = make_fact(
        FactData(
            repo=REPO,
            kind="pull_request",
            action="opened",
            item=ItemSnapshot(
                repo=REPO,
                number=min(number, 2**31 - 1),
                kind="pull_request",
                title=f"change {number}",
                author=Actor(login="a"),
                state="open",
                created_at=at,
                updated_at=at,
            ),
        )
    )
    doc = json.loads(fact.to_bytes())
    doc["data"]["item"].update(number=number, **item)
    return doc


def gharchive_line(number: int = 1, **pr) -> dict:
    pull = {
        "number": number,
        "title": f"change {number}",
        "user": {"login": "a"},
        "state": "open",
        "created_at": "2026-06-02T10:00:00Z",
        "updated_at": "2026-06-02T10:00:00Z",
        "html_url": f"https://github.com/{REPO}/pull/{number}",
    }
    pull.update(pr)
    return {
        "type": "PullRequestEvent",
        "repo": {"name": REPO},
        "actor": {"login": "a"},
        "created_at": "2026-06-02T10:00:00Z",
        "payload": {"action": "opened", "pull_request": pull},
    }


def report(tmp_path: Path, source: str, *extra: str, window: str = "week:2026-W23"):
    return run_cli(
        "report",
        REPO,
        "--window",
        window,
        "--quiet",
        "--formats",
        "json",
        "--source",
        source,
        "--out",
        str(tmp_path / "out"),
        *extra,
    )


# (source kind, a good line, a bad line, what the error names): numbers and times the event
# contract cannot store, in every file source; they used to be tracebacks (OverflowError) or,
# for numbers, facts that overflowed the projections later
BAD_VALUES = [
    ("replay", merged_pr(1), merged_pr(2**70), "line 2", "number"),
    (
        "replay",
        merged_pr(1),
        merged_pr(2, merged_at="9999-12-31T23:59:59-12:00"),
        "line 2",
        "1970..2200",
    ),
    (
        "replay",
        merged_pr(1),
        merged_pr(2, authored_at="0001-01-01T00:00:00+01:00"),
        "line 2",
        "1970..2200",
    ),
    (
        "replay",
        merged_pr(1),
        '{"sha": "x", "pr_number": 1e400, "title": "t", "merged_at": "2026-06-02T12:00:00Z"}',
        "line 2",
        "pr_number",
    ),
    (
        "replay",
        merged_pr(1),
        merged_pr(2, files=[{"path": "a", "additions": 2**64, "deletions": 0}]),
        "line 2",
        "additions",
    ),
    ("events", fact_line(1), fact_line(2**70), "line 2", "number"),
    (
        "events",
        fact_line(1),
        fact_line(2, created_at="9999-12-31T23:59:59-12:00"),
        "line 2",
        "1970..2200",
    ),
    ("events", fact_line(1), fact_line(2, title="nul\u0000"), "line 2", "title"),
    ("events", fact_line(1), fact_line(2, comments=2**63), "line 2", "comments"),
    ("gharchive", gharchive_line(1), gharchive_line(2**70), "line 2", "number"),
    (
        "gharchive",
        gharchive_line(1),
        gharchive_line(2, created_at="0001-01-01T00:00:00+01:00"),
        "line 2",
        "1970..2200",
    ),
    ("gharchive", gharchive_line(1), gharchive_line(2, comments=1e400), "line 2", "comments"),
]


def test_out_of_range_numbers_and_times_in_files_are_one_line_errors(tmp_path):
    for i, (kind, good, bad, where, what) in enumerate(BAD_VALUES):
        path = write_lines(tmp_path / f"{kind}-{i}.jsonl", [good, bad])
        result = report(tmp_path, f"{kind}:{path}")
        assert_clean_error(result, 1, where, what)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "out").exists()


def test_an_empty_file_is_an_error_in_every_file_source(tmp_path):
    empty = write_lines(tmp_path / "empty.jsonl", [])
    for kind in ("events", "replay", "gharchive"):
        assert_clean_error(report(tmp_path, f"{kind}:{empty}"), 1, "empty.jsonl")
    # an events file with only a watermark holds no fact either
    from datetime import datetime

    from shared.events import SyncWatermark, WatermarkData

    mark = SyncWatermark.create(
        WatermarkData(repo=REPO, watermark=datetime(2026, 6, 3, tzinfo=UTC))
    )
    only_mark = write_lines(tmp_path / "mark.jsonl", [mark.to_bytes().decode()])
    assert_clean_error(report(tmp_path, f"events:{only_mark}"), 1, "holds no GitHub facts")
    assert not (tmp_path / "out").exists()


def test_bytes_that_are_not_utf8_are_reported_on_their_own_line(tmp_path):
    path = tmp_path / "history.jsonl"
    good = "".join(json.dumps(merged_pr(n)) + "\n" for n in (1, 2, 3))
    path.write_bytes(good.encode() + b'{"title": "caf\xe9"}\n')
    assert_clean_error(report(tmp_path, f"replay:{path}"), 1, "line 4 is not UTF-8")


def test_windows_outside_the_years_a_report_covers_are_argument_errors(tmp_path):
    history = write_lines(tmp_path / "merged.jsonl", [merged_pr(1)])
    for window, tz in [
        ("day:9999-12-31", "Etc/GMT+12"),
        ("day:0001-01-01", "Etc/GMT-14"),
        ("custom:0001-01-01/9999-12-31", "UTC"),
        ("week:9999-W52", "UTC"),
        ("month:1969-12", "UTC"),
        ("custom:1970-01-01/2200-12-31", "UTC"),
    ]:
        result = report(tmp_path, f"replay:{history}", "--tz", tz, window=window)
        assert_clean_error(result, 2)
        assert "1970..2200" in result.stderr or "at most" in result.stderr, result.stderr


def test_impossible_arguments_are_refused_before_anything_starts(tmp_path):
    history = write_lines(tmp_path / "merged.jsonl", [merged_pr(1)])
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory")
    cases = [
        (["--timeout", "nan"], "--timeout"),
        (["--timeout", "inf"], "--timeout"),
        (["--timeout", "-5"], "--timeout"),
        (["--out", str(a_file)], "--out"),
        (["--out", str(a_file / "below")], "--out"),
        (["--data-dir", str(a_file)], "--data-dir"),
        (["--database-url", "mysql://u@localhost/db"], "SQLite"),
        (["--database-url", "not a url"], "not a database URL"),
        (["--database-url", "postgresql+nosuchdriver://u@h/db"], "no driver"),
        (["--profile", "no-such-profile"], "no-such-profile"),
    ]
    for args, needle in cases:
        result = run_cli(
            "report",
            REPO,
            "--window",
            "week:2026-W23",
            "--quiet",
            "--formats",
            "json",
            "--source",
            f"replay:{history}",
            *(["--out", str(tmp_path / "out")] if "--out" not in args else []),
            *args,
        )
        assert_clean_error(result, 2, needle)
    assert a_file.read_text() == "not a directory" and not (tmp_path / "out").exists()


def test_fetch_of_a_directory_says_so(tmp_path):
    (tmp_path / "report.md").write_text("# report")
    result = run_cli("fetch", f"file://{tmp_path}/")
    assert_clean_error(result, 1, "is a directory")
    result = run_cli("fetch", f"file://{tmp_path}/report.md", "-o", str(tmp_path))
    assert_clean_error(result, 2, "is a directory", "--out")


async def test_an_oversized_fact_publishes_nothing_at_all(tmp_path, nats_server):
    """File sources promise all or nothing: the sixth of seven facts is larger than a message may
    be; it used to fail after the first five were published."""
    import asyncio

    import nats

    rows = [merged_pr(n, "x" * 1_500_000 if n == 6 else None) for n in range(1, 8)]
    history = write_lines(tmp_path / "merged.jsonl", rows)
    result = await asyncio.to_thread(
        run_cli,
        "report",
        REPO,
        "--window",
        "week:2026-W23",
        "--quiet",
        "--formats",
        "json",
        "--source",
        f"replay:{history}",
        "--nats-url",
        nats_server.url,
        "--no-run-services",
        "--out",
        str(tmp_path / "out"),
        "--timeout",
        "30",
    )
    assert_clean_error(result, 1, "#6", "title", "Nothing was published")
    nc = await nats.connect(nats_server.url)
    try:
        info = await nc.jetstream().stream_info("RD_GITHUB")
        assert info.state.messages == 0
    finally:
        await nc.close()


def test_a_fact_from_the_future_is_refused_not_waited_for(tmp_path):
    """A merged PR timed in 2150 is within the contract's years, but has not happened: the
    summarizer would hold it, and the watermark after it, until --timeout ran out."""
    rows = [merged_pr(1), merged_pr(2, merged_at="2150-01-01T00:00:00Z"), merged_pr(3)]
    history = write_lines(tmp_path / "merged.jsonl", rows)
    result = report(tmp_path, f"replay:{history}", "--timeout", "60")
    assert_clean_error(result, 1, "#2", "2150-01-01 00:00 UTC", "has not come yet")
    # an events file's own watermark from the future, likewise
    from datetime import datetime

    from shared.events import SyncWatermark, WatermarkData

    mark = SyncWatermark.create(
        WatermarkData(repo=REPO, watermark=datetime(2150, 1, 1, tzinfo=UTC))
    )
    events = write_lines(tmp_path / "events.jsonl", [fact_line(1), mark.to_bytes().decode()])
    result = report(tmp_path, f"events:{events}", "--timeout", "60")
    assert_clean_error(result, 1, "watermark 2150-01-01 00:00 UTC has not come yet")
