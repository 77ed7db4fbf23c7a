// core/cpu/optim_cpu.c — optimizer arithmetic on the CPU: fixed-order sum of squares (gradient
// norm), scaling (clipping) and the elementwise AdamW update, also with its per-step values read
// from backend memory (optim_prepare, adamw_update_multi_scalars). CUDA twin: core/cuda/optim_cuda.cu.
#include "ops_cpu_internal.h"
#include <math.h>

#define SUM_CHUNKS 256 // fixed partition: the sum's rounding never depends on thread count

double cpu_sum_squares_in_order(const float *x, size_t n) {
    double partial[SUM_CHUNKS];
    size_t chunk = (n + SUM_CHUNKS - 1) / SUM_CHUNKS;
#pragma omp parallel for schedule(static)
    for (int c = 0; c < SUM_CHUNKS; c++) {
        size_t lo = (size_t)c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        double s = 0.0;
        for (size_t i = lo; i < hi; i++) s += (double)x[i] * x[i];
        partial[c] = s;
    }
    double total = 0.0;
    for (int c = 0; c < SUM_CHUNKS; c++) total += partial[c];
    return total;
}

double cpu_sum_squares(const float *x, size_t n) {
    cpu_host_read_add(); // the value comes back to the caller
    return cpu_sum_squares_in_order(x, n);
}

void cpu_scale(float *x, size_t n, float s) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) x[i] *= s;
}

// One AdamW step over n values with the bias corrections given; each gradient times grad_scale
// (1: the gradient itself, bit for bit).
static void adamw_range(float *param, const float *grad, float *m, float *v, size_t n, float lr, float beta1,
                        float beta2, float eps, float weight_decay, float bc1, float bc2, float grad_scale) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        float g = grad[i] * grad_scale;
        float mi = beta1 * m[i] + (1.0f - beta1) * g;
        float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        float update = (mi / bc1) / (sqrtf(vi / bc2) + eps);
        param[i] -= lr * (update + weight_decay * param[i]);
    }
}

void cpu_adamw_update(float *param, const float *grad, float *m, float *v, size_t n, float lr,
                      float beta1, float beta2, float eps, float weight_decay, int t) {
    float bc1 = 1.0f - powf(beta1, (float)t), bc2 = 1.0f - powf(beta2, (float)t);
    adamw_range(param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, bc1, bc2, 1.0f);
}

void cpu_optim_prepare(double *norm, float *scalars, const double *loss, const float *grads, size_t n, float clip) {
    double value = sqrt(cpu_sum_squares_in_order(grads, n));
    *norm = value;
    scalars[STEP_GRAD_SCALE] = clip > 0.0f && value > clip ? (float)(clip / (value + 1e-6)) : 1.0f;
    scalars[STEP_SKIP] = isfinite(*loss) ? 0.0f : 1.0f;
}

void cpu_adamw_update_multi_scalars(float *param, const float *grad, float *m, float *v, const adamw_segment *segs,
                                    int nseg, const float *scalars, float beta1, float beta2, float eps) {
    if (scalars[STEP_SKIP] != 0.0f) return;
    for (int s = 0; s < nseg; s++) {
        size_t o = segs[s].offset;
        adamw_range(param + o, grad + o, m + o, v + o, segs[s].numel, scalars[STEP_LR], beta1, beta2, eps,
                    segs[s].decay ? scalars[STEP_WD] : 0.0f, scalars[STEP_BC1], scalars[STEP_BC2], scalars[STEP_GRAD_SCALE]);
    }
}

void cpu_adamw_update_multi(float *param, const float *grad, float *m, float *v, const adamw_segment *segs,
                            int nseg, float lr, float beta1, float beta2, float eps, float weight_decay, int t) {
    for (int s = 0; s < nseg; s++) {
        size_t o = segs[s].offset;
        cpu_adamw_update(param + o, grad + o, m + o, v + o, segs[s].numel, lr, beta1, beta2, eps,
                         segs[s].decay ? weight_decay : 0.0f, t);
    }
}
