#!/usr/bin/env bash
# doc_examples.sh [--python PY] FPLAB FILE.md... — the examples in the
# documents are real.  Each document's examples run in order, in one
# scratch directory per document (so an example may use the files an
# earlier one wrote), with FPLAB's directory first on PATH, and the output
# of each (stdout and stderr together) must equal the lines the document
# shows under it (up to the next `$ ` line or the end of the block).
#
# What is an example: a line `$ COMMAND` inside a fenced (```) block.
#   `$ fplab ...`, `$ printf ...`  run with bash -c (pipes and redirections
#                       work: `$ fplab ... | tail -1`, `$ printf ... | fplab ...`).
#   `$ python3 FILE.py` run with PY, the Python given with --python (one
#                       with numpy and torch: tests/cli.cmake finds it);
#                       `python3` on PATH is PY for every example.
#   `$ cat FILE`        not run: the lines under it (up to the next `$ `
#                       line or the block's end) are written to FILE, a
#                       file the user would make by hand: an input, a model
#                       file, or a generator script `$ cat make.py` that a
#                       later `$ python3 make.py` runs.
#   Not run: `fplab gpu-check` and `fplab verify --list` (their output is
#   the machine: its GPU, CPU features, CUDA version) and every other
#   command (scripts/lab.sh, cc, cmake, ...); code blocks without `$ `
#   lines (C, model files shown for reading) are not examples.
# Comparing: a last line `[exit N]` under an example is its exit status,
# checked too (without it the status is not checked: a nonzero status is
# fine when the output matches).  A line `...` in the document stands for
# any number of lines; use it only to shorten a long output, never to
# hide a line that makes the example's point.  Wall times and rates
# (`time=0.08s rate=12.74M/s`, the lab's `0.09 s` per experiment,
# reveal's call and total times) are masked; blank lines at the end of
# an example are not part of it.
# Nothing else is masked, so what an example prints must be the same on
# every machine: no timings, thread counts or CPU-dependent numbers.  A
# generator must be deterministic everywhere: seeded, with inputs numpy
# makes by integer arithmetic alone (`np.random.default_rng(S).uniform`,
# not torch.randn, whose vectorised and scalar paths differ), and
# "kernels" written in numpy element-wise operations (not torch.sum or a
# BLAS matmul, whose last bits depend on the CPU's vector width).
#
# Without --python (no Python with numpy and torch here), a document's
# examples from its first `$ python3` line on are not run but counted as
# skipped; the earlier ones are still checked.  Exit status: 1 when an
# example fails or a document has no example at all, else 77 when some
# were skipped, else 0.  The counts of run and skipped examples are printed.
#
# Adding runnable examples to a document: show every input the commands
# need as it is made — a `$ cat gen.py` block (short, seeded), then
# `$ python3 gen.py` (with its output, usually none), then the `$ fplab`
# lines with the output they really print (run this script on the
# document, or `ctest -R docs_examples`, and copy what it reports).  Files
# are shared by all of a document's examples: pick names no earlier
# example of that document uses, or uses for something else (docs/cli.md's
# bad.txt holds TestFloat lines).  Keep inputs small: each document's test
# should take well under a minute.  A new document is checked once
# tests/cli.cmake lists it (one test per document).
set -u
py=
if [ "${1:-}" = --python ]; then
    py=${2:?usage: $0 [--python PY] FPLAB FILE.md...}
    shift 2
fi
FPLAB=${1:?usage: $0 [--python PY] FPLAB FILE.md...}
shift
bindir=$(cd "$(dirname "$FPLAB")" && pwd)
[ "$(basename "$FPLAB")" = fplab ] || { echo "FAIL: $FPLAB is not named fplab"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fplab-doc-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
total=0 bad=0 skipped_total=0
# `python3` in the examples is PY (a wrapper, not a link: a virtual
# environment's interpreter finds its environment from its own path)
mkdir -p "$work/bin"
if [ -n "$py" ]; then
    printf '#!/bin/sh\nexec '\''%s'\'' "$@"\n' "${py//\'/\'\\\'\'}" > "$work/bin/python3"
    chmod +x "$work/bin/python3"
fi

# mask times, drop trailing blank lines
mask() {
    sed -E -e 's/time=[0-9.]+s rate=[0-9.]+M\/s/time=Ts rate=RM\/s/g' \
           -e 's/^(experiment [a-z_]+ +)[0-9.]+ s,/\1T s,/' \
           -e 's/^(kernel calls: [0-9]+) \([0-9.]+ s in the kernel\); reveal total [0-9.]+ s$/\1 (T s in the kernel); reveal total T s/' \
           -e 's/^(validation inputs: .* calls?), [0-9.]+ s$/\1, T s/' |
        awk '{ l[n++] = $0 } END { while (n > 0 && l[n - 1] == "") n--
                                   for (i = 0; i < n; i++) print l[i] }'
}

