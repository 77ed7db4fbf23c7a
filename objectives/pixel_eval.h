// objectives/pixel_eval.h — the evaluation skeleton of the objectives that predict patches'
// pixels (MAE, GVP), written once: the per-epoch test loop (eval.batch images at a time, the
// ranks sharing the batches through eval_shard.h) and the end-of-run figure samples (original,
// the model's input view, reconstruction: pixel_targets.h). Each test image is staged by the
// objective's own `prepare` at its fixed evaluation draw (seed, the objective's RNG purpose,
// PIXEL_EVAL_DRAW, 0, image), so an image is drawn alike at every epoch, on every rank and in the
// samples. What differs between the objectives (the staging, the forward, which sums a batch
// adds, which rows predict which patch, how the model returns to its plain forward) are the
// callbacks of a pixel_eval.
#pragma once
#include "objective.h"
#include "eval_shard.h"

#define PIXEL_EVAL_DRAW 0xE0000000u // RNG epoch slot of the evaluation draws

typedef struct {
    // Stages the B loaded images, image b drawn at (seed, purpose, epoch, step, first + b).
    void (*prepare)(objective *o, int B, uint32_t epoch, uint32_t step, uint32_t first);
    // The staged batch's forward (training 0) and its mean loss; leaves the predictions.
    double (*forward_loss)(objective *o, int B, int training, rng_addr rng);
    // After test batch k's forward (B images): its sums, through eval_shard_row or eval_shard_keep.
    void (*score)(objective *o, eval_shard *sh, int k, int B);
    // The last forward's predicted rows: backend (*rows, C·p·p), normalised pixels.
    const float *(*predictions)(const objective *o, int *rows);
    // Image b's patches: patch_pred[n] = the row of pred (host, all rows) predicting patch n, or
    // NULL for a patch the model saw (drawn grey in the input view). patch_pred (N).
    void (*patch_rows)(const objective *o, int b, const float *pred, const float **patch_pred);
    // The model back to its plain forward (MAE: every token kept; GVP: one stream, no mask).
    void (*restore)(objective *o);
    int width;             // sums per test batch (eval_shard_begin)
    const char *view_name; // /samples/<view_name>: the input view (MAE "masked", GVP "condition")
} pixel_eval;

// The test loop: eval_shard_begin(sh, env, test images, chunk, pe->width), then for each of this
// rank's batches load, prepare, forward_loss and score; then restore. The caller ends the shard
// (eval_shard_end or eval_shard_end_list) and turns the sums into its metrics.
void pixel_eval_test(objective *o, objective_env *env, const pixel_eval *pe, eval_shard *sh);

// The figure samples of the first min(eval.samples, test images, max_batch) test images at their
// evaluation draw, in pixel units, written to /samples/original, /samples/<view_name> and
// /samples/reconstruction (S, C, size, size); nothing when that is 0.
void pixel_eval_samples(objective *o, objective_env *env, const pixel_eval *pe);
