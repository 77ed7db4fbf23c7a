// core/cuda/memory_cuda.cu — the CUDA backend's memory (core/ops_list.h "memory"; core/ops_cuda.h
// for C callers): device allocations (zeroed; cudaMalloc aligns to 256 bytes), the copies
// host -> device, device -> host and device -> device, synchronisation, and zeroing. The CPU
// twin is core/cpu/memory_cpu.c. Every call but zero returns when its work is done; zero is
// queued on the default stream like the ops.
#include "ops_cuda_internal.cuh"
extern "C" {
#include "../ops_cuda.h"
}
#include "../memory_meter.h"
#include <stdio.h>

static memory_meter meter;
size_t cuda_memory_peak(int reset) { return memory_meter_peak(&meter, reset); }

extern "C" void *cuda_alloc(size_t bytes, const char *what) {
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess)
        die_fail("cannot allocate %zu bytes of GPU memory for %s: %s", bytes, what,
                 cudaGetErrorString(err));
    CUDA_CHECK(cudaMemset(p, 0, bytes));
    memory_meter_add(&meter, p, bytes);
    return p;
}

extern "C" void cuda_free(void *p) {
    for (int i = 0; p && i < meter.count; i++) // the range may come back holding anything
        if (meter.blocks[i].p == p) cuda_weights_released(p, meter.blocks[i].bytes);
    memory_meter_remove(&meter, p);
    if (p) CUDA_CHECK(cudaFree(p));
}

// Transient workspaces (the attention's T×M matrices): stream-ordered allocations from the
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
    cudaError_t err = cudaMallocAsync(&p, bytes ? bytes : 1, 0);
    if (err != cudaSuccess)
        die_fail("cannot allocate %zu bytes of GPU memory for %s: %s", bytes, what,
                 cudaGetErrorString(err));
    memory_meter_add(&meter, p, bytes);
    return p;
}

void cuda_free_transient(void *p) {
    if (!p) return;
    memory_meter_remove(&meter, p);
    CUDA_CHECK(cudaFreeAsync(p, 0));
}

extern "C" void cuda_to_device(void *dst, const void *src, size_t bytes) {
    cuda_weights_written(dst, bytes); // a checkpoint load, a restore: cached bf16 copies are stale
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

// The waiting calls below count the host's time in them (timing_cuda.cu: host_wait_seconds).
extern "C" void cuda_to_host(void *dst, const void *src, size_t bytes) {
    double t0 = now_seconds();
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    cuda_host_wait_add(now_seconds() - t0);
}

extern "C" void cuda_sync(void) {
    double t0 = now_seconds();
    CUDA_CHECK(cudaDeviceSynchronize());
    cuda_host_wait_add(now_seconds() - t0);
}

// The table's upload, download and synchronize (core/ops_list.h's names) are the C calls above.
void cuda_upload(void *dst, const void *src, size_t bytes) { cuda_to_device(dst, src, bytes); }
void cuda_download(void *dst, const void *src, size_t bytes) { cuda_to_host(dst, src, bytes); }
void cuda_synchronize(void) { cuda_sync(); }

// device -> device. cudaMemcpy does not wait for a device-to-device copy, so the stream is
// synchronised after it (ops_list.h: the copy is done when the call returns). The ranges must not
// overlap (cudaMemcpy's rule; the CPU's memmove would allow it), except dst == src: nothing
// to do.
void cuda_copy(void *dst, const void *src, size_t bytes) {
    if (bytes == 0 || dst == src) return;
    cuda_weights_written(dst, bytes);
    const char *d = (const char *)dst, *s = (const char *)src;
    if (d < s + bytes && s < d + bytes)
        die_fail("internal: cuda copy of %zu bytes between overlapping device ranges", bytes);
    double t0 = now_seconds();
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaStreamSynchronize(0));
    cuda_host_wait_add(now_seconds() - t0);
}

void cuda_zero(float *x, size_t n) {
    if (n == 0) return;
    cuda_weights_written(x, n * sizeof(float));
    CUDA_CHECK(cudaMemsetAsync(x, 0, n * sizeof(float), 0));
}

// Page-locked host buffers (ops_list.h pin_host): cudaMemcpy from them is a direct DMA, with no
// staging copy through the driver's pinned bounce buffer. When the system refuses (memlock
// limits, an already registered range), a note says so once and the copies stay pageable.
void cuda_pin_host(void *ptr, size_t bytes) {
    if (!ptr || bytes == 0) return;
    cudaError_t err = cudaHostRegister(ptr, bytes, cudaHostRegisterDefault);
    if (err != cudaSuccess) {
        static int said;
        if (!said++)
            fprintf(stderr, "note: cannot page-lock a %zu-byte host input buffer (%s); uploads stay pageable\n",
                    bytes, cudaGetErrorString(err));
        (void)cudaGetLastError(); // clear it: the failure is handled here
    }
}

void cuda_unpin_host(void *ptr) {
    if (!ptr) return;
    cudaPointerAttributes attr;
    // Only a registered range is unregistered (pin_host may have been refused).
    if (cudaPointerGetAttributes(&attr, ptr) == cudaSuccess && attr.type == cudaMemoryTypeHost)
        CUDA_CHECK(cudaHostUnregister(ptr));
    (void)cudaGetLastError();
}
