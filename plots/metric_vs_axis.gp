# plots/metric_vs_axis.gp — a final metric against one axis of a sweep: the mean over seeds with
# its 95% CI as error bars, one series per assignment of the other axes (posbench plot).
# Categories (text values, a few whole numbers) are points at category positions, never joined
# by lines; numeric axes join a series' points. Series are offset sideways (in the data file's x)
# so their error bars do not overlap.
# Variables (set with gnuplot -e by bench/report/plot.c):
#   term        'png', 'svg' or 'pdf' (the script is loaded once for each)   out  output file
#   datafile    blocks separated by two blank lines, one per series; columns:
#               plotted-x  mean  ci95-lo  ci95-hi  n  "x label"
#   title       figure title               xlabel, ylabel  axis labels
#   subtitle    optional: a second title line (what is drawn: mean and CI, or one seed)
#   nlines      number of blocks           title1..titleN  legend entry of each block (n stated)
#   categorical 1: x is the category's index; 0: numeric x
#   logx        1: logarithmic x axis
#   xtics       optional: the tics, e.g. ("abs" 0, "sin2d" 1): at the categories / the values, nowhere else
#   xmin, xmax  optional: the x range (categories: -0.5 .. K-0.5; one numeric value: around it)
#   ymin, ymax  optional: the y range (given when every point and bar has one value)
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
set grid ytics
set key below Left reverse samplen 2 maxcols 1 width -2 height 1 noenhanced
set bars small
if (exists('xtics') && xtics ne '') { eval('set xtics ' . xtics . ' noenhanced') }
if (logx) { set logscale x }
if (exists('xmin')) { set xrange [xmin:xmax] } else { set offsets graph 0.05, graph 0.05, 0, 0 }
if (exists('ymin')) { set yrange [ymin:ymax] } else { set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05 }
if (categorical) {
    plot for [i=1:nlines] datafile index (i-1) using 1:2:3:4 with yerrorbars lw 2 pt 7 ps 1.2 lc i \
        title value(sprintf('title%d', i))
} else {
    plot for [i=1:nlines] datafile index (i-1) using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc i \
        title value(sprintf('title%d', i))
}
