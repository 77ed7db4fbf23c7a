// core/cuda/version_cuda.cu — core/cuda_version.h in a CUDA build: compile-time versions of the
// toolkit and cuBLAS headers, and the versions the runtime library and driver report
// (cudaRuntimeGetVersion and cudaDriverGetVersion create no context), then the cuDNN attention
// route's lines (attention_cudnn.cpp: compiled in or not, the library it loads).
extern "C" {
#include "../cuda_version.h"
#include "attention_cudnn.h"
}
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

// 12040 -> "12.4"
static void version_text(int v, char *out, size_t len) { snprintf(out, len, "%d.%d", v / 1000, (v % 1000) / 10); }

extern "C" void cuda_version_text(char *buf, size_t len) {
    char built[32], runtime[32] = "unknown", driver[32] = "unknown";
    version_text(CUDART_VERSION, built, sizeof built);
    int v = 0;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) version_text(v, runtime, sizeof runtime);
    if (cudaDriverGetVersion(&v) == cudaSuccess) {
        if (v > 0) version_text(v, driver, sizeof driver);
        else snprintf(driver, sizeof driver, "none (no NVIDIA driver)");
    }
    cudaGetLastError(); // leave no error state behind
    snprintf(buf, len,
             "cuda_toolkit: %s (nvcc %d.%d)\n"
             "cuda_runtime: %s\n"
             "cuda_driver: %s\n"
             "cublas: %d.%d.%d (headers)\n",
             built, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, runtime, driver, CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR,
             CUBLAS_VER_PATCH);
    size_t used = strlen(buf);
    if (used + 1 < len) cuda_attention_cudnn_version_text(buf + used, len - used);
}
