// core/cuda/dense_vec_cuda.cu — the vectorised elementwise kernels of POSBENCH_KERNELS=v2
// (core/ops_cuda.h CUDA_KERNELS_V2), called by dense_cuda.cu's ops: 16-byte loads and stores
// (float4), a grid-stride loop over 32-bit vector indices
// (no per-element 64-bit index math or size_t division), the scalar prefix and tail that
// core/vec_plan.h computes from the arrays' addresses. Every element is computed with the
// scalar kernels' expression (dense_common.cuh's gelu_value / gelu_grad_add, __fmul_rn where
// they round a product), so results are bitwise those of v1. Reductions: LayerNorm's row sums
// read float4 per lane (a different fixed order than v1's, set by C only); the column sums keep
// v1's order per column exactly (4 columns per thread, the same rows per lane and lane tree),
// so they are bitwise v1's. Each launcher returns 0 when the plan has no vector body, an index
// would not fit in 32 bits or the shape does not suit (the caller then runs its scalar kernel).
#include "dense_common.cuh"
extern "C" {
#include "../vec_plan.h"
}
#include <limits.h>

#define VEC_BLOCKS_MAX 4096u // grid-stride: at most this many blocks of THREADS

static unsigned vec_blocks(size_t items) {
    size_t b = (items + THREADS - 1) / THREADS;
    return b == 0 ? 1u : b > VEC_BLOCKS_MAX ? VEC_BLOCKS_MAX : (unsigned)b;
}

// A plan over the given arrays whose body fits 32-bit indices (vectors < 2^30), else none.
static vec_plan plan_of(const void *a, const void *b, const void *c, size_t n) {
    uintptr_t addrs[3];
    int count = 0;
    if (a) addrs[count++] = (uintptr_t)a;
    if (b) addrs[count++] = (uintptr_t)b;
    if (c) addrs[count++] = (uintptr_t)c;
    vec_plan p = vec_plan_floats(addrs, count, n);
    if (p.vectors >= (1u << 30)) p.vectors = 0;
    return p;
}

// The scalar elements of a plan: thread t < prefix takes element t, thread t < n - tail takes
// tail + t (at most 3 + 3 elements; the body is offset by `prefix` on the host).
#define FOR_SCALARS(t, prefix, tail, n, body)                                                     \
    do {                                                                                          \
        if ((t) < (prefix)) { size_t i = (t); body; }                                             \
        if ((t) < (n) - (tail)) { size_t i = (tail) + (t); body; }                                \
    } while (0)

// ---------------------------------------------------------------- GELU
__global__ void gelu_forward_vec_kernel(float *out, const float *in, size_t n, unsigned prefix,
                                        unsigned vectors, size_t tail) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const float4 *x4 = (const float4 *)(in + prefix);
    float4 *y4 = (float4 *)(out + prefix);
    for (unsigned j = t; j < vectors; j += stride) {
        float4 x = x4[j];
        y4[j] = make_float4(gelu_value(x.x), gelu_value(x.y), gelu_value(x.z), gelu_value(x.w));
    }
    FOR_SCALARS(t, prefix, tail, n, out[i] = gelu_value(in[i]));
}

__global__ void gelu_backward_vec_kernel(float *din, const float *dout, const float *in, size_t n,
                                         unsigned prefix, unsigned vectors, size_t tail) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const float4 *x4 = (const float4 *)(in + prefix), *g4 = (const float4 *)(dout + prefix);
    float4 *d4 = (float4 *)(din + prefix);
    for (unsigned j = t; j < vectors; j += stride) {
        float4 x = x4[j], g = g4[j], d = d4[j];
        d4[j] = make_float4(gelu_grad_add(d.x, g.x, x.x), gelu_grad_add(d.y, g.y, x.y),
                            gelu_grad_add(d.z, g.z, x.z), gelu_grad_add(d.w, g.w, x.w));
    }
    FOR_SCALARS(t, prefix, tail, n, din[i] = gelu_grad_add(din[i], dout[i], in[i]));
}

