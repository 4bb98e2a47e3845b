"""Mutation testing of the core modules (issue #20): mutmut in a copy of the checkout.

Run it through scripts/mutation.sh. The working tree (tracked files and untracked, not ignored
ones, as they are now), or a commit with --ref, is copied to a temporary directory and mutmut
runs there, so the developer's checkout is never mutated. Each module of TARGETS below runs in a
copy of its own, with pyproject.toml's [tool.mutmut] narrowed to the module's files and the fast
tests that guard it, and only the mutants of its core functions are tested (a mutant is named
`<module>.x_<function>__mutmut_<n>`, or `<module>.xǁ<Class>ǁ<method>__mutmut_<n>`). Each mutant
runs only those of the module's tests that called its function in mutmut's first, clean run.

Prints the kill rate of each module and every surviving mutant's diff; exits 1 when a module
is below the goal (85 % killed; a mutant that makes its tests hang past mutmut's timeout counts
as killed).
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL = 0.85


@dataclass(frozen=True)
class Module:
    files: tuple[str, ...]  # what mutmut may mutate (only_mutate)
    tests: tuple[str, ...]  # the fast tests that guard it (a mutant runs those that call it)
    patterns: tuple[str, ...]  # its core functions: fnmatch patterns on mutmut's mutant names


_S = "services.summarizer"
_SUMMARIZER_UNIT = "tests/unit/summarizer"
_FOLD_PROPERTY = "tests/integration/summarizer/test_summarizer_fold_property.py"
_CLASSIFIER = "tests/unit/classifier/test_classifier_"
TARGETS: dict[str, Module] = {
    "windows": Module(
        ("shared/windows.py",),
        (
            "tests/unit/shared/test_windows.py",
            "tests/unit/shared/test_window_boundaries.py",
            "tests/unit/shared/test_window_specs.py",
            "tests/unit/summarizer/test_summarizer_windows.py",
        ),
        ("shared.windows.*",),
    ),
    "summarizer fold": Module(
        ("services/summarizer/adapters/store.py", "services/summarizer/domain/projection.py"),
        (
            "tests/unit/summarizer/test_summarizer_fold_rules.py",
            _FOLD_PROPERTY,
            "tests/integration/summarizer/test_summarizer_fold_storage.py",
            "tests/integration/summarizer/test_summarizer_projections.py",
            "tests/integration/summarizer/test_summarizer_bad_input.py",
            "tests/integration/summarizer/test_summarizer_window_close.py",
            "tests/integration/summarizer/test_summarizer_fold_items.py",
        ),
        (
            *(
                f"{_S}.adapters.store.xǁSqlProjectionsǁ{f}__mutmut_*"
                for f in (
                    "fold",
                    "_mark_processed",
                    "_fold_facts",
                    "_mark_late",
                    "_advance",
                    "_close",
                )
            ),
            *(
                f"{_S}.domain.projection.x_{f}__mutmut_*"
                for f in (
                    "repo_of",
                    "time_of",
                    "order_of",
                    "first_of_each_id",
                    "admit",
                    "latest_facts",
                    "latest_items",
                    "fact_times_by_repo",
                    "late_labels",
                    "highest_watermarks",
                    "advances",
                    "closing_windows",
                )
            ),
        ),
    ),
    "report model": Module(
        ("services/summarizer/domain/report.py",),
        (_SUMMARIZER_UNIT, _FOLD_PROPERTY),
        tuple(
            f"{_S}.domain.report.{f}__mutmut_*"
            for f in (
                "x_fact_actor",
                "x__status_at",
                "x__open_at",
                "x__tally",
                "x_key_pr_quota",
                "x__first_timers",
                "x__counts",
                "x__window_items",
                "x__contributors",
                "x__activity",
                "x__hourly",
                "x__trend",
                "x__module_sets",
                "x__available",
            )
        ),
    ),
    "key-PR scoring": Module(
        ("services/summarizer/domain/report.py",),
        (_SUMMARIZER_UNIT,),
        tuple(
            f"{_S}.domain.report.{f}__mutmut_*"
            for f in (
                "x_score_pr",
                "x__has_tests",
                "x__is_broad_upgrade",
                "x__is_removal",
                "x__support_kind",
                "x_key_reasons",
                "x__key_prs",
            )
        ),
    ),
    "webhook verification": Module(
        ("services/ingest/adapters/webhooks.py",),
        (
            "tests/unit/ingest/test_webhook_verification.py",
            "tests/unit/ingest/test_ingest_config.py",
            "tests/integration/ingest_webhooks/test_webhook_signature.py",
            "tests/integration/ingest_webhooks/test_webhook_headers.py",
        ),
        tuple(
            f"services.ingest.adapters.webhooks.{f}__mutmut_*"
            for f in (
                "x_signature_of",
                "x_signature_matches",
                "x_secret_problem",
                "x__secret_bytes",
                "x__header_problem",
            )
        ),
    ),
    "classifier rule matching": Module(
        ("services/classifier/domain/globs.py", "services/classifier/domain/indexes.py"),
        tuple(
            f"{_CLASSIFIER}{t}.py"
            for t in ("globs", "glob_details", "labeler_upstream", "rules", "head_branch")
        ),
        (
            *(
                f"services.classifier.domain.globs.{f}__mutmut_*"
                for f in (
                    "x_compile_glob",
                    "x_glob_alternatives",
                    "xǁGlobTableǁbit",
                    "xǁGlobTableǁbits",
                    "xǁGlobTableǁmask",
                    "x__required_literal",
                    "xǁFileSetǁbuild",
                    "xǁFileSetǁmatching",
                    "xǁFilesConditionǁtest",
                    "x__branch_any",
                    "x__branch_all",
                    "xǁBaseConditionǁtest_any",
                    "xǁBaseConditionǁtest_all",
                    "xǁMatchGroupǁtest",
                    "xǁLabelerConfigǁtest",
                )
            ),
            *(
                f"services.classifier.domain.indexes.{f}__mutmut_*"
                for f in (
                    "xǁFileFactsǁfiles_hit",
                    "xǁCompiledMatchǁfiles_hit",
                    "xǁCompiledMatchǁtest",
                )
            ),
        ),
    ),
    "CODEOWNERS": Module(
        ("services/classifier/domain/codeowners.py", "services/classifier/domain/ruleset.py"),
        tuple(
            f"{_CLASSIFIER}{t}.py"
            for t in ("codeowners", "codeowners_github", "codeowners_details")
        ),
        (
            "services.classifier.domain.codeowners.*",
            *(
                f"services.classifier.domain.ruleset.xǁCompiledRuleSetǁ{f}__mutmut_*"
                for f in ("_owner_areas", "path_area")
            ),
        ),
    ),
    "bus ack/retry/give-up": Module(
        (
            "shared/messaging/outcomes.py",
            "shared/messaging/consumer.py",
            "shared/messaging/publisher.py",
        ),
        (
            "tests/unit/shared/test_bus_backoff.py",
            "tests/unit/shared/test_memory_bus.py",
            "tests/integration/bus/test_consumer_promises.py",
            "tests/integration/bus/test_batch_split.py",
            "tests/integration/bus/test_topology_and_consumer.py",
        ),
        (
            *(
                f"shared.messaging.outcomes.{f}__mutmut_*"
                for f in (
                    "x_backoff_seconds",
                    "x_deliveries",
                    "x_meta",
                    "x_dead_letter_message",
                    "xǁOutcomesǁ_process",
                    "xǁOutcomesǁ_split",
                    "xǁOutcomesǁ_retry_in_trace",
                    "xǁOutcomesǁ_dead_in_trace",
                )
            ),
            "shared.messaging.consumer.xǁConsumerǁstop__mutmut_*",
            "shared.messaging.publisher.xǁBusǁdead_letter__mutmut_*",
        ),
    ),
}

STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    36: "timeout",
    -24: "timeout",
    24: "timeout",
    152: "timeout",
    255: "timeout",
    -11: "segfault",
    -9: "segfault",
    37: "type check",
    None: "not checked",
}


def slug(module: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", module.lower()).strip("-")


def narrowed(pyproject: str, module: Module) -> str:
    """The copy's pyproject.toml with [tool.mutmut] narrowed to one module's files and tests."""

    def array(key: str, values: tuple[str, ...]) -> None:
        nonlocal pyproject
        pyproject, n = re.subn(
            rf"^{key} = \[.*?^\]",
            lambda _: f"{key} = {json.dumps(list(values))}",
            pyproject,
            count=1,
            flags=re.M | re.S,
        )
        if n != 1:
            raise SystemExit(
                f"pyproject.toml: [tool.mutmut] has no multi-line {key} = [...] to narrow"
            )

    array("only_mutate", module.files)
    array("pytest_add_cli_args_test_selection", module.tests)
    return pyproject


def copy_checkout(dest: Path) -> None:
    """The working tree as it is (tracked files, and untracked files git does not ignore)."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in files:
        if not raw:
            continue
        rel = raw.decode()
        src = REPO / rel
        if not src.is_file():  # deleted in the working tree
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)


