// bench/experiment/exp_tables.h — an experiment's `reference:`, `figures:` and `findings:` lists, checked
// and written as the tab-separated files `posbench report` and `posbench plot` read in the
// results dir (DIR = <out>/<experiment>/).
//   reference:                                   -> DIR/reference.tsv
//     - {stage: finetune, match: {pe.kind: abs}, metric: top1, value: 85.2, source: "paper Table 3"}
//     (stage optional, "*" = every stage; match optional = every row; value a number)
//   figures:                                     -> DIR/figures.tsv
//     - {kind: metric_vs_axis, stage: finetune, metric: final.top1, x: pe.kind}
//     (kind required; stage, metric, x optional = "*"; metric "final.top1" is written as
//      "top1", "train.loss"/"eval.top1" as "train/loss"/"eval/top1")
//   findings:                                    -> DIR/findings.tsv (removed when absent)
//     - claim: "MP3 finetuning beats the supervised baseline"   # required text
//       paper: "Table 3: 84.0 vs 73.4"          # optional text, shown beside our numbers
//       kind: greater                           # greater | at_least | at_most | peak_inside |
//                                               # increasing | decreasing
//       a: {stage: finetune, match: {pe.kind: abs}, metric: top1}   # the runs it is about
//       b: {stage: baseline, metric: top1}      # greater only: the runs a must beat
//       value: 0.95                             # at_least / at_most only: a number in the
//                                               # metric's stored units (0.95 = 95 % top1)
//       x: pretrain.objective.eta               # peak_inside / increasing / decreasing only
//       per: pe.kind                            # optional, any kind: checked per value
//     (a/b: stage required, a stage of the experiment; match optional, config key -> value,
//      each value checked against the key's type; metric required, a /final attribute name,
//      "final.top1" written as "top1". match, x and per keys: a config key, or
//      "<stage>.<config key>" for a stage of the experiment (such keys are looked up in
//      /config as written). A kind rejects keys it does not use. Semantics: bench/report/findings.h.)
//   findings.tsv: '#' lines and blank lines ignored; the first other line is
//     experiment<TAB>NAME
//   then one finding per line, 12 tab-separated fields (empty = absent or unused):
//     kind claim paper a.stage a.match a.metric b.stage b.match b.metric value x per
//   Every field is escaped: backslash, tab, newline, CR as \\ \t \n \r; a match field is
//   key=value pairs joined by ',' in which ',' and '=' inside a key or value are \, and \=.
#pragma once
#include "experiment.h"
#include <stddef.h>

// Checks the three lists; writes the files when dir is non-NULL. Returns 0, or -1 with
// "file:line:col: message" in err (findings messages start "findings: ").
int exp_tables_write(const experiment *e, const char *dir, char *err, size_t errlen);
