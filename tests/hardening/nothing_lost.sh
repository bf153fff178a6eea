#!/usr/bin/env bash
# nothing_lost.sh — an interrupted or failed run never destroys a good
# output: outputs go to "<path>.tmp.<pid>" and are renamed into place.
#
#   nothing_lost.sh FPLAB WORKDIR
#
# 1. `fplab lab --quick --no-plots --seed 1` writes a good directory G.
#    A reference run with --seed 2 gives R (different data files).
#    Then, in the directory holding G's files, a --seed 2 run is killed
#    mid-way (SIGKILL, then SIGINT, then SIGTERM): polling, the kill comes
#    as soon as a temporary file shows up (the process is writing), or else
#    when the first file has changed.  Afterwards every file is byte for
#    byte either G's version or R's: never a mix, a truncation or a loss.
#    The kill must land mid-way: some file still G's and some already R's
#    (or a temporary caught open); a few timings are tried until one does.
#    A killed process cannot remove its temporary file: the test counts
#    and reports any it finds, then removes them (docs/reliability.md).
# 2. `fplab train --out F` killed mid-run leaves F as it was.
# 3. Failed runs (bad data, unwritable output) leave the previous file
#    intact and no temporary file behind.
set -u
FPLAB=${1:?usage: $0 FPLAB WORKDIR}
W=${2:?usage: $0 FPLAB WORKDIR}
rm -rf "$W"
mkdir -p "$W" || exit 2
checks=0 fails=0
ok()   { checks=$((checks + 1)); }
bad()  { checks=$((checks + 1)); fails=$((fails + 1)); printf 'FAIL: %s\n' "$*"; }

lab() { "$FPLAB" lab --quick --no-plots "$@" > /dev/null 2>&1; }

lab --seed 1 --out "$W/G" || { echo "FAIL: good lab run failed"; exit 1; }
lab --seed 2 --out "$W/R" || { echo "FAIL: reference lab run failed"; exit 1; }
files=$(cd "$W/G" && ls)
ndiff=0
for f in $files; do
    [ -f "$W/R/$f" ] || { bad "reference run lacks $f"; continue; }
    cmp -s "$W/G/$f" "$W/R/$f" || ndiff=$((ndiff + 1))
done
# the test means something only if the two seeds give different files
if [ "$ndiff" -ge 3 ]; then ok; else bad "seeds 1 and 2 differ in only $ndiff files"; fi

# kill_run SIGNAL MODE: a --seed 2 run in a copy of G, killed when MODE
# (tmp: a temporary file appears; changed: some file differs from G) holds.
# Prints "tmp", "changed", "none" (the run ended first) on stdout.
kill_run() {
    local sig=$1 mode=$2 d="$W/D" hit=none pid
    rm -rf "$d"
    cp -a "$W/G" "$d"
    # a shell without job control starts background commands with SIGINT
    # ignored; give the run the default disposition back
    ( trap - INT; exec "$FPLAB" lab --quick --no-plots --seed 2 --out "$d" ) \
        > /dev/null 2>&1 &
    pid=$!
    while kill -0 "$pid" 2> /dev/null; do
        if compgen -G "$d/*.tmp.*" > /dev/null; then
            hit=tmp
        elif [ "$mode" = changed ]; then
            for f in $files; do
                if ! cmp -s "$d/$f" "$W/G/$f"; then hit=changed; break; fi
            done
        fi
        if [ "$hit" != none ]; then
            kill "-$sig" "$pid" 2> /dev/null
            break
        fi
    done
    wait "$pid" 2> /dev/null
    echo "$hit"
}

