# plots/training_common.gp — the layout every training figure shares; loaded
# by plots/training_<setting>.gp after it sets
#   SETTING  default | deep | tiny | adam
#   names    the policies, in the order of the data files' blocks
#   NC       small multiples per row
#   RIGHT    what the bottom-right panel shows: "scale" or "lost"
#   SWEEP    1: the last small-multiple slot shows the loss-weight sweep
# Data: training_<setting>.dat (per step, over the seeds) and
# training_<setting>_seeds.dat (per policy and seed; per policy).
fc = dir."/training_".SETTING.".dat"
PTS = "7 5 9 11 13 4 6 8"
fs = dir."/training_".SETTING."_seeds.dat"
NP = words(names)
if (!exists("SWEEP")) SWEEP = 0
NSLOT = NP + SWEEP
NR = int((NSLOT + NC - 1) / NC)

stats fs index 1 using 3 nooutput
NS = int(STATS_max)
stats fs index 0 using 3 nooutput
SEED0 = int(STATS_min)
stats fc using 1 nooutput
STEPS = int(STATS_max)
# the loss range over every policy's band
stats fc using 3 nooutput
LMIN = STATS_min
stats fc using 4 nooutput
LMAX = STATS_max

set multiplot title sprintf("Training curves per precision policy: %s setting, %d seeds (%d..%d)", \
                            SETTING, NS, SEED0, SEED0 + NS - 1)

# ---- small multiples: training loss per step ------------------------------
GL = 0.07; GR = 0.98; GT = 0.935; GB = 0.47
gw = (GR - GL) / NC
gh = (GT - GB) / NR
set logscale y 10
set format y "10^{%L}"
set yrange [LMIN / 3 : LMAX * 6]
set xrange [-0.02 * STEPS : 1.02 * STEPS]
set xtics format ""
set ytics format ""
set mxtics 1
unset key
set style fill transparent solid 0.3 noborder
do for [i = 1:NP] {
    nm = word(names, i)
    r = int((i - 1) / NC)
    c = (i - 1) % NC
    eval panel(GL + c * gw + 0.012, GL + (c + 1) * gw - 0.004, GT - (r + 1) * gh + 0.02, GT - r * gh - 0.025)
    set title nm font ",10" offset 0,-0.6
    set ytics format (c == 0 ? "10^{%L}" : "")
    set ylabel (c == 0 ? "loss" : "")
    set xtics format (r == NR - 1 || i + NC > NSLOT ? "%g" : "")
    set xlabel (r == NR - 1 || i + NC > NSLOT ? "step" : "") offset 0,0.5
    # the first step at which a seed's loss is non-finite (1e9: none)
    stats [*:*][*:*] fc index (i - 1) using ($5 < NS ? $1 : 1e9) nooutput
    FIRST = STATS_min
    stats [*:*][*:*] fc index (i - 1) using 5 nooutput
    NDIV = NS - int(STATS_min)
    unset label 1
    unset arrow 1
    if (FIRST < 1e9) {
        set label 1 sprintf("diverged: %d of %d seeds non-finite from step %d", NDIV, NS, FIRST) \
            at graph 0.04, graph 0.88 font ",8" tc rgb C_VERM front
        set arrow 1 from FIRST, graph 0 to FIRST, graph 0.8 nohead dt 2 lc rgb C_VERM
    }
    # binary32's mean on top, half transparent, so that a curve that
    # coincides with it still shows both
    plot fc index (i - 1) using 1:3:4 with filledcurves fc rgb pcol(nm), \
         fc index (i - 1) using 1:2 with lines lw 1.2 lc rgb pcol(nm), \
         fc index 0 using 1:2 with lines lw 1 lc rgb "#80404040", \
         fc index (i - 1) using ($5 < NS && $1 == FIRST ? $1 : 1/0):(LMAX * 2) with points pt 2 ps 2.5 lw 3 lc rgb C_VERM
}
unset label 1
unset arrow 1

# ---- the loss-weight sweep (tiny) in the last slot ------------------------
if (SWEEP) {
    fw = dir."/training_tiny_sweep.dat"
    i = NP + 1
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
    set yrange [*:*]
    set offsets 0, 0, graph 0.1, graph 0.1
    set yrange [-8:112]
    set ytics 0, 20, 100
    set offsets 0, 0, 0, 0
    set key at graph 0.97, graph 0.62 right top font ",7" samplen 1.5 spacing 0.9 opaque
    plot fw index 2 using 1:($6 - $7):($6 + $7) with filledcurves fc rgb C_GREY title "fp32 ± sd", \
         fw index 2 using 1:2:3 with yerrorlines pt 7 ps 0.6 lc rgb pcol("fp16") title "fp16", \
         fw index 2 using ($1 + 0.3):4:5 with yerrorlines pt 5 ps 0.6 lc rgb pcol("fp16-torch") title "GradScaler"
    unset key
    set offsets 0, 0, 0, 0
    set xtics font ",11"
    set ytics font ",11"
}

