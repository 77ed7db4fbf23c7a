// bench/report/plot_internal.h — what the figure modules of `posbench plot` share (plot.c, the
// command and most kinds; plot_views.c, the lecture's views): the plotter, a figure's data file,
// gnuplot runs, the other stages a `with:` list names, and RGB canvases drawn by
// plots/image_grid.gp. Not a public API (the command is plot.h).
#pragma once
#include "gnuplot.h"
#include "../results/results_read.h"
#include "../experiment/figure_kinds.h"
#include <stdio.h>

enum { PLOT_MAX_WITH = 8, GAP = 2 }; // with: names at most (figure_kinds.h); pixels between canvas cells

typedef struct {
    const char *dir;       // DIR
    gp_tools tools;        // gnuplot and plots/ with the scripts
    const rr_set *set;
    int figures;           // figures made
} plotter;

// Names the figure "<stage key>_<what>" (sanitized) and opens its data file
// DIR/figures/data/<base>.dat; the stage key is "<experiment>-<stage>" when DIR holds several
// experiments. NULL (message printed) when the file cannot be written.
FILE *plot_begin_figure(const plotter *p, const rr_stage *s, char *base, size_t blen, char *path, size_t plen, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
// Closes a data file: 0, or -1 with the error printed.
int plot_close_data(FILE *f, const char *path);
// One figure: plots/<kind>.gp into DIR/figures/<base>.png and .svg (gnuplot.h); counts it.
int plot_run_gnuplot(plotter *p, const char *kind, const char *base, gp_vars *v);
// The stage names of a `with:` value ("a,b"; "" none) into names; returns how many.
int plot_split_with(const char *with, char names[PLOT_MAX_WITH][256]);
// The run of stage `name` (same experiment as s) to draw beside `main`: the one for which has()
// holds with main's seed in the stage's first configuration that has one, else its first run for
// which has() holds. NULL (warned, naming `kind` and `what` it lacks) when the stage is absent or
// none of its runs has it.
const rr_run *plot_companion_run(const rr_set *set, const rr_stage *s, const char *name, const rr_run *main, const char *where,
                                 int (*has)(const rr_run *r), const char *kind, const char *what);
// An RGB canvas rgb (H, W, 3) as plots/image_grid.gp reads it: "x y r g b" lines, y up, rows
// separated by blank lines.
void plot_write_rgb(FILE *f, const unsigned char *rgb, int W, int H);

// plot_views.c: the figure kinds cls_attention and key_pca (plot.h says what they draw).
int fig_cls_attention(plotter *p, const rr_stage *s, const char *with, const char *where);
int fig_key_pca(plotter *p, const rr_stage *s, const char *with, const char *where);
