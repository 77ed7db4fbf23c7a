// core/cuda/ops_cuda_internal.cuh — the CUDA op functions: cuda_<name> for each entry of
// core/ops_list.h (declared here from that list), gathered into `ops_cuda` by ops_cuda.cu.
// Contracts are the list's; every pointer is a device pointer. Twin of
// core/cpu/ops_cpu_internal.h; the files mirror core/cpu/ one to one (dense, tokens,
// attention, posenc, mixing, resize, losses, reduce, optim, memory, timing: ops_list.h's sections name
// the file of each op), plus cuda_common.cuh (error checks, cuBLAS handle, launch helpers,
// device Philox).
#pragma once
#include "cuda_common.cuh"
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

// dense_cuda.cu: the precision set_matmul_precision last set (MATMUL_FP32 or MATMUL_BF16);
// the attention route depends on it.
int cuda_matmul_precision(void);

// memory_cuda.cu: a workspace that lives for one op call (cuda_alloc_transient / _free).
#include "cuda_transient.h"

// timing_cuda.cu: adds seconds the host spent in a waiting call (download, copy, synchronize) to
// what host_wait_seconds returns.
void cuda_host_wait_add(double seconds);
