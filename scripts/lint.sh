#!/usr/bin/env bash
# The static checks scripts/test.sh runs before pytest (configuration: [tool.ruff] and [tool.mypy]
# in pyproject.toml; CONTRIBUTING.md says why these rules):
#   ruff check            lint: pyflakes, bugbear, import order, ... over the whole tree
#   ruff format --check   the formatter's layout, over the whole tree
#   mypy                  types (pydantic plugin) of the shipped code: services/ shared/
#                         repodigest/ bench/ scripts/
# Exits 1 naming each check that found something, after running all of them.
#   scripts/lint.sh           check
#   scripts/lint.sh --fix     apply ruff's safe fixes and the formatter first, then check
set -uo pipefail
cd "$(dirname "$0")/.."
venv=${REPODIGEST_VENV:-.venv}
ruff="$venv/bin/ruff"
mypy="$venv/bin/mypy"
for tool in "$ruff" "$mypy"; do
  [ -x "$tool" ] || { echo "lint: $tool is missing; install the test tools: scripts/setup.sh --test" >&2; exit 1; }
done
if [ "${1:-}" = "--fix" ]; then
  "$ruff" check --fix --quiet . || true
  "$ruff" format --quiet .
fi
failed=()
echo "== ruff check"
"$ruff" check . || failed+=("ruff check (fix: scripts/lint.sh --fix, then by hand what remains)")
echo "== ruff format --check"
"$ruff" format --check . || failed+=("ruff format (fix: scripts/lint.sh --fix)")
echo "== mypy"
"$mypy" || failed+=("mypy")
if [ "${#failed[@]}" -gt 0 ]; then
  echo >&2
  for f in "${failed[@]}"; do echo "lint FAILED: $f" >&2; done
  exit 1
fi
echo "lint: ruff check, ruff format and mypy found nothing"
