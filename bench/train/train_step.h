// bench/train/train_step.h — one optimisation step of a run (train_step.c): the whole batch at
// once (train.accumulate=1), its micro-batches summed in order (train.accumulate=N), or this
// rank's micro-batch with the gradients summed over the ranks (a run across N processes).
#pragma once
#include "train_internal.h"

// After the model and objective exist: reads train.accumulate (exit 2 when it does not divide
// train.batch, or is neither 1 nor the rank count across ranks), allocates its buffers.
void train_step_setup(run *r);
void train_step_free(run *r);
// One step on the batch at position in_epoch of epoch; returns the mean loss over the whole
// batch (non-finite: no update). grad_norm and lr as optim_step gives them.
double train_step(run *r, int epoch, int in_epoch, double *grad_norm, float *lr);
// train.graph=on (r->device_step set by train_step_setup): the whole-batch step of 0-based global
// step `step` issued without host reads (step_device.h); returns its learning rate. Its loss and
// norm come from step_device_read.
float train_step_device(run *r, int epoch, int in_epoch, long step);
