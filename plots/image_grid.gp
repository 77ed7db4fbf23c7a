# plots/image_grid.gp — a grid of sample images (e.g. original / context / reassembled),
# one row per kind of image (posbench plot).
# Variables (set with gnuplot -e by bench/report/plot.c):
#   term        'png', 'svg' or 'pdf' (the script is loaded once for each)   out  output file
#   width, height  figure size in pixels
#   datafile    one RGB image "x y r g b" (0..255), the whole grid with white gaps
#   title       figure title               subtitle  optional: a second title line
#   nrows       rows of the grid           label1..labelN, ypos1..yposN  row names and their y
#   ncols       optional: columns named below the grid, colname1..colnameN, xpos1..xposN their x
#               (the /views figures: image N, head 1.. or block 1.., per test image)
#   colorbox    optional: 1 draws a viridis colour scale from "min" to "max" beside the grid (the
#               [CLS] attention maps, each scaled to its own range), cblabel its label
if (term eq 'svg') {
    set terminal svg size width,height dynamic font 'Sans,11' background rgb 'white'
} else { if (term eq 'pdf') {
    set terminal pdfcairo size width/100.0,height/100.0 font 'Sans,11' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size width,height font 'Sans,10' background rgb 'white'
    } else {
        set terminal png size width,height
    }
} }
set output out
# the title centred on the figure (a narrow grid's plot area would push a long one off the edge)
set title ' '
set label 1 ((exists('subtitle') && subtitle ne '') ? title . "\n" . subtitle : title) at screen 0.5, screen 1 - 16.0/height center front noenhanced
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
if (exists('colorbox') && colorbox) {
    set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')
    set cbrange [0:1]
    set cbtics ('min' 0, 'max' 1) scale 0
    set cblabel cblabel noenhanced
    set rmargin at screen 1 - 170.0/width
    set colorbox user origin screen 1 - 140.0/width, 0.2 size screen 18.0/width, 0.6
    plot datafile using 1:2:3:4:5 with rgbimage, NaN with lines lc palette cb 0 notitle
} else {
    plot datafile using 1:2:3:4:5 with rgbimage
}
