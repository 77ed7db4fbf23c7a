// core/cpu/ops_cpu.c — the CPU backend: dense layers on OpenBLAS sgemm, elementwise and token
// ops in C + OpenMP, and the `ops_cpu` table that gathers every CPU op (attention in
// attention_cpu.c, losses in losses_cpu.c, optimizer math in optim_cpu.c, position encodings in
// posenc_cpu.c, resizing in resize_cpu.c).
// Parameter-gradient reductions (bias, LayerNorm weights, cls, position table) loop over
// columns in parallel and over rows in a fixed order, so they never depend on thread count.
#include "ops_cpu_internal.h"
#include "../common.h"
#include "vecmath.h"
#include <cblas.h>
#include <math.h>
#include <string.h>

#define COLUMN_BLOCK 16 // columns per parallel task in column reductions (one cache line)

static void cpu_zero(float *x, size_t n) {
    size_t chunk = 1 << 16; // 256 KiB pieces, zeroed in parallel
    long pieces = (long)((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < pieces; i++) {
        size_t lo = (size_t)i * chunk, len = lo + chunk < n ? chunk : n - lo;
        memset(x + lo, 0, len * sizeof(float));
    }
}

// ---------------------------------------------------------------- linear
static void cpu_linear_forward(float *out, const float *in, const float *weight,
                               const float *bias, int N, int IC, int OC) {
    // out (N, OC) = in (N, IC) · weight (OC, IC)ᵀ + bias (OC)
    float beta = 0.0f;
    if (bias) {
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++) memcpy(out + (size_t)n * OC, bias, (size_t)OC * sizeof(float));
        beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, IC, 1.0f, in, IC, weight, IC, beta,
                out, OC);
}

// dst (C) += Σ_n src (N, C) over rows, rows summed in order 0..N-1.
static void column_sums_add(float *dst, const float *src, int N, int C) {
    int blocks = (C + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
#pragma omp parallel for schedule(static)
    for (int blk = 0; blk < blocks; blk++) {
        int c0 = blk * COLUMN_BLOCK, c1 = c0 + COLUMN_BLOCK < C ? c0 + COLUMN_BLOCK : C;
        float acc[COLUMN_BLOCK] = {0};
        for (int n = 0; n < N; n++) {
            const float *row = src + (size_t)n * C;
            for (int c = c0; c < c1; c++) acc[c - c0] += row[c];
        }
        for (int c = c0; c < c1; c++) dst[c] += acc[c - c0];
    }
}

static void cpu_linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                                const float *in, const float *weight, int N, int IC, int OC) {
    if (din) // din (N, IC) += dout (N, OC) · weight (OC, IC)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, IC, OC, 1.0f, dout, OC, weight,
                    IC, 1.0f, din, IC);
    if (dweight) // dweight (OC, IC) += dout (N, OC)ᵀ · in (N, IC)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, IC, N, 1.0f, dout, OC, in, IC,
                    1.0f, dweight, IC);
    if (dbias) column_sums_add(dbias, dout, N, OC);
}

// ---------------------------------------------------------------- layernorm
static void cpu_layernorm_forward(float *out, float *mean, float *rstd, const float *in,
                                  const float *weight, const float *bias, int N, int C) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *x = in + (size_t)n * C;
        float *y = out + (size_t)n * C;
        float m = 0.0f;
        for (int c = 0; c < C; c++) m += x[c];
        m /= (float)C;
        float var = 0.0f;
        for (int c = 0; c < C; c++) var += (x[c] - m) * (x[c] - m);
        var /= (float)C;
        float s = 1.0f / sqrtf(var + LAYERNORM_EPS);
        for (int c = 0; c < C; c++) y[c] = (x[c] - m) * s * weight[c] + bias[c];
        mean[n] = m;
        rstd[n] = s;
    }
}

static void cpu_layernorm_backward(float *din, float *dweight, float *dbias, const float *dout,
                                   const float *in, const float *weight, const float *mean,
                                   const float *rstd, int N, int C) {
    if (din) {
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++) {
            const float *x = in + (size_t)n * C, *dy = dout + (size_t)n * C;
            float *dx = din + (size_t)n * C;
            float m = mean[n], s = rstd[n];
            float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
            for (int c = 0; c < C; c++) {
                float dxhat = dy[c] * weight[c];
                sum_dxhat += dxhat;
                sum_dxhat_xhat += dxhat * (x[c] - m) * s;
            }
            sum_dxhat /= (float)C;
            sum_dxhat_xhat /= (float)C;
            for (int c = 0; c < C; c++) {
                float xhat = (x[c] - m) * s;
                dx[c] += s * (dy[c] * weight[c] - sum_dxhat - xhat * sum_dxhat_xhat);
            }
        }
    }
    if (!dweight && !dbias) return;
    int blocks = (C + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
#pragma omp parallel for schedule(static)
    for (int blk = 0; blk < blocks; blk++) {
        int c0 = blk * COLUMN_BLOCK, c1 = c0 + COLUMN_BLOCK < C ? c0 + COLUMN_BLOCK : C;
        float acc_w[COLUMN_BLOCK] = {0}, acc_b[COLUMN_BLOCK] = {0};
        for (int n = 0; n < N; n++) {
            const float *x = in + (size_t)n * C, *dy = dout + (size_t)n * C;
            float m = mean[n], s = rstd[n];
            for (int c = c0; c < c1; c++) {
                acc_w[c - c0] += dy[c] * (x[c] - m) * s;
                acc_b[c - c0] += dy[c];
            }
        }
        for (int c = c0; c < c1; c++) {
            if (dweight) dweight[c] += acc_w[c - c0];
            if (dbias) dbias[c] += acc_b[c - c0];
        }
    }
}

