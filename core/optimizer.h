// core/optimizer.h — AdamW over a tensor table, the learning-rate schedules (cosine with linear
// warmup; step halving, the MP3 paper's speech recipe), gradient clipping.
// Decoupled weight decay applies only to tensors declared with decay=1 (weights of linear
// layers); biases, norms, cls tokens and position tables are declared decay=0.
#pragma once
#include "ops.h"
#include "tensor.h"

typedef enum { OPTIM_COSINE = 0, OPTIM_STEP_HALVING = 1 } optim_schedule;

typedef struct {
    float lr, min_lr, weight_decay, beta1, beta2, eps;
    float clip;          // max global gradient L2 norm; <= 0 disables clipping
    long warmup_steps;   // cosine: linear warmup from lr/warmup_steps to lr
    long total_steps;    // cosine decay from lr to min_lr over the remaining steps
    optim_schedule schedule;
    float warmup_lr;     // step halving: the constant rate of the warmup steps (0: linear warmup as cosine's)
    long halve_every;    // step halving: after the warmup, lr·0.5^floor((step - warmup_steps) / halve_every)
} optim_config;

// Learning rate for 0-based step `step`.
//   cosine:       step < W: lr·(step+1)/W; then min_lr + (lr - min_lr)(1 + cos(π·progress))/2
//   step halving: step < W: warmup_lr (or lr·(step+1)/W when warmup_lr is 0); then
//                 lr·0.5^floor((step - W)/halve_every) (the MP3 paper's speech recipe: 500
//                 updates at 1e-4, then 1e-3 halved every 10k updates)
float optim_lr_at(const optim_config *c, long step);

// Clips the gradients to c->clip by global norm and takes one AdamW step at 0-based `step`.
// Returns the global gradient norm before clipping; *lr_out receives the rate used.
double optim_step(const ops_backend *ops, const tensor_table *t, float *params, float *grads,
                  float *m, float *v, const optim_config *c, long step, float *lr_out);

// The step without host reads (bench/train/step_device.c): optim_step split into the host's
// per-step values and the backend's work, so the values can be uploaded before a CUDA graph
// replays the work. optim_step_values writes host[STEP_LR] = optim_lr_at(c, step), the bias
// corrections 1 - beta^(step + 1) by the host's powf, as adamw_update computes them, and
// host[STEP_WD] = c->weight_decay; returns the
// rate. optim_step_device then (scalars: STEP_SCALARS floats of backend memory holding those
// values) computes the global norm into *norm, clips, and takes the AdamW step unless *loss is
// not finite (backend doubles): with a finite loss, bit for bit optim_step's update.
float optim_step_values(const optim_config *c, long step, float host[STEP_HOST_SCALARS]);
void optim_step_device(const ops_backend *ops, const tensor_table *t, float *params, float *grads, float *m,
                       float *v, const optim_config *c, const double *loss, double *norm, float *scalars);
