// core/cuda/linear_bf16_cuda.cu — the linear layer on a bf16 input (core/ops_list.h
// linear_forward_bf16, linear_backward_bf16) on the GPU: the stored bf16 input (and a bf16 output
// gradient) is the GEMM operand as it is, with no conversion pass; the weight is the bf16 copy
// the linear path uses (the Lt route's cached copy, else converted per call); products accumulate
// in fp32 (CUBLAS_COMPUTE_32F) through dense_cuda.cu's cuda_gemm_bf16 (cuBLASLt with the bias
// epilogue on CUDA_LINEAR_LT, else cublasGemmEx). A bf16 output is the GEMM's own bf16 D, rounded
// once from the fp32 result: without a bias from cublasGemmEx, with a bias from cuBLASLt's bias
// epilogue (CUDA_LINEAR_LT: the fp32 bias added before the rounding, the CPU's order). Only where
// neither serves (a bias on the cublasGemmEx route, or no Lt algorithm for the key) is it formed
// in an fp32 transient and rounded by a pass. A bf16 input gradient (din16) is cublasGemmEx's bf16
// C, no pass either. dbias from a bf16 output gradient sums its widened values in
// dense_cuda.cu's fixed order. The CPU twin is core/cpu/linear_bf16_cpu.c.
#include "ops_cuda_internal.cuh"

// Column-major C (m, n) bf16 = op(A)·op(B) (bf16 A, B), fp32 accumulation, rounded once.
static void gemm_bf16_out(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const __nv_bfloat16 *A,
                          int lda, const __nv_bfloat16 *B, int ldb, bfloat16 *C, int ldc) {
    float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(cuda_cublas(), ta, tb, m, n, k, &one, A, CUDA_R_16BF, lda, B, CUDA_R_16BF, ldb, &zero, C,
                              CUDA_R_16BF, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void cuda_linear_forward_bf16(float *out, bfloat16 *out16, const bfloat16 *in, const float *weight, const float *bias,
                              int N, int IC, int OC) {
    if (!out == !out16) die_fail("linear_forward_bf16: give exactly one of out (fp32) and out16 (bf16)");
    if (N == 0 || OC == 0) return;
    size_t n = (size_t)N * OC;
    const __nv_bfloat16 *x16 = (const __nv_bfloat16 *)in;
    // Row-major out (N, OC) is column-major outᵀ (OC, N) = W (OC, IC) · inᵀ (IC, N), W read as
    // column-major Wᵀ (IC, OC), hence OP_T (dense_cuda.cu's linear_forward).
    if (out16 && !bias && IC > 0) {
        gemm_bf16_out(CUBLAS_OP_T, CUBLAS_OP_N, OC, N, IC, cuda_linear_weight_bf16(weight, (size_t)OC * IC), IC, x16, IC,
                      out16, OC);
        return;
    }
    // (The Lt epilogue reads a 16-byte aligned bias; arena tensors are 64-byte aligned.)
    if (out16 && IC > 0 && cuda_linear_route() == CUDA_LINEAR_LT && (uintptr_t)bias % 16 == 0 &&
        cuda_lt_matmul(1, 0, OC, N, IC, cuda_linear_weight_bf16(weight, (size_t)OC * IC), IC, x16, IC, 0.0f, out16, 1, OC, bias))
        return;
    float *y = out ? out : (float *)cuda_alloc_transient(n * sizeof(float), "linear_forward_bf16 fp32 result");
    if (IC == 0) { // empty product: bias, or zeros
        if (bias) cuda_linear_forward(y, NULL, NULL, bias, N, 0, OC);
        else cuda_zero(y, n);
    } else {
        float one = 1.0f, zero = 0.0f;
        cuda_gemm_bf16(CUBLAS_OP_T, CUBLAS_OP_N, OC, N, IC, &one, cuda_linear_weight_bf16(weight, (size_t)OC * IC), IC,
                       x16, IC, &zero, y, OC, bias);
    }
    if (out16) {
        cuda_to_bf16(out16, y, n);
        cuda_free_transient(y);
    }
}

void cuda_linear_backward_bf16(float *din, bfloat16 *din16, float *dweight, float *dbias, const float *dout,
                               const bfloat16 *dout16, const bfloat16 *in, const float *weight, int N, int IC, int OC,
                               int din_mode) {
    if (!dout == !dout16) die_fail("linear_backward_bf16: give exactly one of dout (fp32) and dout16 (bf16)");
    if (din && din16) die_fail("linear_backward_bf16: give at most one of din (fp32) and din16 (bf16)");
    if (din_mode != GRAD_WRITE && din_mode != GRAD_ACCUMULATE)
        die_fail("linear_backward_bf16: din_mode %d is neither GRAD_WRITE (%d) nor GRAD_ACCUMULATE (%d)", din_mode,
                 GRAD_WRITE, GRAD_ACCUMULATE);
    if (N == 0) return;
    size_t n_out = (size_t)N * OC, n_in = (size_t)N * IC;
    int write_din = din && din_mode == GRAD_WRITE;
    if (OC == 0) { // every product is empty: only a written din16 or din changes (to zeros)
        if (din16 && IC > 0) CUDA_CHECK(cudaMemsetAsync(din16, 0, n_in * sizeof(bfloat16), cuda_stream()));
        if (write_din && IC > 0) cuda_zero(din, n_in);
        return;
    }
    if (dbias) {
        if (dout16) { // the widened bf16 values, summed as the fp32 path sums
            float *g = (float *)cuda_alloc_transient(n_out * sizeof(float), "linear_backward_bf16 widened dout");
            cuda_from_bf16(g, dout16, n_out);
            cuda_column_sums_add(dbias, g, N, OC);
            cuda_free_transient(g);
        } else {
            cuda_column_sums_add(dbias, dout, N, OC); // the fp32 dout, as linear_backward
        }
    }
    if (IC == 0) return;
    // g (N, OC): operand B of both products (dout converted once, into scratch slot 1)
    const __nv_bfloat16 *g16 = dout16 ? (const __nv_bfloat16 *)dout16 : cuda_bf16_scratch_operand(1, dout, n_out);
    float one = 1.0f, zero = 0.0f;
    if (din || din16) { // din (N, IC) (+)= g (N, OC) · W (OC, IC); column-major: dinᵀ = Wᵀ · gᵀ
        const __nv_bfloat16 *w16 = cuda_linear_weight_bf16(weight, (size_t)OC * IC);
        // written: beta 0 (cuBLAS then never reads din, so garbage and NaN go; a -0 product stays
        // -0 where the CPU's 0 + -0 gives +0: equal values, within every parity tolerance)
        if (din)
            cuda_gemm_bf16(CUBLAS_OP_N, CUBLAS_OP_N, IC, N, OC, &one, w16, IC, g16, OC, write_din ? &zero : &one, din, IC,
                           NULL);
        else gemm_bf16_out(CUBLAS_OP_N, CUBLAS_OP_N, IC, N, OC, w16, IC, g16, OC, din16, IC);
    }
    if (dweight) // dW (OC, IC) += gᵀ · in; column-major: dWᵀ (IC, OC) += inᵀ · g
        cuda_gemm_bf16(CUBLAS_OP_N, CUBLAS_OP_T, IC, OC, N, &one, (const __nv_bfloat16 *)in, IC, g16, OC, &one, dweight,
                       IC, NULL);
}
