// bench/train/train_data.h — a run's data (train_data.c): the training and test splits from
// the config, the epoch order, and batches built into the model's staging input for training,
// evaluation and the end-of-run records. A leaf of bench/train: it calls only datasets/ and
// models/, never back into the trainer.
#pragma once
#include "train_internal.h"

// Loads r->train and r->test as data.* asks (limits, labelled subset) and checks they fit
// together (square images, test labels within the training classes, equal sizes). Bad input
// (a missing dataset, an unknown data.mfcc) exits 2 naming it.
void train_data_load(run *r);
// The training rows of epoch `epoch` in the order the steps take them, into r->order
// (train.n): a Philox permutation at (seed, RNG_SHUFFLE, epoch), the same on every device.
void train_epoch_order(run *r, int epoch);
// Builds the batch of rows idx (B) of ds at `size` px (augmented at the dataset's own size, then
// resized bicubically) into the model's input and r->labels (B), and sets the model to that size.
void load_batch(run *r, const dataset *ds, const int *idx, int B, const augment_config *aug, uint32_t epoch,
                uint32_t step, int size);
// objective_env.load_test: the B test rows first.. (the split r->eval_set, or the speech test
// variant r->variant at its own frame count) at `size` px into the model's input.
void train_data_load_test(objective_env *env, int first, int B, int size);
