#!/usr/bin/env bash
# One command: install everything (with the test tools), check lint, format and types
# (scripts/lint.sh: ruff and mypy, configured in pyproject.toml), then run the whole test suite.
# A lint, format or type finding fails the run before any test runs (CONTRIBUTING.md).
# Tests that need ../shared/data skip where it is absent and fail in CI (CI=true);
# PostgreSQL tests use REPODIGEST_TEST_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
if ! bash scripts/lint.sh; then
  echo "scripts/test.sh: stopped before the tests: ruff or mypy found problems in the code (listed" \
       "above). scripts/lint.sh --fix applies the mechanical fixes; CONTRIBUTING.md has the rules." >&2
  exit 1
fi
exec .venv/bin/python -m pytest -q -ra "$@"
