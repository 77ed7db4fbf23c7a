# plots/heatmap.gp — a grid of attention maps, one panel per layer (row) and head (column),
# every panel on one shared colour range (posbench plot).
# Variables (set with gnuplot -e by bench/report/plot.c):
#   term        'png', 'svg' or 'pdf' (the script is loaded once for each)   out  output file
#   width, height  figure size in pixels
#   datafile    blocks separated by two blank lines, block k = layer*cols + head; each block
#               is a grid "x y value", rows separated by one blank line
#   title, subtitle  the two lines above the grid
#   xlabel, ylabel  axis labels (bottom-left panel, the only one with tics)
#   rows, cols  layers and heads           cbmin, cbmax    the shared colour range
#   cblabel     optional: what the colours mean (the colour bar's label)
#   diverging   optional: 1 for a signed quantity (blue - white at 0 - red; the range symmetric about 0)
#   xmin, xmax, ymin, ymax  the grid's coordinate range (y grows downwards, like an image)
#   colnames    optional: space-separated names of the panel columns (panel titles 'L<row> <name>'
#               instead of 'L<row> H<col>'; the spatial_weights figures)
if (term eq 'svg') {
    set terminal svg size width,height dynamic font 'Sans,10' background rgb 'white'
} else { if (term eq 'pdf') {
    set terminal pdfcairo size width/100.0,height/100.0 font 'Sans,10' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size width,height font 'Sans,9' background rgb 'white'
    } else {
        set terminal png size width,height
    }
} }
set output out
if (!exists("colnames")) colnames = ''
if (!exists("cblabel")) cblabel = ''

if (exists('diverging') && diverging) {
    set palette defined (0 '#2166ac', 0.25 '#92c5de', 0.5 '#f7f7f7', 0.75 '#f4a582', 1 '#b2182b')
} else {
    set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')
}
set cbrange [cbmin:cbmax]
set xrange [xmin-0.5:xmax+0.5]
set yrange [ymax+0.5:ymin-0.5]
set size ratio -1
unset key
unset colorbox
# margins and spacing in pixels, so panel titles never run into the row above
set multiplot layout rows,cols title title."\n".subtitle noenhanced \
    margins 60.0/width, 1-135.0/width, 50.0/height, 1-70.0/height spacing 12.0/width, 34.0/height
do for [k=0:rows*cols-1] {
    set title (colnames eq '' ? sprintf('L%d H%d', k / cols, k % cols) : sprintf('L%d %s', k / cols, word(colnames, k % cols + 1))) offset 0,-0.5
    if (k == (rows-1)*cols) {
        set tics scale 0 font ',7'; set xtics out; set ytics out
        set xlabel xlabel noenhanced offset 0,0.8; set ylabel ylabel noenhanced offset 1.5,0
    } else {
        unset xtics; unset ytics; unset xlabel; unset ylabel
    }
    if (k == rows*cols-1) { set colorbox user origin screen 1-110.0/width, 50.0/height size screen 18.0/width, 1-130.0/height; set cbtics font ',9'; set cblabel cblabel noenhanced font ',9' offset -0.5,0 }
    plot datafile index k using 1:2:3 with image
}
unset multiplot
