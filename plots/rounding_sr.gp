# plots/rounding_sr.gp — experiment 2: stochastic rounding probability and bias
STEM = "rounding_sr"; W = 1100; H = 600
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/rounding_sr.dat"
# columns: q P(up) mean_err std ideal_std rne_err up_count trials
set multiplot title "Stochastic rounding of x = 1 + q 2^{-10} into binary16, against round to nearest"

eval panel(0.07, 0.55, 0.12, 0.88)
set title "P(round up), error of one rounding (ulps)"
set xlabel "q: position of x between its neighbours 1 and 1 + 2^{-10}"
set ylabel "probability / error in ulps"
set xrange [-0.02:1.02]
set yrange [-0.68:1.12]
set xtics 0.1
set key at screen 0.565, 0.86 left top Left reverse samplen 2 font ",9" spacing 1.3
# round to nearest: -q up to the tie at q = 0.5 (which goes to the even 1),
# then 1 - q: two pieces and the jump between them
set arrow 1 from 0.5, -0.5 to 0.5, 0.5 nohead dt 3 lc rgb C_VERM
set object 1 circle at 0.5, 0.5 size 0.008 fc rgb "white" fs solid border lc rgb C_VERM front
set object 2 circle at 0.5, -0.5 size 0.008 fc rgb C_VERM fs solid border lc rgb C_VERM front
set samples 400
plot sample [x=0:1] x with lines lw 6 lc rgb C_LIGHT title "ideal P(up) = q", \
     f using 1:2 with points pt 7 ps 1.1 lc rgb C_BLUE title "P(up), measured", \
     [x=0:1] sqrt(x*(1-x)) with lines lw 5 lc rgb "#f3d9a6" title "ideal spread sqrt(q(1-q))", \
     f using 1:4 with points pt 5 ps 1.0 lc rgb C_ORANGE title "SR spread (std), measured", \
     f using 1:3 with points pt 9 ps 1.2 lc rgb C_GREEN title "SR mean error, measured", \
     [x=0:0.5] -x with lines lw 2 lc rgb C_VERM title "round to nearest: error", \
     [x=0.5:1] 1 - x with lines lw 2 lc rgb C_VERM notitle, \
     f using 1:6 with points pt 13 ps 1.1 lc rgb C_VERM title "round to nearest, measured"

unset object 1
unset object 2
unset arrow 1
eval panel(0.80, 0.98, 0.12, 0.88)
set key default
unset key
set title "P(up) - q in sampling errors"
set xlabel "q"
set ylabel "z = (P(up) - q) / sqrt(q(1-q)/n)"
set yrange [-4.5:4.5]
set xtics 0.2
set ytics 1
set style fill transparent solid 0.25 noborder
plot '+' using 1:(-2):(2) with filledcurves lc rgb C_SKY title "|z| < 2", \
     2 with lines dt 2 lc rgb C_GREY notitle, -2 with lines dt 2 lc rgb C_GREY notitle, \
     3 with lines dt 3 lc rgb C_GREY notitle, -3 with lines dt 3 lc rgb C_GREY notitle, \
     f using 1:(($2 - $1) / sqrt($1 * (1 - $1) / $8)) with points pt 7 ps 1.1 lc rgb C_BLUE notitle
unset multiplot
