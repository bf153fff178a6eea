#!/usr/bin/env bash
# Build the libFuzzer harnesses with clang (-fsanitize=fuzzer,address,
# undefined) into OUT_DIR (default build-fuzz).
#
#   fuzz/build.sh [OUT_DIR]
#
# Each harness fuzz/fuzz_NAME.c becomes OUT_DIR/fuzz_NAME.  The sources
# they exercise (the core and its seam src/accel, the MPFR oracle, the
# CSV reader, the tensor files with their raw and text readers, the
# calc/testfloat commands) are compiled once with coverage instrumentation
# into OUT_DIR/obj.  Needs clang, libclang-rt (libFuzzer), MPFR, GMP, zlib
# and jansson.  CC overrides the compiler (default clang).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-fuzz}
cc=${CC:-clang}
mkdir -p "$out/obj"

san="-fsanitize=address,undefined -fno-sanitize-recover=all"
common=(-g -O1 -fno-omit-frame-pointer -std=gnu11 -Wall -Wextra
        -Wno-unused-parameter -Iinclude -Isrc/softfloat -Isrc/accel -Isrc/oracle
        -Isrc/amp -Isrc/tensor -Isrc/ops -Isrc/ref -Isrc/scale -Icli
        -DFPLAB_HAVE_MPFR=1 -DFPLAB_HAVE_ZLIB=1
        -ffp-contract=off)

srcs=(src/softfloat/*.c)
# the seam but its scale kernels (src/accel/scale_*.c belong to scale,
# which no harness reaches, and are left out with it)
for s in src/accel/*.c; do
  case $s in src/accel/scale_*) ;; *) srcs+=("$s") ;; esac
done
srcs+=(src/oracle/mpfr_oracle.c
       src/amp/amp_data.c src/amp/amp_err.c cli/util.c cli/cmd_calc.c
       cli/cmd_testfloat.c src/ops/*.c src/ref/*.c src/tensor/*.c)
objs=()
pids=()
jobs=$(nproc 2>/dev/null || echo 2)
for s in "${srcs[@]}"; do
  o="$out/obj/$(echo "${s%.c}" | tr / _).o"
  objs+=("$o")
  if [[ ! -e "$o" || "$s" -nt "$o" || "$0" -nt "$o" ]]; then
    # shellcheck disable=SC2086
    "$cc" "${common[@]}" $san -fsanitize=fuzzer-no-link -c "$s" -o "$o" &
    pids+=($!)
    if (( ${#pids[@]} >= jobs )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done

for h in fuzz/fuzz_*.c; do
  name=$(basename "${h%.c}")
  # shellcheck disable=SC2086
  "$cc" "${common[@]}" $san -fsanitize=fuzzer -Ifuzz "$h" "${objs[@]}" \
    -lmpfr -lgmp -lz -ljansson -lm -lpthread -o "$out/$name"
  echo "built $out/$name"
done
