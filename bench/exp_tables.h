// bench/exp_tables.h — an experiment's `reference:` and `figures:` lists, checked and written
// as the tab-separated files `posbench report` and `posbench plot` read in the results dir.
//   reference:                                   -> DIR/reference.tsv
//     - {stage: finetune, match: {pe.kind: abs}, metric: top1, value: 85.2, source: "paper Table 3"}
//     (stage optional, "*" = every stage; match optional = every row; value a number)
//   figures:                                     -> DIR/figures.tsv
//     - {kind: metric_vs_axis, stage: finetune, metric: final.top1, x: pe.kind}
//     (kind required; stage, metric, x optional = "*"; metric "final.top1" is written as
//      "top1", "train.loss"/"eval.top1" as "train/loss"/"eval/top1")
#pragma once
#include "experiment.h"
#include <stddef.h>

// Checks both lists; writes the files when dir is non-NULL. Returns 0, or -1 with
// "file:line:col: message" in err.
int exp_tables_write(const experiment *e, const char *dir, char *err, size_t errlen);
