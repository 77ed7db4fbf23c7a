// bench/experiment/figure_labels.h — an experiment file's `labels:`: names written for people
// that `posbench plot` puts in its figures instead of the file's raw names. Optional; a name
// without a label stays as it is (the raw key or stage name is the fallback).
//
//   labels:
//     stages:                       # stage name -> its title in figure titles and grid rows
//       pretrain: MP3 pretraining
//     keys:                         # a swept key -> its name in legends and on axes
//       pe.kind: position encoding
//       pretrain.objective.eta: pretraining masking ratio η
//
// Checked when the file loads (experiment.c; `posbench plot` reads the copy in the results
// folder the same way): a mapping with only `stages` and `keys`, each a mapping of names to one
// line of text (1-120 characters); keys are configuration keys (or a parent stage's copy,
// "pretrain.<key>"); the experiment checks that the stages exist. Errors: "path:line:col:
// labels: ...", exit 2.
#pragma once
#include "yaml_tree.h"
#include <stddef.h>

enum { FIGURE_LABELS_MAX = 64, FIGURE_LABEL_LEN = 128 };

typedef struct {
    char name[256];              // the stage name or key
    char text[FIGURE_LABEL_LEN]; // what a reader sees
    const ynode *at;             // the name's node in the tree read (the experiment's stage check); valid while it lives
} figure_label;

typedef struct {
    int nstages, nkeys;
    figure_label stages[FIGURE_LABELS_MAX], keys[FIGURE_LABELS_MAX];
} figure_labels;

// Reads and checks the `labels:` node (NULL or null: none) of the file at path into *out
// (zeroed first). 0, or -1 with "path:line:col: labels: ..." in err.
int figure_labels_read(const char *path, const ynode *node, figure_labels *out, char *err, size_t errlen);
// The title of stage `stage` (its label, else the name itself); l may be NULL.
const char *figure_labels_stage(const figure_labels *l, const char *stage);
// The name of key `key` (its label, else NULL); l may be NULL.
const char *figure_labels_key(const figure_labels *l, const char *key);
