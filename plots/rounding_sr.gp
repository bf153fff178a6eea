# plots/rounding_sr.gp — experiment 2: stochastic rounding probability and bias
STEM = "rounding_sr"
# Called by `fplab lab` as: gnuplot -e "dir='D'; ext='png|svg'; out='FILE'" SCRIPT
if (!exists("dir")) dir = "out"
if (!exists("ext")) ext = "png"
if (!exists("out")) out = dir."/".STEM.".".ext
if (ext eq "svg") {
    set terminal svg size 960,600 dynamic enhanced font "sans,12" background "white"
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 960,600 enhanced font "sans,11"
    } else {
        set terminal png size 960,600
    }
}
set output out
set grid
set key top left

f = dir."/rounding_sr.dat"
set xlabel "q: position of x between neighbours (x = 1 + q 2^{-10})"
set ylabel "probability / error (ulps)"
set title "Stochastic rounding into binary16: P(round up), mean error, spread"
set yrange [-0.6:1.05]
plot f using 1:2 with linespoints lw 2 pt 7 title "P(up), measured", \
     x with lines dt 2 lc rgb "gray40" title "P(up) = q (ideal)", \
     f using 1:3 with linespoints lw 2 pt 5 title "SR mean error", \
     f using 1:4 with linespoints lw 2 pt 9 title "SR std deviation", \
     f using 1:6 with linespoints lw 2 pt 13 title "round-to-nearest error"
