# plots/lost_bits.gp — experiment 4: kept updates under stochastic rounding
# with N supplied random bits, one panel per P3109 3.1 variant
STEM = "lost_bits"; W = 1100; H = 900
_d = ""; _p = ARG0
while (strstrt(_p, "/") > 0) { _i = strstrt(_p, "/"); _d = _d . _p[1:_i]; _p = _p[_i+1:] }
load _d . "lab_style.gp"

f = dir."/lost_bits.dat"
# one block per variant and N (variant-major, N = 1..16): index v*16 + N-1
# columns: variant nbits ratio n dw_zero, then |w| grows (6-18) and shrinks
# (19-31): n kept full_kept full_expected u_min u_max u_kept_min n_lo
# kept_lo expected_lo n_mid kept_mid expected_mid
NS = "2 4 6 8 10 12"
ncol(i) = word(C_VERM." ".C_ORANGE." ".C_GREEN." ".C_SKY." ".C_BLUE." ".C_PURPLE, i)
blk(v, n) = v * 16 + n - 1
vtitle(v) = v == 0 ? "stochastic (P3109 StochasticC)" : v == 1 ? "stochastic-odd" : \
            v == 2 ? "fast (P3109 StochasticB)" : "fastest (P3109 StochasticA)"

# where dw itself rounds to zero in binary16 for some weights (column 5)
stats f index 0 using ($5 > 0 ? $3 : NaN) nooutput
DS = STATS_max
# "none kept" is drawn in a band below 10^-6, one row per N (so that no
# curve hides another there): each curve runs along its row and rises
# where its variant starts keeping updates
zr(i) = 1.2e-8 * 1.75**(i - 1)
ZMID = zr(3.5)
pos(v) = v > 0 ? v : 1/0
kf(k, n, i) = n > 0 ? (k > 0 ? k / n : zr(i)) : 1/0

set logscale x 2
set xrange [2**-26.6:2**-7.4]
set xtics ()
do for [k=-26:-8:2] { set xtics add (sprintf("2^{%d}", k) 2.0**k) }
set logscale y 10
set yrange [6e-9:4]
set ytics ("10^{-6}" 1e-6, "10^{-4}" 1e-4, "10^{-2}" 1e-2, "1" 1, "none" ZMID)
set mytics 1
set grid noytics
set arrow 9 from graph 0, first 3.5e-7 to graph 1, first 3.5e-7 nohead dt 3 lc rgb C_GREY
set object 1 rect from 2**-26.6, graph 0 to DS, graph 1 fc rgb C_GREY fs transparent solid 0.25 noborder behind
unset key

set multiplot title "Updates kept when w + dw is rounded into binary16 with N random bits, against r = |dw|/|w|"
L0 = 0.07; R0 = 0.47; L1 = 0.56; R1 = 0.96
T0 = 0.90; B0 = 0.57; T1 = 0.47; B1 = 0.14
do for [v=0:3] {
    l = (v % 2 == 0) ? L0 : L1; r = (v % 2 == 0) ? R0 : R1
    t = (v < 2) ? T0 : T1; b = (v < 2) ? B0 : B1
    eval panel(l, r, b, t)
    set title vtitle(v)
    if (v >= 2) { set xlabel "r = |dw| / |w|"; set format x "2^{%L}" } else { unset xlabel; set format x "" }
    if (v % 2 == 0) { set ylabel "fraction of updates kept" } else { unset ylabel }
    if (v == 0) {
        set label 2 "dw = 0 in binary16\nfor some weights" at 2**-25.8, 3e-3 left font ",9" tc rgb "#555555"
    } else { unset label 2 }
    if (v == 3) {
        plot f index 0 using 3:(pos($9/$6)) with lines lw 3 lc rgb C_BLACK, \
             for [i=1:words(NS)] f index blk(v, int(word(NS, i))) using 3:(kf($7, $6, i)) \
                 with linespoints lw 2 pt 7 ps 0.5 lc rgb ncol(i), \
             for [i=1:words(NS)] f index blk(v, int(word(NS, i))) using 3:(kf($20, $19, i)) \
                 with lines lw 2 dt 2 lc rgb ncol(i)
    } else {
        plot f index 0 using 3:(pos($9/$6)) with lines lw 3 lc rgb C_BLACK, \
             for [i=1:words(NS)] f index blk(v, int(word(NS, i))) using 3:(kf($7, $6, i)) \
                 with linespoints lw 2 pt 7 ps 0.5 lc rgb ncol(i)
    }
}
unset label 2

# the legend, below the panels (column by column: the references, then N)
unset title; unset object 1; unset arrow 9
unset border; unset tics; unset xlabel; unset ylabel; unset grid
unset logscale x; unset logscale y
set xrange [0:1]; set yrange [0:1]
set key at screen 0.5, 0.04 center center horizontal maxcols 4 maxrows 2 samplen 2 \
    font ",10" width 1 spacing 1.2
eval panel(0.02, 0.98, 0.005, 0.075)
plot NaN with lines lw 3 lc rgb C_BLACK title "full width: min(1, u)", \
     NaN with lines lw 2 dt 2 lc rgb C_GREY title "fastest, |w| shrinks", \
     for [i=1:words(NS)] NaN with linespoints lw 2 pt 7 ps 0.5 lc rgb ncol(i) \
         title sprintf("N = %s random bits", word(NS, i))
unset multiplot
