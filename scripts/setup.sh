#!/usr/bin/env bash
# Install the Debian packages fplab needs, when they are missing.
# Usage: scripts/setup.sh            (as root, or with sudo available)
set -euo pipefail

packages=(
  cmake gcc g++ make pkg-config    # build
  libmpfr-dev libgmp-dev           # correctly rounded oracle for tests and verify
  check                            # unit-test framework
  zlib1g-dev                       # reading the vendored gzip data set, .npz files
  libjansson-dev                   # safetensors headers (JSON)
  gnuplot-nox                      # the lab's figures
  python3                          # the lab report's audit (tests/lab_audit.py, standard library only)
  libopenmpi-dev openmpi-bin       # optional: sharded verify sweeps
  python3-numpy python3-torch      # real clients in the tests: .npy/.npz files, kernels to check
  clang libclang-rt-14-dev         # fuzzing and sanitizer runs
  valgrind                         # memory checking of the default tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
