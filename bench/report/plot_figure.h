// bench/report/plot_figure.h — what every figure of `posbench plot` shares (plot_figure.c), below
// plot.c and the figure kinds (plot_curves.c, plot_images.c, plot_maps.c, plot_views.c): the
// plotter, a figure's name and data file, its texts, and the gnuplot run. Not a public API (the
// command is plot.h).
#pragma once
#include "../../core/safe_file.h"
#include "gnuplot.h"
#include "../results/results_read.h"
#include "../experiment/figure_kinds.h"
#include "../experiment/figure_labels.h"
#include <stdio.h>

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
// A configuration for legends (axes other than `skip`, -1 none; a key with a label as
// "label: value") and for file names ("<key>-<value>" per axis, '_'-separated).
void plot_config_legend(const plotter *p, const rr_stage *s, const rr_config *c, int skip, char *out, size_t len);
// The same, leaving out too the axes a with hide[a] 1 (hide NULL: none).
void plot_config_legend_hiding(const plotter *p, const rr_stage *s, const rr_config *c, int skip, const int *hide, char *out,
                               size_t len);
// An axis key in a file name: its last dotted part, or the whole key with '.' -> '-' when
// another axis of the stage ends the same way.
void plot_short_key(const rr_stage *s, int ax, char *out, size_t len);
// A stage's title (its labels: entry, else its name) and a key's name (its label, else the key).
const char *plot_stage_title(const plotter *p, const char *stage);
const char *plot_key_name(const plotter *p, const char *key);
void plot_config_slug(const rr_stage *s, const rr_config *c, char *out, size_t len);
