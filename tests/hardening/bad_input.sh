#!/usr/bin/env bash
# bad_input.sh — the table-driven bad-input test of every subcommand.
#
#   bad_input.sh FPLAB TABLE WORKDIR
#
# TABLE (tests/hardening/bad_input.tsv) has one case per line, tab-separated:
#   id  when  exit  stream  fragments  stdin  args
#   when       always | nonroot (skipped when running as root: permission
#              bits do not stop root) | known (a reported bug: a failure is
#              counted as KNOWN, a pass as XPASS; neither fails the run)
#   exit       the exit status the command must return (2 for bad input)
#   stream     err or out: where the fragments must appear
#   fragments  '|'-separated substrings, all required: the problem and its
#              place (file, line, field, option)
#   stdin      '-' for /dev/null, else a path
#   args       the arguments after `fplab`, as bash words (@NONE@: none)
# In stdin and args, @W@ is WORKDIR (fixtures are made there first), @N@
# the committed .npy fixtures (tests/data/npy), @T@ the committed tensor
# fixtures (tests/data/tensor, written by tests/data/gen_tensor.py).
# Besides, every case must not crash: a status above 125 (a signal) or a
# sanitizer report on stderr fails it whatever the table says.
#
# FPLAB_WRAP, when set, is a command prefix (e.g. a valgrind invocation)
# put before fplab in every case.  BAD_INPUT_SHARD=K/N runs only the rows
# whose number (from 0, comments left out) is K modulo N, so that N runs
# with different WORKDIRs share the table (CI's valgrind pass runs two).
set -u
FPLAB=${1:?usage: $0 FPLAB TABLE WORKDIR}
TABLE=${2:?usage: $0 FPLAB TABLE WORKDIR}
W=${3:?usage: $0 FPLAB TABLE WORKDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
N=$(cd "$HERE/../data/npy" && pwd)
T=$(cd "$HERE/../data/tensor" && pwd)
WRAP=${FPLAB_WRAP:-}
shard_k=0 shard_n=1
if [ -n "${BAD_INPUT_SHARD:-}" ]; then
    shard_k=${BAD_INPUT_SHARD%/*} shard_n=${BAD_INPUT_SHARD#*/}
    case "$shard_k/$shard_n" in
    [0-9]*/[1-9]*) [ "$shard_k" -lt "$shard_n" ] ||
        { echo "BAD_INPUT_SHARD=$BAD_INPUT_SHARD: K must be below N"; exit 2; } ;;
    *) echo "BAD_INPUT_SHARD=$BAD_INPUT_SHARD is not K/N"; exit 2 ;;
    esac
fi

rm -rf "$W"
mkdir -p "$W" || exit 2

# ---- fixtures -----------------------------------------------------------
mk() { printf "$2" > "$W/$1"; }
# TestFloat lines
mk tf_badhex     '3C00 3C00 4000 00\n3C00 zz\n'
mk tf_fields1    '3C00\n'
mk tf_fields9    '3C00 3C00 4000 00 1 2 3 4 5\n'
mk tf_badflags   '3C00 3C00 4000 0G\n'
mk tf_flags20    '3C00 3C00 4000 20\n'
mk tf_wide       '12345 3C00\n'
mk tf_nonutf8    '3C00 \377\376\n'
mk tf_bool       '3C00 3C00 2 00\n'
{ printf '3C00 '; head -c 100000 /dev/zero | tr '\0' '3'; printf '\n'; } > "$W/tf_long"
# scaler flags
mk sc_two        '0\n1\n2\n'
mk sc_nonutf8    '0\n\377\n'
mk sc_nan        '0\nnan\n'
mk sc_pair       '0\n1 1\n'
{ printf '0\n'; head -c 100000 /dev/zero | tr '\0' '1'; printf '\n'; } > "$W/sc_long"
# gradient text
mk h_word        '1.5\n2,x\n'
mk h_nonutf8     '1\n\377\376\n'
mk h_naninf      '1\nnan\n-inf\n'
mk h_emptyfield  '1,,2\n'
mk h_trailsep    '1,2,\n'
mk h_nul         '1\n2\0003\n'
{ yes '1.5' | head -n 200000 | tr '\n' ' '; printf '\n'; } > "$W/h_longline"
mk raw3          'abc'
: > "$W/empty.npy"
mk magic_only.npy '\223NUMPY'
# training CSV
mk c_nan         '1,2,0\n3,nan,1\n'
mk c_inf         '1,2,0\n3,inf,1\n'
mk c_short       '1,2,0\n3,1\n'
mk c_nonutf8     '1,2,0\n3,\377,1\n'
mk c_frac_label  '1,2,0\n3,4,1.5\n'
mk c_big_label   '1,2,0\n3,4,2000\n'
mk c_neg_label   '1,2,0\n3,4,-1\n'
mk c_huge        '8e78,1,0\n1,2,1\n3,4,0\n5,6,1\n'
: > "$W/c_empty"
{ yes '1' | head -n 300000 | tr '\n' ','; printf '0\n'; } > "$W/c_wide"
mk c_corrupt.gz  '\037\213\010\000garbage that is not deflate data'
# output places that cannot be written: a regular file where a directory
# must be (stops root too), and a read-only directory (not root)
mk afile         'x\n'
mkdir -p "$W/ro" && chmod 555 "$W/ro"
# fplab ref: model files, cut tensor files, bfloat16 bit patterns
mk ref_m_key.txt   '# model\nacc = binary32\nacc_rm = rne\n'
mk ref_m_val.txt   'acc-rm = nearest-ish\n'
mk ref_m_dup.txt   'acc = fp32\n\nacc = fp16\n'
mk ref_m_tree.txt  'order = tree: (0 + 1) + (1 + 2)\n'
mk ref_m_in.txt    'in = binary16\n'
mk ref_m_nul.txt   'acc = fp32\n\000\n'
mk ref_trunc.npz   'PK\003\004\024\000\000\000\010\000'
mk ref_trunc.safetensors '\100\000\000\000\000\000\000\000{"x": {"dtype": "F32"'
"$FPLAB" ref cast "$N/c_f4_2d.npy" --out-format bf16 --out "$W/ref_bf16.npy" \
    > /dev/null 2>&1 || true
