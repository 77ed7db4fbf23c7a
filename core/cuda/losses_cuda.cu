// core/cuda/losses_cuda.cu — the CUDA per-row losses: softmax cross entropy with label
// smoothing (supervised classification, MP3 position prediction) and mean squared error (pixel
// targets). Contracts in core/ops_list.h; the CPU twin is core/cpu/losses_cpu.c, whose precision
// (exp in float, sums and the loss in double) each kernel keeps.
// Determinism: no atomics. One warp per row; lanes stride over the row, then an xor-butterfly
// that leaves the same bits in every lane. Products the CPU rounds before adding use __fmul_rn.
#include "ops_cuda_internal.cuh"
#include "warp_double.cuh"
#include <math.h>

#define THREADS 256 // threads per block for elementwise and row kernels
#define WARP 32

// Max over the 32 lanes of a warp (the double sum: warp_double.cuh); every lane ends with the same bits.
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
    softmax_xent_forward_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS, 0, cuda_stream()>>>(
        loss, probs, logits, target, N, K, smoothing);
    CUDA_LAUNCH_CHECK();
}

void cuda_softmax_xent_backward(float *dlogits, const float *probs, const int *target, int N,
                                int K, float smoothing, float scale) {
    size_t n = (size_t)(N > 0 ? N : 0) * (size_t)(K > 0 ? K : 0);
    if (n == 0) return;
    float uniform = smoothing / (float)K, target_step = scale * (1.0f - smoothing);
    softmax_xent_backward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(
        dlogits, probs, target, N, K, uniform, target_step, scale);
    CUDA_LAUNCH_CHECK();
}

void cuda_mse_forward(float *loss, const float *pred, const float *target, int N, int D) {
    if (N <= 0) return;
    mse_forward_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS, 0, cuda_stream()>>>(loss, pred, target, N,
                                                                           D);
    CUDA_LAUNCH_CHECK();
}

void cuda_mse_backward(float *dpred, const float *pred, const float *target, int N, int D,
                       float scale) {
    size_t n = (size_t)(N > 0 ? N : 0) * (size_t)(D > 0 ? D : 0);
    if (n == 0) return;
    float k = 2.0f * scale / (float)D;
    mse_backward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(dpred, pred, target, n, k);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- NT-Xent (SimCLR)
// The same arithmetic as losses_cpu.c's, in the same order: each row's sums run serially in
// double over d (then k) ascending, so only expf / log may differ from the CPU's by an ulp.
#define NTXENT_EPS 1e-12

// z (N, D) -> zn (N, D): one thread per row.
__global__ void ntxent_normalize_kernel(float *zn, const float *z, int N, int D) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const float *x = z + (size_t)i * D;
    double ss = 0.0;
    for (int d = 0; d < D; d++) ss += (double)x[d] * x[d];
    double norm = sqrt(ss);
    float inv = (float)(1.0 / (norm > NTXENT_EPS ? norm : NTXENT_EPS));
    for (int d = 0; d < D; d++) zn[(size_t)i * D + d] = __fmul_rn(x[d], inv);
}

// One block per row i: threads compute s_ik (k != i) into probs, thread 0 the max, the sum and
// the loss serially in k order, then the threads scale the row.
__global__ void ntxent_rows_kernel(float *loss, float *probs, const float *zn, int N, int D, float tau) {
    int i = blockIdx.x;
    const float *a = zn + (size_t)i * D;
    float *p = probs + (size_t)i * N;
    __shared__ float inv_sum;
    for (int k = threadIdx.x; k < N; k += blockDim.x) {
        if (k == i) continue;
        const float *b = zn + (size_t)k * D;
        double dot = 0.0;
        for (int d = 0; d < D; d++) dot += (double)a[d] * b[d];
        p[k] = (float)(dot / tau);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int pos = (i + N / 2) % N;
        float smax = -INFINITY;
        for (int k = 0; k < N; k++)
            if (k != i) smax = p[k] > smax ? p[k] : smax;
        float spos = p[pos];
        double sum = 0.0;
        p[i] = 0.0f;
        for (int k = 0; k < N; k++) {
            if (k == i) continue;
            p[k] = expf(p[k] - smax);
            sum += p[k];
        }
        inv_sum = (float)(1.0 / sum);
        loss[i] = (float)((double)smax + log(sum) - (double)spos);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < N; k += blockDim.x) p[k] = __fmul_rn(p[k], inv_sum);
}

// One block per row i; shared: g (D doubles) = dzn_i, then the threads
// write dz_i after thread 0 sums zn_i·dzn_i and ||z_i|| in d order.
__global__ void ntxent_backward_kernel(float *dz, const float *z, const float *zn, const float *probs, int N, int D,
                                       double c0) {
    extern __shared__ double g[];
    __shared__ double dot, norm;
    int i = blockIdx.x, pos = (i + N / 2) % N;
    const float *a = zn + (size_t)i * D;
    for (int d = threadIdx.x; d < D; d += blockDim.x) {
        double s = 0.0;
        for (int k = 0; k < N; k++) {
            if (k == i) continue;
            double c = (double)probs[(size_t)i * N + k] + (double)probs[(size_t)k * N + i] - (k == pos ? 2.0 : 0.0);
            s += c * zn[(size_t)k * D + d];
        }
        g[d] = c0 * s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0, ss = 0.0;
        for (int d = 0; d < D; d++) t += g[d] * a[d];
        for (int d = 0; d < D; d++) ss += (double)z[(size_t)i * D + d] * z[(size_t)i * D + d];
        dot = t, norm = sqrt(ss);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += blockDim.x)
        dz[(size_t)i * D + d] += (float)(norm > NTXENT_EPS ? (g[d] - a[d] * dot) / norm : g[d] / NTXENT_EPS);
}

void cuda_ntxent_forward(float *loss, float *zn, float *probs, const float *z, int N, int D, float tau) {
    if (N <= 0 || D <= 0) return;
    ntxent_normalize_kernel<<<cuda_blocks((size_t)N, THREADS), THREADS, 0, cuda_stream()>>>(zn, z, N, D);
    CUDA_LAUNCH_CHECK();
    ntxent_rows_kernel<<<N, THREADS, 0, cuda_stream()>>>(loss, probs, zn, N, D, tau);
    CUDA_LAUNCH_CHECK();
}

void cuda_ntxent_backward(float *dz, const float *z, const float *zn, const float *probs, int N, int D, float tau,
                          float scale) {
    if (N <= 0 || D <= 0) return;
    ntxent_backward_kernel<<<N, THREADS, (size_t)D * sizeof(double), cuda_stream()>>>(dz, z, zn, probs, N, D, (double)scale / tau);
    CUDA_LAUNCH_CHECK();
}
