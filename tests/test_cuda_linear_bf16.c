// tests/test_cuda_linear_bf16.c — the CUDA linear layer on a bf16 input
// (core/cuda/linear_bf16_cuda.cu) against the CPU's (tests/linear_bf16_cases.c) on the same
// inputs, on both linear routes (cublasGemmEx, cuBLASLt): the same bf16 operands and fp32
// accumulation in another order, so fp32 outputs within 1e-4 + 1e-4·|cpu| and bf16 outputs within
// that plus one bf16 step (a sum that lands near a rounding boundary may round the other way).
// Without a usable GPU (or without the CUDA backend) the program prints one SKIP line.
#include "testing.h"
#include <stdio.h>

#ifdef POSBENCH_CUDA
#include "cuda_parity.h"
#include "linear_bf16_cases.h"
#include "../core/ops_cuda.h"

int main(void) {
    if (!parity_gpu_or_skip("cuda linear bf16")) return 0;
    static const int routes[2] = {CUDA_LINEAR_GEMMEX, CUDA_LINEAR_LT};
    static const char *route_names[2] = {"gemmex", "lt"};
    char name[200], why[200];
    for (int r = 0; r < 2; r++) {
        cuda_set_linear_route(routes[r]);
        for (int k = 0; k < LINEAR_BF16_CASES; k++) {
            linear_bf16_outputs cpu = linear_bf16_run(&ops_cpu, k, 0, MATMUL_BF16);
            linear_bf16_outputs gpu = linear_bf16_run(&ops_cuda, k, 0, MATMUL_BF16);
            size_t bad = linear_bf16_compare(&gpu, &cpu, 1e-4, 1e-4, why, sizeof why);
            snprintf(name, sizeof name, "cuda (%s) linear_forward/backward_bf16 vs cpu (N %d, IC %d, OC %d, %s)", route_names[r],
                     cpu.N, cpu.IC, cpu.OC, cpu.has_bias ? "bias" : "no bias");
            test_check(name, bad == 0, "%s", why);
            linear_bf16_outputs again = linear_bf16_run(&ops_cuda, k, 0, MATMUL_BF16);
            bad = linear_bf16_compare(&again, &gpu, -1, 0, why, sizeof why);
            snprintf(name, sizeof name, "cuda (%s) linear bf16 ops bitwise repeatable (N %d, IC %d, OC %d)", route_names[r], cpu.N,
                     cpu.IC, cpu.OC);
            test_check(name, bad == 0, "%s", why);
            linear_bf16_outputs_free(&again);
            linear_bf16_outputs_free(&gpu);
            linear_bf16_outputs_free(&cpu);
        }
    }
    cuda_set_linear_route(CUDA_LINEAR_GEMMEX);
    return test_exit_code();
}

#else

int main(void) {
    test_skip("cuda linear bf16", "this build has no CUDA backend");
    return 0;
}
#endif
