#!/usr/bin/env bash
# fplab train --hist-out: one histogram row per step, layer and kind, whose
# counts add up to the number of values; the same seed gives the same bytes.
set -euo pipefail
fplab=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$fplab" train --policy fp16-torch --steps 4 --depth 3 --hist-out "$dir/a.dat" >/dev/null
"$fplab" train --policy fp16-torch --steps 4 --depth 3 --hist-out "$dir/b.dat" >/dev/null
cmp "$dir/a.dat" "$dir/b.dat"
rows=$(grep -vc '^#' "$dir/a.dat")
[ "$rows" -eq 24 ] || { echo "expected 24 rows (4 steps x 3 layers x 2 kinds), got $rows"; exit 1; }
# columns: step layer kind scale total zeros nonfinite below above bins...
bad=$(awk '!/^#/ { s = $6 + $7 + $8 + $9; for (i = 10; i <= NF; i++) s += $i;
                   if (s != $5 || NF != 9 + 84 || $4 != 65536) n++ } END { print n + 0 }' "$dir/a.dat")
[ "$bad" -eq 0 ] || { echo "$bad rows whose counts do not add up (or wrong width/scale)"; exit 1; }
ls "$dir"/*.tmp.* 2>/dev/null && { echo "temp file left behind"; exit 1; }
echo "train_hist: 24 rows checked"
