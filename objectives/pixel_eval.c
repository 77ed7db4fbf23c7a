// objectives/pixel_eval.c — the evaluation skeleton MAE and GVP share (pixel_eval.h): the test
// loop over eval.batch chunks and the end-of-run figure samples, each objective's differences
// as callbacks.
#include "pixel_eval.h"
#include "pixel_targets.h"
#include "../core/common.h"
#include <stdio.h>
#include <stdlib.h>

void pixel_eval_test(objective *o, objective_env *env, const pixel_eval *pe, eval_shard *sh) {
    int n = env->test_n, chunk = env->eval_batch < o->max_batch ? env->eval_batch : o->max_batch;
    eval_shard_begin(sh, env, n, chunk, pe->width);
    for (int k = 0, start = 0; start < n; k++, start += chunk) {
        if (!eval_shard_mine(sh, k)) continue;
        int B = n - start < chunk ? n - start : chunk;
        env->load_test(env, start, B, o->s.train_size);
        pe->prepare(o, B, PIXEL_EVAL_DRAW, 0, (uint32_t)start);
        pe->forward_loss(o, B, 0, (rng_addr){.seed = o->s.seed, .epoch = PIXEL_EVAL_DRAW, .index = (uint32_t)start});
        pe->score(o, sh, k, B);
    }
    pe->restore(o);
}

void pixel_eval_samples(objective *o, objective_env *env, const pixel_eval *pe) {
    model *m = o->model;
    int S = o->s.samples < env->test_n ? o->s.samples : env->test_n;
    if (S > o->max_batch) S = o->max_batch;
    if (S <= 0) return;
    int C = m->cfg.channels, size = m->image_size, p = m->cfg.patch, N = m->N, D = C * p * p;
    size_t img = (size_t)C * size * size;
    float *original = xmalloc((size_t)S * img * sizeof(float), "sample images");
    float *view = xmalloc((size_t)S * img * sizeof(float), "sample input views");
    float *rebuilt = xmalloc((size_t)S * img * sizeof(float), "sample reconstructions");
    const float **patch_pred = xmalloc((size_t)N * sizeof(float *), "sample predicted patches");
    env->load_test(env, 0, S, o->s.train_size);
    pe->prepare(o, S, PIXEL_EVAL_DRAW, 0, 0);
    pe->forward_loss(o, S, 0, (rng_addr){.seed = o->s.seed, .epoch = PIXEL_EVAL_DRAW});
    int rows = 0;
    const float *dev = pe->predictions(o, &rows);
    float *pred = xmalloc(((size_t)rows * D + 1) * sizeof(float), "sample predictions (host)");
    o->ops->download(pred, dev, (size_t)rows * D * sizeof(float));
    pe->restore(o);
    for (int b = 0; b < S; b++) {
        pe->patch_rows(o, b, pred, patch_pred);
        pixel_sample(model_images(m) + (size_t)b * img, env->pixel_mean, env->pixel_std, patch_pred, C, size, p,
                     original + b * img, view + b * img, rebuilt + b * img);
    }
    char view_path[96];
    snprintf(view_path, sizeof view_path, "/samples/%s", pe->view_name);
    int dims[4] = {S, C, size, size};
    record_f32(env->rec, "/samples/original", 4, dims, original);
    record_f32(env->rec, view_path, 4, dims, view);
    record_f32(env->rec, "/samples/reconstruction", 4, dims, rebuilt);
    free(original), free(view), free(rebuilt), free(pred), free(patch_pred);
}
