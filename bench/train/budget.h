// bench/train/budget.h — a run's training budget: updates (optimizer steps) and images seen,
// its own and cumulative over the runs it was initialised from, and the length of a
// matched-budget run (an experiment stage with `budget: <stage>`, bench/experiment/experiment.h).
// Updates: train.steps when > 0, else (training rows / train.batch) x train.epochs (an epoch's
// last partial batch is dropped, as the training loop does); images seen = updates x batch.
// /final attributes every finished run gets (budget_record):
//   updates, images_seen                the run's own
//   updates_total, images_seen_total    its own plus those of its init chain (read from the
//                                       parent's <run-id>.h5 beside <run-id>.weights: its
//                                       updates_total, or steps and steps x train.batch for a file
//                                       written before these existed); absent when the init
//                                       weights have no finished run file beside them
// and a matched-budget run also: budget_updates, budget_images_seen (its chain's totals, equal
// to its own by construction) and the root attribute `budget` ("pretrain 1404 + finetune 460
// updates").
#pragma once
#include "train_settings.h"
#include <stddef.h>

// Updates of a run of settings s whose training split has train_rows rows (after data.limit and
// data.labeled_fraction).
long budget_updates(const train_settings *s, int train_rows);
// Training rows of settings s (loads the training split: exits 2 when it cannot; remembered per
// set of data.* values for the rest of the process). Only needed when train.steps is 0.
int budget_train_rows(const train_settings *s);
// The updates of a run of config c: train.steps, or its epochs of the training split (loaded
// when train.steps is 0). Exits 2 on a config train_settings_resolve refuses.
long budget_updates_of_config(const config *c);
