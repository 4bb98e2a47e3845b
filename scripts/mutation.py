"""Mutation testing of the core modules (issue #20): mutmut in a copy of the checkout.

Run it through scripts/mutation.sh. The working tree (tracked files and untracked, not ignored
ones, as they are now) is copied to a temporary directory and mutmut runs there, so the
developer's checkout is never mutated. mutmut's [tool.mutmut] section in pyproject.toml says
which files it may mutate and which tests guard them; TARGETS below narrows that to the core
functions of each module (a mutant is named `<module>.x_<function>__mutmut_<n>`, or
`<module>.xǁ<Class>ǁ<method>__mutmut_<n>`). Each mutant runs only the tests that called its
function in mutmut's first, clean run.

Prints the kill rate of each module and every surviving mutant's diff; exits 1 when a module
is below the goal (85 % killed).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL = 0.85

# module -> the mutant names it covers (fnmatch patterns on mutmut's names)
_S = "services.summarizer"
TARGETS: dict[str, list[str]] = {
    "windows": ["shared.windows.*"],
    "summarizer fold": [f"{_S}.adapters.store.xǁSqlProjectionsǁ{f}__mutmut_*" for f in (
        "fold", "_mark_processed", "_fold_facts", "_mark_late", "_advance", "_close")],
    "report model": [f"{_S}.domain.report.{f}__mutmut_*" for f in (
        "x_fact_actor", "x__status_at", "x__open_at", "x__tally", "xǁ_Tallyǁclosed_unmerged",
        "x_key_pr_quota", "x__first_timers", "x__counts", "x__window_items", "x__contributors",
        "x__activity", "x__hourly", "x__trend", "x__module_sets", "x__available")],
    "key-PR scoring": [f"{_S}.domain.report.{f}__mutmut_*" for f in (
        "x_score_pr", "x__has_tests", "x__is_broad_upgrade", "x__is_removal", "x__support_kind",
        "x_key_reasons", "x__key_prs")],
    "webhook verification": [f"services.ingest.adapters.webhooks.{f}__mutmut_*" for f in (
        "x_signature_of", "x_signature_matches", "x_secret_problem", "x__secret_bytes",
        "x__header_problem")],
    "classifier rule matching": [
        *(f"services.classifier.domain.globs.{f}__mutmut_*" for f in (
            "x_compile_glob", "x_glob_alternatives", "xǁGlobTableǁbit", "xǁGlobTableǁbits",
            "xǁGlobTableǁmask", "x__required_literal", "xǁFileSetǁbuild", "xǁFileSetǁmatching",
            "xǁFilesConditionǁtest", "x__branch_any", "x__branch_all", "xǁBaseConditionǁtest_any",
            "xǁBaseConditionǁtest_all", "xǁMatchGroupǁtest", "xǁLabelerConfigǁtest")),
        *(f"services.classifier.domain.rules.{f}__mutmut_*" for f in (
            "xǁFileFactsǁfiles_hit", "xǁCompiledMatchǁfiles_hit", "xǁCompiledMatchǁtest")),
    ],
    "CODEOWNERS": [
        "services.classifier.domain.codeowners.*",
        *(f"services.classifier.domain.rules.xǁCompiledRuleSetǁ{f}__mutmut_*" for f in (
            "_owner_areas", "path_area")),
    ],
    "bus ack/retry/give-up": [f"shared.bus.{f}__mutmut_*" for f in (
        "x_backoff_seconds", "x__deliveries", "x__meta", "xǁConsumerǁstop", "xǁConsumerǁ_process",
        "xǁConsumerǁ_split", "xǁConsumerǁ_retry_in_trace", "xǁConsumerǁ_dead_in_trace",
        "xǁBusǁdead_letter")],
}

STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
          -11: "segfault", -9: "segfault", 37: "type check", None: "not checked"}


def module_of(name: str, modules: list[str]) -> str | None:
    for module in modules:
        if any(fnmatch.fnmatchcase(name, p) for p in TARGETS[module]):
            return module
    return None


def copy_checkout(dest: Path) -> None:
    """The working tree as it is (tracked files, and untracked files git does not ignore)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=REPO, check=True, capture_output=True).stdout.split(b"\0")
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
    archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=REPO, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def results(work: Path) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for meta in (work / "mutants").rglob("*.py.meta"):
        out.update(json.loads(meta.read_text())["exit_code_by_key"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE",
                        help=f"some of: {', '.join(repr(m) for m in TARGETS)} (default: all)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("MUTATION_JOBS", "2")),
                        help="mutants tested at once (default 2, MUTATION_JOBS)")
    parser.add_argument("--work", type=Path, help="run in this directory (kept); default: a "
                        "temporary one, removed at the end unless --keep")
    parser.add_argument("--ref", help="test this commit (e.g. HEAD) instead of the working tree")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory "
                        "(to inspect mutants with `mutmut show NAME` there)")
    args = parser.parse_args()
    unknown = [m for m in args.modules if m not in TARGETS]
    if unknown:
        parser.error(f"unknown module(s) {', '.join(map(repr, unknown))}; known: "
                     f"{', '.join(repr(m) for m in TARGETS)}")
    modules = args.modules or list(TARGETS)

    work = args.work or Path(tempfile.mkdtemp(prefix="repodigest-mutation-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if not (work / "pyproject.toml").exists():
            copy_ref(args.ref, work) if args.ref else copy_checkout(work)
        print(f"mutation testing in {work} (a copy of {REPO})", flush=True)
        patterns = [p for m in modules for p in TARGETS[m]]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children",
                              str(args.jobs), *patterns], cwd=work, env=env)
        if run.returncode not in (0,):
            print(f"mutmut run exited {run.returncode}", file=sys.stderr)
            return run.returncode or 1

        by_module: dict[str, dict[str, list[str]]] = {m: {} for m in modules}
        for name, code in sorted(results(work).items()):
            module = module_of(name, modules)
            if module is not None:
                by_module[module].setdefault(STATUS.get(code, f"exit {code}"), []).append(name)
        below, survivors = [], []
        print(f"\n{'module':28} {'mutants':>7} {'killed':>6} {'rate':>6}  other")
        for module, groups in by_module.items():
            total = sum(map(len, groups.values()))
            killed = len(groups.get("killed", [])) + len(groups.get("timeout", []))
            rate = killed / total if total else 0.0
            other = ", ".join(f"{len(v)} {k}" for k, v in sorted(groups.items())
                              if k not in ("killed", "timeout"))
            print(f"{module:28} {total:7} {killed:6} {rate:6.1%}  {other}")
            if rate < GOAL:
                below.append(module)
            survivors += [n for k, v in groups.items() if k not in ("killed", "timeout") for n in v]
        print(f"\n{len(survivors)} mutant(s) not killed:")
        for name in survivors:
            print(subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=work,
                                 capture_output=True, text=True).stdout, flush=True)
        if below:
            print(f"below the {GOAL:.0%} goal: {', '.join(below)}")
        return 1 if below else 0
    finally:
        if args.work is None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
