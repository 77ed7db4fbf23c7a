// core/cuda/memory_cuda.cu — the CUDA backend's memory (core/ops_list.h "memory"; core/ops_cuda.h
// for C callers): device allocations (zeroed; cudaMalloc aligns to 256 bytes), the copies
// host -> device, device -> host and device -> device, synchronisation, and zeroing. The CPU
// twin is core/cpu/memory_cpu.c. Everything is issued on the backend's stream (cuda_stream.h),
// in order with the ops: an upload from pageable memory returns once its source has been read
// (CUDA stages it), one from a buffer page-locked by pin_host returns at once and is read by the
// DMA in stream order (upload_wait, called before the host rewrites that buffer, waits for it);
// a device -> device copy and zero are queued; download and synchronize wait for the stream.
// While a graph is being captured (graph_capture.h), a call that cannot be captured refuses the
// capture instead of running.
#include "ops_cuda_internal.cuh"
extern "C" {
#include "../ops_cuda.h"
}
#include "../memory_meter.h"
#include "graph_capture.h"
#include <stdio.h>
#include <string.h>

static memory_meter meter;
size_t cuda_memory_peak(int reset) { return memory_meter_peak(&meter, reset); }

extern "C" void *cuda_alloc(size_t bytes, const char *what) {
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess)
        die_fail("cannot allocate %zu bytes of GPU memory for %s: %s", bytes, what,
                 cudaGetErrorString(err));
    CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, cuda_stream()));
    memory_meter_add(&meter, p, bytes);
    return p;
}

extern "C" void cuda_free(void *p) {
    for (int i = 0; p && i < meter.count; i++) // the range may come back holding anything
        if (meter.blocks[i].p == p) cuda_weights_released(p, meter.blocks[i].bytes);
    memory_meter_remove(&meter, p);
    if (p) CUDA_CHECK(cudaFree(p));
}

// Transient workspaces (the attention's T×M matrices): stream-ordered allocations (cuda_stream) from the
// device's default memory pool, which keeps freed memory cached for the next call (release
// threshold raised once to the maximum), so the alloc / free pair of every call is cheap. They
// count in the meter while they live, so ops->memory_peak includes them at their peak.
static int pool_ready;

void *cuda_alloc_transient(size_t bytes, const char *what) {
    if (!pool_ready) {
        int dev = 0;
        cudaMemPool_t pool;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
        uint64_t keep = UINT64_MAX;
        CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        pool_ready = 1;
    }
    void *p = NULL;
    cudaError_t err = cudaMallocAsync(&p, bytes ? bytes : 1, cuda_stream());
    if (err != cudaSuccess)
        die_fail("cannot allocate %zu bytes of GPU memory for %s: %s", bytes, what,
                 cudaGetErrorString(err));
    memory_meter_add(&meter, p, bytes);
    return p;
}

void cuda_free_transient(void *p) {
    if (!p) return;
    memory_meter_remove(&meter, p);
    CUDA_CHECK(cudaFreeAsync(p, cuda_stream()));
}

// The ranges pin_host registered, and for each an event recorded after the latest upload read
// from it (upload_wait waits for them).
enum { PINNED_MAX = 8 };
static struct {
    const char *p;
    size_t bytes;
    cudaEvent_t read;
    int pending;
} pinned[PINNED_MAX];

static int pinned_index(const void *src, size_t bytes) {
    const char *s = (const char *)src;
    for (int i = 0; i < PINNED_MAX; i++)
        if (pinned[i].p && s >= pinned[i].p && s + bytes <= pinned[i].p + pinned[i].bytes) return i;
    return -1;
}

extern "C" void cuda_to_device(void *dst, const void *src, size_t bytes) {
    if (bytes == 0) return;
    cuda_weights_written(dst, bytes); // a checkpoint load, a restore: cached bf16 copies are stale
    int i = pinned_index(src, bytes), capturing = cuda_graph_capturing();
    if (capturing && i < 0) { // a graph's memcpy node must read pinned memory
        cuda_graph_refuse("an upload from pageable host memory inside the step");
        return;
    }
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cuda_stream()));
    if (i >= 0 && !capturing) { // read by the DMA later, in stream order: remember when
        CUDA_CHECK(cudaEventRecord(pinned[i].read, cuda_stream()));
        pinned[i].pending = 1;
    }
}

// The waiting calls below count the host's time in them (timing_cuda.cu: host_wait_seconds) and
// the reads (host_reads).
extern "C" void cuda_to_host(void *dst, const void *src, size_t bytes) {
    if (cuda_graph_capturing()) { // nothing runs during a capture: no value to read
        cuda_graph_refuse("a download (a host read) inside the step");
        memset(dst, 0, bytes);
        return;
    }
    double t0 = now_seconds();
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cuda_stream()));
    CUDA_CHECK(cudaStreamSynchronize(cuda_stream())); // dst may be pageable: done only now
    cuda_host_wait_add(now_seconds() - t0);
    cuda_host_read_add();
}

