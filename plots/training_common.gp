# plots/training_common.gp — the layout every training figure shares; loaded
# by plots/training_<setting>.gp after it sets
#   SETTING  default | deep | tiny | adam
#   names    the policies, in the order of the data files' blocks
#   NC       small multiples per row
#   RIGHT    what the bottom-right panel shows: "scale" or "lost"
#   SWEEP    1: the last small-multiple slot shows the loss-weight sweep
# Data: training_<setting>.dat (per step, over the seeds) and
# training_<setting>_seeds.dat (per policy and seed; per policy; groups and
# verdicts).  Every panel shows a paired quantity: a policy against
# binary32 in the same seed.
fc = dir."/training_".SETTING.".dat"
PTS = "7 5 9 11 13 4 6 8"
fs = dir."/training_".SETTING."_seeds.dat"
NP = words(names)
if (!exists("SWEEP")) SWEEP = 0
if (!exists("MARGIN")) MARGIN = 1.0
NSLOT = NP - 1 + SWEEP
NR = int((NSLOT + NC - 1) / NC)

stats fs index 1 using 3 nooutput
NS = int(STATS_max)
stats fs index 0 using 3 nooutput
SEED0 = int(STATS_min)
stats fc using 1 nooutput
STEPS = int(STATS_max)
# the ratio range over every policy's band (binary32's own is 1)
stats fc using 14 nooutput
RMIN = STATS_min < 1 ? STATS_min : 1
stats fc using 15 nooutput
RMAX = STATS_max > 1 ? STATS_max : 1
# a log axis where the ratios span a factor of 4 or more, else linear
LOGR = RMAX / RMIN >= 4
RLO = LOGR ? RMIN / 1.6 : RMIN - 0.15 * (RMAX - RMIN) - 0.01
RHI = LOGR ? RMAX * 1.6 : RMAX + 0.25 * (RMAX - RMIN) + 0.01

set multiplot title sprintf("Training against binary32, seed by seed: %s setting, %d seeds (%d..%d)", \
                            SETTING, NS, SEED0, SEED0 + NS - 1)

# ---- small multiples: loss / binary32's loss per step --------------------
GL = 0.07; GR = 0.98; GT = 0.935; GB = 0.47
gw = (GR - GL) / NC
gh = (GT - GB) / NR
if (LOGR) { set logscale y 10 } else { unset logscale y }
set yrange [RLO : RHI]
# on a log axis spanning less than two decades, a tic at every factor of 2
if (LOGR && RHI / RLO < 100) { set ytics 2 } else { set ytics autofreq }
set xrange [-0.02 * STEPS : 1.02 * STEPS]
set xtics format ""
set ytics format ""
set mxtics 1
unset key
set style fill transparent solid 0.3 noborder
do for [i = 2:NP] {
    nm = word(names, i)
    r = int((i - 2) / NC)
    c = (i - 2) % NC
    eval panel(GL + c * gw + 0.012, GL + (c + 1) * gw - 0.004, GT - (r + 1) * gh + 0.02, GT - r * gh - 0.025)
    # the group: the first policy bit-identical to this one in every seed
    stats [*:*][*:*] fs index 2 every ::(i - 1)::(i - 1) using 3 nooutput
    G = int(STATS_min)
    if (G == i - 1) {
        set title sprintf("%s (%s)", plab(nm), nm) font ",9" offset 0,-0.6
    } else {
        set title sprintf("%s: bit-identical to %s", nm, word(names, G + 1)) font ",9" offset 0,-0.6
    }
    set ytics format (c == 0 ? "%g" : "")
    set ylabel (c == 0 ? "loss / binary32's" : "")
    set xtics format (r == NR - 1 || i - 1 + NC > NSLOT ? "%g" : "")
    set xlabel (r == NR - 1 || i - 1 + NC > NSLOT ? "step" : "") offset 0,0.5
    # the first step at which a seed's loss is non-finite (1e9: none)
    stats [*:*][*:*] fc index (i - 1) using ($5 < NS ? $1 : 1e9) nooutput
    FIRST = STATS_min
    stats [*:*][*:*] fc index (i - 1) using 5 nooutput
    NDIV = NS - int(STATS_min)
    unset label 1
    unset arrow 1
    if (FIRST < 1e9) {
        set label 1 sprintf("diverged: %d of %d seeds non-finite from step %d", NDIV, NS, FIRST) \
            at graph 0.06, graph 0.55 font ",8" tc rgb C_VERM front
        set arrow 1 from FIRST, graph 0 to FIRST, graph 0.8 nohead dt 2 lc rgb C_VERM
    }
    plot 1 with lines lw 1 dt 2 lc rgb C_BLACK, \
         fc index (i - 1) using 1:14:15 with filledcurves fc rgb tcol(nm), \
         fc index (i - 1) using 1:13 with lines lw 1.2 lc rgb tcol(nm), \
         fc index (i - 1) using ($5 < NS && $1 == FIRST ? $1 : 1/0):(LOGR ? RHI / 1.3 : RHI - 0.1 * (RHI - RLO)) with points pt 2 ps 2.5 lw 3 lc rgb C_VERM
}
unset label 1
unset arrow 1

