// core/cpu/mixing_cpu.c — the CPU token-mixing ops of gMLP's spatial gating unit (docs/methods.md
// "gMLP / aMLP"): the spatial projection along tokens f(v) = W·v + b per image (OpenBLAS sgemm)
// and the multiplicative gate s = u ⊙ f(v). Contracts in core/ops_list.h; the CUDA twin is
// core/cuda/mixing_cuda.cu. Gathered into `ops_cpu` by ops_cpu.c.
// Reductions over images (dW, dbias) run in image order 0..B-1, never thread-order dependent.
#include "ops_cpu_internal.h"
#include <cblas.h>
#include <string.h>

void cpu_token_mix_forward(float *out, const float *in, const float *W, const float *bias, int B,
                           int T, int C) {
    size_t TC = (size_t)T * C;
    for (int b = 0; b < B; b++) {
        float *o = out + b * TC; // (T, C)
        float beta = 0.0f;
        if (bias) {
#pragma omp parallel for schedule(static)
            for (int i = 0; i < T; i++)
                for (int c = 0; c < C; c++) o[(size_t)i * C + c] = bias[i];
            beta = 1.0f;
        }
        // o (T, C) = W (T, T) · in_b (T, C) (+ o)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, C, T, 1.0f, W, T, in + b * TC, C,
                    beta, o, C);
    }
}

void cpu_token_mix_backward(float *din, float *dW, float *dbias, const float *dout,
                            const float *in, const float *W, int B, int T, int C) {
    size_t TC = (size_t)T * C;
    for (int b = 0; b < B; b++) {
        const float *g = dout + b * TC; // (T, C)
        if (din) // din_b (T, C) += Wᵀ (T, T) · dout_b (T, C)
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, T, C, T, 1.0f, W, T, g, C, 1.0f,
                        din + b * TC, C);
        if (dW) // dW (T, T) += dout_b (T, C) · in_bᵀ (C, T)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, C, 1.0f, g, C, in + b * TC,
                        C, 1.0f, dW, T);
    }
    if (dbias) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < T; i++) {
            float acc = 0.0f;
            for (int b = 0; b < B; b++) {
                const float *row = dout + b * TC + (size_t)i * C;
                for (int c = 0; c < C; c++) acc += row[c];
            }
            dbias[i] += acc;
        }
    }
}

void cpu_gate_forward(float *out, const float *a, const float *g, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) out[k] = a[k] * g[k];
}

void cpu_gate_backward(float *da, float *dg, const float *dout, const float *a, const float *g,
                       size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        if (da) da[k] += dout[k] * g[k];
        if (dg) dg[k] += dout[k] * a[k];
    }
}
