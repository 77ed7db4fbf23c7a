// core/cuda/dense_cuda.cu — the CUDA dense ops: linear (cuBLAS sgemm), LayerNorm, GELU,
// residual / drop path / dropout, the per-row losses and the optimizer arithmetic. Each op
// follows core/ops.h and matches its CPU twin (ops_cpu.c, losses_cpu.c, optim_cpu.c) in math
// and float precision. Layout is row-major, shapes are written (N, C).
// Determinism: no floating-point atomics. Row reductions use one warp per row (lanes stride
// over columns, then an xor-butterfly that leaves the same bits in every lane); column
// (parameter-gradient) reductions use a block of 32 columns x 32 row lanes, each lane summing
// its rows in order, then a fixed tree over the lanes. Results depend only on the shapes.
// Elementwise kernels multiply with __fmul_rn where the CPU rounds a product before adding
// (the CPU build, -std=c11, never fuses multiply-adds), so those ops match the CPU bit for bit.
#include "ops_cuda_internal.cuh"
#include <math.h>

#define THREADS 256    // threads per block for elementwise and row kernels
#define WARP 32
#define COL_TILE 32    // columns per block in column reductions (a warp reads one row segment)
#define COL_LANES 32   // row lanes per block in column reductions
#define SUM_THREADS 256
#define SUM_MAX_BLOCKS 1024 // partial sums of cuda_sum_squares (the second pass is one block)

// ---------------------------------------------------------------- reduction helpers
// Sum over the 32 lanes of a warp; every lane ends with the same bits (commutative butterfly).
__device__ __forceinline__ float warp_sum(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
__device__ __forceinline__ double warp_sum_double(double v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}
// Sum over a block whose size is a power of two, fixed tree in shared memory s (blockDim.x).
// The result is valid in thread 0.
__device__ double block_sum_double(double v, double *s) {
    s[threadIdx.x] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    return s[0];
}

// ---------------------------------------------------------------- memory
void cuda_zero(float *x, size_t n) {
    if (n == 0) return;
    CUDA_CHECK(cudaMemsetAsync(x, 0, n * sizeof(float), 0));
}

// ---------------------------------------------------------------- linear
// out (N, OC) = bias (OC) broadcast over rows.
__global__ void broadcast_rows_kernel(float *out, const float *bias, size_t N, int OC) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N * OC) out[i] = bias[i % OC];
}

// dst (C) += Σ_n src (N, C): block = 32 columns x 32 row lanes; lane y sums rows y, y+32, ...
// in order, then a fixed tree over the lanes.
__global__ void column_sums_add_kernel(float *dst, const float *src, int N, int C) {
    __shared__ float part[COL_LANES][COL_TILE];
    int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.x * COL_TILE + tx;
    float acc = 0.0f;
    if (c < C)
        for (int n = ty; n < N; n += COL_LANES) acc += src[(size_t)n * C + c];
    part[ty][tx] = acc;
    __syncthreads();
    for (int stride = COL_LANES / 2; stride > 0; stride >>= 1) {
        if (ty < stride) part[ty][tx] += part[ty + stride][tx];
        __syncthreads();
    }
    if (ty == 0 && c < C) dst[c] += part[0][tx];
}

void cuda_linear_forward(float *out, const float *in, const float *weight, const float *bias,
                         int N, int IC, int OC) {
    if (N == 0 || OC == 0) return;
    size_t n = (size_t)N * OC;
    float one = 1.0f, beta = 0.0f;
    if (bias) { // out = bias first, then the sgemm adds to it (beta = 1), as the CPU does
        broadcast_rows_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(out, bias, (size_t)N, OC);
        CUDA_LAUNCH_CHECK();
        beta = 1.0f;
    }
    if (IC == 0) { // empty product: out = bias, or zeros
        if (!bias) cuda_zero(out, n);
        return;
    }
    // Row-major out (N, OC) is column-major outᵀ (OC, N) = W (OC, IC) · inᵀ (IC, N), where the
    // row-major weight (OC, IC) reads as column-major Wᵀ (IC, OC), hence OP_T.
    CUBLAS_CHECK(cublasSgemm(cuda_cublas(), CUBLAS_OP_T, CUBLAS_OP_N, OC, N, IC, &one, weight,
                             IC, in, IC, &beta, out, OC));
}

