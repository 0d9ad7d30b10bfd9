#!/usr/bin/env bash
# The tools' tests (tools/tests, pytest), as .ci/run runs them:
#
#   tools/tests/run.sh [PYTEST ARGS...]
#
# pytest and numpy come from PyPI into a virtual environment the project owns,
# tools/.cache/tools-venv (git-ignored), made on first use, as the Python
# package's test does for its own (sim-cli/tests/it/python.rs). The tests need
# no GPU, no network and no NVIDIA tool: they read committed samples of real
# ptxas and nvdisasm output (tools/tests/data/README.md), the listings through
# cargo's xtask sass-listing (tools/sass_listing.py; skipped, saying why, without cargo).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV="$ROOT/tools/.cache/tools-venv"
if ! "$VENV/bin/python" -c "import pytest, numpy" 2>/dev/null; then
    echo "installing pytest and numpy into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check pytest numpy
fi
cd "$ROOT"
exec "$VENV/bin/python" -m pytest tools/tests -q -p no:cacheprovider "$@"
