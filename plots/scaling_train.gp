# plots/scaling_train.gp — experiment 7: training with FP8 and MX matrix
# products against binary32 and GradScaler.  Keep 'names' in step with
# exp_scaling.c's policy list.
# Data: scaling_train.dat (per step, over the seeds; one block per policy)
# and scaling_train_seeds.dat (per policy and seed; per policy).
STEM = "scaling_train"; W = 1400; H = 900
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"
names = "fp32 fp16-torch-i50 fp8-hybrid-delayed fp8-e4m3-current mxfp8"
PTS = "7 5 9 11 13"
fc = dir."/scaling_train.dat"
fs = dir."/scaling_train_seeds.dat"
NP = words(names)

stats fs index 1 using 3 nooutput
NS = int(STATS_max)
stats fs index 0 using 3 nooutput
SEED0 = int(STATS_min)
stats fc using 1 nooutput
STEPS = int(STATS_max)
stats fc using 3 nooutput
LMIN = STATS_min
stats fc using 4 nooutput
LMAX = STATS_max

set multiplot title sprintf("Training with FP8 and MX matrix products, deep setting, %d seeds (%d..%d)", \
                            NS, SEED0, SEED0 + NS - 1)
# ---- small multiples: training loss per step -------------------------------
GL = 0.07; GR = 0.98; GT = 0.90; GB = 0.56
gw = (GR - GL) / NP
set logscale y 10
set format y "10^{%L}"
set yrange [LMIN / 3 : LMAX * 6]
set xrange [-0.02 * STEPS : 1.02 * STEPS]
unset key
set style fill transparent solid 0.3 noborder
do for [i = 1:NP] {
    nm = word(names, i)
    eval panel(GL + (i - 1) * gw + 0.012, GL + i * gw - 0.004, GB, GT)
    set title nm font ",10" offset 0,-0.6
    set ytics format (i == 1 ? "10^{%L}" : "")
    set ylabel (i == 1 ? "training loss" : "")
    set xtics format "%g" font ",9"
    set xlabel "step" offset 0,0.5
    # the first step at which a seed's loss is non-finite (1e9: none)
    stats [*:*][*:*] fc index (i - 1) using ($5 < NS ? $1 : 1e9) nooutput
    FIRST = STATS_min
    unset label 1
    if (FIRST < 1e9) {
        set label 1 sprintf("diverged from step %d", FIRST) at graph 0.04, graph 0.9 font ",8" tc rgb C_VERM front
    }
    plot fc index (i - 1) using 1:3:4 with filledcurves fc rgb pcol(nm), \
         fc index (i - 1) using 1:2 with lines lw 1.2 lc rgb pcol(nm), \
         fc index 0 using 1:2 with lines lw 1 lc rgb "#80404040", \
         fc index (i - 1) using ($5 < NS && $1 == FIRST ? $1 : 1/0):(LMAX * 2) with points pt 2 ps 2.5 lw 3 lc rgb C_VERM
}
unset label 1

# ---- bottom left: test accuracy minus binary32's, seed by seed -----------
# (the lab's verdicts rest on these paired differences: block 3 per seed,
# block 4 the mean with its 95% interval and the verdict)
unset logscale y
set format y "%g"
set ytics format "%g" font ",10"
set xtics format "%g"
eval panel(0.07, 0.46, 0.13, 0.44)
set title "test accuracy minus binary32's, per seed (dots); mean and 95% interval (bar)" font ",10" offset 0,0
set xlabel ""
set ylabel "difference (points)" offset 0,0
set xrange [0.4 : NP - 0.4]
stats [*:*][*:*] fs index 3 using 4 nooutput
DMIN = STATS_min
DMAX = STATS_max
stats [*:*][*:*] fs index 4 using ($3 + $4) nooutput
DMAX = STATS_max > DMAX ? STATS_max : DMAX
stats [*:*][*:*] fs index 4 using ($3 - $4) nooutput
DMIN = STATS_min < DMIN ? STATS_min : DMIN
DMAX = DMAX > 0.5 ? DMAX : 0.5
DMIN = DMIN < -0.5 ? DMIN : -0.5
DSPAN = DMAX - DMIN
set yrange [DMIN - 0.12 * DSPAN : DMAX + 0.30 * DSPAN]
set xtics () rotate by 20 right font ",9"
do for [i = 2:NP] { set xtics add (word(names, i) i - 1) }
set ytics auto
set arrow 6 from graph 0, first 0 to graph 1, first 0 nohead lw 1 lc rgb C_BLACK back
jit(k) = (k - SEED0 - (NS - 1) / 2.0) * 0.06
plot for [i = 2:NP] fs index 3 using ($1 == i - 1 ? $1 + jit($3) : 1/0):4 \
         with points pt 7 ps 0.7 lc rgb pcol(word(names, i)), \
     fs index 4 using ($1 + 0.30):3:4 with yerrorbars pt 5 ps 0.5 lw 1.5 lc rgb C_BLACK, \
     fs index 4 using 1:(DMAX + 0.15 * DSPAN):5 with labels font ",9" tc rgb C_BLACK
unset arrow 6
set xtics norotate font ",10"

# ---- bottom right: output-gradient values the quantizer flushed ------------
eval panel(0.55, 0.80, 0.13, 0.44)
set title "output-gradient values flushed to zero per step (mean over the seeds)" font ",10"
set xrange [-0.03 * STEPS : 1.04 * STEPS]
set xtics () auto
set xlabel "step" offset 0,0.5
set ylabel "% of the nonzero values"
stats [*:*][*:*] fc index 2:4 using (100.0 * $8) nooutput
set yrange [-0.05 * STATS_max : 1.12 * STATS_max]
set key at screen 0.81, 0.44 left top Left reverse font ",9" samplen 2 spacing 1.1
MK = int(STEPS / 12)
plot for [i = 3:NP] fc index (i - 1) using 1:(100.0 * $8) with lines lw 1.2 lc rgb pcol(word(names, i)) notitle, \
     for [i = 3:NP] fc index (i - 1) every MK::(int((i - 3) * MK / 3)) using 1:(100.0 * $8) with points \
         pt 0+word(PTS, i) ps 1.1 lc rgb pcol(word(names, i)) notitle, \
     for [i = 3:NP] NaN with linespoints lw 1.5 pt 0+word(PTS, i) lc rgb pcol(word(names, i)) title word(names, i)
unset multiplot