"$FPLAB" ref cast "$N/c_f4_2d.npy" --out-format bf16 --out "$W/ref_bf16.safetensors" \
    > /dev/null 2>&1 || true

# ---- cases --------------------------------------------------------------
is_root=0
[ "$(id -u)" = 0 ] && is_root=1
rows=0 run=0 pass=0 fail=0 known=0 xpass=0 skipped=0 lineno=0 others=0
while IFS=$'\t' read -r id when want stream frags stdin args || [ -n "$id" ]; do
    lineno=$((lineno + 1))
    case "$id" in ''|'#'*) continue ;; esac
    rows=$((rows + 1))
    if [ $(((rows - 1) % shard_n)) != "$shard_k" ]; then
        others=$((others + 1))
        continue
    fi
    if [ -z "${args:-}" ]; then
        printf 'FAIL %s: table line %d has fewer than 7 fields\n' "$id" "$lineno"
        fail=$((fail + 1))
        continue
    fi
    if [ "$when" = nonroot ] && [ "$is_root" = 1 ]; then
        skipped=$((skipped + 1))
        continue
    fi
    args=${args//@W@/$W}
    args=${args//@N@/$N}
    args=${args//@T@/$T}
    stdin=${stdin//@W@/$W}
    [ "$stdin" = - ] && stdin=/dev/null
    if [ "$args" = @NONE@ ]; then set --; else eval "set -- $args"; fi
    run=$((run + 1))
    # shellcheck disable=SC2086
    $WRAP "$FPLAB" "$@" < "$stdin" > "$W/.out" 2> "$W/.err"
    rc=$?
    why=""
    if [ "$rc" -gt 125 ]; then
        why="crashed (status $rc)"
    elif grep -q -E 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:|ERROR SUMMARY: [1-9]' "$W/.err"; then
        why="sanitizer or valgrind report"
    elif [ "$rc" != "$want" ]; then
        why="exit $rc, want $want"
    else
        src="$W/.err"
        [ "$stream" = out ] && src="$W/.out"
        IFS='|' read -r -a parts <<< "$frags"
        for p in "${parts[@]}"; do
            p=${p//@W@/$W}
            p=${p//@N@/$N}
            p=${p//@T@/$T}
            if ! grep -q -F -- "$p" "$src"; then
                why="$stream lacks '$p'"
                break
            fi
        done
    fi
    if [ -z "$why" ]; then
        if [ "$when" = known ]; then
            xpass=$((xpass + 1))
            printf 'XPASS %s: passes now; drop the known mark\n' "$id"
        else
            pass=$((pass + 1))
        fi
    elif [ "$when" = known ]; then
        known=$((known + 1))
        printf 'KNOWN %s: %s\n' "$id" "$why"
    else
        fail=$((fail + 1))
        printf 'FAIL %s: fplab %s: %s\n  stderr: %s\n' "$id" "$*" "$why" \
            "$(head -c 600 "$W/.err")"
    fi
done < "$TABLE"

chmod 755 "$W/ro" 2>/dev/null
printf 'bad_input: %d rows, %d run, %d passed, %d failed, %d known bugs, %d xpass, %d skipped (root)' \
    "$rows" "$run" "$pass" "$fail" "$known" "$xpass" "$skipped"
[ "$shard_n" = 1 ] || printf ', %d in the other shards (shard %d/%d)' "$others" "$shard_k" "$shard_n"
printf '\n'
# every row either ran or was skipped for a stated reason; at least 80 ran
if [ "$fail" != 0 ] || [ $((run + skipped + others)) != "$rows" ] || [ "$run" -lt 80 ] ||
   [ $((pass + known + xpass + fail)) != "$run" ]; then
    exit 1
fi
exit 0
