// bench/report/plot_internal.h — what the figure modules of `posbench plot` share (plot.c, the
// command and most kinds; plot_maps.c, attention maps and gMLP's W; plot_images.c, image grids;
// plot_views.c, the lecture's views): the plotter, a figure's data file,
// gnuplot runs, the other stages a `with:` list names, and RGB canvases drawn by
// plots/image_grid.gp. Not a public API (the command is plot.h).
#pragma once
#include "../../core/safe_file.h"
#include "gnuplot.h"
#include "../results/results_read.h"
#include "../experiment/figure_kinds.h"
#include "../experiment/figure_labels.h"
#include <stdio.h>

enum { PLOT_MAX_WITH = 8, GAP = 2 }; // with: names at most (figure_kinds.h); pixels between canvas cells

typedef struct {
    const char *dir;       // DIR
    gp_tools tools;        // gnuplot and plots/ with the scripts
    const rr_set *set;
    int figures;           // figures made
    const figure_spec *spec; // the figures: entry being drawn (its label:, xlabel:, ylabel:)
    const figure_labels *labels; // the experiment's labels: (stage titles, key names); NULL: none
    char **names;          // the file names given so far (each figure's is unique)
    int nnames;
    safe_out data;         // the figure's data file being written (plot_begin_figure .. plot_close_data)
    int data_refused;      // a data file's path was refused (a link, FIFO or device there): the command exits 2
} plotter;

// Names the figure "<experiment>_<stage>_<what>" ("<stage>_<what>" for runs without an
// experiment; sanitized, e.g. mp3-main_finetune_top1-vs-eta), unique among this command's figures
// ("-2", "-3" appended), and opens its data file DIR/figures/data/<base>.dat, written atomically
// (core/safe_file.h: a temporary name renamed over it by plot_close_data; never through a link or
// device at the name). NULL (message printed) when the file cannot be written.
FILE *plot_begin_figure(plotter *p, const rr_stage *s, char *base, size_t blen, char *path, size_t plen, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
// The figure's title and axis labels (xlabel / ylabel NULL: the script has none): the figures:
// entry's label:, xlabel:, ylabel: where given, else the ones made from the stage, metric and axis.
void plot_figure_texts(const plotter *p, gp_vars *v, const char *title, const char *xlabel, const char *ylabel);
// Closes a data file: 0, or -1 with the error printed.
int plot_close_data(plotter *p, const char *path);
// One figure: plots/<kind>.gp into DIR/figures/<base>.png, .svg and .pdf (gnuplot.h); counts it.
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

// plot.c: a configuration for legends (axes other than `skip`, -1 none; a key with a label as
// "label: value") and for file names ("<key>-<value>" per axis, '_'-separated).
void plot_config_legend(const plotter *p, const rr_stage *s, const rr_config *c, int skip, char *out, size_t len);
// A stage's title (its labels: entry, else its name) and a key's name (its label, else the key).
const char *plot_stage_title(const plotter *p, const char *stage);
const char *plot_key_name(const plotter *p, const char *key);
void plot_config_slug(const rr_stage *s, const rr_config *c, char *out, size_t len);
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

