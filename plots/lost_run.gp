# plots/lost_run.gp — experiment 4: long run of small updates
STEM = "lost_run"
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

f = dir."/lost_run.dat"
set xlabel "update step (dw = -1e-4 each)"
set ylabel "weight value"
set title "w = 1 after many small updates: low-precision weight vs fp32 master"
set key bottom left
plot f using 1:2 with lines lw 3 lc rgb "gray60" title "exact", \
     f using 1:3 with lines lw 2 title "binary16 weight (RNE)", \
     f using 1:4 with lines lw 2 title "binary16 weight (stochastic)", \
     f using 1:5 with lines lw 2 title "bfloat16 weight (RNE)", \
     f using 1:6 with lines lw 2 dt 2 title "binary32 master weight"
