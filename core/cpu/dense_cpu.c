// core/cpu/dense_cpu.c — the CPU dense ops (C + OpenBLAS + OpenMP): linear on OpenBLAS sgemm,
// LayerNorm, exact GELU, residual with drop path, dropout. Contracts in core/ops_list.h; the CUDA
// twin is core/cuda/dense_cuda.cu. Gathered into `ops_cpu` by ops_cpu.c.
// Parameter-gradient reductions (bias, LayerNorm weights) loop over columns in parallel and
// over rows in a fixed order, so they never depend on thread count.
#include "ops_cpu_internal.h"
#include "../common.h"
#include "vecmath.h"
#include "../bf16.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COLUMN_BLOCK 16 // columns per parallel task in column reductions (one cache line)

// ---------------------------------------------------------------- linear
// train.precision (core/ops.h): with MATMUL_BF16 each sgemm reads bf16-rounded copies of its two
// operands, made in host scratch buffers that grow to the largest operand seen and are then
// reused (the first step allocates them; no later step does). An emulation for tests and the
// guarded backend, slower than fp32: the speed of bf16 is the GPU's. The bf16-input linear ops
// (linear_bf16_cpu.c) run the same products through the helpers below.
static int matmul_precision = MATMUL_FP32;
static float *matmul_scratch[CPU_MATMUL_SCRATCH_SLOTS];
static size_t matmul_scratch_floats[CPU_MATMUL_SCRATCH_SLOTS];

void cpu_set_matmul_precision(int precision) {
    if (precision != MATMUL_FP32 && precision != MATMUL_BF16)
        die_fail("set_matmul_precision: %d is not MATMUL_FP32 or MATMUL_BF16", precision);
    matmul_precision = precision;
}

int cpu_matmul_precision(void) { return matmul_precision; }

float *cpu_matmul_scratch(int slot, size_t n) {
    if (n > matmul_scratch_floats[slot]) {
        free(matmul_scratch[slot]);
        matmul_scratch[slot] = xmalloc(n * sizeof(float), "bf16 matmul operand scratch");
        matmul_scratch_floats[slot] = n;
    }
    return matmul_scratch[slot];
}

const float *cpu_bf16_operand(int slot, const float *x, size_t n) {
    float *r = cpu_matmul_scratch(slot, n);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) r[i] = bf16_round(x[i]);
    return r;
}

// x (n) as the sgemm operand in `slot`: x itself in fp32, else its bf16-rounded copy.
static const float *matmul_operand(int slot, const float *x, size_t n) {
    return matmul_precision == MATMUL_FP32 ? x : cpu_bf16_operand(slot, x, n);
}

void cpu_linear_product(float *out, const float *in, const float *weight, const float *bias, int N, int IC, int OC) {
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

void cpu_linear_forward(float *out, const float *in, const float *weight,
                        const float *bias, int N, int IC, int OC) {
    cpu_linear_product(out, matmul_operand(0, in, (size_t)N * IC), matmul_operand(1, weight, (size_t)OC * IC), bias, N,
                       IC, OC);
}

// dst (C) += Σ_n src (N, C) over rows, rows summed in order 0..N-1.
void cpu_column_sums_add(float *dst, const float *src, int N, int C) {
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

void cpu_linear_input_grad(float *din, const float *dout, const float *weight, int N, int IC, int OC) {
    // din (N, IC) += dout (N, OC) · weight (OC, IC)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, IC, OC, 1.0f, dout, OC, weight, IC, 1.0f, din, IC);
}

void cpu_linear_weight_grad(float *dweight, const float *dout, const float *in, int N, int IC, int OC) {
    // dweight (OC, IC) += dout (N, OC)ᵀ · in (N, IC)
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, IC, N, 1.0f, dout, OC, in, IC, 1.0f, dweight, IC);
}

void cpu_linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                         const float *in, const float *weight, int N, int IC, int OC) {
    if (dbias) cpu_column_sums_add(dbias, dout, N, OC); // the fp32 dout, before any rounding
    const float *dout_op = matmul_operand(0, dout, (size_t)N * OC);
    if (din) cpu_linear_input_grad(din, dout_op, matmul_operand(1, weight, (size_t)OC * IC), N, IC, OC);
    if (dweight) cpu_linear_weight_grad(dweight, dout_op, matmul_operand(1, in, (size_t)N * IC), N, IC, OC);
}

// ---------------------------------------------------------------- layernorm
void cpu_layernorm_row(float *y, float *mean, float *rstd, const float *x, const float *weight, const float *bias, int C) {
    float m = 0.0f;
    for (int c = 0; c < C; c++) m += x[c];
    m /= (float)C;
    float var = 0.0f;
    for (int c = 0; c < C; c++) var += (x[c] - m) * (x[c] - m);
    var /= (float)C;
    float s = 1.0f / sqrtf(var + LAYERNORM_EPS);
    for (int c = 0; c < C; c++) y[c] = (x[c] - m) * s * weight[c] + bias[c];
    *mean = m;
    *rstd = s;
}

