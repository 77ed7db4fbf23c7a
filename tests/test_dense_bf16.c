// tests/test_dense_bf16.c — the bf16-activation ops against their fp32 twins on each backend
// present (tests/dense_bf16_cases.c): bf16_round of the fp32 result, bit for bit, on the CPU and
// guarded backends here and on the CUDA backend when a GPU can run it (one SKIP line otherwise).
// Their parity with the CPU's is tests/parity/cases_bf16.c's.
#include "dense_bf16_cases.h"
#include "testing.h"
#include "../core/device.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"

int main(void) {
    dense_bf16_check_backend(&ops_cpu, "cpu");
    dense_bf16_check_backend(&ops_cpu_guarded, "cpu-guarded");
    char why[256];
    if (!cuda_usable(why, sizeof why)) {
        test_skip("cuda bf16 activations", "%s", why);
    } else {
#ifdef POSBENCH_CUDA
        device_cuda_switches_from_env(); // POSBENCH_KERNELS=v2, POSBENCH_STREAM=own: the routes the caller chose
        dense_bf16_check_backend(&ops_cuda, "cuda");
#endif
    }
    return test_exit_code();
}
