# lib.sh — helpers for the fplab CLI tests (sourced by tests/cli/*.sh).
#
# Every check counts itself; `finish N` fails unless exactly N checks ran
# and all passed, so a test whose cases silently stop running cannot pass.

FPLAB=${1:?usage: $0 PATH-TO-fplab}
CASES=0
FAILS=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fplab-cli-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() {
    FAILS=$((FAILS + 1))
    printf 'FAIL: %s\n' "$*" >&2
}

# expect RC EXPECTED-STDOUT -- ARGS...   (fplab ARGS, stdin from $STDIN_FILE
# when set): exit status and the whole of stdout must match.
expect() {
    local rc_want=$1 out_want=$2
    shift 3
    local out rc
    out=$("$FPLAB" "$@" < "${STDIN_FILE:-/dev/null}" 2>"$TMP/err")
    rc=$?
    CASES=$((CASES + 1))
    if [ "$rc" != "$rc_want" ] || [ "$out" != "$out_want" ]; then
        fail "fplab $*: want rc $rc_want and [$out_want], got rc $rc and [${out:0:400}]; stderr: $(cat "$TMP/err")"
    fi
}

# expect_err RC STDERR-SUBSTRING -- ARGS...: exit status, the message on
# stderr contains the substring, and (for a failure, RC != 0) stdout is empty.
expect_err() {
    local rc_want=$1 msg=$2
    shift 3
    local out rc err
    out=$("$FPLAB" "$@" < "${STDIN_FILE:-/dev/null}" 2>"$TMP/err")
    rc=$?
    err=$(cat "$TMP/err")
    CASES=$((CASES + 1))
    if [ "$rc" != "$rc_want" ] || { [ "$rc_want" != 0 ] && [ -n "$out" ]; } || [[ "$err" != *"$msg"* ]]; then
        fail "fplab $*: want rc $rc_want, empty stdout, stderr containing [$msg]; got rc $rc, stdout [${out:0:200}], stderr [$err]"
    fi
}

# expect_file RC GOLDEN-FILE -- ARGS...: stdout must equal the file.
expect_file() {
    local rc_want=$1 golden=$2
    shift 3
    local rc
    "$FPLAB" "$@" < "${STDIN_FILE:-/dev/null}" > "$TMP/out" 2>"$TMP/err"
    rc=$?
    CASES=$((CASES + 1))
    if [ "$rc" != "$rc_want" ] || ! cmp -s "$TMP/out" "$golden"; then
        fail "fplab $*: rc $rc (want $rc_want), output differs from $golden:"
        diff "$golden" "$TMP/out" | head -20 >&2
    fi
}

finish() {
    if [ "$CASES" != "$1" ]; then
        fail "ran $CASES checks, expected $1"
    fi
    echo "$CASES checks, $FAILS failed"
    [ "$FAILS" = 0 ]
}
