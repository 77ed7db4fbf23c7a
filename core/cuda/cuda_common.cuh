// core/cuda/cuda_common.cuh — what every CUDA op file shares: error checks that die with the
// call and file:line, the one cuBLAS handle (the stream: cuda_stream.h), launch-size and thread-index helpers, and the
// device twin of core/rng.c's rng_uniform_at (same Philox4x32-10 bits, so a GPU dropout mask
// equals the CPU's).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include "cuda_stream.h"
#include <stddef.h>
#include <stdint.h>
extern "C" {
#include "../common.h"
#include "../ops.h"
}

#define CUDA_CHECK(call)                                                                         \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess)                                                                 \
            die_fail("CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(err_),                \
                     cudaGetErrorString(err_), #call, __FILE__, __LINE__);                       \
    } while (0)

#define CUBLAS_CHECK(call)                                                                       \
    do {                                                                                         \
        cublasStatus_t st_ = (call);                                                             \
        if (st_ != CUBLAS_STATUS_SUCCESS)                                                        \
            die_fail("cuBLAS error %d (%s) in %s at %s:%d", (int)st_, cublasGetStatusString(st_), \
                     #call, __FILE__, __LINE__);                                                 \
    } while (0)

// Checks the launch just made (bad configuration etc.); execution errors surface at cuda_sync.
#define CUDA_LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())

// The process's cuBLAS handle (created on first use, on cuda_stream(), FP32 math: no TF32, so
// results track the CPU backend's sgemm to float rounding).
cublasHandle_t cuda_cublas(void);

// Blocks of `threads` covering n items (n may be 0: returns 1 block, kernels bounds-check).
static inline unsigned cuda_blocks(size_t n, unsigned threads) {
    size_t b = (n + threads - 1) / threads;
    return b == 0 ? 1u : (unsigned)b;
}

// Flat index of this thread over a 1-D grid.
static __device__ __forceinline__ size_t flat_index(void) {
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

// ---- Philox4x32-10, bit-identical to core/rng.c ----
__device__ __forceinline__ void cuda_philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
    for (int round = 0; round < 10; round++) {
        uint32_t hi0 = __umulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
        uint32_t hi1 = __umulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
        uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

// rng_uniform_at(a.seed, a.purpose, a.epoch, a.step, a.index, which): [0, 1), 24 random bits.
__device__ __forceinline__ float cuda_uniform_at(rng_addr a, uint64_t which) {
    uint32_t c[4] = {a.epoch, a.step, a.index, (uint32_t)(which >> 2)};
    cuda_philox4x32_10(c, a.seed, a.purpose | 0x80000000u);
    return (float)(c[which & 3] >> 8) * (1.0f / 16777216.0f);
}
