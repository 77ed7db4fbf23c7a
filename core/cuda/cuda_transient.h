// core/cuda/cuda_transient.h — op workspaces that live for one call (memory_cuda.cu): not
// zeroed, stream-ordered from a caching pool, counted by the memory meter while they live; free
// one before the op returns. Plain C++ declarations, so the C++ translation units that are not
// CUDA sources (attention_cudnn.cpp) share them with the .cu files.
#pragma once
#include <stddef.h>

void *cuda_alloc_transient(size_t bytes, const char *what);
void cuda_free_transient(void *p); // NULL is fine
