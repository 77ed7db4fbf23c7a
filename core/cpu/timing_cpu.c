// core/cpu/timing_cpu.c — the CPU backend's step timing (core/ops_list.h "step timing"): a mark
// is the monotonic clock read when it is recorded, since every CPU op is done when it returns,
// and the host never waits for a device (host_wait_seconds is 0); host reads are counted as the
// CUDA backend counts them (cpu_host_read_add: download, synchronize, sum, sum_squares). The CUDA twin is
// core/cuda/timing_cuda.cu.
#include "ops_cpu_internal.h"
#include "../common.h"

static double marks[TIMER_MARKS];
static int recorded[TIMER_MARKS];

void cpu_timer_mark(int slot) {
    if (slot < 0 || slot >= TIMER_MARKS) die_fail("internal: timer mark %d out of range [0, %d)", slot, TIMER_MARKS);
    marks[slot] = now_seconds();
    recorded[slot] = 1;
}

double cpu_timer_elapsed_ms(int from, int to) {
    if (from < 0 || to < 0 || from >= TIMER_MARKS || to >= TIMER_MARKS || !recorded[from] || !recorded[to]) return -1;
    return (marks[to] - marks[from]) * 1e3;
}

double cpu_host_wait_seconds(int reset) { return 0.0; }

static size_t host_reads;

void cpu_host_read_add(void) { host_reads++; }

size_t cpu_host_reads(int reset) {
    size_t n = host_reads;
    if (reset) host_reads = 0;
    return n;
}