# ---- the loss-weight sweep (tiny) in the last slot ------------------------
if (SWEEP) {
    fw = dir."/training_tiny_sweep.dat"
    i = NP
    r = int((i - 1) / NC)
    c = (i - 1) % NC
    eval panel(GL + c * gw + 0.035, GL + (c + 1) * gw - 0.004, GT - (r + 1) * gh + 0.02, GT - r * gh - 0.025)
    set title "sweep: test accuracy against W" font ",10" offset 0,-0.6
    unset logscale y
    set format y "%g"
    set ytics format "%g" font ",8"
    set ylabel "%" offset 1.5,0
    set xrange [-21.5:-6.5]
    set xtics ("2^{-20}" -20, "2^{-16}" -16, "2^{-12}" -12, "2^{-8}" -8) format "%g" font ",8"
    set xlabel "loss weight W" offset 0,0.5
    set yrange [-8:112]
    set ytics 0, 20, 100
    set key at graph 0.98, graph 0.42 right top font ",7" samplen 1.5 spacing 0.9 opaque
    plot fw index 2 using 1:($6 - $7):($6 + $7) with filledcurves fc rgb C_GREY title "binary32 ± sd", \
         fw index 2 using 1:2:3 with yerrorlines pt 7 ps 0.6 lc rgb pcol("fp16") title "fp16, unscaled", \
         fw index 2 using ($1 + 0.3):4:5 with yerrorlines pt 5 ps 0.6 lc rgb pcol("fp16-torch") title "GradScaler"
    unset key
    set xtics font ",11"
    set ytics font ",11"
}