for sig in KILL INT TERM; do
    landed=0
    for mode in changed tmp changed tmp changed; do
        hit=$(kill_run "$sig" "$mode")
        [ "$hit" = none ] && continue
        old=0 new=0 broken=""
        for f in $files; do
            if cmp -s "$W/D/$f" "$W/G/$f"; then
                old=$((old + 1))
            elif cmp -s "$W/D/$f" "$W/R/$f"; then
                new=$((new + 1))
            else
                broken="$broken $f"
            fi
        done
        tmps=$(cd "$W/D" && ls | grep -c '\.tmp\.' || true)
        if [ -n "$broken" ]; then
            bad "SIG$sig ($hit): files neither the old nor the new version:$broken"
            landed=1
            break
        fi
        # mid-way: a temporary caught open, or some files already new while
        # others that the run would change are still old
        stale=0
        for f in $files; do
            if cmp -s "$W/D/$f" "$W/G/$f" && ! cmp -s "$W/G/$f" "$W/R/$f"; then
                stale=$((stale + 1))
            fi
        done
        if [ "$hit" = tmp ] || { [ "$new" -ge 1 ] && [ "$stale" -ge 1 ]; }; then
            printf 'SIG%s after "%s": %d files old, %d new, %d temporary left (removed)\n' \
                "$sig" "$hit" "$old" "$new" "$tmps"
            rm -f "$W"/D/*.tmp.*
            ok
            landed=1
            break
        fi
    done
    [ "$landed" = 1 ] || bad "SIG$sig: no kill landed mid-way in 5 tries"
done

# 2. train --out killed mid-run
"$FPLAB" train --steps 20 --out "$W/train.dat" > /dev/null 2>&1 ||
    bad "train --steps 20 failed"
cp "$W/train.dat" "$W/train.good"
"$FPLAB" train --steps 100000000 --seed 9 --out "$W/train.dat" > /dev/null 2>&1 &
pid=$!
sleep 0.5
if kill -0 "$pid" 2> /dev/null; then
    kill -KILL "$pid"
    wait "$pid" 2> /dev/null
    if cmp -s "$W/train.dat" "$W/train.good"; then ok; else bad "train killed: train.dat changed"; fi
else
    bad "train --steps 100000000 ended within 0.5 s"
fi
rm -f "$W"/train.dat.tmp.*

# 3. failed runs: previous file intact, no temporary left
printf '1,2,0\n3,nan,1\n' > "$W/nan.csv"
"$FPLAB" train --data "$W/nan.csv" --steps 1 --out "$W/train.dat" > /dev/null 2>&1
rc=$?
if [ "$rc" = 2 ] && cmp -s "$W/train.dat" "$W/train.good"; then ok; else bad "train on bad data: rc $rc or train.dat changed"; fi
if compgen -G "$W/*.tmp.*" > /dev/null; then bad "temporary left after a failed train: $(ls "$W" | grep '\.tmp\.')"; else ok; fi

mkdir -p "$W/H"
"$FPLAB" hist "$W/nan.csv" --format fp16 --out "$W/H" > /dev/null 2>&1 ||
    bad "hist on a text file failed"
cp -a "$W/H" "$W/H.good"
printf '1\nx\n' > "$W/word.txt"
"$FPLAB" hist "$W/word.txt" --format fp16 --out "$W/H" > /dev/null 2>&1
rc=$?
if [ "$rc" = 2 ] && diff -r "$W/H" "$W/H.good" > /dev/null; then ok; else bad "hist on bad text: rc $rc or the output directory changed"; fi

rm -rf "$W/D2"
cp -a "$W/G" "$W/D2"
lab --seed 2 --only training --data "$W/nan.csv" --out "$W/D2"; rc=$?
same=1
for f in $files; do cmp -s "$W/D2/$f" "$W/G/$f" || { [ "$f" = REPORT.md ] || same=0; }; done
if [ "$rc" = 2 ] && [ "$same" = 1 ]; then ok; else bad "lab with a failing experiment: rc $rc or a data file changed"; fi
if compgen -G "$W/D2/*.tmp.*" > /dev/null; then bad "temporary left after a failed lab experiment"; else ok; fi

printf 'nothing_lost: %d checks, %d failed\n' "$checks" "$fails"
[ "$fails" = 0 ] && [ "$checks" = 10 ]
