# plots/atlas.gp — experiment 1: spacing of representable numbers vs magnitude
STEM = "atlas"
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

f = dir."/atlas_ulp.dat"
set logscale xy 2
set format x "2^{%L}"
set format y "2^{%L}"
set xlabel "magnitude x"
set ylabel "spacing ulp(x) = next\\_up(x) - x"
set title "Format atlas: spacing and range (each curve spans smallest subnormal .. largest finite)"
set key top left
plot f index 0 using 1:2 with steps lw 2 title "binary16 (fp16)", \
     f index 1 using 1:2 with steps lw 2 title "bfloat16", \
     f index 2 using 1:2 with steps lw 2 title "binary32 (fp32)", \
     f index 3 using 1:2 with steps lw 2 title "fp8 e4m3", \
     f index 4 using 1:2 with steps lw 2 title "fp8 e5m2"
