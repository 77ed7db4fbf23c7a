// bench/train/train_internal.h — the state of one training run, shared by the training loop
// (train.c) and the end-of-run records every objective gets (train_records.c: attention
// statistics, kNN probe). What an objective records itself is in objectives/<name>/.
// Not a public API.
#pragma once
#include "../experiment/config.h"
#include "../results/results.h"
#include "train_types.h"
#include "../../core/optimizer.h"
#include "../../datasets/dataset.h"
#include "../../models/model.h"
#include "../../objectives/objective.h"
#include <stdint.h>

enum { TRAIN_COLS = 6, EVAL_COLS = 5 };

typedef struct { // rows of a time series kept in memory, so a checkpoint can carry them
    double *rows;
    int cols;
    long count, capacity;
} history;

typedef struct {
    const config *cfg;
    const train_options *opt;
    char run_id[13], final_path[4096], partial_path[4096], ckpt_path[4096], weights_path[4096];
    char lock_base[4096];     // <out>/<run-id>: the run lock is <lock_base>.lock (train_files.c)
    int lock_fd;              // the lock this process took; -1 when none (or the caller holds it)
    dataset train, test;
    model model;
    objective obj;            // the objective (objectives/objective.h) and what it reads
    objective_settings settings;
    objective_env env;        // what the objective's evaluations borrow from the run
    record_sink sink;         // the results file, as the objectives see it
    optim_config optim;
    float *adam_m, *adam_v;   // backend arenas (params.total floats each)
    int32_t *labels;
    int *order, *batch_index;
    int batch, eval_batch, steps_per_epoch, epochs;
    int train_size;           // training image size (data.resolution, or the dataset's own)
    int univit[CFG_LIST_MAX], n_univit;     // UniViT: training sizes drawn per batch
    float *scratch;           // the native-size batch before a bicubic resize
    long total_steps, step;   // step = global steps done
    uint32_t seed;
    double train_time_s;      // summed over resumed segments
    history train_hist, eval_hist;
    results *res;
    results_series *train_series, *eval_series;
    char started[32];
} run;

// Builds the batch of rows idx of ds at `size` px into the model's staging input (train.c).
void load_batch(run *r, const dataset *ds, const int *idx, int B, const augment_config *aug, uint32_t epoch,
                uint32_t step, int size);
// The training rows of epoch `epoch` in the order the steps take them, into r->order (train.c).
void train_epoch_order(run *r, int epoch);
// train_plan.c: the crosscheck plan (train_options.plan_path); 0, or exits 2 for a
// configuration the independent trainer does not implement.
int train_plan_write(run *r, const char *path);
// train_records.c: the end-of-run records every objective gets.
void record_attention(run *r);
void record_knn(run *r);
