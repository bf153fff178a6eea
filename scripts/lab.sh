#!/usr/bin/env bash
# Build fplab and run the lab's main job: every experiment and figure,
# written with its report to out/REPORT.md.
# Usage: scripts/lab.sh [fplab lab options, e.g. --quick or --out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target fplab_cli
./build/fplab lab "$@"
