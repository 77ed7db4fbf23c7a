# plots/curves.gp — training curves (loss vs step, accuracy vs epoch), one line per
# configuration, each the mean over its seeds in a shaded band, the mean's 95% CI (posbench plot).
# Variables (set with gnuplot -e by bench/report/plot.c):
#   term        'png', 'svg' or 'pdf' (the script is loaded once for each)   out  output file
#   datafile    blocks separated by two blank lines, one per configuration; columns:
#               x  mean  ci95-lo  ci95-hi  [n]
#   title       figure title               xlabel, ylabel  axis labels
#   subtitle    optional: a second title line (what is drawn: mean, CI; a y range that is zoomed)
#   nlines      number of blocks           title1..titleN  legend entry of each block (n stated)
#   logy        1: logarithmic y axis       logx  1: logarithmic x axis (optional)
#   marks       1: mark the points too (few points, e.g. once per epoch)
#   band        1: draw the CI bands (some point has n >= 2)
#   xmin, xmax, ymin, ymax  optional: the ranges (a one-point x; whole-number x; an accuracy's
#               y from 0 to at most 100; a non-negative metric's y from 0: bench/report/plot.c)
#   xtic_step   optional: x tics every xtic_step (whole numbers: epochs, steps, layers), no minor tics
#   points_only optional: 1 when every block has one point (one epoch): points with error bars
#               (the CI, when band), never lines or bands, which would need two points
if (term eq 'svg') {
    set terminal svg size 800,560 dynamic font 'Sans,12' background rgb 'white'
} else { if (term eq 'pdf') {
    set terminal pdfcairo size 8in,5.6in font 'Sans,11' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size 800,560 font 'Sans,11' background rgb 'white'
    } else {
        set terminal png size 800,560
    }
} }
set output out
if (exists('subtitle') && subtitle ne '') { set title title . "\n" . subtitle noenhanced } else { set title title noenhanced }
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set grid
set key below Left reverse samplen 2 maxcols 1 width -2 height 1 noenhanced
if (logy) { set logscale y }
if (exists('logx') && logx) { set logscale x }
if (exists('xmin')) { set xrange [xmin:xmax] }
if (exists('xtic_step')) { set xtics xtic_step; set mxtics 1; set format x '%.0f' }
if (exists('ymin')) { set yrange [ymin:ymax] }
if (!exists('band')) band = 0
set style fill transparent solid 0.2 noborder
if (exists('points_only') && points_only) {
    plot for [i=1:nlines] datafile index (i-1) using 1:2:3:4 with yerrorbars lw 2 pt 7 ps 1.2 lc i title value(sprintf('title%d', i))
} else { if (marks) {
    plot for [i=1:(band ? nlines : 0)] datafile index (i-1) using 1:3:4 with filledcurves lc i notitle, \
         for [i=1:nlines] datafile index (i-1) using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc i title value(sprintf('title%d', i))
} else {
    plot for [i=1:(band ? nlines : 0)] datafile index (i-1) using 1:3:4 with filledcurves lc i notitle, \
         for [i=1:nlines] datafile index (i-1) using 1:2 with lines lw 2 lc i title value(sprintf('title%d', i))
} }