extern "C" void cuda_sync(void) {
    if (cuda_graph_capturing()) {
        cuda_graph_refuse("a synchronize inside the step");
        return;
    }
    double t0 = now_seconds();
    CUDA_CHECK(cudaStreamSynchronize(cuda_stream()));
    CUDA_CHECK(cudaGetLastError()); // a failed kernel's error, named here
    cuda_host_wait_add(now_seconds() - t0);
    cuda_host_read_add();
}

void cuda_pinned_uploads_issued(void) {
    for (int i = 0; i < PINNED_MAX; i++)
        if (pinned[i].p) {
            CUDA_CHECK(cudaEventRecord(pinned[i].read, cuda_stream()));
            pinned[i].pending = 1;
        }
}

void cuda_upload_wait(void) {
    if (cuda_graph_capturing()) {
        cuda_graph_refuse("a wait for uploads inside the step");
        return;
    }
    double t0 = now_seconds();
    for (int i = 0; i < PINNED_MAX; i++)
        if (pinned[i].pending) {
            CUDA_CHECK(cudaEventSynchronize(pinned[i].read));
            pinned[i].pending = 0;
        }
    cuda_host_wait_add(now_seconds() - t0);
}

// The table's upload, download and synchronize (core/ops_list.h's names) are the C calls above.
void cuda_upload(void *dst, const void *src, size_t bytes) { cuda_to_device(dst, src, bytes); }
void cuda_download(void *dst, const void *src, size_t bytes) { cuda_to_host(dst, src, bytes); }
void cuda_synchronize(void) { cuda_sync(); }

// device -> device, queued on the stream like the ops (every later op and download sees it
// done). The ranges must not overlap (cudaMemcpy's rule; the CPU's memmove would allow it),
// except dst == src: nothing to do.
void cuda_copy(void *dst, const void *src, size_t bytes) {
    if (bytes == 0 || dst == src) return;
    cuda_weights_written(dst, bytes);
    const char *d = (const char *)dst, *s = (const char *)src;
    if (d < s + bytes && s < d + bytes)
        die_fail("internal: cuda copy of %zu bytes between overlapping device ranges", bytes);
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cuda_stream()));
}

void cuda_zero(float *x, size_t n) {
    if (n == 0) return;
    cuda_weights_written(x, n * sizeof(float));
    CUDA_CHECK(cudaMemsetAsync(x, 0, n * sizeof(float), cuda_stream()));
}

// Page-locked host buffers (ops_list.h pin_host): a copy from them is a direct, asynchronous
// DMA, with no staging copy through the driver's pinned bounce buffer. When the system refuses
// (memlock limits, an already registered range, more than PINNED_MAX ranges), a note says so once
// and the copies stay pageable (read before the upload returns).
void cuda_pin_host(void *ptr, size_t bytes) {
    if (!ptr || bytes == 0) return;
    int slot = -1;
    for (int i = 0; i < PINNED_MAX && slot < 0; i++)
        if (!pinned[i].p) slot = i;
    cudaError_t err = slot < 0 ? cudaErrorMemoryAllocation : cudaHostRegister(ptr, bytes, cudaHostRegisterDefault);
    if (err != cudaSuccess) {
        static int said;
        if (!said++)
            fprintf(stderr, "note: cannot page-lock a %zu-byte host input buffer (%s); uploads stay pageable\n",
                    bytes, slot < 0 ? "too many pinned buffers" : cudaGetErrorString(err));
        (void)cudaGetLastError(); // clear it: the failure is handled here
        return;
    }
    if (!pinned[slot].read) CUDA_CHECK(cudaEventCreateWithFlags(&pinned[slot].read, cudaEventDisableTiming));
    pinned[slot].p = (const char *)ptr, pinned[slot].bytes = bytes, pinned[slot].pending = 0;
}

void cuda_unpin_host(void *ptr) {
    if (!ptr) return;
    for (int i = 0; i < PINNED_MAX; i++)
        if (pinned[i].p == (const char *)ptr) { // its last upload is read before the range goes
            if (pinned[i].pending) CUDA_CHECK(cudaEventSynchronize(pinned[i].read));
            pinned[i].p = NULL, pinned[i].bytes = 0, pinned[i].pending = 0;
        }
    cudaPointerAttributes attr;
    // Only a registered range is unregistered (pin_host may have been refused).
    if (cudaPointerGetAttributes(&attr, ptr) == cudaSuccess && attr.type == cudaMemoryTypeHost)
        CUDA_CHECK(cudaHostUnregister(ptr));
    (void)cudaGetLastError();
}
