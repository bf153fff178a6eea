# plots/lost_ratio.gp — experiment 4: lost updates under round to nearest,
# and the kept fraction under stochastic rounding, against |dw|/|w|
STEM = "lost_ratio"; W = 1100; H = 820
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/lost_ratio.dat"
# columns: ratio lost_b16 lost_bf16 lost_b32 sr_n sr_dw_zero sr_kept
#          sr_expected sr_se sr_mean_ulps sr_applied_mean sr_applied_se
clamp(v) = v < 0 ? 0 : v > 1 ? 1 : v
th(r, p) = clamp(2.0**(-p) / r - 1)
set logscale x 2
set format x "2^{%L}"
set xrange [2**-31:2**1]
set xtics ()
do for [k=-30:0:2] { set xtics add (sprintf("2^{%d}", k) 2.0**k) }
set multiplot title "Lost weight updates: w + dw == w, against the update ratio r = |dw|/|w|"

# top: round to nearest
eval panel(0.08, 0.74, 0.56, 0.92)
set title "round to nearest: fraction of updates lost (w + dw == w)"
set ylabel "fraction lost"
set format x ""
set yrange [-0.07:1.09]
set ytics 0.2
set key at screen 0.755, 0.92 left top Left reverse samplen 2 font ",9" spacing 1.25
set style fill transparent solid 0.18 noborder
set object 1 rect from 2**-12, graph 0 to 2**-11, graph 1 fc rgb C_ORANGE fs transparent solid 0.25 noborder behind
set object 2 rect from 2**-9, graph 0 to 2**-8, graph 1 fc rgb C_BLUE fs transparent solid 0.25 noborder behind
set object 3 rect from 2**-25, graph 0 to 2**-24, graph 1 fc rgb C_GREEN fs transparent solid 0.25 noborder behind
set label 1 "Micikevicius et al.: |w| = 2048|dw|" at 2**-12.3, graph 0.62 right font ",9" tc rgb C_VERM
set arrow 3 from 2**-12.25, graph 0.62 to 2**-11, graph 0.62 head size screen 0.008,20 lc rgb C_VERM
set arrow 1 from 2**-11, graph 0 to 2**-11, graph 1 nohead dt 2 lc rgb C_VERM
plot f using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb C_ORANGE title "binary16 (p = 11)", \
     f using 1:3 with linespoints lw 2 pt 5 ps 0.6 lc rgb C_BLUE title "bfloat16 (p = 8)", \
     f using 1:4 with linespoints lw 2 pt 9 ps 0.6 lc rgb C_GREEN title "binary32 (p = 24)", \
     f using 1:(th($1, 11)) with lines dt 2 lw 1.5 lc rgb C_BLACK title "theory 2^{-p}/r - 1", \
     f using 1:(th($1, 8)) with lines dt 2 lw 1.5 lc rgb C_BLACK notitle, \
     f using 1:(th($1, 24)) with lines dt 2 lw 1.5 lc rgb C_BLACK notitle, \
     NaN with boxes fs transparent solid 0.35 noborder fc rgb C_GREY title "band 2^{-(p+1)} .. 2^{-p} (format colour)"
unset object 1; unset object 2; unset object 3; unset label 1; unset arrow 1; unset arrow 3

# bottom: stochastic rounding.  Where dw itself rounds to zero in binary16
# (column 6 of column 5 weights): every weight up to DA, some up to DS
stats f using ($6 == $5 ? $1 : NaN) nooutput
DA = STATS_max
stats f using ($6 > 0 ? $1 : NaN) nooutput
DS = STATS_max
ZROW = 3e-8
eval panel(0.08, 0.74, 0.09, 0.45)
set title "binary16 with stochastic rounding: fraction of updates kept (w + dw != w)"
set xlabel "r = |dw| / |w|"
set format x "2^{%L}"
set ylabel "fraction kept"
set logscale y 10
set format y "10^{%L}"
set yrange [1e-8:5]
set ytics ("10^{-6}" 1e-6, "10^{-4}" 1e-4, "10^{-2}" 1e-2, "1" 1, "0" ZROW)
set arrow 2 from graph 0, first 8e-8 to graph 1, first 8e-8 nohead dt 3 lc rgb C_GREY
set key at screen 0.755, 0.45 left top Left reverse samplen 2 font ",9" spacing 1.25
set object 4 rect from 2**-31, graph 0 to DA, graph 1 fc rgb C_GREY fs transparent solid 0.55 noborder behind
set object 5 rect from DA, graph 0 to DS, graph 1 fc rgb C_GREY fs transparent solid 0.22 noborder behind
set label 4 "dw = 0 in binary16:\nlost for sure" at sqrt(DA * DS), graph 0.68 center font ",9"
pos(v) = v > 0 ? v : 1/0
zero(v) = v == 0 ? ZROW : 1/0
low(m, e) = m - 2*e > ZROW ? m - 2*e : ZROW
plot f using 1:(pos($8)) with lines lw 2.5 lc rgb C_BLACK title "expected: mean of min(1, |dw|/gap)", \
     f using 1:(zero($8)) with lines lw 2.5 lc rgb C_BLACK notitle, \
     f using 1:(pos($6/$5)) with lines lw 2 dt 3 lc rgb C_VERM title "share of weights with dw = 0", \
     NaN with boxes fs transparent solid 0.55 noborder fc rgb C_GREY title "dw = 0 for every weight", \
     NaN with boxes fs transparent solid 0.22 noborder fc rgb C_GREY title "dw = 0 for some weights", \
     f using 1:(pos($7/$5)):(low($7/$5, $9)):($7/$5 + 2*$9) \
       with yerrorbars pt 7 ps 0.6 lc rgb C_BLUE title "measured, bars ±2 sampling errors", \
     f using 1:(zero($7)) with points pt 6 ps 0.8 lc rgb C_BLUE title "measured: none kept (0)"
unset multiplot
