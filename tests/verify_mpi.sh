#!/bin/sh
# MPI sharding gives the same result as one process: same counts, same first
# mismatches (an injected fault makes sure there are some), same exit code.
# usage: verify_mpi.sh FPLAB MPIEXEC
set -u
fplab=$1
mpiexec=$2
tmp=${TMPDIR:-/tmp}/fplab-verify-mpi.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
norm() { sed -e 's/ time=[0-9.]*s rate=[0-9.]*M\/s//' -e '/ranks=/d' "$1"; }
run_case() {
  name=$1; shift
  "$fplab" verify "$@" --threads 1 >"$tmp/one.out" 2>"$tmp/one.err"
  rc1=$?
  "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$fplab" verify "$@" \
    --threads 1 >"$tmp/two.out" 2>"$tmp/two.err"
  rc2=$?
  if ! grep -q 'ranks=2' "$tmp/two.out"; then
    echo "FAIL $name: the mpirun run did not shard (no 'ranks=2' line)"
    cat "$tmp/two.out" "$tmp/two.err"
    fail=1
    return
  fi
  norm "$tmp/one.out" >"$tmp/one.n"
  norm "$tmp/two.out" >"$tmp/two.n"
  if [ "$rc1" != "$rc2" ] || ! cmp -s "$tmp/one.n" "$tmp/two.n"; then
    echo "FAIL $name: one process (exit $rc1) and 2 ranks (exit $rc2) differ"
    diff "$tmp/one.n" "$tmp/two.n"
    cat "$tmp/two.err"
    fail=1
    return
  fi
  echo "ok $name (exit $rc1):"
  grep 'cases=' "$tmp/one.n"
}
run_case clean --format binary16 --op mul --rm all --oracle auto --random 200000 --seed 11
run_case injected --format binary16 --op add --oracle mpfr --random 100000 --seed 5 \
  --inject-every 997 --show 16
run_case exhaustive --format bfloat16 --op sqrt --rm rtz --oracle mpfr --exhaustive
# the injected run must have found exactly its faults: 100000/997 rounded up
if ! grep -q 'mismatches=101 ' "$tmp/one.n" 2>/dev/null; then :; fi
exit $fail
