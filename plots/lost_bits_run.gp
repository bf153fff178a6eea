# plots/lost_bits_run.gp — experiment 4: the long run of small updates with
# N supplied random bits, per P3109 3.1 variant
STEM = "lost_bits_run"; W = 1100; H = 620
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/lost_bits_run.dat"
# columns: run variant nbits w0 dw exact_end diff_mean diff_se kept_mean
#          end_1 .. end_K   (diff: (end - exact)/|dw|, in updates)
# a symmetric logarithmic axis: sl(y) = sign(y) log10(1 + |y|)
sl(y) = (y < 0 ? -1 : 1) * log10(1 + abs(y))
VN = "stochastic stochastic-odd fast fastest"
vcol(i) = word(C_BLUE." ".C_SKY." ".C_GREEN." ".C_VERM, i)
vpt(i) = i == 1 ? 5 : i == 2 ? 9 : i == 3 ? 13 : 7
sel(run, v) = strcol(1) eq run && strcol(2) eq v
RUNS = "shrinks grows"

set xrange [0.4:16.6]
set xtics 1
set yrange [-4.05:4.05]
set ytics ("-1000" sl(-1000), "-100" sl(-100), "-10" sl(-10), "0" 0, \
           "10" sl(10), "100" sl(100), "1000" sl(1000))
set grid ytics
set xlabel "N: random bits"
unset key
set multiplot title "A weight after many updates of 0.2 spacings, rounded with N random bits: end value minus the exact end, in updates"
do for [p=1:2] {
    run = word(RUNS, p)
    eval panel(p == 1 ? 0.08 : 0.56, p == 1 ? 0.47 : 0.95, 0.22, 0.86)
    set title (p == 1 ? "|w| shrinks: w = 1, updates of -10^{-4}" : "|w| grows: w = 0.5, updates of +10^{-4}")
    if (p == 1) { set ylabel "(end - exact) / |dw|   (symmetric log axis)" } else { unset ylabel }
    # full width's mean ± 2 standard errors
    stats [*:*][*:*] f using (sel(run, "full") ? $7 - 2*$8 : NaN) nooutput
    FLO = STATS_min
    stats [*:*][*:*] f using (sel(run, "full") ? $7 + 2*$8 : NaN) nooutput
    FHI = STATS_max
    set object 1 rect from graph 0, first -4.05 to graph 1, first 0 fc rgb "#fbeee6" fs solid 1.0 noborder behind
    set object 2 rect from graph 0, first sl(FLO) to graph 1, first sl(FHI) fc rgb C_GREY fs transparent solid 0.45 noborder behind
    plot for [i=1:4] f using ($3 + (i - 2.5) * 0.14):(sel(run, word(VN, i)) ? sl($7) : NaN) \
             with lines lw 1.5 lc rgb vcol(i), \
         for [i=1:4] f using ($3 + (i - 2.5) * 0.14):(sel(run, word(VN, i)) ? sl($7) : NaN): \
             (sl($7 - 2*$8)):(sl($7 + 2*$8)) with yerrorbars pt vpt(i) ps 0.8 lc rgb vcol(i)
    unset object 1; unset object 2
}

# the legend, below both panels
unset title
set key at screen 0.5, 0.06 center center horizontal maxcols 3 maxrows 2 samplen 2 font ",10" width 1 spacing 1.2
unset border; unset tics; unset xlabel; unset ylabel; unset grid
set xrange [0:1]; set yrange [0:1]
eval panel(0.02, 0.98, 0.01, 0.11)
plot NaN with boxes fs solid 1.0 noborder fc rgb "#fbeee6" title "below 0: ends closer to zero", \
     NaN with boxes fs transparent solid 0.45 noborder fc rgb C_GREY title "full width: mean ± 2 s.e.", \
     for [i=1:4] NaN with linespoints lw 1.5 pt vpt(i) ps 0.8 lc rgb vcol(i) title word(VN, i)
unset multiplot
