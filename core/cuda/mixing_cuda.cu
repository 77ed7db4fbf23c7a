// core/cuda/mixing_cuda.cu — the CUDA token-mixing ops of gMLP's spatial gating unit: the
// spatial projection along tokens f(v) = W·v + b per image (cuBLAS strided-batched sgemm) and
// the multiplicative gate. Each op follows core/ops_list.h and matches its CPU twin
// (core/cpu/mixing_cpu.c) in math and float precision. Layout is row-major (B, T, C).
// Determinism: no floating-point atomics. dW adds the images in order 0..B-1 (one sgemm per
// image on the backend stream); dbias sums each token's row over images and channels with one
// thread per token, in order.
#include "ops_cuda_internal.cuh"

#define THREADS 256

// out (B, T, C)[b, i, c] = bias[i].
__global__ void token_bias_broadcast_kernel(float *out, const float *bias, size_t n, int T, int C) {
    size_t k = flat_index();
    if (k < n) out[k] = bias[(k / (size_t)C) % (size_t)T];
}

// dbias[i] += Σ_b Σ_c dout[b, i, c] (images, then channels, in order).
__global__ void token_bias_grad_kernel(float *dbias, const float *dout, int B, int T, int C) {
    int i = (int)flat_index();
    if (i >= T) return;
    float acc = 0.0f;
    for (int b = 0; b < B; b++) {
        const float *row = dout + ((size_t)b * T + i) * C;
        for (int c = 0; c < C; c++) acc += row[c];
    }
    dbias[i] += acc;
}

void cuda_token_mix_forward(float *out, const float *in, const float *W, const float *bias, int B,
                            int T, int C) {
    if (B == 0 || T == 0 || C == 0) return;
    size_t n = (size_t)B * T * C;
    float one = 1.0f, beta = 0.0f;
    if (bias) {
        token_bias_broadcast_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, bias, n, T, C);
        CUDA_LAUNCH_CHECK();
        beta = 1.0f;
    }
    // Row-major out_b (T, C) is column-major out_bᵀ (C, T) = in_bᵀ (C, T) · Wᵀ (T, T); the
    // row-major W reads as column-major Wᵀ, so both operands are OP_N.
    long long stride = (long long)T * C;
    CUBLAS_CHECK(cublasSgemmStridedBatched(cuda_cublas(), CUBLAS_OP_N, CUBLAS_OP_N, C, T, T, &one,
                                           in, C, stride, W, T, 0, &beta, out, C, stride, B));
}

void cuda_token_mix_backward(float *din, float *dW, float *dbias, const float *dout,
                             const float *in, const float *W, int B, int T, int C) {
    if (B == 0 || T == 0 || C == 0) return;
    float one = 1.0f;
    long long stride = (long long)T * C;
    if (din) // din_b (T, C) += Wᵀ · dout_b; column-major: din_bᵀ += dout_bᵀ · W
        CUBLAS_CHECK(cublasSgemmStridedBatched(cuda_cublas(), CUBLAS_OP_N, CUBLAS_OP_T, C, T, T, &one,
                                               dout, C, stride, W, T, 0, &one, din, C, stride, B));
    if (dW) // dW (T, T) += dout_b · in_bᵀ; column-major: dWᵀ += in_b · dout_bᵀ, in_b's memory read as in_bᵀ (OP_T)
        for (int b = 0; b < B; b++)
            CUBLAS_CHECK(cublasSgemm(cuda_cublas(), CUBLAS_OP_T, CUBLAS_OP_N, T, T, C, &one,
                                     in + b * stride, C, dout + b * stride, C, &one, dW, T));
    if (dbias) {
        token_bias_grad_kernel<<<cuda_blocks((size_t)T, THREADS), THREADS, 0, cuda_stream()>>>(dbias, dout, B, T, C);
        CUDA_LAUNCH_CHECK();
    }
}

__global__ void gate_forward_kernel(float *out, const float *a, const float *g, size_t n) {
    size_t k = flat_index();
    if (k < n) out[k] = __fmul_rn(a[k], g[k]);
}

__global__ void gate_backward_kernel(float *da, float *dg, const float *dout, const float *a,
                                     const float *g, size_t n) {
    size_t k = flat_index();
    if (k >= n) return;
    if (da) da[k] += __fmul_rn(dout[k], g[k]);
    if (dg) dg[k] += __fmul_rn(dout[k], a[k]);
}

void cuda_gate_forward(float *out, const float *a, const float *g, size_t n) {
    if (n == 0) return;
    gate_forward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, a, g, n);
    CUDA_LAUNCH_CHECK();
}

void cuda_gate_backward(float *da, float *dg, const float *dout, const float *a, const float *g,
                        size_t n) {
    if (n == 0) return;
    gate_backward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(da, dg, dout, a, g, n);
    CUDA_LAUNCH_CHECK();
}
