// core/cuda/timing_cuda.cu — the CUDA backend's step timing (core/ops_list.h "step timing"): a
// mark is a CUDA event recorded on the stream the ops run on (cuda_stream.h), so the time
// between two marks is the device's time for the ops issued between them, including the idle
// gaps in which the device waited for the host; the host's blocked time is what memory_cuda.cu's
// download, synchronize and upload_wait add up (cuda_host_wait_add), and the host reads are
// counted by cuda_host_read_add (download, synchronize and the reductions' results). The CPU twin is
// core/cpu/timing_cpu.c.
#include "ops_cuda_internal.cuh"

static cudaEvent_t marks[TIMER_MARKS];
static int recorded[TIMER_MARKS];
static double host_wait;

void cuda_timer_mark(int slot) {
    if (slot < 0 || slot >= TIMER_MARKS) die_fail("internal: timer mark %d out of range [0, %d)", slot, TIMER_MARKS);
    if (!marks[slot]) CUDA_CHECK(cudaEventCreate(&marks[slot])); // created once, kept for the process
    CUDA_CHECK(cudaEventRecord(marks[slot], cuda_stream()));
    recorded[slot] = 1;
}

double cuda_timer_elapsed_ms(int from, int to) {
    if (from < 0 || to < 0 || from >= TIMER_MARKS || to >= TIMER_MARKS || !recorded[from] || !recorded[to]) return -1;
    CUDA_CHECK(cudaEventSynchronize(marks[to]));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, marks[from], marks[to]));
    return ms;
}

void cuda_host_wait_add(double seconds) { host_wait += seconds; }

double cuda_host_wait_seconds(int reset) {
    double s = host_wait;
    if (reset) host_wait = 0;
    return s;
}

static size_t host_reads;

void cuda_host_read_add(void) { host_reads++; }

size_t cuda_host_reads(int reset) {
    size_t n = host_reads;
    if (reset) host_reads = 0;
    return n;
}