int vec_gelu_forward(float *out, const float *in, size_t n) {
    vec_plan p = plan_of(out, in, NULL, n);
    if (!p.vectors) return 0;
    gelu_forward_vec_kernel<<<vec_blocks(p.vectors), THREADS, 0, cuda_stream()>>>(out, in, n, (unsigned)p.prefix,
                                                                (unsigned)p.vectors, p.tail);
    CUDA_LAUNCH_CHECK();
    return 1;
}

int vec_gelu_backward(float *din, const float *dout, const float *in, size_t n) {
    vec_plan p = plan_of(din, dout, in, n);
    if (!p.vectors) return 0;
    gelu_backward_vec_kernel<<<vec_blocks(p.vectors), THREADS, 0, cuda_stream()>>>(din, dout, in, n, (unsigned)p.prefix,
                                                                 (unsigned)p.vectors, p.tail);
    CUDA_LAUNCH_CHECK();
    return 1;
}

// ---------------------------------------------------------------- residual
// With keep_scale, the plan must start at a sample boundary with S a multiple of 4 (prefix 0),
// so each vector lies in one sample: vector j is in sample j / (S/4) (one 32-bit division per
// 4 elements). Without it every element is x + 1·branch.
__global__ void residual_forward_vec_kernel(float *out, const float *x, const float *branch,
                                            const float *keep_scale, size_t n, unsigned prefix,
                                            unsigned vectors, size_t tail, unsigned S4) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const float4 *x4 = (const float4 *)(x + prefix), *b4 = (const float4 *)(branch + prefix);
    float4 *o4 = (float4 *)(out + prefix);
    for (unsigned j = t; j < vectors; j += stride) {
        float k = keep_scale ? keep_scale[j / S4] : 1.0f;
        float4 a = x4[j], b = b4[j];
        o4[j] = make_float4(a.x + __fmul_rn(k, b.x), a.y + __fmul_rn(k, b.y), a.z + __fmul_rn(k, b.z),
                            a.w + __fmul_rn(k, b.w));
    }
    // keep_scale is NULL whenever there are scalar elements (prefix 0 and S % 4 == 0 otherwise)
    FOR_SCALARS(t, prefix, tail, n, out[i] = x[i] + __fmul_rn(1.0f, branch[i]));
}

__global__ void residual_backward_vec_kernel(float *dx, float *dbranch, const float *dout,
                                             const float *keep_scale, size_t n, unsigned prefix,
                                             unsigned vectors, size_t tail, unsigned S4) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const float4 *g4 = (const float4 *)(dout + prefix);
    float4 *x4 = dx ? (float4 *)(dx + prefix) : NULL, *b4 = dbranch ? (float4 *)(dbranch + prefix) : NULL;
    for (unsigned j = t; j < vectors; j += stride) {
        float4 g = g4[j];
        if (x4) {
            float4 d = x4[j];
            x4[j] = make_float4(d.x + g.x, d.y + g.y, d.z + g.z, d.w + g.w);
        }
        if (b4) {
            float k = keep_scale ? keep_scale[j / S4] : 1.0f;
            float4 d = b4[j];
            b4[j] = make_float4(d.x + __fmul_rn(k, g.x), d.y + __fmul_rn(k, g.y), d.z + __fmul_rn(k, g.z),
                                d.w + __fmul_rn(k, g.w));
        }
    }
    FOR_SCALARS(t, prefix, tail, n, {
        if (dx) dx[i] += dout[i];
        if (dbranch) dbranch[i] += __fmul_rn(1.0f, dout[i]);
    });
}

// The plan for a residual op, or vectors = 0 when keep_scale needs sample-aligned vectors that
// this plan cannot give.
static vec_plan residual_plan(const void *a, const void *b, const void *c, const float *keep_scale,
                              size_t n, size_t S) {
    vec_plan p = plan_of(a, b, c, n);
    if (keep_scale && (S % 4 != 0 || p.prefix != 0 || p.tail != n || S / 4 > UINT_MAX)) p.vectors = 0;
    return p;
}

