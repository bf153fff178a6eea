#!/usr/bin/env bash
# Build fplab and run its default tests (everything but the long sweeps).
# Usage: scripts/test.sh [BUILD_DIR]
# The build directory and configuration are scripts/lab.sh's (see
# scripts/build-config.sh): after scripts/lab.sh only the tests and the
# parts the lab does not use are compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/build-config.sh
[ $# -gt 0 ] && fplab_build_dir=$1
fplab_configure
cmake --build "$fplab_build_dir" -j "$(nproc)"
ctest --test-dir "$fplab_build_dir" -LE 'long|exhaustive' --output-on-failure -j "$(nproc)"
