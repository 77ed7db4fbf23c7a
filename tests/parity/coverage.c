// tests/parity/coverage.c — the parity harness's family table (from families.h) and the ops of
// core/ops_list.h that have no parity case, each with the reason and where it is checked instead.
// tests/test_parity.c fails (a FAIL line naming the op) when an op of ops_list.h is in no case and
// not here, or when an entry here names no op.
#include "parity.h"

const parity_family parity_families[] = {
#define FAMILY(f) {#f, parity_cases_##f, &parity_cases_##f##_count},
#include "families.h"
#undef FAMILY
};
const int parity_family_count = (int)(sizeof parity_families / sizeof parity_families[0]);

const parity_exemption parity_exemptions[] = {
    {"set_matmul_precision", "not an op with outputs: the harness sets it on both backends for every bf16 case"},
    {"timer_mark", "timing: no value to compare (tests/e2e_bench_breakdown.sh)"},
    {"timer_elapsed_ms", "timing: no value to compare (tests/e2e_bench_breakdown.sh)"},
    {"host_wait_seconds", "timing: no value to compare (tests/e2e_bench_breakdown.sh)"},
    {"host_reads", "a count of host reads per backend (tests/test_host_reads.c)"},
    {"graph_begin", "CUDA graph capture of a step, not an op result (tests/test_graph_replay.c, tests/e2e_graph_runs.sh)"},
    {"graph_end", "CUDA graph capture of a step, not an op result (tests/test_graph_replay.c, tests/e2e_graph_runs.sh)"},
    {"graph_replay", "CUDA graph capture of a step, not an op result (tests/test_graph_replay.c, tests/e2e_graph_runs.sh)"},
};
const int parity_exemption_count = (int)(sizeof parity_exemptions / sizeof parity_exemptions[0]);
