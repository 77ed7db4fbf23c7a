// tests/test_cuda_attention_bf16.c — the CUDA attention on bf16 storage (core/cuda/attention_bf16_cuda.cu:
// attention_forward_bf16, attention_backward_bf16) on the materialised bf16 route and on the cuDNN
// route, per case (T in {1, 7, 65, 197, 257}, hs in {32, 64}, B 2, H 2; tests/attention_bf16_cases.c):
//  - against the CPU's bf16 ops on the same bf16 inputs: out16 and dqkv16 within the bf16 tolerance
//    of tests/test_cuda_attention_cudnn.c's gradients (2e-2 + 2e-2·|cpu| plus one bf16 step: both
//    round q, k, v, P, dS and the outputs at the same points, and sum in other orders);
//  - the exact rule on the GPU: the bf16 ops equal the fp32 op under bf16 on the widened inputs,
//    rounded once, bit for bit (saved state included; dqkv16 written over garbage);
//  - bitwise repeatable (the same case twice).
// The cuDNN checks print SKIP when the route is not available (no libcudnn, or compiled out).
// Without a usable GPU (or without the CUDA backend) the program prints one SKIP line.
#include "testing.h"
#include <stdio.h>

#ifdef POSBENCH_CUDA
#include "attention_bf16_cases.h"
#include "cuda_parity.h"
#include "../core/ops_cuda.h"

#define ATOL 2e-2
#define RTOL 2e-2

int main(void) {
    if (!parity_gpu_or_skip("cuda attention bf16")) return 0;
    static const int routes[2] = {CUDA_ATTN_MATERIALISED, CUDA_ATTN_CUDNN};
    static const char *route_names[2] = {"materialised", "cudnn"};
    static const int Ts[5] = {1, 7, 65, 197, 257}, hss[2] = {32, 64};
    char name[240], why[200], cudnn_why[300];
    int cudnn = cuda_attention_cudnn_available(cudnn_why, sizeof cudnn_why);
    for (int r = 0; r < 2; r++) {
        if (routes[r] == CUDA_ATTN_CUDNN && !cudnn) {
            test_skip("cuda attention bf16 (cudnn route)", "%s", cudnn_why);
            continue;
        }
        cuda_set_attention_route(routes[r]);
        for (int t = 0; t < 5; t++)
            for (int h = 0; h < 2; h++) {
                attention_bf16_case c = {.B = 2, .T = Ts[t], .H = 2, .hs = hss[h], .mask_mode = ATTN_MASK_NONE,
                                         .tag = 500u + 10u * (unsigned)(2 * t + h)};
                char shape[80];
                snprintf(shape, sizeof shape, "B 2, T %d, H 2, hs %d", c.T, c.hs);
                attention_bf16_outputs cpu = attention_bf16_run(&ops_cpu, &c, 0);
                attention_bf16_outputs gpu = attention_bf16_run(&ops_cuda, &c, 0);
                size_t bad = attention_bf16_compare(&gpu, &cpu, ATOL, RTOL, why, sizeof why);
                snprintf(name, sizeof name, "cuda (%s) attention_forward/backward_bf16 vs cpu within 2e-2 + 2e-2·|cpu| + 1 bf16 step (%s)",
                         route_names[r], shape);
                test_check(name, bad == 0, "%s", why);
                attention_bf16_outputs twin = attention_bf16_run(&ops_cuda, &c, 1);
                bad = attention_bf16_compare(&gpu, &twin, -1, 0, why, sizeof why);
                snprintf(name, sizeof name, "cuda (%s) attention bf16 ops = bf16(fp32 op under bf16) bit for bit (%s)", route_names[r],
                         shape);
                test_check(name, bad == 0, "%s", why);
                attention_bf16_outputs again = attention_bf16_run(&ops_cuda, &c, 0);
                bad = attention_bf16_compare(&again, &gpu, -1, 0, why, sizeof why);
                snprintf(name, sizeof name, "cuda (%s) attention bf16 ops bitwise repeatable (%s)", route_names[r], shape);
                test_check(name, bad == 0, "%s", why);
                attention_bf16_outputs_free(&again);
                attention_bf16_outputs_free(&twin);
                attention_bf16_outputs_free(&gpu);
                attention_bf16_outputs_free(&cpu);
            }
    }
    cuda_set_attention_route(CUDA_ATTN_AUTO);
    return test_exit_code();
}

#else

int main(void) {
    test_skip("cuda attention bf16", "this build has no CUDA backend");
    return 0;
}
#endif
