#!/usr/bin/env bash
# Install the Debian packages fplab needs, when they are missing.
#
#   scripts/setup.sh         what the lab (scripts/lab.sh) and the default
#                            tests (scripts/test.sh) need
#   scripts/setup.sh --ci    also what CI's extra passes need: MPI for the
#                            sharded verify test, clang and its runtime for
#                            fuzzing and the sanitizer builds, valgrind
#
# Run as root, or with sudo available.  Without the --ci packages the
# default tests still pass: the MPI test reports itself skipped, and
# scripts/ci-hardening.sh (which calls this script with --ci) is not run.
set -euo pipefail

packages=(
  cmake gcc g++ make pkg-config    # build
  libmpfr-dev libgmp-dev           # correctly rounded oracle for tests and verify
  check                            # unit-test framework
  zlib1g-dev                       # reading the vendored gzip data set, .npz files
  libjansson-dev                   # safetensors headers (JSON)
  gnuplot-nox                      # the lab's figures
  python3-numpy python3-torch      # real clients in the default tests: .npy/.npz files, kernels to check
  python3                          # the lab report's audit (tests/lab_audit.py, standard library only)
  python3-dev python3-setuptools   # the Python package's extension (python/, pyproject.toml)
  python3-pytest                   # its tests (tests/python)
  python3-venv python3-pip         # pip install --no-build-isolation . into a virtual environment
)
ci_packages=(
  libopenmpi-dev openmpi-bin       # sharded verify sweeps (test verify_mpi_shards)
  clang libclang-rt-14-dev         # fuzzing and sanitizer runs (scripts/ci-hardening.sh)
  valgrind                         # memory checking (scripts/ci-hardening.sh valgrind)
)

case "${1:-}" in
  "") ;;
  --ci) packages+=("${ci_packages[@]}") ;;
  -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "setup: unknown argument '$1' (try --ci or --help)" >&2; exit 2 ;;
esac

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
