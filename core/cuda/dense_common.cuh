// core/cuda/dense_common.cuh — what the scalar dense kernels (dense_cuda.cu) and their
// vectorised twins (dense_vec_cuda.cu, POSBENCH_KERNELS=v2) share, so both compute every
// element with the same expression (the same roundings and contractions, hence the same bits):
// the warp sum, the column-reduction geometry, the exact GELU per element, and the launchers
// each file offers the other.
#pragma once
#include "ops_cuda_internal.cuh"
#include <cuda_bf16.h>

#define THREADS 256    // threads per block for elementwise and row kernels
#define WARP 32
#define COL_TILE 32    // columns per block in column reductions (a warp reads one row segment)
#define COL_LANES 32   // row lanes per block in column reductions
#define COL_CHUNK 256  // rows per stage-1 block of a column reduction

// Sum over the 32 lanes of a warp; every lane ends with the same bits (commutative butterfly).
static __device__ __forceinline__ float warp_sum(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

static inline int col_chunks(int N) { return N > 0 ? (N + COL_CHUNK - 1) / COL_CHUNK : 1; }

// Fixed tree over the 32 row lanes of part (COL_LANES, width); the result is part[0][tx].
template <int W>
static __device__ __forceinline__ void col_tree(float (*part)[W], int tx, int ty) {
    for (int stride = COL_LANES / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (ty < stride) part[ty][tx] += part[ty + stride][tx];
    }
    __syncthreads();
}

// ---- exact GELU (erf) per element
#define GELU_SQRT1_2 0.70710678118654752f // 1/√2
#define GELU_INV_SQRT_2PI 0.3989422804014327f

// x·Φ(x), Φ(x) = (1 + erf(x/√2))/2.
static __device__ __forceinline__ float gelu_value(float x) {
    return 0.5f * x * (1.0f + erff(x * GELU_SQRT1_2));
}
// din + dout·(Φ(x) + x·φ(x)).
static __device__ __forceinline__ float gelu_grad_add(float din, float dout, float x) {
    float cdf = 0.5f * (1.0f + erff(x * GELU_SQRT1_2));
    return din + dout * (cdf + x * GELU_INV_SQRT_2PI * expf(-0.5f * x * x));
}

// dense_cuda.cu: stage 2 of the column sums, dst (C) += Σ_r partial (R, C) in order.
__global__ void column_partials_add_kernel(float *dst, const float *partial, int R, int C);

// dense_vec_cuda.cu: the vectorised kernels. Each returns 1 when it did the work, 0 when the
// arrays' alignment, the shape or a 32-bit index bound does not allow it (the caller then runs
// its scalar kernel).
int vec_gelu_forward(float *out, const float *in, size_t n);
int vec_gelu_backward(float *din, const float *dout, const float *in, size_t n);
int vec_residual_forward(float *out, const float *x, const float *branch, const float *keep_scale,
                         size_t n, size_t S);
int vec_residual_backward(float *dx, float *dbranch, const float *dout, const float *keep_scale,
                          size_t n, size_t S);
int vec_layernorm_forward(float *out, float *mean, float *rstd, const float *in, const float *weight,
                          const float *bias, int N, int C);
int vec_layernorm_backward_input(float *din, const float *dout, const float *in, const float *weight,
                                 const float *mean, const float *rstd, int N, int C);
// Stage 1 of the column sums (partial (R, C) over chunks of COL_CHUNK rows, the scalar kernel's
// order per column, so the same bits) and of LayerNorm's parameter gradients.
int vec_column_sums_partial(float *partial, const float *src, int N, int C);
int vec_layernorm_params_partial(float *pw, float *pb, const float *dout, const float *in,
                                 const float *mean, const float *rstd, int N, int C);
