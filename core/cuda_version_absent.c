// core/cuda_version_absent.c — core/cuda_version.h in a build without the CUDA backend.
#include "cuda_version.h"
#ifndef POSBENCH_CUDA
#include <stdio.h>

void cuda_version_text(char *buf, size_t len) {
    snprintf(buf, len, "cuda: not built (nvcc or the CUDA libraries were not found when posbench was built)\n"
                       "cudnn: not built (no CUDA backend)\n");
}
#else
typedef int cuda_version_absent_unused; // ISO C wants a declaration in every translation unit
#endif