# ---- bottom left: per-seed accuracy differences against binary32 ---------
unset logscale y
set format y "%g"
set ytics format "%g"
set xtics format "%g"
eval panel(0.07, 0.46, 0.12, 0.40)
set title "test accuracy minus binary32's, per seed (dots); mean and 95% interval (bar)" font ",10" offset 0,0
set xlabel ""
set ylabel "difference (points)" offset 0,0
set xrange [0.4 : NP - 0.4]
stats [*:*][*:*] fs index 0 using ($1 > 0 ? $20 : 1/0) nooutput
DMIN = STATS_min
DMAX = STATS_max
stats [*:*][*:*] fs index 2 using ($1 > 0 ? $4 - $5 : 1/0) nooutput
DMIN = STATS_min < DMIN ? STATS_min : DMIN
stats [*:*][*:*] fs index 2 using ($1 > 0 ? $4 + $5 : 1/0) nooutput
DMAX = STATS_max > DMAX ? STATS_max : DMAX
DMIN = DMIN > -1.5 * MARGIN ? -1.5 * MARGIN : DMIN
DMAX = DMAX < 1.5 * MARGIN ? 1.5 * MARGIN : DMAX
DSPAN = DMAX - DMIN
set yrange [DMIN - 0.08 * DSPAN : DMAX + 0.22 * DSPAN]
set xtics () rotate by 25 right font ",8"
do for [i = 2:NP] { set xtics add (plab(word(names, i)) i - 1) }
set ytics auto
set arrow 2 from graph 0, first MARGIN to graph 1, first MARGIN nohead dt 2 lc rgb C_GREY
set arrow 3 from graph 0, first -MARGIN to graph 1, first -MARGIN nohead dt 2 lc rgb C_GREY
set arrow 4 from graph 0, first 0 to graph 1, first 0 nohead lc rgb C_BLACK lw 0.8
jit(k) = (k - SEED0 - (NS - 1) / 2.0) * 0.07
plot for [i = 2:NP] fs index 0 using ($1 == i - 1 ? $1 + jit($3) : 1/0):20 \
         with points pt 7 ps 0.7 lc rgb tcol(word(names, i)), \
     fs index 2 using ($1 > 0 ? $1 + 0.3 : 1/0):4:5 with yerrorbars pt 5 ps 0.5 lw 1.5 lc rgb C_BLACK, \
     fs index 2 using ($1 > 0 ? $1 : 1/0):(DMAX + 0.11 * DSPAN):(stringcolumn(6)) with labels font ",8" tc rgb C_BLACK
unset arrow 2
unset arrow 3
unset arrow 4
set xtics norotate font ",11"

# ---- bottom right: the loss scale or the lost updates per step -----------
eval panel(0.55, 0.73, 0.12, 0.40)
set xrange [-0.03 * STEPS : 1.04 * STEPS]
XT = STEPS >= 300 ? 100 : STEPS >= 100 ? 50 : STEPS >= 20 ? 5 : 2
set xtics () 0, XT
set xlabel "step" offset 0,0.5
set key at screen 0.74, 0.40 left top Left reverse font ",9" samplen 2 spacing 1.05
if (RIGHT eq "scale") {
    set title "loss scale per step (first seed); skipped steps ×" font ",10"
    set logscale y 2
    set format y "2^{%L}"
    set yrange [2**-2 : 2**23]
    set ytics 2**4
    set ylabel "loss scale"
    # policies with the same scale share a line: each also marks every
    # MK-th step, shifted by policy, with its own symbol, so all stay visible
    MK = int(STEPS / 12)
    plot for [i = 1:NP] fc index (i - 1) using 1:6 with steps lw 1.5 lc rgb tcol(word(names, i)) notitle, \
         for [i = 1:NP] fc index (i - 1) every MK::(int((i - 1) * MK / NP)) using 1:6 with points \
             pt 0+word(PTS, i) ps 1.1 lc rgb tcol(word(names, i)) notitle, \
         for [i = 1:NP] NaN with linespoints lw 1.5 pt 0+word(PTS, i) lc rgb tcol(word(names, i)) \
             title plab(word(names, i)), \
         for [i = 1:NP] fc index (i - 1) using ($7 > 0 ? $1 : 1/0):6 with points pt 2 ps 2 lw 2 \
             lc rgb tcol(word(names, i)) notitle
} else {
    set title "fraction of weight updates lost per step (mean over the seeds)" font ",10"
    set yrange [-0.06:1.06]
    set ytics 0.2
    set ylabel "lost (w + dw == w)"
    MK = int(STEPS / 12)
    plot for [i = 1:NP] fc index (i - 1) using 1:9 with lines lw 1.5 lc rgb tcol(word(names, i)) notitle, \
         for [i = 1:NP] fc index (i - 1) every MK::(int((i - 1) * MK / NP)) using 1:9 with points \
             pt 0+word(PTS, i) ps 1.1 lc rgb tcol(word(names, i)) notitle, \
         for [i = 1:NP] NaN with linespoints lw 1.5 pt 0+word(PTS, i) lc rgb tcol(word(names, i)) \
             title plab(word(names, i))
}
unset multiplot
