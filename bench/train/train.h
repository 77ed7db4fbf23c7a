// bench/train/train.h — one training run from a resolved config: data, model, objective, the step
// loop, evaluation each epoch, checkpoints that resume exactly, and the run's HDF5 file.
#pragma once
#include "../experiment/config.h"
#include "train_types.h"

// Returns 0 (done, stopped on request or already done), 1 (diverged, before or now; or the
// run is locked by another process, which is then named and no file touched).
// Bad input (dataset, impossible config) exits with status 2 before any file is written.
int train_run(const config *cfg, const train_options *opt, train_result *res);
// Whether the data files a finished run read are unchanged: the fingerprints recorded in its
// file (root attribute data_files, datasets/data_files.h) against the files as they are now,
// each file at most data.max_bytes of cfg. 1 unchanged (or none recorded: an older file);
// 0 with *why naming the first file that changed or cannot be read; -1 when the run file
// cannot be read (*why says why).
int train_data_unchanged(const char *final_path, const config *cfg, char *why, size_t whylen);
