# plots/metric_vs_axis.gp — a final metric against one axis of a sweep, mean ± std over
# seeds as error bars, one line per assignment of the other axes (posbench plot).
# Variables (set with gnuplot -e by bench/report/plot.c):
#   term        'png' or 'svg' (the script is loaded once for each)   out  output file
#   datafile    blocks separated by two blank lines, one per line of the plot; columns:
#               x  mean  std  n  "x label"
#   title       figure title               xlabel, ylabel  axis labels
#   nlines      number of blocks           title1..titleN  legend entry of each block
#   categorical 1: x is the value's index, ticks labelled from column 5; 0: numeric x
#   logx        1: logarithmic x axis
if (term eq 'svg') {
    set terminal svg size 800,560 dynamic font 'Sans,12' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size 800,560 font 'Sans,11' background rgb 'white'
    } else {
        set terminal png size 800,560
    }
}
set output out
set title title noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set grid
set key outside right top noenhanced
set bars small
if (logx) { set logscale x }
if (categorical) {
    set offsets 0.5, 0.5, 0, 0
    plot for [i=1:nlines] datafile index (i-1) using 1:2:3:xticlabels(5) with yerrorlines lw 2 pt 7 ps 1 \
        title value(sprintf('title%d', i))
} else {
    set offsets graph 0.05, graph 0.05, 0, 0
    plot for [i=1:nlines] datafile index (i-1) using 1:2:3 with yerrorlines lw 2 pt 7 ps 1 \
        title value(sprintf('title%d', i))
}
