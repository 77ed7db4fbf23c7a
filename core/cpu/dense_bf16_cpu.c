// core/cpu/dense_bf16_cpu.c — the CPU bf16-activation ops (core/ops_list.h "bf16 activations"):
// each widens its bf16 inputs, runs dense_cpu.c's own fp32 kernel on them (the same functions, so
// the same bits) and rounds its output once with core/bf16.h's rule. The CUDA twin is
// core/cuda/dense_bf16_cuda.cu. The CPU backend emulates the storage's rounding points for tests
// and the guarded backend; its speed and memory are the GPU's to show.
#include "ops_cpu_internal.h"
#include "../common.h"
#include <stdlib.h>
#include <string.h>

void cpu_to_bf16(bfloat16 *dst, const float *src, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) dst[i] = bf16_from_float(src[i]);
}

void cpu_from_bf16(float *dst, const bfloat16 *src, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) dst[i] = bf16_to_float(src[i]);
}

// Elementwise bf16 ops in chunks of ELEMENTWISE_CHUNK (dense_cpu.c's): each chunk's inputs
// widened into fp32 buffers on the stack, the fp32 range kernel run on them, the result rounded.
void cpu_gelu_forward_bf16(bfloat16 *out, const bfloat16 *in, size_t n) {
    long chunks = (long)((n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < chunks; c++) {
        size_t lo = (size_t)c * ELEMENTWISE_CHUNK, len = lo + ELEMENTWISE_CHUNK < n ? ELEMENTWISE_CHUNK : n - lo;
        float x[ELEMENTWISE_CHUNK], y[ELEMENTWISE_CHUNK];
        for (size_t i = 0; i < len; i++) x[i] = bf16_to_float(in[lo + i]);
        cpu_gelu_forward_range(y, x, len);
        for (size_t i = 0; i < len; i++) out[lo + i] = bf16_from_float(y[i]);
    }
}

void cpu_gelu_backward_bf16(bfloat16 *din, const bfloat16 *dout, const bfloat16 *in, size_t n) {
    long chunks = (long)((n + ELEMENTWISE_CHUNK - 1) / ELEMENTWISE_CHUNK);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < chunks; c++) {
        size_t lo = (size_t)c * ELEMENTWISE_CHUNK, len = lo + ELEMENTWISE_CHUNK < n ? ELEMENTWISE_CHUNK : n - lo;
        float x[ELEMENTWISE_CHUNK], dy[ELEMENTWISE_CHUNK], dx[ELEMENTWISE_CHUNK];
        for (size_t i = 0; i < len; i++) x[i] = bf16_to_float(in[lo + i]), dy[i] = bf16_to_float(dout[lo + i]), dx[i] = 0.0f;
        cpu_gelu_backward_range(dx, dy, x, len); // 0 + v = v: the written value
        for (size_t i = 0; i < len; i++) din[lo + i] = bf16_from_float(dx[i]);
    }
}

void cpu_residual_layernorm_forward_bf16(float *res, bfloat16 *ln, float *mean, float *rstd, const float *x,
                                         const bfloat16 *branch, const float *keep_scale, const float *weight,
                                         const float *bias, int B, int T, int C) {
    long rows = (long)B * T;
#pragma omp parallel
    {
        float *y = xmalloc((size_t)(C > 0 ? C : 1) * sizeof(float), "layernorm row");
#pragma omp for schedule(static)
        for (long n = 0; n < rows; n++) {
            float k = keep_scale ? keep_scale[n / T] : 1.0f;
            size_t base = (size_t)n * C;
            if (branch) // else the LayerNorm of x itself, res not written
                for (int c = 0; c < C; c++) res[base + c] = x[base + c] + k * bf16_to_float(branch[base + c]);
            cpu_layernorm_row(y, &mean[n], &rstd[n], (branch ? res : x) + base, weight, bias, C);
            for (int c = 0; c < C; c++) ln[base + c] = bf16_from_float(y[c]);
        }
        free(y);
    }
}

// The output gradient widened whole (N·C floats of host scratch for the call), then
// layernorm_backward itself: the same arithmetic, rows and column sums in its fixed order.
void cpu_layernorm_backward_bf16(float *din, float *dweight, float *dbias, const bfloat16 *dout, const float *in,
                                 const float *weight, const float *mean, const float *rstd, int N, int C) {
    size_t n = (size_t)N * C;
    float *dy = xmalloc((n > 0 ? n : 1) * sizeof(float), "layernorm bf16 output gradient (widened)");
    cpu_from_bf16(dy, dout, n);
    cpu_layernorm_backward(din, dweight, dbias, dy, in, weight, mean, rstd, N, C);
    free(dy);
}
