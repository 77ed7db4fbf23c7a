# plots/image_grid.gp — a grid of sample images (e.g. original / context / reassembled),
# one row per kind of image (posbench plot).
# Variables (set with gnuplot -e by bench/report/plot.c):
#   term        'png' or 'svg' (the script is loaded once for each)   out  output file
#   width, height  figure size in pixels
#   datafile    one RGB image "x y r g b" (0..255), the whole grid with white gaps
#   title       figure title
#   nrows       rows of the grid           label1..labelN, ypos1..yposN  row names and their y
#   ncols       optional: columns named below the grid, colname1..colnameN, xpos1..xposN their x
#               (the /views figures: image, head 1.. or block 1..)
if (term eq 'svg') {
    set terminal svg size width,height dynamic font 'Sans,11' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size width,height font 'Sans,10' background rgb 'white'
    } else {
        set terminal png size width,height
    }
}
set output out
set title title noenhanced
set size ratio -1
unset key
unset border
if (exists("ncols")) {
    set xtics scale 0 () noenhanced
    do for [i=1:ncols] { set xtics add (value(sprintf('colname%d', i)) value(sprintf('xpos%d', i))) }
} else {
    unset xtics
}
set ytics scale 0 () noenhanced
do for [i=1:nrows] { set ytics add (value(sprintf('label%d', i)) value(sprintf('ypos%d', i))) }
set autoscale fix
plot datafile using 1:2:3:4:5 with rgbimage