void cuda_linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                          const float *in, const float *weight, int N, int IC, int OC) {
    if (N == 0 || OC == 0) return; // every gradient would gain an empty sum
    float one = 1.0f;
    if (din && IC > 0) // din (N, IC) += dout (N, OC) · W (OC, IC); column-major: dinᵀ += Wᵀ · doutᵀ
        CUBLAS_CHECK(cublasSgemm(cuda_cublas(), CUBLAS_OP_N, CUBLAS_OP_N, IC, N, OC, &one, weight,
                                 IC, dout, OC, &one, din, IC));
    if (dweight && IC > 0) // dW (OC, IC) += doutᵀ · in; column-major: dWᵀ (IC, OC) += inᵀ · dout
        CUBLAS_CHECK(cublasSgemm(cuda_cublas(), CUBLAS_OP_N, CUBLAS_OP_T, IC, OC, N, &one, in,
                                 IC, dout, OC, &one, dweight, IC));
    if (dbias) {
        column_sums_add_kernel<<<cuda_blocks((size_t)OC, COL_TILE), dim3(COL_TILE, COL_LANES)>>>(
            dbias, dout, N, OC);
        CUDA_LAUNCH_CHECK();
    }
}

// ---------------------------------------------------------------- layernorm
// (N, C) -> out (N, C), mean (N), rstd (N): one warp per row, two-pass variance as the CPU.
__global__ void layernorm_forward_kernel(float *out, float *mean, float *rstd, const float *in,
                                         const float *weight, const float *bias, int N, int C) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return; // the whole warp leaves together
    const float *x = in + (size_t)row * C;
    float *y = out + (size_t)row * C;
    float sum = 0.0f;
    for (int c = lane; c < C; c += WARP) sum += x[c];
    float m = warp_sum(sum) / (float)C;
    float var = 0.0f;
    for (int c = lane; c < C; c += WARP) var += (x[c] - m) * (x[c] - m);
    var = warp_sum(var) / (float)C;
    float s = 1.0f / sqrtf(var + LAYERNORM_EPS);
    for (int c = lane; c < C; c += WARP) y[c] = (x[c] - m) * s * weight[c] + bias[c];
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = s;
    }
}

// din (N, C) += LayerNorm input gradient: one warp per row.
__global__ void layernorm_backward_input_kernel(float *din, const float *dout, const float *in,
                                                const float *weight, const float *mean,
                                                const float *rstd, int N, int C) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return;
    const float *x = in + (size_t)row * C, *dy = dout + (size_t)row * C;
    float *dx = din + (size_t)row * C;
    float m = mean[row], s = rstd[row];
    float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
    for (int c = lane; c < C; c += WARP) {
        float dxhat = dy[c] * weight[c];
        sum_dxhat += dxhat;
        sum_dxhat_xhat += dxhat * (x[c] - m) * s;
    }
    sum_dxhat = warp_sum(sum_dxhat) / (float)C;
    sum_dxhat_xhat = warp_sum(sum_dxhat_xhat) / (float)C;
    for (int c = lane; c < C; c += WARP) {
        float xhat = (x[c] - m) * s;
        dx[c] += s * (dy[c] * weight[c] - sum_dxhat - xhat * sum_dxhat_xhat);
    }
}

// dweight (C) += Σ_n dout·xhat, dbias (C) += Σ_n dout over (N, C); either may be NULL.
// Same fixed shape as column_sums_add_kernel.
__global__ void layernorm_backward_params_kernel(float *dweight, float *dbias, const float *dout,
                                                 const float *in, const float *mean,
                                                 const float *rstd, int N, int C) {
    __shared__ float part_w[COL_LANES][COL_TILE], part_b[COL_LANES][COL_TILE];
    int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.x * COL_TILE + tx;
    float acc_w = 0.0f, acc_b = 0.0f;
    if (c < C)
        for (int n = ty; n < N; n += COL_LANES) {
            float dy = dout[(size_t)n * C + c], x = in[(size_t)n * C + c];
            acc_w += dy * (x - mean[n]) * rstd[n];
            acc_b += dy;
        }
    part_w[ty][tx] = acc_w;
    part_b[ty][tx] = acc_b;
    __syncthreads();
    for (int stride = COL_LANES / 2; stride > 0; stride >>= 1) {
        if (ty < stride) {
            part_w[ty][tx] += part_w[ty + stride][tx];
            part_b[ty][tx] += part_b[ty + stride][tx];
        }
        __syncthreads();
    }
    if (ty == 0 && c < C) {
        if (dweight) dweight[c] += part_w[0][tx];
        if (dbias) dbias[c] += part_b[0][tx];
    }
}

void cuda_layernorm_forward(float *out, float *mean, float *rstd, const float *in,
                            const float *weight, const float *bias, int N, int C) {
    if (N == 0 || C == 0) return;
    layernorm_forward_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS>>>(
        out, mean, rstd, in, weight, bias, N, C);
    CUDA_LAUNCH_CHECK();
}

