// core/cuda/optim_cuda.cu — optimizer arithmetic on the GPU: the fixed-order sum of squares
// (gradient norm), scaling (clipping) and the elementwise AdamW update. Contracts in
// core/ops.h; the CPU twin is core/cpu/optim_cpu.c. The AdamW kernel rounds where the CPU does
// (__fmul_rn), so an update matches the CPU's bit for bit. adamw_update_multi runs one launch
// over every tensor of the arena under POSBENCH_KERNELS=v2 (a chunk table: each block one
// chunk of one tensor, float4 where the arrays allow), the same arithmetic per element
// (adamw_element), else one adamw_update per tensor. Both mark the parameters they write for
// the bf16 weight copies of linear_lt_cuda.cu. optim_prepare and adamw_update_multi_scalars keep
// a step's norm, clipping factor and per-step values on the device (no host read, graph-safe).
#include "ops_cuda_internal.cuh"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 256 // threads per block for elementwise kernels

// Σ x² in double: reduce_cuda.cu's fixed-shape two-pass reduction (exact float squares, per-block
// grid-stride sums, a fixed tree per block, then one block's fixed tree over the partials).
double cuda_sum_squares(const float *x, size_t n) { return cuda_reduce_sum_double(x, n, 1); }

// (n): x *= s.
__global__ void scale_kernel(float *x, size_t n, float s) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

void cuda_scale(float *x, size_t n, float s) {
    if (n == 0) return;
    cuda_weights_written(x, n * sizeof(float));
    scale_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(x, n, s);
    CUDA_LAUNCH_CHECK();
}

// The per-step values of an update: passed by value (adamw_update_multi: bias corrections from the
// host's powf) or, when `scalars` is not NULL, read by every block from backend memory
// (adamw_update_multi_scalars: STEP_* of core/ops.h, so a captured graph replays with new values).
typedef struct {
    float lr, bc1, bc2;
    const float *scalars;
} adamw_step;

// The values in force; 0 when the step is skipped (scalars[STEP_SKIP] != 0: its loss was not finite).
static __device__ __forceinline__ int adamw_values(adamw_step st, float *lr, float *bc1, float *bc2, float *scale) {
    if (!st.scalars) {
        *lr = st.lr, *bc1 = st.bc1, *bc2 = st.bc2, *scale = 1.0f;
        return 1;
    }
    *lr = st.scalars[STEP_LR], *bc1 = st.scalars[STEP_BC1], *bc2 = st.scalars[STEP_BC2];
    *scale = st.scalars[STEP_GRAD_SCALE];
    return st.scalars[STEP_SKIP] == 0.0f;
}

// The weight decay of an element: `decay` itself when passed by value; with scalars, `decay` only
// says whether it applies (non-zero: the tensor was declared with decay) and the value is
// scalars[STEP_WD] (a schedule's, read by a replay).
static __device__ __forceinline__ float adamw_decay(adamw_step st, float decay) {
    return !st.scalars ? decay : decay != 0.0f ? st.scalars[STEP_WD] : 0.0f;
}

// One AdamW step of element i, operation for operation as optim_cpu.c (bias corrections bc1,
// bc2 come from the host's powf); scaled: the gradient times grad_scale first (clipping).
static __device__ __forceinline__ void adamw_element(float *param, const float *grad, float *m, float *v,
                                                     unsigned i, float lr, float beta1, float beta2,
                                                     float eps, float weight_decay, float bc1, float bc2,
                                                     int scaled, float grad_scale) {
    float g = scaled ? __fmul_rn(grad[i], grad_scale) : grad[i];
    float mi = __fmul_rn(beta1, m[i]) + __fmul_rn(1.0f - beta1, g);
    float vi = __fmul_rn(beta2, v[i]) + __fmul_rn(__fmul_rn(1.0f - beta2, g), g);
    m[i] = mi;
    v[i] = vi;
    float update = (mi / bc1) / (sqrtf(vi / bc2) + eps);
    float p = param[i];
    param[i] = p - __fmul_rn(lr, update + __fmul_rn(weight_decay, p));
}

// (n): one AdamW step.
__global__ void adamw_kernel(float *param, const float *grad, float *m, float *v, size_t n, adamw_step st,
                             float beta1, float beta2, float eps, float weight_decay) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float lr, bc1, bc2, scale;
    if (i >= n || !adamw_values(st, &lr, &bc1, &bc2, &scale)) return;
    adamw_element(param + i, grad + i, m + i, v + i, 0, lr, beta1, beta2, eps, adamw_decay(st, weight_decay), bc1, bc2,
                  st.scalars != NULL, scale);
}

