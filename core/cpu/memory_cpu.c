// core/cpu/memory_cpu.c — the CPU backend's memory calls (core/ops_list.h "memory"): arenas are
// host memory, so alloc is an aligned, zeroed malloc, the copies (upload, download, copy) are
// memmove, synchronize has nothing to wait for, and zero clears in parallel pieces. The CUDA
// twin is core/cuda/memory_cuda.cu.
#include "ops_cpu_internal.h"
#include "../common.h"
#include "../memory_meter.h"
#include <stdlib.h>
#include <string.h>

static memory_meter meter;

void *cpu_alloc(size_t bytes, const char *what) {
    void *p = xmalloc_aligned(bytes, what);
    memory_meter_add(&meter, p, bytes);
    return p;
}
void cpu_free(void *p) {
    memory_meter_remove(&meter, p);
    free(p);
}
size_t cpu_memory_peak(int reset) { return memory_meter_peak(&meter, reset); }
void cpu_copy(void *dst, const void *src, size_t bytes) {
    if (bytes) memmove(dst, src, bytes);
}
// Host memory both sides: uploads and downloads are the same memmove.
void cpu_upload(void *dst, const void *src, size_t bytes) { cpu_copy(dst, src, bytes); }
void cpu_download(void *dst, const void *src, size_t bytes) {
    cpu_copy(dst, src, bytes);
    cpu_host_read_add();
}
void cpu_synchronize(void) { cpu_host_read_add(); } // nothing to wait for; a read all the same
void cpu_upload_wait(void) {}                        // uploads read their source before returning
// Host memory is what the CPU backend computes on: nothing to pin.
void cpu_pin_host(void *ptr, size_t bytes) { (void)ptr; (void)bytes; }
void cpu_unpin_host(void *ptr) { (void)ptr; }

void cpu_zero(float *x, size_t n) {
    size_t chunk = 1 << 16; // 256 KiB pieces, zeroed in parallel
    long pieces = (long)((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < pieces; i++) {
        size_t lo = (size_t)i * chunk, len = lo + chunk < n ? chunk : n - lo;
        memset(x + lo, 0, len * sizeof(float));
    }
}
