// bench/experiment/exp_tables.h — what `posbench run` leaves in the results dir for `posbench
// report` and `posbench plot` (DIR = <out>/<experiment>/): the experiment's `reference:` and
// `figures:` lists as tab-separated files, and a copy of the experiment file (for its
// `findings:`). All three lists are checked first, also when nothing is written (--dry-run).
//   reference:                                   -> DIR/reference.tsv
//     - {stage: finetune, match: {pe.kind: abs}, metric: top1, value: 85.2, source: "paper Table 3"}
//     (stage optional, "*" = every stage; match optional = every row; value a number;
//      same_data optional: true when our data are the paper's, false (the default), or a list
//      of scales where they are, e.g. [paper]; otherwise the report heads the column
//      `paper (other data)`; written as a sixth field same_data|other_data for the chosen scale)
//   figures:                                     (checked when the file loads: figure_kinds.h;
//     `posbench plot` reads them from the copy; results folders from before that have figures.tsv)
//   findings:                                    (checked: experiment/findings_spec.h)
//   the experiment file itself                   -> DIR/experiment.yaml (a byte-for-byte copy;
//     `posbench report` reads the findings from it: findings_load)
#pragma once
#include "experiment.h"
#include <stddef.h>

// Checks the three lists; writes the files (and the copy) when dir is non-NULL. Returns 0, or -1 with
// "file:line:col: message" in err (findings messages start "findings: ").
int exp_tables_write(const experiment *e, const char *dir, char *err, size_t errlen);
