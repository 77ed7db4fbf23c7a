// tests/parity/cases_memory.c — parity cases of the memory calls (core/cpu/memory_cpu.c,
// core/cuda/memory_cuda.cu): alloc hands out zeroed memory; upload -> copy (also onto itself and
// of 0 bytes) -> download returns the bytes; uploads from and downloads into a pinned host buffer
// (pin_host, upload_wait, unpin_host; also an unaligned start, and unpin of a buffer never
// pinned); memory_peak counts the bytes alloc hands out and starts a new window on reset. Every
// output bit for bit.
#include "parity.h"
#include <string.h>

static void round_trip_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    size_t n = (size_t)p[0];
    float *a = pr_buf(r, n * sizeof(float)), *b = pr_buf(r, n * sizeof(float));
    pr_out(r, "alloc: zeroed", a, n, PARITY_BITWISE);
    float *x = pr_in(r, n, -1, 1);
    o->copy(a, x, n * sizeof(float));
    o->copy(b, a, n * sizeof(float));
    o->copy(b, b, n * sizeof(float)); // the same range: nothing to do
    o->copy(b, a, 0);
    o->synchronize();
    float *back = pr_host(r, n * sizeof(float));
    o->download(back, b, n * sizeof(float));
    pr_require(r, "upload, copy, download return the bytes", memcmp(back, pr_host_of(r, x), n * sizeof(float)) == 0);
    pr_out_host(r, "upload -> copy -> download", back, n, PARITY_BITWISE);
    o->free(NULL);
}

// p: n, start offset in floats
static void pinned_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    size_t n = (size_t)p[0], start = (size_t)p[1];
    float *buf = pr_host(r, (n + start) * sizeof(float)), *host = buf + start;
    float *keep = pr_host(r, n * sizeof(float));
    for (size_t i = 0; i < n; i++) host[i] = keep[i] = (float)((i * 2654435761u) % 1000003) / 1000003.0f - 0.5f;
    float *d = pr_buf(r, n * sizeof(float)), *d2 = pr_buf(r, n * sizeof(float));
    o->pin_host(host, n * sizeof(float));
    o->upload(d, host, n * sizeof(float));
    o->upload_wait();
    memset(host, 0, n * sizeof(float));
    o->download(host, d, n * sizeof(float));
    pr_require(r, "a pinned buffer's round trip returns the bytes", memcmp(host, keep, n * sizeof(float)) == 0);
    pr_out_host(r, "pinned upload -> download into it", host, n, PARITY_BITWISE);
    o->unpin_host(host);
    o->unpin_host(keep); // never pinned: nothing to undo
    o->upload(d2, keep, n * sizeof(float));
    pr_out(r, "upload after unpin_host", d2, n, PARITY_BITWISE);
}

static void memory_peak_case(parity_run *r, const int *p) {
    (void)p;
    const ops_backend *o = pr_ops(r);
    o->memory_peak(1);
    size_t base = o->memory_peak(0);
    void *x = o->alloc(1000, "meter x"), *y = o->alloc(3000, "meter y");
    o->free(y);
    size_t peak = o->memory_peak(1), window = o->memory_peak(0);
    o->free(x);
    pr_out_value(r, "peak - base (1000 and 3000 bytes live at once)", (double)(peak - base), PARITY_BITWISE);
    pr_out_value(r, "new window - base after the reset (1000 live)", (double)(window - base), PARITY_BITWISE);
}

const parity_case parity_cases_memory[] = {
    {"alloc free upload download copy synchronize", "100003 floats", round_trip_case, {100003}, .repeat = 0},
    {"pin_host unpin_host upload_wait", "1000003 floats", pinned_case, {1000003, 0}, .repeat = 0},
    {"pin_host unpin_host upload_wait", "77 floats at +3", pinned_case, {77, 3}, .repeat = 0},
    {"memory_peak", "1000 and 3000 bytes", memory_peak_case, {0}, .repeat = 0},
};
const int parity_cases_memory_count = (int)(sizeof parity_cases_memory / sizeof parity_cases_memory[0]);
