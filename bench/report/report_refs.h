// bench/report/report_refs.h — the paper's numbers a report puts beside ours: the `reference:`
// list of the experiment file the run kept (DIR/<experiment>/experiment.yaml, read through
// experiment_load and bench/experiment/reference_spec.h), or, in results folders written before
// issue 28, DIR/reference.tsv (format: report.h).
#pragma once
#include "../results/results_read.h"

typedef struct {
    char *stage, *match, *metric, *value, *source;
    int line, used;
    int same_data; // sixth field "same_data": the paper measured on our data (else other data)
} ref_line;

typedef struct {
    ref_line *items;
    int n;
    char path[4200];
} ref_table;

void free_refs(ref_table *t);
// Reads DIR/reference.tsv when present (t empty otherwise). 0 ok; -1 with err on a malformed line.
int load_refs_tsv(const char *dir, ref_table *t, char *err, size_t errlen);
// Reads the `reference:` list of the experiment copy at path into t; *found 0 (t empty) when the
// file is absent, has no reference list, or names another experiment than `experiment`. The
// scale the runs were made at (for same_data lists) is the one of the copy's scales (or none)
// whose expanded run ids hold those of set's runs of this experiment. 0, or -1 with err
// ("file:line:col: message") when the copy does not load.
int load_refs_yaml(const char *path, const char *experiment, const rr_set *set, ref_table *t, int *found, char *err, size_t errlen);

// Orders set's stages by their experiment files: experiments keep the order of their first
// stage (earliest start), and within an experiment the stages follow the copy's stage order
// (DIR/<experiment>/experiment.yaml, else DIR/experiment.yaml: parents before children), so the
// report's order does not depend on which stage's first run happened to start first (runs
// started in the same second, parallel Slurm shards). Stages of an experiment without a
// loadable copy keep their order.
void report_order_stages(rr_set *set, const char *dir);