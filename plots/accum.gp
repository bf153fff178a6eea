# plots/accum.gp — experiment 5: accumulation error vs N
STEM = "accum"; W = 1150; H = 780
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/accum.dat"
# block 0 columns: N sum_err_{b16 b16sr b32 kahan} dot_err_{b16 b16sr b32 kahan}
#   exact_sum exact_dot b16_sum b16_dot sum_err_tc dot_err_tc b16sr_sum b16sr_dot
# the events (accum.dat block 1): the last term that moved the round-to-
# nearest binary16 accumulator (it stalls there), the term at which the
# exact sum passes binary16's largest finite value, and the term at which
# the stochastically rounded accumulator overflows; NaN when absent
array EV[6]
evn = "binary16_sum_last_change exact_sum_exceeds_max binary16_sr_sum_overflow binary16_dot_last_change exact_dot_exceeds_max binary16_sr_dot_overflow"
do for [i = 1:6] {
    stats f index 1 using (strcol(1) eq word(evn, i) ? $2 : 0) nooutput
    EV[i] = STATS_max > 0 ? STATS_max : NaN
}
# errors that are exactly 0 are drawn on a row of their own at the bottom,
# errors of an accumulator that overflowed (inf) on a row at the top.
ZROW = 1e-13
IROW = 1e2
pos(v) = (v > 0 && v < 1e300) ? v : 1/0
# one sub-row per accumulator inside the zero band, so markers do not hide
zrow(i) = ZROW * 10**(0.3 * (i - 3))
zero(v, i) = v == 0 ? zrow(i) : 1/0
isinf(v) = v > 1e300 ? IROW : 1/0
names = "binary16 (round to nearest)|binary16 (stochastic rounding)|binary32|binary32 Kahan|H100 tensor-core model"
nm(i) = i == 1 ? "binary16 accumulator, round to nearest" : i == 2 ? "binary16 accumulator, stochastic rounding" : \
        i == 3 ? "binary32 accumulator" : i == 4 ? "binary32, Kahan" : "H100 tensor-core model"
cols = C_VERM." ".C_ORANGE." ".C_BLUE." ".C_GREEN." ".C_PURPLE
pts = "7 5 9 13 11"
# columns of the sum panel and the dot panel, per accumulator
csum(i) = i == 5 ? 14 : 1 + i
cdot(i) = i == 5 ? 15 : 5 + i
set logscale xy 10
set format x "10^{%L}"
set xrange [6:1.6e6]
set yrange [1.2e-14:4e2]
set ytics ("10^{-10}" 1e-10, "10^{-8}" 1e-8, "10^{-6}" 1e-6, "10^{-4}" 1e-4, \
           "10^{-2}" 1e-2, "1" 1, "0" ZROW, "inf" IROW)
set arrow 1 from graph 0, first 1.5e-12 to graph 1, first 1.5e-12 nohead dt 3 lc rgb C_GREY
set arrow 2 from graph 0, first 1e1 to graph 1, first 1e1 nohead dt 3 lc rgb C_GREY
set xlabel "N (terms)"
unset key
# draw the events of panel k (1: sum, 2: dot) as vertical lines with labels
mark(k) = sprintf("unset arrow; unset label; " . \
  "if (EV[%d] == EV[%d]) { set arrow 11 from EV[%d], graph 0 to EV[%d], graph 1 nohead dt 2 lw 1.5 lc rgb C_VERM }; " . \
  "if (EV[%d] == EV[%d]) { set arrow 12 from EV[%d], graph 0 to EV[%d], graph 1 nohead dt 3 lw 1.5 lc rgb C_GREY }; " . \
  "if (EV[%d] == EV[%d]) { set arrow 13 from EV[%d], graph 0 to EV[%d], graph 1 nohead dt 4 lw 1.5 lc rgb C_ORANGE }; " . \
  "set arrow 1 from graph 0, first 1.5e-12 to graph 1, first 1.5e-12 nohead dt 3 lc rgb C_GREY; " . \
  "set arrow 2 from graph 0, first 1e1 to graph 1, first 1e1 nohead dt 3 lc rgb C_GREY", \
  3*k-2, 3*k-2, 3*k-2, 3*k-2, 3*k-1, 3*k-1, 3*k-1, 3*k-1, 3*k, 3*k, 3*k, 3*k)
evs(i) = EV[i] == EV[i] ? sprintf("%d", EV[i]) : "none"
set multiplot title "Relative error |acc - exact| / exact of running sums of values uniform in [0,1) held in binary16"
eval panel(0.09, 0.50, 0.29, 0.90)
eval mark(1)
set title "sum of x_i"
set ylabel "relative error"
plot for [i=1:5] f index 0 using 1:(pos(column(csum(i)))) with linespoints lw 2 pt 0+word(pts, i) ps 0.9 lc rgb word(cols, i), \
     for [i=1:5] f index 0 using 1:(zero(column(csum(i)), i)) with points pt 0+word(pts, i)-1 ps 1.3 lc rgb word(cols, i), \
     for [i=1:5] f index 0 using 1:(isinf(column(csum(i)))) with points pt 2 ps 1.6 lw 2 lc rgb word(cols, i)
eval panel(0.58, 0.98, 0.29, 0.90)
eval mark(2)
set title "dot product sum x_i y_i"
set ylabel ""
plot for [i=1:5] f index 0 using 1:(pos(column(cdot(i)))) with linespoints lw 2 pt 0+word(pts, i) ps 0.9 lc rgb word(cols, i), \
     for [i=1:5] f index 0 using 1:(zero(column(cdot(i)), i)) with points pt 0+word(pts, i)-1 ps 1.3 lc rgb word(cols, i), \
     for [i=1:5] f index 0 using 1:(isinf(column(cdot(i)))) with points pt 2 ps 1.6 lw 2 lc rgb word(cols, i)

# the legends, below the panels: the accumulators (left), the events (right)
unset title; unset arrow
unset border; unset tics; unset xlabel; unset ylabel; unset grid
unset logscale xy
set xrange [0:1]; set yrange [0:1]
set key at screen 0.05, 0.19 left top vertical Left reverse samplen 3 font ",9" spacing 1.1
eval panel(0.01, 0.45, 0.0, 0.2)
plot for [i=1:5] NaN with linespoints lw 2 pt 0+word(pts, i) lc rgb word(cols, i) title nm(i), \
     NaN with points pt 6 ps 1.3 lc rgb C_BLACK title "row 0: error exactly 0", \
     NaN with points pt 2 ps 1.6 lw 2 lc rgb C_BLACK title "row inf: accumulator overflowed"
set key at screen 0.45, 0.19 left top vertical Left reverse samplen 3 font ",9" spacing 1.1
eval panel(0.45, 0.99, 0.0, 0.2)
plot NaN with lines dt 2 lw 1.5 lc rgb C_VERM title sprintf("binary16, round to nearest: last change at term %s (sum), %s (dot)", evs(1), evs(4)), \
     NaN with lines dt 3 lw 1.5 lc rgb C_GREY title sprintf("exact sum passes 65504: term %s (sum), %s (dot)", evs(2), evs(5)), \
     NaN with lines dt 4 lw 1.5 lc rgb C_ORANGE title sprintf("binary16, stochastic rounding, infinite: term %s (sum), %s (dot)", evs(3), evs(6))
unset multiplot
