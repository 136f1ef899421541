#!/usr/bin/env bash
# Make target/matrix-venv: a Python venv with the pinned Synapse and matrix-nio of
# tests/matrix/requirements.txt. Safe to run again: while the venv's stamp matches
# requirements.txt it does nothing; when the pins change it builds the venv afresh.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=target/matrix-venv
req=tests/matrix/requirements.txt
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] \
    && "$venv/bin/python" -c 'import synapse, nio' 2>/dev/null; then
    exit 0
fi

# Debian's python3 needs python3-venv for `-m venv`; install it only when it is missing.
if ! python3 -c 'import ensurepip, venv' 2>/dev/null && command -v apt-get >/dev/null; then
    apt-get install -y -qq python3-venv >/dev/null
fi

echo "tests/matrix: setting up $venv (Synapse and matrix-nio)"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req"
echo "$want" >"$stamp"