void cuda_layernorm_backward(float *din, float *dweight, float *dbias, const float *dout,
                             const float *in, const float *weight, const float *mean,
                             const float *rstd, int N, int C) {
    if (N == 0 || C == 0) return;
    if (din) {
        layernorm_backward_input_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS>>>(
            din, dout, in, weight, mean, rstd, N, C);
        CUDA_LAUNCH_CHECK();
    }
    if (dweight || dbias) {
        layernorm_backward_params_kernel<<<cuda_blocks((size_t)C, COL_TILE),
                                           dim3(COL_TILE, COL_LANES)>>>(dweight, dbias, dout, in,
                                                                        mean, rstd, N, C);
        CUDA_LAUNCH_CHECK();
    }
}

// ---------------------------------------------------------------- GELU (exact, erf)
#define GELU_SQRT1_2 0.70710678118654752f // 1/√2
#define GELU_INV_SQRT_2PI 0.3989422804014327f

// (n): out = x·Φ(x), Φ(x) = (1 + erf(x/√2))/2.
__global__ void gelu_forward_kernel(float *out, const float *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    out[i] = 0.5f * x * (1.0f + erff(x * GELU_SQRT1_2));
}

// (n): din += dout·(Φ(x) + x·φ(x)).
__global__ void gelu_backward_kernel(float *din, const float *dout, const float *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float cdf = 0.5f * (1.0f + erff(x * GELU_SQRT1_2));
    din[i] += dout[i] * (cdf + x * GELU_INV_SQRT_2PI * expf(-0.5f * x * x));
}

void cuda_gelu_forward(float *out, const float *in, size_t n) {
    if (n == 0) return;
    gelu_forward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(out, in, n);
    CUDA_LAUNCH_CHECK();
}

void cuda_gelu_backward(float *din, const float *dout, const float *in, size_t n) {
    if (n == 0) return;
    gelu_backward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(din, dout, in, n);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- residual, drop path, dropout
// (B, S): out = x + keep_scale[b]·branch (keep_scale NULL = 1).
__global__ void residual_forward_kernel(float *out, const float *x, const float *branch,
                                        const float *keep_scale, size_t n, size_t S) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float k = keep_scale ? keep_scale[i / S] : 1.0f;
    out[i] = x[i] + __fmul_rn(k, branch[i]);
}

// (B, S): dx += dout, dbranch += keep_scale[b]·dout; either may be NULL.
__global__ void residual_backward_kernel(float *dx, float *dbranch, const float *dout,
                                         const float *keep_scale, size_t n, size_t S) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float g = dout[i];
    if (dx) dx[i] += g;
    if (dbranch) dbranch[i] += __fmul_rn(keep_scale ? keep_scale[i / S] : 1.0f, g);
}

// (B): keep_scale[b] = 0 when uniform(addr, b) < p, else scale.
__global__ void drop_path_scales_kernel(float *keep_scale, int B, float p, float scale,
                                        rng_addr addr) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    keep_scale[b] = cuda_uniform_at(addr, (uint64_t)b) < p ? 0.0f : scale;
}

// (n): mask = 0 when uniform(addr, e) < p, else keep; out = in·mask.
__global__ void dropout_forward_kernel(float *out, float *mask, const float *in, size_t n,
                                       float p, float keep, rng_addr addr) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float m = cuda_uniform_at(addr, (uint64_t)i) < p ? 0.0f : keep;
    mask[i] = m;
    out[i] = in[i] * m;
}

// (n): din += dout·mask.
__global__ void dropout_backward_kernel(float *din, const float *dout, const float *mask,
                                        size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) din[i] += __fmul_rn(dout[i], mask[i]);
}

void cuda_residual_forward(float *out, const float *x, const float *branch,
                           const float *keep_scale, int B, size_t S) {
    size_t n = (size_t)(B > 0 ? B : 0) * S;
    if (n == 0) return;
    residual_forward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(out, x, branch, keep_scale, n, S);
    CUDA_LAUNCH_CHECK();
}

void cuda_residual_backward(float *dx, float *dbranch, const float *dout,
                            const float *keep_scale, int B, size_t S) {
    size_t n = (size_t)(B > 0 ? B : 0) * S;
    if (n == 0 || (!dx && !dbranch)) return;
    residual_backward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(dx, dbranch, dout, keep_scale,
                                                                   n, S);
    CUDA_LAUNCH_CHECK();
}

