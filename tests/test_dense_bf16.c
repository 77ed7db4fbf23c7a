// tests/test_dense_bf16.c — the bf16-activation ops on the CPU and guarded backends against their
// fp32 twins (tests/dense_bf16_cases.c): bf16_round of the fp32 result, bit for bit.
#include "dense_bf16_cases.h"
#include "testing.h"
#include "../core/ops.h"


int main(void) {
    dense_bf16_check_backend(&ops_cpu, "cpu");
    dense_bf16_check_backend(&ops_cpu_guarded, "cpu-guarded");
    return test_exit_code();
}
