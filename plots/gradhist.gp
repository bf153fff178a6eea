# plots/gradhist.gp — experiment 3: gradient histograms shifted by loss scales,
# the what-if (binary32 gradients times S) beside the real fp16 pass at S
STEM = "gradhist"; W = 1300; H = 900
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/gradhist.dat"
u = dir."/gradhist_underflow.dat"
# gradhist.dat block 0 columns: 1 log2_lower_edge, 2-5 w_S (what-if),
# 6-9 a_S, 10-13 fw_S (fp16 runs), 14-17 fa_S; fractions of all values.
# Block 1: rows zero, below, above, nonfinite with the same columns.
cols = C_BLACK." ".C_VERM." ".C_BLUE." ".C_GREEN
lab(i) = "S = ".word("1 8 1024 65536", i)
KS = "0 3 10 16"
# the x positions of the two bins outside the histogram
XZ = -63
XB = -55.5
YMIN = 1e-8
pos(v) = v > 0 ? v : 1/0
# the share left of the line (|g S| <= 2^-25) per S, from
# gradhist_underflow.dat (counts, every step): underflow / live
array WI[8]
do for [i = 1:4] {
    k = int(word(KS, i))
    stats u index 0 every ::k::k using (100.0 * $5 / ($2 - $3 - $4)) nooutput
    WI[i] = STATS_max
    stats u index 0 every ::k::k using (100.0 * $11 / ($8 - $9 - $10)) nooutput
    WI[4 + i] = STATS_max
}
# the fp16 runs' zero share per S (block 1, row "zero")
array RZ[8]
do for [i = 1:4] {
    stats f index 1 every ::0::0 using (100.0 * column(9 + i)) nooutput
    RZ[i] = STATS_max
    stats f index 1 every ::0::0 using (100.0 * column(13 + i)) nooutput
    RZ[4 + i] = STATS_max
}
pc(v) = v >= 0.1 ? sprintf("%.2f%%", v) : sprintf("%.3f%%", v)

set logscale y 10
set yrange [YMIN:1.5]
set format y "10^{%L}"
set ytics ("10^{-8}" 1e-8, "10^{-6}" 1e-6, "10^{-4}" 1e-4, "10^{-2}" 1e-2, "1" 1) font ",9"
set xrange [-66:44]
set xtics ("0" XZ, "<2^{-50}" XB, "-40" -40, "-30" -30, "-20" -20, "-10" -10, "0" 0, "10" 10, "20" 20, "30" 30) font ",9"
set style rect fc rgb "#f4c9c9" fs solid 0.5 noborder
set object 1 rect from -24, graph 0 to -14, graph 1 behind
set object 2 rect from -14, graph 0 to 16, graph 1 behind fc rgb "#cfeccf" fs solid 0.5 noborder
set object 3 rect from -66, graph 0 to -51.5, graph 1 behind fc rgb "#ececec" fs solid 1 noborder
set arrow 1 from -25, graph 0 to -25, graph 1 nohead dt 2 lw 1.5 lc rgb C_BLACK
set style fill solid 0.9 noborder
unset key
# the special bins: one bar per S, side by side
bx(x0, i) = x0 + (i - 2.5) * 0.8
set multiplot title "log_2|g S| of the gradients over every step of the deep setting: binary32 × S (a what-if) against a real fp16 backward pass at S"
do for [row = 1:2] {
    do for [c = 1:2] {
        # column offset of the series in block 0 / 1
        o = (c == 1 ? 0 : 8) + (row == 1 ? 4 : 0)
        eval panel(c == 1 ? 0.065 : 0.54, c == 1 ? 0.475 : 0.95, row == 1 ? 0.565 : 0.12, row == 1 ? 0.89 : 0.445)
        set title (c == 1 ? "binary32 gradients × S" : "fp16 run at static S, values in binary16") . \
                  (row == 1 ? ": activation gradients" : ": weight gradients") font ",11"
        set ylabel (c == 1 ? "fraction of all values" : "")
        set xlabel (row == 2 ? "log_2 |g S|   (left: exactly zero, and below 2^{-50})" : "")
        unset label
        set label 1 "subnormal" at -19, graph 0.97 center font ",9"
        set label 2 "normal" at 1, graph 0.97 center font ",9"
        set label 3 "≤ 2^{-25}:\nrounds to 0" at -26, graph 0.90 right font ",9"
        # the share left of the line, per S
        set label 4 (c == 1 ? "≤ 2^{-25}, % of\nthe nonzero:" : "zero in binary16,\n% of all:") at 17.5, graph 0.85 left font ",9"
        do for [i = 1:4] {
            v = c == 1 ? WI[(row == 1 ? 4 : 0) + i] : RZ[(row == 1 ? 4 : 0) + i]
            set label 4 + i sprintf("%s: %s", lab(i), pc(v)) at 17.5, graph 0.78 - 0.065 * i left font ",9" tc rgb word(cols, i)
        }
        plot for [i = 1:4] f index 0 using 1:(pos(column(1 + o + i))) with steps lw 2 lc rgb word(cols, i), \
             for [i = 1:4] f index 1 every ::0::1 using (bx($0 == 0 ? XZ : XB, i)):(pos(column(1 + o + i))):(bx($0 == 0 ? XZ : XB, i) - 0.35):(bx($0 == 0 ? XZ : XB, i) + 0.35):(YMIN):(pos(column(1 + o + i))) \
                with boxxyerror fc rgb word(cols, i)
    }
}
# the legend, below the panels
unset title; unset object 1; unset object 2; unset object 3; unset label; unset arrow
set key at screen 0.5, 0.035 center center horizontal maxrows 1 samplen 3 font ",10" width 3
unset border; unset tics; unset xlabel; unset ylabel; unset grid; unset logscale y
set xrange [0:1]; set yrange [0:1]
eval panel(0.05, 0.95, 0.0, 0.07)
plot for [i=1:4] NaN with lines lw 2 lc rgb word(cols, i) title lab(i)
unset multiplot
