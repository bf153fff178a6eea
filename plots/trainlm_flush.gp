# plots/trainlm_flush.gp — experiment 10: the activation gradients binary16
# flushes to zero without loss scaling, per layer, against the tokens a step
# averages over.  Data: trainlm_flush.dat (block 0: the runs, per policy,
# seed and layer; block 1: the binary32 runs' what-if, per k and layer).
STEM = "trainlm_flush"; W = 960; H = 620
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
f = dir."/trainlm_flush.dat"
set title "Activation gradients flushed to zero by binary16 without loss scaling" font ",13"
set xlabel "tokens averaged per step (log scale)"
set ylabel "flushed (% of the nonzero output gradients)"
set logscale x 2
set format x "2^{%L}"
set xtics 4
set yrange [-4:104]
set ytics 0, 20, 100
set key at graph 0.03, graph 0.97 left top Left reverse font ",10" spacing 1.1 opaque box
# the fp16 runs' measured fractions per layer, over every seed
stats [*:*][*:*] f index 0 using ($3 == 0 && strcol(1) eq "fp16" ? $4 - $5 - $6 : 0) nooutput
L0 = STATS_sum
stats [*:*][*:*] f index 0 using ($3 == 0 && strcol(1) eq "fp16" ? $7 : 0) nooutput
F0 = STATS_sum
stats [*:*][*:*] f index 0 using ($3 == 1 && strcol(1) eq "fp16" ? $4 - $5 - $6 : 0) nooutput
L1 = STATS_sum
stats [*:*][*:*] f index 0 using ($3 == 1 && strcol(1) eq "fp16" ? $7 : 0) nooutput
F1 = STATS_sum
stats [*:*][*:*] f index 0 using ($3 == 2 && strcol(1) eq "fp16" ? $4 - $5 - $6 : 0) nooutput
L2 = STATS_sum
stats [*:*][*:*] f index 0 using ($3 == 2 && strcol(1) eq "fp16" ? $7 : 0) nooutput
F2 = STATS_sum
stats [*:*][*:*] f index 1 using 2 nooutput
T0 = STATS_min
FALL = 100.0 * (F0 + F1 + F2) / (L0 + L1 + L2)
set arrow 1 from graph 0, first FALL to graph 1, first FALL nohead dt 2 lc rgb C_GREY
set label 1 sprintf("fp16 runs, all layers: %.2f%%", FALL) at graph 0.98, first FALL + 3 right font ",9" tc rgb C_GREY
# experiment 6's tiny setting: loss weight 2^-16 over batches of 64 is the
# per-token factor of a mean over 2^22 tokens
set arrow 2 from 2**22, graph 0 to 2**22, graph 1 nohead dt 3 lc rgb C_BLACK
set label 2 "experiment 6, tiny: the per-token\nfactor of a mean over 2^{22} tokens" at 2**22 * 1.4, graph 0.16 left font ",9"
set xrange [2**8 : 2**33]
# block 1 holds k-major rows, one per layer: every 3rd row from row l is layer l
plot f index 1 every 3::0 using 2:(100.0 * $5 / $4) with linespoints lw 2 pt 7 ps 0.8 lc rgb C_BLUE title "layer 1", \
     f index 1 every 3::1 using 2:(100.0 * $5 / $4) with linespoints lw 2 pt 5 ps 0.8 lc rgb C_GREEN title "layer 2", \
     f index 1 every 3::2 using 2:(100.0 * $5 / $4) with linespoints lw 2 pt 9 ps 0.9 lc rgb C_VERM title "layer 3 (logits)", \
     "+" using (T0):(100.0 * F0 / L0) every ::0::0 with points pt 2 ps 2.2 lw 2.5 lc rgb C_BLUE notitle, \
     "+" using (T0):(100.0 * F1 / L1) every ::0::0 with points pt 2 ps 2.2 lw 2.5 lc rgb C_GREEN notitle, \
     "+" using (T0):(100.0 * F2 / L2) every ::0::0 with points pt 2 ps 2.2 lw 2.5 lc rgb C_VERM title "fp16 runs (×), 512 tokens"
