# plots/lab_style.gp — what every lab figure shares: the terminal and the
# colours.  Loaded by each plots/<stem>.gp after it sets STEM (and W, H for
# another size than 960x600).  `fplab lab` runs a script as
#   gnuplot -e "dir='D'; ext='png|svg'; out='FILE'" plots/<stem>.gp
if (!exists("dir")) dir = "out"
if (!exists("ext")) ext = "png"
if (!exists("out")) out = dir."/".STEM.".".ext
if (!exists("W")) W = 960
if (!exists("H")) H = 600
if (ext eq "svg") {
    set terminal svg size W,H dynamic enhanced font "sans,12" background "white"
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size W,H enhanced font "sans,11"
    } else {
        set terminal png size W,H
    }
}
set output out
set grid lc rgb "#d8d8d8" dt 3

# Okabe & Ito's colour-blind-safe palette (their yellow is left out: it
# cannot be seen on white).
C_BLACK = "#000000"
C_ORANGE = "#E69F00"
C_SKY = "#56B4E9"
C_GREEN = "#009E73"
C_BLUE = "#0072B2"
C_VERM = "#D55E00"
C_PURPLE = "#CC79A7"
C_GREY = "#999999"
C_BROWN = "#8C5A1E"
C_LIGHT = "#c8c8c8"

# One colour per precision policy, the same in every training figure
# (fp16-torch-i50 and bf16-pure share sky blue, fp16 and fp8-hybrid-delayed
# vermilion, fp16-torch and fp8-e4m3-current blue, o2 and mxfp8 green: no
# figure shows both of a pair).
pcol(n) = n eq "fp32" ? C_BLACK : n eq "fp16" ? C_VERM : \
          n eq "fp16-static:1024" ? C_ORANGE : n eq "fp16-torch" ? C_BLUE : \
          n eq "fp16-torch-i50" ? C_SKY : n eq "o2" ? C_GREEN : \
          n eq "o3" ? C_PURPLE : n eq "bf16" ? C_BROWN : \
          n eq "bf16-pure" ? C_SKY : n eq "fp8-hybrid-delayed" ? C_VERM : \
          n eq "fp8-e4m3-current" ? C_BLUE : n eq "mxfp8" ? C_GREEN : C_BLACK

# Screen-coordinate panel placement: panel(l, r, b, t).
panel(l, r, b, t) = sprintf("set lmargin at screen %g; set rmargin at screen %g; " . \
                            "set bmargin at screen %g; set tmargin at screen %g", l, r, b, t)
