// bench/run/estimate.h — a run's training cost before it runs, for "N runs, about T minutes"
// lines: steps from the dataset's size (data.limit, data.labeled_fraction, train.batch,
// train.epochs) times the step's FLOPs (3 x forward, MP3 at its context size), divided by a
// rate measured in this process (a fraction of OpenBLAS sgemm). Evaluation is not counted.
#pragma once
#include "../config/config.h"

// Training FLOPs of the run, or -1 when the dataset's size is not known without reading it
// (the registry's dataset_shape: data.name=idx; speech-commands and a text file not there yet
// unless train.steps gives the length; text is sized from its file's length).
double estimate_training_flops(const config *c);
// GFLOP/s of one OpenBLAS sgemm C (M, N) = A (M, K) · B (K, N) in this process (median of 7);
// also the ceiling `posbench bench` (bench/perf/perf.c) reports against.
double estimate_sgemm_gflops(int M, int N, int K);
// The rate estimates use: EFFICIENCY x sgemm GFLOP/s measured now on `threads` threads.
#define ESTIMATE_EFFICIENCY 0.33 // measured: ViT d=64 L=4 p4 trains at ~1/3 of sgemm on 2 cores
// Measured in a forked child (NaN when that fails), so the caller's process never starts an
// OpenMP pool before it forks its runs.
double estimate_gflops(void);
