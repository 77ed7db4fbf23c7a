// core/cuda_absent.c — the answers of core/ops_cuda.h in a build without the CUDA backend
// (nvcc not found): nothing is usable, and asking for device memory is an error.
#include "ops_cuda.h"
#ifndef POSBENCH_CUDA
#include "common.h"
#include <stdio.h>

int cuda_built(void) { return 0; }
int cuda_usable(char *why, size_t len) {
    snprintf(why, len, "this build has no CUDA backend (nvcc was not found when it was built)");
    return 0;
}
const char *cuda_device_name(void) { return ""; }
void *cuda_alloc(size_t bytes, const char *what) {
    die_fail("cannot allocate %zu bytes of GPU memory for %s: this build has no CUDA backend", bytes, what);
}
void cuda_free(void *p) { (void)p; }
void cuda_to_device(void *dst, const void *src, size_t bytes) {
    (void)dst; (void)src; (void)bytes;
    die_fail("cuda_to_device: this build has no CUDA backend");
}
void cuda_to_host(void *dst, const void *src, size_t bytes) {
    (void)dst; (void)src; (void)bytes;
    die_fail("cuda_to_host: this build has no CUDA backend");
}
void cuda_sync(void) {}
void cuda_set_attention_route(int route) { (void)route; } // nothing to route without CUDA
int cuda_attention_route(void) { return CUDA_ATTN_AUTO; }
int cuda_attention_route_of(const attention_desc *d) {
    (void)d;
    return -1;
}
int cuda_attention_kv_route_of(const attention_desc *d) {
    (void)d;
    return -1;
}
long cuda_attention_inplace_calls(void) { return 0; }
void cuda_set_linear_route(int route) { (void)route; }
void cuda_set_kernels(int version) { (void)version; }
void cuda_set_stream_mode(int mode) { (void)mode; }
int cuda_linear_route(void) { return CUDA_LINEAR_GEMMEX; }
int cuda_kernels(void) { return CUDA_KERNELS_V1; }
int cuda_attention_cudnn_available(char *why, size_t len) {
    snprintf(why, len, "this build has no CUDA backend");
    return 0;
}
#else
typedef int cuda_absent_unused; // ISO C wants a declaration in every translation unit
#endif
