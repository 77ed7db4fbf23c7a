// core/cpu/losses_cpu.c — per-row losses on the CPU: softmax cross entropy with label smoothing
// (supervised classification, MP3 position prediction) and mean squared error (pixel targets).
// CUDA twin: core/cuda/losses_cuda.cu.
#include "ops_cpu_internal.h"
#include <math.h>

void cpu_softmax_xent_forward(float *loss, float *probs, const float *logits, const int *target,
                              int N, int K, float smoothing) {
    // logits (N, K) -> probs (N, K), loss (N)
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *z = logits + (size_t)n * K;
        float *p = probs + (size_t)n * K;
        float zmax = z[0];
        for (int k = 1; k < K; k++) zmax = z[k] > zmax ? z[k] : zmax;
        double sum = 0.0;
        for (int k = 0; k < K; k++) {
            p[k] = expf(z[k] - zmax);
            sum += p[k];
        }
        float inv = (float)(1.0 / sum);
        for (int k = 0; k < K; k++) p[k] *= inv;
        if (target[n] < 0) {
            loss[n] = 0.0f;
            continue;
        }
        double lse = (double)zmax + log(sum);
        double mean_logprob = 0.0;
        for (int k = 0; k < K; k++) mean_logprob += (double)z[k] - lse;
        mean_logprob /= K;
        double nll = lse - (double)z[target[n]];
        loss[n] = (float)((1.0 - smoothing) * nll - smoothing * mean_logprob);
    }
}

void cpu_softmax_xent_backward(float *dlogits, const float *probs, const int *target, int N, int K,
                               float smoothing, float scale) {
    float uniform = smoothing / (float)K;
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        if (target[n] < 0) continue;
        const float *p = probs + (size_t)n * K;
        float *d = dlogits + (size_t)n * K;
        for (int k = 0; k < K; k++) d[k] += scale * (p[k] - uniform);
        d[target[n]] -= scale * (1.0f - smoothing);
    }
}

void cpu_mse_forward(float *loss, const float *pred, const float *target, int N, int D) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        double sum = 0.0;
        for (int i = 0; i < D; i++) {
            float e = pred[(size_t)n * D + i] - target[(size_t)n * D + i];
            sum += (double)e * e;
        }
        loss[n] = (float)(sum / D);
    }
}

void cpu_mse_backward(float *dpred, const float *pred, const float *target, int N, int D,
                      float scale) {
    float k = 2.0f * scale / (float)D;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < (size_t)N * D; i++) dpred[i] += k * (pred[i] - target[i]);
}
