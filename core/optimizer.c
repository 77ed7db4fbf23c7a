// core/optimizer.c — the learning-rate schedules (cosine with linear warmup, step halving),
// global-norm clipping, AdamW; also with the step's values kept on the backend (optim_step_device).
#include "optimizer.h"
#include "common.h"
#include <math.h>
#include <stdlib.h>

float optim_lr_at(const optim_config *c, long step) {
    if (c->warmup_steps > 0 && step < c->warmup_steps) {
        if (c->schedule == OPTIM_STEP_HALVING && c->warmup_lr > 0.0f) return c->warmup_lr;
        return c->lr * (float)(step + 1) / (float)c->warmup_steps;
    }
    if (c->schedule == OPTIM_STEP_HALVING) {
        long halvings = c->halve_every > 0 ? (step - c->warmup_steps) / c->halve_every : 0;
        return (float)ldexp((double)c->lr, -(int)(halvings < 1000 ? halvings : 1000));
    }
    long decay_steps = c->total_steps - c->warmup_steps;
    if (decay_steps <= 0) return c->lr;
    double progress = (double)(step - c->warmup_steps) / (double)decay_steps;
    if (progress > 1.0) progress = 1.0;
    return (float)(c->min_lr + 0.5 * (c->lr - c->min_lr) * (1.0 + cos(M_PI * progress)));
}

// Every tensor of the table, in order, for one adamw_update_multi call (the CUDA backend may run
// one launch); the caller frees it.
static adamw_segment *segments_of(const tensor_table *t) {
    adamw_segment *segs = malloc((size_t)(t->count > 0 ? t->count : 1) * sizeof *segs);
    if (!segs) die_fail("out of memory for the AdamW segment table (%d tensors)", t->count);
    for (int i = 0; i < t->count; i++) {
        segs[i].offset = t->items[i].offset;
        segs[i].numel = t->items[i].numel;
        segs[i].decay = t->items[i].decay != 0;
    }
    return segs;
}

double optim_step(const ops_backend *ops, const tensor_table *t, float *params, float *grads,
                  float *m, float *v, const optim_config *c, long step, float *lr_out) {
    // The arena's padding stays zero, so one pass over the whole arena is the global norm.
    double norm = sqrt(ops->sum_squares(grads, t->total));
    if (c->clip > 0.0f && norm > c->clip) ops->scale(grads, t->total, (float)(c->clip / (norm + 1e-6)));
    float lr = optim_lr_at(c, step);
    adamw_segment *segs = segments_of(t);
    ops->adamw_update_multi(params, grads, m, v, segs, t->count, lr, c->beta1, c->beta2, c->eps,
                            c->weight_decay, (int)(step + 1));
    free(segs);
    if (lr_out) *lr_out = lr;
    return norm;
}

float optim_step_values(const optim_config *c, long step, float host[STEP_HOST_SCALARS]) {
    int t = (int)(step + 1); // adamw_update's 1-based count and its bias corrections, bit for bit
    host[STEP_LR] = optim_lr_at(c, step);
    host[STEP_BC1] = 1.0f - powf(c->beta1, (float)t);
    host[STEP_BC2] = 1.0f - powf(c->beta2, (float)t);
    host[STEP_WD] = c->weight_decay;
    return host[STEP_LR];
}

void optim_step_device(const ops_backend *ops, const tensor_table *t, float *params, float *grads, float *m,
                       float *v, const optim_config *c, const double *loss, double *norm, float *scalars) {
    ops->optim_prepare(norm, scalars, loss, grads, t->total, c->clip);
    adamw_segment *segs = segments_of(t);
    ops->adamw_update_multi_scalars(params, grads, m, v, segs, t->count, scalars, c->beta1, c->beta2, c->eps);
    free(segs);
}