void cuda_drop_path_scales(float *keep_scale, int B, float p, rng_addr addr) {
    if (B <= 0) return;
    // As the CPU: p <= 0 keeps every sample at scale 1 (u >= 0 is never < p, so the kernel's
    // test agrees); otherwise u < p drops (0), else 1/(1-p) (at p = 1 every sample drops).
    float scale = p <= 0.0f ? 1.0f : 1.0f / (1.0f - p);
    drop_path_scales_kernel<<<cuda_blocks((size_t)B, THREADS), THREADS>>>(keep_scale, B, p, scale,
                                                                          addr);
    CUDA_LAUNCH_CHECK();
}

void cuda_dropout_forward(float *out, float *mask, const float *in, size_t n, float p,
                          rng_addr addr) {
    if (n == 0) return;
    float keep = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f; // as the CPU: p >= 1 zeroes everything
    dropout_forward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(out, mask, in, n, p, keep, addr);
    CUDA_LAUNCH_CHECK();
}

void cuda_dropout_backward(float *din, const float *dout, const float *mask, size_t n) {
    if (n == 0) return;
    dropout_backward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(din, dout, mask, n);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- losses
// logits (N, K) -> probs (N, K), loss (N): one warp per row. exp in float, sums and the loss
// in double, as losses_cpu.c.
__global__ void softmax_xent_forward_kernel(float *loss, float *probs, const float *logits,
                                            const int *target, int N, int K, float smoothing) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return;
    const float *z = logits + (size_t)row * K;
    float *p = probs + (size_t)row * K;
    float zmax = -INFINITY;
    for (int k = lane; k < K; k += WARP) zmax = fmaxf(zmax, z[k]);
    zmax = warp_max(zmax);
    double sum = 0.0;
    for (int k = lane; k < K; k += WARP) {
        float e = expf(z[k] - zmax);
        p[k] = e;
        sum += e;
    }
    sum = warp_sum_double(sum);
    float inv = (float)(1.0 / sum);
    for (int k = lane; k < K; k += WARP) p[k] *= inv; // each lane rescales what it wrote
    int t = target[row];
    if (t < 0) { // ignored row
        if (lane == 0) loss[row] = 0.0f;
        return;
    }
    double lse = (double)zmax + log(sum);
    double mean_logprob = 0.0;
    for (int k = lane; k < K; k += WARP) mean_logprob += (double)z[k] - lse;
    mean_logprob = warp_sum_double(mean_logprob) / K;
    double nll = lse - (double)z[t];
    if (lane == 0)
        loss[row] = (float)((1.0 - (double)smoothing) * nll - (double)smoothing * mean_logprob);
}

// (N, K): dlogits += scale·(probs - (1-s)·onehot - s/K); rows with target < 0 untouched.
// Two roundings on the target element, as the CPU (+= then -=).
__global__ void softmax_xent_backward_kernel(float *dlogits, const float *probs, const int *target,
                                             int N, int K, float uniform, float target_step,
                                             float scale) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)N * K) return;
    int n = (int)(i / K), k = (int)(i % K), t = target[n];
    if (t < 0) return;
    float d = dlogits[i] + __fmul_rn(scale, probs[i] - uniform);
    if (k == t) d -= target_step;
    dlogits[i] = d;
}

// pred, target (N, D) -> loss (N) = mean of squared errors, summed in double: one warp per row.
__global__ void mse_forward_kernel(float *loss, const float *pred, const float *target, int N,
                                   int D) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return;
    const float *a = pred + (size_t)row * D, *b = target + (size_t)row * D;
    double sum = 0.0;
    for (int i = lane; i < D; i += WARP) {
        float e = a[i] - b[i];
        sum += (double)e * e;
    }
    sum = warp_sum_double(sum);
    if (lane == 0) loss[row] = (float)(sum / D);
}

// (n): dpred += k·(pred - target), k = 2·scale/D.
__global__ void mse_backward_kernel(float *dpred, const float *pred, const float *target,
                                    size_t n, float k) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dpred[i] += __fmul_rn(k, pred[i] - target[i]);
}

void cuda_softmax_xent_forward(float *loss, float *probs, const float *logits, const int *target,
                               int N, int K, float smoothing) {
    if (N <= 0 || K <= 0) return;
    softmax_xent_forward_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS>>>(
        loss, probs, logits, target, N, K, smoothing);
    CUDA_LAUNCH_CHECK();
}

