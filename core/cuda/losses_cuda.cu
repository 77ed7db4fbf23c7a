// core/cuda/losses_cuda.cu — the CUDA per-row losses: softmax cross entropy with label
// smoothing (supervised classification, MP3 position prediction) and mean squared error (pixel
// targets). Contracts in core/ops_list.h; the CPU twin is core/cpu/losses_cpu.c, whose precision
// (exp in float, sums and the loss in double) each kernel keeps.
// Determinism: no atomics. One warp per row; lanes stride over the row, then an xor-butterfly
// that leaves the same bits in every lane. Products the CPU rounds before adding use __fmul_rn.
#include "ops_cuda_internal.cuh"
#include <math.h>

#define THREADS 256 // threads per block for elementwise and row kernels
#define WARP 32

// Sum / max over the 32 lanes of a warp; every lane ends with the same bits.
static __device__ __forceinline__ double warp_sum_double(double v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
static __device__ __forceinline__ float warp_max(float v) {
    for (int off = WARP / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

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
