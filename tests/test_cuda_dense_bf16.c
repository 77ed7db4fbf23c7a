// tests/test_cuda_dense_bf16.c — the CUDA bf16-activation ops (core/cuda/dense_bf16_cuda.cu)
// against the CUDA fp32 ops on the same inputs (tests/dense_bf16_cases.c: bf16_round of the fp32
// result, bit for bit, on the GPU). Without a usable GPU (or without the CUDA backend) the program
// prints one SKIP line.
#include "testing.h"
#include <stdio.h>

#ifdef POSBENCH_CUDA
#include "cuda_parity.h"
#include "dense_bf16_cases.h"
#include "../core/ops_cuda.h"

int main(void) {
    if (!parity_gpu_or_skip("cuda bf16 activations")) return 0;
    dense_bf16_check_backend(&ops_cuda, "cuda");
    return test_exit_code();
}

#else

int main(void) {
    test_skip("cuda bf16 activations", "this build has no CUDA backend");
    return 0;
}
#endif
