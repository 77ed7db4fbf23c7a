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
//              test images at every eval.resolutions size (a probe read both ways, GVP's: its
//              images twice)
//   probes     the linear probe's fits: protocols (2 for GVP's causal mask and full attention,
//              else 1) x probed blocks (eval.probe_layers) x features (mean-pooled, and cls when
//              the model has one) x (6 L2 strengths on 4/5 of the bank + the refit on all of it)
//              rows x ESTIMATE_PROBE_FIT_ITERS iterations x 4 d K FLOPs (logits and gradient,
//              K classes)
//   setup      ESTIMATE_RUN_SETUP_S CPU seconds per run: the process, loading and decoding the
//              data, the end-of-run records (attention statistics, samples, HDF5), measured
// CPU seconds = (training / (ESTIMATE_EFFICIENCY x S) + evaluation / (ESTIMATE_EVAL_EFFICIENCY x S))
// / rate_fraction + probes / (ESTIMATE_PROBE_EFFICIENCY x S x probe_rate_fraction) + setup, S the
// sgemm rate per CPU second, probe_rate_fraction d / (d + ESTIMATE_PROBE_ROW_DIMS) (below),
// rate_fraction min(1, d / 64) for a
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
    double probe_flops; // the linear probe's fits (logits and gradient products); 0 without eval.linear_probe
    double probe_rate_fraction; // of ESTIMATE_PROBE_EFFICIENCY the fits reach: d / (d + ESTIMATE_PROBE_ROW_DIMS)
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
// CPU seconds of training, evaluation, the linear probes' fits and setup of `runs` runs at `sgemm`
// GFLOP per CPU second.
typedef struct { double train_s, eval_s, probe_s, setup_s; } estimate_seconds;
// The FLOPs passed are each run's divided by its rate_fraction (estimate_rate_flops), the probes'
// by its probe_rate_fraction (estimate_probe_rate_flops).
estimate_seconds estimate_cpu_seconds(double train_flops, double eval_flops, double probe_flops, int runs, double sgemm);
// FLOPs of a run at the rate of a model of full width: flops / r->rate_fraction.
double estimate_rate_flops(const run_estimate *r, double flops);
// The probes' FLOPs at the rate of a fit without its per-row work: probe_flops / probe_rate_fraction.
double estimate_probe_rate_flops(const run_estimate *r);

// GFLOP/s (wall) of one OpenBLAS sgemm C (M, N) = A (M, K) · B (K, N) in this process (median of
// 7); the ceiling `posbench bench` (bench/perf/perf.c) and the regression benchmark report against.
double estimate_sgemm_gflops(int M, int N, int K);
// Fractions of the sgemm rate per CPU second that training and evaluation reach, and each run's
// CPU seconds besides its FLOPs (process, data, records), measured by runs of the shipped
// experiments on a 2-core Xeon, one thread each (docs/usage.md#time-estimates). Evaluation's
// fraction also absorbs the end-of-run work not itemised above (MP3's position accuracy at ten
// test etas, attention statistics, views, the kNN probe's own arithmetic; the linear probe's
// fits are counted apart, below).
#define ESTIMATE_EFFICIENCY 0.25
#define ESTIMATE_EVAL_EFFICIENCY 0.13
#define ESTIMATE_RUN_SETUP_S 2.0
#define ESTIMATE_FULL_RATE_DIM 64 // the width from which a model reaches the two fractions above
// The linear probe's fits: a row's logits and gradient (4 d K FLOPs through dgemm) come with work
// per row as large as ESTIMATE_PROBE_ROW_DIMS more dimensions would make (the softmax's exps, the
// line search, the L-BFGS update), at ESTIMATE_PROBE_EFFICIENCY of the sgemm rate: one
// linear_probe_fit on one thread took 0.31, 0.44, 0.68, 0.94 and 2.0 us per row and iteration at
// d = 32, 64, 128, 192, 384 (K = 10, n = 4000, beside two busy runs), a straight line in d + 43;
// the two constants put d = 64 at 0.56 us at 150 GFLOP per CPU second. A fit's iterations depend
// on its features and its L2 strength (from a few to the 5000 cap, which small strengths on
// mean-pooled block features reach); ESTIMATE_PROBE_FIT_ITERS is about their mean in
// gvp-ablation's pretraining runs at `small` (their CPU time beyond training and the forward
// passes: 1240 per fit in the GVP runs, 1510 in MAE's).
#define ESTIMATE_PROBE_EFFICIENCY 0.05
#define ESTIMATE_PROBE_ROW_DIMS 43.0
#define ESTIMATE_PROBE_FIT_ITERS 1300
// GFLOP per CPU second (user + system) of a 1024^3 sgemm on one thread, the best of 15;
// measured in a forked child (NaN when that fails), so the caller's process never starts an
// OpenMP pool before it forks its runs. CPU time on one thread, not wall time: other work on a
// shared machine slows the wall clock, not the CPU seconds a run needs (threads that wait on
// each other while another program holds a core spend CPU time waiting, so the calibration runs
// used one thread each, as the reproduce targets' 2 jobs do).
double estimate_sgemm_cpu_gflops(void);
