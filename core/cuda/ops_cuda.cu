// core/cuda/ops_cuda.cu — the CUDA backend's frame and op table: GPU discovery, the cuBLAS
// handle, and `ops_cuda`, which gathers cuda_<name> for every entry of core/ops_list.h
// (core/cuda/*_cuda.cu, declared in ops_cuda_internal.cuh) behind core/ops.h's interface
// (device pointers). Its twin is core/cpu/ops_cpu.c; the op families are mirrored file for
// file (dense, tokens, attention, posenc, mixing, resize, losses, reduce, optim, memory).
#include "ops_cuda_internal.cuh"
extern "C" {
#include "../ops_cuda.h"
}
#include <stdio.h>
#include <string.h>

static char device_name[256];

extern "C" int cuda_built(void) { return 1; }

extern "C" int cuda_usable(char *why, size_t len) {
    static int checked = 0, usable = 0;
    static char reason[256];
    if (!checked) {
        checked = 1;
        int count = 0;
        cudaError_t err = cudaGetDeviceCount(&count);
        if (err != cudaSuccess) {
            snprintf(reason, sizeof reason, "no usable GPU: %s (%s)", cudaGetErrorName(err),
                     cudaGetErrorString(err));
            cudaGetLastError(); // reset the last-error state so later calls do not report this one
        } else if (count == 0) {
            snprintf(reason, sizeof reason, "no GPU found (cudaGetDeviceCount = 0)");
        } else {
            cudaDeviceProp prop;
            err = cudaGetDeviceProperties(&prop, 0);
            if (err != cudaSuccess) {
                snprintf(reason, sizeof reason, "GPU 0 cannot be queried: %s", cudaGetErrorString(err));
            } else if (prop.major < 8) {
                snprintf(reason, sizeof reason, "GPU 0 (%.200s) is sm_%d%d; this build targets sm_80 and sm_90",
                         prop.name, prop.major, prop.minor);
            } else {
                snprintf(device_name, sizeof device_name, "%s", prop.name);
                usable = 1;
            }
        }
    }
    if (!usable && why && len) snprintf(why, len, "%s", reason);
    return usable;
}

extern "C" const char *cuda_device_name(void) { return device_name; }

cublasHandle_t cuda_cublas(void) {
    static cublasHandle_t handle = NULL;
    if (!handle) {
        CUBLAS_CHECK(cublasCreate(&handle));
        CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH)); // FP32, no TF32
    }
    return handle;
}

extern "C" const ops_backend ops_cuda = {
    .name = "cuda",
#define OP(ret, op, params, args) .op = cuda_##op,
#include "../ops_list.h"
};
