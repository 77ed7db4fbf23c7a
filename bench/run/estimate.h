// bench/run/estimate.h — a run's cost before it runs, for the "N runs, about T min" lines of
// `posbench run` (and its --dry-run, which scripts/reproduce.sh sums over a source's experiments).
// The model, every term from the run's resolved config and the dataset registry's sizes
// (datasets/registry.h), nothing loaded:
//   updates    train.steps, else (training rows / train.batch) x train.epochs, the rows being the
//              registry's training count after data.limit and data.labeled_fraction (as
//              bench/train/budget.h counts them); a `budget:` run: the sum over the chain it
//              matches (bench/experiment/experiment.h), each stage's updates counted the same way
//   training   updates x batch x (3 x the forward FLOPs of one example (MP3, MAE: at their token
//              counts) x its views (objective_kind.batch_factor: SimCLR, DINO 2) + the objective's
//              train_extra_flops (DINO: the teacher's forward, the local crops; GVP: the query
//              stream))
//   evaluation forward FLOPs of: the test images (data.test_limit, else the registry's test count)
//              at every evaluation (every train.eval_every steps, else every epoch, and at the
//              last step); at the end the kNN probe's bank, validation and test images twice (at
//              initialisation and trained: eval.knn), the linear probe's (eval.linear_probe), the
//              test images at every eval.resolutions size
//   setup      ESTIMATE_RUN_SETUP_S CPU seconds per run: the process, loading and decoding the
//              data, the end-of-run records (attention statistics, samples, HDF5), measured
// CPU seconds = (training / (ESTIMATE_EFFICIENCY x S) + evaluation / (ESTIMATE_EVAL_EFFICIENCY x S))
// / rate_fraction + setup, S the sgemm rate per CPU second, rate_fraction min(1, d / 64) for a
// model of width d: a token's elementwise work (LayerNorm, GELU, softmax, residuals) grows as d
// and its GEMM FLOPs as d^2, and OpenBLAS is slower on inner dimensions under 64, so a narrower
// model does its FLOPs at a lower rate (the speech models, d = 32, took 2.5 and 2.9 times the d = 64
// rates' estimate); the runner's wall estimate divides them by the cores its jobs use (an
// otherwise idle machine). A size the registry does not know before loading
// (data.name=idx; speech-commands without train.steps; a text file not written yet) leaves the
// run uncounted, with the reason; speech-commands' evaluation (its clip counts are read from its
// folder) is not counted.
#pragma once
#include "../config/config.h"
#include "../experiment/experiment.h"

typedef struct {
    double train_flops; // training FLOPs (3 x forward per example per update)
    double eval_flops;  // evaluation forward FLOPs; 0 when the test-set size is unknown (eval_known 0)
    long updates;       // optimizer steps
    double rate_fraction; // of the training and evaluation rates this model reaches: min(1, model.dim / ESTIMATE_FULL_RATE_DIM)
    int eval_known;     // 0: the test set's size is known only once loaded: evaluation not counted
    char why[256];      // estimate_run / estimate_config returned -1: why the run cannot be counted
} run_estimate;

// The estimate of a run of config c trained for `updates` optimizer steps (<= 0: its own
// train.steps or epochs). 0, or -1 with out->why when its size is not known before loading.
int estimate_config(const config *c, long updates, run_estimate *out);
// The estimate of run i of experiment e: a `budget:` run's updates come from its matched chain.
int estimate_run(const experiment *e, int i, run_estimate *out);
// Training FLOPs of a run of config c, or -1 when its size is not known before loading.
double estimate_training_flops(const config *c);
// CPU seconds of training, evaluation and setup of `runs` runs at `sgemm` GFLOP per CPU second.
typedef struct { double train_s, eval_s, setup_s; } estimate_seconds;
// The FLOPs passed are each run's divided by its rate_fraction (estimate_rate_flops).
estimate_seconds estimate_cpu_seconds(double train_flops, double eval_flops, int runs, double sgemm);
// FLOPs of a run at the rate of a model of full width: flops / r->rate_fraction.
double estimate_rate_flops(const run_estimate *r, double flops);

// GFLOP/s (wall) of one OpenBLAS sgemm C (M, N) = A (M, K) · B (K, N) in this process (median of
// 7); the ceiling `posbench bench` (bench/perf/perf.c) and the regression benchmark report against.
double estimate_sgemm_gflops(int M, int N, int K);
// Fractions of the sgemm rate per CPU second that training and evaluation reach, and each run's
// CPU seconds besides its FLOPs (process, data, records), measured by runs of the shipped
// experiments on a 2-core Xeon, one thread each (docs/usage.md#time-estimates). Evaluation's
// fraction also absorbs the end-of-run work not itemised above (MP3's position accuracy at ten
// test etas, attention statistics, views, the probes' own arithmetic).
#define ESTIMATE_EFFICIENCY 0.25
#define ESTIMATE_EVAL_EFFICIENCY 0.13
#define ESTIMATE_RUN_SETUP_S 2.0
#define ESTIMATE_FULL_RATE_DIM 64 // the width from which a model reaches the two fractions above
// GFLOP per CPU second (user + system) of a 1024^3 sgemm on one thread, the best of 15;
// measured in a forked child (NaN when that fails), so the caller's process never starts an
// OpenMP pool before it forks its runs. CPU time on one thread, not wall time: other work on a
// shared machine slows the wall clock, not the CPU seconds a run needs (threads that wait on
// each other while another program holds a core spend CPU time waiting, so the calibration runs
// used one thread each, as the reproduce targets' 2 jobs do).
double estimate_sgemm_cpu_gflops(void);
