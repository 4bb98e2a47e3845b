#!/usr/bin/env bash
# One command: install everything, then build the offline demo report (Markdown, HTML, PDF, JSON;
# English and Chinese) from a seeded synthetic week, into reports/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec "${REPODIGEST_VENV:-.venv}/bin/repodigest" demo --out "${REPODIGEST_DEMO_OUT:-reports/demo}" "$@"
