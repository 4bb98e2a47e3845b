"""`repodigest identities` run as a person runs it (a subprocess): the commit names a history links
to a login, the look-alikes to confirm, a starter identities file that the classifier accepts and
that stops listing what it merges, the event log of a real nats-server, and bad input."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import nats
import yaml

from services.classifier.adapters.profiles import read_identities
from services.ingest.domain.sources import replay_fact
from services.registry import consumers
from shared.events import make_fact
from shared.messaging import Subjects, ensure_topology

CLI = [sys.executable, "-m", "repodigest"]
REPO = "vllm-project/vllm-ascend"


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REPODIGEST_IDENTITIES", "REPODIGEST_NATS_URL")
    }
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, env=env)


def row(number: int, name: str, email: str, body: str = "") -> dict:
    return {
        "sha": f"{number:040x}",
        "pr_number": number,
        "title": f"change {number}",
        "author_name": name,
        "author_email": email,
        "authored_at": f"2026-03-{number:02d}T08:00:00+08:00",
        "merged_at": f"2026-03-{number:02d}T09:00:00+08:00",
        "files": [{"path": "vllm_ascend/a.py", "additions": 1, "deletions": 0}],
        "body": body,
    }


ROWS = [
    row(1, "XuChi", "117799054+xuchi-0808@users.noreply.github.com"),
    row(2, "XuChi", "xuchicolson@163.com"),
    row(3, "Xu Chi", "XuChiColson@163.com"),  # another spelling, the same address
    row(4, "frankchen", "9+frankchen@users.noreply.github.com"),
    row(
        5,
        "Frank Chen",
        "chenchuwei@huawei.com",
        "Fix it.\n\nSigned-off-by: Frank Chen <chenchuwei@huawei.com>",
    ),
    # one name with two noreply logins: the data does not say which, so nothing is merged
    row(6, "jiangpeng", "1+ponix-j@users.noreply.github.com"),
    row(7, "jiangpeng", "2+jiangpeng36@users.noreply.github.com"),
    row(8, "jiangpeng", "jp@example.com"),
    row(9, "Somebody Else", "else@example.com"),
]


def write_history(tmp_path: Path) -> Path:
    path = tmp_path / "history.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_identities_lists_links_and_lookalikes_and_writes_a_starter_file(tmp_path):
    history = write_history(tmp_path)
    done = run_cli("identities", "--source", f"replay:{history}")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert (
        "  XuChi -> xuchi-0808: commit name 'XuChi' also committed with xuchi-0808's noreply address"
        in lines
    )
    assert any(
        line.startswith("  Xu Chi -> xuchi-0808: e-mail xuchicolson@163.com") for line in lines
    )
    assert not any("jiangpeng ->" in line for line in lines)  # ambiguous: listed, not linked
    lookalikes = lines[lines.index(next(x for x in lines if x.startswith("look-alikes"))) + 1 :]
    assert any(
        "'Frank Chen' (commit name, 1 facts), 'frankchen' (login, 1 facts)" in x for x in lookalikes
    )
    assert any("'jiangpeng'" in x and "'jiangpeng36'" in x and "'ponix-j'" in x for x in lookalikes)
    assert not any("Somebody" in x for x in lookalikes)

    starter = run_cli("identities", "--source", f"replay:{history}", "--starter")
    assert starter.returncode == 0, starter.stderr
    data = yaml.safe_load(starter.stdout)
    assert data["people"] == [
        {"login": "xuchi-0808", "names": ["Xu Chi", "XuChi"], "emails": ["xuchicolson@163.com"]}
    ]
    assert (
        "#  - 'Frank Chen' (commit name, 1 facts), 'frankchen' (login, 1 facts)" in starter.stdout
    )
    # a person confirms Frank Chen: the file loads, and he is no longer listed
    confirmed = starter.stdout.replace(
        "people:\n", "people:\n- {login: frankchen, names: [Frank Chen]}\n", 1
    )
    path = tmp_path / "identities.yaml"
    path.write_text(confirmed, encoding="utf-8")
    book = read_identities(path)
    assert (
        book.resolve("Frank Chen").key == "frankchen" and book.resolve("Xu Chi").key == "xuchi-0808"
    )
    again = run_cli("identities", "--source", f"replay:{history}", "--identities", str(path))
    assert again.returncode == 0, again.stderr
    assert "Frank Chen" not in again.stdout and "'jiangpeng'" in again.stdout
    # links the file already holds are not proposed again
    assert "linked by the data (0)" in again.stdout


def test_bad_input_is_named_and_exits_non_zero(tmp_path):
    history = write_history(tmp_path)
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "people:\n  - {login: a, names: [X]}\n  - {login: b, names: [x]}\n", encoding="utf-8"
    )
    for args, code, needle in (
        ((), 2, "no facts to read"),
        (("--source", "replay:/nonexistent/history.jsonl"), 2, "does not exist"),
        (("--source", "nonsense:x"), 2, "--source"),
        (("--source", "github"), 2, "--data-dir DIR"),
        (
            ("--source", f"replay:{history}", "--identities", str(broken)),
            2,
            "name 'x' is already a's",
        ),
        (("not-a-repo", "--source", f"replay:{history}"), 2, "OWNER/NAME"),
        (("--data-dir", str(tmp_path)), 2, "holds no event log"),
        (("--nats-url", "nats://127.0.0.1:1"), 1, "NATS"),
    ):
        done = run_cli("identities", *args)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert needle in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
    report = run_cli(
        "report",
        REPO,
        "--window",
        "week:2026-W10",
        "--source",
        f"replay:{history}",
        "--identities",
        str(broken),
        "--out",
        str(tmp_path / "out"),
    )
    assert (
        report.returncode == 2
        and "--identities:" in report.stderr
        and "already a's" in report.stderr
    )


async def test_identities_reads_the_event_log(nats_server):
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_topology(js, consumers=consumers())
        for r in ROWS:
            fact = make_fact(replay_fact(r, REPO))
            await js.publish(
                Subjects.fact(fact.data.kind, fact.data.action, REPO),
                fact.to_bytes(),
                headers={"Nats-Msg-Id": fact.id},
            )
    finally:
        await nc.drain()
    done = await asyncio.to_thread(run_cli, "identities", REPO, "--nats-url", nats_server.url)
    assert done.returncode == 0, done.stderr
    # xuchi-0808, XuChi, Xu Chi, frankchen, Frank Chen, ponix-j, jiangpeng36, jiangpeng, Somebody Else
    assert "9 people keys" in done.stdout
    assert "  XuChi -> xuchi-0808:" in done.stdout
    other = await asyncio.to_thread(
        run_cli, "identities", "some/other", "--nats-url", nats_server.url
    )
    assert other.returncode == 0 and "0 people keys" in other.stdout