void cpu_layernorm_forward(float *out, float *mean, float *rstd, const float *in,
                           const float *weight, const float *bias, int N, int C) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        cpu_layernorm_row(out + (size_t)n * C, &mean[n], &rstd[n], in + (size_t)n * C, weight, bias, C);
}

void cpu_layernorm_backward(float *din, float *dweight, float *dbias, const float *dout,
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

GELU_CLONES void cpu_gelu_forward_range(float *restrict out, const float *restrict in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float x = in[i];
        float e = exp_nonpos(-0.5f * x * x);
        out[i] = 0.5f * x * (1.0f + erf_with_exp(x * (float)M_SQRT1_2, e));
    }
}

GELU_CLONES void cpu_gelu_backward_range(float *restrict din, const float *restrict dout, const float *restrict in,
                                         size_t n) {
    const float inv_sqrt_2pi = 0.3989422804014327f;
    for (size_t i = 0; i < n; i++) {
        float x = in[i];
        float e = exp_nonpos(-0.5f * x * x);
        float cdf = 0.5f * (1.0f + erf_with_exp(x * (float)M_SQRT1_2, e));
        din[i] += dout[i] * (cdf + x * inv_sqrt_2pi * e);
    }
}


void cpu_gelu_forward(float *out, const float *in, size_t n) {
    long chunks = (long)((n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < chunks; c++) {
        size_t lo = (size_t)c * ELEMENTWISE_CHUNK, len = lo + ELEMENTWISE_CHUNK < n ? ELEMENTWISE_CHUNK : n - lo;
        cpu_gelu_forward_range(out + lo, in + lo, len);
    }
}

void cpu_gelu_backward(float *din, const float *dout, const float *in, size_t n) {
    long chunks = (long)((n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < chunks; c++) {
        size_t lo = (size_t)c * ELEMENTWISE_CHUNK, len = lo + ELEMENTWISE_CHUNK < n ? ELEMENTWISE_CHUNK : n - lo;
        cpu_gelu_backward_range(din + lo, dout + lo, in + lo, len);
    }
}

// ---------------------------------------------------------------- residual, drop path, dropout
void cpu_residual_forward(float *out, const float *x, const float *branch,
                          const float *keep_scale, int B, size_t S) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        float k = keep_scale ? keep_scale[b] : 1.0f;
        size_t base = (size_t)b * S;
        for (size_t i = 0; i < S; i++) out[base + i] = x[base + i] + k * branch[base + i];
    }
}

void cpu_residual_backward(float *dx, float *dbranch, const float *dout,
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

// The clock set_rng_clock last set (NULL: the addresses passed); the random ops below take their
// address's epoch (plus the address's epoch slot, RNG_EPOCH_SLOT_MASK) and step from it.
static const uint32_t *rng_clock;

void cpu_set_rng_clock(const uint32_t *clock) { rng_clock = clock; }

static rng_addr clocked(rng_addr a) {
    if (rng_clock) a.epoch = rng_clock[0] + (a.epoch & RNG_EPOCH_SLOT_MASK), a.step = rng_clock[1];
    return a;
}

void cpu_drop_path_scales(float *keep_scale, int B, float p, rng_addr a) {
    a = clocked(a);
    for (int b = 0; b < B; b++) {
        float u = rng_uniform_at(a.seed, a.purpose, a.epoch, a.step, a.index, (uint64_t)b);
        keep_scale[b] = (p <= 0.0f) ? 1.0f : (u < p ? 0.0f : 1.0f / (1.0f - p));
    }
}

void cpu_dropout_forward(float *out, float *mask, const float *in, size_t n, float p,
                         rng_addr a, uint64_t first) {
    float keep = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    if (n == 0) return;
    a = clocked(a);
    // One Philox block gives the uniforms of 4 consecutive stream elements: the blocks that
    // cover stream elements [first, first + n), each element written by its block alone.
    uint64_t lo = first / 4, blocks = (first + n + 3) / 4 - lo;
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < blocks; k++) {
        uint64_t blk = lo + k;
        float u[4];
        rng_uniform4_at(a.seed, a.purpose, a.epoch, a.step, a.index, blk, u);
        uint64_t begin = blk * 4 > first ? blk * 4 : first, end = blk * 4 + 4 < first + n ? blk * 4 + 4 : first + n;
        for (uint64_t g = begin; g < end; g++) {
            size_t i = (size_t)(g - first);
            mask[i] = u[g - blk * 4] < p ? 0.0f : keep;
            out[i] = in[i] * mask[i];
        }
    }
}

void cpu_dropout_backward(float *din, const float *dout, const float *mask, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) din[i] += dout[i] * mask[i];
}

// ---------------------------------------------------------------- ReLU (SimCLR's projection head)
void cpu_relu_forward(float *out, const float *in, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) out[i] = in[i] <= 0.0f ? 0.0f : in[i]; // NaN stays NaN (torch.relu), never 0
}

void cpu_relu_backward(float *din, const float *dout, const float *in, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        if (in[i] > 0.0f) din[i] += dout[i];
}
