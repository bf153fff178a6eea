#!/bin/sh
# lab_audit_test.sh — the report audit on a quick lab output, and proof that
# it catches contradictions: each plant edits a copy of the output (a .dat
# value, or a sentence of REPORT.md) so that a claim no longer follows from
# its data, and the audit must then fail naming that claim.
# usage: lab_audit_test.sh PYTHON AUDIT_SCRIPT LAB_DIR WORKDIR [PLOTS_DIR]
# LAB_DIR: the output of `fplab lab --quick` (the lab_smoke test's).
set -u
PY=$1
AUDIT=$2
LAB=$3
W=$4
PLOTS=${5:-}
rm -rf "$W" && mkdir -p "$W" || exit 2
checks=0
fails=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

if [ ! -s "$LAB/REPORT.md" ]; then
    echo "no lab output in $LAB (the lab_smoke test makes it)" >&2
    exit 1
fi

# 1. the real output passes
if [ -n "$PLOTS" ]; then
    "$PY" "$AUDIT" "$LAB" --plots "$PLOTS" > "$W/clean.txt" 2>&1
else
    "$PY" "$AUDIT" "$LAB" > "$W/clean.txt" 2>&1
fi
rc=$?
cat "$W/clean.txt"
if [ $rc -eq 0 ]; then ok; else bad "the audit fails on the lab's own output"; fi

# plant NAME FILE EXPECTED_FRAGMENT COMMAND...: edit a copy of FILE
# through COMMAND (stdin to stdout), expect exit 1 and the fragment in the
# audit's output
plant() {
    name=$1; file=$2; want=$3; shift 3
    d="$W/$name"
    cp -r "$LAB" "$d" || { bad "$name: cannot copy"; return; }
    "$@" < "$LAB/$file" > "$d/$file"
    if cmp -s "$LAB/$file" "$d/$file"; then
        bad "$name: the edit changed nothing in $file"
        return
    fi
    "$PY" "$AUDIT" "$d" > "$d.txt" 2>&1
    rc=$?
    if [ $rc -ne 1 ]; then
        bad "$name: audit exit $rc, expected 1"; sed 's/^/    /' "$d.txt" >&2; return
    fi
    if grep -q -- "$want" "$d.txt"; then ok; else
        bad "$name: failure does not mention '$want'"; sed 's/^/    /' "$d.txt" >&2
    fi
}

# a. data: an update that binary16 lost at r = 2^-12 is now kept, so the
#    edge "every update lost up to 2^-12.00" no longer follows
plant lost_edge lost_ratio.dat "binary16 all-lost edge" \
    sed 's/^\(0\.000244140625\) 1\.000000/\1 0.999500/'
# b. report: the sweep's summary calls the loss weights where fp16 without
#    scaling is lower "higher"
plant sweep_claim REPORT.md "sweep summary" \
    sed 's/By the rule, fp16 without scaling: lower than binary32 at W = /By the rule, fp16 without scaling: higher than binary32 at W = /'
# c. data: one seed of fp16 (tiny setting) classifies one more test image
#    correctly; the table's mean no longer follows
plant seed_acc training_tiny_seeds.dat "tiny fp16 accuracy mean" \
    awk '$1 == 1 && $2 == "fp16" && $3 == 1 { $4 = $4 + 1 } { print }'
# d. report: a stagnation claim for the wrong value
plant stuck_claim REPORT.md "accum sum stagnation" \
    sed 's/and 2048 + 1 rounds back to 2048/and 2048 + 1 rounds back to 2050/'
# e. report: a number nobody verifies
plant stray_number REPORT.md "not verified by the audit" \
    sed 's/^Data: `accum.dat`$/Data: `accum.dat` (about 42 kB)/'
# f. report: the rounding table claims a flag the exact rounding does not raise
plant wrong_flag REPORT.md "rounding table 0.1 rne" \
    sed 's/^| 0\.1 | not a tie, not representable | 0\.0999756 x |/| 0.1 | not a tie, not representable | 0.0999756 xu |/'
# g. report: the rule's verdict in a table cell flipped
plant verdict REPORT.md "vs binary32" \
    sed '0,/| not shown (-/s/| not shown (-/| equivalent (-/'
# j. report: a Holm-adjusted p-value that the per-seed data do not give
plant holm_p REPORT.md "Holm p" \
    sed '0,/Holm p 1, TOST/s/Holm p 1, TOST/Holm p 0.01, TOST/'
# k. data: o3-state32 (the run that isolates o3's divergence) is recorded
#    with binary32 weights: it no longer changes the optimizer state alone,
#    and the cause sentence must fail
plant adam_cause training_adam_seeds.dat "differ in more than the optimizer state" \
    sed 's/^o3-state32 binary16 binary32 binary16 none binary32 /o3-state32 binary16 binary32 binary32 none binary32 /'
