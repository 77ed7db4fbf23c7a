// core/cuda/optim_cuda.cu — optimizer arithmetic on the GPU: the fixed-order sum of squares
// (gradient norm), scaling (clipping) and the elementwise AdamW update. Contracts in
// core/ops.h; the CPU twin is core/cpu/optim_cpu.c. The AdamW kernel rounds where the CPU does
// (__fmul_rn), so an update matches the CPU's bit for bit.
#include "ops_cuda_internal.cuh"
#include <math.h>

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