// ---------------------------------------------------------------- GELU (exact, erf)
// x·Φ(x) with Φ(x) = (1 + erf(x/√2))/2; erf from vecmath.h (|error| <= 1.5e-7), so the loops
// vectorise. The kernels are compiled for AVX-512, AVX2 and baseline x86-64, picked at load.
#define GELU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

GELU_CLONES static void gelu_forward_range(float *restrict out, const float *restrict in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float x = in[i];
        float e = exp_nonpos(-0.5f * x * x);
        out[i] = 0.5f * x * (1.0f + erf_with_exp(x * (float)M_SQRT1_2, e));
    }
}

GELU_CLONES static void gelu_backward_range(float *restrict din, const float *restrict dout,
                                            const float *restrict in, size_t n) {
    const float inv_sqrt_2pi = 0.3989422804014327f;
    for (size_t i = 0; i < n; i++) {
        float x = in[i];
        float e = exp_nonpos(-0.5f * x * x);
        float cdf = 0.5f * (1.0f + erf_with_exp(x * (float)M_SQRT1_2, e));
        din[i] += dout[i] * (cdf + x * inv_sqrt_2pi * e);
    }
}

#define ELEMENTWISE_CHUNK 8192 // elements per parallel task

static void cpu_gelu_forward(float *out, const float *in, size_t n) {
    long chunks = (long)((n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < chunks; c++) {
        size_t lo = (size_t)c * ELEMENTWISE_CHUNK, len = lo + ELEMENTWISE_CHUNK < n ? ELEMENTWISE_CHUNK : n - lo;
        gelu_forward_range(out + lo, in + lo, len);
    }
}

static void cpu_gelu_backward(float *din, const float *dout, const float *in, size_t n) {
    long chunks = (long)((n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < chunks; c++) {
        size_t lo = (size_t)c * ELEMENTWISE_CHUNK, len = lo + ELEMENTWISE_CHUNK < n ? ELEMENTWISE_CHUNK : n - lo;
        gelu_backward_range(din + lo, dout + lo, in + lo, len);
    }
}

// ---------------------------------------------------------------- residual, drop path, dropout
static void cpu_residual_forward(float *out, const float *x, const float *branch,
                                 const float *keep_scale, int B, size_t S) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        float k = keep_scale ? keep_scale[b] : 1.0f;
        size_t base = (size_t)b * S;
        for (size_t i = 0; i < S; i++) out[base + i] = x[base + i] + k * branch[base + i];
    }
}

static void cpu_residual_backward(float *dx, float *dbranch, const float *dout,
                                  const float *keep_scale, int B, size_t S) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        float k = keep_scale ? keep_scale[b] : 1.0f;
        size_t base = (size_t)b * S;
        if (dx)
            for (size_t i = 0; i < S; i++) dx[base + i] += dout[base + i];
        if (dbranch)
            for (size_t i = 0; i < S; i++) dbranch[base + i] += k * dout[base + i];
    }
}

static void cpu_drop_path_scales(float *keep_scale, int B, float p, rng_addr a) {
    for (int b = 0; b < B; b++) {
        float u = rng_uniform_at(a.seed, a.purpose, a.epoch, a.step, a.index, (uint64_t)b);
        keep_scale[b] = (p <= 0.0f) ? 1.0f : (u < p ? 0.0f : 1.0f / (1.0f - p));
    }
}

static void cpu_dropout_forward(float *out, float *mask, const float *in, size_t n, float p,
                                rng_addr a) {
    float keep = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        float u = rng_uniform_at(a.seed, a.purpose, a.epoch, a.step, a.index, (uint64_t)i);
        mask[i] = u < p ? 0.0f : keep;
        out[i] = in[i] * mask[i];
    }
}

static void cpu_dropout_backward(float *din, const float *dout, const float *mask, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) din[i] += dout[i] * mask[i];
}