def copy_ref(ref: str, dest: Path) -> None:
    """The tree of a commit (`git archive`), without the working tree's changes."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def stop_leftovers(work: Path, orphans_only: bool = False) -> None:
    """A mutant that hangs is killed by mutmut without its fixtures' clean-up, leaving the
    nats-server it started behind (an orphan); those run from the work directory's temporary
    files (TMPDIR), so they are found by it and stopped, each by its id."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            ppid = int((proc / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if (
            str(work).encode() in cmdline
            and b"nats-server" in cmdline
            and (ppid == 1 or not orphans_only)
        ):
            with contextlib.suppress(OSError):
                os.kill(int(proc.name), signal.SIGTERM)


def reap_orphans(work: Path, done: threading.Event) -> None:
    while not done.wait(10):
        stop_leftovers(work, orphans_only=True)


def results(work: Path) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for meta in (work / "mutants").rglob("*.py.meta"):
        out.update(json.loads(meta.read_text())["exit_code_by_key"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "modules",
        nargs="*",
        metavar="MODULE",
        help=f"some of: {', '.join(repr(m) for m in TARGETS)} (default: all)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=int(os.environ.get("MUTATION_JOBS", "2")),
        help="mutants tested at once (default 2, MUTATION_JOBS)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        help="run in this directory (kept); default: a "
        "temporary one, removed at the end unless --keep",
    )
    parser.add_argument("--ref", help="test this commit (e.g. HEAD) instead of the working tree")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the temporary directory (to inspect mutants with `mutmut show NAME` there)",
    )
    args = parser.parse_args()
    unknown = [m for m in args.modules if m not in TARGETS]
    if unknown:
        parser.error(
            f"unknown module(s) {', '.join(map(repr, unknown))}; known: "
            f"{', '.join(repr(m) for m in TARGETS)}"
        )
    modules = args.modules or list(TARGETS)

    work = args.work or Path(tempfile.mkdtemp(prefix="repodigest-mutation-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        base = work / "checkout"
        if not base.exists():
            base.mkdir()
            copy_ref(args.ref, base) if args.ref else copy_checkout(base)
        print(f"mutation testing in {work} (a copy of {REPO})", flush=True)
        by_module: dict[str, dict[str, list[str]]] = {}
        shown: dict[str, str] = {}
        for module in modules:
            spec = TARGETS[module]
            where = work / slug(module)
            if not where.exists():
                shutil.copytree(base, where, symlinks=True)
            (where / "pyproject.toml").write_text(
                narrowed((base / "pyproject.toml").read_text(), spec)
            )
            print(f"\n== {module}: {', '.join(spec.files)}", flush=True)
            code = run_mutmut(where, spec, args.jobs)
            if code != 0:
                print(f"mutmut run exited {code} for {module}", file=sys.stderr)
                return code or 1
            groups = by_module[module] = {}
            for name, exit_code in sorted(results(where).items()):
                if any(fnmatch.fnmatchcase(name, p) for p in spec.patterns):
                    groups.setdefault(STATUS.get(exit_code, f"exit {exit_code}"), []).append(name)
            for names in (v for k, v in groups.items() if k not in ("killed", "timeout")):
                for name in names:
                    shown[name] = subprocess.run(
                        [sys.executable, "-m", "mutmut", "show", name],
                        cwd=where,
                        capture_output=True,
                        text=True,
                    ).stdout

        below = []
        print(f"\n{'module':28} {'mutants':>7} {'killed':>6} {'rate':>6}  other")
        for module, groups in by_module.items():
            total = sum(map(len, groups.values()))
            killed = len(groups.get("killed", [])) + len(groups.get("timeout", []))
            rate = killed / total if total else 0.0
            other = ", ".join(
                f"{len(v)} {k}" for k, v in sorted(groups.items()) if k not in ("killed", "timeout")
            )
            print(f"{module:28} {total:7} {killed:6} {rate:6.1%}  {other}")
            if rate < GOAL:
                below.append(module)
        print(f"\n{len(shown)} mutant(s) not killed:")
        for diff in shown.values():
            print(diff, flush=True)
        if below:
            print(f"below the {GOAL:.0%} goal: {', '.join(below)}")
        return 1 if below else 0
    finally:
        if args.work is None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run_mutmut(where: Path, spec: Module, jobs: int) -> int:
    (where / "tmp").mkdir(exist_ok=True)  # the tests' temporary files (and nats-server stores)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": str(where / "tmp")}
    done = threading.Event()
    threading.Thread(target=reap_orphans, args=(where, done), daemon=True).start()
    try:
        return subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *spec.patterns],
            cwd=where,
            env=env,
        ).returncode
    finally:
        done.set()
        stop_leftovers(where)


if __name__ == "__main__":
    sys.exit(main())
