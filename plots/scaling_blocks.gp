# plots/scaling_blocks.gp — experiment 7: where one scale per tensor is not
# enough.  Data: scaling.dat block 5 (underflow per kind and layer under
# per-tensor and MX scaling) and blocks 2 and 3 (the nonzero values by
# floor(log2(|x| / amax)) of their tensor and of their block).
STEM = "scaling_blocks"; W = 1400; H = 900
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/scaling.dat"
stats f index 5 using 2 nooutput
NL = int(STATS_max) + 1
X0 = 1e-4
bar(v) = v > X0 ? v : 1/0
at(v) = v > X0 ? v : X0
num(v) = v == 0 ? "0" : (v < 0.001 ? sprintf("%.1e", v) : sprintf("%.3g", v))
# the four schemes: columns of block 5, colours, offsets within a layer
sc(m) = 3 + m
scol(m) = m == 1 ? C_BLUE : m == 2 ? C_GREEN : m == 3 ? C_SKY : C_ORANGE
sname(m) = m == 1 ? "per tensor, E4M3" : m == 2 ? "MXFP8 E4M3 (rceil)" : m == 3 ? "per tensor, E5M2" : "MXFP8 E5M2"
off(m) = (m - 2.5) * 0.2

set multiplot title "Where one scale per tensor is not enough: underflow per layer, and how far below the amax the values lie"
# ---- left: underflow per layer, activation gradients (top), weight
# gradients (bottom): one dot per scheme (log axis; an exact 0 at the left)
ZX = 2e-5
v0(v) = v > 0 ? v : ZX
set logscale x 10
set xrange [ZX / 2 : 2000]
set xtics ("0" ZX, "10^{-4}" 1e-4, "10^{-3}" 1e-3, "0.01" 1e-2, "0.1" 0.1, "1" 1, "10" 10, "100" 100) font ",10"
# layer l at y = -l (top to bottom)
set yrange [-NL + 0.5 : 0.55]
set ytics () font ",11"
do for [l = 0:NL - 1] { set ytics add (sprintf("%d%s", l, l == NL - 1 ? " (last)" : "") -l) }
set ylabel "layer" font ",11"
set grid xtics
set grid noytics
do for [k = 1:2] {
    kind = k == 1 ? 1 : 0
    eval panel(0.08, 0.47, k == 1 ? 0.52 : 0.08, k == 1 ? 0.86 : 0.43)
    set title (k == 1 ? "activation gradients" : "weight gradients") . ": flushed to zero, % of the nonzero values" font ",11"
    set xlabel (k == 2 ? "% of the nonzero values" : "")
    if (k == 1) {
        set key at screen 0.27, 0.955 center top horizontal maxrows 2 samplen 1 font ",10" width 2
    } else {
        unset key
    }
    plot for [m = 1:4] f index 5 using ($1 == kind ? v0(column(sc(m))) : 1/0):(-$2 - off(m)) \
            with points pt 7 ps 1.6 lc rgb scol(m) title sname(m), \
         for [m = 1:4] f index 5 using ($1 == kind ? v0(column(sc(m))) : 1/0):(-$2 - off(m)):(num(column(sc(m)))) \
            with labels left offset 1.2,0 font ",9" notitle
}
unset key
# ---- right: cumulative share of the values more than 2^k below the amax
unset logscale x
set xrange [-44 : 2]
set xtics ("≤ -40" -42, "-35" -35, "-30" -30, "-25" -25, "-20" -20, "-15" -15, "-10" -10, "-5" -5, "0" 0) font ",10"
set logscale y 10
set yrange [5e-5 : 300]
set format y "10^{%L}"
set ytics auto font ",10"
set ylabel "% of the nonzero values below 2^x · amax" offset 1,0
set grid xtics ytics
E4 = -10 - log(448) / log(2)
E5 = -17 - log(57344) / log(2)
set arrow 1 from E4, graph 0 to E4, graph 1 nohead dt 2 lw 1.5 lc rgb C_GREY
set arrow 2 from E5, graph 0 to E5, graph 1 nohead dt 3 lw 1.5 lc rgb C_GREY
# data columns of blocks 2 and 3: 1 = log2 ratio; 2..1+NL weight gradients,
# 2+NL..1+2NL activation gradients, then activations
ahid(dummy) = sum [l = 0:NL - 2] column(2 + NL + l)
alast(dummy) = column(1 + 2 * NL)
do for [k = 1:2] {
    eval panel(0.58, 0.98, k == 1 ? 0.52 : 0.08, k == 1 ? 0.86 : 0.43)
    set title (k == 1 ? "activation gradients, hidden layers 0 .. ".(NL - 2) : "activation gradients, last layer (logits)") font ",10"
    set xlabel (k == 2 ? "x (a value below 2^x · amax is more than 2^{-x} below it)" : "")
    set label 1 "per-tensor E4M3 flushes left of here" at E4, graph 0.03 left rotate by 90 offset -1.2,0 font ",9" tc rgb "#555555"
    set label 2 "per-tensor E5M2 flushes left of here" at E5, graph 0.03 left rotate by 90 offset -1.2,0 font ",9" tc rgb "#555555"
    set object 3 rect from -44, graph 0 to -40.5, graph 1 fc rgb "#ececec" fs solid 1 noborder behind
    if (k == 1) {
        stats [*:*][*:*] f index 2 using (ahid(0)) nooutput
        NT = STATS_sum
        set key at graph 0.02, graph 0.98 left top Left reverse font ",9" samplen 2.5 box opaque
        plot f index 2 using ($1 + 1):(100.0 * ahid(0) / NT) smooth cumulative with steps lw 2 lc rgb C_BLUE title "below 2^x · the tensor's amax", \
             f index 3 using ($1 + 1):(100.0 * ahid(0) / NT) smooth cumulative with steps lw 2 dt 2 lc rgb C_GREEN title "below 2^x · the block's amax", \
             f index 2 using ($1 == -40 ? -42.6 : 1/0):(100.0 * ahid(0) / NT) with points pt 5 ps 1.3 lc rgb C_BLUE notitle, \
             f index 3 using ($1 == -40 ? -41.4 : 1/0):(100.0 * ahid(0) / NT) with points pt 4 ps 1.3 lw 1.5 lc rgb C_GREEN notitle
    } else {
        stats [*:*][*:*] f index 2 using (alast(0)) nooutput
        NT = STATS_sum
        unset key
        plot f index 2 using ($1 + 1):(100.0 * alast(0) / NT) smooth cumulative with steps lw 2 lc rgb C_BLUE, \
             f index 3 using ($1 + 1):(100.0 * alast(0) / NT) smooth cumulative with steps lw 2 dt 2 lc rgb C_GREEN, \
             f index 2 using ($1 == -40 ? -42.6 : 1/0):(100.0 * alast(0) / NT) with points pt 5 ps 1.3 lc rgb C_BLUE, \
             f index 3 using ($1 == -40 ? -41.4 : 1/0):(100.0 * alast(0) / NT) with points pt 4 ps 1.3 lw 1.5 lc rgb C_GREEN
    }
}
unset multiplot
