# plots/atlas.gp — experiment 1: relative spacing of representable numbers
# Each binade [2^k, 2^(k+1)) is drawn as a box from the relative spacing at
# its largest value (bottom) to that at 2^k (top): the spacing relative to
# the value lies inside the box.
STEM = "atlas"; W = 1100; H = 640
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/atlas_ulp.dat"
# one block per format, in the order binary16 bfloat16 binary32 e4m3 e5m2
names = "binary16(fp16) bfloat16 binary32(fp32) fp8-e4m3 fp8-e5m2"
cols = C_ORANGE." ".C_BLUE." ".C_BLACK." ".C_VERM." ".C_GREEN
set logscale xy 2
set format x "2^{%L}"
set format y "2^{%L}"
set ylabel "relative spacing ulp(x)/x"
set xlabel "magnitude x"
set yrange [2**-27:2**2.5]
set ytics ()
do for [k=-24:0:4] { set ytics add (sprintf("2^{%d}", k) 2.0**k) }
unset key
set style fill transparent solid 0.55 border
set multiplot title "Format atlas: relative spacing ulp(x)/x, from the smallest subnormal to the largest finite value"
# boxes: x, y, xlow, xhigh, ylow, yhigh
BOX = "1:3:1:($4+$5):6:3"

# left: the full range
eval panel(0.08, 0.46, 0.22, 0.88)
set title "full range"
set xrange [2**-160:2**140]
set xtics ()
do for [k=-150:100:50] { set xtics add (sprintf("2^{%d}", k) 2.0**k) }
set style fill transparent solid 0.7 noborder
plot for [i=0:4] f index i using @BOX with boxxyerror lc rgb word(cols, i+1)
set style fill transparent solid 0.55 border

# right: the range of the 16- and 8-bit formats
eval panel(0.56, 0.96, 0.22, 0.88)
set title "zoom: 2^{-26} .. 2^{17}"
set xrange [2**-27:2**18]
set xtics ()
do for [k=-24:16:4] { set xtics add (sprintf("2^{%d}", k) 2.0**k) }
set ylabel ""
plot for [i=0:4] f index i using @BOX with boxxyerror lc rgb word(cols, i+1)

# the legend, below both panels
unset title
set key at screen 0.5, 0.07 center horizontal maxrows 1 samplen 3 font ",10"
unset border; unset tics; unset xlabel; unset ylabel; unset grid
unset logscale xy
set xrange [0:1]; set yrange [0:1]
eval panel(0.08, 0.96, 0.02, 0.1)
plot for [i=0:4] NaN with boxes lc rgb word(cols, i+1) title word(names, i+1)
unset multiplot