# ---- bottom left: final test accuracy of every seed ----------------------
unset logscale y
set format y "%g"
set ytics format "%g"
set xtics format "%g"
eval panel(0.07, 0.46, 0.09, 0.38)
set title "final test accuracy: every seed (dots), mean ± sd (bar); grey band: binary32's mean ± sd" font ",10" offset 0,0
set xlabel ""
set ylabel "test accuracy %" offset 0,0
set xrange [-0.6 : NP - 0.4]
stats [*:*][*:*] fs index 0 using (100.0 * $4 / $5) nooutput
AMIN = STATS_min
AMAX = STATS_max
# the bars (mean +- sd) may reach beyond the dots
stats [*:*][*:*] fs index 1 using ($4 + $5) nooutput
AMAX = STATS_max > AMAX ? STATS_max : AMAX
stats [*:*][*:*] fs index 1 using ($4 - $5) nooutput
AMIN = STATS_min < AMIN ? STATS_min : AMIN
ASPAN = AMAX - AMIN > 1 ? AMAX - AMIN : 1
# a margin around the dots, but no room above 100% beyond what is needed
ATOP = AMAX + 0.15 * ASPAN > 100 ? (AMAX + 0.04 * ASPAN > 100 ? AMAX + 0.04 * ASPAN : 100) : AMAX + 0.15 * ASPAN
set yrange [AMIN - 0.15 * ASPAN : ATOP]
set xtics () rotate by 25 right font ",9"
do for [i = 1:NP] { set xtics add (word(names, i) i - 1) }
set ytics auto
stats [*:*][*:*] fs index 1 every ::0::0 using 4 nooutput
M0 = STATS_min
stats [*:*][*:*] fs index 1 every ::0::0 using 5 nooutput
S0 = STATS_min
set object 5 rect from graph 0, first (M0 - S0) to graph 1, first (M0 + S0) \
    fc rgb C_LIGHT fs transparent solid 0.5 noborder behind
jit(k) = (k - SEED0 - (NS - 1) / 2.0) * 0.08
plot for [i = 1:NP] fs index 0 using ($1 == i - 1 ? $1 + jit($3) : 1/0):(100.0 * $4 / $5) \
         with points pt 7 ps 0.7 lc rgb pcol(word(names, i)), \
     fs index 1 using ($1 + 0.34):4:5 with yerrorbars pt 5 ps 0.5 lw 1.5 lc rgb C_BLACK
unset object 5
set xtics norotate font ",11"

# ---- bottom right: the loss scale or the lost updates per step -----------
eval panel(0.55, 0.80, 0.09, 0.38)
set xrange [-0.03 * STEPS : 1.04 * STEPS]
set xtics () auto
set xlabel "step" offset 0,0.5
set key at screen 0.81, 0.38 left top Left reverse font ",9" samplen 2 spacing 1.05
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
    plot for [i = 1:NP] fc index (i - 1) using 1:6 with steps lw 1.5 lc rgb pcol(word(names, i)) notitle, \
         for [i = 1:NP] fc index (i - 1) every MK::(int((i - 1) * MK / NP)) using 1:6 with points \
             pt 0+word(PTS, i) ps 1.1 lc rgb pcol(word(names, i)) notitle, \
         for [i = 1:NP] NaN with linespoints lw 1.5 pt 0+word(PTS, i) lc rgb pcol(word(names, i)) \
             title word(names, i), \
         for [i = 1:NP] fc index (i - 1) using ($7 > 0 ? $1 : 1/0):6 with points pt 2 ps 2 lw 2 \
             lc rgb pcol(word(names, i)) notitle
} else {
    set title "fraction of weight updates lost per step (mean over the seeds)" font ",10"
    set yrange [-0.06:1.06]
    set ytics 0.2
    set ylabel "lost (w + dw == w)"
    MK = int(STEPS / 12)
    plot for [i = 1:NP] fc index (i - 1) using 1:9 with lines lw 1.5 lc rgb pcol(word(names, i)) notitle, \
         for [i = 1:NP] fc index (i - 1) every MK::(int((i - 1) * MK / NP)) using 1:9 with points \
             pt 0+word(PTS, i) ps 1.1 lc rgb pcol(word(names, i)) notitle, \
         for [i = 1:NP] NaN with linespoints lw 1.5 pt 0+word(PTS, i) lc rgb pcol(word(names, i)) \
             title word(names, i)
}
unset multiplot