int vec_residual_forward(float *out, const float *x, const float *branch, const float *keep_scale,
                         size_t n, size_t S) {
    vec_plan p = residual_plan(out, x, branch, keep_scale, n, S);
    if (!p.vectors) return 0;
    residual_forward_vec_kernel<<<vec_blocks(p.vectors), THREADS, 0, cuda_stream()>>>(
        out, x, branch, keep_scale, n, (unsigned)p.prefix, (unsigned)p.vectors, p.tail, (unsigned)(S / 4));
    CUDA_LAUNCH_CHECK();
    return 1;
}

int vec_residual_backward(float *dx, float *dbranch, const float *dout, const float *keep_scale,
                          size_t n, size_t S) {
    vec_plan p = residual_plan(dx, dbranch, dout, keep_scale, n, S);
    if (!p.vectors) return 0;
    residual_backward_vec_kernel<<<vec_blocks(p.vectors), THREADS, 0, cuda_stream()>>>(
        dx, dbranch, dout, keep_scale, n, (unsigned)p.prefix, (unsigned)p.vectors, p.tail, (unsigned)(S / 4));
    CUDA_LAUNCH_CHECK();
    return 1;
}

// ---------------------------------------------------------------- LayerNorm (one warp per row)
// Rows of C floats with C % 4 == 0 and every array 16-byte aligned: lane l reads vectors
// l, l + 32, ... of the row, adding each vector's 4 values in order, then the warp butterfly.
static int ln_vec_ok(const void *a, const void *b, const void *c, const void *d, int C) {
    return C % 4 == 0 && (uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0 && (uintptr_t)c % 16 == 0 &&
           (uintptr_t)d % 16 == 0;
}

__global__ void layernorm_forward_vec_kernel(float *out, float *mean, float *rstd, const float *in,
                                             const float *weight, const float *bias, int N, int C4) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return; // the whole warp leaves together
    const float4 *x = (const float4 *)in + (size_t)row * C4, *w4 = (const float4 *)weight,
                 *b4 = (const float4 *)bias;
    float4 *y = (float4 *)out + (size_t)row * C4;
    float C = (float)(4 * C4), sum = 0.0f;
    for (int c = lane; c < C4; c += WARP) {
        float4 v = x[c];
        sum += v.x; sum += v.y; sum += v.z; sum += v.w;
    }
    float m = warp_sum(sum) / C;
    float var = 0.0f;
    for (int c = lane; c < C4; c += WARP) {
        float4 v = x[c];
        var += (v.x - m) * (v.x - m); var += (v.y - m) * (v.y - m);
        var += (v.z - m) * (v.z - m); var += (v.w - m) * (v.w - m);
    }
    var = warp_sum(var) / C;
    float s = 1.0f / sqrtf(var + LAYERNORM_EPS);
    for (int c = lane; c < C4; c += WARP) {
        float4 v = x[c], w = w4[c], b = b4[c];
        y[c] = make_float4((v.x - m) * s * w.x + b.x, (v.y - m) * s * w.y + b.y, (v.z - m) * s * w.z + b.z,
                           (v.w - m) * s * w.w + b.w);
    }
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = s;
    }
}

int vec_layernorm_forward(float *out, float *mean, float *rstd, const float *in, const float *weight,
                          const float *bias, int N, int C) {
    if (!ln_vec_ok(out, in, weight, bias, C)) return 0;
    layernorm_forward_vec_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS, 0, cuda_stream()>>>(
        out, mean, rstd, in, weight, bias, N, C / 4);
    CUDA_LAUNCH_CHECK();
    return 1;
}

