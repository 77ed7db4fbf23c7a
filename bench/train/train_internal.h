// bench/train/train_internal.h — the state of one training run, shared by the training loop
// (train.c), its data (train_data.h), checkpoints (checkpoint.h), early stopping and the
// end-of-run records every objective gets (train_records.c: attention statistics, kNN probe). What an objective records itself is in objectives/<name>/.
// Not a public API.
#pragma once
#include "../config/config.h"
#include "../results/machine.h"
#include "../results/results.h"
#include "../results/run_metrics.h"
#include "step_device.h"
#include "train_history.h"
#include "train_settings.h"
#include "train_types.h"
#include "../../core/optimizer.h"
#include "../../datasets/dataset.h"
#include "../../models/model.h"
#include "../../objectives/objective.h"
#include <stdint.h>
#include <stdio.h>

enum { TRAIN_COLS = 6, EVAL_COLS = 5 };


// Early stopping on the validation split (train.early_stop; early_stop.c).
typedef struct {
    int on;                   // train.early_stop
    dataset val;              // the validation split
    float *best_param;        // backend arena (params.total floats): the parameters at best_step
    long best_step;           // the step of the best validation top-1 so far (0: none yet)
    int best_restored;        // a resumed checkpoint held best_param (checkpoint.c); early_stop_resume_best checks it
    double best_top1;
    history hist;             // rows: step, top1, top5, loss (one per validation evaluation)
    results_series *series;   // /val
} early_stop;
enum { VAL_COLS = 4 };

typedef struct {
    train_settings trainer;   // every key the run reads, typed (train_settings.h); trainer.cfg: the config
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
    int largest_resized;      // the largest image size other than the dataset's own (0: none): sizes r->scratch
    int univit[CFG_LIST_MAX], n_univit;     // UniViT: training sizes drawn per batch
    float *scratch;           // the native-size batch before a bicubic resize
    long total_steps, step;   // step = global steps done
    long eval_every;          // steps between evaluations (train.eval_every, or one epoch)
    early_stop es;
    const dataset *eval_set;  // the split env.load_test reads: &test, or &es.val during a validation pass
    const struct speech_variant *variant; // non-NULL: env.load_test reads this test-set variant (speech_eval.c)
    uint32_t seed;
    double train_time_s;      // summed over resumed segments
    // The scheduler's account of the training loop (bench/results/machine.h): seconds the process's
    // threads ran and waited for a CPU in earlier segments (a checkpoint's), and the reading at this
    // segment's start; sched_unknown when a segment went unmeasured (a checkpoint without it).
    double sched_run_s, sched_wait_s;
    machine_sched_time sched_base;
    int sched_unknown;
    double init_rms[2];       // the first training step's embedding (model_measure_embedding): RMS of
                              // the content and of the added position encoding; NAN until measured
    history train_hist, eval_hist;
    results *res;
    results_series *train_series, *eval_series;
    char started[32];
    int init_loaded, init_tensors; // a run started from init weights: tensors copied of the model's (0, 0: none)
    char *data_prints;        // every data file's fingerprint (datasets/data_files.h), train and test merged
    long budget_updates, budget_images; // a matched-budget run's derived length (budget.c); 0 otherwise
    char budget_desc[512];              // "pretrain 600 + finetune 600 updates"
    long init_updates, init_images;     // the init run's cumulative totals; -1 when unknown
    // train.accumulate and the ranks (train_step.c): micro-batches per step, one per rank when
    // comm->size > 1; rank 0 alone writes files; evaluations are sharded (train_eval.c).
    const struct comm *comm;
    int accumulate;
    float *grad_acc;          // backend (params.total): the micro-batches' gradients summed in order (one process)
    float *grad_host;         // host (params.total): this rank's gradient, summed over the ranks (comm->size > 1)
    float *batch_inputs;      // host: the whole batch's staged inputs, cut into micro-batches
    size_t batch_inputs_cap;  // floats
    int32_t *batch_labels;    // host (batch)
    double *micro_loss;       // (accumulate) each micro-batch's mean loss
    double *micro_weight;     // (accumulate) each micro-batch's share of the batch's loss terms (objective_kind.train_loss_terms)
    long *image_terms;        // (batch) each image's loss terms (train_loss_terms; NULL without it)
    step_device *device_step; // train.graph=on where the step can run without host reads (train_step.c); else NULL
    FILE *metrics_file;       // <run-id>.metrics.jsonl (metrics_log.h), rank 0; NULL before it opens
    char metrics_path[4200];  // the file metrics_file writes: .metrics.jsonl, or .metrics.jsonl.partial beside a finished run
    int metrics_pending;      // 1: metrics_path is the .partial one, renamed over .metrics.jsonl when the run ends
    long metrics_every;       // a training line every this many steps (metrics_log.h)
} run;

// early_stop.c: train.early_stop. setup loads the validation split (or refuses the config) and
// allocates the best state; evaluate runs the objective's evaluation on the validation split
// (rank 0; its row is broadcast, so call it on every rank), appends /val and keeps the
// parameters when the top-1 is the best so far (a later equal one does not replace it); returns
// the validation scores. resume_best (train.c calls it after
// checkpoint_resume) re-derives the best step from the restored /val rows and refuses (exit 2)
// a checkpoint whose best parameters do not match them. use_best loads the best parameters into the model (before the final
// test evaluation) and records /final best_step, best_val_top1.
// train_eval.c: the per-epoch (and validation, and best-state) evaluation. train_evaluates_here:
// whether this rank takes part (every rank for an objective with sharded_eval, else rank 0);
// train_evaluate: the objective's evaluation, its batches shared among the ranks when it can
// (every taking rank gets the same scores, bitwise those of one process); call it on every rank
// train_evaluates_here names, at once.
int train_evaluates_here(const run *r);
eval_scores train_evaluate(run *r);
void early_stop_setup(run *r);
void early_stop_open(run *r); // the /val series of a new results file, with the restored rows
eval_scores early_stop_evaluate(run *r);
void early_stop_resume_best(run *r);
void early_stop_use_best(run *r);
void early_stop_free(run *r);
// speech_eval.c: eval.speech_durations / eval.speech_rates (supervised speech runs only: check
// refuses anything else, exit 2). largest_frames: the longest variant (0: none), for the arena.
int speech_eval_largest_frames(const train_settings *s);
void speech_eval_check(const run *r);
void record_speech_variants(run *r);
// train_plan.c: the crosscheck plan (train_options.plan_path); 0, or exits 2 for a
// configuration the independent trainer does not implement.
int train_plan_write(run *r, const char *path);
// train_records.c: the end-of-run records every objective gets.
void record_attention(run *r);
// train_views.c: /views (docs/views.md), eval.view_images test images (0: nothing recorded).
void record_views(run *r);
// gMLP/aMLP (backbones with spatial weights): /spatial/W (L, T, T), each block's W at the
// training size as a forward uses it (Toeplitz gathered), with attributes rows, cols, t0 (the
// token grid; cls first when t0 = 1): the paper's Figs. 3 and 4 (a row reshaped to the image
// grid; the n x n matrix for text). Nothing for other backbones.
void record_spatial_weights(run *r);
// Refuses (exit 2), before training, probe settings whose validation split cannot be made.
void probes_check(run *r);
void record_knn(run *r);
// budget.c (rules: budget.h): setup sets a matched-budget run's total_steps from its chain;
// read_init reads the init run's cumulative totals; record writes the /final budget attributes.
void budget_setup(run *r);
void budget_read_init(run *r, const char *weights);
void budget_record(run *r);
void record_linear_probe(run *r);

