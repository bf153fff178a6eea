#!/usr/bin/env bash
# Build fplab and run the lab's main job: every experiment and figure,
# written with its report to out/REPORT.md; then audit the report (every
# number and claim re-derived from the .dat files by tests/lab_audit.py).
# Usage: scripts/lab.sh [fplab lab options, e.g. --quick or --out DIR]
# The build (directory and configuration: scripts/build-config.sh) is the
# one scripts/test.sh uses, so running both builds the shared parts once.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/build-config.sh
fplab_configure >/dev/null
cmake --build "$fplab_build_dir" -j "$(nproc)" --target fplab_cli
"$fplab_build_dir/fplab" lab "$@"
out=out prev=
for a in "$@"; do
    if [ "$prev" = --out ]; then out=$a; fi
    prev=$a
done
python3 tests/lab_audit.py "$out" --plots plots
