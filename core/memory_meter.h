// core/memory_meter.h — live and peak bytes of a backend's allocations (ops->memory_peak): each
// backend's alloc and free report to a meter of its own (CPU: memory_cpu.c, guarded:
// ops_cpu_guarded.c, CUDA: memory_cuda.cu). Arenas are few, so a list of live blocks serves.
#pragma once
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    struct memory_block { const void *p; size_t bytes; } *blocks;
    int count, capacity;
    size_t live, peak;
} memory_meter;

void memory_meter_add(memory_meter *m, const void *p, size_t bytes);
void memory_meter_remove(memory_meter *m, const void *p); // p not from add: ignored (NULL too)
// The peak of live bytes since the last reset (or the start); reset = 1 then starts a new
// window at the current live bytes.
size_t memory_meter_peak(memory_meter *m, int reset);

#ifdef __cplusplus
}
#endif
