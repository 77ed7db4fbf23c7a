// bench/train_internal.h — the state of one training run, shared by the training loop
// (train.c) and the end-of-run evaluations it records (train_records.c: position accuracy,
// reassembled samples, attention statistics, kNN probe, per-size accuracy). Not a public API.
#pragma once
#include "experiment/config.h"
#include "results/results.h"
#include "train.h"
#include "../core/optimizer.h"
#include "../datasets/dataset.h"
#include "../models/vit.h"
#include "../objectives/mp3.h"
#include "../objectives/supervised.h"
#include <stdint.h>

enum { TRAIN_COLS = 6, EVAL_COLS = 5 };
#define EVAL_CONTEXT 0xE0000000u
#define EVAL_CONTEXT_TRAIN_ETA (EVAL_CONTEXT + 0xFFu)

typedef struct { // rows of a time series kept in memory, so a checkpoint can carry them
    double *rows;
    int cols;
    long count, capacity;
} history;

typedef struct {
    const config *cfg;
    const train_options *opt;
    char run_id[13], final_path[4096], partial_path[4096], ckpt_path[4096], weights_path[4096];
    dataset train, test;
    vit model;
    supervised objective, eval_objective;
    int is_mp3, mp3_patches;  // MP3: context patches per image at objective.eta
    mp3 position;             // MP3 objective
    optim_config optim;
    float *adam_m, *adam_v;
    int32_t *labels;
    int *order, *batch_index;
    int batch, eval_batch, steps_per_epoch, epochs;
    int train_size;           // training image size (data.resolution, or the dataset's own)
    int univit[CFG_LIST_MAX], n_univit;     // UniViT: training sizes drawn per batch
    int eval_sizes[CFG_LIST_MAX], n_eval;   // eval.resolutions (none: no per-size evaluation)
    int tta_delta;            // eval.tta_delta
    float *scratch;           // the native-size batch before a bicubic resize
    float *tta_logits;        // (eval_batch, classes): logits summed over r-delta, r, r+delta
    long total_steps, step;   // step = global steps done
    uint32_t seed;
    double train_time_s;      // summed over resumed segments
    history train_hist, eval_hist;
    results *res;
    results_series *train_series, *eval_series;
    char started[32];
} run;

typedef struct { double top1, top5, loss; } eval_result; // MP3: pos_top1, pos_top1_nonblank, loss

// Builds the batch of rows idx of ds at `size` px into the model's input (train.c).
void load_batch(run *r, const dataset *ds, const int *idx, int B, const augment_config *aug, uint32_t epoch,
                uint32_t step, int size);
// train_records.c
eval_result position_accuracy(run *r, double eta, uint32_t context_epoch, int limit);
void record_attention(run *r);
void record_position_curve(run *r, double *top1_eta0, double *nonblank_eta0);
void record_samples(run *r);
void record_knn(run *r);
void record_resolutions(run *r, double top1_train_size);
