#!/usr/bin/env bash
# One command: install everything (with the test tools), then run the whole test suite.
# Tests that need ../shared/data skip where it is absent and fail in CI (CI=true);
# PostgreSQL tests use REPODIGEST_TEST_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
exec .venv/bin/python -m pytest -q -ra "$@"
