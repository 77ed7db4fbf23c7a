// bench/report/caveats.h — the caveats `posbench report DIR` prints for each experiment: under
// its stage tables and at the head of its findings table, where a reader sees them before any
// number or verdict (they used to live in <!-- --> comments of docs/results/*.md).
// Sources, per experiment:
//   - the `caveats:` list of the experiment.yaml that `posbench run` keeps in the results dir
//     (every experiment.yaml below DIR, as findings.c reads them; checked by
//     bench/experiment/caveats_spec.h: a bad list is bad input, exit 2);
//   - written automatically from the runs: "timings under CPU contention" when a done run of the
//     experiment waited for a CPU more than CAVEATS_CPU_WAIT_LIMIT of its runnable time while it
//     trained (root cpu_run_s, cpu_wait_s: bench/results/machine.h); "one seed" when every configuration of a stage has
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

// A run's wait for a CPU while it trained: cpu_wait_s / (cpu_run_s + cpu_wait_s) of its root
// attributes; NAN when its file does not record them (older files, a kernel without schedstat).
double caveats_run_cpu_wait(const rr_run *r);
// Above this fraction a run's timings are said to be measured under CPU contention (they take
// 1 / (1 - fraction) of the time the machine gives the run alone: 10% waiting, 1.11x).
#define CAVEATS_CPU_WAIT_LIMIT 0.10
// The wait for a CPU of the done runs runs[0..n) of set: "runs waited for a CPU 2% to 67% of
// their runnable time (median 12%), ..." into out; returns how many of them exceed the limit
// (0 with out "" when none records it).
int caveats_cpu_wait_text(const rr_set *set, const int *runs, int n, char *out, size_t len);

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
