// core/cpu/tokens_cpu.c — the CPU token bookkeeping ops (C + OpenMP): patchify, embed tokens
// (cls + patches + position table), gather / scatter of token rows, the MP3 qkv pack, the
// relative-bias gather and mean pooling. Contracts in core/ops_list.h; the CUDA twin is
// core/cuda/tokens_cuda.cu. Gathered into `ops_cpu` by ops_cpu.c.
// Reductions (embed's batch sums, gather / bias-gather backward, mean pool) run in a fixed
// order inside one thread, so results never depend on thread count.
#include "ops_cpu_internal.h"
#include <string.h>

// ---------------------------------------------------------------- tokens
void cpu_patchify(float *patches, const float *images, int B, int Cin, int H, int W, int p) {
    int gh = H / p, gw = W / p, N = gh * gw, D = Cin * p * p;
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++) {
            int py0 = (n / gw) * p, px0 = (n % gw) * p;
            float *dst = patches + ((size_t)b * N + n) * D;
            for (int c = 0; c < Cin; c++)
                for (int py = 0; py < p; py++) {
                    const float *src = images + (((size_t)b * Cin + c) * H + py0 + py) * W + px0;
                    memcpy(dst + (c * p + py) * p, src, (size_t)p * sizeof(float));
                }
        }
}

void cpu_embed_tokens_forward(float *x, const float *patch, const float *cls,
                              const float *pos, int B, int N, int C) {
    int t0 = cls ? 1 : 0, T = N + t0;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        float *xb = x + (size_t)b * T * C;
        if (cls) memcpy(xb, cls, (size_t)C * sizeof(float));
        memcpy(xb + (size_t)t0 * C, patch + (size_t)b * N * C, (size_t)N * C * sizeof(float));
        if (pos)
            for (size_t i = 0; i < (size_t)T * C; i++) xb[i] += pos[i];
    }
}

void cpu_embed_tokens_backward(float *dpatch, float *dcls, float *dpos, const float *dx,
                               int B, int N, int C, int has_cls) {
    int t0 = has_cls ? 1 : 0, T = N + t0;
    if (dpatch) {
#pragma omp parallel for schedule(static)
        for (int b = 0; b < B; b++) {
            const float *src = dx + ((size_t)b * T + t0) * C;
            float *dst = dpatch + (size_t)b * N * C;
            for (size_t i = 0; i < (size_t)N * C; i++) dst[i] += src[i];
        }
    }
    if (dpos) {
#pragma omp parallel for schedule(static)
        for (int t = 0; t < T; t++)
            for (int b = 0; b < B; b++) { // fixed order over the batch
                const float *src = dx + ((size_t)b * T + t) * C;
                for (int c = 0; c < C; c++) dpos[(size_t)t * C + c] += src[c];
            }
    }
    if (dcls && has_cls)
        for (int b = 0; b < B; b++)
            for (int c = 0; c < C; c++) dcls[c] += dx[(size_t)b * T * C + c];
}

void cpu_gather_tokens_forward(float *out, const float *in, const int *idx, int B, int T,
                               int M, int C) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int m = 0; m < M; m++)
            memcpy(out + ((size_t)b * M + m) * C, in + ((size_t)b * T + idx[b * M + m]) * C,
                   (size_t)C * sizeof(float));
}

void cpu_gather_tokens_backward(float *din, const float *dout, const int *idx, int B,
                                int T, int M, int C) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) // one image per task: repeated indices add in order m = 0..M-1
        for (int m = 0; m < M; m++) {
            float *dst = din + ((size_t)b * T + idx[b * M + m]) * C;
            const float *src = dout + ((size_t)b * M + m) * C;
            for (int c = 0; c < C; c++) dst[c] += src[c];
        }
}

void cpu_qkv_pack_forward(float *qkv, const float *q, const float *kv, const int *idx, int B,
                          int T, int M, int C) {
    const size_t C3 = 3 * (size_t)C;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++)
            memcpy(qkv + ((size_t)b * T + t) * C3, q + ((size_t)b * T + t) * C, (size_t)C * sizeof(float));
        for (int m = 0; m < M; m++)
            memcpy(qkv + ((size_t)b * T + idx[b * M + m]) * C3 + C, kv + ((size_t)b * M + m) * 2 * C,
                   2 * (size_t)C * sizeof(float));
    }
}

void cpu_qkv_pack_backward(float *dq, float *dkv, const float *dqkv, const int *idx, int B,
                           int T, int M, int C) {
    const size_t C3 = 3 * (size_t)C;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        if (dq)
            for (int t = 0; t < T; t++) {
                float *dst = dq + ((size_t)b * T + t) * C;
                const float *src = dqkv + ((size_t)b * T + t) * C3;
                for (int c = 0; c < C; c++) dst[c] += src[c];
            }
        if (dkv)
            for (int m = 0; m < M; m++) {
                float *dst = dkv + ((size_t)b * M + m) * 2 * C;
                const float *src = dqkv + ((size_t)b * T + idx[b * M + m]) * C3 + C;
                for (int c = 0; c < 2 * C; c++) dst[c] += src[c];
            }
    }
}

void cpu_bias_gather_forward(float *out, const float *table, const int *index, int H, int E,
                             int K) {
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; h++)
        for (int e = 0; e < E; e++) out[(size_t)h * E + e] = table[(size_t)h * K + index[e]];
}

void cpu_bias_gather_backward(float *dtable, const float *dout, const int *index, int H,
                              int E, int K) {
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; h++) // one head per task; pairs added in order e = 0..E-1
        for (int e = 0; e < E; e++) dtable[(size_t)h * K + index[e]] += dout[(size_t)h * E + e];
}

void cpu_scatter_tokens_forward(float *out, const float *in, const int *idx, int B, int T,
                                int M, int C) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++)
        for (int m = 0; m < M; m++)
            memcpy(out + ((size_t)b * T + idx[b * M + m]) * C, in + ((size_t)b * M + m) * C,
                   (size_t)C * sizeof(float));
}

void cpu_scatter_tokens_backward(float *din, const float *dout, const int *idx, int B,
                                 int T, int M, int C) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int m = 0; m < M; m++) {
            float *dst = din + ((size_t)b * M + m) * C;
            const float *src = dout + ((size_t)b * T + idx[b * M + m]) * C;
            for (int c = 0; c < C; c++) dst[c] += src[c];
        }
}

void cpu_mean_pool_forward(float *out, const float *in, int B, int T, int C, int t0) {
    float inv = 1.0f / (float)(T - t0);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * C;
        for (int c = 0; c < C; c++) o[c] = 0.0f;
        for (int t = t0; t < T; t++)
            for (int c = 0; c < C; c++) o[c] += in[((size_t)b * T + t) * C + c];
        for (int c = 0; c < C; c++) o[c] *= inv;
    }
}

void cpu_mean_pool_backward(float *din, const float *dout, int B, int T, int C, int t0) {
    float inv = 1.0f / (float)(T - t0);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++)
        for (int t = t0; t < T; t++)
            for (int c = 0; c < C; c++) din[((size_t)b * T + t) * C + c] += dout[(size_t)b * C + c] * inv;
}
