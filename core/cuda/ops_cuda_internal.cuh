// core/cuda/ops_cuda_internal.cuh — the CUDA op functions: cuda_<name> for each entry of
// core/ops_list.h (declared here from that list), gathered into `ops_cuda` by ops_cuda.cu.
// Contracts are the list's; every pointer is a device pointer. Twin of
// core/cpu/ops_cpu_internal.h; the files mirror core/cpu/ one to one (dense, tokens,
// attention, posenc, mixing, resize, losses, reduce, optim, memory, timing: ops_list.h's sections name
// the file of each op), plus cuda_common.cuh (error checks, cuBLAS handle, launch helpers,
// device Philox).
#pragma once
#include "cuda_common.cuh"
#include <cuda_bf16.h>
// C linkage for the entries C code calls directly (cuda_alloc, cuda_free): declared there first,
// so the list's declarations below keep it.
extern "C" {
#include "../ops_cuda.h"
}

#define OP(ret, op, params, args) ret cuda_##op params;
#include "../ops_list.h"

// reduce_cuda.cu: Σ x (squares = 0) or Σ x² (squares = 1) of device x (n) in double, fixed
// order (the shape of the reduction depends on n only); returned to the host. Behind cuda_sum
// and cuda_sum_squares.
double cuda_reduce_sum_double(const float *x, size_t n, int squares);
// The same sum left on the device: a pointer to it (valid until the next reduction on the stream),
// NULL when n is 0. Behind sum_to and optim_prepare.
const double *cuda_reduce_on_device(const float *x, size_t n, int squares);

// dense_cuda.cu: the precision set_matmul_precision last set (MATMUL_FP32 or MATMUL_BF16);
// the attention route depends on it.
int cuda_matmul_precision(void);

// memory_cuda.cu: a workspace that lives for one op call (cuda_alloc_transient / _free).
#include "cuda_transient.h"

// dense_cuda.cu: a GEMM operand float -> bf16 (round to nearest even), n elements, with the
// kernels of the version in force (cuda_kernels, core/ops_cuda.h).
void cuda_operand_to_bf16(__nv_bfloat16 *out, const float *in, size_t n);

// dense_cuda.cu's linear layer in parts, shared with the bf16-input twins (linear_bf16_cuda.cu):
// x (n) converted to bf16 into device scratch slot 0 or 1 (grows, reused; the stream orders its
// reuse); a weight's bf16 copy (the Lt route's cached copy, else converted into slot 0); the bf16
// product, column-major C (m, n) fp32 = alpha·op(A)·op(B) + beta·C [+ bias (m) per column: the
// Lt epilogue, else written into C first], on the linear route in force; dst (C) += Σ_n src (N, C)
// in dense_cuda.cu's fixed order.
const __nv_bfloat16 *cuda_bf16_scratch_operand(int slot, const float *x, size_t n);
const __nv_bfloat16 *cuda_linear_weight_bf16(const float *w, size_t n);
void cuda_gemm_bf16(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
                    const __nv_bfloat16 *a16, int lda, const __nv_bfloat16 *b16, int ldb, const float *beta, float *C,
                    int ldc, const float *bias);
void cuda_column_sums_add(float *dst, const float *src, int N, int C);

// linear_lt_cuda.cu (its route: cuda_linear_route, core/ops_cuda.h): the cuBLASLt product
// (column-major D (m, n) = op(A)·op(B) + beta·C [+ bias (m) per column], bf16 A and B, fp32 bias, C/D
// fp32 (c_bf16 = 0) or bf16 (c_bf16 = 1: D rounded once from the fp32 result by the epilogue);
// trans_* 0 = N, 1 = T; returns 0, computing nothing, when cuBLASLt offers no algorithm); the cached bf16 copy of a weight (NULL when w lies outside every range
// AdamW has updated: the caller converts it itself); and the bookkeeping that keeps those copies
// true: AdamW marks its parameters trained, every write over device memory from outside a
// forward/backward (upload, copy, zero, scale, AdamW) marks copies stale, and cuda_free of a
// block drops the copies and trained ranges inside it.
int cuda_lt_matmul(int trans_a, int trans_b, int m, int n, int k, const __nv_bfloat16 *A, int lda,
                    const __nv_bfloat16 *B, int ldb, float beta, void *C, int c_bf16, int ldc, const float *bias);
const __nv_bfloat16 *cuda_bf16_weight(const float *w, size_t n);
void cuda_weights_trained(const float *param, size_t n);
void cuda_weights_written(const void *dst, size_t bytes);
void cuda_weights_released(const void *p, size_t bytes);
// After a CUDA graph replay (graph_cuda.cu): its AdamW may have trained any parameter without the
// host's bookkeeping, so every cached bf16 copy counts as stale.
void cuda_weights_replayed(void);

// timing_cuda.cu: adds seconds the host spent in a waiting call (download, synchronize, upload_wait) to
// what host_wait_seconds returns.
void cuda_host_wait_add(double seconds);
// memory_cuda.cu: every pinned host range counts as read by the work issued so far (a graph
// replay's memcpy nodes): upload_wait waits for it.
void cuda_pinned_uploads_issued(void);
// timing_cuda.cu: counts one host read (host_reads).
void cuda_host_read_add(void);
