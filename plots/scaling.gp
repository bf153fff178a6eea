# plots/scaling.gp — experiment 7: underflow, saturation and error per scheme
# Data: scaling.dat block 0 (one row per scheme; per kind: underflow %,
# saturated %, mean relative error, normwise error; nan: not measured).
STEM = "scaling"; W = 1500; H = 1250
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/scaling.dat"
# the schemes' labels and colours, by the ids of the data file
lab(s) = s eq "fp16" ? "binary16 cast" : s eq "e5m2" ? "E5M2 cast" : s eq "e4m3" ? "E4M3 cast" : \
         s eq "ls-fp16" ? "binary16 × S (GradScaler)" : s eq "ls-e5m2" ? "E5M2 × S (GradScaler)" : \
         s eq "cur-e4m3" ? "tensor, current, E4M3" : s eq "cur-e5m2" ? "tensor, current, E5M2" : \
         s eq "del-e4m3" ? "tensor, delayed, E4M3" : s eq "del-e5m2" ? "tensor, delayed, E5M2" : \
         s eq "mxfp8-e4m3" ? "MXFP8 E4M3 (floor)" : s eq "mxfp8-e4m3-rceil" ? "MXFP8 E4M3 (rceil)" : \
         s eq "mxfp8-e5m2" ? "MXFP8 E5M2" : s eq "mxfp6-e2m3" ? "MXFP6 E2M3" : \
         s eq "mxfp6-e3m2" ? "MXFP6 E3M2" : s eq "mxfp4" ? "MXFP4 E2M1" : s eq "nvfp4" ? "NVFP4" : s
col(s) = (s eq "fp16" || s eq "e5m2" || s eq "e4m3") ? C_GREY : \
         s[1:3] eq "ls-" ? C_SKY : s[1:4] eq "cur-" ? C_BLUE : s[1:4] eq "del-" ? C_PURPLE : \
         s[1:5] eq "mxfp8" ? C_GREEN : s[1:5] eq "mxfp6" ? C_ORANGE : C_VERM
colv(s) = int("0x" . col(s)[2:7])

stats f index 0 using 1 nooutput
NS = int(STATS_max) + 1
num(v) = v == 0 ? "0" : (v < 0.001 ? sprintf("%.1e", v) : sprintf("%.3g", v))

kname(i) = i == 1 ? "weight gradients" : i == 2 ? "activation gradients" : "activations"
# data columns per kind: underflow, saturated, norm error
cu(i) = 3 + 4 * (i - 1)
cs(i) = 4 + 4 * (i - 1)
ce(i) = 6 + 4 * (i - 1)

set multiplot title "Quantizing the gradients and activations of a binary32 training run (deep setting): per scheme"
L0 = 0.19; R0 = 0.985; T0 = 0.93; B0 = 0.05
cw = (R0 - L0) / 3
rh = (T0 - B0) / 3
set style fill solid 0.85 noborder
unset key
set yrange [-NS + 0.4 : 0.6]
set grid xtics
set grid noytics
# log axes: a bar grows from the left edge (X0) to its value; a zero gets
# no bar and the label "0" at the edge
X0 = 1e-4
bar(v) = v > X0 ? v : 1/0
at(v) = v > X0 ? v : X0
set logscale x 10
set format x "10^{%L}"
do for [i = 1:3] {
    t = T0 - (i - 1) * rh
    do for [m = 1:3] {
        eval panel(L0 + (m - 1) * cw, L0 + m * cw - 0.03, t - rh + 0.035, t - 0.03)
        c = m == 1 ? cu(i) : m == 2 ? cs(i) : ce(i)
        set title kname(i) . (m == 1 ? ": flushed to zero, % of nonzero" : \
                              m == 2 ? ": saturated, % of nonzero" : ": error ‖deq − x‖ / ‖x‖") font ",10"
        if (m == 3) {
            set xrange [X0 : 20]
            set xtics (1e-4, 1e-3, 1e-2, 1e-1, 1) font ",9"
        } else {
            set xrange [X0 : 2000]
            set xtics ("10^{-3}" 1e-3, "10^{-2}" 1e-2, "10^{-1}" 1e-1, "1" 1, "10" 10, "100" 100) font ",9"
        }
        if (m == 1) {
            plot f index 0 using (X0):(-$1):(X0):(bar(column(c))):(-$1 - 0.38):(-$1 + 0.38):(colv(strcol(2))):ytic(lab(strcol(2))) \
                    with boxxyerror lc rgb variable, \
                 f index 0 using (at(column(c))):(-$1):(num(column(c))) with labels left offset 0.6,0 font ",8", \
                 f index 0 using (X0):(strcol(c) eq "nan" ? -$1 : 1/0):("not applied") with labels left offset 0.6,0 font ",8" tc rgb C_GREY
        } else {
            plot f index 0 using (X0):(-$1):(X0):(bar(column(c))):(-$1 - 0.38):(-$1 + 0.38):(colv(strcol(2))):ytic("") \
                    with boxxyerror lc rgb variable, \
                 f index 0 using (at(column(c))):(-$1):(num(column(c))) with labels left offset 0.6,0 font ",8", \
                 f index 0 using (X0):(strcol(c) eq "nan" ? -$1 : 1/0):("not applied") with labels left offset 0.6,0 font ",8" tc rgb C_GREY
        }
    }
}
unset multiplot
