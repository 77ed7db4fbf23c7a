// tests/test_linear_bf16.c — the linear layer on a bf16 input (linear_forward_bf16,
// linear_backward_bf16; tests/linear_bf16_cases.c) on the CPU and guarded backends: on bf16-exact
// inputs each output equals its fp32 twin's (linear_forward / linear_backward under MATMUL_BF16,
// bf16 outputs rounded once from them) bit for bit, whatever precision is set; din16 is written,
// not accumulated; din under GRAD_WRITE overwrites NaN with the bits linear_backward accumulates
// onto zeros; the guarded backend gives the CPU's bits.
#include "linear_bf16_cases.h"
#include "testing.h"
#include <stdio.h>

int main(void) {
    const ops_backend *backends[2] = {&ops_cpu, &ops_cpu_guarded};
    const char *labels[2] = {"cpu", "cpu-guarded"};
    char name[200], why[200];
    for (int k = 0; k < LINEAR_BF16_CASES; k++) {
        linear_bf16_outputs cpu = linear_bf16_run(&ops_cpu, k, 0, MATMUL_BF16);
        for (int b = 0; b < 2; b++) {
            linear_bf16_outputs twin = linear_bf16_run(backends[b], k, 1, MATMUL_BF16);
            for (int p = 0; p < 2; p++) {
                int precision = p ? MATMUL_FP32 : MATMUL_BF16;
                linear_bf16_outputs got = linear_bf16_run(backends[b], k, 0, precision);
                size_t bad = linear_bf16_compare(&got, &twin, -1, 0, why, sizeof why);
                snprintf(name, sizeof name,
                         "%s: linear_forward/backward_bf16 = the fp32-input ops under bf16, bit for bit "
                         "(N %d, IC %d, OC %d, %s, precision set to %s)",
                         labels[b], got.N, got.IC, got.OC, got.has_bias ? "bias" : "no bias", p ? "fp32" : "bf16");
                test_check(name, bad == 0, "%s", why);
                if (b == 1 && p == 0) {
                    bad = linear_bf16_compare(&got, &cpu, -1, 0, why, sizeof why);
                    snprintf(name, sizeof name, "cpu-guarded = cpu bit for bit: linear bf16 ops (N %d, IC %d, OC %d)", got.N,
                             got.IC, got.OC);
                    test_check(name, bad == 0, "%s", why);
                }
                linear_bf16_outputs_free(&got);
            }
            linear_bf16_outputs_free(&twin);
        }
        linear_bf16_outputs_free(&cpu);
    }
    return test_exit_code();
}
