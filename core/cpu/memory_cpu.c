// core/cpu/memory_cpu.c — the CPU backend's memory calls (core/ops.h "memory"): arenas are host
// memory, so alloc is an aligned, zeroed malloc and the copies are memcpy.
#include "ops_cpu_internal.h"
#include "../common.h"
#include <stdlib.h>
#include <string.h>

void *cpu_alloc(size_t bytes, const char *what) { return xmalloc_aligned(bytes, what); }
void cpu_free(void *p) { free(p); }
void cpu_copy(void *dst, const void *src, size_t bytes) {
    if (bytes) memmove(dst, src, bytes);
}
void cpu_synchronize(void) {}
