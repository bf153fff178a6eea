# plots/gradhist_underflow.gp — experiment 3: underflow/subnormal/overflow fraction vs loss scale
STEM = "gradhist_underflow"; W = 1100; H = 640
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/gradhist_underflow.dat"
# columns (counts): log2_S w_total w_zero w_nonfinite w_underflow w_subnormal
#   w_overflow a_total a_zero a_nonfinite a_underflow a_subnormal a_overflow
wl(t, z, n) = t - z - n
ZW = 7e-8
ZA = 1.6e-8
pos(v) = v > 0 ? v : 1/0
zero(v, row) = v == 0 ? row : 1/0
# the largest scale with no overflow in either kind of gradient
stats f using (($7 + $13) == 0 ? $1 : NaN) nooutput
SOK = STATS_max

set multiplot title "Rounding g S into binary16 (gradients of a binary32 run): what happens to the nonzero values"
eval panel(0.11, 0.70, 0.10, 0.88)
set xlabel "log_2 S (loss scale)"
set ylabel "fraction of the nonzero gradients"
set xrange [-0.7:24.7]
set xtics 2
set logscale y 10
set format y "10^{%L}"
set yrange [8e-9:3]
set ytics ("10^{-6}" 1e-6, "10^{-5}" 1e-5, "10^{-4}" 1e-4, "10^{-3}" 1e-3, "10^{-2}" 1e-2, \
           "10^{-1}" 1e-1, "1" 1, "0 (weights)" ZW, "0 (activations)" ZA)
set arrow 1 from graph 0, first 1.7e-7 to graph 1, first 1.7e-7 nohead dt 3 lc rgb C_GREY
set arrow 2 from SOK, graph 0 to SOK, graph 1 nohead dt 2 lc rgb C_GREY
set label 2 sprintf("largest S without overflow: 2^{%d}", SOK) at SOK, graph 0.96 right offset -0.5,0 font ",9"
set key at screen 0.715, 0.88 left top Left reverse samplen 3 font ",9" spacing 1.4
plot f using 1:(pos($11 / wl($8,$9,$10))) with linespoints lw 2 pt 7 lc rgb C_VERM title "activation grads: underflow to 0", \
     f using 1:(pos($12 / wl($8,$9,$10))) with linespoints lw 2 pt 5 lc rgb C_ORANGE title "activation grads: subnormal", \
     f using 1:(pos($13 / wl($8,$9,$10))) with linespoints lw 2 pt 9 lc rgb C_BLUE title "activation grads: overflow", \
     f using 1:(zero($13, ZA)) with points pt 8 ps 1.1 lc rgb C_BLUE title "activation grads: no overflow (0)", \
     f using 1:(pos($5 / wl($2,$3,$4))) with linespoints lw 2 dt 2 pt 6 lc rgb C_VERM title "weight grads: underflow to 0", \
     f using 1:(pos($6 / wl($2,$3,$4))) with linespoints lw 2 dt 2 pt 4 lc rgb C_ORANGE title "weight grads: subnormal", \
     f using 1:(pos($7 / wl($2,$3,$4))) with linespoints lw 2 dt 2 pt 13 lc rgb C_SKY title "weight grads: overflow", \
     f using 1:(zero($7, ZW)) with points pt 12 ps 1.4 lc rgb C_SKY title "weight grads: no overflow (0)"
unset multiplot
