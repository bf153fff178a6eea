# plots/gradhist.gp — experiment 3: gradient histograms shifted by loss scales
STEM = "gradhist"
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
f = dir."/gradhist.dat"
set multiplot layout 1,2 title "log2|g*S| of a real binary32 training run, binary16 ranges shaded"
set xlabel "log2 |g S|"
set ylabel "fraction of nonzero gradients"
set key top left font ",8"
set xrange [-50:32]
set style rect fc rgb "#ffd0d0" fs solid 0.5 noborder
set object 1 rect from -24, graph 0 to -14, graph 1 behind
set object 2 rect from -14, graph 0 to 16, graph 1 behind fc rgb "#d0ffd0" fs solid 0.5 noborder
set label 1 "subnormal" at -23.5, graph 0.95 font ",8"
set label 2 "normal" at -5, graph 0.95 font ",8"
set label 3 "rounds to 0" at -47, graph 0.6 font ",8"
set title "activation gradients"
plot f using 1:6 with steps lw 2 title "S = 1", \
     f using 1:7 with steps lw 2 title "S = 8", \
     f using 1:8 with steps lw 2 title "S = 1024", \
     f using 1:9 with steps lw 2 title "S = 65536"
set title "weight gradients"
plot f using 1:2 with steps lw 2 title "S = 1", \
     f using 1:3 with steps lw 2 title "S = 8", \
     f using 1:4 with steps lw 2 title "S = 1024", \
     f using 1:5 with steps lw 2 title "S = 65536"
unset multiplot
