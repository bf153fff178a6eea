#!/usr/bin/env bash
# Build fplab and run its default tests (everything but the long sweeps).
# Usage: scripts/test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFPLAB_WERROR=ON
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -LE 'long|exhaustive' --output-on-failure -j "$(nproc)"
