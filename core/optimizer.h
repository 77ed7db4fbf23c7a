// core/optimizer.h — AdamW over a tensor table, the learning-rate schedule, gradient clipping.
// Decoupled weight decay applies only to tensors declared with decay=1 (weights of linear
// layers); biases, norms, cls tokens and position tables are declared decay=0.
#pragma once
#include "ops.h"
#include "tensor.h"

typedef struct {
    float lr, min_lr, weight_decay, beta1, beta2, eps;
    float clip;          // max global gradient L2 norm; <= 0 disables clipping
    long warmup_steps;   // linear warmup from lr/warmup_steps to lr
    long total_steps;    // cosine decay from lr to min_lr over the remaining steps
} optim_config;

// Learning rate for 0-based step `step`.
float optim_lr_at(const optim_config *c, long step);

// Clips the gradients to c->clip by global norm and takes one AdamW step at 0-based `step`.
// Returns the global gradient norm before clipping; *lr_out receives the rate used.
double optim_step(const ops_backend *ops, const tensor_table *t, float *params, float *grads,
                  float *m, float *v, const optim_config *c, long step, float *lr_out);
