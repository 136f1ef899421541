#!/usr/bin/env bash
# The Matrix end-to-end test: set up the venv (once), then run a test against a throwaway
# Synapse. `tests/matrix/run.sh` runs test_referee.py; `run.sh test_plumbing` runs another.
set -euo pipefail
cd "$(dirname "$0")/../.."
tests/matrix/setup.sh
PYTHONDONTWRITEBYTECODE=1 exec target/matrix-venv/bin/python "tests/matrix/${1:-test_referee}.py"
