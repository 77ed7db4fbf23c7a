// bench/train/train_files.h — a run's paths, its lock and whether it needs training (train_files.c).
#pragma once
#include "train_internal.h"

// Sets r's paths (from r->opt->out_dir and r->run_id), takes the run lock unless
// opt->lock_held, and checks the run's finished file. 1: train (a damaged file was set aside
// with --force). 0: do not; out->status and *status say why (skipped 0, diverged 1, locked 1).
// Bad input (empty or over-long --out, a damaged file without --force) exits 2.
int train_files_claim(run *r, train_result *out, int *status);
// Only the paths (and out->run_id, out->path): what ranks other than 0 of a run across
// processes need, rank 0 having claimed the run for all of them.
void train_files_paths(run *r, train_result *out);
// Releases the run lock if this process took it.
void train_files_release(run *r);
