// core/cuda/ops_cuda.cu — the CUDA backend's frame and op table: its stream (cuda_stream.h), the cuBLAS handle and
// `ops_cuda` (GPU discovery: device_probe_cuda.cu), which gathers cuda_<name> for every entry of core/ops_list.h
// (core/cuda/*_cuda.cu, declared in ops_cuda_internal.cuh) behind core/ops.h's interface
// (device pointers). Its twin is core/cpu/ops_cpu.c; the op families are mirrored file for
// file (dense, tokens, attention, posenc, mixing, resize, losses, reduce, optim, memory).
#include "ops_cuda_internal.cuh"
extern "C" {
#include "../ops_cuda.h"
}
#include <stdio.h>
#include <string.h>

static int stream_mode = CUDA_STREAM_LEGACY;
static int stream_made = 0; // cuda_stream() has answered: the mode is fixed from then on

extern "C" void cuda_set_stream_mode(int mode) {
    if (mode != CUDA_STREAM_LEGACY && mode != CUDA_STREAM_OWN)
        die_fail("cuda_set_stream_mode: %d is not CUDA_STREAM_LEGACY or CUDA_STREAM_OWN", mode);
    if (stream_made && mode != stream_mode)
        die_fail("cuda_set_stream_mode: the stream is chosen before the first CUDA op (POSBENCH_STREAM)");
    stream_mode = mode;
}

// NULL is the legacy default stream: every call below takes it as it takes a stream of its own.
extern "C" cudaStream_t cuda_stream(void) {
    static cudaStream_t stream = NULL;
    if (!stream_made && stream_mode == CUDA_STREAM_OWN)
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); // kept for the process
    stream_made = 1;
    return stream;
}

cublasHandle_t cuda_cublas(void) {
    static cublasHandle_t handle = NULL;
    if (!handle) {
        CUBLAS_CHECK(cublasCreate(&handle));
        CUBLAS_CHECK(cublasSetStream(handle, cuda_stream()));
        CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH)); // FP32, no TF32
    }
    return handle;
}

extern "C" const ops_backend ops_cuda = {
    .name = "cuda",
#define OP(ret, op, params, args) .op = cuda_##op,
#include "../ops_list.h"
};