static void adamw_launch(float *param, const float *grad, float *m, float *v, size_t n, adamw_step st,
                         float beta1, float beta2, float eps, float weight_decay) {
    if (n == 0) return;
    cuda_weights_trained(param, n);
    adamw_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(param, grad, m, v, n, st, beta1, beta2, eps,
                                                                         weight_decay);
    CUDA_LAUNCH_CHECK();
}

void cuda_adamw_update(float *param, const float *grad, float *m, float *v, size_t n, float lr,
                       float beta1, float beta2, float eps, float weight_decay, int t) {
    adamw_step st = {lr, 1.0f - powf(beta1, (float)t), 1.0f - powf(beta2, (float)t), NULL};
    adamw_launch(param, grad, m, v, n, st, beta1, beta2, eps, weight_decay);
}

// ---- one launch over the arena (POSBENCH_KERNELS=v2)
#define ADAMW_CHUNK 16384u // elements per block

typedef struct {
    size_t start;    // first element (arena offset)
    unsigned len;    // elements, <= ADAMW_CHUNK
    int decay;       // 1: weight decay applies
    int vectors;     // 1: start is 16-byte aligned in all four arrays (float4 body, scalar tail)
} adamw_chunk;

__global__ void adamw_multi_kernel(float *param, const float *grad, float *m, float *v,
                                   const adamw_chunk *chunks, adamw_step st, float beta1, float beta2,
                                   float eps, float weight_decay) {
    float lr, bc1, bc2, scale;
    if (!adamw_values(st, &lr, &bc1, &bc2, &scale)) return;
    int scaled = st.scalars != NULL;
    adamw_chunk c = chunks[blockIdx.x];
    float *p = param + c.start, *mm = m + c.start, *vv = v + c.start;
    const float *g = grad + c.start;
    float wd = adamw_decay(st, c.decay ? weight_decay : 0.0f);
    unsigned body = c.vectors ? c.len / 4 * 4 : 0;
    for (unsigned q = 4 * threadIdx.x; q < body; q += 4 * blockDim.x) {
        float4 p4 = *(float4 *)(p + q), g4 = *(const float4 *)(g + q), m4 = *(float4 *)(mm + q),
               v4 = *(float4 *)(vv + q);
        float pe[4] = {p4.x, p4.y, p4.z, p4.w}, ge[4] = {g4.x, g4.y, g4.z, g4.w},
              me[4] = {m4.x, m4.y, m4.z, m4.w}, ve[4] = {v4.x, v4.y, v4.z, v4.w};
#pragma unroll
        for (int j = 0; j < 4; j++) adamw_element(pe, ge, me, ve, j, lr, beta1, beta2, eps, wd, bc1, bc2, scaled, scale);
        *(float4 *)(p + q) = make_float4(pe[0], pe[1], pe[2], pe[3]);
        *(float4 *)(mm + q) = make_float4(me[0], me[1], me[2], me[3]);
        *(float4 *)(vv + q) = make_float4(ve[0], ve[1], ve[2], ve[3]);
    }
    for (unsigned i = body + threadIdx.x; i < c.len; i += blockDim.x)
        adamw_element(p, g, mm, vv, i, lr, beta1, beta2, eps, wd, bc1, bc2, scaled, scale);
}

// The chunk table of the last call, on the host and the device; rebuilt and uploaded only when
// the segments (or the arrays' alignment) change, i.e. once per run.
static adamw_chunk *chunks_host, *chunks_dev;
static size_t nchunks, chunks_cap;

static size_t adamw_chunks_build(adamw_chunk *out, const adamw_segment *segs, int nseg, int aligned) {
    size_t k = 0;
    for (int s = 0; s < nseg; s++)
        for (size_t done = 0; done < segs[s].numel; done += ADAMW_CHUNK) {
            size_t len = segs[s].numel - done < ADAMW_CHUNK ? segs[s].numel - done : ADAMW_CHUNK;
            if (out) { // fields written in place: out is zeroed (padding too; tables are compared with memcmp)
                out[k].start = segs[s].offset + done;
                out[k].len = (unsigned)len;
                out[k].decay = segs[s].decay != 0;
                out[k].vectors = aligned && out[k].start % 4 == 0;
            }
            k++;
        }
    return k;
}

