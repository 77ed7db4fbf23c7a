// bench/report/caveats.h — the caveats `posbench report DIR` prints for each experiment: under
// its stage tables and at the head of its findings table, where a reader sees them before any
// number or verdict (they used to live in <!-- --> comments of docs/results/*.md).
// Sources, per experiment:
//   - the `caveats:` list of the experiment.yaml that `posbench run` keeps in the results dir
//     (every experiment.yaml below DIR, as findings.c reads them; checked by
//     bench/experiment/caveats_spec.h: a bad list is bad input, exit 2);
//   - written automatically from the runs: "one seed" when every configuration of a stage has
//     at most one `done` run (n = 1: no spread over seeds): for the whole
//     experiment when that holds for all its stages, else naming the stages; the device when a
//     run was not trained on the CPU; "collapsed (DINO)" naming the done runs whose /final
//     dino_collapsed is 1.
// Markdown, "" when an experiment has no caveat:
//   **Caveats** (experiment `NAME`):        (under the tables)
//   **Caveats** (read the verdicts with these):   (findings header)
//
//   - <caveat>
//   - one seed: ...
// State: caveats_load fills a table kept in this module until caveats_free, so findings.c can
// print its header with one call (caveats_fprint) without a new parameter.
#pragma once
#include "../results/results_read.h"
#include <stdio.h>
#include <stddef.h>

enum { CAVEATS_TABLES = 0, CAVEATS_FINDINGS = 1 };

// Reads the caveats of every experiment.yaml below dir and derives the automatic ones from set.
// 0, or -1 with "file:line:col: caveats: ..." in err.
int caveats_load(const char *dir, const rr_set *set, char *err, size_t errlen);
void caveats_free(void);
// The Markdown block of `experiment` (malloc'd; "" when none).
char *caveats_markdown(const char *experiment, int where);
// The caveats of `experiment` joined by "; " (malloc'd; "" when none): findings.csv / .json.
char *caveats_joined(const char *experiment);
// Writes caveats_markdown(experiment, where) to f.
void caveats_fprint(FILE *f, const char *experiment, int where);