# l. data: one seed of o2 (default setting) no longer bit-identical to
#    GradScaler: the merged row and the groups do not follow
plant merge training_default_seeds.dat "comparisons in the data" \
    awk '$2 == "o2" && $3 == 1 { $19 = "0000000000000000" } { print }'
# m. data: the SR and RNE bfloat16 policies differ in more than the rounding
plant sr_pair training_sr_seeds.dat "differ in more than the update's rounding" \
    sed 's/^bf16-pure-sr bfloat16 binary32 bfloat16 none bfloat16 stochastic/bf16-pure-sr bfloat16 binary32 bfloat16 none binary32 stochastic/'
# n. data: the language model's what-if no longer grows with the tokens
plant lm_whatif trainlm_flush.dat "what-if" \
    awk 'BEGIN { b = 0 } /^$/ { e++ } e >= 2 && $1 == 22 && $3 == 2 { $5 = 0 } { print }'
# h. data: the scale a delayed-scaling row says it used is no longer the one
#    Transformer Engine's recipe gives from the recorded amaxes
plant delayed_scale scaling_tensors.dat "the recipe gives" \
    awk '!done && $1 > 0 && $4 == "del-e4m3" { $5 = $5 * 2; done = 1 } { print }'
# i. report: delayed scaling against current scaling (after step 0), the
#    verdict flipped
plant delayed_verdict REPORT.md "scaling delayed against current" \
    sed 's/(delayed: more)/(delayed: fewer)/; t; s/(delayed: fewer)/(delayed: more)/; t; s/(delayed: neither consistently more nor fewer)/(delayed: more)/'

# j. data: one step's weight-gradient amax made large enough to overflow
#    binary16 at S = 2^7; the sweep's overflow counts no longer follow from
#    every step's amax
plant every_step_overflow gradhist_steps.dat "does not follow from every step's amax" \
    awk '!/^#/ && NF > 2 && $1 == 3 && !done { $2 = 1000; done = 1 } { print }'
# k. data: at r = 2^-26 no weight's update is said to round to zero in
#    binary16, against the weight distribution's share
plant dw_underflow lost_ratio.dat "lost: dw = 0 for" \
    awk '!/^#/ && $1 == "1.4901161193847656e-08" { $6 = 0 } { print }'
# l. data: delayed scaling's step 0 (scale 1) flushes fewer values; the
#    cold-start share no longer follows
plant cold_start scaling_tensors.dat "delayed cold start" \
    awk '!done && $1 == 0 && $3 == "agrad" && $4 == "del-e4m3" { $8 = $8 - 100; done = 1 } { print }'
# m. data: experiment 7's flush count of a run differs from experiment 3's
#    count of the same run (one definition, two numbers)
plant one_flush scaling_train_seeds.dat "differ from section 3's" \
    awk '!done && NF == 5 && $2 == "agrad" { $5 = $5 + 1; done = 1 } { print }'
# n. report: where the gradients GradScaler's scale leaves lie, claimed
#    against the data
plant flush_where REPORT.md "flush where" \
    sed "s/^\(.*\)At GradScaler's scale no activation gradient flushes\.$/\1At GradScaler's scale every flushed activation gradient of every seed lies in the last layer.  Why the last layer: figure gradhist_underflow./; t; s/At GradScaler's scale \(.*\) lie in the last layer\./At GradScaler's scale no activation gradient flushes./"
# o. data: with N supplied random bits, fastest keeps one update below
#    2^-N spacings that makes |w| grow (the first such row of its blocks,
#    kept counts raised by one); the cut-off 2^-N no longer follows
plant bits_cut lost_bits.dat "fastest (|w| grows) kept an update below 2^-N" \
    awk 'BEGIN { e = 0 } /^$/ { e++ } !/^#/ && NF > 20 && $1 == "fastest" && $13 > 0 && !done { $14 = $14 + 1; $7 = $7 + 1; done = 1 } { print }'
# p. data: the growing run of fastest with 2 random bits ends at the exact
#    end in every repetition; "closer to zero in both runs" no longer
#    follows for N = 2
plant bits_bias lost_bits_run.dat "bits run class 0 lists" \
    awk '!/^#/ && $1 == "grows" && $2 == "fastest" && $3 == 2 { for (i = 10; i <= NF; i++) $i = $6 } { print }'

echo "lab_audit_test: $checks checks, $fails failures"
if [ "$checks" -ne 22 ]; then
    echo "FAIL: ran $checks checks, expected 22" >&2
    exit 1
fi
[ "$fails" -eq 0 ]
