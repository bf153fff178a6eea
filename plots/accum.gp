# plots/accum.gp — experiment 5: accumulation error vs N
STEM = "accum"
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

f = dir."/accum.dat"
set multiplot layout 1,2 title "Relative error against the exact sum (inputs in binary16)"
set logscale xy 10
set format y "10^{%L}"
set format x "10^{%L}"
set xlabel "N (terms)"
set ylabel "relative error"
set key bottom right font ",9"
set title "sum of x_i"
plot f using 1:($2>0?$2:1e-17) with linespoints lw 2 pt 7 title "binary16 acc", \
     f using 1:($3>0?$3:1e-17) with linespoints lw 2 pt 5 title "binary16 SR acc", \
     f using 1:($4>0?$4:1e-17) with linespoints lw 2 pt 9 title "binary32 acc", \
     f using 1:($5>0?$5:1e-17) with linespoints lw 2 pt 13 title "binary32 Kahan", \
     f using 1:($14>0?$14:1e-17) with linespoints lw 2 pt 11 title "H100 tensor-core model"
set title "dot product sum x_i y_i"
plot f using 1:($6>0?$6:1e-17) with linespoints lw 2 pt 7 title "binary16 acc", \
     f using 1:($7>0?$7:1e-17) with linespoints lw 2 pt 5 title "binary16 SR acc", \
     f using 1:($8>0?$8:1e-17) with linespoints lw 2 pt 9 title "binary32 acc", \
     f using 1:($9>0?$9:1e-17) with linespoints lw 2 pt 13 title "binary32 Kahan", \
     f using 1:($15>0?$15:1e-17) with linespoints lw 2 pt 11 title "H100 tensor-core model"
unset multiplot
