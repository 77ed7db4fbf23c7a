// tests/test_cuda_linear_lt.c — what the cuBLASLt linear path (POSBENCH_LINEAR=lt,
// core/cuda/linear_lt_cuda.cu) holds beyond parity with the CPU op (that, at unaligned offsets,
// bitwise run to run and with its cached bf16 weight copies, is tests/parity/cases_linear_lt.c's):
// its workspace is allocated through the backend allocator on the first Lt product, so the live
// bytes the memory meter reports grow by at least its 32 MiB. Must run before any other Lt call in
// the process, hence a program of its own. SKIP without a GPU.
#include "testing.h"

#ifdef POSBENCH_CUDA
#include "cuda_parity.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    if (!parity_gpu_or_skip("cuda linear lt")) return 0;
    printf("# GPU: %s\n", cuda_device_name());
    const ops_backend *gpu = &ops_cuda;
    gpu->set_matmul_precision(MATMUL_BF16);
    cuda_set_linear_route(CUDA_LINEAR_LT);
    int N = 8, IC = 16, OC = 8;
    float *h = test_rnd(256, -1, 1, 7);
    float *d_in = parity_upload(h, (size_t)N * IC), *d_w = parity_upload(h, (size_t)OC * IC);
    float *d_out = cuda_alloc((size_t)N * OC * sizeof(float), "out");
    gpu->memory_peak(1);
    size_t before = gpu->memory_peak(0);
    gpu->linear_forward(d_out, d_in, d_w, NULL, N, IC, OC);
    gpu->memory_peak(1);
    size_t after = gpu->memory_peak(0);
    test_check("cuda linear lt workspace counted by the memory meter", after >= before + ((size_t)32 << 20),
               "live bytes %zu before the first Lt product, %zu after", before, after);
    free(h);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_out);
    cuda_set_linear_route(CUDA_LINEAR_GEMMEX);
    gpu->set_matmul_precision(MATMUL_FP32);
    cuda_sync();
    return test_exit_code();
}

#else // no CUDA backend in this build

int main(void) {
    test_skip("cuda linear lt", "this build has no CUDA backend");
    return 0;
}

#endif
