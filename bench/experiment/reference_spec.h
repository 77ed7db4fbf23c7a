// bench/experiment/reference_spec.h — an experiment's `reference:` list (the paper's numbers the
// report puts beside ours), checked when `posbench run` and `posbench list` start and read by
// `posbench report` from the experiment.yaml copy the run keeps:
//   reference:
//     - {stage: finetune, match: {pe.kind: abs}, metric: top1, value: 85.2, source: "paper Table 3"}
//   (stage optional, "*" = every stage; match optional = every row; metric "final.top1" is kept
//    as "top1"; value a number; same_data optional: true when our data are the paper's, false
//    (the default), or a list of scales where they are, e.g. [paper], resolved for e->scale;
//    otherwise the report heads the column `paper (other data)`)
// A key other than these, text with a tab or line break (one report table cell each), a value
// that is not a number or a stage that is not the experiment's: "file:line:col: message".
#pragma once
#include "experiment.h"
#include <stddef.h>

typedef struct {
    char *stage;  // "*" = every stage
    char *match;  // "key=value,key=value" ("" = every configuration)
    char *metric; // /final attribute ("top1"), or "eval/top1" style for eval.* / train.*
    char *value, *source;
    int same_data; // 1: the paper measured on our data, at e->scale
    int line;      // of the entry in the experiment file
} reference_entry;

// Checks e->reference and, when out is not NULL, reads it into *out (*n entries; free with
// reference_free). 0, or -1 with "file:line:col: message" in err (nothing to free then).
int reference_parse(const experiment *e, reference_entry **out, int *n, char *err, size_t errlen);
void reference_free(reference_entry *r, int n);