void cuda_softmax_xent_backward(float *dlogits, const float *probs, const int *target, int N,
                                int K, float smoothing, float scale) {
    size_t n = (size_t)(N > 0 ? N : 0) * (size_t)(K > 0 ? K : 0);
    if (n == 0) return;
    float uniform = smoothing / (float)K, target_step = scale * (1.0f - smoothing);
    softmax_xent_backward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(
        dlogits, probs, target, N, K, uniform, target_step, scale);
    CUDA_LAUNCH_CHECK();
}

void cuda_mse_forward(float *loss, const float *pred, const float *target, int N, int D) {
    if (N <= 0) return;
    mse_forward_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS>>>(loss, pred, target, N,
                                                                           D);
    CUDA_LAUNCH_CHECK();
}

void cuda_mse_backward(float *dpred, const float *pred, const float *target, int N, int D,
                       float scale) {
    size_t n = (size_t)(N > 0 ? N : 0) * (size_t)(D > 0 ? D : 0);
    if (n == 0) return;
    float k = 2.0f * scale / (float)D;
    mse_backward_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(dpred, pred, target, n, k);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- optimizer
// x (n) -> partial (gridDim.x): each thread sums x² in double over a grid stride, then a fixed
// tree per block.
__global__ void sum_squares_partial_kernel(double *partial, const float *x, size_t n) {
    __shared__ double s[SUM_THREADS];
    double acc = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double v = x[i];
        acc += v * v; // exact product: 24-bit x 24-bit mantissas fit in a double
    }
    double total = block_sum_double(acc, s);
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// partial (blocks) -> *total: one block of SUM_MAX_BLOCKS threads, fixed tree.
__global__ void sum_partials_kernel(double *total, const double *partial, int blocks) {
    __shared__ double s[SUM_MAX_BLOCKS];
    double v = threadIdx.x < (unsigned)blocks ? partial[threadIdx.x] : 0.0;
    double sum = block_sum_double(v, s);
    if (threadIdx.x == 0) *total = sum;
}

double cuda_sum_squares(const float *x, size_t n) {
    if (n == 0) return 0.0;
    static double *scratch = NULL; // SUM_MAX_BLOCKS partial sums, then the total; lives forever
    if (!scratch) CUDA_CHECK(cudaMalloc(&scratch, (SUM_MAX_BLOCKS + 1) * sizeof(double)));
    unsigned blocks = cuda_blocks(n, SUM_THREADS);
    if (blocks > SUM_MAX_BLOCKS) blocks = SUM_MAX_BLOCKS; // the shape depends on n only
    sum_squares_partial_kernel<<<blocks, SUM_THREADS>>>(scratch, x, n);
    CUDA_LAUNCH_CHECK();
    sum_partials_kernel<<<1, SUM_MAX_BLOCKS>>>(scratch + SUM_MAX_BLOCKS, scratch, (int)blocks);
    CUDA_LAUNCH_CHECK();
    double total = 0.0;
    CUDA_CHECK(cudaMemcpy(&total, scratch + SUM_MAX_BLOCKS, sizeof(double),
                          cudaMemcpyDeviceToHost)); // waits for both kernels
    return total;
}

// (n): x *= s.
__global__ void scale_kernel(float *x, size_t n, float s) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

void cuda_scale(float *x, size_t n, float s) {
    if (n == 0) return;
    scale_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(x, n, s);
    CUDA_LAUNCH_CHECK();
}

// (n): one AdamW step, operation for operation as optim_cpu.c (bias corrections bc1, bc2 come
// from the host's powf).
__global__ void adamw_kernel(float *param, const float *grad, float *m, float *v, size_t n,
                             float lr, float beta1, float beta2, float eps, float weight_decay,
                             float bc1, float bc2) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float g = grad[i];
    float mi = __fmul_rn(beta1, m[i]) + __fmul_rn(1.0f - beta1, g);
    float vi = __fmul_rn(beta2, v[i]) + __fmul_rn(__fmul_rn(1.0f - beta2, g), g);
    m[i] = mi;
    v[i] = vi;
    float update = (mi / bc1) / (sqrtf(vi / bc2) + eps);
    float p = param[i];
    param[i] = p - __fmul_rn(lr, update + __fmul_rn(weight_decay, p));
}

void cuda_adamw_update(float *param, const float *grad, float *m, float *v, size_t n, float lr,
                       float beta1, float beta2, float eps, float weight_decay, int t) {
    if (n == 0) return;
    float bc1 = 1.0f - powf(beta1, (float)t), bc2 = 1.0f - powf(beta2, (float)t);
    adamw_kernel<<<cuda_blocks(n, THREADS), THREADS>>>(param, grad, m, v, n, lr, beta1, beta2, eps,
                                                       weight_decay, bc1, bc2);
    CUDA_LAUNCH_CHECK();
}
