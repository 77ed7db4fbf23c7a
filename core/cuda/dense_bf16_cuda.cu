// core/cuda/dense_bf16_cuda.cu — the CUDA bf16-activation ops (core/ops_list.h "bf16
// activations"): bf16 storage, fp32 arithmetic, one rounding of each output
// (__float2bfloat16_rn: core/bf16.h's rule). Conversions are bf16_convert_cuda.cu's; GELU is a
// grid-stride elementwise kernel; residual + LayerNorm is one warp per row (dense_cuda.cu's LayerNorm arithmetic after
// the residual add); the LayerNorm backward widens its bf16 output gradient into a transient fp32
// buffer and runs dense_cuda.cu's backward (the same results; a fused kernel reading bf16 is the
// faster form). The CPU twin is core/cpu/dense_bf16_cpu.c.
#include "ops_cuda_internal.cuh"
#include "bf16_convert.h"
#include <cuda_bf16.h>

#define BF16_THREADS 256
#define BF16_WARP 32
#define BF16_GRID_MAX 65535u // blocks of a grid-stride loop

static unsigned grid_for(size_t n) {
    size_t b = (n + BF16_THREADS - 1) / BF16_THREADS;
    return b == 0 ? 1u : b < BF16_GRID_MAX ? (unsigned)b : BF16_GRID_MAX;
}

static __device__ __forceinline__ float widen(bfloat16 h) { return __uint_as_float((unsigned)h << 16); }
static __device__ __forceinline__ bfloat16 narrow(float x) { return __bfloat16_as_ushort(__float2bfloat16_rn(x)); }

// GELU as dense_cuda.cu computes it: x·Φ(x), Φ(x) = (1 + erf(x/√2))/2; derivative Φ(x) + x·φ(x).
#define GELU_SQRT1_2 0.70710678118654752f
#define GELU_INV_SQRT_2PI 0.3989422804014327f

static __global__ void gelu_forward_bf16_elements(bfloat16 *out, const bfloat16 *in, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float x = widen(in[i]);
        out[i] = narrow(0.5f * x * (1.0f + erff(x * GELU_SQRT1_2)));
    }
}

static __global__ void gelu_backward_bf16_elements(bfloat16 *din, const bfloat16 *dout, const bfloat16 *in, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float x = widen(in[i]);
        float cdf = 0.5f * (1.0f + erff(x * GELU_SQRT1_2));
        din[i] = narrow(0.0f + widen(dout[i]) * (cdf + x * GELU_INV_SQRT_2PI * expf(-0.5f * x * x)));
    }
}

static __device__ __forceinline__ float row_warp_sum(float v) {
    for (int off = BF16_WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// One warp per row n of (B·T, C): res = x + k·branch, then LayerNorm of res (two-pass variance)
// rounded into ln; mean, rstd kept. branch NULL: the LayerNorm of x itself, res not written.
static __global__ void residual_layernorm_bf16_rows(float *res, bfloat16 *ln, float *mean, float *rstd, const float *x,
                                                    const bfloat16 *branch, const float *keep_scale, const float *weight,
                                                    const float *bias, int rows, int T, int C) {
    int row = blockIdx.x * (blockDim.x / BF16_WARP) + threadIdx.x / BF16_WARP, lane = threadIdx.x % BF16_WARP;
    if (row >= rows) return; // the whole warp leaves together
    float k = keep_scale ? keep_scale[row / T] : 1.0f;
    size_t base = (size_t)row * C;
    float sum = 0.0f;
    for (int c = lane; c < C; c += BF16_WARP) {
        float r = branch ? x[base + c] + k * widen(branch[base + c]) : x[base + c];
        if (branch) res[base + c] = r;
        sum += r;
    }
    const float *v = branch ? res : x; // the LayerNorm's input row
    float m = row_warp_sum(sum) / (float)C;
    float var = 0.0f;
    for (int c = lane; c < C; c += BF16_WARP) var += (v[base + c] - m) * (v[base + c] - m);
    var = row_warp_sum(var) / (float)C;
    float s = 1.0f / sqrtf(var + LAYERNORM_EPS);
    for (int c = lane; c < C; c += BF16_WARP) ln[base + c] = narrow((v[base + c] - m) * s * weight[c] + bias[c]);
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = s;
    }
}

// The conversions are bf16_convert_cuda.cu's vectorised kernels (8 elements a thread).
void cuda_to_bf16(bfloat16 *dst, const float *src, size_t n) { cuda_f32_to_bf16(dst, src, n); }
void cuda_from_bf16(float *dst, const bfloat16 *src, size_t n) { cuda_bf16_to_f32(dst, src, n); }

void cuda_gelu_forward_bf16(bfloat16 *out, const bfloat16 *in, size_t n) {
    if (n == 0) return;
    gelu_forward_bf16_elements<<<grid_for(n), BF16_THREADS, 0, cuda_stream()>>>(out, in, n);
    CUDA_LAUNCH_CHECK();
}

void cuda_gelu_backward_bf16(bfloat16 *din, const bfloat16 *dout, const bfloat16 *in, size_t n) {
    if (n == 0) return;
    gelu_backward_bf16_elements<<<grid_for(n), BF16_THREADS, 0, cuda_stream()>>>(din, dout, in, n);
    CUDA_LAUNCH_CHECK();
}

void cuda_residual_layernorm_forward_bf16(float *res, bfloat16 *ln, float *mean, float *rstd, const float *x,
                                          const bfloat16 *branch, const float *keep_scale, const float *weight,
                                          const float *bias, int B, int T, int C) {
    int rows = B * T;
    if (rows == 0 || C == 0) return;
    residual_layernorm_bf16_rows<<<cuda_blocks((size_t)rows, BF16_THREADS / BF16_WARP), BF16_THREADS, 0, cuda_stream()>>>(
        res, ln, mean, rstd, x, branch, keep_scale, weight, bias, rows, T, C);
    CUDA_LAUNCH_CHECK();
}

void cuda_layernorm_backward_bf16(float *din, float *dweight, float *dbias, const bfloat16 *dout, const float *in,
                                  const float *weight, const float *mean, const float *rstd, int N, int C) {
    size_t n = (size_t)N * C;
    if (n == 0) return;
    float *dy = (float *)cuda_alloc_transient(n * sizeof(float), "layernorm bf16 output gradient (widened)");
    cuda_from_bf16(dy, dout, n);
    cuda_layernorm_backward(din, dweight, dbias, dy, in, weight, mean, rstd, N, C);
    cuda_free_transient(dy);
}