// Both multi-tensor updates: one launch over a chunk table under POSBENCH_KERNELS=v2, else one
// launch per tensor.
static void adamw_multi(float *param, const float *grad, float *m, float *v, const adamw_segment *segs, int nseg,
                        adamw_step st, float beta1, float beta2, float eps, float weight_decay) {
    if (cuda_kernels() != CUDA_KERNELS_V2) {
        for (int s = 0; s < nseg; s++) {
            size_t o = segs[s].offset;
            adamw_launch(param + o, grad + o, m + o, v + o, segs[s].numel, st, beta1, beta2, eps,
                         segs[s].decay ? weight_decay : 0.0f);
        }
        return;
    }
    for (int s = 0; s < nseg; s++) cuda_weights_trained(param + segs[s].offset, segs[s].numel);
    int aligned = (uintptr_t)param % 16 == 0 && (uintptr_t)grad % 16 == 0 && (uintptr_t)m % 16 == 0 &&
                  (uintptr_t)v % 16 == 0;
    size_t count = adamw_chunks_build(NULL, segs, nseg, aligned);
    if (count == 0) return;
    if (count > 0x7fffffffu) die_fail("adamw_update_multi: %zu chunks exceed one launch", count);
    adamw_chunk *table = (adamw_chunk *)calloc(count, sizeof *table);
    if (!table) die_fail("out of memory for the AdamW chunk table (%zu chunks)", count);
    adamw_chunks_build(table, segs, nseg, aligned);
    if (count != nchunks || memcmp(table, chunks_host, count * sizeof *table) != 0) {
        if (count > chunks_cap) {
            if (chunks_dev) CUDA_CHECK(cudaFree(chunks_dev));
            CUDA_CHECK(cudaMalloc(&chunks_dev, count * sizeof *table));
            chunks_cap = count;
        }
        // pageable: read before it returns (the table changes once per run, in the first step)
        CUDA_CHECK(cudaMemcpyAsync(chunks_dev, table, count * sizeof *table, cudaMemcpyHostToDevice, cuda_stream()));
        free(chunks_host);
        chunks_host = table;
        nchunks = count;
    } else {
        free(table);
    }
    adamw_multi_kernel<<<(unsigned)count, THREADS, 0, cuda_stream()>>>(param, grad, m, v, chunks_dev, st, beta1, beta2,
                                                                       eps, weight_decay);
    CUDA_LAUNCH_CHECK();
}

void cuda_adamw_update_multi(float *param, const float *grad, float *m, float *v, const adamw_segment *segs,
                             int nseg, float lr, float beta1, float beta2, float eps, float weight_decay, int t) {
    adamw_step st = {lr, 1.0f - powf(beta1, (float)t), 1.0f - powf(beta2, (float)t), NULL};
    adamw_multi(param, grad, m, v, segs, nseg, st, beta1, beta2, eps, weight_decay);
}

void cuda_adamw_update_multi_scalars(float *param, const float *grad, float *m, float *v, const adamw_segment *segs,
                                     int nseg, const float *scalars, float beta1, float beta2, float eps) {
    adamw_step st = {0.0f, 1.0f, 1.0f, scalars};
    adamw_multi(param, grad, m, v, segs, nseg, st, beta1, beta2, eps, 1.0f); // 1: decay applies, at scalars[STEP_WD]
}

// norm = sqrt(*sum), the clipping factor and the skip flag (optim_prepare), one thread: the
// host's double arithmetic of optim_step, on the device.
static __global__ void optim_prepare_kernel(double *norm, float *scalars, const double *loss, const double *sum,
                                            float clip) {
    double value = sqrt(sum ? *sum : 0.0);
    *norm = value;
    scalars[STEP_GRAD_SCALE] = clip > 0.0f && value > clip ? (float)(clip / (value + 1e-6)) : 1.0f;
    scalars[STEP_SKIP] = isfinite(*loss) ? 0.0f : 1.0f;
}

void cuda_optim_prepare(double *norm, float *scalars, const double *loss, const float *grads, size_t n, float clip) {
    optim_prepare_kernel<<<1, 1, 0, cuda_stream()>>>(norm, scalars, loss, cuda_reduce_on_device(grads, n, 1), clip);
    CUDA_LAUNCH_CHECK();
}
