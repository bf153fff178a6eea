# plots/gradhist_underflow.gp — experiment 3: underflow/subnormal/overflow fraction vs loss scale
STEM = "gradhist_underflow"
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
f = dir."/gradhist_underflow.dat"
set xlabel "log2 S (loss scale)"
set ylabel "fraction of nonzero gradients"
set title "Rounding g*S into binary16: underflow, subnormal, overflow vs scale"
set key top right
set logscale y
set yrange [1e-7:1.5]
set format y "10^{%L}"
z(x) = x > 0 ? x : 1/0
plot f using 1:(z($5)) with linespoints lw 2 pt 7 title "activation grads: underflow to 0", \
     f using 1:(z($6)) with linespoints lw 2 pt 6 title "activation grads: subnormal", \
     f using 1:(z($7)) with linespoints lw 2 pt 5 title "activation grads: overflow", \
     f using 1:(z($2)) with linespoints lw 2 pt 9 dt 2 title "weight grads: underflow to 0", \
     f using 1:(z($3)) with linespoints lw 2 pt 8 dt 2 title "weight grads: subnormal", \
     f using 1:(z($4)) with linespoints lw 2 pt 13 dt 2 title "weight grads: overflow"
