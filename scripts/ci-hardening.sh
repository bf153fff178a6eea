#!/usr/bin/env bash
# CI hardening passes (docs/reliability.md): the project built again with
# AddressSanitizer + UndefinedBehaviorSanitizer, with ThreadSanitizer, and
# without AVX-512 for valgrind, plus short libFuzzer runs.
#
#   scripts/ci-hardening.sh [PASS...]     PASS: asan tsan valgrind fuzz
#                                         (default: all four, in that order)
#
# Build directories: build-asan, build-tsan, build-valgrind, build-fuzz.
# Environment: FUZZ_SECONDS (per harness, default 10), JOBS (default nproc).
# Each pass prints its wall time; the script stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --ci      # clang, its runtime, valgrind (when missing)
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-10}
passes=("$@")
[ ${#passes[@]} -gt 0 ] || passes=(asan tsan valgrind fuzz)
supp="$PWD/tests/hardening/lsan.supp"

stamp() { date +%s; }
banner() { printf '\n==== ci-hardening: %s\n' "$*"; }

# Sanitizer builds leave out what they cannot instrument or do not need:
# CUDA kernels (nvcc), MPI (its runtime reports its own leaks), benches.
configure() {
    local dir=$1; shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFPLAB_WERROR=ON \
        -DFPLAB_CUDA=OFF -DFPLAB_MPI=OFF "$@" > "$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; return 1; }
}

pass_asan() {
    banner "AddressSanitizer + UndefinedBehaviorSanitizer: default tests"
    configure build-asan -DFPLAB_SANITIZE=address,undefined
    cmake --build build-asan -j "$jobs" > build-asan.build.log 2>&1 ||
        { tail -50 build-asan.build.log; return 1; }
    # The whole default test set, as scripts/test.sh runs it (the gpu test
    # skips anyway; the MPI test runs in the plain build), but for the two
    # tests that re-run whole quick labs to compare files (atomic writes,
    # same seed same bytes): 6 of the pass's 10 minutes here; the lab's
    # code runs under ASan in lab_smoke and lab_audit (docs/reliability.md).
    # lab_audit_noplots audits lab_repro's output, so it leaves with it
    # (ctest's -E drops a fixture's setup test but not the tests needing it).
    ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:strict_string_checks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    LSAN_OPTIONS=suppressions=$supp \
    FPLAB_GNUPLOT=/nonexistent \
        ctest --test-dir build-asan -LE 'long|exhaustive|gpu|mpi' \
            -E '^(hardening_nothing_lost|lab_repro|lab_audit_noplots)$' \
            --output-on-failure -j "$jobs" --timeout 900
}

pass_tsan() {
    banner "ThreadSanitizer: threaded tests"
    configure build-tsan -DFPLAB_SANITIZE=thread
    cmake --build build-tsan -j "$jobs" --target fplab_cli test_threads \
        test_sr_threads > build-tsan.build.log 2>&1 ||
        { tail -50 build-tsan.build.log; return 1; }
    export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
    # the core's no-global-state test, bulk rounding on 1-3 threads
    ctest --test-dir build-tsan -R '^(core_threads|hardening_sr_threads)$' \
        --output-on-failure --timeout 900
    # the threaded sweep: each oracle on 2 threads
    local f=build-tsan/fplab
    "$f" verify --format binary16 --op fma --rm all --oracle mpfr \
        --random 20000 --seed 1 --threads 2
    "$f" verify --format binary16 --op add --rm all --oracle hw \
        --random 20000 --seed 2 --threads 2
    "$f" verify --format binary16 --op sqrt --oracle auto --exhaustive \
        --threads 2
}

pass_valgrind() {
    banner "valgrind memcheck (no AVX-512): unit and CLI tests"
    command -v valgrind > /dev/null || { echo "valgrind not installed"; return 1; }
    configure build-valgrind -DFPLAB_AVX512=OFF
    cmake --build build-valgrind -j "$jobs" --target fplab_cli test_unit \
        cli_util_test test_tcmodel test_amp_scaler test_amp_hist test_npy \
        fuzz_parse_replay fuzz_npy_replay fuzz_csv_replay \
        fuzz_testfloat_replay test_tensor test_compare fuzz_npz_replay \
        fuzz_safetensors_replay > build-valgrind.build.log 2>&1 ||
        { tail -50 build-valgrind.build.log; return 1; }
    local vg=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
              --errors-for-leak-kinds=definite --track-origins=yes -q
              --suppressions=tests/hardening/valgrind.supp)
    local b=build-valgrind t=build-valgrind/tests
    local -a cmds=(
        "$t/test_unit"
        "$t/cli_util_test $b/vg-cli-util"
        "$t/test_tcmodel"
        "$t/test_amp_scaler"
        "$t/test_amp_hist"
        "$t/test_npy tests/data/npy $b"
        "$t/fuzz_parse_replay fuzz/corpus/parse/seed-*"
        "$t/fuzz_npy_replay fuzz/corpus/npy/seed-*"
        "$t/fuzz_csv_replay fuzz/corpus/csv/seed-*"
        "$t/fuzz_testfloat_replay fuzz/corpus/testfloat/seed-*"
        "$t/test_tensor $b/vg-tensor"
        "$t/test_compare"
        "$t/fuzz_npz_replay fuzz/corpus/npz/seed-*"
        "$t/fuzz_safetensors_replay fuzz/corpus/safetensors/seed-*"
    )
    local c
    for c in "${cmds[@]}"; do
        echo "valgrind: $c"
        # Check forks a child per test; CK_FORK=no keeps them in-process
        # shellcheck disable=SC2086
        CK_FORK=no "${vg[@]}" $c > "$b/vg.out" 2>&1 ||
            { tail -60 "$b/vg.out"; return 1; }
    done
    # the command line: the bad-input table, every fplab under valgrind
    # (a valgrind error turns the exit status into 99: the row fails)
    # (in two shards side by side: every row is its own process)
    local k pids=() st=0
    for k in 0 1; do
        FPLAB_WRAP="${vg[*]}" BAD_INPUT_SHARD=$k/2 bash tests/hardening/bad_input.sh \
            "$b/fplab" tests/hardening/bad_input.tsv "$b/vg-bad-input-$k" &
        pids+=($!)
    done
    for k in "${pids[@]}"; do wait "$k" || st=1; done
    [ $st = 0 ] || return 1
    echo "valgrind: fplab calc/info/table samples"
    local -a cli=(
        "info ieee:4:3" "table fp8-e4m3" "calc fp16 fma 1 2 3 --rm rto"
        "calc bf16 convert 1.00390625 --from binary32 --rm sr --seed 3"
        "calc fp64 div 1 3 --rm rup" "calc fp8-e4m3 round 500 --saturate"
        "verify --format binary16 --op add --random 2000 --threads 2 --oracle mpfr"
        "train --steps 3 --width 16"
    )
    for c in "${cli[@]}"; do
        # shellcheck disable=SC2086
        "${vg[@]}" "$b/fplab" $c > "$b/vg.out" 2>&1 ||
            { echo "FAIL: valgrind fplab $c"; tail -40 "$b/vg.out"; return 1; }
    done
}

pass_fuzz() {
    banner "libFuzzer: ${fuzz_seconds}s per harness"
    command -v clang > /dev/null || { echo "clang not installed"; return 1; }
    fuzz/build.sh build-fuzz
    local h name work
    for h in build-fuzz/fuzz_*; do
        [ -x "$h" ] || continue
        name=${h#build-fuzz/fuzz_}
        # work on a copy: CI does not write into the committed corpus
        work=build-fuzz/work-$name
        rm -rf "$work"
        mkdir -p "$work/corpus" "$work/artifacts"
        cp fuzz/corpus/"$name"/* "$work/corpus/"
        [ -d fuzz/regress/"$name" ] && cp fuzz/regress/"$name"/* "$work/corpus/"
        echo "fuzz_$name: $(ls "$work/corpus" | wc -l) inputs"
        LSAN_OPTIONS=suppressions=$supp \
        "$h" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
            "$work/corpus" > "$work/log" 2>&1 ||
            { tail -40 "$work/log"; echo "FAIL: fuzz_$name found an input: $(ls "$work/artifacts")"; return 1; }
        grep -E '^stat::number_of_executed_units' "$work/log" || true
    done
}

total0=$(stamp)
for p in "${passes[@]}"; do
    t0=$(stamp)
    case $p in
    asan) pass_asan ;;
    tsan) pass_tsan ;;
    valgrind) pass_valgrind ;;
    fuzz) pass_fuzz ;;
    *) echo "unknown pass '$p' (asan tsan valgrind fuzz)"; exit 2 ;;
    esac
    printf '==== ci-hardening: %s passed in %ds\n' "$p" $(( $(stamp) - t0 ))
done
printf '==== ci-hardening: all passes (%s) in %ds\n' "${passes[*]}" $(( $(stamp) - total0 ))
