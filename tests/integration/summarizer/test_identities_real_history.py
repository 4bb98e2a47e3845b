"""The real vllm-ascend history (4,734 merges): the starter identities file `repodigest identities
--starter` writes from it (the CLI as a subprocess) merges the commit names the data links to a
login, and the whole history's report (SQLite and PostgreSQL) then has no such name beside its
login: one row per person, with the merges counted straight from the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta

import yaml

from services.classifier.adapters.profiles import read_identities
from services.classifier.domain.rules import build_registry
from services.classifier.handlers import classify_fact
from services.ingest.adapters.files import load_source
from services.summarizer.adapters.store import SqlProjections
from services.summarizer.domain.report import build_summary
from services.summarizer.domain.windows import previous_window
from services.summarizer.handlers import Deps, fold_events
from shared.events import WindowSummarized, make_fact
from shared.events.github import noreply_login
from shared.windows import custom_window
from tests.conftest import require_shared_data

REPO = "vllm-project/vllm-ascend"
# the identities are under test, not the rules: a profile with nothing but its name
PROFILE = {"profile": "generic"}


def starter(path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "REPODIGEST_IDENTITIES"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "repodigest",
            "identities",
            "--source",
            f"replay:{path}",
            "--starter",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def contributors(store: SqlProjections, events, window) -> dict:
    async def publish(event: WindowSummarized) -> None:
        raise AssertionError("nothing is due: no summary is published")

    deps = Deps(store=store, publish=publish, clock=lambda: datetime(2027, 1, 1, tzinfo=UTC))
    for i in range(0, len(events), 256):
        await fold_events(deps, events[i : i + 256])
    summary = build_summary(
        store.load_window(REPO, window, previous_window(window)), now=window.end
    )
    assert summary.counts.active_contributors == sum(not c.bot for c in summary.contributors)
    return {c.login: c for c in summary.contributors}


async def test_commit_names_linked_to_logins_are_one_person(database_url, tmp_path):
    path = require_shared_data("vllm-ascend-history", "merged_prs_with_bodies.jsonl")
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    text = starter(path)
    file = tmp_path / "identities.yaml"
    file.write_text(text, encoding="utf-8")
    book = read_identities(file)  # what the CLI wrote, the classifier reads
    people = yaml.safe_load(text)["people"]
    assert people and all(p["login"] and p["names"] for p in people)
    aliases = {name: p["login"] for p in people for name in p["names"]}
    assert aliases["XuChi"] == "xuchi-0808"  # "XuChi" committed with 117799054+xuchi-0808@users...

    # the merges of each person, counted from the file alone: noreply login, or a name/e-mail listed
    expected: Counter[str] = Counter()
    for r in rows:
        if r["pr_number"] is None:
            continue
        login = noreply_login(r["author_email"])
        for p in people:
            if login == p["login"] or (
                login is None
                and (
                    r["author_name"] in p["names"]
                    or r["author_email"].lower() in p.get("emails", [])
                )
            ):
                expected[p["login"]] += 1

    facts = [make_fact(f) for f in load_source(f"replay:{path}").facts]
    times = [f.time for f in facts]
    window = custom_window(min(times), max(times) + timedelta(seconds=1), "UTC")
    store = SqlProjections(database_url)
    try:
        plain = build_registry({"generic": ("generic.yaml", PROFILE)})
        before = await contributors(store, [classify_fact(f, plain) for f in facts], window)
        # without the file each linked commit name stands beside its login
        assert all(alias in before and login in before for alias, login in aliases.items())

        merged = build_registry({"generic": ("generic.yaml", PROFILE)}, identities=book)
        after = await contributors(store, [classify_fact(f, merged) for f in facts], window)
        assert not set(aliases) & set(after)
        assert len(after) == len(before) - len(aliases)
        for login, count in expected.items():
            assert after[login].prs_merged == count, login
            assert count == before[login].prs_merged + sum(
                before[a].prs_merged for a, to in aliases.items() if to == login
            )
        assert sum(c.prs_merged for c in after.values()) == sum(
            c.prs_merged for c in before.values()
        )
    finally:
        store.close()