# match EXPECTED ACTUAL: the expected lines, where a line "..." (spaces
# around it allowed) matches any run of lines, must cover the actual ones.
match() {
    awk -v exp_file="$1" '
        BEGIN {
            while ((getline l < exp_file) > 0) e[ne++] = l
        }
        { a[na++] = $0 }
        function wild(i) { x = e[i]; gsub(/^ +| +$/, "", x); return x == "..." }
        function m(i, j,   k) {          # e[i..] matches a[j..]
            if (i == ne) return j == na
            if (wild(i)) {
                for (k = j; k <= na; k++) if (m(i + 1, k)) return 1
                return 0
            }
            return j < na && e[i] == a[j] && m(i + 1, j + 1)
        }
        END { exit m(0, 0) ? 0 : 1 }' "$2"
}

for doc in "$@"; do
    name=$(basename "$doc")
    cases=$work/$name.cases
    mkdir -p "$cases" "$work/$name.run"
    # split the fenced blocks into case_N.cmd / case_N.out
    awk -v dir="$cases" '
        /^```/ { inblock = !inblock; if (n && open) close(out); open = 0; next }
        !inblock { next }
        /^\$ / {
            if (open) close(out)
            n++
            cmd = substr($0, 3)
            printf "%s\n", cmd > (dir "/case_" n ".cmd"); close(dir "/case_" n ".cmd")
            out = dir "/case_" n ".out"
            printf "" > out
            open = 1
            next
        }
        open { print > out }
        END { print n + 0 > (dir "/count") }' "$doc"
    n=$(cat "$cases/count")
    ran=0 skipped=0 cut=
    for ((i = 1; i <= n; i++)); do
        cmd=$(cat "$cases/case_$i.cmd")
        # `$ cat FILE` shows an input file: it is written, not checked
        if [[ "$cmd" =~ ^cat\ ([A-Za-z0-9._-]+)$ ]]; then
            cp "$cases/case_$i.out" "$work/$name.run/${BASH_REMATCH[1]}"
            continue
        fi
        case "$cmd" in
        *gpu-check*|*"verify --list"*) continue ;;
        fplab\ *|printf\ *|python3\ *) ;;
        *) continue ;;
        esac
        # no Python: this example and every later one may need its files
        if [ -z "$py" ] && [[ "$cmd" == python3\ * ]] && [ -z "$cut" ]; then
            cut=$i
            echo "SKIP $name: \$ $cmd and the examples after it: no python3 with numpy and torch was given (--python)"
        fi
        if [ -n "$cut" ]; then
            skipped=$((skipped + 1))
            continue
        fi
        ran=$((ran + 1))
        (cd "$work/$name.run" && PATH="$bindir:$work/bin:$PATH" bash -c "$cmd") \
            > "$work/got" 2>&1
        rc=$?
        mask < "$cases/case_$i.out" > "$work/want.m"
        # an "[exit N]" last line: the status is part of the output
        if [ -n "$(tail -1 "$work/want.m" | grep -E '^\[exit [0-9]+\]$')" ]; then
            echo "[exit $rc]" >> "$work/got"
        fi
        mask < "$work/got" > "$work/got.m"
        if ! match "$work/want.m" "$work/got.m"; then
            bad=$((bad + 1))
            echo "FAIL $name: \$ $cmd"
            diff "$work/want.m" "$work/got.m" | head -40
        fi
    done
    echo "$name: $ran examples run, $skipped skipped"
    total=$((total + ran))
    skipped_total=$((skipped_total + skipped))
    [ $((ran + skipped)) -gt 0 ] || { echo "FAIL $name: no examples found"; bad=$((bad + 1)); }
done
echo "$total examples run, $bad failed, $skipped_total skipped"
[ "$bad" = 0 ] || exit 1
[ "$skipped_total" = 0 ] || exit 77
exit 0
