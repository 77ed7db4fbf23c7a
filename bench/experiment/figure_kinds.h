// bench/experiment/figure_kinds.h — the figure-kind registry: one FIGURE_KINDS entry per kind of
// an experiment's `figures:` list, with the keys it takes and its own checks. The experiment
// checker (experiment.c, when a file loads) and `posbench plot` (bench/report/plot.c, which
// draws each kind with a function named after it: a kind without one does not compile) share
// it, so a figure `posbench run` accepts is one `posbench plot` draws, and an unknown key (a
// typo such as `metrc:`) is an error at load time with file:line:col, exit 2.
// What each kind draws: bench/report/plot.h.
#pragma once
#include "yaml_tree.h"
#include <stddef.h>

// X(name, allowed keys (comma-separated), one line of help)
#define FIGURE_KINDS(X)                                                                                                  \
    X(metric_vs_axis, "kind,stage,metric,x", "a /final metric (metric: final.top1, the default) against a swept key (x: pe.kind; default every axis) or another /final metric (x: final.params)") \
    X(curves, "kind,stage,metric", "a /train or /eval column over training (metric: train.loss, eval.top1; default both)") \
    X(heatmap, "kind,stage,metric", "an /attention array per layer and head (metric: relmap, the default)")                 \
    X(image_grid, "kind,stage,with", "/samples images; with: [stage, ...] adds other stages' rows (needs stage)")          \
    X(result_curves, "kind,stage", "per-run arrays: /position, /knn, /resolution curves")                                   \
    X(spatial_weights, "kind,stage", "gMLP/aMLP /spatial/W per block")                                                    \
    X(cls_attention, "kind,stage,with", "/views: each view image, then the last block's [CLS] attention per head; with: [stage, ...] adds other stages' runs as rows") \
    X(key_pca, "kind,stage,with", "/views: the PCA of the keys per block as RGB, rows = methods (with: other stages), columns = blocks shallow -> deep")

#define FIGURE_ID_(name, keys, help) FIGURE_##name,
typedef enum { FIGURE_KINDS(FIGURE_ID_) FIGURE_KIND_COUNT } figure_kind_id;
#undef FIGURE_ID_

typedef struct {
    const char *name;
    const char *keys; // the keys an entry of this kind may have, comma-separated
    const char *help;
} figure_kind;

// One figure request: an entry of `figures:` (or a line of an old results folder's figures.tsv).
typedef struct {
    figure_kind_id kind;
    char stage[256];  // "" = every stage
    char metric[256]; // "" = the kind's default; "final.top1" is kept as "top1", "eval.top1" as "eval/top1"
    char axis[256];   // metric_vs_axis: x ("" = every axis; "final.params" = a metric); image_grid: with, comma-separated
    char where[320];  // "file:line" of the entry, for warnings ("" for a default)
} figure_spec;

const figure_kind *figure_kind_at(int id);        // NULL past the last
int figure_kind_find(const char *name);           // the id, -1 when unknown
const char *figure_kind_names(void);              // "metric_vs_axis, curves, ..."
// "final.top1" -> "top1", "eval.top1" / "train.loss" -> "eval/top1" / "train/loss", else as is.
void figure_metric_name(const char *in, char *out, size_t len);
// Checks one entry of a `figures:` list (a mapping) of the file at path: its kind is known,
// every key is one the kind takes, and the kind's own rules (curves: a train or eval column;
// metric_vs_axis: a /final metric; image_grid: with is a list of 1 to 8 names and needs a
// stage). Fills *out when not NULL. 0, or -1 with "path:line:col: figures: ..." in err.
// Stage names are not checked here (the experiment checker knows its stages).
int figure_spec_check(const char *path, const ynode *item, figure_spec *out, char *err, size_t errlen);
