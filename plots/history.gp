# plots/history.gp — one benchmark metric across saved results files, oldest first, with the
# 95% confidence band of each file's mean (posbench bench --history).
# Variables (set with gnuplot -e by bench/perf/history.c):
#   term      'png', 'svg' or 'pdf' (the script is loaded once for each)   out  output file
#   datafile  one row per file that has the metric: index  mean  lo  hi  "label"
#   title     figure title        ylabel  axis label
#   nfiles    number of files (x runs 1..nfiles)   ylo, yhi  the y range (padded by history.c)
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
set title title noenhanced
set xlabel 'results file (by date, oldest first)' noenhanced
set ylabel ylabel noenhanced
set grid
set key outside right top noenhanced
set xtics rotate by -40 noenhanced
set xrange [0.5:nfiles + 0.5]
set yrange [ylo:yhi]
set bmargin 7
plot datafile using 1:3:4 with filledcurves fillcolor rgb '#c6dbef' fillstyle solid 0.8 title '95% CI', \
     datafile using 1:2:xticlabels(5) with linespoints lw 2 pt 7 ps 1 lc rgb '#08519c' title 'mean'
