// bench/report/plot_internal.h — what the figure kinds of `posbench plot` share besides
// plot_figure.h (the plotter, a figure's data file, its texts, gnuplot runs): the other stages a
// `with:` list names, RGB canvases drawn by plots/image_grid.gp, and each kind's entry point that
// plot.c dispatches to (plot_curves.c, plot_axes.c, plot_images.c, plot_maps.c, plot_views.c).
// Not a public API (the command is plot.h).
#pragma once
#include "plot_figure.h"
#include "../../core/safe_file.h"
#include "gnuplot.h"
#include "../results/results_read.h"
#include "../experiment/figure_kinds.h"
#include "../experiment/figure_labels.h"
#include <stdio.h>

enum { PLOT_MAX_WITH = 8, GAP = 2 }; // with: names at most (figure_kinds.h); pixels between canvas cells

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

// plot_images.c: the figure kind image_grid (plot.h says what it draws).
int fig_image_grid(plotter *p, const rr_stage *s, const char *with, const char *where);

// plot_maps.c: the figure kinds heatmap (/attention/<name>) and spatial_weights (gMLP's /spatial/W).
int fig_heatmaps(plotter *p, const rr_stage *s, const char *name);
int fig_spatial_weights(plotter *p, const rr_stage *s);

// plot_views.c: the figure kinds cls_attention and key_pca (plot.h says what they draw).
int fig_cls_attention(plotter *p, const rr_stage *s, const char *with, const char *where);
int fig_key_pca(plotter *p, const rr_stage *s, const char *with, const char *where);

// ---- plot_axes.c: axes a reader can trust
// "n = 3", or "n = 2-3" when the points of a series have different counts.
void plot_n_text(int lo, int hi, char *out, size_t len);
// 1 when unit is "%" (an accuracy: its axis and CI bands within [0, 100]).
int plot_is_percent(const char *unit);
// A CI bound as drawn: within [0, 100] for an accuracy.
double plot_clip_bound(const char *unit, double v);
// ymin, ymax for a metric of `unit` whose drawn values span [ylo, yhi]; note (may be NULL) says
// when a unit-less range is narrow and leaves 0 out, for the subtitle; else "".
void plot_y_range_vars(gp_vars *v, const char *unit, double ylo, double yhi, char *note, size_t notelen);
// xtic_step for an x axis of whole numbers over [lo, hi]: 1, 2 or 5 x 10^k, about 10 tics at most.
void plot_integer_xtics(gp_vars *v, double lo, double hi);

// ---- plot_curves.c: the curve figure kinds
// A stage's /<group> series ycol against xcol, per configuration (mean over seeds, 95% CI band).
int plot_fig_curves(plotter *p, const rr_stage *s, const char *group, const char *xcol, const char *ycol);
// The per-run result curves of a stage: /position, /knn, /resolution.
int plot_fig_result_curves(plotter *p, const rr_stage *s);

