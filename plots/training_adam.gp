# plots/training_adam.gp — experiment 6: training curves per policy (adam setting: Adam, lr 1e-4)
STEM = "training_adam"
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
f = dir."/training_adam.dat"
names = "fp32 fp16 o2 o3 bf16 bf16-pure"
set multiplot layout 2,2 title "Training curves per precision policy (adam setting: Adam, lr 10^{-4})"
set key top right font ",8"
set xlabel "step"
set logscale y
set ylabel "loss"
set title "training loss"
plot for [i=0:5] f index i using 1:2 with lines lw 1.5 title word(names, i+1)
unset logscale y
set ylabel "test accuracy"
set title "test accuracy"
set key bottom right
plot for [i=0:5] f index i using 1:($6 == $6 ? $6 : 1/0) with linespoints pt 7 ps 0.4 lw 1.5 title word(names, i+1)
set yrange [-0.02:1.02]
set ylabel "fraction of updates lost"
set title "lost updates (w + dw == w in the weight format)"
set key center right
plot for [i=0:5] f index i using 1:5 with lines lw 1.5 title word(names, i+1)
set yrange [0.5:2.0**17]
set logscale y 2
set format y "2^{%L}"
set ylabel "loss scale"
set title "loss scale used"
set key bottom right
plot for [i=0:5] f index i using 1:3 with steps lw 1.5 title word(names, i+1)
unset multiplot
