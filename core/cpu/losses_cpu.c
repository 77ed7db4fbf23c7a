// core/cpu/losses_cpu.c — per-row losses on the CPU: softmax cross entropy with label smoothing
// (supervised classification, MP3 position prediction), mean squared error (pixel targets) and
// NT-Xent (SimCLR's contrastive loss over L2-normalised projections).
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

// ---------------------------------------------------------------- NT-Xent (SimCLR)
#define NTXENT_EPS 1e-12 // F.normalize's eps: z / max(||z||, eps)

static double row_norm(const float *x, int D) {
    double ss = 0.0;
    for (int d = 0; d < D; d++) ss += (double)x[d] * x[d];
    return sqrt(ss);
}

void cpu_ntxent_forward(float *loss, float *zn, float *probs, const float *z, int N, int D, float tau) {
    // z (N, D) -> zn (N, D) unit rows
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        double norm = row_norm(z + (size_t)i * D, D);
        float inv = (float)(1.0 / (norm > NTXENT_EPS ? norm : NTXENT_EPS));
        for (int d = 0; d < D; d++) zn[(size_t)i * D + d] = z[(size_t)i * D + d] * inv;
    }
    // row i: s_ik = zn_i·zn_k / tau over k != i -> probs (N, N), loss (N)
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        const float *a = zn + (size_t)i * D;
        float *p = probs + (size_t)i * N;
        int pos = (i + N / 2) % N;
        float smax = -INFINITY;
        for (int k = 0; k < N; k++) {
            if (k == i) continue;
            const float *b = zn + (size_t)k * D;
            double dot = 0.0;
            for (int d = 0; d < D; d++) dot += (double)a[d] * b[d];
            p[k] = (float)(dot / tau);
            smax = p[k] > smax ? p[k] : smax;
        }
        float spos = p[pos];
        double sum = 0.0;
        p[i] = 0.0f;
        for (int k = 0; k < N; k++) {
            if (k == i) continue;
            p[k] = expf(p[k] - smax);
            sum += p[k];
        }
        float inv = (float)(1.0 / sum);
        for (int k = 0; k < N; k++) p[k] *= inv;
        loss[i] = (float)((double)smax + log(sum) - (double)spos);
    }
}

// dzn_i,d / (scale/tau) = Σ_{k != i} (p_ik + p_ki - 2[k = pos(i)]) zn_k,d, in double, k ascending.
static double ntxent_dzn(const float *zn, const float *probs, int N, int D, int i, int d) {
    int pos = (i + N / 2) % N;
    double g = 0.0;
    for (int k = 0; k < N; k++) {
        if (k == i) continue;
        double c = (double)probs[(size_t)i * N + k] + (double)probs[(size_t)k * N + i] - (k == pos ? 2.0 : 0.0);
        g += c * zn[(size_t)k * D + d];
    }
    return g;
}

void cpu_ntxent_backward(float *dz, const float *z, const float *zn, const float *probs, int N, int D, float tau,
                         float scale) {
    double c0 = (double)scale / tau;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        double norm = row_norm(z + (size_t)i * D, D);
        const float *a = zn + (size_t)i * D;
        double dot = 0.0; // zn_i·dzn_i
        for (int d = 0; d < D; d++) dot += c0 * ntxent_dzn(zn, probs, N, D, i, d) * a[d];
        for (int d = 0; d < D; d++) {
            double g = c0 * ntxent_dzn(zn, probs, N, D, i, d);
            dz[(size_t)i * D + d] += (float)(norm > NTXENT_EPS ? (g - a[d] * dot) / norm : g / NTXENT_EPS);
        }
    }
}
