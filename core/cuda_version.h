// core/cuda_version.h — the CUDA versions of this build, for `posbench --version`: the toolkit it
// was compiled with (nvcc, CUDA runtime headers, cuBLAS headers) and what this machine's driver
// and runtime library report. core/cuda/version_cuda.cu answers in a CUDA build,
// core/cuda_version_absent.c in a CPU-only one.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// One line per fact, "key: value\n" (cuda_toolkit, cuda_runtime, cuda_driver, cublas, then cudnn:
// whether the cuDNN attention route is compiled in, and cudnn_library: the libcudnn it loads or
// why none), into buf; a CPU-only build writes "cuda: not built (...)\n" and "cudnn: not built
// (...)\n". Does not create a CUDA context.
void cuda_version_text(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
