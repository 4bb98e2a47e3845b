"""The GitHub Actions workflow's own scripts, run by bash as a runner runs them (issue #19 item 3).

deploy/github-actions/repodigest-weekly.yml's steps are read from the file and run with
`bash --noprofile --norc -eo pipefail` (the runner's `shell: bash`), their `env:` resolved from
the workflow as GitHub would with the test's variables and inputs: the window step for each
cron, the report step with the real CLI against the GitHub emulator (real recorded responses),
and the commit step in a clone of a real git remote. The actions (checkout, cache, artifacts)
are GitHub's and are not run here; tests/unit/deploy/test_github_actions.py checks how they are
wired."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_scheduled_runs import emulator  # noqa: F401 - the fixture
from tests.github_emulator import GithubEmulator
from tests.integration.ingest_github.test_github_sync import REPO
from tests.unit.deploy.test_github_actions import ROOT, load, resolve, step

pytestmark = [pytest.mark.shared_data, pytest.mark.timeout(900)]

WINDOW = "custom:2008-01-01/2026-01-01"  # the recorded history (2012)


class Runner:
    """A workspace, the contexts GitHub would give, and one step at a time run by bash."""

    def __init__(
        self,
        tmp_path: Path,
        *,
        variables: dict[str, str] | None = None,
        token: str = "",
        event: dict | None = None,
        inputs: dict | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.workspace = tmp_path / "workspace"
        self.temp = tmp_path / "runner-temp"
        for d in (self.workspace, self.temp):
            d.mkdir(parents=True, exist_ok=True)
        self.context = {
            "vars": variables or {},
            "inputs": inputs or {},
            "secrets": {},
            "github": {
                "workspace": str(self.workspace),
                "repository": "acme/site",
                "run_id": "7001",
                "run_attempt": "1",
                "token": token,
                "event": event or {},
            },
            "runner": {"temp": str(self.temp)},
            "steps": {},
        }
        self.extra_env = extra_env or {}
        # `repodigest` on PATH is this checkout's CLI, as `pip install` would put it there
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        cli = bin_dir / "repodigest"
        cli.write_text(
            f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m repodigest "$@"\n'
        )
        cli.chmod(cli.stat().st_mode | stat.S_IEXEC)
        self.path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"

    def env(self, job: str, spec: dict) -> dict[str, str]:
        workflow = load()
        values = {k: resolve(v, self.context) for k, v in workflow["env"].items()}
        self.context["env"] = values
        values |= {k: resolve(v, self.context) for k, v in spec.get("env", {}).items()}
        return values

    def run(self, job: str, name: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        spec = step(job, name)
        output, summary = self.temp / "output", self.temp / "summary.md"
        output.write_text("")
        # a token only where the step's env gives one
        base = {
            k: v
            for k, v in os.environ.items()
            if k not in ("GITHUB_TOKEN", "REPODIGEST_GITHUB_TOKEN")
        }
        env = {
            **base,
            **self.env(job, spec),
            **self.extra_env,
            "PATH": self.path,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_WORKSPACE": str(self.workspace),
        }
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]],
            cwd=cwd or self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        outputs = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        if "id" in spec:
            self.context["steps"][spec["id"]] = {"outputs": outputs}
        return result


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


# ---------------------------------------------------------------- the window


def test_each_cron_gets_its_window_and_a_dispatch_its_input(tmp_path):
    crons = {entry["cron"]: entry for entry in load()["on"]["schedule"]}
    windows = {}
    for cron in crons:
        runner = Runner(
            tmp_path / cron.replace(" ", "_").replace("*", "x"), event={"schedule": cron}
        )
        result = runner.run("report", "choose")
        assert result.returncode == 0, result.stderr
        windows[cron] = runner.context["steps"]["choose"]["outputs"]
    assert sorted(w["window"] for w in windows.values()) == ["day:last", "week:last"]
    assert {w["publish"] for w in windows.values()} == {"artifact"}  # the default

    runner = Runner(
        tmp_path / "dispatch",
        inputs={"window": WINDOW, "publish": "both"},
        variables={"REPODIGEST_PUBLISH": "artifact"},
    )
    assert runner.run("report", "choose").returncode == 0
    assert runner.context["steps"]["choose"]["outputs"] == {"window": WINDOW, "publish": "both"}
    # the dispatch form's default leaves it to the variable
    runner = Runner(
        tmp_path / "configured",
        inputs={"window": "", "publish": "configured"},
        variables={"REPODIGEST_PUBLISH": "commit"},
    )
    assert runner.run("report", "choose").returncode == 0
    assert runner.context["steps"]["choose"]["outputs"] == {
        "window": "week:last",
        "publish": "commit",
    }


def test_an_unknown_publish_variable_stops_the_run_saying_what_to_set(tmp_path):
    runner = Runner(tmp_path, variables={"REPODIGEST_PUBLISH": "email"})
    result = runner.run("report", "choose")
    assert result.returncode == 2
    assert "::error::REPODIGEST_PUBLISH is 'email': set artifact, commit or both" in result.stdout


def test_a_hostile_window_input_is_only_ever_a_value(tmp_path):
    """An input reaches the scripts through env: a command in it is not run, and the CLI
    refuses it as a window (exit 2) before it starts anything."""
    marker = tmp_path / "pwned"
    hostile = f'week:last"; touch {marker}; echo "$(touch {marker})'
    runner = Runner(
        tmp_path, inputs={"window": hostile}, token="t", variables={"REPODIGEST_FORMATS": "md"}
    )
    assert runner.run("report", "choose").returncode == 0
    assert runner.context["steps"]["choose"]["outputs"]["window"] == hostile
    result = runner.run("report", "Report")
    assert result.returncode == 2 and "not understood" in result.stderr
    assert not marker.exists()


# ---------------------------------------------------------------- report, then commit


def test_the_report_step_reports_and_the_commit_step_pushes_the_markdown(
    tmp_path,
    emulator: GithubEmulator,  # noqa: F811 - the fixture imported above
):
    variables = {
        "REPODIGEST_REPOSITORY": REPO,
        "REPODIGEST_FORMATS": "md,html,json",
        "REPODIGEST_PUBLISH": "both",
    }
    runner = Runner(
        tmp_path,
        variables=variables,
        token=emulator.token,
        inputs={"window": WINDOW, "force": "false"},
        extra_env={"REPODIGEST_GITHUB_API_URL": emulator.base_url},
    )
    assert runner.run("report", "choose").returncode == 0
    result = runner.run("report", "Report")
    assert result.returncode == 0, result.stdout + result.stderr
    assert emulator.token not in result.stdout + result.stderr
    out = runner.workspace / ".repodigest" / "out" / "PyGithub__PyGithub"
    label = "2008-01-01_2026-01-01"
    report = out / label / "r1" / "en" / "report.md"
    assert report.is_file() and (out / label / "r1" / "en" / "report.html").is_file()
    # the Markdown report is on the run's summary page
    summary = (runner.temp / "summary.md").read_text()
    assert summary and summary == report.read_text()[: len(summary)]
    # the log and the sync state are where the cache steps save them from
    data = runner.workspace / ".repodigest" / "data"
    assert (data / "jetstream").is_dir() and (data / "projections.db").is_file()

    # a daily schedule's run over the same directory: --cutoff and --force reach the CLI
    daily = next(e["cron"] for e in load()["on"]["schedule"] if e["cron"].split()[4] == "*")
    runner.context["github"]["event"] = {"schedule": daily}
    runner.context["inputs"] = {"force": "true"}
    assert runner.run("report", "choose").returncode == 0
    assert runner.context["steps"]["choose"]["outputs"]["window"] == "day:last"
    spent = emulator.quota_used
    result = runner.run("report", "Report")
    assert result.returncode == 0, result.stdout + result.stderr
    assert emulator.quota_used == spent  # nothing changed upstream: all 304
    days = [p.name for p in out.iterdir() if p.name != label]
    assert len(days) == 1 and days[0].count("-") == 2  # a day window's label, YYYY-MM-DD

    # the commit job: a clone of the remote (actions/checkout), the artifact downloaded
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(remote), cwd=tmp_path)
    seed = tmp_path / "seed"
    git("clone", "-q", str(remote), str(seed), cwd=tmp_path)
    (seed / "README.md").write_text("the site\n")
    git("add", "README.md", cwd=seed)
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.org",
        "commit",
        "-q",
        "-m",
        "init",
        cwd=seed,
    )
    git("push", "-q", "origin", "main", cwd=seed)

    def commit_job(name: str) -> tuple[subprocess.CompletedProcess, Path]:
        job = Runner(tmp_path / name, variables=variables)
        checkout = job.workspace / "site"
        git("clone", "-q", str(remote), str(checkout), cwd=tmp_path)
        shutil.copytree(runner.workspace / ".repodigest" / "out", job.temp / "repodigest-report")
        return job.run("commit", "Commit the Markdown", cwd=checkout), checkout

    result, _ = commit_job("commit-1")
    assert result.returncode == 0, result.stdout + result.stderr
    files = git("ls-tree", "-r", "--name-only", "repodigest-reports", cwd=remote).split()
    assert f"reports/PyGithub__PyGithub/{label}/r1/en/report.md" in files
    assert f"reports/PyGithub__PyGithub/{label}/r1/en/report.json" in files
    assert f"reports/PyGithub__PyGithub/{days[0]}/r1/en/report.md" in files
    assert all(f.endswith(("/report.md", "/report.json")) for f in files)  # no html, no README
    assert git("log", "--format=%an|%s", "repodigest-reports", cwd=remote).splitlines() == [
        f"github-actions[bot]|repodigest: reports/PyGithub__PyGithub/{label}/r1/en "
        f"reports/PyGithub__PyGithub/{days[0]}/r1/en"
    ]  # 2008-... sorts before 2026-...
    assert git("ls-tree", "-r", "--name-only", "main", cwd=remote).split() == ["README.md"]

    # the same reports again: nothing to commit, the branch stays
    head = git("rev-parse", "repodigest-reports", cwd=remote)
    result, _ = commit_job("commit-2")
    assert result.returncode == 0 and "nothing new to commit" in result.stdout
    assert git("rev-parse", "repodigest-reports", cwd=remote) == head

    # a new revision: one commit on top of the branch that exists
    revision = runner.workspace / ".repodigest" / "out" / "PyGithub__PyGithub" / label / "r2" / "en"
    revision.mkdir(parents=True)
    (revision / "report.md").write_text("# revision 2\n")
    result, _ = commit_job("commit-3")
    assert result.returncode == 0, result.stdout + result.stderr
    log = git("log", "--format=%s", "repodigest-reports", cwd=remote).splitlines()
    assert log[0] == f"repodigest: reports/PyGithub__PyGithub/{label}/r2/en" and len(log) == 2