// One component of the LayerNorm input gradient (the scalar kernel's expression).
static __device__ __forceinline__ float ln_dx(float dx, float dy, float w, float x, float m, float s,
                                              float mean_dxhat, float mean_dxhat_xhat) {
    float xhat = (x - m) * s;
    return dx + s * (dy * w - mean_dxhat - xhat * mean_dxhat_xhat);
}

__global__ void layernorm_backward_input_vec_kernel(float *din, const float *dout, const float *in,
                                                    const float *weight, const float *mean,
                                                    const float *rstd, int N, int C4) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return;
    const float4 *x = (const float4 *)in + (size_t)row * C4, *dy = (const float4 *)dout + (size_t)row * C4,
                 *w4 = (const float4 *)weight;
    float4 *dx = (float4 *)din + (size_t)row * C4;
    float m = mean[row], s = rstd[row], C = (float)(4 * C4);
    float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
    for (int c = lane; c < C4; c += WARP) {
        float4 g = dy[c], w = w4[c], v = x[c];
        float d0 = g.x * w.x, d1 = g.y * w.y, d2 = g.z * w.z, d3 = g.w * w.w;
        sum_dxhat += d0; sum_dxhat += d1; sum_dxhat += d2; sum_dxhat += d3;
        sum_dxhat_xhat += d0 * (v.x - m) * s; sum_dxhat_xhat += d1 * (v.y - m) * s;
        sum_dxhat_xhat += d2 * (v.z - m) * s; sum_dxhat_xhat += d3 * (v.w - m) * s;
    }
    sum_dxhat = warp_sum(sum_dxhat) / C;
    sum_dxhat_xhat = warp_sum(sum_dxhat_xhat) / C;
    for (int c = lane; c < C4; c += WARP) {
        float4 g = dy[c], w = w4[c], v = x[c], d = dx[c];
        dx[c] = make_float4(ln_dx(d.x, g.x, w.x, v.x, m, s, sum_dxhat, sum_dxhat_xhat),
                            ln_dx(d.y, g.y, w.y, v.y, m, s, sum_dxhat, sum_dxhat_xhat),
                            ln_dx(d.z, g.z, w.z, v.z, m, s, sum_dxhat, sum_dxhat_xhat),
                            ln_dx(d.w, g.w, w.w, v.w, m, s, sum_dxhat, sum_dxhat_xhat));
    }
}

int vec_layernorm_backward_input(float *din, const float *dout, const float *in, const float *weight,
                                 const float *mean, const float *rstd, int N, int C) {
    if (!ln_vec_ok(din, dout, in, weight, C)) return 0;
    layernorm_backward_input_vec_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS, 0, cuda_stream()>>>(
        din, dout, in, weight, mean, rstd, N, C / 4);
    CUDA_LAUNCH_CHECK();
    return 1;
}

// ---------------------------------------------------------------- column sums (stage 1)
// Block (COL_TILE threads x COL_LANES row lanes) over 4·COL_TILE columns: thread tx owns columns
// 4·tx .. 4·tx+3 of the block's range, lane ty sums rows r·COL_CHUNK + ty, + 32, ... in order
// (each column exactly as the scalar kernel), then the same lane tree per column.
#define VEC_COLS (4 * COL_TILE)

__global__ void column_sums_partial_vec_kernel(float *partial, const float *src, int N, int C4) {
    __shared__ float part[COL_LANES][VEC_COLS];
    int tx = threadIdx.x, ty = threadIdx.y, c4 = blockIdx.x * COL_TILE + tx, r = blockIdx.y;
    int end = min(N, (r + 1) * COL_CHUNK);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (c4 < C4) { // the row pointer advances by COL_LANES rows: no per-element index products
        const float4 *row = (const float4 *)src + (size_t)(r * COL_CHUNK + ty) * C4 + c4;
        for (int n = r * COL_CHUNK + ty; n < end; n += COL_LANES, row += (size_t)COL_LANES * C4) {
            float4 v = *row;
            acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
        }
    }
    part[ty][4 * tx] = acc.x; part[ty][4 * tx + 1] = acc.y;
    part[ty][4 * tx + 2] = acc.z; part[ty][4 * tx + 3] = acc.w;
    for (int j = 0; j < 4; j++) col_tree<VEC_COLS>(part, 4 * tx + j, ty);
    if (ty == 0 && c4 < C4)
        ((float4 *)partial)[(size_t)r * C4 + c4] =
            make_float4(part[0][4 * tx], part[0][4 * tx + 1], part[0][4 * tx + 2], part[0][4 * tx + 3]);
}

