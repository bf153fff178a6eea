# plots/gradhist_underflow.gp — experiment 3: underflow/subnormal/overflow
# fraction vs loss scale, one panel per tensor kind, the layers apart
STEM = "gradhist_underflow"; W = 1300; H = 640
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/gradhist_underflow.dat"
# block 0 (counts, all layers): log2_S w_total w_zero w_nonfinite w_underflow
#   w_subnormal w_overflow a_total a_zero a_nonfinite a_underflow a_subnormal
#   a_overflow
# block 1 (per layer, rows S-major, then kind, then layer): log2_S
#   kind_index kind layer total zero nonfinite underflow subnormal overflow
wl(t, z, n) = t - z - n
pos(v) = v > 0 ? 100.0 * v : 1/0
ZROW = 2.5e-6
zero(v) = v == 0 ? ZROW : 1/0
stats f index 1 using 4 nooutput
NL = int(STATS_max) + 1
NR = 2 * NL
# the largest scale with no overflow in either kind of gradient, and the
# first scale at which each kind overflows
stats f index 0 using (($7 + $13) == 0 ? $1 : NaN) nooutput
SOK = STATS_max
# the last layer's activation-gradient underflow at S = 1 and at SOK
stats f index 1 every NR::(NR - 1) using (($1 == 0) ? 100.0 * $8 / wl($5, $6, $7) : NaN) nooutput
LAST0 = STATS_max
stats f index 1 every NR::(NR - 1) using (($1 == SOK) ? 100.0 * $8 / wl($5, $6, $7) : NaN) nooutput
LASTOK = STATS_max

lcol(l) = l == NL - 1 ? C_PURPLE : word(C_SKY." ".C_BLUE." ".C_GREEN." ".C_ORANGE." ".C_BROWN, l + 1)
set xrange [-0.7:24.7]
set xtics 2
set logscale y 10
set yrange [1e-6:3000]
set ytics ("10^{-5}" 1e-5, "10^{-4}" 1e-4, "10^{-3}" 1e-3, "0.01" 1e-2, "0.1" 0.1, "1" 1, "10" 10, "100" 100, "0" ZROW)
set arrow 1 from graph 0, first 5e-6 to graph 1, first 5e-6 nohead dt 3 lc rgb C_GREY
set arrow 2 from SOK, graph 0 to SOK, graph 1 nohead dt 2 lc rgb C_GREY
set xlabel "log_2 S (loss scale)"
unset key
set multiplot title "Rounding g·S into binary16 at every step of a binary32 run (deep setting): what happens to the nonzero gradients"
do for [k = 1:2] {
    # k = 1: activation gradients (kind_index 1), k = 2: weight gradients (0)
    ki = k == 1 ? 1 : 0
    c0 = k == 1 ? 6 : 0
    eval panel(k == 1 ? 0.07 : 0.55, k == 1 ? 0.47 : 0.95, 0.25, 0.88)
    set title (k == 1 ? "activation gradients (w.r.t. each layer's output)" : "weight gradients") font ",11"
    set ylabel (k == 1 ? "% of the nonzero gradients" : "")
    unset label
    unset arrow 3
    set label 2 sprintf("largest S without\noverflow: 2^{%d}", SOK) at SOK, graph 0.95 left offset 0.6,0 font ",9"
    if (k == 1) {
        set label 3 sprintf("last layer (logits): %.1f%% at S = 1,\n%.1f%% at 2^{%d}: the softmax's tail", LAST0, LASTOK, SOK) \
            at 0.2, first 1200 left font ",9" tc rgb C_PURPLE
        set arrow 3 from 3.2, first 280 to 3.6, first 30 head size screen 0.006,25 lc rgb C_PURPLE
    }
    plot f index 0 using 1:(pos(column(c0 + 5) / wl(column(c0 + 2), column(c0 + 3), column(c0 + 4)))) \
            with linespoints lw 3 pt 7 ps 0.8 lc rgb C_VERM notitle, \
         for [l = 0:NL - 2] f index 1 every NR::(ki * NL + l) using 1:(pos($8 / wl($5, $6, $7))) \
            with lines lw 1.5 dt 2 lc rgb lcol(l) notitle, \
         f index 1 every NR::(ki * NL + NL - 1) using 1:(pos($8 / wl($5, $6, $7))) \
            with lines lw 2 lc rgb lcol(NL - 1) notitle, \
         f index 0 using 1:(pos(column(c0 + 6) / wl(column(c0 + 2), column(c0 + 3), column(c0 + 4)))) \
            with linespoints lw 2 dt 3 pt 5 ps 0.6 lc rgb C_ORANGE notitle, \
         f index 0 using 1:(pos(column(c0 + 7) / wl(column(c0 + 2), column(c0 + 3), column(c0 + 4)))) \
            with linespoints lw 2 pt 9 ps 0.9 lc rgb C_BLACK notitle, \
         f index 0 using 1:(zero(column(c0 + 7))) with points pt 8 ps 0.9 lc rgb C_BLACK notitle
}
# the legend, below both panels
unset title; unset label; unset arrow
set key at screen 0.5, 0.07 center center horizontal maxrows 3 samplen 2.5 font ",10" width 2
unset border; unset tics; unset xlabel; unset ylabel; unset grid; unset logscale y
set xrange [0:1]; set yrange [0:1]
eval panel(0.05, 0.95, 0.0, 0.13)
plot NaN with linespoints lw 3 pt 7 ps 0.8 lc rgb C_VERM title "underflow to 0, all layers", \
     for [l = 0:NL - 2] NaN with lines lw 1.5 dt 2 lc rgb lcol(l) title sprintf("underflow, layer %d (hidden)", l), \
     NaN with lines lw 2 lc rgb lcol(NL - 1) title sprintf("underflow, layer %d (last: the logits)", NL - 1), \
     NaN with linespoints lw 2 dt 3 pt 5 ps 0.6 lc rgb C_ORANGE title "subnormal, all layers", \
     NaN with linespoints lw 2 pt 9 ps 0.9 lc rgb C_BLACK title "overflow, all layers", \
     NaN with points pt 8 ps 0.9 lc rgb C_BLACK title "no overflow (row 0)"
unset multiplot
