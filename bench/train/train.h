// bench/train/train.h — one training run from a resolved config: data, model, objective, the step
// loop, evaluation each epoch, checkpoints that resume exactly, and the run's HDF5 file.
#pragma once
#include "../config/config.h"
#include "train_types.h"

// Returns 0 (done, stopped on request or already done), 1 (diverged, before or now; or the
// run is locked by another process, which is then named and no file touched).
// Bad input (dataset, impossible config) exits with status 2 before any file is written.
int train_run(const config *cfg, const train_options *opt, train_result *res);
