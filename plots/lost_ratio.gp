# plots/lost_ratio.gp — experiment 4: fraction of lost updates vs |dw|/|w|
STEM = "lost_ratio"
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

f = dir."/lost_ratio.dat"
set logscale x 2
set format x "2^{%L}"
set xlabel "|dw| / |w|"
set ylabel "fraction of updates lost (w + dw == w)"
set title "Lost updates: the swamping edge of each weight format"
set key top right
set yrange [-0.02:1.05]
set arrow from 2**-11, graph 0 to 2**-11, graph 1 nohead dt 2 lc rgb "gray30"
set label "2^{-11}: |w| = 2048|dw|" at 2**-11, graph 0.55 offset 0.5,0
plot f using 1:2 with linespoints lw 2 pt 7 ps 0.6 title "binary16", \
     f using 1:3 with linespoints lw 2 pt 5 ps 0.6 title "bfloat16", \
     f using 1:4 with linespoints lw 2 pt 9 ps 0.6 title "binary32", \
     f using 1:5 with linespoints lw 2 pt 13 ps 0.6 title "binary16, stochastic rounding"
