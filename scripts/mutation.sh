#!/usr/bin/env bash
# Mutation testing of the core modules (issue #20), not part of CI: mutmut mutates a COPY of
# this checkout in a temporary directory (never the checkout itself) and reports the kill rate
# of each module and every surviving mutant. tests/README.md says what the numbers are and why
# each survivor is left.
#   scripts/mutation.sh                      all modules (about half an hour on 2 cores)
#   scripts/mutation.sh windows 'bus ack/retry/give-up'    some modules
#   scripts/mutation.sh --ref HEAD           the last commit instead of the working tree
#   scripts/mutation.sh --keep               keep the copy, to look at mutants with
#                                            `.venv/bin/python -m mutmut show NAME` there
# Needs the test extra (scripts/setup.sh --test), a nats-server (the venv's) and, for the
# PostgreSQL half of the fold tests, REPODIGEST_TEST_POSTGRES_URL (skipped when unreachable).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c "import mutmut" 2>/dev/null; then
  echo "mutmut is not installed: run scripts/setup.sh --test (it is in the test extra)" >&2
  exit 2
fi
exec .venv/bin/python scripts/mutation.py "$@"
