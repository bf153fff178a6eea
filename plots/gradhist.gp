# plots/gradhist.gp — experiment 3: gradient histograms shifted by loss scales
STEM = "gradhist"; W = 1100; H = 620
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/gradhist.dat"
# columns: log2_lower_edge w_S1 w_S8 w_S1024 w_S65536 a_S1 a_S8 a_S1024 a_S65536
cols = C_BLACK." ".C_VERM." ".C_BLUE." ".C_GREEN
labs = "S = 1 S = 8 S = 1024 S = 65536"
lab(i) = "S = ".word("1 8 1024 65536", i)
set xlabel "log_2 |g S|"
set ylabel "fraction of the nonzero gradients"
set xrange [-52:34]
set xtics 10
set yrange [*:*]
set offsets 0, 0, graph 0.12, graph 0.03
set style rect fc rgb "#f4c9c9" fs solid 0.5 noborder
set object 1 rect from -24, graph 0 to -14, graph 1 behind
set object 2 rect from -14, graph 0 to 16, graph 1 behind fc rgb "#cfeccf" fs solid 0.5 noborder
set label 1 "subnormal" at -19, graph 0.96 center font ",9"
set label 2 "normal" at 1, graph 0.96 center font ",9"
set label 3 "rounds to 0\n(|g S| <= 2^{-25})" at -38, graph 0.80 center font ",9"
set arrow 1 from -25, graph 0 to -25, graph 1 nohead dt 2 lc rgb C_GREY
unset key
set multiplot title "log_2|g S| of the gradients of a real binary32 training run (deep setting), binary16's ranges shaded"
eval panel(0.07, 0.49, 0.24, 0.87)
set title "activation gradients"
plot for [i=1:4] f using 1:(column(5+i)) with steps lw 2 lc rgb word(cols, i)
eval panel(0.56, 0.98, 0.24, 0.87)
set title "weight gradients"
set ylabel ""
plot for [i=1:4] f using 1:(column(1+i)) with steps lw 2 lc rgb word(cols, i)

# the legend, below both panels
unset title; unset offsets; unset object 1; unset object 2; unset label; unset arrow
set key at screen 0.5, 0.06 center center horizontal maxrows 1 samplen 3 font ",10" width 3
unset border; unset tics; unset xlabel; unset ylabel; unset grid
set xrange [0:1]; set yrange [0:1]
eval panel(0.05, 0.95, 0.01, 0.10)
plot for [i=1:4] NaN with lines lw 2 lc rgb word(cols, i) title lab(i)
unset multiplot
