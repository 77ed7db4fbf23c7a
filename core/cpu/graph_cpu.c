// core/cpu/graph_cpu.c — CUDA graphs on the CPU backends (core/ops_list.h "CUDA graphs of a
// step"): not supported. graph_begin says so and the caller runs its step eagerly, op by op,
// which is what the CPU does anyway; graph_end and graph_replay are never reached after a
// refused begin and die if they are. The CUDA twin is core/cuda/graph_cuda.cu.
#include "ops_cpu_internal.h"
#include "../common.h"
#include <stdio.h>

int cpu_graph_begin(char *why, size_t len) {
    if (why && len) snprintf(why, len, "the CPU backends run every op when it is called (no graphs)");
    return 0;
}

int cpu_graph_end(char *why, size_t len) {
    die_fail("internal: graph_end on the CPU backend, whose graph_begin refuses");
}

void cpu_graph_replay(void) { die_fail("internal: graph_replay on the CPU backend, which builds no graph"); }
