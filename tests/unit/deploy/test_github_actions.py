"""deploy/github-actions/repodigest-weekly.yml, validated offline (issue #19 item 3).

The workflow against GitHub's workflow schema (vendored by check-jsonschema), every run script
through `bash -n`, and the checks a schema cannot make: the `repodigest` commands and options the
scripts use exist in the CLI (read from the Typer app, so the workflow cannot drift from it), the
token's permissions are the least each job needs, the cache restores the directory `report` is
given as --data-dir under a key that rolls forward, no `${{ }}` is pasted into a script, and the
install's default names this version. tests/e2e/test_github_actions_workflow.py runs the scripts.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import typer.main
import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / "deploy" / "github-actions" / "repodigest-weekly.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load() -> dict:
    # PyYAML reads the key `on` as the boolean True (YAML 1.1); GitHub reads it as "on"
    workflow = yaml.safe_load(WORKFLOW.read_text())
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def steps(job: str) -> list[dict]:
    return load()["jobs"][job]["steps"]


def step(job: str, name: str) -> dict:
    (found,) = [s for s in steps(job) if s.get("name") == name or s.get("id") == name]
    return found


def scripts() -> list[tuple[str, str]]:
    return [
        (f"{job}: {s.get('name') or s.get('uses')}", s["run"])
        for job, spec in load()["jobs"].items()
        for s in spec["steps"]
        if "run" in s
    ]


def evaluate(expression: str, context: dict[str, dict[str, str]]) -> str:
    """The value of the `a || b || 'literal'` expressions the workflow's env uses (GitHub's `||`
    gives the first operand that is not empty), with `context` as the contexts (vars, inputs,
    github, secrets, steps, ...: nested dicts); an operand of another form is a test failure."""
    for operand in (o.strip() for o in expression.split("||")):
        if m := re.fullmatch(r"'([^']*)'", operand):
            value = m.group(1)
        elif re.fullmatch(r"\w+(\.[\w-]+)+", operand):  # a context's property, e.g. vars.X
            value = context
            for part in operand.split("."):
                value = value.get(part, "") if isinstance(value, dict) else ""
            value = str(value) if value is not None else ""
        else:
            raise AssertionError(f"not an `a || b || 'literal'` expression: {expression}")
        if value:
            return value
    return ""


def resolve(text: str, context: dict[str, dict[str, str]]) -> str:
    return EXPRESSION.sub(lambda m: evaluate(m.group(1), context), str(text))


def report_command():
    from repodigest.cli import app

    return typer.main.get_command(app)


# ---------------------------------------------------------------- schema and shell


def test_the_workflow_matches_githubs_workflow_schema():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(WORKFLOW),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("where,script", scripts(), ids=[w for w, _ in scripts()])
def test_every_run_script_is_bash_and_takes_no_expression(where, script):
    # `${{ }}` in a script is pasted in before bash reads it: an input or a branch name could
    # inject commands. Values come in through `env:` and are quoted there.
    assert not EXPRESSION.search(script), f"{where}: pass expressions through env:"
    result = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert result.returncode == 0, f"{where}: {result.stderr}"
    assert load()["defaults"]["run"]["shell"] == "bash"


# ---------------------------------------------------------------- the CLI it calls


def _invocations() -> list[list[str]]:
    """Each `repodigest ...` command line of the scripts, continuation lines joined."""
    found = []
    for _, script in scripts():
        for line in script.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "repodigest":
                found.append(words[1:])
    return found


def _options_added(script: str) -> list[str]:
    """The options a script adds to an array it passes on (`extra+=(--cutoff "$X")`)."""
    return [
        w
        for m in re.finditer(r"\w+\+=\(([^)]*)\)", script)
        for w in shlex.split(m.group(1))
        if w.startswith("-")
    ]


def test_the_scripts_call_commands_and_options_the_cli_has():
    cli = report_command()
    invocations = _invocations()
    assert ["--version"] in invocations
    (report,) = [args for args in invocations if args[:1] == ["report"]]
    command = cli.commands["report"]
    known = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    used = [w for w in report if w.startswith("-")]
    used += _options_added(step("report", "Report")["run"])
    assert {"--window", "--source", "--data-dir", "--out", "--cutoff", "--force"} <= set(used)
    unknown = sorted(set(used) - known)
    assert not unknown, f"repodigest report has no {unknown}"
    # and Click parses the line as the CLI will (values as the defaults give them)
    values = {
        "$REPODIGEST_REPOSITORY": "vllm-project/vllm",
        "$WINDOW": "week:last",
        "$REPODIGEST_TZ": "UTC",
        "$REPODIGEST_LANG": "en",
        "$REPODIGEST_FORMATS": "md",
        "$DATA_DIR": "/d",
        "$OUT_DIR": "/o",
        "${extra[@]}": "--force",
    }
    args = [values.get(w, w) for w in report[1:]]
    assert not [a for a in args if a.startswith("$")], args
    ctx = command.make_context("report", list(args))
    assert ctx.params["repo"] == "vllm-project/vllm" and ctx.params["data_dir"] == Path("/d")
    assert ctx.params["source"] == "github" and ctx.params["quiet"] and ctx.params["force"]


def test_the_windows_a_schedule_asks_for_parse_and_each_cron_has_its_window():
    from shared.windows import parse_window

    workflow = load()
    crons = [entry["cron"] for entry in workflow["on"]["schedule"]]
    script = step("report", "choose")["run"]
    cases = dict(re.findall(r'^\s*"([^"]+)"\)\s*window=(\S+)\s*;;', script, re.M))
    assert set(cases) == set(crons), "a cron without a window (or a window of no cron)"
    assert sorted(cases.values()) == ["day:last", "week:last"]
    for cron, spec in cases.items():
        weekly = cron.split()[4] != "*"
        assert spec == ("week:last" if weekly else "day:last"), cron
        parse_window(spec, "UTC")
    dispatch = workflow["on"]["workflow_dispatch"]["inputs"]
    parse_window(dispatch["window"]["default"], "UTC")
    publish = dispatch["publish"]
    assert set(publish["options"]) == {"configured", "artifact", "commit", "both"}
    assert publish["default"] == "configured"


# ---------------------------------------------------------------- the token, the cache, the install


def test_the_token_has_the_least_each_job_needs():
    workflow = load()
    assert workflow["permissions"] == {}  # nothing unless a job asks
    jobs = workflow["jobs"]
    assert jobs["report"]["permissions"] == {
        "contents": "read",
        "issues": "read",
        "pull-requests": "read",
    }
    assert jobs["commit"]["permissions"] == {"contents": "write"}
    # the job that reads GitHub with the token does not leave it in .git/config
    checkout = next(
        s for s in jobs["report"]["steps"] if s.get("uses", "").startswith("actions/checkout@")
    )
    assert checkout["with"]["persist-credentials"] is False
    # the commit job runs only when asked, decided from the inputs and variables in one place
    assert "needs.report.outputs.publish" in jobs["commit"]["if"]
    assert jobs["report"]["outputs"]["publish"] == "${{ steps.choose.outputs.publish }}"
    for spec in jobs.values():
        for s in spec["steps"]:
            if "uses" in s:  # an action of a major version, never a moving branch
                assert re.fullmatch(r"actions/[\w/-]+@v\d+", s["uses"]), s["uses"]


def test_the_cache_holds_the_data_dir_under_a_key_that_rolls_forward():
    workflow = load()
    context = {"github": {"workspace": "/ws", "run_id": "41", "run_attempt": "1"}}
    data_dir = resolve(workflow["env"]["DATA_DIR"], context)
    restore, save = step("report", "restore"), step("report", "Save the event log")
    assert restore["uses"].startswith("actions/cache/restore@")
    assert save["uses"].startswith("actions/cache/save@")
    assert resolve(restore["with"]["path"], {**context, "env": {"DATA_DIR": data_dir}}) == data_dir
    assert save["with"]["path"] == restore["with"]["path"]
    # a new entry per run (entries are immutable); the next run restores the newest by prefix
    key = restore["with"]["key"]
    assert "github.run_id" in key and key.startswith(restore["with"]["restore-keys"])
    assert save["with"]["key"] == "${{ steps.restore.outputs.cache-primary-key }}"
    # saved even when the report failed, if there is a directory to save
    relative = Path(data_dir).relative_to("/ws").as_posix()
    assert f"hashFiles('{relative}/**')" in save["if"] and "!cancelled()" in save["if"]
    # the report keeps its log exactly there, and the save comes after it
    names = [s.get("name") for s in steps("report")]
    assert (
        names.index("Restore the event log")
        < names.index("Report")
        < names.index("Save the event log")
    )
    (report,) = [a for a in _invocations() if a[:1] == ["report"]]
    assert report[report.index("--data-dir") + 1] == "$DATA_DIR"


def test_the_default_install_is_this_version_and_pdfs_get_the_images_libraries():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    default = resolve(load()["env"]["REPODIGEST_INSTALL"], {})
    requirement = Requirement(default)
    assert requirement.name == project["name"]
    assert requirement.url and requirement.url.endswith(f"@v{project['version']}")
    # what the Dockerfile installs for WeasyPrint and Chinese PDFs, the workflow installs too
    dockerfile = (ROOT / "Dockerfile").read_text()
    image = set(
        re.search(
            r"apt-get install -y --no-install-recommends ([^&]+)&&", dockerfile.replace("\\\n", " ")
        )
        .group(1)
        .split()
    )
    script = step("report", "Install the libraries PDFs need")["run"]
    workflow = set(re.search(r'packages="([^"]+)"', script).group(1).split())
    workflow |= set(re.findall(r'packages="\$packages ([^"]+)"', script)[0].split())
    assert workflow == image


def test_the_defaults_are_those_the_readme_states():
    workflow = load()
    readme = (ROOT / "deploy" / "github-actions" / "README.md").read_text()
    for name, value in workflow["env"].items():
        if not name.startswith("REPODIGEST_") or name == "REPODIGEST_PUBLISH":
            continue
        default = resolve(value, {"github": {"repository": "this repository"}})
        row = re.search(rf"^\| `{name}` \|([^|]*)\|", readme, re.M)
        assert row, f"the README's table has no row for {name}"
        assert default in row.group(1).replace("`", ""), (name, default, row.group(1))
    assert resolve(workflow["env"]["REPODIGEST_PUBLISH"], {}) == "artifact"


def test_the_workflows_variables_are_no_setting_of_the_services():
    """The workflow's env reaches `repodigest` (pydantic-settings reads every REPODIGEST_*): a
    variable of the workflow that a settings class also read would change the run unseen."""
    from tests.unit.deploy.test_deploy_files import settings_fields

    names = set(load()["env"]) | {
        n for job in load()["jobs"].values() for s in job["steps"] for n in s.get("env", {})
    }
    assert not names & settings_fields(), sorted(names & settings_fields())
    assert "REPODIGEST_REPOSITORY" in names  # the check reads the right names
