# plots/lost_run.gp — experiment 4: long run of small updates
STEM = "lost_run"; W = 1100; H = 620
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/lost_run.dat"
# columns: step exact binary16 binary16_sr bfloat16 binary32_master binary16(master)
stats f using 1 nooutput
N = STATS_max
set xrange [-0.02*N:1.02*N]
set xlabel "update step"
unset key
set multiplot title "w = 1 after many updates dw = -10^{-4}: low-precision weights against a binary32 master"
eval panel(0.07, 0.50, 0.25, 0.86)
set title "weight value"
set ylabel "w"
set yrange [0.42:1.08]
set label 1 "binary16 and bfloat16 (round to nearest): every update rounded away, w stays 1" \
    at graph 0.02, first 1.035 font ",9" tc rgb C_VERM
plot f using 1:2 with lines lw 7 lc rgb C_LIGHT, \
     f using 1:3 with lines lw 6 lc rgb C_ORANGE, \
     f using 1:5 with lines lw 2 dt 2 lc rgb C_BLUE, \
     f using 1:4 with lines lw 2 lc rgb C_GREEN, \
     f using 1:6 with lines lw 1.5 lc rgb C_BLACK
unset label 1
eval panel(0.58, 0.97, 0.25, 0.86)
set title "difference from the exact value 1 + t dw, in units of 10^{-4}"
set ylabel "(w - exact) / 10^{-4}"
set autoscale y
set offsets 0, 0, graph 0.08, graph 0.08
plot 0 with lines lw 3 lc rgb C_LIGHT, \
     f using 1:(($7 - $2) / 1e-4) with lines lw 1.5 lc rgb C_SKY, \
     f using 1:(($4 - $2) / 1e-4) with lines lw 2 lc rgb C_GREEN, \
     f using 1:(($6 - $2) / 1e-4) with lines lw 2.5 lc rgb C_BLACK

# the legend, below both panels
unset title; unset offsets
set key at screen 0.5, 0.09 center center horizontal maxrows 2 samplen 3 font ",10" width 2
unset border; unset tics; unset xlabel; unset ylabel; unset grid
set xrange [0:1]; set yrange [0:1]
eval panel(0.05, 0.95, 0.01, 0.14)
plot NaN with lines lw 7 lc rgb C_LIGHT title "exact 1 + t dw", \
     NaN with lines lw 6 lc rgb C_ORANGE title "binary16 weight, round to nearest", \
     NaN with lines lw 2 dt 2 lc rgb C_BLUE title "bfloat16 weight, round to nearest", \
     NaN with lines lw 2 lc rgb C_GREEN title "binary16 weight, stochastic rounding", \
     NaN with lines lw 2.5 lc rgb C_BLACK title "binary32 master weight", \
     NaN with lines lw 1.5 lc rgb C_SKY title "binary16 copy of the master"
unset multiplot
