"""Offline sources: spec parsing, the merged-PR history, our own events, GH Archive NDJSON."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from services.ingest.adapters.files import load_source, write_events
from services.ingest.domain.sources import (
    SourceError,
    SourceSpec,
    login_from_commit_author,
    parse_source_spec,
    renamed_path,
    replay_fact,
)
from shared.events import SyncWatermark, WatermarkData, fact_time, make_fact
from shared.events.github import FILES_CAP
from shared.windows import parse_window
from tests.conftest import require_shared_data

# ---------------------------------------------------------------- specs


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("demo", SourceSpec("demo")),
        ("github", SourceSpec("github")),
        ("github-graphql", SourceSpec("github-graphql")),
        ("replay:/tmp/x.jsonl", SourceSpec("replay", "/tmp/x.jsonl")),
        ("events:rel/e.jsonl", SourceSpec("events", "rel/e.jsonl")),
        ("gharchive:C:/data/h.json.gz", SourceSpec("gharchive", "C:/data/h.json.gz")),
        (" GHArchive:a.json ", SourceSpec("gharchive", "a.json")),
    ],
)
def test_parse_source_spec(spec, expected):
    assert parse_source_spec(spec) == expected


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("kafka:topic", "unknown source 'kafka:topic'"),
        ("replay", "needs a file: replay:PATH"),
        ("events:", "needs a file"),
        ("demo:foo", "takes no path"),
        ("", "unknown source"),
    ],
)
def test_parse_source_spec_errors_say_what_to_use(spec, fragment):
    with pytest.raises(SourceError) as err:
        parse_source_spec(spec)
    assert fragment in str(err.value)
    assert "gharchive:PATH" in str(err.value)


def test_github_source_points_to_the_live_source():
    with pytest.raises(SourceError, match="REPODIGEST_GITHUB_TOKEN"):
        load_source("github", "vllm-project/vllm")


# ---------------------------------------------------------------- merged-PR history


@pytest.mark.parametrize(
    "name, email, login, domain, bot",
    [
        ("Jane", "85173575+chen-commits@users.noreply.github.com", "chen-commits", None, False),
        ("jack", "QwertyJack@users.noreply.github.com", "QwertyJack", None, False),
        (
            "x",
            "41898282+github-actions[bot]@users.noreply.github.com",
            "github-actions[bot]",
            None,
            True,
        ),
        ("Li Wei", "li.wei@Huawei.com", "Li Wei", "huawei.com", False),
        ("", "someone@example.org", "someone", "example.org", False),
        ("only-name", None, "only-name", None, False),
    ],
)
def test_login_from_commit_author(name, email, login, domain, bot):
    actor = login_from_commit_author(name, email)
    assert (actor.login, actor.email_domain, actor.is_bot) == (login, domain, bot)


@pytest.mark.parametrize(
    "path, new, renamed",
    [
        ("a/b.py", "a/b.py", False),
        ("docs/{old => new}/x.md", "docs/new/x.md", True),
        ("vllm_ascend/{ => ops}/fused.py", "vllm_ascend/ops/fused.py", True),
        ("old.py => pkg/new.py", "pkg/new.py", True),
    ],
)
def test_renamed_path(path, new, renamed):
    assert renamed_path(path) == (new, renamed)


def test_replay_record_caps_files_and_sums_lines():
    files = [{"path": f"f{i}.py", "additions": i, "deletions": 1} for i in range(FILES_CAP + 7)]
    files.append({"path": "logo.png", "additions": None, "deletions": None})
    fact = replay_fact(
        {
            "sha": "abc",
            "pr_number": 42,
            "title": "[Perf] faster",
            "author_name": "A",
            "author_email": "a@corp.example",
            "authored_at": "2026-06-08T10:00:00+08:00",
            "merged_at": "2026-06-09T12:00:00+08:00",
            "files": files,
        }
    )
    item = fact.item
    assert (fact.kind, fact.action, fact.origin) == ("pull_request", "merged", "replay")
    assert item.repo == "vllm-project/vllm-ascend"
    assert len(item.files) == FILES_CAP and item.files_truncated
    assert item.changed_files == FILES_CAP + 8
    assert item.additions == sum(range(FILES_CAP + 7))
    assert item.deletions == FILES_CAP + 7
    assert item.merged_at == datetime(2026, 6, 9, 4, tzinfo=UTC)
    assert fact_time(fact) == item.merged_at
    assert item.author.email_domain == "corp.example"


def test_replay_record_body_is_the_description():
    record = {
        "sha": "abc",
        "pr_number": 42,
        "title": "[Perf] faster",
        "author_name": "A",
        "author_email": "a@corp.example",
        "merged_at": "2026-06-09T12:00:00+08:00",
        "files": [],
        "body": "### What this PR does / why we need it?\nFaster decode.\n\nSigned-off-by: A",
    }
    assert replay_fact(record).item.body_excerpt == record["body"]
    long = dict(record, body="x" * 10_000)
    assert len(replay_fact(long).item.body_excerpt) == 4_000  # capped by the model
    assert replay_fact({k: v for k, v in record.items() if k != "body"}).item.body_excerpt == ""
    assert replay_fact(dict(record, body=None)).item.body_excerpt == ""


def test_replay_week_matches_the_file():
    path = require_shared_data("vllm-ascend-history", "merged_prs.jsonl")
    loaded = load_source(f"replay:{path}")
    assert loaded.repo == "vllm-project/vllm-ascend"
    assert set(loaded.counts()) == {("pull_request", "merged")}  # nothing invented
    week = parse_window("week:2026-W24", "Asia/Shanghai")
    expected_numbers = set()
    lines = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        lines += 1
        merged = datetime.fromisoformat(rec["merged_at"])
        if rec["pr_number"] is not None and week.start <= merged < week.end:
            expected_numbers.add(rec["pr_number"])
    got = {f.item.number for f in loaded.facts if week.contains(fact_time(f))}
    assert expected_numbers and got == expected_numbers
    with_number = sum(
        1
        for line in path.read_text(encoding="utf-8").splitlines()
        if json.loads(line)["pr_number"] is not None
    )
    assert len(loaded.facts) == with_number < lines
    times = [fact_time(f) for f in loaded.facts]
    assert times == sorted(times)  # published oldest first


def test_replay_errors_name_the_line(tmp_path):
    good = json.dumps(
        {
            "sha": "a",
            "pr_number": 1,
            "title": "t",
            "author_name": "n",
            "author_email": "n@x.org",
            "authored_at": "2026-01-01T00:00:00Z",
            "merged_at": "2026-01-01T00:00:00Z",
            "files": [],
        }
    )
    p = tmp_path / "h.jsonl"
    p.write_text(good + "\n" + good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SourceError, match="line 3 is not JSON"):
        load_source(f"replay:{p}")
    p.write_text(
        good + "\n" + json.dumps({"id": "1", "type": "PushEvent"}) + "\n", encoding="utf-8"
    )
    with pytest.raises(
        SourceError, match=r"line 2: missing field\(s\) sha, pr_number, title, merged_at"
    ):
        load_source(f"replay:{p}")


def test_missing_file_and_parquet_are_explained(tmp_path):
    with pytest.raises(SourceError, match="does not exist"):
        load_source(f"replay:{tmp_path / 'nope.jsonl'}")
    parquet = tmp_path / "x.parquet"
    parquet.write_bytes(b"PAR1")
    with pytest.raises(SourceError, match="Parquet"):
        load_source(f"gharchive:{parquet}")
    with pytest.raises(SourceError, match="is a directory"):
        load_source(f"events:{tmp_path}")


# ---------------------------------------------------------------- our own events


def _demo_facts(n: int = 40):
    from services.ingest.adapters.demo import generate_demo

    return generate_demo("2026-W24", seed=3).facts[:n]


def test_events_file_round_trips(tmp_path):
    facts = _demo_facts()
    # a recorded event keeps its own time even where it differs from the fact's GitHub time
    moved = make_fact(facts[0], time=datetime(2026, 5, 1, 12, tzinfo=UTC))
    mark = SyncWatermark.create(
        WatermarkData(repo=facts[0].repo, watermark=datetime(2026, 6, 15, tzinfo=UTC))
    )
    p = tmp_path / "recorded" / "events.jsonl.gz"
    events = [moved] + [make_fact(f) for f in facts[1:]]
    assert write_events(p, [*events, mark]) == len(facts) + 1
    loaded = load_source(f"events:{p}")
    assert loaded.repo == facts[0].repo
    assert sorted(e.to_bytes() for e in loaded.facts) == sorted(e.to_bytes() for e in events)
    assert loaded.facts[0] == moved  # oldest first
    assert loaded.watermark == mark.data.watermark
    assert loaded.origin == "demo"


def test_events_file_bad_line_and_foreign_repo(tmp_path):
    facts = _demo_facts(3)
    p = tmp_path / "events.jsonl"
    lines = [make_fact(f).to_bytes().decode() for f in facts]
    p.write_text("\n".join([lines[0], '{"type": "nope"}', lines[1]]) + "\n", encoding="utf-8")
    with pytest.raises(SourceError) as err:
        load_source(f"events:{p}")
    assert "line 2 is not a repodigest GitHub event" in str(err.value)
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SourceError) as err:
        load_source(f"events:{p}", "someone/else")
    assert "nothing for someone/else" in str(err.value)
    assert f"{facts[0].repo} (3)" in str(err.value)


# ---------------------------------------------------------------- GH Archive

TRACKED = {
    ("PullRequestEvent", "opened"): ("pull_request", "opened"),
    ("PullRequestEvent", "reopened"): ("pull_request", "reopened"),
    ("IssuesEvent", "opened"): ("issue", "opened"),
    ("IssuesEvent", "closed"): ("issue", "closed"),
    ("IssuesEvent", "reopened"): ("issue", "reopened"),
    ("IssueCommentEvent", "created"): ("comment", "created"),
    ("PullRequestReviewCommentEvent", "created"): ("comment", "created"),
    ("PullRequestReviewEvent", "created"): ("review", "submitted"),
}


def _expected_gharchive(path: Path, repo: str) -> Counter:
    """Counts per fact kind computed straight from the raw events (independently of the parser)."""
    out: Counter = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        if e["repo"]["name"] != repo:
            continue
        action = e["payload"].get("action")
        if e["type"] == "PullRequestEvent" and action == "closed":
            pr = e["payload"]["pull_request"]
            out[("pull_request", "merged" if pr.get("merged_at") else "closed")] += 1
        elif e["type"] == "IssuesEvent" and "pull_request" in e["payload"]["issue"]:
            continue
        elif (e["type"], action) in TRACKED:
            out[TRACKED[(e["type"], action)]] += 1
    return out


def _busiest(path: Path) -> list[str]:
    seen: Counter = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        if e["type"] in (
            "PullRequestEvent",
            "IssuesEvent",
            "IssueCommentEvent",
            "PullRequestReviewEvent",
            "PullRequestReviewCommentEvent",
        ):
            seen[e["repo"]["name"]] += 1
    return [r for r, _ in seen.most_common(4)]


@pytest.mark.parametrize(
    "name", ["2021-07-21-few-hours.json", "2016-07-07-00.first2000.from-parquet.ndjson"]
)
def test_gharchive_counts_per_type(name):
    path = require_shared_data("gharchive", name)
    for repo in _busiest(path):
        loaded = load_source(f"gharchive:{path}", repo)
        assert loaded.repo == repo and loaded.origin == "gharchive"
        assert loaded.counts() == _expected_gharchive(path, repo), repo
        assert all(f.repo == repo for f in loaded.facts)


def test_gharchive_reviews_and_review_comments():
    path = require_shared_data("gharchive", "2021-07-21-few-hours.json")
    loaded = load_source(f"gharchive:{path}", "magma/magma")
    review = next(f for f in loaded.facts if f.kind == "review")
    assert review.review.state == "COMMENTED"  # GitHub REST spelling
    assert review.item.kind == "pull_request" and review.item.number == 8124
    comment = next(f for f in loaded.facts if f.kind == "comment")
    assert comment.comment.on_review is True
    assert comment.comment.body_excerpt.startswith("ok , i will make changes")


def test_gharchive_pull_requests_carry_their_head_branch():
    path = require_shared_data("gharchive", "2021-07-21-few-hours.json")
    heads = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        if e["type"] == "PullRequestEvent":
            pr = e["payload"]["pull_request"]
            heads[(e["repo"]["name"], pr["number"])] = pr["head"]["ref"]
    loaded = load_source(f"gharchive:{path}", "peavers/terrible-monolith")
    pulls = [f for f in loaded.facts if f.kind == "pull_request"]
    assert pulls
    for f in pulls:
        assert f.item.head_branch == heads[(f.repo, f.item.number)]
    assert any(f.item.head_branch.startswith("dependabot/") for f in pulls)
    # issues have no head branch
    issues = load_source(f"gharchive:{path}", _busiest(path)[0]).facts
    assert all(f.item.head_branch is None for f in issues if f.item.kind == "issue")


def test_gharchive_comment_on_pull_request_is_marked_as_such():
    path = require_shared_data("gharchive", "2021-07-21-few-hours.json")
    loaded = load_source(f"gharchive:{path}", "tikv/client-java")
    comments = [f for f in loaded.facts if f.kind == "comment"]
    assert comments and comments[0].item.kind == "pull_request"
    assert comments[0].comment.on_review is False


def test_gharchive_repo_errors_list_the_repos_present(tmp_path):
    path = require_shared_data("gharchive", "2021-07-21-few-hours.json")
    busiest = _busiest(path)[0]
    with pytest.raises(SourceError) as err:
        load_source(f"gharchive:{path}", "vllm-project/vllm")
    assert "nothing for vllm-project/vllm" in str(err.value) and busiest in str(err.value)
    with pytest.raises(SourceError, match="name the one to ingest"):
        load_source(f"gharchive:{path}")
    # gzip is read transparently; a single-repository file needs no repository
    lines = [
        ln
        for ln in path.read_text(encoding="utf-8").splitlines()
        if json.loads(ln)["repo"]["name"] == busiest
    ]
    gz = tmp_path / "one.json.gz"
    gz.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    loaded = load_source(f"gharchive:{gz}")
    assert loaded.repo == busiest and loaded.counts() == _expected_gharchive(path, busiest)


def test_gharchive_wrong_format_names_the_line(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(
        '{"id": "1", "type": "PushEvent", "repo": {"name": "a/b"}}\n{"sha": "x"}\n',
        encoding="utf-8",
    )
    with pytest.raises(SourceError, match="line 2 is not a GH Archive event"):
        load_source(f"gharchive:{p}", "a/b")


def test_gharchive_glob_reads_every_hour_file():
    folder = require_shared_data("gharchive")
    new = folder / "2021-07-21-few-hours.json"
    old = folder / "2016-07-07-00.first2000.from-parquet.ndjson"
    repo_new, repo_old = _busiest(new)[0], _busiest(old)[0]
    pattern = f"gharchive:{folder}/*json"  # both NDJSON files, not the Parquet one
    for repo, path in ((repo_new, new), (repo_old, old)):
        loaded = load_source(pattern, repo)
        assert loaded.counts() == _expected_gharchive(path, repo)
    with pytest.raises(SourceError) as err:
        load_source(pattern, "nobody/nothing")
    assert repo_new in str(err.value) and repo_old in str(err.value)


def test_gharchive_glob_errors_name_the_file(tmp_path):
    good = '{"id": "1", "type": "PushEvent", "repo": {"name": "a/b"}, "payload": {}}\n'
    (tmp_path / "h-00.json").write_text(good, encoding="utf-8")
    (tmp_path / "h-01.json").write_text(good + "{oops\n", encoding="utf-8")
    with pytest.raises(SourceError) as err:
        load_source(f"gharchive:{tmp_path}/h-*.json", "a/b")
    assert str(err.value).startswith(f"{tmp_path / 'h-01.json'}: line 2 is not JSON")
    with pytest.raises(SourceError, match="no file matches"):
        load_source(f"gharchive:{tmp_path}/x-*.json", "a/b")


@pytest.mark.parametrize(
    "link, kind",
    [
        (None, "issue"),
        ({"html_url": None, "diff_url": None}, "issue"),  # old payloads on plain issues
        ({"html_url": "https://github.com/a/b/pull/5"}, "pull_request"),
    ],
)
def test_comment_item_kind_follows_the_pull_request_link(link, kind):
    from services.ingest.domain.sources import gharchive_facts_of

    issue = {
        "number": 5,
        "title": "t",
        "user": {"login": "u"},
        "state": "open",
        "created_at": "2016-07-07T00:00:00Z",
    }
    if link is not None:
        issue["pull_request"] = link
    event = {
        "type": "IssueCommentEvent",
        "repo": {"name": "a/b"},
        "created_at": "2016-07-07T00:01:00Z",
        "payload": {
            "action": "created",
            "issue": issue,
            "comment": {
                "id": 9,
                "user": {"login": "v"},
                "body": "hi",
                "created_at": "2016-07-07T00:01:00Z",
            },
        },
    }
    (fact,) = gharchive_facts_of(event, "a/b")
    assert fact.item.kind == kind and fact.comment.id == 9 and fact.actor is None