int vec_column_sums_partial(float *partial, const float *src, int N, int C) {
    if (C % 4 != 0 || (uintptr_t)src % 16 != 0 || (uintptr_t)partial % 16 != 0) return 0;
    int C4 = C / 4;
    column_sums_partial_vec_kernel<<<dim3(cuda_blocks((size_t)C4, COL_TILE), (unsigned)col_chunks(N)),
                                     dim3(COL_TILE, COL_LANES), 0, cuda_stream()>>>(partial, src, N, C4);
    CUDA_LAUNCH_CHECK();
    return 1;
}

// LayerNorm's dweight (Σ_n dout·xhat) and dbias (Σ_n dout) partials, as the scalar kernel per column.
__global__ void layernorm_params_partial_vec_kernel(float *pw, float *pb, const float *dout, const float *in,
                                                    const float *mean, const float *rstd, int N, int C4) {
    __shared__ float part_w[COL_LANES][VEC_COLS], part_b[COL_LANES][VEC_COLS];
    int tx = threadIdx.x, ty = threadIdx.y, c4 = blockIdx.x * COL_TILE + tx, r = blockIdx.y;
    int end = min(N, (r + 1) * COL_CHUNK);
    float aw[4] = {0.0f, 0.0f, 0.0f, 0.0f}, ab[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    size_t first = (size_t)(r * COL_CHUNK + ty) * C4 + c4, step = (size_t)COL_LANES * C4;
    const float4 *gp = (const float4 *)dout + first, *xp = (const float4 *)in + first;
    if (c4 < C4)
        for (int n = r * COL_CHUNK + ty; n < end; n += COL_LANES, gp += step, xp += step) {
            float4 g = *gp, v = *xp;
            float m = mean[n], s = rstd[n], gs[4] = {g.x, g.y, g.z, g.w}, xs[4] = {v.x, v.y, v.z, v.w};
            for (int j = 0; j < 4; j++) {
                aw[j] += gs[j] * (xs[j] - m) * s;
                ab[j] += gs[j];
            }
        }
    for (int j = 0; j < 4; j++) {
        part_w[ty][4 * tx + j] = aw[j];
        part_b[ty][4 * tx + j] = ab[j];
    }
    for (int j = 0; j < 4; j++) {
        col_tree<VEC_COLS>(part_w, 4 * tx + j, ty);
        col_tree<VEC_COLS>(part_b, 4 * tx + j, ty);
    }
    if (ty == 0 && c4 < C4)
        for (int j = 0; j < 4; j++) {
            pw[(size_t)r * 4 * C4 + 4 * c4 + j] = part_w[0][4 * tx + j];
            pb[(size_t)r * 4 * C4 + 4 * c4 + j] = part_b[0][4 * tx + j];
        }
}

int vec_layernorm_params_partial(float *pw, float *pb, const float *dout, const float *in,
                                 const float *mean, const float *rstd, int N, int C) {
    if (C % 4 != 0 || (uintptr_t)dout % 16 != 0 || (uintptr_t)in % 16 != 0) return 0;
    int C4 = C / 4;
    layernorm_params_partial_vec_kernel<<<dim3(cuda_blocks((size_t)C4, COL_TILE), (unsigned)col_chunks(N)),
                                          dim3(COL_TILE, COL_LANES), 0, cuda_stream()>>>(pw, pb, dout, in, mean, rstd, N, C4);
    CUDA_LAUNCH_CHECK();
    return 1;
}