// ---------------------------------------------------------------- tokens
static void cpu_patchify(float *patches, const float *images, int B, int Cin, int H, int W, int p) {
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

static void cpu_embed_tokens_forward(float *x, const float *patch, const float *cls,
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

static void cpu_embed_tokens_backward(float *dpatch, float *dcls, float *dpos, const float *dx,
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

static void cpu_gather_tokens_forward(float *out, const float *in, const int *idx, int B, int T,
                                      int M, int C) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int m = 0; m < M; m++)
            memcpy(out + ((size_t)b * M + m) * C, in + ((size_t)b * T + idx[b * M + m]) * C,
                   (size_t)C * sizeof(float));
}

static void cpu_gather_tokens_backward(float *din, const float *dout, const int *idx, int B,
                                       int T, int M, int C) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) // one image per task: repeated indices add in order m = 0..M-1
        for (int m = 0; m < M; m++) {
            float *dst = din + ((size_t)b * T + idx[b * M + m]) * C;
            const float *src = dout + ((size_t)b * M + m) * C;
            for (int c = 0; c < C; c++) dst[c] += src[c];
        }
}

static void cpu_qkv_pack_forward(float *qkv, const float *q, const float *kv, const int *idx, int B,
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

static void cpu_qkv_pack_backward(float *dq, float *dkv, const float *dqkv, const int *idx, int B,
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

static void cpu_bias_gather_forward(float *out, const float *table, const int *index, int H, int E,
                                    int K) {
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; h++)
        for (int e = 0; e < E; e++) out[(size_t)h * E + e] = table[(size_t)h * K + index[e]];
}

static void cpu_bias_gather_backward(float *dtable, const float *dout, const int *index, int H,
                                     int E, int K) {
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; h++) // one head per task; pairs added in order e = 0..E-1
        for (int e = 0; e < E; e++) dtable[(size_t)h * K + index[e]] += dout[(size_t)h * E + e];
}

static void cpu_scatter_tokens_forward(float *out, const float *in, const int *idx, int B, int T,
                                       int M, int C) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++)
        for (int m = 0; m < M; m++)
            memcpy(out + ((size_t)b * T + idx[b * M + m]) * C, in + ((size_t)b * M + m) * C,
                   (size_t)C * sizeof(float));
}

static void cpu_scatter_tokens_backward(float *din, const float *dout, const int *idx, int B,
                                        int T, int M, int C) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int m = 0; m < M; m++) {
            float *dst = din + ((size_t)b * M + m) * C;
            const float *src = dout + ((size_t)b * T + idx[b * M + m]) * C;
            for (int c = 0; c < C; c++) dst[c] += src[c];
        }
}

static void cpu_mean_pool_forward(float *out, const float *in, int B, int T, int C, int t0) {
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

static void cpu_mean_pool_backward(float *din, const float *dout, int B, int T, int C, int t0) {
    float inv = 1.0f / (float)(T - t0);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++)
        for (int t = t0; t < T; t++)
            for (int c = 0; c < C; c++) din[((size_t)b * T + t) * C + c] += dout[(size_t)b * C + c] * inv;
}

const ops_backend ops_cpu = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .copy = cpu_copy,
    .synchronize = cpu_synchronize,
    .zero = cpu_zero,
    .linear_forward = cpu_linear_forward,
    .linear_backward = cpu_linear_backward,
    .layernorm_forward = cpu_layernorm_forward,
    .layernorm_backward = cpu_layernorm_backward,
    .gelu_forward = cpu_gelu_forward,
    .gelu_backward = cpu_gelu_backward,
    .residual_forward = cpu_residual_forward,
    .residual_backward = cpu_residual_backward,
    .drop_path_scales = cpu_drop_path_scales,
    .dropout_forward = cpu_dropout_forward,
    .dropout_backward = cpu_dropout_backward,
    .patchify = cpu_patchify,
    .embed_tokens_forward = cpu_embed_tokens_forward,
    .embed_tokens_backward = cpu_embed_tokens_backward,
    .gather_tokens_forward = cpu_gather_tokens_forward,
    .gather_tokens_backward = cpu_gather_tokens_backward,
    .qkv_pack_forward = cpu_qkv_pack_forward,
    .qkv_pack_backward = cpu_qkv_pack_backward,
    .bias_gather_forward = cpu_bias_gather_forward,
    .bias_gather_backward = cpu_bias_gather_backward,
    .scatter_tokens_forward = cpu_scatter_tokens_forward,
    .scatter_tokens_backward = cpu_scatter_tokens_backward,
    .mean_pool_forward = cpu_mean_pool_forward,
    .mean_pool_backward = cpu_mean_pool_backward,
    .resize2d_forward = cpu_resize2d_forward,
    .resize2d_backward = cpu_resize2d_backward,
    .attention_forward = cpu_attention_forward,
    .attention_backward = cpu_attention_backward,
    .sincos2d_add = cpu_sincos2d_add,
    .rope_forward = cpu_rope_forward,
    .rope_backward = cpu_rope_backward,
    .softmax_xent_forward = cpu_softmax_xent_forward,
    .softmax_xent_backward = cpu_softmax_xent_backward,
    .mse_forward = cpu_mse_forward,
    .mse_backward = cpu_mse_backward,
    .sum = cpu_sum,
    .class_rank = cpu_class_rank,
    .argmax_rows = cpu_argmax_rows,
    .sum_squares = cpu_sum_squares,
    .scale = cpu_scale,
    .adamw_update = cpu_adamw_update,
};
