# plots/scaling.gp — experiment 7: what each scheme flushes, saturates and
# costs in error, as a dot plot (one row per scheme, one panel per tensor).
# Data: scaling.dat block 0 (one row per scheme, in display order, with
# delayed scaling's step 0 apart; per kind: underflow %, saturated %, mean
# relative error, normwise error; nan: not measured).
STEM = "scaling"; W = 1500; H = 820
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/scaling.dat"
# the schemes' labels and colours, by the ids of the data file
lab(s) = s eq "fp16" ? "binary16 cast" : s eq "e5m2" ? "E5M2 cast" : s eq "e4m3" ? "E4M3 cast" : \
         s eq "ls-fp16" ? "binary16 × S (GradScaler)" : s eq "ls-e5m2" ? "E5M2 × S (GradScaler)" : \
         s eq "cur-e4m3" ? "tensor, current, E4M3" : s eq "cur-e5m2" ? "tensor, current, E5M2" : \
         s eq "del-e4m3" ? "tensor, delayed, E4M3 (after step 0)" : s eq "del-e5m2" ? "tensor, delayed, E5M2 (after step 0)" : \
         s eq "del-e4m3-step0" ? "delayed E4M3, step 0 (cold start)" : s eq "del-e5m2-step0" ? "delayed E5M2, step 0 (cold start)" : \
         s eq "mxfp8-e4m3" ? "MXFP8 E4M3 (floor)" : s eq "mxfp8-e4m3-rceil" ? "MXFP8 E4M3 (rceil)" : \
         s eq "mxfp8-e5m2" ? "MXFP8 E5M2" : s eq "mxfp6-e2m3" ? "MXFP6 E2M3" : \
         s eq "mxfp6-e3m2" ? "MXFP6 E3M2" : s eq "mxfp4" ? "MXFP4 E2M1" : s eq "nvfp4" ? "NVFP4" : s
col(s) = (s eq "fp16" || s eq "e5m2" || s eq "e4m3") ? C_GREY : \
         s[1:3] eq "ls-" ? C_SKY : s[1:4] eq "cur-" ? C_BLUE : s[1:4] eq "del-" ? C_PURPLE : \
         s[1:5] eq "mxfp8" ? C_GREEN : s[1:5] eq "mxfp6" ? C_ORANGE : C_VERM
colv(s) = int("0x" . col(s)[2:7])

stats f index 0 using 1 nooutput
NS = int(STATS_max) + 1
# the rows of the cold start, shaded
stats f index 0 using (strstrt(strcol(2), "step0") ? $1 : NaN) nooutput
C0 = STATS_min
C1 = STATS_max

kname(i) = i == 1 ? "weight gradients" : i == 2 ? "activation gradients" : "activations"
# data columns per kind: underflow, saturated, norm error
cu(i) = 3 + 4 * (i - 1)
cs(i) = 4 + 4 * (i - 1)
ce(i) = 6 + 4 * (i - 1)
# log axis; an exact zero is drawn at the column "0" on the left
ZX = 2e-5
v0(v) = v > 0 ? v : ZX
nz(v) = v > 0 ? v : 1/0

set multiplot title "Quantizing the gradients and activations of a binary32 training run (deep setting): per scheme, what is flushed to zero and saturated"
L0 = 0.215; R0 = 0.985; T0 = 0.90; B0 = 0.17
gap = 0.012
pw = (R0 - L0 - 3 * gap) / 3.55     # three % panels and a narrower error panel
unset key
set yrange [NS - 0.5 : -0.5]
set ytics () font ",9"
set grid ytics lc rgb "#e8e8e8" dt 1
set grid xtics
set logscale x 10
set style rect fc rgb "#ece6f2" fs solid 1 noborder
set object 1 rect from graph 0, first C0 - 0.5 to graph 1, first C1 + 0.5 behind
do for [i = 1:3] {
    l = L0 + (i - 1) * (pw + gap)
    eval panel(l, l + pw, B0, T0)
    set title kname(i) font ",11"
    set xrange [ZX / 2 : 300]
    set xtics ("0" ZX, "10^{-4}" 1e-4, "10^{-3}" 1e-3, "0.01" 1e-2, "0.1" 0.1, "1" 1, "10" 10, "100" 100) font ",9"
    set xlabel "% of the nonzero values"
    if (i == 1) {
        plot f index 0 using (v0(column(cu(i)))):1:(colv(strcol(2))):ytic(lab(strcol(2))) \
                with points pt 7 ps 1.5 lc rgb variable, \
             f index 0 using (nz(column(cs(i)))):1 with points pt 8 ps 1.3 lw 1.5 lc rgb C_BLACK
    } else {
        set ytics format ""
        plot f index 0 using (v0(column(cu(i)))):1:(colv(strcol(2))) \
                with points pt 7 ps 1.5 lc rgb variable, \
             f index 0 using (nz(column(cs(i)))):1 with points pt 8 ps 1.3 lw 1.5 lc rgb C_BLACK, \
             f index 0 using (ZX):(strcol(cu(i)) eq "nan" ? $1 : 1/0):("not applied") \
                with labels left offset 0.3,0 font ",8" tc rgb C_GREY
    }
}
# the normwise error: one marker per tensor kind
l = L0 + 3 * (pw + gap)
eval panel(l, R0, B0, T0)
set title "error ‖deq − x‖ / ‖x‖" font ",11"
set xrange [1e-4 : 2]
set xtics ("10^{-4}" 1e-4, "10^{-3}" 1e-3, "0.01" 1e-2, "0.1" 0.1, "1" 1) font ",9"
set xlabel "normwise error"
plot f index 0 using (nz(column(ce(1)))):1 with points pt 5 ps 1.1 lc rgb C_BLACK, \
     f index 0 using (nz(column(ce(2)))):1 with points pt 7 ps 1.1 lc rgb C_VERM, \
     f index 0 using (nz(column(ce(3)))):1 with points pt 9 ps 1.3 lc rgb C_BLUE
# the legend, below the panels
unset title; unset object 1; unset xlabel; unset ylabel
set key at screen 0.55, 0.045 center center horizontal maxrows 1 samplen 1 font ",10" width 1
unset border; unset tics; unset grid; unset logscale x
set xrange [0:1]; set yrange [0:1]
eval panel(0.05, 0.98, 0.0, 0.08)
plot NaN with points pt 7 ps 1.5 lc rgb C_GREY title "flushed to zero (colour: scheme family)", \
     NaN with points pt 8 ps 1.3 lw 1.5 lc rgb C_BLACK title "saturated (where any)", \
     NaN with points pt 5 ps 1.1 lc rgb C_BLACK title "error: weight gradients", \
     NaN with points pt 7 ps 1.1 lc rgb C_VERM title "activation gradients", \
     NaN with points pt 9 ps 1.3 lc rgb C_BLUE title "activations", \
     NaN with boxes fs solid 1 noborder fc rgb "#ece6f2" title "delayed scaling's cold start"
unset multiplot
