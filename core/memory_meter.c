// core/memory_meter.c — see memory_meter.h.
#include "memory_meter.h"
#include "common.h"

void memory_meter_add(memory_meter *m, const void *p, size_t bytes) {
    if (m->count == m->capacity) {
        m->capacity = m->capacity ? 2 * m->capacity : 64;
        m->blocks = xrealloc(m->blocks, (size_t)m->capacity * sizeof *m->blocks, "memory meter");
    }
    m->blocks[m->count++] = (struct memory_block){p, bytes};
    m->live += bytes;
    if (m->live > m->peak) m->peak = m->live;
}

void memory_meter_remove(memory_meter *m, const void *p) {
    if (!p) return;
    for (int i = m->count - 1; i >= 0; i--) { // recent blocks are freed first, mostly
        if (m->blocks[i].p != p) continue;
        m->live -= m->blocks[i].bytes;
        m->blocks[i] = m->blocks[--m->count];
        return;
    }
}

size_t memory_meter_peak(memory_meter *m, int reset) {
    size_t peak = m->peak;
    if (reset) m->peak = m->live;
    return peak;
}
