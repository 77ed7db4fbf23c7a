// core/cuda/cuda_stream.h — the one stream the CUDA backend issues its work on. Every kernel
// launch (`<<<grid, block, smem, cuda_stream()>>>`), every cuBLAS / cuBLASLt / cuDNN call (their
// handles are set to it), every copy (cudaMemcpyAsync), memset, stream-ordered allocation and
// timing event goes on it, so the ops run in call order and a CUDA graph can capture a step
// (the legacy default stream cannot be captured). Non-blocking: it does not wait for work on the
// legacy stream (nothing is issued there). tests/e2e_cuda_stream.sh fails when a launch without a
// stream or a synchronous cudaMemcpy reappears in core/cuda/. Shared by the .cu files (nvcc) and
// the cuDNN route's .cpp (the host compiler), hence plain C declarations.
#pragma once
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif
// The backend's stream, created (cudaStreamNonBlocking) on the first call; dies naming the CUDA
// error when it cannot be.
cudaStream_t cuda_stream(void);
#ifdef __cplusplus
}
#endif
