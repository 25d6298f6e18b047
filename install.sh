#!/usr/bin/env bash
# Installs the companion. Placeholder until the full installer lands: only --dev works.
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${1:-}" != "--dev" ]]; then
    echo "install.sh: only --dev is implemented so far" >&2
    exit 2
fi
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[laptop,dev]'
echo "Ready: .venv/bin/companion demo   |   .venv/bin/python -m pytest"
