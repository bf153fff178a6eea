#!/usr/bin/env bash
# doc_examples.sh FPLAB FILE.md... — the examples in the documents are real:
# every `$ fplab ...` (or `$ printf ... | fplab ...`) line in a fenced code
# block is run, in order, in one scratch directory per document (so an
# example may use the files an earlier one wrote), with FPLAB first on
# PATH, and its stdout and stderr together must equal the lines the
# document shows under it (up to the next `$ ` line or the block's end).
#
# A last line `[exit N]` under an example is its exit status, checked too.
# Allowed differences: wall times and rates (`time=0.08s rate=12.74M/s`,
# the lab's `0.09 s` per experiment, reveal's call and total times) are
# masked; a line `...` in the
# document stands for any number of lines; blank lines at the end of an
# example are not part of it.  Run: lines starting `$ fplab ` or
# `$ printf ` (which may write an input file for the next example); a
# `$ cat FILE` example writes FILE with the lines shown under it.  Not
# run: `fplab gpu-check` and `fplab verify --list` (their output is the
# machine: its GPU, CPU features, CUDA version) and other commands
# (scripts/lab.sh, cc, cmake).  Counts its examples
# and fails unless each document has at least one and all match.
set -u
FPLAB=${1:?usage: $0 FPLAB FILE.md...}
shift
bindir=$(cd "$(dirname "$FPLAB")" && pwd)
[ "$(basename "$FPLAB")" = fplab ] || { echo "FAIL: $FPLAB is not named fplab"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fplab-doc-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
total=0 bad=0

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
    ran=0
    for ((i = 1; i <= n; i++)); do
        cmd=$(cat "$cases/case_$i.cmd")
        # `$ cat FILE` shows an input file: it is written, not checked
        if [[ "$cmd" =~ ^cat\ ([A-Za-z0-9._-]+)$ ]]; then
            cp "$cases/case_$i.out" "$work/$name.run/${BASH_REMATCH[1]}"
            continue
        fi
        case "$cmd" in
        *gpu-check*|*"verify --list"*) continue ;;
        fplab\ *|printf\ *) ;;
        *) continue ;;
        esac
        ran=$((ran + 1))
        (cd "$work/$name.run" && PATH="$bindir:$PATH" bash -c "$cmd") \
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
            diff "$work/want.m" "$work/got.m" | head -30
        fi
    done
    echo "$name: $ran examples run"
    total=$((total + ran))
    [ "$ran" -gt 0 ] || { echo "FAIL $name: no examples found"; bad=$((bad + 1)); }
done
echo "$total examples, $bad failed"
[ "$bad" = 0 ]
