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
cols = C_ORANGE." ".C_BLUE." ".C_BLACK." ".C_PURPLE." ".C_GREEN
r = dir."/atlas_ranges.dat"
# atlas_ranges.dat columns: format ebits prec min_subnormal min_normal max
# the relative spacing at each extreme: 1 at the smallest subnormal, 2^(1-p)
# at the smallest normal, ulp(max)/max at the largest finite value
ysub(p) = 1.0
ynorm(p) = 2.0**(1 - p)
ymax(p, m) = 2.0**(1 - p) / (m / 2.0**floor(log(m) / log(2) + 1e-9))
pw(v) = sprintf("2^{%d}", floor(log(v) / log(2) + 0.5))
set logscale xy 2
set format x "2^{%L}"
set format y "2^{%L}"
set ylabel "relative spacing ulp(x)/x"
set xlabel "magnitude x"
set yrange [2**-27:2**2.5]
set ytics ()
do for [k=-24:0:4] { set ytics add (sprintf("2^{%d}", k) 2.0**k) }
unset key
set style fill solid 0.35 border
set multiplot title "Format atlas: relative spacing ulp(x)/x, from the smallest subnormal to the largest finite value"
# boxes: x, y, xlow, xhigh, ylow, yhigh
BOX = "1:3:1:($4+$5):6:3"

# the extremes of each format are marked: smallest subnormal (down
# triangle), smallest normal (circle), largest finite (square)

# left: the full range
eval panel(0.08, 0.46, 0.22, 0.88)
set title "full range"
set xrange [2**-160:2**140]
set xtics ()
do for [k=-150:100:50] { set xtics add (sprintf("2^{%d}", k) 2.0**k) }
set style fill solid 0.35 border
plot for [i=0:4] f index i using @BOX with boxxyerror lc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 4:(ysub($3)) with points pt 11 ps 1.6 lc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 5:(ynorm($3)) with points pt 7 ps 1.3 lc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 6:(ymax($3, $6)) with points pt 5 ps 1.3 lc rgb word(cols, i+1), \
     r every ::1::1 using 4:(ysub($3)):("bf16 ".pw($4)) with labels left offset 1,0.6 font ",8" tc rgb C_BLUE, \
     r every ::2::2 using 4:(ysub($3)):("fp32 ".pw($4)) with labels left offset 1,-0.6 font ",8" tc rgb C_BLACK, \
     r every ::1::1 using 6:(ymax($3, $6)):("bf16 max 3.39e38") with labels right offset -1,-1.1 font ",8" tc rgb C_BLUE, \
     r every ::2::2 using 6:(ymax($3, $6)):("fp32 max 3.40e38") with labels right offset -1,-1.1 font ",8" tc rgb C_BLACK

# right: the range of the 16- and 8-bit formats
eval panel(0.56, 0.96, 0.22, 0.88)
set title "zoom: 2^{-26} .. 2^{17}"
set xrange [2**-27:2**18]
set xtics ()
do for [k=-24:16:4] { set xtics add (sprintf("2^{%d}", k) 2.0**k) }
set ylabel ""
plot for [i=0:4] f index i using @BOX with boxxyerror lc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 4:(ysub($3)) with points pt 11 ps 1.6 lc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 5:(ynorm($3)) with points pt 7 ps 1.3 lc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 6:(ymax($3, $6)) with points pt 5 ps 1.3 lc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 4:(ysub($3)):(pw($4)) with labels center offset 0,1.1 font ",8" tc rgb word(cols, i+1), \
     for [i=0:4] r every ::i::i using 6:(ymax($3, $6)):(sprintf("%g", $6)) with labels center offset 0,-1.1 font ",8" tc rgb word(cols, i+1)

# the legend, below both panels
unset title
set key at screen 0.5, 0.07 center horizontal maxrows 2 samplen 2 font ",10" width 1
unset border; unset tics; unset xlabel; unset ylabel; unset grid
unset logscale xy
set xrange [0:1]; set yrange [0:1]
eval panel(0.08, 0.96, 0.02, 0.1)
set style fill solid 0.6 border
plot for [i=0:4] NaN with boxes lc rgb word(cols, i+1) title word(names, i+1), \
     NaN with points pt 11 ps 1.4 lc rgb C_GREY title "smallest subnormal", \
     NaN with points pt 7 ps 1.2 lc rgb C_GREY title "smallest normal", \
     NaN with points pt 5 ps 1.2 lc rgb C_GREY title "largest finite"
unset multiplot
