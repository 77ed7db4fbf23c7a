// tests/report_runs.h — the synthetic run files that tests/test_report.c (posbench report and
// the findings) and tests/test_plot.c (posbench plot) read, written with bench/results/results.h:
// three stages (finetune: axes model.dim x pe.kind, 3 seeds, one run diverged; pretrain: axis
// objective.eta, 2 seeds, /attention/relmap, /samples and /spatial on some runs; mp3:
// objective.eta (4 values) x pe.kind, 2 seeds, one configuration failed), /train and /eval
// series, DIR/reference.tsv and DIR/exp/experiment.yaml (findings: the `cases` table). The value
// functions give every number written, so the tests compute the cells they expect. Also: running
// a command with its stdout and stderr captured.
#pragma once
#include "testing.h"
#include <stddef.h>
#include <stdint.h>

extern char g_root[256], g_dir[300]; // g_dir = g_root/runs; other test directories beside it

extern const int dims[2];
extern const char *const pes[2];
extern const double etas[4];
double ft_top1(int d, int p, int s);
double ft_time(int d, int s);
int64_t ft_mem(int d, int s);
int ft_diverged(int d, int p, int s);
double mp3_top1(int e, int p, int s);
double mp3_step_ms(int e, int s);
int mp3_failed(int e, int p);

// findings: one table drives DIR/exp/experiment.yaml and the expected verdicts
typedef struct {
    const char *kind, *claim, *paper, *a_stage, *a_match, *a_metric, *b_stage, *b_match, *b_metric, *value, *x, *per;
    const char *verdict;
} finding_case;
extern const finding_case cases[];
extern const int ncases;
#define NCASES ncases

// Creates g_root (a temporary directory) and g_dir with every run file; 0, or -1 (test_fail said why).
int report_runs_setup(void);
// Removes g_root unless a check failed or POSBENCH_TEST_KEEP is set (then prints where it is).
void report_runs_cleanup(void);
// Runs fn(argc, argv) with stdout and stderr going to files; returns its status, the output in
// *out and *err (malloc'd; stderr's lines joined by '|').
int capture(int (*fn)(int, char **), int argc, char **argv, char **out, char **err);
char *slurp(const char *path);
// Does path start with the n bytes of magic (and hold more than 100 bytes)?
int file_starts(const char *path, const char *magic, size_t n);
// Runs fn and checks its exit status and that stderr contains needle (NULL: anything).
void expect_status(const char *name, int (*fn)(int, char **), int argc, char **argv, int want, const char *needle);
